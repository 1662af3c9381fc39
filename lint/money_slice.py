"""The part of a Python module that can hold a dollar-cap finding.

libcst parses about 46 files a second here, and a money-heavy tree sends its
largest modules to it: settings classes with hundreds of fields, agent loops
of a thousand lines, of which a handful of statements mention money. The
stdlib parser is several times faster, so it maps the module first, and the
statements that cannot matter are blanked (each of their lines becomes an
empty line) before libcst sees the text. Lines and columns stay where they
were, so findings, positions and fixes are unchanged.

A unit is a top-level statement, or one member of a large top-level class
whose name is not about money. A unit is kept when its text mentions money
or it is an import; then, until nothing changes, when it uses a name that a
kept unit defines (`meter.over()` keeps the gate that stops on it), or when
it is a top-level class that a kept unit uses (`Limiter(limit=cfg.max_usd)`
keeps the class `Limiter` that compares its limit). A class named for money
is kept whole: its limit compare may use only generic names
(`current_value >= max_value`).
"""

from __future__ import annotations

import re
from typing import Any

from lint.money import MONEY_KEYS

_MONEY = re.compile("|".join(MONEY_KEYS))  # on lowercased text: no re.I, several times faster
_NAME = re.compile(r"[A-Za-z_]\w*")
# A class with fewer members is cheap to keep whole.
_SLICED_CLASS_MEMBERS = 8
# Names too common to link two units by ("self.get(...)" in both says nothing);
# linking by them would keep almost everything.
_COMMON = frozenset({"self", "cls", "None", "True", "False", "get", "set", "run", "main",
                     "__init__", "__call__", "__post_init__", "model_config", "str", "int",
                     "float", "bool", "dict", "list", "tuple", "Any", "Optional", "return",
                     "if", "else", "for", "in", "not", "and", "or", "is", "def", "class",
                     "import", "from", "as", "with", "async", "await", "pass", "raise", "try",
                     "except", "finally", "while", "break", "continue", "lambda", "yield",
                     "print", "len", "isinstance", "super", "property", "staticmethod",
                     "classmethod", "field", "Field", "logger", "log", "os", "re", "json",
                     "typing", "name", "value", "data", "config", "args", "kwargs", "e"})


class _Unit:
    __slots__ = ("defines", "first", "is_class", "keep", "last", "member", "uses")

    def __init__(self, first: int, last: int, text: str, defines: set[str], seed: bool,
                 is_class: bool = False, member: bool = False) -> None:
        self.first, self.last = first, last
        self.defines = defines - _COMMON
        self.uses = set(_NAME.findall(text)) - _COMMON
        self.keep = seed
        self.is_class = is_class
        self.member = member  # one member of a sliced class


def sliced(text: str) -> str | None:
    """`text` with the units that cannot hold a finding blanked, or None when
    nothing would be blanked or the stdlib parser cannot read the module
    (newer syntax: libcst then parses all of it)."""
    import ast
    import warnings

    low_text = text.lower()
    if not _MONEY.search(low_text):
        return None  # `Guard(limit=5.0)` of an imported class: too little to slice
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences
            tree = ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    low = low_text.splitlines(keepends=True)
    if len(low) != len(lines):  # a character whose lowercase breaks lines: no slicing
        return None
    units: list[_Unit] = []
    class_heads: list[tuple[int, int, list[_Unit]]] = []  # (first, last header line, members)
    for node in tree.body:
        first, last = first_line(node), node.end_lineno or node.lineno
        if isinstance(node, ast.ClassDef) and len(node.body) >= _SLICED_CLASS_MEMBERS and \
                not _MONEY.search(node.name.lower()) and node.body[0].lineno > node.lineno:
            head_last = first_line(node.body[0]) - 1
            if _MONEY.search("".join(low[first - 1:head_last])):
                # money in a base or a decorator: keep it whole
                units.append(_Unit(first, last, "", {node.name}, True, is_class=True))
                continue
            members = [_unit(m, lines, low, ast, member=True) for m in node.body]
            class_heads.append((first, head_last, members))
            units += members
        else:
            units.append(_unit(node, lines, low, ast))
    _propagate(units)
    if all(unit.keep for unit in units):
        return None
    keep_lines: set[int] = set()
    blank: list[range] = []
    for unit in units:
        (keep_lines.update if unit.keep else blank.append)(range(unit.first, unit.last + 1))
    for first, head_last, members in class_heads:
        # a class header stays while one of its members does
        head = range(first, head_last + 1)
        (keep_lines.update if any(m.keep for m in members) else blank.append)(head)
    out = list(lines)
    for numbers in blank:
        for number in numbers:
            if number not in keep_lines and number <= len(out):
                # keep the line ending: '\r\n' files stay '\r\n' files
                ending = out[number - 1][len(out[number - 1].rstrip("\r\n")):]
                out[number - 1] = ending or "\n"
    return "".join(out)


def first_line(node: Any) -> int:
    """A stdlib ast statement's first line, its decorators included."""
    return min([d.lineno for d in getattr(node, "decorator_list", [])] + [node.lineno])


def _unit(node: Any, lines: list[str], low: list[str], ast: Any, member: bool = False) -> _Unit:
    first, last = first_line(node), node.end_lineno or node.lineno
    text = "".join(lines[first - 1:last])
    defines: set[str] = set()
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        defines.add(node.name)
        if isinstance(node, ast.ClassDef):
            defines |= {m.name for m in node.body
                        if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
    elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        defines |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        defines |= {n.attr for t in targets for n in ast.walk(t) if isinstance(n, ast.Attribute)}
    seed = bool(_MONEY.search("".join(low[first - 1:last]))) or \
        isinstance(node, ast.Import | ast.ImportFrom)
    return _Unit(first, last, text, defines, seed, is_class=isinstance(node, ast.ClassDef),
                 member=member)


def _propagate(units: list[_Unit]) -> None:
    """Keep every unit that uses what a kept unit defines, and every top-level
    class a kept unit uses, until nothing changes. A function, a constant or a
    member of a sliced class is not kept just because a kept unit names it:
    what makes a cap is in the kept unit itself, or in a class that carries it."""
    changed = True
    while changed:
        changed = False
        defined = set().union(*(u.defines for u in units if u.keep))
        used = set().union(*(u.uses for u in units if u.keep))
        for unit in units:
            if not unit.keep and (unit.uses & defined or
                                  (unit.is_class and not unit.member and unit.defines & used)):
                unit.keep = changed = True
