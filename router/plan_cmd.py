"""`backend-router plan`: render the ladder as a table or the contract's JSON."""

from __future__ import annotations

import argparse
import json
import sys

from router import config as ladder_config
from router.planner import Request, Rung, explain, plan


def _zones(rung: Rung) -> str:
    if not rung.zones:
        return "-"
    head = ",".join(rung.zones[:2])
    rest = len(rung.zones) - 2
    return f"{head},+{rest}" if rest > 0 else head


def render_text(request: Request, rungs: tuple[Rung, ...], cfg: ladder_config.LadderConfig) -> str:
    header = ("#", "backend", "machine type / lane / gpu", "provisioning", "width", "hours",
              "zones", "why")
    rows = [header]
    for i, rung in enumerate(rungs, 1):
        rows.append((str(i), rung.backend, rung.target, rung.provisioning or "-",
                     str(rung.width), f"{rung.hours:g}", _zones(rung),
                     explain(rung, request, cfg)))
    widths = [max(len(row[c]) for row in rows) for c in range(len(header) - 1)]
    lines = [f"request: intent={request.intent} width={request.width} hours={request.hours:g}"]
    for row in rows:
        cells = [cell.ljust(widths[c]) for c, cell in enumerate(row[:-1])]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    lines.append(f"{len(rungs)} rungs: "
                 f"{sum(r.backend == 'gcp' for r in rungs)} gcp, "
                 f"{sum(r.backend == 'slurm' for r in rungs)} slurm, "
                 f"{sum(r.backend == 'runpod' for r in rungs)} runpod")
    return "\n".join(lines)


def render_json(request: Request, rungs: tuple[Rung, ...]) -> str:
    doc = {"request": {"intent": request.intent, "width": request.width,
                       "hours": request.hours},
           "rungs": [rung.to_json() for rung in rungs]}
    return json.dumps(doc, indent=2)


def run_plan(args: argparse.Namespace) -> int:
    cfg = ladder_config.load(args.ladder)
    request = Request(intent=args.intent, width=args.gpu_count, hours=args.hours)
    rungs = plan(request, cfg)
    out = render_json(request, rungs) if args.format == "json" else render_text(request, rungs, cfg)
    sys.stdout.write(out + "\n")
    return 0
