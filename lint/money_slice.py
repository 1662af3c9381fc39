"""The part of a Python module that can hold a dollar-cap finding.

libcst parses about 46 files a second here, and a money-heavy tree sends its
largest modules to it: settings classes with hundreds of fields, agent loops
of a thousand lines, of which a handful of statements mention money. The
stdlib parser is several times faster, so it maps the module first, and the
statements that cannot matter are blanked (each of their lines becomes an
empty line) before libcst sees the text. Lines and columns stay where they
were, so findings, positions and fixes are unchanged.

A unit is a top-level statement, or one member of a large top-level class
whose name is not about money. A unit is kept when its text mentions money;
then, until nothing changes, when it uses a name that a
kept unit defines (`meter.over()` keeps the gate that stops on it), or when
it is a top-level class that a kept unit uses (`Limiter(limit=cfg.max_usd)`
keeps the class `Limiter` that compares its limit). A class named for money
is kept whole: its limit compare may use only generic names
(`current_value >= max_value`). An import is kept when a kept unit uses a
name it imports.

Inside a long function kept for its own text, the same is done one level
down: its body statements are the units, seeded by money or by a name a kept
module unit defines, and linked by the names they define and use as above,
plus one step back: the assignment of a name a kept statement uses (a gate
on `total` keeps the line that computes `total`). A body left with no
statement keeps a `pass` on the first blanked line, so it still parses.
"""

from __future__ import annotations

import re
from typing import Any

from lint.money import MONEY_KEYS

_MONEY = re.compile("|".join(MONEY_KEYS))  # on lowercased text: no re.I, several times faster
_NAME = re.compile(r"[A-Za-z_]\w*")
# A class with fewer members, or a function with fewer body statements, is
# cheap to keep whole.
_SLICED_CLASS_MEMBERS = 8
_SLICED_BODY_STATEMENTS = 6
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
    __slots__ = ("defines", "first", "imports", "is_class", "keep", "last", "member", "node",
                 "seed", "uses")

    def __init__(self, first: int, last: int, text: str, defines: set[str], seed: bool,
                 is_class: bool = False, member: bool = False) -> None:
        self.first, self.last = first, last
        self.defines = defines - _COMMON
        self.uses = set(_NAME.findall(text)) - _COMMON
        self.keep = self.seed = seed
        self.is_class = is_class
        self.member = member  # one member of a sliced class
        self.node: Any = None  # the statement, for a function whose body may be sliced
        # what an import binds: not a definition to propagate from (every use
        # of an imported name would be kept), only a reason to keep the import
        self.imports: set[str] = set()


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
    passes: dict[int, str] = {}  # line -> `pass` that keeps a sliced body non-empty
    defined = set().union(*(u.defines for u in units if u.keep))
    for unit in list(units):
        if unit.keep and unit.seed and unit.node is not None:
            body = _sliced_body(unit, defined, lines, low, ast, passes)
            if body:
                units.remove(unit)
                units += body
    _keep_imports(units)
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
                out[number - 1] = passes.get(number, "") + (ending or "\n")
    return "".join(out)


def _sliced_body(unit: _Unit, defined: set[str], lines: list[str], low: list[str], ast: Any,
                 passes: dict[int, str]) -> list[_Unit]:
    """The units of a long function kept for its own text: its header (the
    decorators and signature, always kept) and each body statement. Empty
    when the function is not worth slicing or its name is about money (a
    `check_budget` may compare generic names, as a money-named class may)."""
    node = unit.node
    body = node.body
    if len(body) < _SLICED_BODY_STATEMENTS or _MONEY.search(node.name.lower()):
        return []
    body_first = first_line(body[0])
    if body_first <= node.lineno:
        return []  # `def f(): return x` and the like
    # the header defines nothing the body's units link to: only its uses count
    # (a decorator keeps the import it names)
    header = _Unit(unit.first, body_first - 1, "".join(lines[unit.first - 1:body_first - 1]),
                   set(), True, member=unit.member)
    statements = [_unit(child, lines, low, ast, member=True) for child in body]
    for statement in statements:
        statement.keep = statement.seed = statement.seed or bool(statement.uses & defined)
    _propagate(statements)
    # One step back from what is kept: the assignment that says what a kept
    # gate compares (`total = tracker.total()`). Not further: a `return` that
    # uses half the function's names would otherwise keep all of it.
    used = set().union(*(s.uses for s in statements if s.keep))
    for child, statement in zip(body, statements, strict=True):
        if not statement.keep and (statement.defines | statement.imports) & used and isinstance(
                child, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Import | ast.ImportFrom):
            statement.keep = True
    if not any(s.keep for s in statements):
        # the body must still parse: the first blanked line becomes `pass`
        line = lines[body_first - 1]
        passes[body_first] = line[:len(line) - len(line.lstrip())] + "pass"
    return [header, *statements]


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
    elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor
                    | ast.With | ast.AsyncWith):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.With | ast.AsyncWith):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        else:
            targets = [node.target]
        defines |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        defines |= {n.attr for t in targets for n in ast.walk(t) if isinstance(n, ast.Attribute)}
    seed = bool(_MONEY.search("".join(low[first - 1:last])))
    unit = _Unit(first, last, text, defines, seed, is_class=isinstance(node, ast.ClassDef),
                 member=member)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        unit.node = node
    elif isinstance(node, ast.Import | ast.ImportFrom):
        # kept where a kept unit uses what it imports (_keep_imports)
        unit.imports = {(a.asname or a.name).split(".")[0] for a in node.names}
    return unit


def _keep_imports(units: list[_Unit]) -> None:
    """Keep the top-level imports whose names a kept unit uses (where a class
    built with a limit comes from). `from m import *` names nothing: it is
    always kept."""
    used = set().union(*(u.uses for u in units if u.keep))
    for unit in units:
        if unit.imports and not unit.keep and not unit.member:
            unit.keep = bool(unit.imports & used) or "*" in unit.imports


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
