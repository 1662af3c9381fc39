"""`backend-router plan`: render the ladder as a table or the contract's JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from router import config as ladder_config
from router.planner import Request, Rung, explain, plan


def _zones(rung: Rung) -> str:
    if not rung.zones:
        return "-"
    head = ",".join(rung.zones[:2])
    rest = len(rung.zones) - 2
    return f"{head},+{rest}" if rest > 0 else head


def _quota_cell(quota: dict[str, Any] | None) -> str:
    if quota is None:
        return "-"
    region = quota.get("region") or "?"
    if quota["limit"] is None:
        return f"unknown ({region})"
    mark = "ok" if quota["admits"] else "NEVER" if quota["admits"] is False else "unknown"
    return f"{mark} {quota['usage']:g}/{quota['limit']:g} {region}"


def render_text(request: Request, rungs: tuple[Rung, ...], cfg: ladder_config.LadderConfig,
                quotas: dict[int, dict[str, Any]] | None = None) -> str:
    header = ("#", "backend", "machine type / lane / gpu", "provisioning", "width", "hours",
              "zones", *(("quota",) if quotas is not None else ()), "why")
    rows = [header]
    for i, rung in enumerate(rungs, 1):
        quota = (_quota_cell(quotas.get(id(rung))),) if quotas is not None else ()
        rows.append((str(i), rung.backend, rung.target, rung.provisioning or "-",
                     str(rung.width), f"{rung.hours:g}", _zones(rung), *quota,
                     explain(rung, request, cfg)))
    widths = [max(len(row[c]) for row in rows) for c in range(len(header) - 1)]
    lines = [f"request: intent={request.intent} width={request.width} hours={request.hours:g}"]
    for row in rows:
        cells = [cell.ljust(widths[c]) for c, cell in enumerate(row[:-1])]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    from router.backends import NAMES

    counts = ", ".join(f"{sum(r.backend == name for r in rungs)} {name}" for name in NAMES)
    lines.append(f"{len(rungs)} rungs: {counts}")
    return "\n".join(lines)


def render_json(request: Request, rungs: tuple[Rung, ...],
                quotas: dict[int, dict[str, Any]] | None = None) -> str:
    out = []
    for rung in rungs:
        item = rung.to_json()
        if quotas is not None and id(rung) in quotas:
            item["quota"] = quotas[id(rung)]
        out.append(item)
    doc = {"request": {"intent": request.intent, "width": request.width,
                       "hours": request.hours}, "rungs": out}
    return json.dumps(doc, indent=2)


def check_quotas(rungs: tuple[Rung, ...], project: str, endpoint: str | None,
                 cfg: ladder_config.LadderConfig
                 ) -> tuple[dict[int, dict[str, Any]], dict[str, str]]:
    """For each GCP rung, the quota of its best region: can the width ever
    fit? Also returns the regions whose quotas could not be read, and why."""
    from router.backends.gcp import QuotaReader, region_of, regions_client

    reader = QuotaReader(project, regions_client(endpoint), cfg.gcp.request_timeout_seconds)
    marks: dict[int, dict[str, Any]] = {}
    for rung in rungs:
        if not rung.zones:  # only GCP rungs have zones, and regional quotas
            continue
        metric = rung.quota_metric or ""
        best: tuple[float, float] | None = None
        best_region = None
        unknown: list[str] = []
        for region in dict.fromkeys(region_of(z) for z in rung.zones):
            got = reader.get(region, metric)
            if got is None:
                unknown.append(region)
            elif best is None or got[0] - got[1] > best[0] - best[1]:
                best, best_region = got, region
        if best is None:
            marks[id(rung)] = {"metric": metric, "region": ",".join(unknown), "limit": None,
                               "usage": None, "admits": None}
            continue
        admits = best[0] - best[1] >= rung.width
        marks[id(rung)] = {"metric": metric, "region": best_region, "limit": best[0],
                           "usage": best[1],
                           "admits": True if admits else (None if unknown else False)}
    return marks, dict(reader.failures)


def run_plan(args: argparse.Namespace) -> int:
    from router.cliutil import UsageError
    from router.plan_source import resolve
    from router.workspace import load_ladder

    cfg = load_ladder(args.ladder, args.plan)
    request = resolve(args, cfg).request  # a PlanError: one line per problem (router.cli)
    rungs = plan(request, cfg)
    quotas = None
    if args.prune and not args.check_quota:
        raise UsageError("--prune needs --check-quota")
    if args.check_quota:
        import os

        from router.backends import require_sdks
        from router.backends.base import DispatchError

        require_sdks(["gcp"], "plan --check-quota")
        project = args.gcp_project or os.environ.get("GOOGLE_CLOUD_PROJECT")
        if not project:
            raise UsageError("--check-quota needs --gcp-project (or GOOGLE_CLOUD_PROJECT)")
        try:
            quotas, unreadable = check_quotas(rungs, project, args.gcp_endpoint, cfg)
        except DispatchError as exc:
            raise UsageError(str(exc)) from None
        for region, why in sorted(unreadable.items()):
            print(f"backend-router: warning: could not read GCP quotas in {region} ({why}); "
                  "its rungs show 'unknown'", file=sys.stderr)
        if args.prune:
            rungs = tuple(r for r in rungs if quotas.get(id(r), {}).get("admits") is not False)
    out = render_json(request, rungs, quotas) if args.format == "json" \
        else render_text(request, rungs, cfg, quotas)
    sys.stdout.write(out + "\n")
    return 0
