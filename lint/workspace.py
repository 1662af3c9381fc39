"""The workspace: what to lint when no PATH is given, read from pyproject.toml's
[tool.workflow-lint] table (all keys optional)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from router.workspace import WorkspaceError, find

# Where agents read guidance: Claude Code's CLAUDE.md at any depth (the root,
# `.claude/`, sub-folders), AGENTS.md (Codex, Cursor and others, nested too),
# and the agent and rule files under any `.claude/`.
DEFAULT_SURFACES = ("**/CLAUDE.md", "**/AGENTS.md", "**/.claude/agents/**/*.md",
                    "**/.claude/rules/**/*.md")
# The critic's guidance by path; any agent file whose front matter says
# `name: efficiency-critic` counts too (engine.py reads it).
DEFAULT_CRITIC = ("**/.claude/agents/efficiency-critic.md",)
DEFAULT_PLANS = ("plans/**/*.md",)
# Dot-folders are skipped when walking, except those agents read guidance from.
DOT_DIRS_READ = frozenset({".claude"})
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
    cache: bool = True  # keep compiled patterns in <root>/.workflow-lint-cache
    configured: set[str] = field(default_factory=set)

    def rel(self, path: Path) -> str:
        """`path` relative to the root (a path outside the root as given)."""
        try:
            return path.absolute().relative_to(self.root.absolute()).as_posix()
        except ValueError:
            pass
        try:  # a relative root, or a path through a symlinked folder
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):  # elsewhere, or a symlink loop
            return path.as_posix()

    def matches(self, rel: str, patterns: tuple[str, ...]) -> bool:
        return any(glob_regex(p).fullmatch(rel) for p in patterns)

    def excluded(self, rel: str) -> bool:
        """Skipped folders, and `exclude` patterns matched by the file or by
        any folder above it (so `vendor` and `vendor/*` both exclude a tree)."""
        parts = rel.split("/")
        if set(parts[:-1]) & SKIP_DIRS:
            return True
        return any(self.matches("/".join(parts[:i]), self.exclude)
                   for i in range(1, len(parts) + 1)) if self.exclude else False


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex with Path.glob's meaning: `*` and `?` stay inside one
    path segment, `**/` is any number of folders (none too), `[...]` a class."""
    out, i = [], 0
    pattern = pattern.removeprefix("./")
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1:end]
            negate = body[:1] in ("!", "^")
            body = "".join(c if c == "-" else re.escape(c) for c in body[negate:])
            out.append(f"[{'^' if negate else ''}{body}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


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
    for key in ("strict", "cache"):
        if key in table:
            if not isinstance(table[key], bool):
                raise WorkspaceError(f"{pyproject}: [tool.workflow-lint] {key} must be true "
                                     "or false")
            setattr(ws, key, table[key])
    for key in ("ladder", "stale_claims", "lexicon"):
        if key in table:
            if not isinstance(table[key], str):
                raise WorkspaceError(f"{pyproject}: [tool.workflow-lint] {key} must be a path")
            setattr(ws, key, ws.root / table[key])
    if ladder is not None:
        ws.ladder = Path(ladder)
    return ws
