"""The critic's rules. Each is a small class with a stable name, a check, and
VALID/INVALID example phases beside it that the test suite runs (fixit-style).

Deny rules make a REVISE; warn rules are advisories that never change the
verdict (conftest's deny/warn split).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from critics.lazy import LazyModule
from router.config import ALLOWED_WIDTHS, LadderConfig
from router.section9 import Phase

if TYPE_CHECKING:
    from critics.launch import Launch
    from critics.launchers import Families

# The launch reader is imported on the first check, not here: `workflow-lint`
# reads this module for the critic's names and thresholds alone, in pre-commit.
launch_reader = LazyModule("critics.launch")
launchers = LazyModule("critics.launchers")
shell = LazyModule("critics.shell")
suggest = LazyModule("critics.suggest")

DEFAULT_WIDEN_THRESHOLD = 1.0
# The critic's verdicts: the first when no deny rule fires, the second when one does.
VERDICTS = ("APPROVE", "REVISE")
# needlessly-narrow: a shardable axis needs at least this many shards to widen.
MIN_SHARDS_TO_WIDEN = 2


@dataclass(frozen=True)
class Finding:
    rule: str
    phase: str
    line: int
    message: str
    suggestion: str
    severity: str = "error"  # "error" makes a REVISE; "warning" is advisory

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "phase": self.phase, "line": self.line,
                "message": self.message, "suggestion": self.suggestion,
                "severity": self.severity}


@dataclass(frozen=True)
class Context:
    phase: Phase
    launch: Launch
    config: LadderConfig
    widen_threshold: float = DEFAULT_WIDEN_THRESHOLD
    # False while judging a candidate fix: its rules skip judging their own
    # candidates, so checking a suggestion never recurses.
    verify: bool = True
    # The launcher families the launch was read with (None: the packaged ones);
    # candidate fixes are judged with the same.
    launchers: Families | None = None


def gpus(count: int) -> str:
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


def hours(value: float) -> str:
    return f"{value:.1f} h"


def wall_clock(gpu_hours: float, before_gpus: int, after_width: int) -> str:
    """`8.0 h → 1.0 h at width 8`: wall-clock now versus at `after_width`."""
    return f"{hours(gpu_hours / before_gpus)} → {hours(gpu_hours / after_width)} " \
           f"at width {after_width}"


def allowed_width_at_most(limit: int, ctx: Context) -> int | None:
    """The largest width the ladder allows for this intent that is <= limit."""
    intent = ctx.config.intents.get(ctx.phase.intent)
    minimum = intent.min_width if intent else 1
    fits = [w for w in ALLOWED_WIDTHS if minimum <= w <= limit]
    return max(fits) if fits else None


def min_width(ctx: Context) -> int:
    intent = ctx.config.intents.get(ctx.phase.intent)
    return intent.min_width if intent else 1


def approves(ctx: Context, width: int, launch: str | None = None, drop_axis: bool = False,
             clears: str | None = None) -> bool:
    """Would the phase, changed as a suggestion says, earn APPROVE (and, with
    `clears`, lose that rule's advisory)? Widths the ladder refuses never do."""
    if width not in ALLOWED_WIDTHS or width < min_width(ctx):
        return False
    phase = replace(ctx.phase, width=width, launch=ctx.phase.launch if launch is None else launch,
                    shardable_axis=None if drop_axis else ctx.phase.shardable_axis)
    sub = Context(phase, launch_reader.analyze(phase.launch, width, ctx.launchers), ctx.config,
                  ctx.widen_threshold, verify=False, launchers=ctx.launchers)
    findings = [f for rule in RULES for f in rule.check(sub)]
    return not any(f.severity == "error" or f.rule == clears for f in findings)


def first_approving(ctx: Context, width: int, candidates: Iterable[str | None],
                    clears: str | None = None) -> str | None:
    """The first candidate launch that earns APPROVE at `width`. Multi-line
    candidates are skipped: a suggestion is printed on its finding's one line."""
    seen: set[str] = set()
    for candidate in candidates:
        if candidate is None or "\n" in candidate or candidate in seen:
            continue
        seen.add(candidate)
        if not ctx.verify or approves(ctx, width, candidate, clears=clears):
            return candidate
    return None


def sharded_candidates(ctx: Context, width: int) -> list[str | None]:
    """Launches that spread the phase over `width` GPUs, most faithful first:
    the launch as it is if it already follows {width}; its launcher's count set
    to {width}; vLLM/SGLang data parallelism; the command run once per GPU (or
    per group of min-width GPUs); a placeholder worker in that loop."""
    launch = ctx.phase.launch
    group = min_width(ctx)
    command = suggest.unpinned(launch)
    free = suggest.without_pins(launch)  # a launcher its device pins narrow
    return [launch if "{width}" in launch else None, suggest.with_width_count(launch),
            suggest.with_data_parallel(launch, width),
            *suggest.count_rewrites(launch, ctx.launchers),
            free, suggest.with_width_count(free) if free else None,
            *(suggest.count_rewrites(free, ctx.launchers) if free else []),
            suggest.sharded_loop(command, group) if command else None,
            suggest.sharded_loop(suggest.PLACEHOLDER, group)]


def sharded_launch(phase: Phase) -> str:
    """A work-conserving sharded launch for `phase`, re-sharding at `{width}`."""
    command = suggest.unpinned(phase.launch)
    return suggest.sharded_loop(command or suggest.PLACEHOLDER)


class Rule:
    name: ClassVar[str]
    severity: ClassVar[str] = "error"
    summary: ClassVar[str]
    # Example phases (the keys of a §9 phase, minus name/intent) and the width
    # each is judged at; the tests build plans from them.
    VALID: ClassVar[list[dict[str, object]]]
    INVALID: ClassVar[list[dict[str, object]]]

    def check(self, ctx: Context) -> list[Finding]:
        raise NotImplementedError

    def finding(self, ctx: Context, key: str, message: str, suggestion: str) -> Finding:
        return Finding(self.name, ctx.phase.name, ctx.phase.line_of(key), message, suggestion,
                       self.severity)


class UnshardedWide(Rule):
    name = "unsharded-wide"
    summary = ("width > 1 and the launch command does not run work on the GPUs in parallel: "
               "the extra GPUs idle while one process works")
    # Every recognised launcher, in a form that keeps the GPUs busy in parallel.
    VALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node=8 train.py"},
        {"width": 4, "gpu_hours": 8,
         "launch": "python -m torch.distributed.run --nproc-per-node 4 train.py"},
        {"width": 4, "gpu_hours": 8, "launch": "accelerate launch --num_processes 4 train.py"},
        {"width": 8, "gpu_hours": 8, "launch": "deepspeed --num_gpus 8 train.py"},
        {"width": 4, "gpu_hours": 8, "launch": "vllm serve m --tensor-parallel-size 4"},
        {"width": 8, "gpu_hours": 8, "launch": "vllm serve m -tp 2 -pp 2 -dp 2"},
        {"width": 4, "gpu_hours": 8, "launch": "python -m sglang.launch_server --tp 2 --dp 2"},
        {"width": 4, "gpu_hours": 8, "launch": "for i in $(seq 0 3); do "
                                               "CUDA_VISIBLE_DEVICES=$i python x.py & done; wait"},
        {"width": 4, "gpu_hours": 8,
         "launch": "seq 0 3 | xargs -P 4 -I{} python x.py --device cuda:{}"},
        {"width": 4, "gpu_hours": 8,
         "launch": "parallel -j 4 'CUDA_VISIBLE_DEVICES=$(({%}-1)) python x.py {}' ::: a b c d"},
        {"width": 4, "gpu_hours": 8, "launch": "srun --ntasks 4 python x.py"},
        {"width": 8, "gpu_hours": 8, "launch": "python gen.py --num-shards {width}"},
        {"width": 1, "gpu_hours": 0.5, "launch": "python run.py"},
    ]
    INVALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "python run.py"},
        {"width": 4, "gpu_hours": 8, "launch": "CUDA_VISIBLE_DEVICES=0,1,2,3 python x.py"},
        {"width": 4, "gpu_hours": 8,
         "launch": "for i in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$i python x.py --shard $i; done"},
        {"width": 2, "gpu_hours": 4, "launch": "python gen.py --device_map auto"},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        phase = ctx.phase
        if phase.width <= 1 or ctx.launch.parallel or ctx.launch.unreadable or \
                ctx.launch.missing:  # pins past the width: under-saturated says so
            return []
        axis = phase.shardable_axis
        how = f"shard {axis.name!r} ({axis.size} shards)" if axis else "shard the work"
        # An axis with fewer shards than the width fills only a narrower phase.
        target = phase.width
        if axis is not None and axis.size < phase.width:
            target = allowed_width_at_most(axis.size, ctx) or phase.width
        launch = first_approving(ctx, target, sharded_candidates(ctx, target))
        resize = f"set width: {target} and " if target != phase.width else ""
        if launch is not None:
            options = [f"{how}: {resize}run it across the GPUs with a work-conserving launch, "
                       f"e.g. `{launch}`: {wall_clock(phase.gpu_hours, 1, target)}"]
        else:
            options = [f"{how} across the GPUs with a work-conserving launch, one worker per "
                       f"GPU pinned with CUDA_VISIBLE_DEVICES"]
        # Width 1 only where the intent allows it; with an axis declared, the
        # axis goes too, or needlessly-narrow would REVISE the narrow phase.
        if min_width(ctx) == 1:
            drop = "remove shardable_axis and " if axis is not None else ""
            narrow = f"if nothing shards, {drop}downsize to width 1 and free " \
                     f"{gpus(phase.width - 1)}"
            if not ctx.verify or approves(ctx, 1, drop_axis=axis is not None):
                options.append(narrow)
            else:  # pinned to GPUs a one-GPU machine lacks: unpin it too
                unpinned = suggest.without_pins(phase.launch)
                if unpinned is not None and approves(ctx, 1, unpinned, axis is not None):
                    options.append(f"{narrow} with `{unpinned}`")
        suggestion = "; or ".join(options)
        return [self.finding(ctx, "launch",
                             f"width {phase.width} but {ctx.launch.how}: "
                             f"{phase.width - 1} of {phase.width} GPUs idle", suggestion)]


class UnderSaturated(Rule):
    name = "under-saturated"
    summary = ("the launch is parallel but over fewer GPUs than the width, or the shardable "
               "axis has fewer shards than the width")
    VALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node 8 train.py",
         "shardable_axis": {"name": "draw_set", "size": 10}},
        {"width": 4, "gpu_hours": 8, "launch": "deepspeed train.py"},
    ]
    # Every recognised launcher, in a form that leaves GPUs idle.
    INVALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node=4 train.py"},
        {"width": 8, "gpu_hours": 8, "launch": "accelerate launch --num-processes=2 train.py"},
        {"width": 8, "gpu_hours": 8, "launch": "deepspeed --num_gpus=4 train.py"},
        {"width": 8, "gpu_hours": 8, "launch": "vllm serve m --tensor-parallel-size 4"},
        {"width": 8, "gpu_hours": 8, "launch": "python -m sglang.launch_server --tp 2"},
        {"width": 8, "gpu_hours": 8, "launch": "seq 0 7 | xargs -P 2 -I{} python x.py --gpu {}"},
        {"width": 8, "gpu_hours": 8,
         "launch": "parallel -j 16 'CUDA_VISIBLE_DEVICES=$(({%} % 4)) python x.py' ::: $(seq 64)"},
        {"width": 4, "gpu_hours": 8, "launch": "srun -n 2 python x.py"},
        {"width": 8, "gpu_hours": 8, "launch": "python gen.py --num-shards 4"},
        {"width": 8, "gpu_hours": 8, "launch": "python gen.py --num-shards 8",
         "shardable_axis": {"name": "model", "size": 2}},
        {"width": 4, "gpu_hours": 8, "launch": "for i in 0 0 1 1; do CUDA_VISIBLE_DEVICES=$i "
                                               "python x.py & done; wait"},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        phase = ctx.phase
        if ctx.launch.unreadable:
            return []
        busy = phase.width if ctx.launch.gpus is None else ctx.launch.gpus
        if ctx.launch.missing and busy < phase.width:
            return [self._missing(ctx, busy)]
        if phase.width <= 1 or not ctx.launch.parallel:
            return []
        limits = []
        if ctx.launch.gpus is not None and ctx.launch.gpus < phase.width:
            busy = ctx.launch.gpus
            limits.append((busy, f"the launch keeps {busy} of {phase.width} GPUs busy "
                                 f"({ctx.launch.how})", "launch"))
        axis = phase.shardable_axis
        if axis is not None and axis.size < phase.width:
            limits.append((axis.size, f"shardable axis {axis.name!r} has {axis.size} shards for "
                                      f"{phase.width} GPUs", "shardable_axis"))
        if not limits:
            return []
        busy, message, key = min(limits, key=lambda item: item[0])
        idle = phase.width - busy
        downsize = allowed_width_at_most(busy, ctx)
        options = []
        if axis is None or axis.size >= phase.width:
            fill = first_approving(ctx, phase.width, sharded_candidates(ctx, phase.width)[:-2])
            example = f", e.g. `{fill}`" if fill else ""
            options.append(f"fill the width with a launch over all {phase.width} GPUs{example} "
                           f"({wall_clock(phase.gpu_hours, busy, phase.width)})")
        if downsize is not None and downsize < phase.width and \
                (not ctx.verify or approves(ctx, downsize)):
            options.append(f"downsize to width {downsize} and release "
                           f"{gpus(phase.width - downsize)} "
                           f"({hours(phase.gpu_hours / busy)} → "
                           f"{hours(phase.gpu_hours / min(busy, downsize))} at width {downsize})")
        suggestion = "; or ".join(options) or f"shard the work over all {phase.width} GPUs"
        return [self.finding(ctx, key, f"{message}: {gpus(idle)} idle", suggestion)]

    def _missing(self, ctx: Context, busy: int) -> Finding:
        """Device ids at or above the width: the machine has no such GPU, so a
        process pinned there fails or runs elsewhere, and those GPUs are not
        counted busy."""
        phase, launch = ctx.phase, ctx.launch
        ids = ", ".join(launch.missing[:8]) + (", ..." if len(launch.missing) > 8 else "")
        have = "GPU 0" if phase.width == 1 else f"GPUs 0-{phase.width - 1}"
        noun = "GPU" if len(launch.missing) == 1 else "GPUs"
        fixed = first_approving(ctx, phase.width,
                                [suggest.without_pins(phase.launch),
                                 *sharded_candidates(ctx, phase.width)])
        example = f", e.g. `{fixed}`" if fixed else ""
        return self.finding(
            ctx, "launch",
            f"the launch pins {noun} {ids}, which a width-{phase.width} machine does not have "
            f"(it has {have}): it keeps {busy} of {phase.width} GPUs busy",
            f"pin only {have} (device ids count from 0 on the phase's machine){example}")


class NeedlesslyNarrow(Rule):
    name = "needlessly-narrow"
    summary = ("width 1 although the phase declares a shardable axis of size >= 2 and enough "
               "GPU-hours to be worth widening: wall-clock is the scarce resource")
    VALID: ClassVar = [
        {"width": 1, "gpu_hours": 0.5, "launch": "python x.py",
         "shardable_axis": {"name": "prefix", "size": 600}},
        {"width": 1, "gpu_hours": 12, "launch": "python train.py"},
        {"width": 1, "gpu_hours": 6, "launch": "python x.py",
         "shardable_axis": {"name": "model", "size": 1}},
    ]
    INVALID: ClassVar = [
        {"width": 1, "gpu_hours": 8, "launch": "python gen.py",
         "shardable_axis": {"name": "draw_set", "size": 10}},
        {"width": 1, "gpu_hours": 1.0, "launch": "python gen.py",
         "shardable_axis": {"name": "model", "size": 2}},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        phase = ctx.phase
        axis = phase.shardable_axis
        if phase.width != 1 or axis is None or axis.size < MIN_SHARDS_TO_WIDEN or \
                phase.gpu_hours < ctx.widen_threshold or ctx.launch.unreadable:
            return []
        target = allowed_width_at_most(min(axis.size, max(ALLOWED_WIDTHS)), ctx)
        if target is None or target <= 1:
            return []
        launch = first_approving(ctx, target, sharded_candidates(ctx, target))
        example = f", e.g. `{launch}`" if launch else " (one worker per GPU)"
        return [self.finding(
            ctx, "width",
            f"width 1 but {axis.name!r} shards {axis.size} ways and the phase is "
            f"{phase.gpu_hours:g} GPU-hours: it runs serially on one GPU",
            f"set width: {target} with a sharded launch{example}: "
            f"{wall_clock(phase.gpu_hours, 1, target)}")]


class UnwaitedBackground(Rule):
    name = "unwaited-background"
    severity = "warning"
    summary = "background workers started with '&' but never waited for"
    VALID: ClassVar = [
        {"width": 2, "gpu_hours": 2,
         "launch": "for i in 0 1; do CUDA_VISIBLE_DEVICES=$i python x.py & done; wait"},
    ]
    INVALID: ClassVar = [
        {"width": 2, "gpu_hours": 2,
         "launch": "for i in 0 1; do CUDA_VISIBLE_DEVICES=$i python x.py & done"},
    ]
    VALID: ClassVar = [
        *VALID,
        {"width": 2, "gpu_hours": 2,
         "launch": "vllm serve m --tensor-parallel-size 2 & python score.py; kill %1"},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        warnings = [w for w in ctx.launch.warnings if "never waited" in w]
        if not warnings:
            return []
        fixed = first_approving(ctx, ctx.phase.width, [suggest.with_wait(ctx.phase.launch)],
                                clears=self.name)
        suggestion = (f"end the launch with wait so the job lives as long as its work, e.g. "
                      f"`{fixed}`" if fixed else
                      "end the launch with wait so the job lives as long as its work")
        return [self.finding(ctx, "launch", warning, suggestion) for warning in warnings]


class Oversubscribed(Rule):
    name = "oversubscribed"
    severity = "warning"
    summary = "the launch asks for more GPUs than the phase's width provides"
    VALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node 8 train.py"},
    ]
    INVALID: ClassVar = [
        {"width": 4, "gpu_hours": 8, "launch": "torchrun --nproc_per_node 8 train.py"},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        gpus = ctx.launch.gpus
        if gpus is not None and gpus <= launch_reader.MAX_COUNT:
            gpus += len(ctx.launch.missing)  # pins past the width ask for more GPUs too
        if not ctx.launch.parallel or gpus is None or gpus <= ctx.phase.width:
            return []
        return [self.finding(ctx, "launch",
                             f"the launch uses {launch_reader.count_text(gpus)} GPUs but width is "
                             f"{ctx.phase.width}", self._suggestion(ctx, gpus))]

    def _suggestion(self, ctx: Context, gpus: int) -> str:
        options = []
        wider = allowed_width_at_most(gpus, ctx)
        if wider is not None and wider > ctx.phase.width and \
                (not ctx.verify or approves(ctx, wider)):
            options.append(f"set width: {wider}")
        fixed = first_approving(ctx, ctx.phase.width,
                                [suggest.with_width_count(ctx.phase.launch)], clears=self.name)
        options.append("write {width} in the launch so it follows the realized width" +
                       (f", e.g. `{fixed}`" if fixed else ""))
        return "; or ".join(options)


_WIDTH_FLAG = re.compile(
    r"(?:--(?:num[-_]shards|nproc[-_]per[-_]node|num[-_]processes|num[-_]gpus|"
    r"tensor[-_]parallel[-_]size|data[-_]parallel[-_]size|world[-_]size|n[-_]?shards)"
    r"|(?<![\w-])-(?:tp|dp|P|j))[= ]?\s*(\d+)\b")
_LAST_INDEX = re.compile(r"\bseq\s+0\s+(\d+)\b|\{0\.\.(\d+)\}|i\s*<\s*(\d+)\b")
# A width held in a variable: the variable where a count or last index goes
# (`--nproc_per_node=$NGPU`, `seq 0 $(( n - 1 ))`), set to a literal
# (`NGPU=8`, `NGPU=${NGPU:-"8"}`, `${NGPU:-8}`).
_VAR = r"\$\{?([A-Za-z_]\w*)"
_WIDTH_VAR_USE = re.compile(_WIDTH_FLAG.pattern.replace(r"(\d+)\b", _VAR) + "|" +
                            r"\$\(\(\s*\$?\{?([A-Za-z_]\w*)\}?\s*-\s*1\s*\)\)|"
                            r"--num[-_]shards[= ]\s*\$\{?([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=16)
def _var_use(count_literal: str) -> re.Pattern[str] | None:
    """A family's count-literal pattern with a variable where the number goes."""
    try:
        return re.compile(count_literal.replace(r"(\d+)\b", _VAR))
    except re.error:
        return None


def _width_var_literal(text: str, width: int, families: Families) -> str | None:
    """`NGPU=8` (or `${NGPU:-8}`) when NGPU is where the launch states its width."""
    family_use = _var_use(families.count_literal.pattern)  # type: ignore[attr-defined]
    uses = [*_WIDTH_VAR_USE.finditer(text), *(family_use.finditer(text) if family_use else [])]
    for use in uses:
        name = next(g for g in use.groups() if g is not None)
        for m in re.finditer(rf"(?<![\w$]){name}=(?:\$\{{{name}:?[-=])?[\"']?(\d+)[\"']?\}}?"
                             rf"|\$\{{{name}:?[-=][\"']?(\d+)[\"']?\}}", text):
            if launch_reader.small_int(m.group(1) or m.group(2)) == width:
                return m.group(0)
    return None


def _without_comments(text: str) -> str:
    """The launch with its shell comments (an unquoted `#` that starts a word,
    to the end of its line) taken out: a commented-out launch runs nothing."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                out.append(text[i:i + 2])
                i += 2
                continue
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;&|("):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        out.append(ch)
        i += 1
    return "".join(out)


class HardcodedWidth(Rule):
    name = "hardcoded-width"
    severity = "warning"
    summary = ("the launch writes its width as a number: if the router degrades the width, "
               "the work does not re-shard")
    VALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node={width} train.py"},
        {"width": 4, "gpu_hours": 8, "launch": "for i in $(seq 0 $(({width}-1))); do "
                                               "CUDA_VISIBLE_DEVICES=$i python x.py & done; wait"},
        {"width": 1, "gpu_hours": 1, "launch": "python x.py --num-shards 1"},
    ]
    INVALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "python gen.py --num-shards 8"},
        {"width": 4, "gpu_hours": 8, "launch": "for i in $(seq 0 3); do "
                                               "CUDA_VISIBLE_DEVICES=$i python x.py & done; wait"},
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node 8 train.py"},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        phase = ctx.phase
        if phase.width < 2 or ctx.launch.unreadable:
            return []
        literal = None
        code = _without_comments(phase.launch)
        families = ctx.launchers if ctx.launchers is not None else launchers.packaged()
        for pattern in (_WIDTH_FLAG, families.count_literal):  # type: ignore[attr-defined]
            for m in pattern.finditer(code):
                # small_int, not int(): a 5000-digit literal makes int() raise.
                number = next((g for g in m.groups() if g is not None), "")
                if launch_reader.small_int(number) == phase.width:
                    literal = m.group(0).strip()
                    break
            if literal is not None:
                break
        if literal is None:
            for m in _LAST_INDEX.finditer(code):
                value = next(g for g in m.groups() if g is not None)
                if launch_reader.small_int(value) == phase.width - 1:
                    literal = m.group(0)
                    break
        if literal is None:
            literal = _width_var_literal(code, phase.width, families)
        if literal is None:
            return []
        fixed = first_approving(ctx, phase.width,
                                [suggest.with_width_literals(phase.launch, phase.width),
                                 suggest.with_width_literals_of(phase.launch, phase.width,
                                                                ctx.launchers)],
                                clears=self.name)
        example = (f", e.g. `{fixed}`" if fixed else
                   " (--num-shards {width}, --nproc_per_node={width}, seq 0 $(({width}-1)))")
        return [self.finding(
            ctx, "launch", f"the launch hard-codes width {phase.width} ({literal!r}): if the "
                           "router degrades the width, the work will not re-shard",
            f"write {{width}} where the launch names its width{example}; the router replaces "
            "it with the realized width")]


class UnreadableLaunch(Rule):
    name = "unreadable-launch"
    summary = ("the critic cannot read the launch (a malformed count, or a command past its "
               "reading bounds), so it cannot say whether the GPUs are used")
    VALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node=auto train.py"},
        {"width": 8, "gpu_hours": 8, "launch": "for i in {0..999999999}; do "
                                               "CUDA_VISIBLE_DEVICES=$((i % 8)) x & done; wait"},
    ]
    INVALID: ClassVar = [
        {"width": 8, "gpu_hours": 8, "launch": "torchrun --nproc_per_node 0x10 train.py"},
        {"width": 4, "gpu_hours": 8, "launch": "parallel -j 1e26 python x.py ::: a b"},
        {"width": 1, "gpu_hours": 1, "launch": "xargs -P -3 python x.py"},
        {"width": 2, "gpu_hours": 2, "launch": "( " * 80 + "python x.py" + " )" * 80},
        {"width": 2, "gpu_hours": 2, "launch": "for a in {1..9999}; do for b in {1..9999}; do "
                                               "python x.py & done; done; wait"},
    ]

    def check(self, ctx: Context) -> list[Finding]:
        construct = ctx.launch.unreadable
        if construct is None:
            return []
        fixed = first_approving(ctx, ctx.phase.width,
                                [suggest.with_width_count(ctx.phase.launch),
                                 *sharded_candidates(ctx, ctx.phase.width)[-2:]])
        example = f", e.g. `{fixed}`" if fixed else ""
        return [self.finding(
            ctx, "launch", f"the critic cannot read the launch: {construct}",
            f"write the command inline with whole-number counts (or {{width}}){example}; the "
            f"critic reads launches of at most {shell.MAX_LAUNCH_CHARS} characters, nested at "
            f"most {shell.MAX_DEPTH} deep, whose loops unroll to at most "
            f"{launch_reader.MAX_WORK} characters of commands (counts past "
            f"{launch_reader.MAX_COUNT} are not expanded)")]


RULES: tuple[Rule, ...] = (UnshardedWide(), UnderSaturated(), NeedlesslyNarrow(),
                           UnreadableLaunch(), UnwaitedBackground(), Oversubscribed(),
                           HardcodedWidth())
