"""dollar-cap: Python code that caps, budgets or limits spend in dollars.

Wall-clock is the scarce resource here and GCP credits are not, so a dollar
cap silently trades hours for pennies. The rule flags names that combine money
with a cap (constants, attributes, dataclass fields, parameters, keyword
arguments, dict keys, CLI flags, environment variables) and comparisons of
spend against a threshold that gate behaviour (`if`, `while`, `assert`,
`return`). Prices, estimates, reports and caps on anything that is not dollars
(GPUs, attempts, tokens, GPU-hours, quotas, time, memory) are fine.

Speed: a regex prefilter skips files that never mention money; libcst parses
the rest once, with no metadata; positions are computed only for files that
have a finding (PositionProvider is most of libcst's cost).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any, ClassVar

from lint.findings import Finding
from lint.money import (
    MONEY_KEYS,
    UPPER_LIMIT,
    has_money,
    is_dollar_cap_name,
    is_limit_name,
    is_spend_name,
    words,
)
from lint.rule import Context, Example, Rule

NAME = "dollar-cap"
_MONEY_LOWER = re.compile("|".join(MONEY_KEYS))
_IDENTIFIER = re.compile(r"[A-Za-z_][\w-]*")
_GATE_LINE = re.compile(r"^[ \t]*(?:if|elif|while|assert|return)\b[^\n]*[<>][^\n]*", re.M)
_IDENTIFIER_LIKE = re.compile(r"^-{0,2}[A-Za-z][A-Za-z0-9_.-]{2,80}$")
# Calls whose arguments only report a value (logging, printing, telemetry).
REPORT_CALLS = {"print", "debug", "info", "warning", "warn", "error", "exception", "critical",
                "log", "emit", "track", "record", "capture_message", "set_tag", "set_tags",
                "log_metric", "log_metrics", "log_param", "log_params", "set_attribute",
                "set_attributes", "echo", "secho", "format", "dumps", "add_scalar",
                "add_scalars", "send_event", "publish", "notify", "display", "render",
                "capture", "capture_event", "observe", "timing"}
# Names that hold a report (a telemetry dict, a run name), not a setting.
REPORT_WORDS = {"metrics", "metric", "telemetry", "stats", "summary", "payload", "event",
                "events", "tags", "attributes", "report", "log", "logs", "title", "message",
                "msg", "label", "labels", "details", "properties", "extra", "row", "rows",
                "record", "records", "usage", "display", "description", "help", "gauge",
                "counter", "histogram", "span", "trace"}
# Classes whose fields only report (a metrics or stats record), not settings.
# Narrower than REPORT_WORDS: a `UsageLimits` class is settings.
REPORT_CLASS_WORDS = {"metrics", "metric", "telemetry", "stats", "statistics", "summary",
                      "report", "event", "events"}
FLAG_CALLS = {"add_argument", "add_option", "option", "Option", "argument", "Argument"}
ENV_CALLS = {"getenv", "get", "environ_get"}
STOP_CALLS = {"exit", "abort", "stop", "cancel", "terminate", "halt", "kill", "shutdown",
              "_exit", "fail", "interrupt", "set_exception"}


def needs_parse(text: str) -> bool:
    """Cheap, exact-enough prefilter: can this file hold a finding at all?

    A finding needs a name that is a dollar cap (an identifier or a string),
    a class named for money beside a limit name, or a gating line
    (`if`/`while`/`assert`/`return` with `<`/`>`) that mentions money. Most
    files that mention cost at all (estimates, reports) have none of these
    and are never parsed. The scans run in C: substring tests on
    lowercased text, one regex pass over the distinct identifiers; Python only
    looks at each distinct money word once."""
    low = text.lower()
    if not any(key in low for key in MONEY_KEYS):
        return _limit_construction(text)
    identifiers = set(_IDENTIFIER.findall(text))
    joined = "\n".join(identifiers)
    joined_low = joined.lower()
    seen: set[int] = set()
    money_class = False
    for match in _MONEY_LOWER.finditer(joined_low):
        start = joined_low.rfind("\n", 0, match.start()) + 1
        if start in seen:
            continue
        seen.add(start)
        end = joined_low.find("\n", match.end())
        name = joined[start:end if end >= 0 else len(joined)]
        if is_dollar_cap_name(name):
            return True
        # by its words, as the collector judges a class (`BrowseURLAction`
        # holds "eur" but names no money)
        money_class = money_class or (name[:1].isupper() and not name.isupper()
                                      and has_money(name))
    if money_class and any(is_limit_name(name) for name in identifiers):
        return True  # a class named for money with a limit: `SpendFlag(max_value=…)`
    if _limit_construction(text):
        return True  # `Guard(limit=5.0)` of an imported class: its module may say money
    return any(key in line for line in _GATE_LINE.findall(low) for key in MONEY_KEYS)


# A class built with a number for a limit: `Guard(limit=5.0)`, `Flag(x, max_value=3)`.
# Only keywords that name the limit itself: `max_length=` or `max_retries=` is not one.
_LIMIT_KEYWORD = (rf"(?:{'|'.join(sorted(UPPER_LIMIT))}|max_value|max_amount|"
                  r"[a-z_]{1,40}_(?:limit|cap|ceiling)|(?:limit|cap)_[a-z_]{1,40})")
_LIMIT_CONSTRUCTION = re.compile(rf"\b[A-Z]\w{{0,60}}\([^()]{{0,300}}?\b{_LIMIT_KEYWORD}\s*=\s*\d")
# What every match above contains: a limit word, a few more name letters, `= <digit>`.
# Led by literals, so the scan skips ahead in C; most files have none and the
# full pattern (which tries every capitalised word) never runs.
_LIMIT_ASSIGNED = re.compile(
    rf"(?:{'|'.join(sorted(UPPER_LIMIT | {'max', 'limit', 'cap', 'ceiling'}))})[a-z_]{{0,41}}"
    r"\s*=\s*\d")


def _limit_construction(text: str) -> bool:
    """`Guard(limit=5.0)`: a class built with a number for its limit, in a
    file that imports (the class may be defined where money is named)."""
    return "import" in text and _LIMIT_ASSIGNED.search(text) is not None and \
        _LIMIT_CONSTRUCTION.search(text) is not None
_IMPORTED_FILE_MAX_BYTES = 2_000_000


def _dotted(node: Any) -> str:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


@lru_cache(maxsize=1024)
def _imported_money_class(path: str, module: str, level: int, name: str) -> bool:
    """Cross-file, where the import is direct and cheap: does the module that
    `from module import name` reads (a file under the current workspace)
    define `class name` whose body compares something while it talks money?
    A text scan, not a parse; any doubt (not found, too big, unreadable) is
    False."""
    source = _module_text(path, module, level)
    if source is None:
        return False
    m = re.search(rf"^([ \t]*)class\s+{re.escape(name)}\b[^\n]*:[ \t]*\n", source, re.M)
    if m is None:
        return False
    indent = len(m.group(1))
    body = []
    for line in source[m.end():].splitlines():
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    text = "\n".join(body)
    compares = re.search(r"(?:\bif\b|\bwhile\b|\breturn\b|\bassert\b|=)[^\n]*[<>]", text)
    return bool(compares) and any(key in text.lower() for key in MONEY_KEYS)


def _module_text(path: str, module: str, level: int) -> str | None:
    import os
    import stat
    from pathlib import Path

    workspace = Path.cwd().resolve()
    try:
        here = Path(path).resolve().parent
    except (OSError, RuntimeError):
        return None
    parts = [p for p in module.split(".") if p]
    if level:
        roots = [here.parents[level - 2] if level > 1 else here] if level - 1 <= len(
            here.parents) else []
    else:
        roots = [here, *here.parents]
    for root in roots:
        if root != workspace and workspace not in root.parents:
            break  # nothing outside the workspace is read
        base = root.joinpath(*parts) if parts else root
        for candidate in (base.with_suffix(".py") if parts else None, base / "__init__.py"):
            if candidate is None:
                continue
            try:
                st = os.stat(candidate)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_size > _IMPORTED_FILE_MAX_BYTES:
                return None
            try:
                return candidate.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
    return None


def _name_of(node: Any) -> str | None:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _callee(node: Any) -> str | None:
    return _name_of(node.func) if node is not None else None


def _string_value(node: Any) -> str | None:
    import libcst as cst

    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:
            return None
        if isinstance(value, bytes):
            return None
        return value if _IDENTIFIER_LIKE.match(value) else None
    return None


def _number(node: Any) -> float | None:
    """The value of a numeric literal (also -3, +3, "10" in an env default)."""
    import libcst as cst

    if isinstance(node, cst.Integer | cst.Float):
        try:
            return float(node.evaluated_value)
        except (ValueError, OverflowError):
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression,
                                                           cst.Integer | cst.Float):
        value = _number(node.expression)
        return -value if value is not None and isinstance(node.operator, cst.Minus) else value
    return None


def _is_removal(node: Any) -> bool:
    """None, 0, a negative number, False, infinity: no cap. Also a pydantic
    or dataclass field whose default is one of those."""
    import libcst as cst

    if node is None:
        return False
    if isinstance(node, cst.Name) and node.value in ("None", "False"):
        return True
    number = _number(node)
    if number is not None:
        return number <= 0
    if isinstance(node, cst.Attribute) and node.attr.value == "inf":
        return True
    if isinstance(node, cst.Call):
        callee = _callee(node)
        if callee == "float" and node.args and \
                _string_value(node.args[0].value) in ("inf", "infinity"):
            return True
        if callee in ("Field", "field", "attrib", "ib", "Option", "option"):
            for arg in node.args:
                keyword = arg.keyword.value if arg.keyword else None
                if keyword in (None, "default") and not (keyword is None and
                                                          callee in ("Option", "option")
                                                          and isinstance(arg.value,
                                                                         cst.SimpleString)):
                    return _is_removal(arg.value)
    return False


def _not_an_amount(node: Any) -> bool:
    """A value that cannot be a limit in money: text, a collection, a function."""
    import libcst as cst

    return isinstance(node, cst.SimpleString | cst.ConcatenatedString | cst.FormattedString |
                      cst.List | cst.Set | cst.Tuple | cst.Dict | cst.ListComp | cst.SetComp |
                      cst.DictComp | cst.GeneratorExp | cst.Lambda)


def _leaf_names(node: Any) -> list[str]:
    """Every name an expression reads: names, attributes, string keys
    (`usage["cost_usd"]`, `usage.get("cost_usd", 0)`), and the names of the
    functions it calls (`month_to_date_spend()` returns a spend). Not the
    arguments of other calls: `len(costs) > 3` is about a count."""
    import libcst as cst

    out: list[str] = []

    def walk(n: Any) -> None:
        if isinstance(n, cst.Name):
            out.append(n.value)
        elif isinstance(n, cst.Attribute):
            out.append(n.attr.value)
        elif isinstance(n, cst.BinaryOperation):
            walk(n.left)
            walk(n.right)
        elif isinstance(n, cst.UnaryOperation | cst.Await):
            walk(n.expression)
        elif isinstance(n, cst.Subscript):
            walk(n.value)
            for element in n.slice:
                if isinstance(element.slice, cst.Index):
                    key = _string_value(element.slice.value)
                    if key:
                        out.append(key)
        elif isinstance(n, cst.Call):
            callee = _callee(n)
            if callee in ("float", "int", "Decimal", "abs", "round", "sum", "max", "min",
                          "fsum"):
                for arg in n.args:
                    walk(arg.value)
            elif callee == "get" and n.args:
                key = _string_value(n.args[0].value)
                if key:
                    out.append(key)
            elif callee and callee not in ("len", "count", "size"):
                out.append(callee)

    walk(node)
    return out


def _handlers(visitor: Any) -> tuple[dict[type, Any], dict[type, Any]]:
    """The visitor's visit_X / leave_X methods by node type, bound to it."""
    visits, leaves = _handler_table(type(visitor))
    return ({node_type: fn.__get__(visitor) for node_type, fn in visits.items()},
            {node_type: fn.__get__(visitor) for node_type, fn in leaves.items()})


@cache
def _handler_table(cls: type) -> tuple[dict[type, Any], dict[type, Any]]:
    """visit_X / leave_X functions of a visitor class by node type: dir() and
    the libcst lookups run once per class, not once per parsed file."""
    import libcst as cst

    visits: dict[type, Any] = {}
    leaves: dict[type, Any] = {}
    for name in dir(cls):
        kind, _, node_name = name.partition("_")
        node_type = getattr(cst, node_name, None) if kind in ("visit", "leave") else None
        if isinstance(node_type, type):
            (visits if kind == "visit" else leaves)[node_type] = getattr(cls, name)
    return visits, leaves


# Fields that hold only whitespace, comments or punctuation: no handler reads
# them, so the walk does not enter them.
_TRIVIA = ("whitespace", "leading_lines", "lines_after", "lpar", "rpar", "comma", "semicolon",
           "colon", "equal", "header", "footer", "dot", "star", "asynchronous", "operator",
           "newline", "indent", "lbrace", "rbrace", "lbracket", "rbracket", "arrow")
_FIELDS: dict[type, tuple[str, ...]] = {}


def _kids(node: Any, skip: str = "") -> Any:
    """A node's child nodes from its dataclass fields: libcst's `children`
    property runs a visitor that rebuilds the node, most of this rule's cost
    on a large file."""
    import dataclasses

    import libcst as cst

    kind = type(node)
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind)
                                      if not any(t in f.name for t in _TRIVIA))
    for name in names:
        if name == skip:
            continue
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, tuple | list):
            for item in value:
                if isinstance(item, cst.CSTNode):
                    yield item


def walk(node: Any, visits: dict[type, Any], leaves: dict[type, Any]) -> None:
    """A read-only walk with libcst's contract: a visit_X that returns False
    skips X's children; leave_X runs after them."""
    kind = type(node)
    visit = visits.get(kind)
    if visit is None or visit(node) is not False:
        for child in _kids(node):
            walk(child, visits, leaves)
    leave = leaves.get(kind)
    if leave is not None:
        leave(node)


def _self_attrs(node: Any) -> set[str]:
    """The `self.X` attributes an expression reads."""
    import libcst as cst

    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and \
                n.value.value in ("self", "cls"):
            found.add(n.attr.value)
        stack.extend(_kids(n))
    return found


def _comparisons(expr: Any) -> list[Any]:
    import libcst as cst

    if isinstance(expr, cst.Comparison):
        return [expr]
    if isinstance(expr, cst.BooleanOperation):
        return _comparisons(expr.left) + _comparisons(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return _comparisons(expr.expression)
    return []


def _checks_called(test: Any) -> set[tuple[str, bool]]:
    """The functions a gate's test calls and the attributes it reads as a
    truth value (`if self.reached_limit():`, `if not over_budget():`,
    `if self._hit_limit:`), each with whether it is read through self."""
    import libcst as cst

    found: set[tuple[str, bool]] = set()
    parts = [test]
    while parts:
        node = parts.pop()
        if isinstance(node, cst.UnaryOperation):
            parts.append(node.expression)
        elif isinstance(node, cst.BooleanOperation):
            parts.extend((node.left, node.right))
        elif isinstance(node, cst.Call):
            parts.append(node.func)
        elif isinstance(node, cst.Attribute):
            own = isinstance(node.value, cst.Name) and node.value.value in ("self", "cls")
            found.add((node.attr.value, own))
        elif isinstance(node, cst.Name):
            found.add((node.value, False))
    return found


def _stops(body: Any) -> bool:
    """Does a block raise, return, break, continue or call something that stops?"""
    import libcst as cst

    leaves = (cst.Raise, cst.Return, cst.Break, cst.Continue)
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, leaves):
            return True
        if isinstance(node, cst.Call):
            name = _callee(node) or ""
            if name in STOP_CALLS or name.lower().startswith(("stop", "abort", "halt")):
                return True
        # A nested function's body runs later, if at all: it does not stop this block.
        if not isinstance(node, cst.FunctionDef | cst.Lambda):
            stack.extend(_kids(node))
    return False


class _Lazy:
    """Whether a block stops, worked out only if a comparison needs to know
    (walking every `if` body up front made the rule quadratic in nesting)."""

    __slots__ = ("body", "value")

    def __init__(self, body: Any) -> None:
        self.body = body
        self.value: bool | None = None

    def __bool__(self) -> bool:
        if self.value is None:
            self.value = _stops(self.body)
        return self.value


def _reports(callee: str | None) -> bool:
    """A call that only reports its arguments (logging, printing, telemetry)."""
    return bool(callee) and (callee in REPORT_CALLS
                             or callee.startswith(("log_", "track_", "emit_")))


def _reporting(node: Any) -> bool:
    """An assignment to a name that holds a report (metrics, a run title)."""
    return any(words(name) & REPORT_WORDS for name in
               (_name_of(target.target) for target in node.targets) if name)


def _reporting_keyword(arg: Any) -> bool:
    """A keyword argument that carries a report (`properties=`, `extra=`, `tags=`)."""
    return arg.keyword is not None and bool(words(arg.keyword.value) & REPORT_WORDS)


def _is_test_file(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or \
        "/tests/" in f"/{path}" or name == "conftest.py"


class _Hit:
    __slots__ = ("fix", "message", "node", "top")

    def __init__(self, node: Any, message: str, fix: Any = None,
                 top: tuple[int, ...] = ()) -> None:
        self.node = node
        self.message = message
        self.fix = fix  # a literal whose text becomes None under --fix
        # body indices down to the statement that holds it: (top-level statement,
        # member of a class, statement of a method), as deep as collect() went
        self.top = top


def _visitor_class() -> type:
    import libcst as cst

    class Collector(cst.CSTVisitor):
        def __init__(self, test_file: bool, path: str = "") -> None:
            super().__init__()
            self.test_file = test_file
            self.path = path
            self.imported: dict[str, tuple[str, int, str]] = {}  # local name -> module, level, name
            self.hits: list[_Hit] = []
            # where the walk is: body indices down to the statement (see _Hit)
            self.top: tuple[int, ...] = ()
            # (comparison, stops (a bool or a _Lazy), loop, enclosing class, top)
            self.gates: list[tuple[Any, Any, bool, str | None, int]] = []
            self.aliases: set[str] = set()  # variables that hold a dollar cap
            self.alias_candidates: list[tuple[str, list[str]]] = []
            self.cap_functions: set[str] = set()  # functions that return a cap
            self.report = 0  # inside a call or assignment that only reports
            self.classes: list[str] = []
            self.functions: list[str] = []
            self.calls: list[Any] = []
            self.bases: dict[str, list[str]] = {}  # class -> base class names
            self.init_params: dict[str, list[str]] = {}  # class -> __init__ params
            self.attr_of: dict[tuple[str, str], str] = {}  # (class, param) -> attribute
            self.constructions: list[tuple[str, list[tuple[str | int, list[str]]]]] = []
            self.cap_attrs: dict[str, set[str]] = {}  # class -> attributes holding a cap
            # Two-step enforcement, as in a budget flag: a method returns (or an
            # attribute stores) a comparison, and a gate elsewhere calls it and
            # raises. (comparison, class, method, attribute, top) and the
            # (class, method or attribute) pairs that some gate stops on.
            self.deferred: list[tuple[Any, str | None, str | None, str | None, int]] = []
            self.check_gates: list[tuple[set[tuple[str | None, str]], _Lazy]] = []

        def hit(self, node: Any, message: str, fix: Any = None) -> None:
            self.hits.append(_Hit(node, message, fix, self.top))

        # ---- context ---------------------------------------------------------------------

        # Subtrees that never set or enforce a cap: not walked (the walk is most
        # of the rule's cost on a large file).
        def visit_Import(self, node: cst.Import) -> bool:
            return False

        def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
            # Remember where classes come from, to look one up if it is built
            # with a number for a limit (_imported_money_class); no walk inside.
            if isinstance(node.names, cst.ImportStar):
                return False
            module = _dotted(node.module) if node.module is not None else ""
            for alias in node.names:
                name = _dotted(alias.name)
                if name and name[:1].isupper():
                    local = alias.asname.name.value if alias.asname and isinstance(
                        alias.asname.name, cst.Name) else name
                    self.imported[local] = (module, len(node.relative), name)
            return False

        def visit_Annotation(self, node: cst.Annotation) -> bool:
            return False

        def visit_Call(self, node: cst.Call) -> None:
            self.calls.append(node)
            name = _callee(node)
            if name and name[:1].isupper():
                self.constructions.append((name, [
                    (arg.keyword.value if arg.keyword else index, _leaf_names(arg.value))
                    for index, arg in enumerate(node.args)
                    if not _is_removal(arg.value)]))
            if _reports(name):
                self.report += 1

        def leave_Call(self, node: cst.Call) -> None:
            self.calls.pop()
            if _reports(_callee(node)):
                self.report -= 1

        def visit_FormattedString(self, node: cst.FormattedString) -> None:
            self.report += 1

        def leave_FormattedString(self, node: cst.FormattedString) -> None:
            self.report -= 1

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.classes.append(node.name.value)
            self.bases[node.name.value] = [b for b in (_name_of(a.value) for a in node.bases)
                                           if b]
            if words(node.name.value) & REPORT_CLASS_WORDS:
                self.report += 1  # what a Metrics class stores or returns is a report

        def leave_ClassDef(self, node: cst.ClassDef) -> None:
            self.classes.pop()
            if words(node.name.value) & REPORT_CLASS_WORDS:
                self.report -= 1

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.functions.append(node.name.value)
            if node.name.value == "__init__" and self.classes:
                self.init_params[self.classes[-1]] = [
                    p.name.value for p in node.params.params if p.name.value not in
                    ("self", "cls")]

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.functions.pop()

        def visit_MatchCase(self, node: cst.MatchCase) -> None:
            if node.guard is not None:
                self.gate(node.guard, _Lazy(node.body), "if")

        # ---- caps that are set ---------------------------------------------------------------

        def set_hit(self, node: Any, name: str | None, what: str, value: Any) -> None:
            if not name or not is_dollar_cap_name(name) or self.report or \
                    words(name) & REPORT_WORDS:
                return
            if _is_removal(value) or _not_an_amount(value):
                return
            fix = value if _number(value) is not None else None
            self.hit(node, f"{what} '{name}' sets a dollar cap", fix)

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                tgt = target.target
                if isinstance(tgt, cst.Subscript):
                    for element in tgt.slice:
                        if isinstance(element.slice, cst.Index):
                            self.set_hit(tgt, _string_value(element.slice.value), "key",
                                         node.value)
                    continue
                name = _name_of(tgt)
                self.set_hit(tgt, name, "name", node.value)
                if name and isinstance(tgt, cst.Name):
                    self.alias_candidates.append((name, _leaf_names(node.value)))
                if isinstance(tgt, cst.Attribute) and self.classes and \
                        isinstance(node.value, cst.Name) and \
                        _name_of(tgt.value) == "self":
                    self.attr_of[(self.classes[-1], node.value.value)] = tgt.attr.value
                self.defer(node.value, name)
            if _reporting(node):
                self.report += 1

        def leave_Assign(self, node: cst.Assign) -> None:
            if _reporting(node):
                self.report -= 1

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            name = _name_of(node.target)
            if node.value is None:
                if name and is_dollar_cap_name(name) and not self.report:
                    self.hit(node.target, f"field '{name}' declares a dollar cap")
                return
            self.set_hit(node.target, name, "field", node.value)
            if name and isinstance(node.target, cst.Name):
                self.alias_candidates.append((name, _leaf_names(node.value)))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            name = _name_of(node.target)
            if name and is_dollar_cap_name(name) and not self.report:
                self.hit(node.target, f"name '{name}' changes a dollar cap")

        def visit_Param(self, node: cst.Param) -> None:
            # A parameter sets a cap only through its default; one without a
            # default is plumbing (where it is compared, the gate is flagged).
            default = node.default
            if default is None or _is_removal(default):
                return
            name = node.name.value
            if is_dollar_cap_name(name) and not self.test_file:
                fix = default if _number(default) is not None else None
                self.hit(node, f"parameter '{name}' takes a dollar cap", fix)

        def visit_Arg(self, node: cst.Arg) -> None:
            if _reporting_keyword(node):
                # `properties={...}`, `extra={...}`, `tags=...`: what the call reports.
                self.report += 1
            if self.report:
                return
            call = self.calls[-1] if self.calls else None
            callee = _callee(call) or ""
            if node.keyword is not None:
                keyword = node.keyword.value
                if is_dollar_cap_name(keyword):
                    self.set_hit(node, keyword, "argument", node.value)
                elif not _is_removal(node.value) and any(
                        is_dollar_cap_name(n) for n in _leaf_names(node.value)) and \
                        (has_money(callee) or is_limit_name(keyword)):
                    self.hit(node, f"argument '{keyword}' passes a dollar cap "
                                   f"into {callee or 'a call'}")
                elif not self.test_file and callee[:1].isupper() and is_limit_name(keyword) \
                        and _number(node.value) is not None and not _is_removal(node.value) \
                        and (has_money(callee) or (
                            callee in self.imported and re.fullmatch(_LIMIT_KEYWORD, keyword)
                            and _imported_money_class(self.path, *self.imported[callee]))):
                    # `BudgetControlFlag(max_value=10.0)`: the class is named for
                    # money, or the module it is imported from compares its limit
                    # with money (`Guard(limit=5.0)`), so its limit is a dollar cap.
                    # No fix: the class compares against it; None would fail there.
                    self.hit(node, f"argument '{keyword}' sets the dollar cap of {callee}")
                return
            value = _string_value(node.value)
            if not value or call is None or call.args[0] is not node:
                return
            if callee in FLAG_CALLS and value.startswith("-"):
                default = next((a.value for a in call.args
                                if a.keyword and a.keyword.value == "default"), None)
                if default is not None:
                    self.set_hit(node, value.lstrip("-"), "flag", default)
            elif callee in ENV_CALLS and _is_environ(call.func):
                default = call.args[1].value if len(call.args) > 1 else None
                if default is None or not _env_default_removes(default):
                    self.set_hit(node, value, "environment variable", None)

        def leave_Arg(self, node: cst.Arg) -> None:
            if _reporting_keyword(node):
                self.report -= 1

        def visit_Subscript(self, node: cst.Subscript) -> None:
            if self.report or not _is_environ(node.value, subscript=True):
                return
            for element in node.slice:
                if isinstance(element.slice, cst.Index):
                    self.set_hit(node, _string_value(element.slice.value),
                                 "environment variable", None)

        def visit_DictElement(self, node: cst.DictElement) -> None:
            self.set_hit(node, _string_value(node.key), "key", node.value)

        # ---- caps that are enforced --------------------------------------------------------

        def gate(self, expr: Any, stops: Any, kind: str) -> None:
            if expr is None or (kind == "assert" and self.test_file):
                return
            owner = self.classes[-1] if self.classes else None
            for comparison in _comparisons(expr):
                self.gates.append((comparison, stops, kind == "loop", owner, self.top))

        def visit_If(self, node: cst.If) -> None:
            self.gate(node.test, _Lazy(node.body), "if")
            checked = _checks_called(node.test)
            if checked:
                owner = self.classes[-1] if self.classes else None
                # `self.over()` is this class's method; `tracker.over()` may be any
                # class's. Whether the body stops is asked only if a deferred
                # comparison needs it (_Lazy).
                self.check_gates.append(({(owner if own else None, name)
                                          for name, own in checked}, _Lazy(node.body)))

        def defer(self, value: Any, attribute: str | None) -> None:
            """A comparison a function returns or an attribute stores: it
            enforces a cap only if some gate calls that function (or reads
            that attribute) and stops."""
            if value is None or not self.functions:
                return
            owner = self.classes[-1] if self.classes else None
            for comparison in _comparisons(value):
                self.deferred.append((comparison, owner, self.functions[-1], attribute,
                                      self.top))

        def visit_While(self, node: cst.While) -> None:
            self.gate(node.test, True, "loop")

        def visit_Assert(self, node: cst.Assert) -> None:
            self.gate(node.test, True, "assert")

        def visit_Return(self, node: cst.Return) -> None:
            self.gate(node.value, False, "return")
            self.defer(node.value, None)
            if node.value is not None and self.functions and any(
                    is_dollar_cap_name(n) for n in _leaf_names(node.value)):
                self.cap_functions.add(self.functions[-1])

        def visit_IfExp(self, node: cst.IfExp) -> None:
            self.gate(node.test, False, "if")

        def holds_cap(self, names: list[str]) -> bool:
            return any(is_dollar_cap_name(n) or n in self.aliases or n in self.cap_functions
                       for n in names)

        def resolve(self) -> None:
            """After the whole file: which variables, functions and class
            attributes carry a cap, and which classes are about money."""
            for _ in range(3):  # a cap passed along a short chain of names
                for name, names in self.alias_candidates:
                    if name not in self.aliases and self.holds_cap(names):
                        self.aliases.add(name)
            family: dict[str, set[str]] = {}
            for cls, bases in self.bases.items():
                for base in bases:
                    family.setdefault(cls, set()).add(base)
                    family.setdefault(base, set()).add(cls)
            for cls, args in self.constructions:
                if cls not in self.bases:
                    continue
                params = self.init_params.get(cls) or next(
                    (self.init_params[b] for b in self.bases[cls] if b in self.init_params), [])
                for key, names in args:
                    if not self.holds_cap(names):
                        continue
                    param = key if isinstance(key, str) else \
                        (params[key] if key < len(params) else None)
                    if param is None:
                        continue
                    for owner in {cls, *family.get(cls, set())}:
                        attr = self.attr_of.get((owner, param), param)
                        self.cap_attrs.setdefault(owner, set()).add(attr)
            named = {cls for cls in self.bases if has_money(cls)
                     or any(has_money(other) for other in family.get(cls, ()))}
            # A class named for money takes its limit when it is built: what
            # __init__ stores from its parameters is that limit.
            for (cls, _param), attr in self.attr_of.items():
                if cls in named:
                    self.cap_attrs.setdefault(cls, set()).add(attr)
            self.money_classes = named | set(self.cap_attrs)

        def enforced(self) -> None:
            """Evaluated after the whole file is seen, so a variable, function
            or class attribute that carries a cap counts wherever it is
            compared."""
            self.resolve()
            for comparison, stops, loop, owner, top in self.gates:
                message = self._gate(comparison, stops, loop, owner)
                if message:
                    self.hits.append(_Hit(comparison, message, top=top))
            flagged = {id(hit.node) for hit in self.hits}
            wanted = {key for _, owner, method, attribute, _ in self.deferred
                      for key in ((owner, method), (None, method), (owner, attribute))}
            stopping_checks = {key for keys, stops in self.check_gates
                               if keys & wanted and stops for key in keys}
            for comparison, owner, method, attribute, top in self.deferred:
                if id(comparison) in flagged:
                    continue
                # In a class named for money, a method that compares its limit
                # is enough context (the gate that calls it may be in another
                # file); elsewhere a gate must be seen calling it and stopping.
                if not (owner in self.money_classes and method != "__init__") and not (
                        (owner, method) in stopping_checks
                        or (None, method) in stopping_checks
                        or (attribute and (owner, attribute) in stopping_checks)):
                    continue
                message = self._gate(comparison, True, False, owner)
                if message:
                    flagged.add(id(comparison))
                    self.hits.append(_Hit(comparison, message, top=top))

        def _gate(self, comparison: Any, stops: Any, loop: bool,
                  owner: str | None) -> str | None:
            import libcst as cst

            left = comparison.left
            for target in comparison.comparisons:
                right = target.comparator
                ordering = isinstance(target.operator, cst.LessThan | cst.LessThanEqual |
                                      cst.GreaterThan | cst.GreaterThanEqual)
                if ordering:
                    found = self._pair(left, right, stops, loop, owner)
                    if found:
                        return found
                left = right
            return None

        def _pair(self, a: Any, b: Any, stops: Any, loop: bool,
                  owner: str | None) -> str | None:
            money_class = owner if owner in self.money_classes else None
            carried = self.cap_attrs.get(owner or "", set())
            sides = []
            for side in (a, b):
                names = _leaf_names(side)
                attrs = _self_attrs(side) & carried if carried else set()
                sides.append({
                    "limit": next((n for n in names if is_dollar_cap_name(n)
                                   or n in self.aliases or n in self.cap_functions),
                                  next(iter(attrs), None)),
                    "spend": next((n for n in names if is_spend_name(n)), None),
                    "generic": next((n for n in names if is_limit_name(n)
                                     or "budget" in words(n)), None),
                    "number": _number(side), "names": names})
            for one, other in (sides, sides[::-1]):
                zero = other["number"] is not None and other["number"] <= 0
                if one["limit"] and zero and not other["names"]:
                    # `if cfg.cost_limit > 0: raise`: the gate is the cap being set.
                    if stops:
                        return f"'{one['limit']}' gates on a dollar cap being set"
                    continue
                if zero:
                    continue  # a sign or sanity check, not a cap
                if one["limit"] and other["names"] and (stops or loop or not money_class):
                    if one["limit"] in carried:
                        return (f"'{one['limit']}' holds a dollar cap in {owner} and gates "
                                "behaviour")
                    if other["spend"]:
                        return (f"'{other['spend']}' is compared with the dollar cap "
                                f"'{one['limit']}'")
                    return f"the dollar cap '{one['limit']}' gates behaviour"
                if one["spend"] and other["generic"]:
                    return (f"'{one['spend']}' is compared with the limit "
                            f"'{other['generic']}'")
                if one["spend"] and other["number"] is not None and (stops or loop):
                    return (f"'{one['spend']}' is compared against a dollar threshold that "
                            "gates behaviour")
                if money_class and one["generic"] and other["names"] and (stops or loop):
                    return (f"'{one['generic']}' enforces a limit in {money_class}, a class "
                            "about money")
            return None

    return Collector


def _is_environ(node: Any, subscript: bool = False) -> bool:
    import libcst as cst

    if subscript:
        return _name_of(node) == "environ"
    return isinstance(node, cst.Attribute) and (
        node.attr.value == "getenv" or _name_of(node.value) == "environ")


def _env_default_removes(node: Any) -> bool:
    """os.environ.get('X', '0'): does the string default mean "no limit"?"""
    import libcst as cst

    if not isinstance(node, cst.SimpleString):
        return _is_removal(node)
    try:
        raw = str(node.evaluated_value).strip().lower()
    except Exception:
        return False
    return raw in ("", "none", "0", "0.0", "-1", "inf", "false")


_COLLECTOR: type | None = None


def _syntax_only(path: str, text: str) -> list[Finding]:
    """A file that cannot hold a finding still gets its syntax checked: with
    the stdlib parser first (a few times faster), and, when that refuses, with
    libcst's grammar, which knows syntax newer than this interpreter (PEP 695,
    PEP 701, t-strings). Only a file both refuse is a syntax error."""
    import symtable
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences
            # The stdlib parser, to its symbol table and no further: no Python
            # objects for the tree, no bytecode; a third cheaper than compile().
            # Like libcst it judges the grammar ('return' outside a function
            # is the compiler's complaint, not a syntax error here).
            symtable.symtable(text, path, "exec")
        return []
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        pass
    return _parse(path, text)[1]


def _parse(path: str, text: str) -> tuple[Any, list[Finding]]:
    import libcst as cst

    try:
        return cst.parse_module(text), []
    except cst.ParserSyntaxError as exc:
        return None, [Finding(path, exc.raw_line or 1, (exc.raw_column or 0) + 1,
                              "file-error", f"Python syntax error: {exc.message}")]
    except RecursionError:
        return None, [Finding(path, 1, 1, "file-error",
                              "Python file nested too deeply to parse")]
    except (cst.CSTValidationError, ValueError) as exc:
        return None, [Finding(path, 1, 1, "file-error", f"Python syntax error: {exc}")]


def analyze(path: str, text: str) -> tuple[list[Finding], list[tuple[Finding, Any, Any]]]:
    """Findings, and for the fixable ones (finding, position, literal) pairs."""
    global _COLLECTOR
    if not needs_parse(text):
        return _syntax_only(path, text), []

    from lint.money_slice import sliced

    # libcst reads only what can hold a finding; lines and columns do not move
    source = sliced(text) or text
    module, problems = _parse(path, source)
    if module is None and source is not text:
        source = text
        module, problems = _parse(path, text)
    if module is None:
        return problems, []
    collector = collect(module, path)
    if not collector.hits:
        return [], []
    positions = _positions(module, source, collector.hits)
    findings: dict[Finding, Any] = {}
    for hit in collector.hits:
        pos = positions.get(hit.node)
        line, col = (pos.start.line, pos.start.column + 1) if pos else (1, 1)
        finding = Finding(path, line, col, NAME, hit.message)
        if finding not in findings or hit.fix is not None:
            findings[finding] = positions.get(hit.fix) if hit.fix is not None else None
    # One finding per line: a cap set from an environment fallback is one cap.
    ordered: list[Finding] = []
    for finding in sorted(findings):
        if ordered and ordered[-1].line == finding.line:
            continue
        ordered.append(finding)
    return ordered, [(f, findings[f], None) for f in ordered if findings[f] is not None]


def _paired(statements: Any, nodes: list[Any]) -> list[Any] | None:
    """libcst statements mapped onto ast's (the first ast node of each): a line
    of `a = 1; b = 2` is one statement to libcst and two to ast. None when
    they do not line up."""
    import libcst as cst

    out, index = [], 0
    for statement in statements:
        if index >= len(nodes):
            return None
        out.append(nodes[index])
        index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return out if index == len(nodes) else None


def collect(module: Any, path: str) -> Any:
    """Walk a parsed module once; the collector holds every hit, placed by the
    statement it is in: top-level, a class member, or a statement in a method
    or function body (so _positions generates only that statement)."""
    global _COLLECTOR
    if _COLLECTOR is None:
        _COLLECTOR = _visitor_class()
    collector = _COLLECTOR(_is_test_file(path), path)
    visits, leaves = _handlers(collector)
    for index, statement in enumerate(module.body):
        _walk_scoped(statement, (index,), collector, visits, leaves, _SCOPED_DEPTH)
    collector.enforced()
    return collector


# class → method → statement: deep enough that a hit in a 1,000-line method
# generates one `if` block, not the method
_SCOPED_DEPTH = 2


def _walk_scoped(node: Any, path: tuple[int, ...], collector: Any,
                 visits: dict[type, Any], leaves: dict[type, Any], depth: int) -> None:
    """walk() of one statement, noting in collector.top which statement of a
    class or function body each hit is in."""
    import libcst as cst

    collector.top = path
    if depth <= 0 or not isinstance(node, cst.ClassDef | cst.FunctionDef) or \
            not isinstance(node.body, cst.IndentedBlock):
        walk(node, visits, leaves)
        return
    kind = type(node)
    visit = visits.get(kind)
    if visit is None or visit(node) is not False:
        for child in _kids(node, skip="body"):
            walk(child, visits, leaves)
        for index, statement in enumerate(node.body.body):
            _walk_scoped(statement, (*path, index), collector, visits, leaves, depth - 1)
        collector.top = path
    leave = leaves.get(kind)
    if leave is not None:
        leave(node)


def _positions(module: Any, text: str, hits: list[_Hit]) -> dict[Any, Any]:
    """Where each hit's nodes are. libcst computes positions by generating the
    code of the whole module, most of the rule's cost on a large file; so only
    the statements that hold a hit are generated, each alone: a top-level
    statement, or one member of a top-level class (a method of a 1,000-line
    class), placed in the file by the stdlib parser's lines and columns.
    Where the stdlib parser cannot read the file (newer syntax), the whole
    module is used."""
    import ast

    from libcst.metadata import MetadataWrapper, PositionProvider

    from lint.money_slice import first_line

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    tops = _paired(module.body, tree.body) if tree is not None else None
    if tops is None:
        return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))
    positions: dict[Any, Any] = {}
    for path in sorted({hit.top for hit in hits}):
        statement, node_ast, column = module.body[path[0]], tops[path[0]], 0
        for index in path[1:]:
            inner = _paired(statement.body.body, node_ast.body)
            if inner is None:  # cannot place it deeper: the enclosing statement
                break
            statement, node_ast = statement.body.body[index], inner[index]
            column = node_ast.col_offset  # the enclosing body's indent
        mini = module.with_changes(body=[statement], header=[], footer=[])
        found = MetadataWrapper(mini, unsafe_skip_copy=True).resolve(PositionProvider)
        leading = len(statement.leading_lines)
        decorators = getattr(statement, "decorators", ())
        if decorators:
            leading += len(decorators[0].leading_lines)
        shift = first_line(node_ast) - (leading + 1)
        for hit in hits:
            if hit.top != path:
                continue
            for node in (hit.node, hit.fix):
                if node is not None and node in found:
                    pos = found[node]
                    positions[node] = type(pos)(
                        type(pos.start)(pos.start.line + shift, pos.start.column + column),
                        type(pos.end)(pos.end.line + shift, pos.end.column + column))
    return positions


def check(path: str, text: str) -> list[Finding]:
    """Findings for one Python file; a syntax error is one finding, not a crash."""
    return analyze(path, text)[0]


def fix(path: str, text: str) -> tuple[str, list[Finding]]:
    """Remove every cap set to a literal (the literal becomes None); the text
    and the findings that remain. Applied only if the result still parses."""
    findings, fixable = analyze(path, text)
    if not fixable:
        return text, findings
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits = sorted(((starts[pos.start.line - 1] + pos.start.column,
                     starts[pos.end.line - 1] + pos.end.column) for _, pos, _ in fixable),
                   reverse=True)
    fixed = text
    for begin, end in edits:
        fixed = fixed[:begin] + "None" + fixed[end:]
    if _parse(path, fixed)[0] is None:
        return text, findings
    done = {finding for finding, _, _ in fixable}
    return fixed, [f for f in findings if f not in done]


class DollarCap(Rule):
    """Flags dollar caps that are set or enforced, in Python and in config
    files. Set: a default, a field, a constant, an environment fallback, a
    constructor or keyword argument, an argparse default, a config key with a
    number. Enforced: a spend compared with a limit where the comparison gates,
    raises, stops or breaks, also through a class or variable that carries
    the limit (a method of a class named for money that compares its limit,
    or a function whose compare a gate in the same file stops on). Not a
    cap: a removal (None, 0, dropping a column), a report (logging,
    formatting, telemetry), a sign or sanity check against 0, and
    limits on anything that is not money. Money words win over unit words:
    max_usd_per_hour is a cap. Wall-clock is the scarce resource and GCP
    credits are not, so a dollar cap trades hours for pennies."""

    name = "dollar-cap"
    summary = "code or config that sets or enforces a cap on spend in dollars"
    reads = "python"
    VALID: ClassVar[list[Example]] = [
        Example("PRICE_PER_GPU_HOUR_USD = {'a2-ultragpu-8g': 40.0}"),
        Example("estimated_cost_usd = hours * rate\n"
                "print(f'cost so far: ${estimated_cost_usd:.2f}')"),
        Example('MAX_GPU_HOURS = 64\nmax_attempts = 3\ntoken_budget = 8000'),
        Example("def report(total_cost: float) -> str:\n    return f'{total_cost:.2f} USD'"),
        Example('"""There are no dollar caps anywhere: spend is not budgeted."""'),
        Example("if gpu_hours > MAX_GPU_HOURS:\n    raise SystemExit('too long')"),
        Example("settings.max_budget_per_task = None"),
        Example("op.drop_column('tasks', 'max_budget_per_task')"),
        Example("logger.info('budget', extra={'max_budget_usd': cfg.max_budget_usd})"),
        Example("if cost < 0:\n    raise ValueError('negative cost')"),
        Example("if input_cost > 0 or output_cost > 0:\n    print(input_cost + output_cost)"),
        Example("while frontier and edge.cost < best.cost:\n    best = frontier.pop()"),
        Example("posthog.capture(event='limit', properties={'max_budget': flag.max_value})"),
        Example("class Metrics:\n    def get(self) -> dict:\n"
                "        return {'max_budget_per_task': self._max_budget_per_task}"),
        Example("class IterationFlag:\n    def reached(self):\n"
                "        return self.current_value >= self.max_value\n"
                "    def step(self):\n        if self.reached():\n"
                "            raise RuntimeError('too many steps')"),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example('MAX_COST_USD = 50.0', 1, 1),
        Example('class Config:\n    per_instance_cost_limit: float = 3.0', 2, 5),
        Example('def run(task, max_budget_per_task: float = 4.0):\n    pass', 1, 15),
        Example("parser.add_argument('--max-spend-usd', type=float, default=25.0)", 1, 21),
        Example("limit = os.environ['SPEND_CAP_DOLLARS']", 1, 9),
        Example("settings = {'cost_limit': 10}", 1, 13),
        Example('if total_cost >= 25:\n    stop()', 1, 4),
        Example('while spent_usd < self.cap_usd:\n    step()', 1, 7),
        Example('agent = Agent(dollar_limit=5)', 1, 15),
        Example("MAX_USD_PER_HOUR = 12.5", 1, 1),
        Example("initial = float(os.environ.get('DEFAULT_INITIAL_BUDGET', '10'))", 1, 32),
        Example("class BudgetFlag:\n    def check(self):\n"
                "        if self.current_value >= self.max_value:\n"
                "            raise RuntimeError('Agent reached maximum budget')", 3, 12),
        Example("if instance_cost > 1.1 * config.cost_limit > 0:\n    break", 1, 4),
        Example("class SpendFlag:\n    def reached(self):\n"
                "        return self.current_value >= self.max_value", 3, 16),
        Example("class Meter:\n    def over(self):\n        return self.cost_so_far > 25.0\n"
                "def charge(meter):\n    if meter.over():\n"
                "        raise SystemExit('out of money')", 3, 16),
        Example("flag = BudgetControlFlag(max_value=12.5, current_value=0.0)", 1, 26),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        return check(ctx.path, ctx.text)
