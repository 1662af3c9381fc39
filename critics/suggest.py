"""Candidate launch commands for the critic's suggestions.

Each function rewrites a launch as text, keeping the user's own quoting, and
returns None when it cannot do so safely. The rules never print a candidate
blindly: they judge it with the critic first (`rules.first_approving`) and
fall back to prose when none earns APPROVE.
"""

from __future__ import annotations

import itertools
import re
import shlex

from critics import launch as launch_mod
from critics import launchers

PLACEHOLDER = "python your_shard_worker.py"
# Candidates are built from launches up to this long; a longer one gets the
# placeholder worker, so judging candidates stays cheap for hostile input.
MAX_REWRITE_CHARS = 2_000

# Where a launcher states how many processes (or GPUs) it runs, keyed by a
# word that names the launcher in the command.
_COUNT_FLAGS: tuple[tuple[str, str], ...] = (
    (r"torchrun|torch\.distributed\.(?:run|launch)", r"--nproc[-_]per[-_]node"),
    (r"accelerate", r"--num[-_]processes"),
    (r"deepspeed", r"--num[-_]gpus"),
    (r"srun", r"--gpus-per-node|--gpus|-G|--ntasks|-n"),
    (r"xargs", r"-P|--max-procs"),
    (r"parallel", r"-j|--jobs|-P"),
)
_SHARD_ID = re.compile(r"--(?:shard[-_]id|shard[-_]index|shard|rank)\b")
_NUM_SHARDS = r"--(?:num[-_]shards|n-?shards)"
_CVD_WORD = re.compile(r"(?<!\S)CUDA_VISIBLE_DEVICES=\S*\s*")
_SHARD_FLAGS = re.compile(rf"\s+(?:{_NUM_SHARDS}|--shard[-_](?:id|index))(?:=\S+|\s+\S+)")
_DEVICE_FLAG = re.compile(
    r"(--(?:device|gpu|gpu[-_]id|device[-_]id|cuda[-_]device)(?:=|\s+))(cuda:)?\d+\b")


def _set_flag(text: str, flag: str, start: int) -> str | None:
    """Set the first `flag VALUE` / `flag=VALUE` / `-xVALUE` after `start` to {width}."""
    pattern = re.compile(rf"(?<![\w-])({flag})(=|\s+)(\S+)|(?<![\w-])(-[A-Za-z])(\d+)\b")
    for m in pattern.finditer(text, start):
        if m.group(1):
            return f"{text[:m.start(3)]}{{width}}{text[m.end(3):]}"
        if re.fullmatch(flag, m.group(4)):
            return f"{text[:m.start(5)]}{{width}}{text[m.end(5):]}"
    return None


def with_width_count(text: str) -> str | None:
    """The launch with its launcher's count written as {width}
    (`torchrun --nproc_per_node=4` -> `--nproc_per_node={width}`)."""
    if len(text) > MAX_REWRITE_CHARS:
        return None
    for name, flags in _COUNT_FLAGS:
        found = re.search(rf"(?<![\w.-]){name}\b", text)
        if found:
            rewritten = _set_flag(text, flags, found.end())
            if rewritten is not None:
                return rewritten
    if not _SHARD_ID.search(text):
        return _set_flag(text, _NUM_SHARDS, 0)
    return None


def _count_literal(families: launchers.Families | None) -> re.Pattern[str]:
    fams = families if families is not None else launchers.packaged()
    return fams.count_literal  # type: ignore[attr-defined,no-any-return]


def count_rewrites(text: str, families: launchers.Families | None = None,
                   limit: int = 4) -> list[str]:
    """The launch with one of its launcher counts written as {width}, for each
    of the first `limit` counts a launcher family reads (`-np 4`,
    `trainer.n_gpus_per_node=4`, `tensor_parallel_size=2` in --model_args)."""
    if len(text) > MAX_REWRITE_CHARS:
        return []
    out = []
    for m in itertools.islice(_count_literal(families).finditer(text), limit):
        group = next(i for i in range(1, (m.lastindex or 0) + 1) if m.group(i) is not None)
        out.append(f"{text[:m.start(group)]}{{width}}{text[m.end(group):]}")
    return out


def with_width_literals_of(text: str, width: int,
                           families: launchers.Families | None = None) -> str | None:
    """Every launcher count equal to `width` written as {width}, after the
    flags `with_width_literals` knows."""
    out = with_width_literals(text, width) or text
    if len(out) > MAX_REWRITE_CHARS:
        return None

    def put(m: re.Match[str]) -> str:
        group = next(i for i in range(1, (m.lastindex or 0) + 1) if m.group(i) is not None)
        if launch_mod.small_int(m.group(group)) != width:
            return m.group(0)
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        return f"{m.group(0)[:start]}{{width}}{m.group(0)[end:]}"

    out = _count_literal(families).sub(put, out)
    return out if out != text else None


def with_data_parallel(text: str, width: int) -> str | None:
    """A vLLM/SGLang launch whose data-parallel size makes tp × pp × dp = width."""
    if len(text) > MAX_REWRITE_CHARS:
        return None
    sizes = []
    for flag in (r"--tensor-parallel-size|-tp|--tp|--tp-size", r"--pipeline-parallel-size|-pp"):
        m = re.search(rf"(?<![\w-])(?:{flag})(?:=|\s+)(\d+)\b", text)
        sizes.append(launch_mod.small_int(m.group(1)) if m else 1)
    if not sizes[0] and not sizes[1]:
        return None
    per_replica = (sizes[0] or 1) * (sizes[1] or 1)
    if per_replica > width or width % per_replica:
        return None
    dp = str(width // per_replica)
    m = re.search(r"(?<![\w-])(?:--data-parallel-size|-dp|--dp|--dp-size)(?:=|\s+)(\S+)", text)
    if m:
        return f"{text[:m.start(1)]}{dp}{text[m.end(1):]}"
    if not re.search(r"(?<![\w.-])(vllm|sglang)\b", text) or re.search(r"[;&|\n]", text):
        return None
    flag = "--dp" if "sglang" in text else "--data-parallel-size"
    return f"{text.rstrip()} {flag} {dp}"


_DEVICE_CAPS = re.compile(
    r"(?<!\S)(?:export\s+)?CUDA_VISIBLE_DEVICES=\S*(?:\s*;)?\s*"
    r"|\s+--(?:include|exclude)(?:=\S+|\s+\S+)")


def without_pins(text: str) -> str | None:
    """The launch with its device pins (CUDA_VISIBLE_DEVICES, deepspeed's
    --include/--exclude) taken out, so a launcher takes the machine's GPUs
    from 0; None if it has none."""
    if len(text) > MAX_REWRITE_CHARS:
        return None
    out = _DEVICE_CAPS.sub("", text).strip()
    out = re.sub(r"^env\s+(?![-\w]*=|-)", "", out)
    return out if out and out != text.strip() else None


def unpinned(text: str) -> str | None:
    """A single plain command with its own GPU pin and shard flags taken out,
    ready to be run once per GPU; None if it is not one plain command (loops,
    pipes, redirections, substitutions) or is itself a launcher that fans out."""
    if len(text) > MAX_REWRITE_CHARS or re.search(r"[;&|<>\n`]|\$\(", text):
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    if not words or _fans_out(words):
        return None
    # Keeping a `CUDA_VISIBLE_DEVICES=0,1,…` pin next to the loop's `=$i`
    # would let the last one win: every worker would see every GPU.
    command = _CVD_WORD.sub("", text.strip())
    command = _SHARD_FLAGS.sub("", command)
    command = re.sub(r"^env\s+(?![-\w]*=|-)", "", command)  # `env` left with nothing to set
    # Inside a pinned worker its one GPU is cuda:0, whatever the old index was.
    command = _DEVICE_FLAG.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}0", command)
    if "CUDA_VISIBLE_DEVICES" in command or not command.strip():
        return None
    return command.strip()


def _fans_out(words: list[str]) -> bool:
    """Is this command a launcher (torchrun, xargs, bash -c, …)? Run once per
    GPU, it would start several launchers that collide (ports, devices)."""
    try:
        found = launch_mod.launcher(words, {})
    except launch_mod.Unreadable:
        return True
    program = launch_mod._program(words)[:1]
    return found is not None or program in (["xargs"], ["parallel"], ["bash"], ["sh"])


def sharded_loop(command: str, group: int = 1) -> str:
    """One worker per `group` GPUs, each pinned to its own devices and shard."""
    if group <= 1:
        return (f"for i in $(seq 0 $(({{width}}-1))); do CUDA_VISIBLE_DEVICES=$i {command} "
                f"--num-shards {{width}} --shard-id $i & done; wait")
    devices = ",".join(f"$(({group}*i+{k}))" for k in range(group))
    return (f"for i in $(seq 0 $(({{width}}/{group}-1))); do CUDA_VISIBLE_DEVICES={devices} "
            f"{command} --num-shards $(({{width}}/{group})) --shard-id $i & done; wait")


_LITERAL_LAST = re.compile(r"\bseq\s+0\s+(\d+)\b|\{0\.\.(\d+)\}|(i\s*<\s*)(\d+)\b")


def with_width_literals(text: str, width: int) -> str | None:
    """Literal widths written as {width}: counts equal to `width`, `seq 0 N`
    and `{0..N}` with N = width-1, `i < width`."""
    if len(text) > MAX_REWRITE_CHARS:
        return None
    out = text
    for name, flags in _COUNT_FLAGS:
        if re.search(rf"(?<![\w.-]){name}\b", out):
            rewritten = _rewrite_equal(out, flags, width)
            out = rewritten if rewritten is not None else out
    rewritten = _rewrite_equal(out, _NUM_SHARDS, width)
    out = rewritten if rewritten is not None else out

    def last(m: re.Match[str]) -> str:
        if m.group(1) and launch_mod.small_int(m.group(1)) == width - 1:
            return "seq 0 $(({width}-1))"
        if m.group(2) and launch_mod.small_int(m.group(2)) == width - 1:
            return "$(seq 0 $(({width}-1)))"  # brace ranges cannot hold a variable
        if m.group(4) and launch_mod.small_int(m.group(4)) == width:
            return f"{m.group(3)}{{width}}"
        return m.group(0)

    out = _LITERAL_LAST.sub(last, out)
    return out if out != text else None


def _rewrite_equal(text: str, flags: str, width: int) -> str | None:
    pattern = re.compile(rf"(?<![\w-])(?:{flags})(?:=|\s+)?(\d+)\b")
    for m in pattern.finditer(text):
        if launch_mod.small_int(m.group(1)) == width:
            return f"{text[:m.start(1)]}{{width}}{text[m.end(1):]}"
    return None


def with_wait(text: str) -> str | None:
    if len(text) > MAX_REWRITE_CHARS or "#" in text:
        return None  # a trailing comment would swallow the wait
    stripped = text.rstrip().rstrip(";").rstrip()
    return f"{stripped} wait" if stripped.endswith("&") else f"{stripped}; wait"
