"""How many GPUs does a launch command keep busy at once?

The answer is a `Launch`: whether work runs on GPUs in parallel, over how
many (None: "all the GPUs the machine has", as `deepspeed` without
`--num_gpus` does), what recognised it, and advisories (warn, not deny).

Concurrency comes from two places:
- launchers that fan out themselves: torchrun, accelerate, deepspeed, vLLM and
  SGLang parallel sizes, srun, xargs -P, GNU parallel -j, `--num-shards N`
  without a shard id;
- background streams (`cmd &`, loops whose body backgrounds a command), each
  pinned to devices by CUDA_VISIBLE_DEVICES or `--device cuda:N`. Loops are
  unrolled against their items so `for i in 0 0 1 1` pins two GPUs.
"""

from __future__ import annotations

import ast
import itertools
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from critics import launchers, shell, shell_expand

# The largest count the critic expands: loop items, seq and brace ranges, GNU
# parallel slots, launcher sizes. A node has at most 8-16 GPUs and a phase at
# most 8, so 4096 is far past any count that could fill one; above it a count
# is read as OVER ("more than MAX_COUNT") without being expanded.
MAX_COUNT = launchers.MAX_COUNT
OVER = launchers.OVER
# Work budget for one launch: characters of command words visited while
# unrolling loops and `bash -c` scripts, plus VISIT_COST per command and loop
# pass (their fixed cost, tens of microseconds). About two seconds of work at
# most; real launches use a few thousand. Past it the launch is unreadable,
# not judged on a part.
MAX_WORK = 4_000_000
VISIT_COST = 64
MAX_BASH_C_DEPTH = 4
# Numbers with more digits than this are clamped: a range to 10**18 is as
# unrolled as one to 10**26, and int() of a 5000-digit string raises.
MAX_DIGITS = 18
ALL = "*all*"  # device marker: every GPU on the machine
MANY = "*over*"  # device marker: more GPUs than MAX_COUNT
UNPINNED = 0  # fan-out count: parallel workers that all land on one GPU
# Launcher counts GNU parallel reads relative to the CPU count (-j +2, -j -1,
# -j 50%): the machine decides, like an unknown variable.
_RELATIVE_JOBS = re.compile(r"[-+]\d+|\d+(\.\d+)?%")


class Unreadable(Exception):
    """A construct the critic cannot evaluate (a malformed count, a launch too
    big to unroll): the whole launch gets an `unreadable-launch` verdict."""

    def __init__(self, construct: str) -> None:
        super().__init__(construct)
        self.construct = construct


@dataclass
class Launch:
    parallel: bool
    gpus: int | None  # GPUs kept busy at once; None means all of them
    how: str  # what made it parallel (or why not), for messages
    warnings: list[str] = field(default_factory=list)
    model_split: bool = False
    syntax_error: str | None = None
    unreadable: str | None = None  # the construct the critic could not evaluate
    # Device ids the launch pins that a machine of the phase's width lacks;
    # they are not counted among the GPUs kept busy.
    missing: tuple[str, ...] = ()


def count_text(count: int) -> str:
    """A count for messages: OVER reads as "more than 4096"."""
    return f"more than {MAX_COUNT}" if count > MAX_COUNT else str(count)


def small_int(text: str) -> int | None:
    """A plain ASCII decimal count, at most OVER; None if `text` is not one.
    `str.isdigit` accepts '²' and int() refuses it, so digits are ASCII only."""
    if not (text.isascii() and text.isdigit()):
        return None
    digits = text.lstrip("0")
    if not digits:
        return 0
    return min(int(digits), OVER) if len(digits) <= 5 else OVER


def _bounded_int(text: str) -> int | None:
    """A signed decimal for range ends, clamped to ±10**MAX_DIGITS."""
    sign = -1 if text.startswith("-") else 1
    digits = text.removeprefix("-").removeprefix("+")
    if not (digits.isascii() and digits.isdigit()):
        return None
    digits = digits.lstrip("0") or "0"
    return sign * (int(digits) if len(digits) <= MAX_DIGITS else 10**MAX_DIGITS)


# ---- expansion -------------------------------------------------------------

_ARITH_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.FloorDiv: operator.floordiv, ast.Div: operator.floordiv,
              ast.Mod: operator.mod}


_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1}}}")


def _arith(expr: str, env: dict[str, str]) -> int | None:
    """Evaluate shell arithmetic over integers; None if it uses anything unknown."""
    text = re.sub(r"\$\{?([A-Za-z_]\w*)\}?", r"\1", expr)
    text = re.sub(r"[A-Za-z_]\w*", lambda m: env.get(m.group(0), "?"), text)
    if "?" in text or len(text) > 200 or _LONG_NUMBER.search(text):
        return None

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH_OPS:
            right = ev(node.right)
            if isinstance(node.op, ast.FloorDiv | ast.Div | ast.Mod) and right == 0:
                raise ZeroDivisionError
            return _ARITH_OPS[type(node.op)](ev(node.left), right)
        raise ValueError("unsupported")

    try:
        value = ev(ast.parse(text.replace("/", "//"), mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError):
        return None
    # Large values stay numbers (a count over MAX_COUNT reads as OVER);
    # astronomically large ones are unknown.
    return value if abs(value) < 10**MAX_DIGITS else None


def expand(word: str, env: dict[str, str]) -> str | None:
    """Expand variables, arithmetic and parameter expansions in a word; None
    if something is unknown (critics.shell_expand)."""
    return shell_expand.expand(word, env)


@dataclass
class Items:
    """A loop's values: literal words and integer ranges, kept lazy so that
    `{0..999999999}` is three numbers, not a billion strings."""

    segments: list[range | list[str]] = field(default_factory=list)

    def size(self) -> int:
        # Range ends are clamped to 10**MAX_DIGITS, so len() cannot overflow.
        return sum(len(seg) for seg in self.segments)

    def window(self, start: int, stop: int) -> Iterator[str]:
        values = itertools.chain.from_iterable(self.segments)
        return (str(v) for v in itertools.islice(values, start, stop))


def _span(first: int, last: int, step: int) -> range:
    return range(first, last + (1 if step > 0 else -1), step)


def _seq_values(args: list[str]) -> range | None:
    nums = [_bounded_int(a) for a in args]
    if any(n is None for n in nums):
        return None  # seq 1.5, seq 1e3: not integers the critic unrolls
    if len(nums) == 1:
        first, step, last = 1, 1, nums[0]
    elif len(nums) == 2:
        first, step, last = nums[0], 1, nums[1]
    elif len(nums) == 3:
        first, step, last = nums
    else:
        return None
    if step == 0:
        return None
    return _span(first, last, step)  # type: ignore[arg-type]


def loop_items(words: list[str], env: dict[str, str]) -> Items | None:
    """The values a `for` loop iterates over, or None when unknowable."""
    items = Items()
    for word in words:
        brace = re.fullmatch(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?\}", word)
        if brace:
            a, b = _bounded_int(brace.group(1)), _bounded_int(brace.group(2))
            step = abs(_bounded_int(brace.group(3) or "1") or 1) or 1
            items.segments.append(_span(a, b, step if a <= b else -step))  # type: ignore[arg-type]
            continue
        seq = re.fullmatch(r"\$\(\s*seq\s+(.*?)\s*\)", word)
        if seq:
            args = [expand(a, env) for a in seq.group(1).split()]
            if any(a is None for a in args):
                return None
            values = _seq_values([a for a in args if a is not None])
            if values is None:
                return None
            items.segments.append(values)
            continue
        value = expand(word, env)
        if value is None:
            return None
        items.segments.append(value.split())
    return items


def _c_style_items(arith: str) -> Items | None:
    """`for (( i=0; i<8; i++ ))` -> 0, ..., 7 for the common shapes."""
    m = re.search(r"([A-Za-z_]\w*)\s*=\s*(\d+)\s*;\s*\1\s*(<=?)\s*(\d+)", arith)
    if not m:
        return None
    first, last = _bounded_int(m.group(2)), _bounded_int(m.group(4))
    if first is None or last is None:
        return None
    last -= m.group(3) == "<"
    return Items([range(first, max(first, last + 1))])


def _c_style_var(arith: str) -> str:
    match = re.search(r"([A-Za-z_]\w*)\s*=", arith)
    return match.group(1) if match else ""


# ---- launchers -------------------------------------------------------------

def _flag(words: list[str], *names: str) -> str | None:
    """The value of the last `--name V` / `--name=V` / `-nV` in words."""
    found = None
    for i, word in enumerate(words):
        for name in names:
            if word == name and i + 1 < len(words):
                found = words[i + 1]
            elif word.startswith(name + "="):
                found = word[len(name) + 1:]
            elif len(name) == 2 and name[0] == "-" and word.startswith(name) and \
                    word[2:].isascii() and word[2:].isdigit():
                found = word[2:]
    return found


def _count(value: str | None, env: dict[str, str], default: int | None, flag: str = "",
           relative: re.Pattern[str] | None = None) -> int | None:
    """A launcher's count: an int (OVER past MAX_COUNT), or None when the
    launcher decides ("auto", "gpu", an unknown variable: it fills the machine).
    A number the launcher would reject or misread (-2, 1e26, 0x10, 3.5, '²')
    raises Unreadable naming `flag value`."""
    if value is None:
        return default
    construct = shell_expand.opaque_in(value)
    if construct is not None:
        raise Unreadable(f"{flag} is {construct}")
    expanded = expand(value, env)
    if expanded is None:
        return None
    count = small_int(expanded)
    if count is not None:
        return count
    if relative is not None and relative.fullmatch(expanded):
        return None
    if re.match(r"[-+.]?\d", expanded) or any(ch.isdigit() for ch in expanded[:1]):
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise Unreadable(f"{flag} {shown}".strip() + " (not a whole number of processes)")
    return None


def _program(words: list[str]) -> list[str]:
    """Drop wrappers (env, nohup, time, uv/poetry run) to reach the program."""
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("env", "nohup", "time", "exec", "command", "stdbuf") or \
                shell._is_assignment(word):
            i += 1
        elif word in ("uv", "poetry", "pipenv", "hatch") and i + 1 < len(words) and \
                words[i + 1] == "run":
            i += 2
        elif word.startswith("-") and i > 0 and words[i - 1] in ("env", "time", "stdbuf"):
            i += 1
        else:
            break
    return words[i:]


def recognise(words: list[str], env: dict[str, str],
              families: launchers.Families | None = None) -> launchers.Found | None:
    """The launcher family that fans this command out over GPUs itself, with
    its stated count (None: every GPU it can see) and its own device pins."""
    prog = _program(words)
    if not prog:
        return None
    fams = families if families is not None else launchers.packaged()

    def read(value: str | None, default: int | None, flag: str) -> int | None:
        return _count(value, env, default, flag)

    def text(value: str) -> str | None:
        return expand(value, env)

    return fams.recognise(prog, env, read, text)


def launcher(words: list[str], env: dict[str, str],
             families: launchers.Families | None = None) -> tuple[str, int | None] | None:
    """(name, GPU count) if the command fans out over GPUs itself, else None.
    A count of None means it uses every GPU the machine has."""
    found = recognise(words, env, families)
    return (found.name, found.count) if found is not None else None


def _model_split(words: list[str], families: launchers.Families | None = None) -> bool:
    return (families if families is not None else launchers.packaged()).split(words)


# ---- the walk ----------------------------------------------------------------

@dataclass
class _Stream:
    devices: set[str] = field(default_factory=set)


@dataclass
class _State:
    streams: list[_Stream] = field(default_factory=list)  # background streams
    foreground: _Stream = field(default_factory=_Stream)
    fanouts: list[tuple[str, int | None]] = field(default_factory=list)
    launchers: list[tuple[str, int | None]] = field(default_factory=list)
    single_process_multi: bool = False
    model_split: bool = False
    backgrounded: bool = False
    waited: bool = False
    unknown_serial: int = 0
    unknown_id: int = 0
    unpinned_background: int = 0
    over: bool = False  # background workers pinned to more than MAX_COUNT GPUs
    work: int = 0  # characters visited so far, against MAX_WORK
    scripts: dict[str, shell.Seq | None] = field(default_factory=dict)  # bash -c, parsed once
    families: launchers.Families | None = None
    width: int | None = None
    pinned: set[str] = field(default_factory=set)  # device ids the launch names literally
    capped: list[tuple[str, int]] = field(default_factory=list)  # launchers pins narrow
    opaque: list[str] = field(default_factory=list)  # scripts the critic cannot see into

    def charge(self, cost: int) -> None:
        self.work += cost
        if self.work > MAX_WORK:
            raise Unreadable(f"loops that unroll to more than {MAX_WORK} characters of commands")

    def background_devices(self) -> set[str]:
        return set().union(*(s.devices for s in self.streams))


def _devices_of(value: str | None, state: _State) -> set[str]:
    if value is None:
        state.unknown_id += 1
        return {f"?{state.unknown_id}"}
    devices = {d.strip() for d in value.split(",") if d.strip()} or {"0"}
    state.pinned |= devices
    return devices


def _ordered(devices: set[str] | list[str]) -> list[str]:
    """Device ids in the order a launcher hands them to its local ranks."""
    return sorted(devices, key=lambda d: (0, int(d), d) if d.isdigit() and len(d) < 8
                  else (1, 0, d))


def _launcher_devices(found: launchers.Found, cvd: str | None,
                      state: _State) -> set[str] | None:
    """The GPUs a launcher keeps busy when something pins it: its own device
    flags (deepspeed --include, paddle --gpus), else CUDA_VISIBLE_DEVICES,
    less --exclude, and at most its count of them. None: nothing pins it."""
    visible: list[str] | None = None
    if found.devices is not None:
        visible = _ordered(_devices_of(",".join(found.devices), state))
    elif cvd is not None and not cvd.startswith("?") and found.pinned_by_env:
        visible = _ordered(_devices_of(cvd, state))
    if found.exclude:
        state.pinned |= set(found.exclude)
        if visible is None and state.width is not None:
            visible = [str(d) for d in range(state.width)]
        if visible is not None:
            visible = [d for d in visible if d not in found.exclude]
    if visible is None:
        return None
    return set(visible if found.count is None else visible[:found.count])


_CVD = re.compile(r"CUDA_VISIBLE_DEVICES=(\$\(\(.*?\)\)|\S+)")


_PINNED = re.compile(r"CUDA_VISIBLE_DEVICES|--device|--gpu|cuda:")


def _fanout(prog: list[str], env: dict[str, str],
            state: _State) -> tuple[str, int | None] | None:
    found = _fanout_count(prog, env, state)
    if found is None:
        return None
    # Like unpinned background workers, unpinned fan-out workers share GPU 0:
    # parallel, but over one GPU.
    serial = found[1] is not None and found[1] < 2
    if not serial and not _PINNED.search(" ".join(prog[1:])):
        return f"{found[0]} workers that are not pinned to distinct GPUs (set "\
               "CUDA_VISIBLE_DEVICES per worker)", UNPINNED
    return found


def _slot_devices(expr: str, count: int, env: dict[str, str], state: _State) -> int | None:
    """Distinct values of a CUDA_VISIBLE_DEVICES expression over parallel's
    slots 1…count; None if one is unknown. Past MAX_COUNT slots it reads a
    second window: an expression that still yields new devices there spans
    more GPUs than any machine (OVER); one that repeats (`{%} % 4`) does not."""
    def values(first: int, last: int) -> set[str | None]:
        state.charge((last - first + 1) * len(expr))
        return {expand(expr.replace("{%}", str(slot)), env) for slot in range(first, last + 1)}

    head = values(1, min(count, MAX_COUNT))
    if count > MAX_COUNT:
        tail = values(MAX_COUNT + 1, min(count, 2 * MAX_COUNT))
        if None not in tail and not tail <= head:
            return OVER
        head |= tail
    return None if None in head else len(head)


def _fanout_count(prog: list[str], env: dict[str, str],
                  state: _State) -> tuple[str, int | None] | None:
    base = prog[0].rsplit("/", 1)[-1] if prog else ""
    if base == "xargs":
        procs = _flag(prog, "-P", "--max-procs")
        if procs is None:
            return None
        count = _count(procs, env, None, "xargs -P")
        inner = " ".join(prog[1:])
        cvd = _CVD.search(inner)
        if cvd and "{}" not in cvd.group(1) and "$" not in cvd.group(1):
            return "xargs -P", len(_devices_of(cvd.group(1), _State()))
        return "xargs -P", None if count == 0 else count
    if base == "parallel":
        jobs = _flag(prog, "-j", "--jobs", "-P")
        count = _count(jobs, env, None, "parallel -j", _RELATIVE_JOBS) \
            if jobs is not None else None
        if count == 0:
            count = None
        inner = " ".join(w for w in prog[1:] if w != ":::")
        cvd = _CVD.search(inner)
        if cvd and count is not None:
            expr = cvd.group(1)
            if "{%}" in expr:
                distinct = _slot_devices(expr, count, env, state)
                if distinct is not None:
                    return "parallel -j", distinct
            elif "{" not in expr and "$" not in expr:
                return "parallel -j", len(_devices_of(expr, _State()))
        return "parallel -j", count
    return None


def _simple(cmd: shell.Simple, env: dict[str, str], state: _State, stream: _Stream,
            depth: int) -> None:
    state.charge(VISIT_COST + sum(len(w) for w in cmd.words) +
                 sum(len(v) for _, v in cmd.assignments))
    # Bash expansion first: arrays, split variables, builtins that set variables.
    evaluated = shell_expand.evaluate(cmd, env)
    if evaluated is None:
        return
    cmd = evaluated
    state.charge(sum(len(w) for w in cmd.words))
    local = dict(env)
    for name, value in cmd.assignments:
        expanded = expand(value, env)
        local[name] = expanded if expanded is not None else f"?{name}"
    words = [w.replace("{width}", env.get("__width__", "{width}")) for w in cmd.words]
    if not words:
        env.update(local)  # a bare assignment sets the variable for what follows
        return
    head = words[0]
    if head == "export":
        for word in words[1:]:
            if shell._is_assignment(word):
                name, _, value = word.partition("=")
                expanded = expand(value, env)
                env[name] = expanded if expanded is not None else f"?{name}"
        return
    if head in ("wait", "kill"):
        # `wait` joins the workers; `kill %1` / `kill $!` ends a background server
        # the foreground job was using. Either way nothing is left running.
        state.waited = True
        return
    prog = _program(words)
    if prog and prog[0] in ("bash", "sh", "zsh") and "-c" in prog[1:-1] and \
            depth < MAX_BASH_C_DEPTH:
        tree = _script(prog[prog.index("-c") + 1], state)
        if tree is not None:
            _seq(tree, local, state, stream, depth + 1)
        return
    hidden = shell_expand.unreadable_part(cmd, launcher=False)
    if hidden is not None:
        raise Unreadable(hidden)
    fan = _fanout(prog, local, state)
    if fan or launcher(words, local):
        hidden = shell_expand.unreadable_part(cmd, launcher=True)
        if hidden is not None:
            raise Unreadable(f"'{shell_expand.describe(words[:3])}': {hidden}")
    if fan:
        state.fanouts.append(fan)
        return
    if _model_split(words, state.families):
        state.model_split = True
    found = recognise(words, local, state.families)
    cvd = local.get("CUDA_VISIBLE_DEVICES")
    pin = shell_expand.opaque_in(cvd)
    if pin is not None and stream is not state.foreground:
        raise Unreadable(f"a background worker's CUDA_VISIBLE_DEVICES is {pin}")
    if found and found.opaque is not None:
        state.opaque.append(found.opaque)
        return
    if found:
        count, name = found.count, found.name
        pinned = _launcher_devices(found, cvd, state)
        if pinned is not None:
            # Device arithmetic: the GPUs busy are the pins ∩ the launcher's count.
            devices = pinned
            count = len(pinned - set(_missing(pinned, state.width)))
            if found.count is not None and found.count >= 2:
                # Parallel processes, but over only the GPUs the pins leave it.
                by = "its device flags" if found.devices is not None else \
                    "CUDA_VISIBLE_DEVICES"
                name = f"{found.name} pinned to GPUs {','.join(_ordered(pinned))} by {by}"
                state.capped.append((name, count))
        elif count is None:
            devices = {ALL}
        elif count > MAX_COUNT:
            devices = {MANY}
        else:
            state.charge(count)
            devices = {str(d) for d in range(count)}
        state.launchers.append((name, count))
        stream.devices |= devices
        return
    if cvd is not None:
        devices = _devices_of(None if cvd.startswith("?") else cvd, state)
        if len(devices) > 1:
            state.single_process_multi = True
        stream.devices |= devices
        return
    device = _flag(words, "--device", "--gpu", "--gpu-id", "--gpu_id", "--device-id",
                   "--device_id", "--cuda-device")
    if device is not None:
        value = expand(device.removeprefix("cuda:"), local)
        stream.devices |= _devices_of(value, state)
        return
    if stream is not state.foreground:
        state.unpinned_background += 1
    stream.devices.add("0")  # an unpinned process computes on the first GPU


def _script(text: str, state: _State) -> shell.Seq | None:
    """A `bash -c` script, parsed once however often a loop reaches it. One
    that does not parse adds nothing we can count; one past a reading bound
    makes the whole launch unreadable."""
    if text not in state.scripts:
        state.charge(len(text))
        try:
            state.scripts[text] = shell.parse(text)
        except shell.LaunchTooComplex as exc:
            raise Unreadable(f"a 'bash -c' script {exc}") from exc
        except shell.ShellSyntaxError:
            state.scripts[text] = None
    return state.scripts[text]


def _unroll(items: Items, var: str, body: shell.Seq, env: dict[str, str], state: _State,
            stream: _Stream, depth: int) -> None:
    """Walk a loop body once per item. Past MAX_COUNT items, walk a second
    window of MAX_COUNT: if it pins background workers to GPUs the first did
    not, the loop spans more GPUs than any machine has; if not (`$((i % 8))`),
    the first window has seen them all."""
    # One environment across passes, as in bash: a counter the body advances
    # (`((g=(g+1)%8))`, `i=$((i+1))`) carries into the next pass.
    loop_env = dict(env)

    def walk(first: int, last: int) -> None:
        for item in items.window(first, last):
            state.charge(VISIT_COST)
            loop_env[var] = item
            _seq(body, loop_env, state, stream, depth)

    walk(0, MAX_COUNT)
    if items.size() > MAX_COUNT:
        before = len(state.background_devices())
        walk(MAX_COUNT, 2 * MAX_COUNT)
        if len(state.background_devices()) > before:
            state.over = True


def _command(cmd: shell.Command, env: dict[str, str], state: _State, stream: _Stream,
             depth: int) -> None:
    if isinstance(cmd, shell.Simple):
        _simple(cmd, env, state, stream, depth)
    elif isinstance(cmd, shell.For):
        words = shell_expand.for_items(cmd, env)
        items = (_c_style_items(shell_expand.c_style(cmd.arith or "", env)) if cmd.items is None
                 else None if words is None else loop_items(words, env))
        if items is None:
            # Unknown iteration: walk the body once with the variable unknown.
            state.unknown_serial += 1
            before = (len(state.streams), state.unpinned_background)
            _seq(cmd.body, {**env, cmd.var: f"?{cmd.var}"}, state, stream, depth)
            _unknown_fanout(state, before, "a 'for' loop over "
                            f"{shell_expand.describe(cmd.raw_items or [cmd.arith or ''])}")
            return
        var = cmd.var or _c_style_var(cmd.arith or "")
        _unroll(items, var, cmd.body, env, state, stream, depth)
    elif isinstance(cmd, shell.Loop):
        before = (len(state.streams), state.unpinned_background)
        _seq(cmd.cond, env, state, stream, depth)
        _seq(cmd.body, dict(env), state, stream, depth)
        _unknown_fanout(state, before, f"a '{'until' if cmd.until else 'while'}' loop")
    elif isinstance(cmd, shell.If):
        for part in cmd.parts:
            _seq(part, env, state, stream, depth)
    elif isinstance(cmd, shell.Group):
        _seq(cmd.body, dict(env) if cmd.subshell else env, state, stream, depth)


def _unknown_fanout(state: _State, before: tuple[int, int], loop: str) -> None:
    """A loop the critic cannot unroll that starts background workers pinned
    to GPUs: how many GPUs they cover is unknown, not one. (Unpinned workers
    all share the first GPU, however many there are.)"""
    streams, unpinned = before
    if len(state.streams) - streams > state.unpinned_background - unpinned:
        raise Unreadable(f"{loop} that starts background workers pinned to GPUs: how many "
                         "it starts is unknown")


def _seq(seq: shell.Seq, env: dict[str, str], state: _State, stream: _Stream,
         depth: int) -> None:
    for chain, background in seq.items:
        target = stream
        if background:
            state.backgrounded = True
            target = _Stream()
            state.streams.append(target)
        for pipeline in chain:
            for cmd in pipeline.commands:
                # A backgrounded compound runs in a subshell: its variables stay there.
                _command(cmd, dict(env) if background else env, state, target, depth)


def analyze(launch: str, width: int | None = None,
            families: launchers.Families | None = None) -> Launch:
    """Analyze a launch command. `{width}` is read as `width` when given;
    `families` are the launcher families (default: the packaged ones)."""
    text = launch.replace("{width}", str(width)) if width is not None else launch
    try:
        tree = shell.parse(text)
    except shell.LaunchTooComplex as exc:
        return _unreadable(f"a launch {exc}")
    except (shell.ShellSyntaxError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, shell.ShellSyntaxError) else "nested too deeply"
        if width == 1:
            # One GPU: nothing can idle, whatever the launch runs.
            return Launch(False, 1, f"the launch command does not parse as shell ({message})",
                          syntax_error=message)
        launch = _unreadable(f"a launch that does not parse as shell ({message})")
        launch.syntax_error = message
        return launch
    state = _State(families=families, width=width)
    env = {"__width__": str(width)} if width is not None else {}
    try:
        _seq(tree, env, state, state.foreground, 0)
    except Unreadable as exc:
        return _unreadable(exc.construct)
    except RecursionError:
        return _unreadable("a launch nested too deeply to analyze")
    return _verdict(state)


def _unreadable(construct: str) -> Launch:
    return Launch(False, 1, f"the critic cannot read {construct}", unreadable=construct)


def _missing(devices: set[str], width: int | None) -> list[str]:
    """Device ids a machine of `width` GPUs does not have (it has 0…width-1)."""
    if width is None:
        return []
    ids = [d for d in devices if d.isascii() and d.isdigit()]
    return sorted((d for d in ids if len(d) > 4 or int(d) >= width),
                  key=lambda d: (len(d.lstrip("0")), d.lstrip("0")))


def _verdict(state: _State) -> Launch:
    launch = _judge(state)
    launch.missing = tuple(_missing(state.pinned, state.width))
    # A script the critic cannot see into may be what fills the GPUs: unless
    # what it can read already fills the width (or the width is 1, where
    # nothing can idle), it says it cannot read the launch.
    full = launch.parallel and (launch.gpus is None or
                                (state.width is not None and launch.gpus >= state.width))
    if state.opaque and not full and state.width != 1:
        script = state.opaque[0]
        return _unreadable(f"'{script}', a script it cannot see into (write the commands "
                           "that start the GPU work in the launch itself)")
    return launch


def _judge(state: _State) -> Launch:
    warnings: list[str] = []
    missing = set(_missing(state.pinned, state.width))
    if state.backgrounded and not state.waited:
        warnings.append("background workers are started with '&' but never waited for: "
                        "add 'wait' so the job ends when the work does")
    counts: list[tuple[str, int | None]] = []
    counts += [(n, c) for n, c in state.launchers if c is None or c >= 2]
    counts += [(n, c) for n, c in state.fanouts if c is None or c >= 2]
    counts += [(n, 1) for n, c in state.fanouts if c == UNPINNED]
    counts += [(n, c) for n, c in state.capped if c < 2]
    if state.streams:
        devices = (state.background_devices() | state.foreground.devices) - missing
        if ALL in devices:
            counts.append(("background workers", None))
        elif state.over or MANY in devices:
            counts.append(("background workers pinned to distinct GPUs", OVER))
        elif len(devices) >= 2:
            counts.append(("background workers pinned to distinct GPUs", len(devices)))
        elif state.unpinned_background >= 2:
            counts.append(("background workers that are not pinned to distinct GPUs (set "
                           "CUDA_VISIBLE_DEVICES per worker)", 1))
    if counts:
        if any(c is None for _, c in counts):
            name = next(n for n, c in counts if c is None)
            return Launch(True, None, name, warnings, state.model_split)
        name, count = max(counts, key=lambda nc: nc[1] or 0)
        return Launch(True, count, name, warnings, state.model_split)
    if state.model_split:
        how = "device_map-style model splitting runs one process over the GPUs, not parallel work"
    elif state.single_process_multi:
        how = "one process sees several GPUs through CUDA_VISIBLE_DEVICES but runs no parallel work"
    elif state.streams:
        how = "background workers all compute on the same GPU"
    elif state.unknown_serial or any(c == 1 for _, c in state.launchers + state.fanouts):
        how = "work runs one process at a time"
    else:
        how = "a single process runs the work serially"
    used = state.background_devices() | state.foreground.devices
    busy = 0 if missing and used and used <= missing else 1  # pinned only to absent GPUs
    return Launch(False, busy, how, warnings, state.model_split)
