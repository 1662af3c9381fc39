"""Findings and the ways they are printed (text, JSON, SARIF 2.1.0, GitHub)."""

from __future__ import annotations

from dataclasses import dataclass

RULE_DOCS = {
    "ladder-drift": "a surface states a ladder fact that contradicts the router's config",
    "stale-claim": "a retired statement that no longer describes the router",
    "critic-drift": "the critic's guidance contradicts the critic's rules",
    "plan-block": "a §9 block that does not parse or does not fit the schema or the ladder",
    # The rule's own name reads as a dollar cap to the rule itself.
    "dollar-cap": "Python code that caps spend in dollars",  # workflow-lint: ignore[dollar-cap]
    "unused-suppression": "a suppression comment that suppresses nothing",
    "file-error": "a file that cannot be read or parsed",
}


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    col: int
    rule: str
    message: str
    severity: str = "error"  # "error" fails the run; "warning" is advisory

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "col": self.col, "rule": self.rule,
                "severity": self.severity, "message": self.message}


def _summary(findings: list[Finding], files: int) -> str:
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    noun = "file" if files == 1 else "files"
    if not findings:
        return f"All checks passed: {files} {noun}, no findings."
    return (f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} "
            f"({errors} error{'s' if errors != 1 else ''}, {warnings} "
            f"warning{'s' if warnings != 1 else ''}) in {files} {noun}.")


def render_text(findings: list[Finding], files: int) -> str:
    lines = []
    for f in findings:
        # The contract's shape, `path:line:col: RULE message`; advisories say so
        # at the end, where line parsers keep them inside the message.
        suffix = "" if f.severity == "error" else " (warning)"
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.rule} {f.message}{suffix}")
    lines.append(_summary(findings, files))
    return "\n".join(lines)


def render_json(findings: list[Finding]) -> str:
    import json

    return json.dumps([f.to_json() for f in findings], indent=2)


def _escape_github(value: str, *, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def render_github(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        props = (f"file={_escape_github(f.path, property_value=True)},line={f.line},"
                 f"col={f.col},title={_escape_github(f.rule, property_value=True)}")
        lines.append(f"::{level} {props}::{_escape_github(f.message)}")
    return "\n".join(lines)


def render_sarif(findings: list[Finding], version: str) -> str:
    import json

    rules = sorted(RULE_DOCS)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "workflow-lint",
                "version": version,
                "rules": [{"id": rule, "name": rule,
                           "shortDescription": {"text": RULE_DOCS[rule]}}
                          for rule in rules],
            }},
            "results": [{
                "ruleId": f.rule,
                "ruleIndex": rules.index(f.rule) if f.rule in rules else 0,
                "level": "error" if f.severity == "error" else "warning",
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": f.path.replace("\\", "/"),
                                         "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)},
                }}],
            } for f in findings],
        }],
    }
    return json.dumps(doc, indent=2)
