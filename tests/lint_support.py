"""Lint a Markdown or Python text in-process, the way the CLI does."""

from __future__ import annotations

from pathlib import Path

from lint.engine import Linter, Target
from lint.rules import defaults
from lint.workspace import Workspace

KINDS = {"markdown": {"markdown"}, "critic": {"markdown", "critic"},
         "plan": {"markdown", "plan"}, "python": {"python"}}
_LINTERS: dict[tuple, Linter] = {}


def linter(rules: frozenset[str] | None = None, ladder: Path | None = None) -> Linter:
    key = (rules, ladder)
    if key not in _LINTERS:
        _LINTERS[key] = Linter(Workspace(root=Path("."), ladder=ladder),
                               set(rules) if rules is not None else defaults())
    return _LINTERS[key]


def lint(text: str, reads: str = "markdown", rules: set[str] | None = None,
         name: str = "example.md", ladder: Path | None = None) -> list:
    run = linter(frozenset(rules) if rules is not None else None, ladder)
    target = Target(Path(name), name, KINDS[reads])
    if reads == "python":
        return run.python([(target, text)])
    return run.markdown(target, text)
