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
import contextlib
import operator
import re
from dataclasses import dataclass, field

from critics import shell

MAX_ITERATIONS = 512
ALL = "*all*"  # device marker: every GPU on the machine
UNPINNED = 0  # fan-out count: parallel workers that all land on one GPU


@dataclass
class Launch:
    parallel: bool
    gpus: int | None  # GPUs kept busy at once; None means all of them
    how: str  # what made it parallel (or why not), for messages
    warnings: list[str] = field(default_factory=list)
    model_split: bool = False
    syntax_error: str | None = None


# ---- expansion -------------------------------------------------------------

_ARITH_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.FloorDiv: operator.floordiv, ast.Div: operator.floordiv,
              ast.Mod: operator.mod}


def _arith(expr: str, env: dict[str, str]) -> int | None:
    """Evaluate shell arithmetic over integers; None if it uses anything unknown."""
    text = re.sub(r"\$\{?([A-Za-z_]\w*)\}?", r"\1", expr)
    text = re.sub(r"[A-Za-z_]\w*", lambda m: env.get(m.group(0), "?"), text)
    if "?" in text or len(text) > 200:
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
    return value if abs(value) < 10**6 else None


def expand(word: str, env: dict[str, str]) -> str | None:
    """Expand variables and arithmetic in a word; None if something is unknown."""
    unknown = False

    def arith(match: re.Match[str]) -> str:
        nonlocal unknown
        value = _arith(match.group(1), env)
        if value is None:
            unknown = True
            return "?"
        return str(value)

    def var(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group(1) or match.group(2)
        if name not in env:
            unknown = True
            return "?"
        return env[name]

    text = re.sub(r"\$\(\((.*?)\)\)", arith, word)
    text = re.sub(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)", var, text)
    if "$(" in text or "${" in text or "`" in text:
        unknown = True
    return None if unknown else text


def _seq_values(args: list[str]) -> list[str] | None:
    try:
        nums = [int(a) for a in args]
    except ValueError:
        return None
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
    values = range(first, last + (1 if step > 0 else -1), step)
    return [str(v) for v in values] if len(values) <= MAX_ITERATIONS else None


def loop_items(words: list[str], env: dict[str, str]) -> list[str] | None:
    """The values a `for` loop iterates over, or None when unknowable."""
    items: list[str] = []
    for word in words:
        brace = re.fullmatch(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?\}", word)
        if brace:
            a, b = int(brace.group(1)), int(brace.group(2))
            step = abs(int(brace.group(3) or 1)) or 1
            rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
            items.extend(str(v) for v in rng)
            continue
        seq = re.fullmatch(r"\$\(\s*seq\s+(.*?)\s*\)", word)
        if seq:
            args = [expand(a, env) for a in seq.group(1).split()]
            if any(a is None for a in args):
                return None
            values = _seq_values([a for a in args if a is not None])
            if values is None:
                return None
            items.extend(values)
            continue
        value = expand(word, env)
        if value is None:
            return None
        items.extend(value.split())
        if len(items) > MAX_ITERATIONS:
            return None
    return items


def _c_style_items(arith: str) -> list[str] | None:
    """`for (( i=0; i<8; i++ ))` -> ["0", ..., "7"] for the common shapes."""
    m = re.search(r"([A-Za-z_]\w*)\s*=\s*(\d+)\s*;\s*\1\s*(<=?)\s*(\d+)", arith)
    if not m:
        return None
    first, last = int(m.group(2)), int(m.group(4)) - (m.group(3) == "<")
    if last - first + 1 > MAX_ITERATIONS:
        return None
    return [str(v) for v in range(first, last + 1)]


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
                    word[2:].isdigit():
                found = word[2:]
    return found


def _has(words: list[str], *names: str) -> bool:
    return any(w == n or w.startswith(n + "=") for w in words for n in names)


def _count(value: str | None, env: dict[str, str], default: int | None) -> int | None:
    if value is None:
        return default
    expanded = expand(value, env)
    if expanded is not None and expanded.isdigit():
        return int(expanded)
    return None  # "auto", "gpu" or an unknown variable: the launcher fills the machine


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


def launcher(words: list[str], env: dict[str, str]) -> tuple[str, int | None] | None:
    """(name, GPU count) if the command fans out over GPUs itself, else None.
    A count of None means it uses every GPU the machine has."""
    prog = _program(words)
    if not prog:
        return None
    base = prog[0].rsplit("/", 1)[-1]
    module = prog[prog.index("-m") + 1] if "-m" in prog[:-1] else ""
    if base == "torchrun" or module in ("torch.distributed.run", "torch.distributed.launch"):
        return "torchrun", _count(_flag(prog, "--nproc_per_node", "--nproc-per-node"), env, 1)
    if base == "accelerate" and "launch" in prog[1:3]:
        num = _flag(prog, "--num_processes", "--num-processes")
        if num is None and not _has(prog, "--multi_gpu", "--multi-gpu"):
            return "accelerate launch", None  # from the accelerate config: trust it
        return "accelerate launch", _count(num, env, None)
    if base == "deepspeed":
        return "deepspeed", _count(_flag(prog, "--num_gpus", "--num-gpus"), env, None)
    if base == "srun":
        gpus = _flag(prog, "--gpus", "-G", "--gpus-per-node")
        tasks = _flag(prog, "--ntasks", "-n", "--ntasks-per-node")
        return "srun", _count(gpus if gpus is not None else tasks, env, 1)
    tp = _flag(prog, "--tensor-parallel-size", "-tp", "--tp", "--tp-size")
    pp = _flag(prog, "--pipeline-parallel-size", "-pp")
    dp = _flag(prog, "--data-parallel-size", "-dp", "--dp", "--dp-size")
    if tp or pp or dp:
        sizes = [_count(v, env, 1) for v in (tp, pp, dp)]
        engine = "SGLang" if "sglang" in module or base == "sglang" else "vLLM"
        if any(s is None for s in sizes):
            return f"{engine} parallel sizes", None
        return f"{engine} tp×pp×dp", sizes[0] * sizes[1] * sizes[2]  # type: ignore[operator]
    shards = _flag(prog, "--num-shards", "--num_shards", "--n-shards", "--nshards")
    if shards is not None and not _has(prog, "--shard-id", "--shard_id", "--shard-index",
                                       "--shard_index", "--shard", "--rank"):
        return "--num-shards", _count(shards, env, None)
    return None


def _model_split(words: list[str]) -> bool:
    joined = " ".join(words).replace("_", "-").lower()
    return bool(re.search(r"device-map[= ]+['\"]?(auto|balanced|sequential)", joined))


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


def _devices_of(value: str | None, state: _State) -> set[str]:
    if value is None:
        state.unknown_id += 1
        return {f"?{state.unknown_id}"}
    return {d.strip() for d in value.split(",") if d.strip()} or {"0"}


_CVD = re.compile(r"CUDA_VISIBLE_DEVICES=(\$\(\(.*?\)\)|\S+)")


_PINNED = re.compile(r"CUDA_VISIBLE_DEVICES|--device|--gpu|cuda:")


def _fanout(prog: list[str], env: dict[str, str]) -> tuple[str, int | None] | None:
    found = _fanout_count(prog, env)
    if found is None:
        return None
    # Like unpinned background workers, unpinned fan-out workers share GPU 0:
    # parallel, but over one GPU.
    serial = found[1] is not None and found[1] < 2
    if not serial and not _PINNED.search(" ".join(prog[1:])):
        return f"{found[0]} workers that are not pinned to distinct GPUs (set "\
               "CUDA_VISIBLE_DEVICES per worker)", UNPINNED
    return found


def _fanout_count(prog: list[str], env: dict[str, str]) -> tuple[str, int | None] | None:
    base = prog[0].rsplit("/", 1)[-1] if prog else ""
    if base == "xargs":
        procs = _flag(prog, "-P", "--max-procs")
        if procs is None:
            return None
        count = _count(procs, env, None)
        inner = " ".join(prog[1:])
        cvd = _CVD.search(inner)
        if cvd and "{}" not in cvd.group(1) and "$" not in cvd.group(1):
            return "xargs -P", len(_devices_of(cvd.group(1), _State()))
        return "xargs -P", None if count == 0 else count
    if base == "parallel":
        jobs = _flag(prog, "-j", "--jobs", "-P")
        count = _count(jobs, env, None) if jobs is not None else None
        if count == 0:
            count = None
        inner = " ".join(w for w in prog[1:] if w != ":::")
        cvd = _CVD.search(inner)
        if cvd and count is not None:
            expr = cvd.group(1)
            if "{%}" in expr:
                values = {expand(expr.replace("{%}", str(slot)), env)
                          for slot in range(1, count + 1)}
                if None not in values:
                    return "parallel -j", len(values)
            elif "{" not in expr and "$" not in expr:
                return "parallel -j", len(_devices_of(expr, _State()))
        return "parallel -j", count
    return None


def _simple(cmd: shell.Simple, env: dict[str, str], state: _State, stream: _Stream,
            depth: int) -> None:
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
    if prog and prog[0] in ("bash", "sh", "zsh") and "-c" in prog[1:-1] and depth < 4:
        inner = prog[prog.index("-c") + 1]
        # An inner script that does not parse adds nothing we can count.
        with contextlib.suppress(shell.ShellSyntaxError, RecursionError):
            _seq(shell.parse(inner), local, state, stream, depth + 1)
        return
    fan = _fanout(prog, local)
    if fan:
        state.fanouts.append(fan)
        return
    if _model_split(words):
        state.model_split = True
    found = launcher(words, local)
    cvd = local.get("CUDA_VISIBLE_DEVICES")
    if found:
        state.launchers.append(found)
        name, count = found
        if cvd is not None:
            devices = _devices_of(None if cvd.startswith("?") else cvd, state)
        elif count is None:
            devices = {ALL}
        else:
            devices = {str(d) for d in range(count)}
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


def _command(cmd: shell.Command, env: dict[str, str], state: _State, stream: _Stream,
             depth: int) -> None:
    if isinstance(cmd, shell.Simple):
        _simple(cmd, env, state, stream, depth)
    elif isinstance(cmd, shell.For):
        items = (_c_style_items(cmd.arith or "") if cmd.items is None
                 else loop_items(cmd.items, env))
        if items is None:
            # Unknown iteration: walk the body once with the variable unknown.
            state.unknown_serial += 1
            _seq(cmd.body, {**env, cmd.var: f"?{cmd.var}"}, state, stream, depth)
            return
        var = cmd.var or _c_style_var(cmd.arith or "")
        for item in items[:MAX_ITERATIONS]:
            _seq(cmd.body, {**env, var: item}, state, stream, depth)
    elif isinstance(cmd, shell.Loop):
        _seq(cmd.cond, env, state, stream, depth)
        _seq(cmd.body, dict(env), state, stream, depth)
    elif isinstance(cmd, shell.If):
        for part in cmd.parts:
            _seq(part, env, state, stream, depth)
    elif isinstance(cmd, shell.Group):
        _seq(cmd.body, dict(env) if cmd.subshell else env, state, stream, depth)


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


def analyze(launch: str, width: int | None = None) -> Launch:
    """Analyze a launch command. `{width}` is read as `width` when given."""
    text = launch.replace("{width}", str(width)) if width is not None else launch
    try:
        tree = shell.parse(text)
    except (shell.ShellSyntaxError, RecursionError) as exc:
        message = str(exc) if isinstance(exc, shell.ShellSyntaxError) else "nested too deeply"
        return Launch(False, 1, f"the launch command does not parse as shell ({message})",
                      syntax_error=message)
    state = _State()
    env = {"__width__": str(width)} if width is not None else {}
    try:
        _seq(tree, env, state, state.foreground, 0)
    except RecursionError:
        return Launch(False, 1, "the launch command is nested too deeply to analyze",
                      syntax_error="nested too deeply")
    return _verdict(state)


def _verdict(state: _State) -> Launch:
    warnings: list[str] = []
    if state.backgrounded and not state.waited:
        warnings.append("background workers are started with '&' but never waited for: "
                        "add 'wait' so the job ends when the work does")
    counts: list[tuple[str, int | None]] = []
    counts += [(n, c) for n, c in state.launchers if c is None or c >= 2]
    counts += [(n, c) for n, c in state.fanouts if c is None or c >= 2]
    counts += [(n, 1) for n, c in state.fanouts if c == UNPINNED]
    if state.streams:
        devices = set().union(*(s.devices for s in state.streams), state.foreground.devices)
        if ALL in devices:
            counts.append(("background workers", None))
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
    return Launch(False, 1, how, warnings, state.model_split)
