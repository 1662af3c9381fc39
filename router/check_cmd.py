"""`backend-router check`: can each backend on the ladder be used? GCP: the
project, credentials and quota reads; SLURM: `sbatch` and the controller;
RunPod: the API key. Dispatch runs the same checks before its first attempt.
Exit 0 when every backend not skipped is usable, 1 otherwise."""

from __future__ import annotations

import argparse
import json
import sys

from router.backends import NAMES, Backends, Endpoints, require_sdks
from router.backends.base import Context, Workload
from router.config import LadderConfig
from router.events import EventLog


def ladder_backends(cfg: LadderConfig) -> list[str]:
    """The backends a ladder config can route to, in walk order."""
    present = {"gcp": bool(cfg.families), "slurm": bool(cfg.slurm_lanes),
               "runpod": any(i.runpod_gpu_types for i in cfg.intents.values())}
    return [name for name in NAMES if present[name]]


def run_check(args: argparse.Namespace) -> int:
    from router.dispatch import run_checks
    from router.workspace import load_ladder

    cfg = load_ladder(args.ladder, None)
    where = Endpoints.from_args(args)
    names = [n for n in ladder_backends(cfg) if n not in where.skip]
    require_sdks(names, "check")
    ctx = Context(cfg, EventLog("check", None, stdout=False), Workload("check", ""))
    regions = list(dict.fromkeys(z.rsplit("-", 1)[0] for fam in cfg.families.values()
                                 for z in fam.zones))
    checks = run_checks(Backends(ctx, where), names, regions)
    if args.format == "json":
        doc = {"usable": all(c.usable for c in checks),
               "backends": [{"backend": c.backend, "usable": c.usable, "detail": c.detail,
                             "checks": c.checks} for c in checks],
               "skipped": sorted(where.skip)}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        for c in checks:
            sys.stdout.write(f"{c.backend:<7} {'ok' if c.usable else 'UNUSABLE':<9} "
                             f"{c.detail}\n")
        for name in sorted(where.skip):
            sys.stdout.write(f"{name:<7} {'skipped':<9} --skip-backend {name}\n")
    return 0 if all(c.usable for c in checks) else 1
