"""The workspace: what to lint when no PATH is given, read from pyproject.toml's
[tool.workflow-lint] table (all keys optional)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

from router.workspace import WorkspaceError, find

DEFAULT_SURFACES = ("CLAUDE.md", ".claude/agents/planner.md",
                    ".claude/agents/efficiency-critic.md",
                    ".claude/rules/compute-backend-failover.md")
DEFAULT_CRITIC = (".claude/agents/efficiency-critic.md",)
DEFAULT_PLANS = ("plans/**/*.md", "plans/*.md")
DEFAULT_PYTHON = ("**/*.py",)
# Config files the dollar-cap rule reads: under config folders, and config or
# settings files anywhere in the workspace.
DEFAULT_CONFIG = tuple(f"{where}.{ext}" for ext in ("yaml", "yml", "toml", "json")
                       for where in ("**/config/**/*", "**/configs/**/*", "**/conf/**/*",
                                     "**/settings/**/*", "**/*config*", "**/*settings*"))
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", "dist",
             ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis"}


class LexiconError(ValueError):
    """A workspace lexicon file that cannot be used (lint/lexicon.py raises it;
    it lives here so the CLI can catch it without importing the lexicon)."""


@dataclass
class Workspace:
    root: Path
    ladder: Path | None = None
    surfaces: tuple[str, ...] = DEFAULT_SURFACES
    critic_guidance: tuple[str, ...] = DEFAULT_CRITIC
    plans: tuple[str, ...] = DEFAULT_PLANS
    python: tuple[str, ...] = DEFAULT_PYTHON
    config_files: tuple[str, ...] = DEFAULT_CONFIG
    exclude: tuple[str, ...] = ()
    stale_claims: Path | None = None
    lexicon: Path | None = None  # extra lexicon entries (synonyms, cues), merged
    strict: bool = False  # turn on the rules that are off by default
    configured: set[str] = field(default_factory=set)

    def rel(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()

    def matches(self, rel: str, patterns: tuple[str, ...]) -> bool:
        # fnmatch's "*" crosses "/", so "**/x" is "x at any depth" once the
        # leading "**/" may also match nothing.
        return any(fnmatch.fnmatchcase(rel, p) or rel == p or
                   (p.startswith("**/") and fnmatch.fnmatchcase(rel, p[3:])) for p in patterns)

    def excluded(self, rel: str) -> bool:
        parts = rel.split("/")
        return bool(set(parts[:-1]) & SKIP_DIRS) or self.matches(rel, self.exclude)


def _strings(table: dict, key: str, source: Path) -> tuple[str, ...]:
    value = table[key]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkspaceError(f"{source}: [tool.workflow-lint] {key} must be a list of strings")
    return tuple(value)


def load(start: Path, ladder: str | None = None) -> Workspace:
    """The workspace around `start` (router/workspace.py finds it the same way
    for all three commands); no pyproject.toml or no table means all defaults,
    rooted at `start`. `ladder` (the --ladder flag) overrides the table's."""
    root, table = find(start)
    ws = Workspace(root=root or start)
    pyproject = ws.root / "pyproject.toml"
    ws.configured = set(table)
    for key in ("surfaces", "critic_guidance", "plans", "python", "config_files", "exclude"):
        if key in table:
            setattr(ws, key, _strings(table, key, pyproject))
    if "strict" in table:
        if not isinstance(table["strict"], bool):
            raise WorkspaceError(f"{pyproject}: [tool.workflow-lint] strict must be true or false")
        ws.strict = table["strict"]
    for key in ("ladder", "stale_claims", "lexicon"):
        if key in table:
            if not isinstance(table[key], str):
                raise WorkspaceError(f"{pyproject}: [tool.workflow-lint] {key} must be a path")
            setattr(ws, key, ws.root / table[key])
    if ladder is not None:
        ws.ladder = Path(ladder)
    return ws
