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
from typing import Any, ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule

NAME = "dollar-cap"
MONEY_KEYS = ("usd", "dollar", "spend", "spent", "cost", "price", "budget", "cents")
_MONEY_LOWER = re.compile("|".join(MONEY_KEYS))
_IDENTIFIER = re.compile(r"[A-Za-z_][\w-]*")
_GATE_LINE = re.compile(r"^[ \t]*(?:if|elif|while|assert|return)\b[^\n]*[<>][^\n]*", re.M)
MONEY = {"usd", "dollar", "dollars", "spend", "spending", "spent", "cost", "costs", "price",
         "prices", "cents", "money", "eur"}
CAP = {"cap", "caps", "capped", "max", "maximum", "limit", "limits", "ceiling", "budget",
       "budgets", "allowance", "threshold"}
NOT_DOLLARS = {"gpu", "gpus", "attempt", "attempts", "retry", "retries", "token", "tokens",
               "hour", "hours", "quota", "quotas", "time", "timeout", "seconds", "secs", "sec",
               "minutes", "mins", "memory", "mem", "bytes", "kb", "mb", "gb", "width", "step",
               "steps", "iter", "iters", "iterations", "request", "requests", "calls", "depth",
               "nodes", "rate", "workers", "len", "length", "count"}
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_IDENTIFIER_LIKE = re.compile(r"^-{0,2}[A-Za-z][A-Za-z0-9_.-]{2,80}$")

def _tokens(name: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(name)}


def is_dollar_cap_name(name: str) -> bool:
    words = _tokens(name)
    if words & NOT_DOLLARS:
        return False
    money = bool(words & MONEY)
    cap = bool(words & CAP)
    if money and cap:
        return True
    # "max_budget_per_task": a budget with another cap word is a spend budget.
    return "budget" in words and bool(words & (CAP - {"budget"}))


def needs_parse(text: str) -> bool:
    """Cheap, exact-enough prefilter: can this file hold a finding at all?

    A finding needs either an identifier (or string) that is a dollar-cap
    name, or a gating line (`if`/`while`/`assert`/`return` with `<`/`>`) that
    mentions money. Most files that mention cost at all (estimates, reports)
    have neither and are never parsed. The scans run in C: substring tests on
    lowercased text, one regex pass over the distinct identifiers; Python only
    looks at each distinct money word once."""
    low = text.lower()
    if not any(key in low for key in MONEY_KEYS):
        return False
    joined = "\n".join(set(_IDENTIFIER.findall(text)))
    joined_low = joined.lower()
    seen: set[int] = set()
    for match in _MONEY_LOWER.finditer(joined_low):
        start = joined_low.rfind("\n", 0, match.start()) + 1
        if start in seen:
            continue
        seen.add(start)
        end = joined_low.find("\n", match.end())
        if is_dollar_cap_name(joined[start:end if end >= 0 else len(joined)]):
            return True
    return any(key in line for line in _GATE_LINE.findall(low) for key in MONEY_KEYS)


def is_money_name(name: str) -> bool:
    words = _tokens(name)
    return bool(words & MONEY) and not words & NOT_DOLLARS and not words & CAP


def _name_of(node: Any) -> str | None:
    import libcst as cst

    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


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


def _visitor_class() -> type:
    import libcst as cst

    class Collector(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.hits: list[tuple[Any, str]] = []

        def name_hit(self, node: Any, name: str | None, what: str) -> None:
            if name and is_dollar_cap_name(name):
                self.hits.append((node, f"{what} '{name}' caps spend in dollars"))

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            target = node.target
            if isinstance(target, cst.Subscript):
                for element in target.slice:
                    if isinstance(element.slice, cst.Index):
                        self.name_hit(target, _string_value(element.slice.value), "key")
            else:
                self.name_hit(target, _name_of(target), "name")

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self.name_hit(node.target, _name_of(node.target), "field")

        def visit_Param(self, node: cst.Param) -> None:
            self.name_hit(node, node.name.value, "parameter")

        def visit_Arg(self, node: cst.Arg) -> None:
            if node.keyword is not None:
                self.name_hit(node, node.keyword.value, "argument")
            else:
                value = _string_value(node.value)
                if value:
                    self.name_hit(node, value.lstrip("-"), "flag or variable")

        def visit_DictElement(self, node: cst.DictElement) -> None:
            self.name_hit(node, _string_value(node.key), "key")

        def visit_SubscriptElement(self, node: cst.SubscriptElement) -> None:
            if isinstance(node.slice, cst.Index):
                self.name_hit(node, _string_value(node.slice.value), "key")

        def gate(self, expr: Any) -> None:
            if expr is None:
                return
            for comparison in _comparisons(expr):
                left = comparison.left
                for target in comparison.comparisons:
                    if not isinstance(target.operator, cst.LessThan | cst.LessThanEqual |
                                      cst.GreaterThan | cst.GreaterThanEqual):
                        continue
                    right = target.comparator
                    for money, other in ((left, right), (right, left)):
                        name = _name_of(money)
                        if name and is_money_name(name) and _is_threshold(other):
                            self.hits.append((comparison, f"'{name}' is compared against a "
                                                          "dollar threshold that gates behaviour"))
                            break
                    left = right

        def visit_If(self, node: cst.If) -> None:
            self.gate(node.test)

        def visit_While(self, node: cst.While) -> None:
            self.gate(node.test)

        def visit_Assert(self, node: cst.Assert) -> None:
            self.gate(node.test)

        def visit_Return(self, node: cst.Return) -> None:
            self.gate(node.value)

    return Collector


def _comparisons(expr: Any) -> list[Any]:
    import libcst as cst

    if isinstance(expr, cst.Comparison):
        return [expr]
    if isinstance(expr, cst.BooleanOperation):
        return _comparisons(expr.left) + _comparisons(expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return _comparisons(expr.expression)
    return []


def _is_threshold(node: Any) -> bool:
    import libcst as cst

    if isinstance(node, cst.Integer | cst.Float):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer |
                                                           cst.Float):
        return True
    name = _name_of(node)
    return bool(name) and (is_dollar_cap_name(name) or (bool(_tokens(name) & (CAP - {"budget"}))
                           and not _tokens(name) & NOT_DOLLARS))


_COLLECTOR: type | None = None


def _syntax_only(path: str, text: str) -> list[Finding]:
    """A file that cannot hold a finding still gets its syntax checked, with the
    stdlib parser (a few times faster than libcst)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escape sequences
            ast.parse(text, path)
    except SyntaxError as exc:
        return [Finding(path, exc.lineno or 1, exc.offset or 1, "file-error",
                        f"Python syntax error: {exc.msg}")]
    except (RecursionError, MemoryError, ValueError):
        return [Finding(path, 1, 1, "file-error", "Python file could not be parsed")]
    return []


def check(path: str, text: str) -> list[Finding]:
    """Findings for one Python file; a syntax error is one finding, not a crash."""
    global _COLLECTOR
    if not needs_parse(text):
        return _syntax_only(path, text)
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return [Finding(path, exc.raw_line or 1, (exc.raw_column or 0) + 1, "file-error",
                        f"Python syntax error: {exc.message}")]
    except RecursionError:
        return [Finding(path, 1, 1, "file-error", "Python file nested too deeply to parse")]
    except cst.CSTValidationError as exc:  # e.g. b'' and '' concatenated: invalid Python
        return [Finding(path, 1, 1, "file-error", f"Python syntax error: {exc}")]
    if _COLLECTOR is None:
        _COLLECTOR = _visitor_class()
    collector = _COLLECTOR()
    module.visit(collector)
    if not collector.hits:
        return []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    findings = []
    for node, message in collector.hits:
        pos = positions.get(node)
        line, col = (pos.start.line, pos.start.column + 1) if pos else (1, 1)
        findings.append(Finding(path, line, col, NAME, message))
    return sorted(set(findings))


class DollarCap(Rule):
    """Flags Python code that caps, budgets or limits spend in dollars: names
    that combine money with a cap (constants, attributes, dataclass fields,
    parameters, keyword arguments, dict keys, CLI flags, environment
    variables) and comparisons of spend against a threshold that gate
    behaviour (`if`, `while`, `assert`, `return`). Prices, estimates, reports
    and caps on anything that is not dollars (GPUs, attempts, tokens,
    GPU-hours, quotas, time, memory) are fine. Wall-clock is the scarce
    resource and GCP credits are not, so a dollar cap trades hours for pennies."""

    name = "dollar-cap"
    summary = "Python code that caps spend in dollars"
    reads = "python"
    VALID: ClassVar[list[Example]] = [
        Example("PRICE_PER_GPU_HOUR_USD = {'a2-ultragpu-8g': 40.0}"),
        Example("estimated_cost_usd = hours * rate\n"
                "print(f'cost so far: ${estimated_cost_usd:.2f}')"),
        Example('MAX_GPU_HOURS = 64\nmax_attempts = 3\ntoken_budget = 8000'),
        Example("def report(total_cost: float) -> str:\n    return f'{total_cost:.2f} USD'"),
        Example('"""There are no dollar caps anywhere: spend is not budgeted."""'),
        Example("if gpu_hours > MAX_GPU_HOURS:\n    raise SystemExit('too long')"),
        Example("cost_table = load_prices()\n"
                "for machine, price in cost_table.items():\n    print(price)"),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example('MAX_COST_USD = 50.0', 1, 1),
        Example('class Config:\n    per_instance_cost_limit: float = 3.0', 2, 5),
        Example('def run(task, max_budget_per_task: float = 4.0):\n    pass', 1, 15),
        Example("parser.add_argument('--max-spend-usd', type=float)", 1, 21),
        Example("limit = os.environ['SPEND_CAP_DOLLARS']", 1, 20),
        Example("settings = {'cost_limit': 10}", 1, 13),
        Example('if total_cost >= 25:\n    stop()', 1, 4),
        Example('while spent_usd < self.cap:\n    step()', 1, 7),
        Example('agent = Agent(dollar_limit=5)', 1, 15),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        return check(ctx.path, ctx.text)
