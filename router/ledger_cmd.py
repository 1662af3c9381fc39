"""`backend-router ledger`: manage the ledger's schema (`init`, `upgrade`)
and read it (`history`, `cap`, `export`). The ledger is the one the
workspace's ladder config names (or BACKEND_ROUTER_LEDGER), as dispatch
opens it."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Sequence
from typing import Any

from router.cliutil import OneLineParser, bounded_int

_limit = bounded_int("limit", minimum=1, maximum=100_000)


def add_parser(sub: Any) -> None:
    ledger = sub.add_parser("ledger", help="read the attempt ledger, or create or upgrade its "
                                           "schema")
    actions = ledger.add_subparsers(dest="ledger_command", required=True,
                                    metavar="{init,upgrade,history,cap,export}",
                                    parser_class=OneLineParser)
    helps = {"init": "create the ledger's schema (a PostgreSQL ledger needs this once)",
             "upgrade": "bring the ledger's schema up to this router's version",
             "history": "recent dispatches: id, request, selection, attempts, duration",
             "cap": "today's use of the per-day GCP attempt cap",
             "export": "every dispatch and attempt as JSON lines (simulate --from-ledger "
                       "reads them)"}
    for name, text in helps.items():
        action = actions.add_parser(name, help=text)
        action.add_argument("--ladder", metavar="FILE")
        if name in ("history", "cap", "export"):
            action.add_argument("--format", choices=("text", "json"), default="text",
                                help="export writes JSON lines either way")
        if name == "history":
            action.add_argument("--limit", type=_limit, default=20, metavar="N",
                                help="how many dispatches, newest first (default 20)")


def run_ledger(args: argparse.Namespace) -> int:
    from router import redact
    from router.ledger import LedgerError, open_ledger
    from router.workspace import load_ladder

    cfg = load_ladder(args.ladder, None)
    manage = args.ledger_command in ("init", "upgrade")
    try:
        ledger = open_ledger(cfg.ledger, cfg.ledger_day_timezone, check=not manage)
        try:
            if manage:
                before, after = ledger.migrate(create=args.ledger_command == "init")
                sys.stdout.write(_migrated(ledger.label, before, after) + "\n")
            elif args.ledger_command == "history":
                _history(ledger.history(args.limit), args.format)
            elif args.ledger_command == "cap":
                _cap(ledger.cap_use(cfg.gcp_attempt_cap_per_day), args.format)
            else:
                for line in ledger.export():
                    sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")
        finally:
            ledger.close()
    except LedgerError as exc:
        print(f"backend-router: error: {redact.clip(exc, 1000)}", file=sys.stderr)
        return 2
    return 0


def _migrated(label: str, before: int | None, after: int) -> str:
    if before is None:
        return f"ledger {label}: created at schema version {after}"
    if before == after:
        return f"ledger {label}: already at schema version {after}"
    return f"ledger {label}: upgraded from schema version {before} to {after}"


def _history(rows: list[dict[str, Any]], form: str) -> None:
    if form == "json":
        sys.stdout.write(json.dumps({"dispatches": rows}, indent=2, sort_keys=True) + "\n")
        return
    from router.console import describe

    table = [("DISPATCH", "STARTED (UTC)", "REQUEST", "SELECTED", "ATTEMPTS", "DURATION",
              "EXIT", "HOST")]
    for r in rows:
        req = r["request"]
        selected = r["selected"]
        table.append((
            r["dispatch_id"], _when(r["started"]),
            f"{req.get('intent')} {req.get('width')}x {req.get('hours')}h",
            f"{describe(selected)} ({selected.get('width')}x)" if selected else "-",
            str(r["attempts"]),
            "running" if r["ended"] is None and r["exit"] is None
            else _duration(r["duration_seconds"]),
            "-" if r["exit"] is None else str(r["exit"]), r["host"]))
    _print_table(table)
    if len(rows) == 0:
        sys.stdout.write("no dispatches recorded yet\n")


def _cap(use: dict[str, Any], form: str) -> None:
    if form == "json":
        sys.stdout.write(json.dumps(use, indent=2, sort_keys=True) + "\n")
        return
    _print_table([("DAY", "TIME ZONE", "USED", "CAP", "REMAINING"),
                  (use["day"], use["timezone"], str(use["used"]), str(use["cap"]),
                   str(use["remaining"]))])
    if use["dispatch_ids"]:
        sys.stdout.write("dispatches: " + ", ".join(use["dispatch_ids"]) + "\n")


def _print_table(rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        sys.stdout.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                         .rstrip() + "\n")


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.1f}s"
    if seconds < 7200:
        return f"{seconds / 60:.1f}m"
    return f"{seconds / 3600:.1f}h"
