"""Suppression comments: each names the rule it silences, on one line.

    Markdown: <!-- workflow-lint: ignore[ladder-drift] -->   (same line, or alone
              on the line just above the finding)
    Python:   # workflow-lint: ignore[dollar-cap]            (same line)

A suppression that silences nothing, or names no rule, is itself reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lint.findings import Finding

NAME = "unused-suppression"
_MARKER = re.compile(r"workflow-lint:\s*ignore(?:\[([^\]]*)\])?")
_MD_COMMENT = re.compile(r"<!--(.*?)-->")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+\1")  # a comment shown in `code` is not one


@dataclass
class Suppression:
    line: int  # the line it is written on
    targets: tuple[int, ...]  # the lines it covers
    rules: tuple[str, ...]
    used: set[str]


def _scan(lines: list[str], comment: re.Pattern[str] | None, skip: set[int],
          own_line_covers_next: bool) -> list[Suppression]:
    found = []
    for number, line in enumerate(lines, 1):
        if number in skip or "workflow-lint" not in line:
            continue
        if comment:
            line = _CODE_SPAN.sub("", line)
            bodies = [m.group(1) for m in comment.finditer(line)]
        else:
            bodies = [line[line.index("#"):]] if "#" in line else []
        for body in bodies:
            for m in _MARKER.finditer(body):
                rules = tuple(r.strip() for r in (m.group(1) or "").split(",") if r.strip())
                targets = [number]
                if own_line_covers_next and _MD_COMMENT.sub("", line).strip() == "":
                    targets.append(number + 1)
                found.append(Suppression(number, tuple(targets), rules, set()))
    return found


def markdown(lines: list[str], code_lines: set[int]) -> list[Suppression]:
    return _scan(lines, _MD_COMMENT, code_lines, own_line_covers_next=True)


def python(text: str) -> list[Suppression]:
    """Suppressions in real comments only (a docstring that shows the syntax is
    not one), found with the tokenizer."""
    if "workflow-lint" not in text:
        return []
    import io
    import tokenize

    comments: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.string
    except (tokenize.TokenError, SyntaxError):
        return []
    lines = [comments.get(n, "") for n in range(1, max(comments, default=0) + 1)]
    return _scan(lines, None, set(), own_line_covers_next=False)


def apply(path: str, findings: list[Finding], suppressions: list[Suppression],
          selected: set[str]) -> list[Finding]:
    """Drop suppressed findings; add one for each unused or rule-less suppression."""
    kept = []
    for finding in findings:
        hit = next((s for s in suppressions
                    if finding.line in s.targets and finding.rule in s.rules), None)
        if hit is None:
            kept.append(finding)
        else:
            hit.used.add(finding.rule)
    for s in suppressions:
        if not s.rules:
            kept.append(Finding(path, s.line, 1, NAME,
                                "suppression must name the rule it silences, e.g. "
                                "workflow-lint: ignore[ladder-drift]", "warning"))
            continue
        for rule in s.rules:
            if rule in selected and rule not in s.used:
                kept.append(Finding(path, s.line, 1, NAME,
                                    f"unused suppression of '{rule}'", "warning"))
    return kept
