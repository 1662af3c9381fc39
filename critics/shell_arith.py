"""Bash arithmetic (`$(( ))`, `(( ))`, `let`, array indices) over integers.

A small precedence-climbing evaluator with bash's operators: `, = += -= *= /=
%= <<= >>= &= |= ^= **=`, `?:`, `|| && | ^ & == != < > <= >= << >> + - * / %
**`, unary `- + ! ~`, `++`/`--` before and after a name, `name[index]`,
numbers in decimal, octal (`010`), hex (`0x10`) and `base#digits`. Division
truncates toward zero, as in C. Variables are read and written through the
callbacks the expander (critics.shell_expand) gives it. Bounds: values below
10**18 in magnitude, exponents up to 64, parentheses 32 deep; past them, and
on an unknown variable, it raises ArithError.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_VALUE = 10**18


class ArithError(Exception):
    pass


def check(value: int) -> int:
    if abs(value) >= MAX_VALUE:
        raise ArithError("too large")
    return value


_ARITH_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)|([A-Za-z_]\w*)|"
    r"(\*\*=?|<<=|>>=|\+\+|--|&&|\|\||<=|>=|==|!=|<<|>>|[-+*/%&|^]=|[-+*/%<>=!~&|^?:,()\[\]]))")
_BINARY = [  # lowest to highest precedence
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
]


def _c_div(a: int, b: int) -> int:
    if b == 0:
        raise ArithError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _apply(op: str, a: int, b: int) -> int:
    if op == "**":
        if b < 0 or b > 64:
            raise ArithError("exponent")
        return a ** b
    return {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "/": lambda: _c_div(a, b), "%": lambda: a - b * _c_div(a, b),
        "<<": lambda: a << min(b, 64) if b >= 0 else 0, ">>": lambda: a >> min(b, 64),
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
        "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
    }[op]()


class Arith:
    """Bash arithmetic (`$(( ))`, `(( ))`, `let`) over integers, with
    assignment (`=`, `+=`, `++`) into `env`. Unknown variables raise."""

    def __init__(self, text: str, read: Callable[[str, int | None], int],
                 write: Callable[[str, int | None, int], int]) -> None:
        self.tokens: list[str] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _ARITH_TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ArithError(f"unexpected {text[pos:pos + 10]!r}")
            self.tokens.append(m.group(m.lastindex or 0))
            pos = m.end()
        self.pos = 0
        self.var = read  # (name, index) -> value; raises ArithError if unknown
        self.store = write  # (name, index, value) -> value
        self.depth = 0

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if expected is not None and tok != expected:
            raise ArithError(f"expected {expected!r}")
        self.pos += 1
        return tok

    def run(self) -> int:
        value = self.comma()
        if self.pos != len(self.tokens):
            raise ArithError("trailing text")
        return value

    def check(self, value: int) -> int:
        return check(value)

    def comma(self) -> int:
        value = self.assign()
        while self.peek() == ",":
            self.take()
            value = self.assign()
        return value

    def assign(self) -> int:
        start = self.pos
        tok = self.peek()
        if re.fullmatch(r"[A-Za-z_]\w*", tok or "-"):
            self.take()
            index = self.index()
            op = self.peek()
            if op in ("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
                      "**="):
                self.take()
                value = self.assign()
                if op != "=":
                    value = self.check(_apply(op[:-1], self.var(tok, index), value))
                return self.store(tok, index, value)
            self.pos = start
        return self.ternary()

    def index(self) -> int | None:
        if self.peek() != "[":
            return None
        self.take("[")
        value = self.comma()
        self.take("]")
        return value

    def ternary(self) -> int:
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        self.take("?")
        yes = self.assign()
        self.take(":")
        no = self.assign()
        return yes if cond else no

    def binary(self, level: int) -> int:
        if level == len(_BINARY):
            return self.power()
        value = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = self.take()
            value = self.check(_apply(op, value, self.binary(level + 1)))
        return value

    def power(self) -> int:
        base = self.unary()
        if self.peek() == "**":
            self.take()
            return self.check(_apply("**", base, self.power()))
        return base

    def unary(self) -> int:
        tok = self.peek()
        if tok in ("-", "+", "!", "~"):
            self.take()
            value = self.unary()
            return {"-": -value, "+": value, "!": int(not value), "~": ~value}[tok]
        if tok in ("++", "--"):
            self.take()
            name = self.take()
            index = self.index()
            return self.store(name, index, self.var(name, index) + (1 if tok == "++" else -1))
        return self.postfix()

    def postfix(self) -> int:
        tok = self.take()
        if tok == "(":
            self.depth += 1
            if self.depth > 32:
                raise ArithError("nested too deeply")
            value = self.comma()
            self.take(")")
            self.depth -= 1
            return value
        if re.fullmatch(r"\d+", tok):
            return self.check(int(tok, 8) if len(tok) > 1 and tok[0] == "0" else int(tok))
        if tok[:2] in ("0x", "0X"):
            return self.check(int(tok, 16))
        if "#" in tok:
            base, digits = tok.split("#", 1)
            try:
                return self.check(int(digits, int(base)))
            except ValueError:
                raise ArithError("bad number") from None
        if re.fullmatch(r"[A-Za-z_]\w*", tok):
            index = self.index()
            value = self.var(tok, index)
            if self.peek() in ("++", "--"):
                step = 1 if self.take() == "++" else -1
                self.store(tok, index, value + step)
            return value
        raise ArithError(f"unexpected {tok!r}")
