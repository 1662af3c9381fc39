"""Policies: which ladder a simulated dispatch walks. Every policy's rungs
come from `planner.plan()`; a built-in policy only changes the request it
plans or splits rungs the planner made, so the ladder has one source of truth.

- `ladder`: the workspace ladder (or `--ladder FILE`), as dispatch walks it;
- `narrow`: the same ladder with the width forced to the intent's minimum
  width (1, or 2 for the packaged `eval-70b`), the same GPU-hours over it;
- `serial-zones`: the same rungs, but each GCP rung's zones tried one at a
  time, as SkyPilot and dstack walk zones, instead of all at once;
- `wide-slurm`: the same rungs, plus each SLURM lane wide enough for the
  requested width asked at that width before the narrow chain (the contract
  keeps SLURM at the minimum width; this measures the alternative);
- any other value: a ladder config FILE, walked as `ladder` would walk it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from router import config as ladder_config
from router.config import LadderConfig, brief
from router.planner import Request, RequestError, Rung, length_at, plan

BUILT_IN = ("ladder", "narrow", "serial-zones", "wide-slurm")


class PolicyError(ValueError):
    """A policy that is neither built in nor a file."""


@dataclass(frozen=True)
class Policy:
    name: str
    config: LadderConfig
    request: Request  # what this policy dispatches (narrow: the minimum width)
    rungs: tuple[Rung, ...]

    @property
    def gpu_hours(self) -> float:
        return self.request.hours * self.request.width


def build(name: str, base: LadderConfig, request: Request) -> Policy:
    """The policy `name` for `request`. Raises ConfigError (a bad ladder
    FILE) or RequestError (a request that policy's ladder cannot serve,
    naming the policy)."""
    try:
        return _build(name, base, request)
    except RequestError as exc:
        raise RequestError(f"policy {name}: {exc}") from None


def _build(name: str, base: LadderConfig, request: Request) -> Policy:
    if name == "ladder":
        return Policy(name, base, request, plan(request, base))
    if name == "narrow":
        floor = base.intents[request.intent].min_width if request.intent in base.intents \
            else 1
        narrow = Request(request.intent, floor, length_at(request, floor))
        return Policy(name, base, narrow, plan(narrow, base))
    if name == "serial-zones":
        return Policy(name, base, request, _serial(plan(request, base)))
    if name == "wide-slurm":
        return Policy(name, base, request, _wide_slurm(plan(request, base), request, base))
    if not Path(name).exists():
        import difflib

        close = difflib.get_close_matches(name, BUILT_IN, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise PolicyError(f"unknown policy {brief(name)}: neither a built-in policy "
                          f"({', '.join(BUILT_IN)}) nor a ladder file{hint}")
    cfg = ladder_config.load(name)
    return Policy(Path(name).name, cfg, request, plan(request, cfg))


def _serial(rungs: tuple[Rung, ...]) -> tuple[Rung, ...]:
    out: list[Rung] = []
    for rung in rungs:
        if rung.backend == "gcp" and len(rung.zones) > 1:
            out.extend(dataclasses.replace(rung, zones=(zone,)) for zone in rung.zones)
        else:
            out.append(rung)
    return tuple(out)


def _wide_slurm(rungs: tuple[Rung, ...], request: Request, cfg: LadderConfig) -> tuple[Rung, ...]:
    floor = cfg.intents[request.intent].min_width
    if request.width == floor:
        return rungs
    wide = [Rung(backend="slurm", width=request.width, hours=request.hours, lane=name)
            for name in cfg.intents[request.intent].slurm_lanes
            if cfg.slurm_lanes[name].max_width >= request.width]
    at = next((i for i, r in enumerate(rungs) if r.width == floor), len(rungs))
    return (*rungs[:at], *wide, *rungs[at:])
