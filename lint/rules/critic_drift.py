"""critic-drift: the efficiency-critic guidance must state the critic's rules.

The rules live in `critics.rules`; this reads their names and severities from
there, so renaming or re-grading a rule makes stale guidance fail the lint.
"""

from __future__ import annotations

import re

from lint.document import Document
from lint.findings import Finding

NAME = "critic-drift"
_NEGATION = re.compile(r"\b(never|not|no|cannot|isn't|aren't|don't|doesn't)\b|n't\b", re.I)
_ACCEPTING = [
    (re.compile(r"\bunsharded\b[^.;]{0,60}?\b(?:is|are|counts?\s+as|remains?)\s+"
                r"(?:\w+\s+)?(acceptable|fine|ok|okay|allowed|approved|efficient)\b", re.I),
     "calls an unsharded wide plan acceptable; the critic REVISEs it (unsharded-wide)"),
    (re.compile(r"\bapprove\b[^.;]{0,40}?\bunsharded\b", re.I),
     "approves unsharded wide plans; the critic REVISEs them (unsharded-wide)"),
    (re.compile(r"\bdevice[_ ]map\b[^.;]{0,40}?\b(?:is|counts?\s+as)\s+(?:\w+\s+)?parallel\b",
                re.I),
     "counts device_map model splitting as parallel work; the critic does not"),
    (re.compile(r"\bnarrow\b[^.;]{0,60}?\b(?:always|is\s+always)\s+(?:fine|acceptable|ok)\b",
                re.I),
     "calls narrow plans always acceptable; the critic REVISEs needlessly-narrow ones"),
]
_THRESHOLD = re.compile(r"(?:at\s+least|>=|≥)\s*(\d+(?:\.\d+)?)\s*GPU[- ]hours?", re.I)


def _rules() -> dict[str, str]:
    from critics.rules import RULES

    return {rule.name: rule.severity for rule in RULES}


def check(doc: Document) -> list[Finding]:
    from critics.rules import DEFAULT_WIDEN_THRESHOLD

    rules = _rules()
    findings = []
    mentioned: set[str] = set()
    for unit in doc.units:
        heading = unit.heading.lower()
        for name, severity in rules.items():
            for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", unit.text):
                mentioned.add(name)
                says_revise = "revise" in heading
                says_warn = "warn" in heading or "advis" in heading
                if severity == "warning" and says_revise and not says_warn:
                    findings.append(Finding(doc.path, unit.line_at(m.start()), 1, NAME,
                                            f"'{name}' is listed under a REVISE heading but "
                                            "the critic only warns on it"))
                elif severity == "error" and says_warn and not says_revise:
                    findings.append(Finding(doc.path, unit.line_at(m.start()), 1, NAME,
                                            f"'{name}' is listed as a warning but the critic "
                                            "REVISEs on it"))
        for pattern, message in _ACCEPTING:
            for m in pattern.finditer(unit.text):
                if not _NEGATION.search(m.group(0)):
                    findings.append(Finding(doc.path, unit.line_at(m.start()), 1, NAME,
                                            f"guidance {message}"))
        if "needlessly-narrow" in unit.text or "narrow" in unit.text.lower():
            for m in _THRESHOLD.finditer(unit.text):
                if float(m.group(1)) != DEFAULT_WIDEN_THRESHOLD:
                    findings.append(Finding(
                        doc.path, unit.line_at(m.start()), 1, NAME,
                        f"widening threshold: expected {DEFAULT_WIDEN_THRESHOLD:g} GPU-hour, "
                        f"found {m.group(1)}"))
    for name in rules:
        if name not in mentioned and rules[name] == "error":
            findings.append(Finding(doc.path, 1, 1, NAME,
                                    f"the critic guidance never states the '{name}' rule"))
    return findings


_ALL_RULES = ("## REVISE when\n\n- **unsharded-wide**, **under-saturated**, **needlessly-narrow** "
              "(at least 1 GPU-hour).\n\n## Warn\n\n- **unwaited-background**, "
              "**oversubscribed**.\n")
VALID = [
    _ALL_RULES,
    _ALL_RULES + "\nAn unsharded wide plan is never acceptable.\n",
]
INVALID = [
    _ALL_RULES + "\nAn unsharded wide plan is fine when the deadline is close.\n",
    _ALL_RULES.replace("**needlessly-narrow** ", ""),
    _ALL_RULES.replace("at least 1 GPU-hour", "at least 4 GPU-hours"),
    _ALL_RULES + "\n## REVISE also when\n\n- **oversubscribed**.\n",
]
