"""A policy's runs, summarized in the contract's shape:
`{"policy", "runs", "time_to_capacity_hours": {"p50", "p90"},
"makespan_hours": {"p50", "p90"}, "gpu_hours", "landed": {"gcp:8": share},
"runpod_gpu_hours", "exhausted"}`, plus additive fields.

Percentiles are over the runs that completed (an exhausted run has no
makespan; it is counted in `exhausted`); GPU-hours are means per run over
all runs, lost work from preemptions included; `landed` shares are of all
runs, so they and `exhausted / runs` add up to 1."""

from __future__ import annotations

from typing import Any

from router.backends import NAMES
from router.config import PACKAGED_LADDER
from router.simulate.runner import PolicyRuns


def percentile(ordered: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks; None for no values."""
    if not ordered:
        return None
    at = (len(ordered) - 1) * q
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def _pair(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {"p50": _round(percentile(ordered, 0.5)), "p90": _round(percentile(ordered, 0.9))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def landed_order(label: str) -> tuple[int, int]:
    backend, _, width = label.partition(":")
    return NAMES.index(backend) if backend in NAMES else len(NAMES), -int(width or 0)


def summarize(runs: PolicyRuns) -> dict[str, Any]:
    results = runs.results
    count = len(results)
    landed: dict[str, int] = {}
    for result in results:
        if result.landed is not None:
            landed[result.landed] = landed.get(result.landed, 0) + 1
    policy = runs.policy
    return {
        "policy": policy.name,
        "runs": count,
        "time_to_capacity_hours": _pair([r.time_to_capacity_hours for r in results
                                         if r.makespan_hours is not None
                                         and r.time_to_capacity_hours is not None]),
        "makespan_hours": _pair([r.makespan_hours for r in results
                                 if r.makespan_hours is not None]),
        "gpu_hours": round(sum(r.gpu_hours for r in results) / count, 4) if count else 0.0,
        "landed": {label: round(landed[label] / count, 4)
                   for label in sorted(landed, key=landed_order)},
        "runpod_gpu_hours": round(sum(r.runpod_gpu_hours for r in results) / count, 4)
        if count else 0.0,
        "exhausted": sum(r.makespan_hours is None for r in results),
        # additive: what the numbers rest on
        "request": {"intent": policy.request.intent, "width": policy.request.width,
                    "hours": policy.request.hours},
        "rungs": len(policy.rungs),
        "ladder": "packaged" if policy.config.source == str(PACKAGED_LADDER)
        else policy.config.source,
        "restarts_per_run": round(sum(r.restarts for r in results) / count, 4) if count else 0,
        "rungs_without_information": sorted(runs.unknown),
    }
