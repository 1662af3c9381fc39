"""A dispatch request read from a plan's §9 phase (`--plan PLAN.md --phase NAME`).

The phase gives the intent, the width, the length (`gpu_hours / width`) and
the launch command. Flags given beside `--plan` must agree with it: a plan is
the reviewed record of what runs, so a silent override would make the critic's
verdict and the lint's check describe something else."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from router.config import LadderConfig, brief, name_problem, shown_path
from router.planner import Request
from router.section9 import Phase, PlanError, check_against_ladder, read_plan


class PlanSourceError(ValueError):
    pass


@dataclass(frozen=True)
class Source:
    request: Request
    launch: str | None
    phase: Phase | None
    plan_path: str | None


def resolve(args: argparse.Namespace, config: LadderConfig,
            command: list[str] | None = None) -> Source:
    """The request from flags, or from `--plan` (checked against any flags)."""
    if not getattr(args, "plan", None):
        if getattr(args, "phase", None):
            raise PlanSourceError("--phase needs --plan")
        missing = [flag for flag, value in (("--intent", args.intent),
                                            ("--gpu-count", args.gpu_count),
                                            ("--hours", args.hours)) if value is None]
        if missing:
            raise PlanSourceError(f"missing {', '.join(missing)} (or pass --plan PLAN.md)")
        return Source(Request(args.intent, args.gpu_count, args.hours), None, None, None)
    plan = read_plan(args.plan, config)
    errors = check_against_ladder(plan, config)
    if errors:  # every phase the ladder cannot serve, not just the first
        raise PlanError.combine(errors)
    phase = plan.phase(args.phase)
    hours = phase.gpu_hours / phase.width
    where = f"{shown_path(args.plan)}:{phase.line}"
    if args.intent is not None and args.intent != phase.intent:
        # Echoed as given when it is a clean name; escaped and cut short when not.
        shown = args.intent if name_problem(args.intent) is None else brief(args.intent)
        raise PlanSourceError(f"--intent {shown} disagrees with {where} phase "
                              f"{phase.name!r} intent {phase.intent}")
    if args.gpu_count is not None and args.gpu_count != phase.width:
        raise PlanSourceError(f"--gpu-count {args.gpu_count} disagrees with {where} phase "
                              f"{phase.name!r} width {phase.width}")
    if args.hours is not None and not math.isclose(args.hours, hours, rel_tol=1e-9):
        raise PlanSourceError(f"--hours {args.hours:g} disagrees with {where} phase "
                              f"{phase.name!r} length {hours:g} (gpu_hours / width)")
    if command:
        text = command[0] if len(command) == 1 else " ".join(command)
        if text.strip() != phase.launch.strip():
            raise PlanSourceError(f"the command after '--' disagrees with {where} phase "
                                  f"{phase.name!r} launch")
    return Source(Request(phase.intent, phase.width, hours), phase.launch, phase, args.plan)
