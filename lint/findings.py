"""Findings and the ways they are printed (text, JSON, SARIF 2.1.0, GitHub)."""

from __future__ import annotations

from dataclasses import dataclass


def rule_docs() -> dict[str, str]:
    """Each rule's one-line summary, from the rule registry."""
    from lint.rules import ENGINE_RULES, registry

    return {**{name: rule.summary for name, rule in registry().items()}, **ENGINE_RULES}


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


def docs_base() -> str | None:
    """Where the rule pages (docs/rules/NAME.md) of this version are: the
    package's Repository URL at its version tag (`.../blob/vX.Y.Z/docs`), so a
    link shows the docs of the version that made the finding; without package
    metadata (a bare checkout on PYTHONPATH), the checkout's docs as a file URI."""
    from importlib import metadata

    try:
        meta = metadata.metadata("width-aware-workflow")
        for entry in meta.get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() == "repository" and url.strip():
                return f"{url.strip().rstrip('/')}/blob/v{meta['Version']}/docs"
    except metadata.PackageNotFoundError:
        pass
    from pathlib import Path

    local = Path(__file__).resolve().parent.parent / "docs"
    return local.as_uri() if (local / "rules").is_dir() else None


def render_sarif(findings: list[Finding], version: str) -> str:
    import json

    docs = rule_docs()
    rules = sorted(docs)
    base = docs_base()
    help_uri = {"helpUri": lambda rule: f"{base}/rules/{rule}.md"} if base else {}
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "workflow-lint",
                "version": version,
                "rules": [{"id": rule, "name": rule,
                           "shortDescription": {"text": docs[rule]},
                           **{key: uri(rule) for key, uri in help_uri.items()}}
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
