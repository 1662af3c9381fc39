"""Where a workspace's config lives, found the same way by all three commands.

The workspace is the nearest folder, from a starting point upward, whose
`pyproject.toml` has a `[tool.workflow-lint]` table (as ruff skips a
`pyproject.toml` without `[tool.ruff]`); failing that, the nearest folder with
any `pyproject.toml`. The table's `ladder` key names the ladder config for
`workflow-lint`, `efficiency-critic` and `backend-router` alike, and each
command's `--ladder FILE` overrides it. Only tomllib is imported here: the lint
runs in pre-commit, so this path stays cheap.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

TABLE = "workflow-lint"
# Every key the table may hold, whichever command reads it: a typo is an error
# for all three, so no command silently runs with a setting another ignores.
KEYS = frozenset({"ladder", "surfaces", "critic_guidance", "plans", "python", "config_files",
                  "exclude", "stale_claims", "lexicon", "strict", "launchers", "cache"})
MAX_PYPROJECT_BYTES = 2_000_000
MAX_DEPTH = 256  # folders walked upward; deeper than any real tree


class WorkspaceError(ValueError):
    """A pyproject.toml or [tool.workflow-lint] table that cannot be used."""


def _table(pyproject: Path) -> dict | None:
    """The [tool.workflow-lint] table of one pyproject.toml, or None without one."""
    from router import textfile

    try:
        text = textfile.read(pyproject, MAX_PYPROJECT_BYTES, "pyproject.toml")
        data = tomllib.loads(text)
    except (textfile.TextFileError, tomllib.TOMLDecodeError) as exc:
        raise WorkspaceError(f"{pyproject}: cannot read: {exc}") from None
    tool = data.get("tool", {})
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise WorkspaceError(f"{pyproject}: [tool.{TABLE}] must be a table")
    for key in table:
        if key not in KEYS:
            raise WorkspaceError(f"{pyproject}: [tool.{TABLE}] unknown key {key!r} "
                                 f"(allowed: {', '.join(sorted(KEYS))})")
    return table


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a folder we may not search: no config there for us
        return False


@lru_cache(maxsize=64)
def _find(start: Path) -> tuple[Path | None, dict | None]:
    nearest: Path | None = None
    folder = start
    for _ in range(MAX_DEPTH):
        pyproject = folder / "pyproject.toml"
        if _is_file(pyproject):
            table = _table(pyproject)
            if table is not None:
                return folder, table
            nearest = nearest or folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return nearest, None


def start_of(path: str | Path | None) -> Path:
    """Where the upward search starts: a file's folder, a folder, or the cwd."""
    if path is None:
        return Path.cwd().resolve()
    p = Path(path)
    p = p if p.is_dir() else p.parent
    return (p if str(p) else Path(".")).resolve()


def find(start: Path) -> tuple[Path | None, dict]:
    """The workspace root for `start` (None when no pyproject.toml is above it)
    and its [tool.workflow-lint] table ({} when it has none)."""
    root, table = _find(start)
    return root, dict(table or {})


def ladder(explicit: str | None, start: Path) -> str | None:
    """The ladder config to load: --ladder, else the workspace's `ladder` key
    (relative to the workspace root), else None (the packaged config)."""
    if explicit is not None:
        return explicit
    root, table = find(start)
    value = table.get("ladder")
    if value is None or root is None:
        return None
    if not isinstance(value, str):
        raise WorkspaceError(f"{root / 'pyproject.toml'}: [tool.{TABLE}] ladder must be a path")
    return str(root / value)


def load_ladder(explicit: str | None, near: str | Path | None = None):
    """The LadderConfig a command runs with: --ladder, else the workspace's
    around `near` (a plan file, or None for the current directory)."""
    from router import config

    return config.load(ladder(explicit, start_of(near)))
