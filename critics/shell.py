"""A small POSIX-shell reader for launch commands: tokens, then a tree.

The critic must tell `for i in 0 1; do CUDA_VISIBLE_DEVICES=$i x & done; wait`
from the same loop without `&`, see through quotes, and know which `;`, `&&`,
`|` and `&` separate what. Grepping cannot; a full bash grammar is not needed.
Words keep substitutions (`$(seq 0 7)`, `$((i % 4))`, `${X}`) as raw text and
lose their quotes; the analysis expands them later against a loop's variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPERATORS = ("&&", "||", ";;", "|&", "&>", ">>", ";", "&", "|", "(", ")", "<", ">", "\n")
RESERVED_ENDS = {"done", "fi", "then", "elif", "else", "do", "esac", "}"}
# Bounds that keep any launch string cheap to read. A real launch is a line or
# a short script: a few hundred characters, a few dozen words, loops two or
# three deep. These are orders of magnitude above that and still read in
# milliseconds.
MAX_LAUNCH_CHARS = 65_536
MAX_TOKENS = 20_000
MAX_DEPTH = 64  # nested compound commands: (, {, for, while, if


class ShellSyntaxError(ValueError):
    pass


class LaunchTooComplex(ShellSyntaxError):
    """The launch is past a reading bound: the critic says it cannot read it,
    rather than judging a command it did not see whole."""


@dataclass(frozen=True)
class Token:
    kind: str  # "word" | "op"
    value: str


def _read_balanced(text: str, i: int, open_: str, close: str) -> int:
    """Index just past the `close` that balances the `open_` at text[i]."""
    depth = 0
    quote = ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 2
            continue
        elif ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ShellSyntaxError(f"unbalanced {open_!r}")


def _dollar(text: str, i: int) -> tuple[str, int]:
    """Read a `$(...)`, `$((...))` or `${...}` at text[i] ('$'); return raw text."""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if nxt == "(":
        end = _read_balanced(text, i + 1, "(", ")")
        return text[i:end], end
    if nxt == "{":
        end = _read_balanced(text, i + 1, "{", "}")
        return text[i:end], end
    return "$", i + 1


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_LAUNCH_CHARS:
        raise LaunchTooComplex(f"longer than {MAX_LAUNCH_CHARS} characters")
    tokens: list[Token] = []
    word: list[str] = []
    in_word = False
    i = 0

    def flush() -> None:
        nonlocal in_word
        if in_word:
            tokens.append(Token("word", "".join(word)))
            word.clear()
            in_word = False
        if len(tokens) > MAX_TOKENS:
            raise LaunchTooComplex(f"more than {MAX_TOKENS} words and operators")

    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1:i + 2] == "\n":
            i += 2
        elif ch in " \t\r":
            flush()
            i += 1
        elif text.startswith("((", i) and not in_word:
            # Arithmetic `(( ... ))` (and C-style for headers) is one word: its `<`
            # and `;` are not redirections or separators.
            end = text.find("))", i)
            if end < 0:
                raise ShellSyntaxError("unterminated '(('")
            tokens.append(Token("word", text[i:end + 2]))
            i = end + 2
        elif ch == "#" and not in_word:
            while i < len(text) and text[i] != "\n":
                i += 1
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated single quote")
            word.append(text[i + 1:end])
            in_word = True
            i = end + 1
        elif ch == '"':
            i += 1
            in_word = True
            while True:
                if i >= len(text):
                    raise ShellSyntaxError("unterminated double quote")
                c = text[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < len(text) and text[i + 1] in '"\\$`':
                    word.append(text[i + 1])
                    i += 2
                elif c == "$":
                    raw, i = _dollar(text, i)
                    word.append(raw)
                else:
                    word.append(c)
                    i += 1
        elif ch == "\\":
            word.append(text[i + 1:i + 2])
            in_word = True
            i += 2
        elif ch == "$":
            raw, i = _dollar(text, i)
            word.append(raw)
            in_word = True
        elif ch == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated backquote")
            word.append("$(" + text[i + 1:end] + ")")
            in_word = True
            i = end + 1
        else:
            op = next((o for o in OPERATORS if text.startswith(o, i)), None)
            if op is None:
                word.append(ch)
                in_word = True
                i += 1
                continue
            if op in ("<", ">", ">>") and in_word and "".join(word).isdigit():
                word.clear()  # a file-descriptor number such as the 2 in 2>&1
                in_word = False
            flush()
            i += len(op)
            if op in (">", ">>", "<", "&>"):
                if text.startswith("&", i):  # >&2, 2>&1: a descriptor, not a background
                    i += 1
                tokens.append(Token("op", "redirect"))
            else:
                tokens.append(Token("op", op))
    flush()
    return tokens


@dataclass
class Simple:
    assignments: list[tuple[str, str]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)


@dataclass
class For:
    var: str
    items: list[str] | None  # None: C-style or unknown
    arith: str | None
    body: Seq


@dataclass
class Loop:
    cond: Seq
    body: Seq


@dataclass
class If:
    parts: list[Seq]


@dataclass
class Group:
    body: Seq
    subshell: bool


@dataclass
class Pipeline:
    commands: list[Command]


@dataclass
class Seq:
    # Each item is a chain of pipelines joined by && / ||, and whether it runs in
    # the background (terminated by `&`).
    items: list[tuple[list[Pipeline], bool]] = field(default_factory=list)


Command = Simple | For | Loop | If | Group


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def at_word(self, *values: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "word" and tok.value in values

    def at_op(self, *values: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "op" and tok.value in values

    def take(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise ShellSyntaxError("unexpected end of command")
        self.pos += 1
        return tok

    def expect_word(self, value: str) -> None:
        tok = self.take()
        if tok.kind != "word" or tok.value != value:
            raise ShellSyntaxError(f"expected {value!r}, found {tok.value!r}")

    def skip_separators(self) -> None:
        while self.at_op(";", "\n"):
            self.pos += 1

    def seq(self, stop_words: frozenset[str] = frozenset(), stop_ops: frozenset[str] =
            frozenset()) -> Seq:
        result = Seq()
        while True:
            while self.at_op("\n", ";"):
                self.pos += 1
            tok = self.peek()
            if tok is None or (tok.kind == "word" and tok.value in stop_words) or \
                    (tok.kind == "op" and tok.value in stop_ops):
                return result
            chain = [self.pipeline()]
            while self.at_op("&&", "||"):
                self.pos += 1
                while self.at_op("\n"):
                    self.pos += 1
                chain.append(self.pipeline())
            background = self.at_op("&")
            if background or self.at_op(";", "\n", ";;"):
                self.pos += 1
            elif self.peek() is not None and not (
                    (self.peek().kind == "word" and self.peek().value in stop_words)
                    or (self.peek().kind == "op" and self.peek().value in stop_ops)):
                raise ShellSyntaxError(f"unexpected {self.peek().value!r}")
            result.items.append((chain, background))

    def pipeline(self) -> Pipeline:
        if self.at_word("!"):
            self.pos += 1
        commands = [self.command()]
        while self.at_op("|", "|&"):
            self.pos += 1
            while self.at_op("\n"):
                self.pos += 1
            commands.append(self.command())
        return Pipeline(commands)

    def command(self) -> Command:
        # An explicit bound rather than Python's recursion limit: `((((…` a
        # thousand deep is refused by name, at a depth that is cheap to reach.
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise LaunchTooComplex(f"compound commands nested more than {MAX_DEPTH} deep")
            return self._command()
        finally:
            self.depth -= 1

    def _command(self) -> Command:
        if self.at_word("for"):
            return self.for_loop()
        if self.at_word("while", "until"):
            self.pos += 1
            cond = self.seq(frozenset({"do"}))
            self.expect_word("do")
            body = self.seq(frozenset({"done"}))
            self.expect_word("done")
            self.redirects()
            return Loop(cond, body)
        if self.at_word("if"):
            return self.if_clause()
        if self.at_op("("):
            self.pos += 1
            body = self.seq(stop_ops=frozenset({")"}))
            if not self.at_op(")"):
                raise ShellSyntaxError("unbalanced '('")
            self.pos += 1
            self.redirects()
            return Group(body, subshell=True)
        if self.at_word("{"):
            self.pos += 1
            body = self.seq(frozenset({"}"}))
            self.expect_word("}")
            self.redirects()
            return Group(body, subshell=False)
        return self.simple()

    def redirects(self) -> None:
        while self.at_op("redirect"):
            self.pos += 1
            if self.peek() is not None and self.peek().kind == "word":
                self.pos += 1

    def simple(self) -> Simple:
        cmd = Simple()
        while True:
            tok = self.peek()
            if tok is None:
                break
            if tok.kind == "op":
                if tok.value == "redirect":
                    self.redirects()
                    continue
                break
            if not cmd.words and tok.value in RESERVED_ENDS:
                break
            self.pos += 1
            if not cmd.words and _is_assignment(tok.value):
                name, _, value = tok.value.partition("=")
                cmd.assignments.append((name, value))
            else:
                cmd.words.append(tok.value)
        if not cmd.words and not cmd.assignments:
            tok = self.peek()
            raise ShellSyntaxError(f"unexpected {tok.value!r}" if tok else "empty command")
        return cmd

    def for_loop(self) -> For:
        self.expect_word("for")
        tok = self.peek()
        if tok is not None and tok.kind == "word" and tok.value.startswith("(("):
            self.pos += 1  # for (( init; cond; step ))
            self.skip_separators()
            self.expect_word("do")
            body = self.seq(frozenset({"done"}))
            self.expect_word("done")
            self.redirects()
            return For(var="", items=None, arith=tok.value, body=body)
        var = self.take().value
        items: list[str] | None = None
        while self.at_op("\n"):
            self.pos += 1
        if self.at_word("in"):
            self.pos += 1
            items = []
            while self.peek() is not None and self.peek().kind == "word":
                items.append(self.take().value)
        self.skip_separators()
        self.expect_word("do")
        body = self.seq(frozenset({"done"}))
        self.expect_word("done")
        self.redirects()
        return For(var=var, items=items, arith=None, body=body)

    def if_clause(self) -> If:
        self.expect_word("if")
        parts = [self.seq(frozenset({"then"}))]
        self.expect_word("then")
        while True:
            parts.append(self.seq(frozenset({"elif", "else", "fi"})))
            word = self.take().value
            if word == "fi":
                break
            if word == "elif":
                parts.append(self.seq(frozenset({"then"})))
                self.expect_word("then")
        self.redirects()
        return If(parts)


def parse(text: str) -> Seq:
    """Parse a launch command. Raises ShellSyntaxError."""
    parser = _Parser(tokenize(text))
    tree = parser.seq()
    if parser.peek() is not None:
        raise ShellSyntaxError(f"unexpected {parser.peek().value!r}")
    return tree
