"""Config values restated as assignments in a non-YAML fence.

Guidance pastes settings in more shapes than YAML: a TOML table
(`[ladder]` / `short_threshold_hours = 6`), Python constants
(`SHORT_THRESHOLD_HOURS = 6`), shell or .env lines (`export WIDTHS="8 4 2 1"`
is not read; `FLEX_START_MAX_RUN_HOURS=72` is). This module turns such a
fence into the same shape the YAML reader gives (`router.yamlsafe.Located`:
the data plus the line of every value), so `lint.config_snippet` judges it
with the same code. It reads one assignment per line and never evaluates
code: a value is a literal (`ast.literal_eval`, bounded) or it is skipped.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from router.yamlsafe import Located

MAX_VALUE_CHARS = 2000
# TOML's table header: `[families.h100-80gb]`, `[[slurm_lanes]]` (an array of tables)
_TABLE = re.compile(r"\s*(\[\[?)\s*([A-Za-z_][\w.\"'-]*)\s*\]\]?\s*(?:#.*)?$")
# `key = value`, `KEY: int = value` (an annotated constant), `export KEY=value`
_ASSIGN = re.compile(r"\s*(?:export\s+)?([A-Za-z_][\w.\"'-]*)\s*(?::\s*[\w\[\], |.]+?\s*)?"
                     r"=\s*(?P<value>\S.*?)\s*$")


def load(content: str, first_line: int) -> Located:
    """The assignments of a fence whose first content line is `first_line`."""
    data: dict[str, Any] = {}
    lines: dict[tuple, int] = {}
    table: tuple = ()
    for offset, source in enumerate(content.splitlines()):
        line = first_line + offset
        header = _TABLE.match(source)
        if header:
            table = _key_path(header[2])
            if header[1] == "[[":  # one more element of an array of tables
                parent = _container(data, table[:-1])
                items = parent.setdefault(table[-1], []) if parent is not None else None
                if not isinstance(items, list):
                    table = ()
                    continue
                items.append({})
                table = (*table, len(items) - 1)
            lines.setdefault(table, line)
            continue
        assign = _ASSIGN.match(source)
        if not assign or "==" in source:
            continue
        value = _literal(_without_comment(assign["value"]))
        if value is None:
            continue
        path = (*table, *_key_path(assign[1]))
        parent = _container(data, path[:-1])
        if parent is None:
            continue
        parent[path[-1]] = value
        lines[path] = line
        for i in range(len(path) - 1):
            lines.setdefault(path[:i + 1], line)
    return Located(data, lines)


def _key_path(written: str) -> tuple:
    return tuple(part.strip("\"'") for part in written.split(".") if part.strip("\"'"))


def _container(data: dict, path: tuple) -> dict | None:
    """The mapping at `path`, made on the way; None when a scalar is in the way."""
    node: Any = data
    for key in path:
        if isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
            continue
        if not isinstance(node, dict):
            return None
        node = node.setdefault(key, {})
    return node if isinstance(node, dict) else None


def _without_comment(value: str) -> str:
    """The value before a `#` or `//` comment that is outside quotes."""
    quote = None
    for i, char in enumerate(value):
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" or value.startswith("//", i):
            return value[:i].rstrip()
    return value.rstrip().rstrip(",;")


def _literal(value: str) -> Any:
    """A Python/TOML literal (numbers, strings, lists), or None."""
    if not value or len(value) > MAX_VALUE_CHARS:
        return None
    text = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", value))
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        # an unquoted shell/.env word: `PROVISIONING=SPOT`
        return value if re.fullmatch(r"[A-Za-z_][\w-]*", value) else None
    if isinstance(parsed, tuple):
        parsed = list(parsed)
    return parsed if isinstance(parsed, int | float | str | list | dict) else None
