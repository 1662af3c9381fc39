"""Bash expansion for launch commands, evaluated as far as it is static.

The analysis (critics.launch) walks the tree with an environment of the
variables it knows, `dict[str, str]`, and calls `evaluate` on each simple
command before reading it. `evaluate` returns the command as bash would run
it: words expanded and split (`$DISTRIBUTED_ARGS` becomes flags, `"${A[@]}"`
becomes one word per element), prefix assignments expanded; or None for a
builtin that only changes variables (`A=(0 1)`, `export`, `readonly`,
`declare`, `local`, `let`, `(( g=(g+1)%8 ))`, `set --`, `shift`, `unset`,
`source`, `read`) or does nothing to a GPU (`cd`, `echo`, `[ ... ]`, `mkdir`).

What it cannot evaluate it keeps, in two kinds:
- unknown: a variable the launch never sets (`$X` stays `$X`, and a value
  built from one is `?NAME`), as before: the launcher decides such a count;
- opaque: text only running something would tell (`$(cat n.txt)`, `read`,
  a variable after `source env.sh` or `eval` that might have set it). These
  become a marker (`opaque`) that travels with the value. A count or a
  device pin that reaches one makes the launch `unreadable-launch`, naming
  the construct (`opaque_in`), instead of a guessed number of GPUs.

Bounds: arithmetic text of at most MAX_ARITH characters and 32 parentheses
deep, numbers below 10**18, `$(seq)` expanded up to MAX_ITEMS values (larger
ranges stay `$(seq A B)` for the analysis to read lazily), arrays of at most
MAX_ITEMS elements. Everything here is linear in the text it reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from critics import shell, shell_arith

ARRAY = "[]"  # env key prefix: env["[]GPUS"] holds the array GPUS, SEP-joined
SEP = "\x1f"
POSITIONAL = ARRAY + "@"  # the positional parameters ($1, $@, $#) as an array
TAINT = "?source"  # env key: the `source`/`eval` that may have set any variable
_OPEN, _CLOSE, _SPACE = "\x02", "\x03", "\x05"  # an opaque marker, whitespace-free
MAX_ARITH = 256
MAX_ITEMS = 4096
# Names that, unset and unquoted, stand for a list of arguments (`$DISTRIBUTED_ARGS`).
_ARGS_LIKE = re.compile(r"(?i)(ARGS|ARGV|OPTS|OPTIONS|FLAGS|PARAMS|CMD|COMMAND|LAUNCHER)$")
# Commands that run nothing on a GPU: evaluate drops them.
NOT_GPU = frozenset({
    "cd", "echo", "printf", "mkdir", "rm", "cp", "mv", "ln", "touch", "sleep", "true", "false",
    ":", "[", "test", "trap", "ulimit", "umask", "shopt", "exit", "return", "pushd", "popd",
    "hash", "alias", "chmod", "sync", "date", "hostname", "whoami", "ls", "pwd", "sort",
    "head", "tail", "wc", "basename", "dirname", "tee", "cat", "nvidia-smi", "wandb",
    "huggingface-cli", "pip", "git", "wget", "curl", "tar", "unzip", "conda",
})
# Sourced files that set up a shell (a virtualenv, conda, a profile), not an
# experiment's settings: they do not make unset variables opaque.
_ENV_SETUP = re.compile(r"(^|/)(activate|conda\.sh|\.?bashrc|\.?bash_profile|\.?profile|"
                        r"\.?zshrc|modules?\.sh|lmod\.sh|env_vars\.sh)$|^~/")
_DECLARE = frozenset({"export", "readonly", "declare", "typeset", "local"})


def opaque(what: str) -> str:
    """A marker for a value the critic cannot evaluate; `what` names it."""
    what = what if len(what) <= 80 else what[:77] + "..."
    return _OPEN + re.sub(r"\s", _SPACE, what) + _CLOSE


def opaque_in(text: str | None) -> str | None:
    """The construct behind the first opaque marker in `text`, if any."""
    if not text or _OPEN not in text:
        return None
    start = text.index(_OPEN) + 1
    end = text.find(_CLOSE, start)
    return text[start:end if end >= 0 else len(text)].replace(_SPACE, " ")


def get_array(env: dict[str, str], name: str) -> list[str] | None:
    value = env.get(ARRAY + name)
    return None if value is None else (value.split(SEP) if value else [])


def set_array(env: dict[str, str], name: str, values: list[str]) -> None:
    values = values[:MAX_ITEMS]
    env[ARRAY + name] = SEP.join(values)
    if name != "@":
        env[name] = values[0] if values else ""


def _unknown(value: str | None) -> bool:
    return value is None or value.startswith("?")


# ---- arithmetic -----------------------------------------------------------------

# ---- word expansion -------------------------------------------------------------

@dataclass
class _Field:
    parts: list[str] = field(default_factory=list)
    started: bool = False


@dataclass
class _Result:
    """An expansion's value: text, or several words (`"${A[@]}"`); unknown
    ones keep their source text; `hidden` names an unknown that may hold
    several arguments."""

    text: str = ""
    words: list[str] | None = None
    unknown: bool = False
    hidden: str | None = None
    whole: bool = False  # never split (a `$(seq A S B)` left for the analysis)


class _Expander:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    # -- variables
    def lookup(self, name: str) -> str | None:
        """A variable's value; None if unset. Values may be "?NAME" (unknown)
        or carry an opaque marker."""
        if name.isdigit():
            args = get_array(self.env, "@")
            if name == "0":
                return None
            return None if args is None else (args[int(name) - 1] if int(name) <= len(args)
                                              else "")
        if name == "#":
            args = get_array(self.env, "@")
            return None if args is None else str(len(args))
        if name in self.env:
            return self.env[name]
        if name == "WIDTH" and "__width__" in self.env:
            return self.env["__width__"]  # dispatch exports the realized width as WIDTH
        return None

    def set_scalar(self, name: str, value: str) -> None:
        if get_array(self.env, name) is not None:
            values = get_array(self.env, name) or [""]
            set_array(self.env, name, [value, *values[1:]])
        else:
            self.env[name] = value

    def unset_value(self, name: str, source: str) -> _Result:
        if TAINT in self.env and name not in ("!", "$", "?", "-", "0", "RANDOM"):
            return _Result(opaque(f"${name}, which {self.env[TAINT]} may set"),
                           hidden=f"${name}, which {self.env[TAINT]} may set")
        hidden = f"{source}, which the launch does not set" \
            if _ARGS_LIKE.search(name) or name in ("@", "*") else None
        return _Result(source, unknown=True, hidden=hidden)

    def known(self, name: str, value: str, source: str) -> _Result:
        if value.startswith("?"):
            return _Result(source, unknown=True,
                           hidden=f"{source}, whose value the critic cannot work out")
        marker = opaque_in(value)
        return _Result(value, hidden=marker)

    def arith_read(self, name: str, index: int | None) -> int:
        if index is not None:
            values = get_array(self.env, name)
            text = values[index] if values is not None and 0 <= index < len(values) else None
        else:
            text = self.lookup(name)
        if _unknown(text) or opaque_in(text):
            raise shell_arith.ArithError(f"unknown {name}")
        text = text.strip()  # type: ignore[union-attr]
        if text == "":
            return 0
        if re.fullmatch(r"-?\d{1,18}", text):
            return int(text)
        raise shell_arith.ArithError(f"{name} is not a number")

    def arith_write(self, name: str, index: int | None, value: int) -> int:
        value = shell_arith.check(value)
        if index is not None:
            values = get_array(self.env, name) or []
            if 0 <= index < MAX_ITEMS:
                values += [""] * (index + 1 - len(values))
                values[index] = str(value)
                set_array(self.env, name, values)
        else:
            self.set_scalar(name, str(value))
        return value

    # -- $... at text[i]; returns (result, end)
    def dollar(self, text: str, i: int) -> tuple[_Result, int]:
        nxt = text[i + 1:i + 2]
        if text.startswith("$((", i):
            try:
                end = shell._read_balanced(text, i + 1, "(", ")")
            except shell.ShellSyntaxError:
                return _Result("$"), i + 1
            source = text[i:end]
            return self.arith_sub(source[3:-2], source), end
        if nxt == "(":
            try:
                end = shell._read_balanced(text, i + 1, "(", ")")
            except shell.ShellSyntaxError:
                return _Result("$"), i + 1
            return self.command_sub(text[i + 2:end - 1], text[i:end]), end
        if nxt == "{":
            try:
                end = shell._read_balanced(text, i + 1, "{", "}")
            except shell.ShellSyntaxError:
                return _Result("$"), i + 1
            return self.parameter(text[i + 2:end - 1], text[i:end]), end
        m = re.match(r"[A-Za-z_]\w*|[0-9#@*?$!-]", text[i + 1:])
        if not m:
            return _Result("$"), i + 1
        name = m.group(0)
        return self.parameter(name, "$" + name), i + 1 + len(name)

    def arith_sub(self, expr: str, source: str) -> _Result:
        value = self.arith(expr)
        return _Result(source, unknown=True) if value is None else _Result(str(value))

    def arith(self, expr: str, assign: bool = True) -> int | None:
        text = self.value(expr, quotes=False)
        if text is None or len(text) > MAX_ARITH:
            return None
        ex = self if assign else _Expander(dict(self.env))
        try:
            return shell_arith.Arith(text, ex.arith_read, ex.arith_write).run()
        except (shell_arith.ArithError, RecursionError, ValueError):
            return None

    def command_sub(self, script: str, source: str) -> _Result:
        flat = " ".join(script.split())
        try:
            tokens = shell.tokenize(script) if len(script) <= MAX_ARITH else None
        except shell.ShellSyntaxError:
            tokens = None
        simple = tokens is not None and all(t.kind == "word" for t in tokens)
        words = [t.raw for t in tokens or []] if simple else flat.split()
        if re.fullmatch(r"nvidia-smi\b[^;&`$]*\|\s*wc\s+-l|.*\bdevice_count\(\).*", flat):
            width = self.env.get("__width__")  # the machine has exactly the phase's GPUs
            return _Result(width) if width else _Result(source, unknown=True)
        if words[:1] == ["seq"] and simple:
            return self.seq(words[1:], source)
        if words[:1] == ["echo"] and simple:
            value = self.value(" ".join(words[1:]), quotes=True)
            return _Result(source, unknown=True) if value is None else _Result(value)
        if words[:1] == ["expr"] and len(words) == 4 and words[2] in "+-*/%":
            return self.arith_sub(" ".join(words[1:]), source)
        return _Result(opaque(source), hidden=source)

    def seq(self, args: list[str], source: str) -> _Result:
        sep = "\n"
        if len(args) >= 2 and args[0] == "-s":
            sep, args = args[1], args[2:]
        values = [self.value(a, quotes=True) for a in args]
        if any(v is None for v in values) or not 1 <= len(values) <= 3 or \
                not all(re.fullmatch(r"-?\d{1,18}", v or "") for v in values):
            return _Result(source, unknown=True)
        nums = [int(v or 0) for v in values]
        first, step, last = ((1, 1, nums[0]) if len(nums) == 1 else
                             (nums[0], 1, nums[1]) if len(nums) == 2 else nums)
        if step == 0:
            return _Result(source, unknown=True)
        span = range(first, last + (1 if step > 0 else -1), step)
        if len(span) > MAX_ITEMS:  # left for the analysis to read without expanding it
            return _Result(f"$(seq {first} {step} {last})", whole=True)
        return _Result(sep.join(str(v) for v in span))

    def parameter(self, body: str, source: str) -> _Result:
        if body.startswith("#") and len(body) > 1:
            m = re.fullmatch(r"#([A-Za-z_]\w*|@|\*)(\[[@*]\])?", body)
            if not m:
                return _Result(source, unknown=True)
            values = get_array(self.env, m.group(1)) if m.group(2) or m.group(1) in "@*" \
                else None
            if values is not None:
                return _Result(str(len(values)))
            if m.group(1) in "@*" or m.group(2):
                return _Result(source, unknown=True)
            value = self.lookup(m.group(1))
            return _Result(source, unknown=True) if _unknown(value) else \
                _Result(str(len(value or "")))
        indices = re.fullmatch(r"!([A-Za-z_]\w*)\[[@*]\]", body)
        if indices:  # ${!A[@]}: the array's indices
            values = get_array(self.env, indices.group(1))
            if values is None:
                return _Result(source, unknown=True)
            keys = [str(k) for k in range(len(values))]
            return _Result(" ".join(keys), words=keys)
        m = re.match(r"([A-Za-z_]\w*|\d+|[@*#?$!-])(?:\[([^\]]*)\])?", body)
        if not m:
            return _Result(source, unknown=True)
        name, index, rest = m.group(1), m.group(2), body[m.end():]
        if index in ("@", "*") or (index is None and name in ("@", "*")):
            values = get_array(self.env, "@" if name in ("@", "*") else name)
            if values is None:
                return self.unset_value(name, source)
            if any(_unknown(v) for v in values):
                return _Result(source, unknown=True,
                               hidden=f"{source}, whose elements the critic cannot work out")
            if rest:
                return self.operate(" ".join(values), rest, source, name)
            return _Result(" ".join(values), words=values,
                           hidden=next((opaque_in(v) for v in values if opaque_in(v)), None))
        if index is not None:
            values = get_array(self.env, name)
            position = self.arith(index)
            if values is None and position == 0:
                value = self.lookup(name)
            elif values is None or position is None:
                return _Result(source, unknown=True)
            else:
                value = values[position] if -len(values) <= position < len(values) else ""
        else:
            value = self.lookup(name)
        if rest:
            return self.operate(value, rest, source, name)
        if value is None:
            return self.unset_value(name, source)
        return self.known(name, value, source)

    def operate(self, value: str | None, rest: str, source: str, name: str) -> _Result:
        m = re.match(r"(:?[-=+?])|(##?|%%?)|(//?)|(\^\^?|,,?)|(:)", rest)
        if not m:
            return _Result(source, unknown=True)
        op, arg = m.group(0), rest[m.end():]
        if m.group(1):
            empty = value is None or (op.startswith(":") and value == "")
            if value is not None and value.startswith("?"):
                return _Result(source, unknown=True)
            if op[-1] in "-=":
                if not empty:
                    return self.known(name, value or "", source)
                default = self.value(arg, quotes=True)
                if default is None:
                    return _Result(source, unknown=True)
                if op[-1] == "=":
                    self.set_scalar(name, default)
                return _Result(default)
            if op[-1] == "+":
                return _Result("") if empty else self.word_result(arg, source)
            return self.unset_value(name, source) if empty else self.known(name, value or "",
                                                                            source)
        if _unknown(value):
            return self.unset_value(name, source) if value is None and TAINT in self.env \
                else _Result(source, unknown=True)
        value = value or ""
        if m.group(2):
            pattern = self.value(arg, quotes=True)
            if pattern is None:
                return _Result(source, unknown=True)
            regex = _glob_regex(pattern, greedy=len(op) == 2)
            if op[0] == "#":
                found = re.match(regex, value)
                return _Result(value[found.end():] if found else value)
            for start in (range(len(value) + 1) if len(op) == 2 else
                          range(len(value), -1, -1)):
                if re.fullmatch(regex, value[start:]):
                    return _Result(value[:start])
            return _Result(value)
        if m.group(3):
            pattern, _, replacement = arg.partition("/")
            pat, rep = self.value(pattern, quotes=True), self.value(replacement, quotes=True)
            if pat is None or rep is None or not pat:
                return _Result(source, unknown=True)
            regex = _glob_regex(pat, greedy=True)
            return _Result(re.sub(regex, lambda _: rep, value, count=0 if op == "//" else 1))
        if m.group(4):
            return _Result(value.upper() if op[0] == "^" else value.lower())
        offset, _, length = arg.partition(":")
        start = self.arith(offset) if offset.strip() else 0
        size = self.arith(length) if length.strip() else None
        if start is None or (length.strip() and size is None):
            return _Result(source, unknown=True)
        start = max(0, len(value) + start) if start < 0 else start
        end = len(value) if size is None else (start + size if size >= 0 else len(value) + size)
        return _Result(value[start:end])

    def word_result(self, text: str, source: str) -> _Result:
        value = self.value(text, quotes=True)
        return _Result(source, unknown=True) if value is None else _Result(value)

    # -- whole words
    def value(self, text: str, quotes: bool = True) -> str | None:
        """`text` expanded as one string without word splitting (the right side
        of an assignment, an operand); None if any part is unknown."""
        out: list[str] = []
        unknown = False
        for piece, result in self.pieces(text, quotes):
            if result is None:
                if piece != "\x00quoted":
                    out.append(piece)
            else:
                unknown |= result.unknown
                out.append(" ".join(result.words) if result.words is not None else result.text)
        return None if unknown else "".join(out)

    def pieces(self, text: str, quotes: bool) -> list[tuple[str, _Result | None]]:
        """Split `text` into literal pieces (result None) and expansions. With
        `quotes`, quotes are removed and a piece is (text, None) if quoted;
        an unquoted expansion's piece text is "" and a quoted one's is '"'."""
        out: list[tuple[str, _Result | None]] = []
        i = 0
        in_double = False
        while i < len(text):
            ch = text[i]
            if ch == "\\" and text[i + 1:i + 2] == "\n":
                i += 2
            elif quotes and ch == "'" and not in_double:
                end = text.find("'", i + 1)
                end = len(text) if end < 0 else end
                out.append((text[i + 1:end], None))
                out.append(("\x00quoted", None))
                i = end + 1
            elif quotes and ch == '"':
                in_double = not in_double
                out.append(("\x00quoted", None))
                i += 1
            elif quotes and ch == "\\":
                nxt = text[i + 1:i + 2]
                if in_double and nxt not in '"\\$`':
                    out.append(("\\", None))
                    i += 1
                else:
                    out.append((nxt, None))
                    i += 2
            elif ch == "$" and text.startswith("$'", i) and quotes and not in_double:
                end = text.find("'", i + 2)
                end = len(text) if end < 0 else end
                out.append((text[i + 2:end].encode().decode("unicode_escape", "ignore"), None))
                out.append(("\x00quoted", None))
                i = end + 1
            elif ch == "$":
                result, i = self.dollar(text, i)
                out.append(('"' if in_double else "", result))
            elif ch == "`" and quotes:
                end = text.find("`", i + 1)
                end = len(text) if end < 0 else end
                out.append(('"' if in_double else "",
                            self.command_sub(text[i + 1:end], text[i:end + 1])))
                i = end + 1
            else:
                out.append((ch, None))
                i += 1
        return [(p, r) for p, r in out if p != "\x00quoted" or quotes]

    def fields(self, raw: str) -> list[tuple[str, str | None]]:
        """A word as bash runs it: quotes removed, expansions done, unquoted
        expansions split on whitespace, `"${A[@]}"` one word per element.
        Each field comes with `hidden`: what it stands for, if it is one
        unquoted unknown expansion that may hold several arguments."""
        pieces = self.pieces(raw, quotes=True)
        fields: list[_Field] = []
        current = _Field()

        def end_field() -> None:
            nonlocal current
            if current.started:
                fields.append(current)
            current = _Field()

        for piece, result in pieces:
            if result is None:
                current.started = True
                if piece != "\x00quoted":
                    current.parts.append(piece)
                continue
            quoted = piece == '"'
            if result.unknown:
                current.started = True
                current.parts.append(result.text)
            elif result.words is not None and quoted:
                for k, word in enumerate(result.words):
                    if k:
                        end_field()
                    current.started = True
                    current.parts.append(word)
            elif quoted or result.whole:
                current.started = True
                current.parts.append(result.text)
            else:
                for k, part in enumerate(re.split(r"[ \t\n]+", result.text)):
                    if k:
                        end_field()
                    if part:
                        current.started = True
                        current.parts.append(part)
        end_field()
        expansions = [r for _, r in pieces if r is not None]
        literal = any(r is None and p != "\x00quoted" for p, r in pieces)
        whole = len(expansions) == 1 and not literal and not any(
            p == '"' for p, r in pieces if r is not None) and len(fields) <= 1
        hidden = expansions[0].hidden if whole and expansions else None
        return [("".join(f.parts), hidden) for f in fields]


def _glob_regex(pattern: str, greedy: bool) -> str:
    out = []
    for ch in pattern:
        out.append(".*" if ch == "*" and greedy else ".*?" if ch == "*" else
                   "." if ch == "?" else re.escape(ch))
    return "".join(out)


def _brace_list(raw: str) -> list[str]:
    """`{a,b}` expanded for a plain word (no quotes or `$`); else [raw]."""
    m = re.fullmatch(r"([^{}'\"$\\\s]*)\{([^{}'\"$\\\s]*,[^{}'\"$\\\s]*)\}([^{}'\"$\\\s]*)", raw)
    if not m:
        return [raw]
    return [m.group(1) + part + m.group(3) for part in m.group(2).split(",")][:MAX_ITEMS]


# ---- the API the analysis calls -------------------------------------------------

def expand(word: str, env: dict[str, str]) -> str | None:
    """A quote-removed word with its variables, arithmetic and parameter
    expansions done, as one string; None if any part is unknown. Opaque
    markers pass through as text (see `opaque_in`). Changes nothing in env."""
    return _Expander(dict(env)).value(word, quotes=False)


def arith(expr: str, env: dict[str, str]) -> int | None:
    return _Expander(dict(env)).arith(expr)


def _assign(raw: str, env: dict[str, str], expander: _Expander) -> None:
    m = re.match(r"([A-Za-z_]\w*)(?:\[([^\]]*)\])?(\+?)=", raw)
    if not m:
        return
    name, index, append, value_raw = m.group(1), m.group(2), m.group(3), raw[m.end():]
    if value_raw.startswith("(") and value_raw.endswith(")") and index is None:
        try:
            tokens = shell.tokenize(value_raw[1:-1])
        except shell.ShellSyntaxError:
            env[name] = f"?{name}"
            return
        values = get_array(env, name) or [] if append else []
        for tok in tokens:
            if tok.kind == "word":
                item = re.sub(r"^\[[^\]]*\]=", "", tok.raw)  # [key]=value: the value
                values += [f for f, _ in expander.fields(item)]
        set_array(env, name, values)
        return
    value = expander.value(value_raw, quotes=True)
    value = f"?{name}" if value is None else value
    if index is not None:
        position = expander.arith(index)
        values = get_array(env, name) or []
        if position is None or not 0 <= position < MAX_ITEMS:
            return
        values += [""] * (position + 1 - len(values))
        values[position] = (values[position] + value) if append else value
        set_array(env, name, values)
        return
    if append:
        old = expander.lookup(name) or ""
        value = value if value.startswith("?") else (f"?{name}" if old.startswith("?")
                                                     else old + value)
    expander.set_scalar(name, value)


def evaluate(cmd: shell.Simple, env: dict[str, str]) -> shell.Simple | None:
    """The command as bash would run it (see the module docstring), or None
    for a builtin that only changes `env` or a command that runs nothing on a
    GPU. A command built without source text (`raw`) is returned as it is."""
    if not cmd.raw:
        return cmd
    ex = _Expander(env)
    lead = len(cmd.assignments)
    assigns, word_raw = cmd.raw[:lead], cmd.raw[lead:]
    if word_raw and word_raw[0].startswith("((") and word_raw[0].endswith("))"):
        ex.arith(word_raw[0][2:-2])  # an arithmetic command: (( g=(g+1)%8 ))
        return None
    words: list[str] = []
    hidden: list[tuple[int, str]] = []
    for raw in word_raw:
        for item in _brace_list(raw):
            for text, what in ex.fields(item):
                if what:
                    hidden.append((len(words), what))
                words.append(text)
    if not words:
        for raw in assigns:
            _assign(raw, env, ex)
        return None
    head = words[0]
    if head in _DECLARE:
        for raw in word_raw[1:]:
            if raw in ("-f", "-F"):
                break
            _assign(raw, env, ex)
        return None
    if head == "let":
        for expr in words[1:]:
            ex.arith(expr)
        return None
    if head == "set":
        if "--" in words:
            set_array(env, "@", words[words.index("--") + 1:])
        elif len(words) > 1 and not words[1].startswith(("-", "+")):
            set_array(env, "@", words[1:])
        return None
    if head == "shift":
        args = get_array(env, "@") or []
        count = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
        set_array(env, "@", args[count:])
        return None
    if head == "unset":
        for name in words[1:]:
            env.pop(name, None)
            env.pop(ARRAY + name, None)
        return None
    if head in ("source", "."):
        if _ENV_SETUP.search(" ".join(words[1:2])):
            return None
        env.setdefault(TAINT, f"'{' '.join(words[:2])}'")
        return None
    if head in ("read", "mapfile", "readarray"):
        for name in (w for w in words[1:] if re.fullmatch(r"[A-Za-z_]\w*", w)):
            env[name] = opaque(f"${name} from '{head}'")
            if head != "read":
                set_array(env, name, [opaque(f"${name} from '{head}'")])
        return None
    if head == "eval":
        text = " ".join(words[1:])
        construct = opaque_in(text) or (hidden[0][1] if hidden else None)
        if construct is not None:
            env.setdefault(TAINT, "'eval'")
            return shell.Simple(words=[opaque(f"eval of {construct}")],
                                hidden=[(0, f"eval of {construct}")])
        return shell.Simple(words=["bash", "-c", text])
    if head in NOT_GPU or head.startswith("[["):
        return None
    assignments = []
    for (name, written), raw in zip(cmd.assignments, assigns, strict=True):
        value = ex.value(raw.partition("=")[2], quotes=True)
        # Unknown: the value as written, which the analysis reads as unknown.
        assignments.append((name, written if value is None else value))
    return shell.Simple(assignments, words, hidden=hidden)


def for_items(cmd: shell.For, env: dict[str, str]) -> list[str] | None:
    """A `for` loop's items as bash expands them (`"${GPUS[@]}"`, `$LIST`,
    `{a,b}`), or None if any is unknown, opaque or a file glob. `$(seq …)`
    and `{a..b}` past MAX_ITEMS stay as written for the analysis to read."""
    if cmd.raw_items is None:
        return cmd.items
    ex = _Expander(dict(env))
    items: list[str] = []
    for raw in cmd.raw_items:
        bare = re.sub(r"'[^']*'|\"[^\"]*\"|\$\{[^}]*\}|\$\(.*\)|\$[*?@#]", "", raw)
        if re.search(r"[*?]|\[.*\]", bare):
            return None  # a file glob: how many files is unknown
        for item in _brace_list(raw):
            for text, what in ex.fields(item):
                if what or opaque_in(text) or (re.search(r"\$[\w{(@*#]", text) and \
                        not re.fullmatch(r"\$\(seq [-\d ]+\)", text)):
                    return None
                items.extend(text.split("\n") if "\n" in text else [text])
        if len(items) > 2 * MAX_ITEMS:
            break
    return items


def c_style(arith_text: str, env: dict[str, str]) -> str:
    """`(( i=0; i<N; i++ ))` with N known, written with literal numbers so the
    analysis reads it; the text unchanged otherwise."""
    m = re.fullmatch(r"\(\(\s*(.*?);(.*?);(.*)\)\)", arith_text, re.S)
    if not m:
        return arith_text
    ex = _Expander(dict(env))
    init = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=(.*)", m.group(1))
    cond = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(<=?)(.*)", m.group(2))
    if not init or not cond or init.group(1) != cond.group(1):
        return arith_text
    first, last = ex.arith(init.group(2), assign=False), ex.arith(cond.group(3), assign=False)
    if first is None or last is None:
        return arith_text
    var = init.group(1)
    return f"(( {var}={first}; {var}{cond.group(2)}{last}; {m.group(3).strip()} ))"


def describe(words: list[str]) -> str:
    text = " ".join(words)
    return text if len(text) <= 60 else text[:57] + "..."


def unreadable_part(cmd: shell.Simple, launcher: bool) -> str | None:
    """What keeps the critic from reading an evaluated command's GPU count:
    its program comes from an opaque or unset-arguments expansion, or (for a
    launcher) one of its own arguments does, before the program it launches."""
    if not cmd.hidden:
        return None
    first = {i: what for i, what in cmd.hidden}
    program = 0
    while program < len(cmd.words) - 1 and cmd.words[program] in (
            "env", "nohup", "time", "exec", "command", "stdbuf"):
        program += 1
    if program in first:
        return f"the command is {first[program]}"
    if not launcher:
        return None
    script = next((i for i, w in enumerate(cmd.words)
                   if i > program and re.search(r"\.(py|sh|bash)$", w)), len(cmd.words))
    for i, what in cmd.hidden:
        if program < i < script:
            return f"its arguments include {what}"
    return None


__all__ = ["SEP", "TAINT", "arith", "c_style", "evaluate", "expand", "for_items",
           "opaque", "opaque_in", "unreadable_part"]
