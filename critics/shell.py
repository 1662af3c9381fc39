"""A small POSIX-shell reader for launch commands: tokens, then a tree.

The critic must tell `for i in 0 1; do CUDA_VISIBLE_DEVICES=$i x & done; wait`
from the same loop without `&`, see through quotes, and know which `;`, `&&`,
`|` and `&` separate what. Grepping cannot; a full bash grammar is not needed.
Words keep substitutions (`$(seq 0 7)`, `$((i % 4))`, `${X}`) as raw text and
lose their quotes; the analysis expands them later against a loop's variables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

OPERATORS = ("&&", "||", ";;&", ";;", ";&", "|&", "&>>", "&>", ">>", ">|", "<<<", "<<-", "<<",
             ";", "&", "|", "(", ")", "<", ">", "\n")
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
    value: str  # quotes removed, substitutions kept as raw text
    raw: str = ""  # the word as written, quotes and all (the expander reads it)
    start: int = 0  # span in the launch text
    end: int = 0


def _read_balanced(text: str, i: int, open_: str, close: str, comments: bool = False,
                   what: str = "") -> int:
    """Index just past the `close` that balances the `open_` at text[i].
    `comments`: skip `# ...` to the end of the line (array literals, where
    Megatron-style flag arrays put a `# why` after each flag, apostrophes and all)."""
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
        elif comments and ch == "#" and text[i - 1] in " \t\n(":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif ch == open_:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ShellSyntaxError(f"unbalanced {open_!r}{what}")


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


_ARRAY_HEAD = re.compile(r"[A-Za-z_]\w*(\[[^\]]*\])?\+?=")
_TEST_END = re.compile(r"[ \t]\]\](?=[\s;&|)]|$)")


def _skip_heredocs(text: str, i: int, pending: list[tuple[str, bool]]) -> int:
    """Skip here-document bodies that start at text[i] (just past a newline)."""
    for delimiter, strip_tabs in pending:
        while i < len(text):
            eol = text.find("\n", i)
            line = text[i:eol if eol >= 0 else len(text)]
            i = eol + 1 if eol >= 0 else len(text)
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    pending.clear()
    return i


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_LAUNCH_CHARS:
        raise LaunchTooComplex(f"longer than {MAX_LAUNCH_CHARS} characters")
    tokens: list[Token] = []
    word: list[str] = []
    in_word = False
    start = 0
    heredocs: list[tuple[str, bool]] = []  # delimiters whose bodies follow the next newline
    heredoc_next: bool | None = None  # the next word is a here-doc delimiter (strip tabs?)
    i = 0

    def flush(end: int) -> None:
        nonlocal in_word, heredoc_next
        if in_word:
            value = "".join(word)
            tokens.append(Token("word", value, text[start:end], start, end))
            if heredoc_next is not None:
                heredocs.append((value, heredoc_next))
                heredoc_next = None
            word.clear()
            in_word = False
        if len(tokens) > MAX_TOKENS:
            raise LaunchTooComplex(f"more than {MAX_TOKENS} words and operators")

    def begin() -> None:
        nonlocal in_word, start
        if not in_word:
            in_word = True
            start = i

    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1:i + 2] == "\n":
            i += 2
        elif ch in " \t\r":
            flush(i)
            i += 1
        elif text.startswith("((", i) and not in_word:
            # Arithmetic `(( ... ))` (and C-style for headers) is one word: its `<`
            # and `;` are not redirections or separators.
            try:
                end = _read_balanced(text, i, "(", ")")
            except ShellSyntaxError:
                raise ShellSyntaxError("unterminated '(('") from None
            tokens.append(Token("word", text[i:end], text[i:end], i, end))
            i = end
        elif text.startswith("[[", i) and not in_word and text[i + 2:i + 3] in (" ", "\t"):
            # `[[ a < b && c ]]` is one test: its operators are not the shell's.
            close = _TEST_END.search(text, i + 2)
            if close is None:
                raise ShellSyntaxError("unterminated '[['")
            end = close.end()
            tokens.append(Token("word", text[i:end], text[i:end], i, end))
            i = end
        elif ch == "#" and not in_word:
            while i < len(text) and text[i] != "\n":
                i += 1
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated single quote")
            begin()
            word.append(text[i + 1:end])
            i = end + 1
        elif ch == '"':
            begin()
            i += 1
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
            begin()
            word.append(text[i + 1:i + 2])
            i += 2
        elif ch == "$":
            begin()
            raw, i = _dollar(text, i)
            word.append(raw)
        elif ch == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise ShellSyntaxError("unterminated backquote")
            begin()
            word.append("$(" + text[i + 1:end] + ")")
            i = end + 1
        elif ch == "(" and in_word and _ARRAY_HEAD.fullmatch("".join(word)):
            # NAME=( ... ): an array literal, kept whole
            end = _read_balanced(text, i, "(", ")", comments=True, what=" in an array")
            word.append(text[i:end])
            i = end
        else:
            op = next((o for o in OPERATORS if text.startswith(o, i)), None)
            if op is None:
                begin()
                word.append(ch)
                i += 1
                continue
            if op in ("<", ">", ">>", "<<", "<<-", "<<<") and in_word and \
                    "".join(word).isdigit():
                word.clear()  # a file-descriptor number such as the 2 in 2>&1
                in_word = False
            flush(i)
            i += len(op)
            if op in (">", ">>", "<", "&>", "<<", "<<-", "<<<", "&>>", ">|"):
                if text.startswith("&", i):  # >&2, 2>&1: a descriptor, not a background
                    i += 1
                tokens.append(Token("op", "redirect", op, i - len(op), i))
                if op in ("<<", "<<-"):
                    heredoc_next = op == "<<-"
            else:
                tokens.append(Token("op", op, op, i - len(op), i))
                if op == "\n" and heredocs:
                    i = _skip_heredocs(text, i, heredocs)
    flush(i)
    return tokens


@dataclass
class Simple:
    assignments: list[tuple[str, str]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    # The assignment and command words as written (quotes kept), in order: the
    # expander (critics.shell_expand) reads these to split unquoted variables
    # and expand arrays. Empty for a command built without source text.
    raw: list[str] = field(default_factory=list)
    # Set by the expander on the command it returns: (index into words, what)
    # for each word that came whole from an unquoted expansion the critic
    # could not evaluate and that may hold several arguments (`$ARGS`).
    hidden: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class For:
    var: str
    items: list[str] | None  # None: C-style or unknown
    arith: str | None
    body: Seq
    raw_items: list[str] | None = None  # the items as written


@dataclass
class Loop:
    cond: Seq
    body: Seq
    until: bool = False


@dataclass
class If:
    parts: list[Seq]


@dataclass
class Case(If):
    """`case WORD in PATTERN) ... ;; esac`: walked like an `if` over all its
    arms (`parts`); `word` and `patterns` say which arm is which."""

    word: str = ""
    patterns: list[list[str]] = field(default_factory=list)


@dataclass
class Group:
    body: Seq
    subshell: bool


@dataclass
class Function:
    """`name() { ...; }` / `function name { ...; }`. `parse` inlines calls to
    it, so the tree the analysis walks has no Function nodes."""

    name: str
    body: Command
    source: str  # the body as written


@dataclass
class Pipeline:
    commands: list[Command]


@dataclass
class Seq:
    # Each item is a chain of pipelines joined by && / ||, and whether it runs in
    # the background (terminated by `&`).
    items: list[tuple[list[Pipeline], bool]] = field(default_factory=list)


Command = Simple | For | Loop | If | Group | Function

_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)(\[[^\]]*\])?\+?=")


def _is_assignment(word: str) -> bool:
    """`NAME=v`, and bash's `NAME+=v`, `NAME[i]=v`, `NAME=(a b)`."""
    return _ASSIGNMENT.match(word) is not None


def _is_name(word: str) -> bool:
    return word.isidentifier() or bool(re.fullmatch(r"[A-Za-z_][\w.:-]*", word))


class _Parser:
    def __init__(self, tokens: list[Token], text: str = "") -> None:
        self.tokens = tokens
        self.text = text
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
            if background or self.at_op(";", "\n") or \
                    (self.at_op(";;", ";&", ";;&") and ";;" not in stop_ops):
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
        tok = self.peek()
        nxt = self.tokens[self.pos + 1:self.pos + 3]
        if tok is not None and tok.kind == "word" and _is_name(tok.value) and \
                [(t.kind, t.value) for t in nxt] == [("op", "("), ("op", ")")]:
            self.pos += 3
            return self.function(tok.value)
        if self.at_word("function") and self.pos + 1 < len(self.tokens):
            self.pos += 1
            name = self.take().value
            if self.at_op("(") and self.pos + 1 < len(self.tokens) and \
                    self.tokens[self.pos + 1].value == ")":
                self.pos += 2
            return self.function(name)
        if self.at_word("case"):
            return self.case()
        if self.at_word("for"):
            return self.for_loop()
        if self.at_word("while", "until"):
            until = self.take().value == "until"
            cond = self.seq(frozenset({"do"}))
            self.expect_word("do")
            body = self.seq(frozenset({"done"}))
            self.expect_word("done")
            self.redirects()
            return Loop(cond, body, until)
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
            cmd.raw.append(tok.raw or tok.value)
            if not cmd.words and _is_assignment(tok.value):
                name, _, value = tok.value.partition("=")
                cmd.assignments.append((name.removesuffix("+"), value))
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
        raw: list[str] | None = None
        while self.at_op("\n"):
            self.pos += 1
        if self.at_word("in"):
            self.pos += 1
            items, raw = [], []
            while self.peek() is not None and self.peek().kind == "word":
                tok = self.take()
                items.append(tok.value)
                raw.append(tok.raw or tok.value)
        else:  # `for x; do`: the positional parameters
            items, raw = ['$@'], ['"$@"']
        self.skip_separators()
        self.expect_word("do")
        body = self.seq(frozenset({"done"}))
        self.expect_word("done")
        self.redirects()
        return For(var=var, items=items, arith=None, body=body, raw_items=raw)

    def function(self, name: str) -> Function:
        while self.at_op("\n"):
            self.pos += 1
        first = self.peek()
        if first is None:
            raise ShellSyntaxError(f"function {name!r} has no body")
        body = self.command()
        if isinstance(body, Simple):
            raise ShellSyntaxError(f"function {name!r} needs a compound body")
        last = self.tokens[self.pos - 1]
        return Function(name, body, self.text[first.start:last.end])

    def case(self) -> Case:
        self.expect_word("case")
        word = self.take().value
        while self.at_op("\n"):
            self.pos += 1
        self.expect_word("in")
        parts: list[Seq] = []
        patterns: list[list[str]] = []
        while True:
            self.skip_separators()
            if self.at_word("esac"):
                self.pos += 1
                break
            if self.at_op("("):
                self.pos += 1
            alternatives = [self.take().value]
            while self.at_op("|"):
                self.pos += 1
                alternatives.append(self.take().value)
            if not self.at_op(")"):
                raise ShellSyntaxError("expected ')' after a case pattern")
            self.pos += 1
            parts.append(self.seq(frozenset({"esac"}), frozenset({";;", ";&", ";;&"})))
            patterns.append(alternatives)
            if self.at_op(";;", ";&", ";;&"):
                self.pos += 1
        self.redirects()
        return Case(parts, word, patterns)

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


def without_comments(text: str) -> str:
    """The launch's words and operators without its comments (and here-document
    bodies), for rules that read the launch as text; the text itself if it
    does not tokenize."""
    try:
        tokens = tokenize(text)
    except ShellSyntaxError:
        return text
    return " ".join(text[t.start:t.end] for t in tokens)


def parse(text: str) -> Seq:
    """Parse a launch command. Raises ShellSyntaxError. Calls to the shell
    functions it defines are inlined (critics.shell_funcs)."""
    parser = _Parser(tokenize(text), text)
    tree = parser.seq()
    if parser.peek() is not None:
        raise ShellSyntaxError(f"unexpected {parser.peek().value!r}")
    return shell_funcs.inline(tree)


from critics import shell_funcs  # noqa: E402  (it builds the nodes defined above)
