"""`simulate` output: a table per policy (text), or the contract's JSON."""

from __future__ import annotations

import json
from typing import Any

from router.simulate.model import CapacityModel

NO_INFO_TREATMENT = "treated as no capacity"


def _hours(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 60:.1f} min" if value < 1 else f"{value:.2f} h"


def render_json(summaries: list[dict[str, Any]], model: CapacityModel, seed: int) -> str:
    doc = {"policies": summaries,
           "model": {"source": model.source, "notes": model.notes,
                     "estimates": model.estimates()}, "seed": seed}
    return json.dumps(doc, indent=2)


def render_text(summaries: list[dict[str, Any]], model: CapacityModel, seed: int) -> str:
    lines = [f"capacity model: {model.source} (seed {seed})"]
    lines += [f"  note: {note}" for note in model.notes]
    for e in model.estimates():
        if e["samples"] is None:
            continue  # written by hand: the file says it all
        if e["backend"] == "gcp":
            what = (f"gcp {e['machine_type']} {e['provisioning']} {e['zone']}: in stock "
                    f"{e['in_stock_share']:.0%}, insert {e['insert_latency_seconds']:.0f} s")
        elif e["backend"] == "slurm":
            what = (f"slurm {e['lane']}: queue wait {e['mean_queue_wait_minutes']:g} min, "
                    f"unavailable {e['unavailable_share']:.0%}")
        else:
            what = f"runpod {e['gpu_type']}: available {e['available_share']:.0%}"
        lines.append(f"  estimate: {what} ({e['samples']} attempts)")
    for s in summaries:
        request = s["request"]
        runs = s["runs"]
        lines.append("")
        ladder = "packaged ladder" if s["ladder"] == "packaged" else s["ladder"]
        lines.append(f"policy {s['policy']}: {runs} runs of {request['intent']} "
                     f"×{request['width']} for {request['hours']:g} h, {s['rungs']} rungs "
                     f"({ladder})")
        rows = [("time to capacity", _hours(s["time_to_capacity_hours"]["p50"]),
                 _hours(s["time_to_capacity_hours"]["p90"])),
                ("makespan", _hours(s["makespan_hours"]["p50"]),
                 _hours(s["makespan_hours"]["p90"]))]
        lines.append(f"  {'':18} {'p50':>9} {'p90':>9}")
        lines += [f"  {name:18} {p50:>9} {p90:>9}" for name, p50, p90 in rows]
        lines.append(f"  {'GPU-hours':18} {s['gpu_hours']:.2f} per run "
                     f"({s['restarts_per_run']:.2f} preemption restarts per run)")
        lines.append(f"  {'RunPod GPU-hours':18} {s['runpod_gpu_hours']:.2f} per run "
                     "(real dollars)")
        landed = "  ".join(f"{label} {share:.0%}" for label, share in s["landed"].items())
        lines.append(f"  {'landed':18} {landed or '-'}")
        lines.append(f"  {'exhausted':18} {s['exhausted']} of {runs} runs")
        unknown = s["rungs_without_information"]
        if unknown:
            shown = ", ".join(unknown[:3]) + (f", +{len(unknown) - 3} more"
                                              if len(unknown) > 3 else "")
            lines.append(f"  {len(unknown)} rung targets without information: {NO_INFO_TREATMENT} "
                         f"({shown})")
    return "\n".join(lines)
