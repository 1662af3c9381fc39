"""`backend-router sweep`: delete what dispatches left behind.

`--dispatch-id ID` lists every backend by that dispatch's label and releases
everything but its recorded selection (`--all`: the selection too), then
waits out any insert it sent that may still land. It takes the dispatch's
lease first, so it never pulls machines from under a live dispatcher.
`--older-than AGE` does the same for every dispatch's machines older than
AGE, skipping dispatches that are still running."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from router.backends import Backends, Endpoints, require_sdks
from router.backends.base import Context, DispatchError, Workload
from router.check_cmd import ladder_backends
from router.console import describe
from router.events import EventLog


def run_sweep(args: argparse.Namespace) -> int:
    from router.lease import LeaseKeeper
    from router.ledger import LeaseHeld, LedgerError, open_ledger
    from router.workspace import load_ladder

    cfg = load_ladder(args.ladder, None)
    where = Endpoints.from_args(args)
    names = [n for n in ladder_backends(cfg) if n not in where.skip]
    require_sdks(names, "sweep")
    released: list[dict[str, Any]] = []
    events = EventLog(args.dispatch_id or "sweep", None, stdout=False)
    events.listeners.append(lambda r: released.append(r)
                            if r["event"] == "epm:backend-released" else None)
    kept: list[dict[str, Any]] = []
    errors: list[str] = []
    try:
        ledger = open_ledger(cfg.ledger, cfg.ledger_day_timezone)
    except LedgerError as exc:
        return _error(str(exc))
    try:
        records = ledger.machines(args.dispatch_id)
        selections = {(d, r.key) for d, r in records if r.state == "selected"}
        ctx = Context(cfg, events, Workload(args.dispatch_id or "sweep", ""), ledger)
        backends = Backends(ctx, where)
        keepers: dict[str, LeaseKeeper] = {}

        def ours(dispatch_id: str) -> bool:
            """Take the dispatch's lease: False while a live dispatcher holds it."""
            if dispatch_id not in keepers:
                keeper = LeaseKeeper(ledger, dispatch_id, on_lost=lambda: None)
                try:
                    keeper.acquire(False, ctx.stop, lambda _: None)
                except LeaseHeld as exc:
                    if args.dispatch_id:
                        raise
                    errors.append(f"skipped {dispatch_id}: {exc}")
                    return False
                keepers[dispatch_id] = keeper
            return True

        try:
            if args.dispatch_id:
                ours(args.dispatch_id)
            cutoff = None if args.dispatch_id else time.time() - args.older_than
            for name in names:
                try:
                    found = backends[name].find(args.dispatch_id)
                except DispatchError as exc:
                    errors.append(str(exc))
                    continue
                for machine in found:
                    owner = machine.dispatch_id or args.dispatch_id or "?"
                    if cutoff is not None and (machine.created is None
                                               or machine.created > cutoff):
                        continue
                    if (owner, machine.key) in selections and not args.all:
                        kept.append({"backend": machine.backend, **machine.handle})
                        continue
                    if not ours(owner):
                        continue
                    try:
                        backends[name].release(machine)
                    except DispatchError as exc:
                        errors.append(str(exc))
            _late(records, backends, names, errors,
                  set() if args.all else {key for _, key in selections})
            # Recorded while the leases are held; a failure here is exit 2
            # (the machines are released, but the ledger could not say so).
            ledger.record_sweep(args.dispatch_id, len(released), len(kept), len(errors))
        finally:
            for keeper in keepers.values():
                keeper.release()
    except LeaseHeld as exc:
        return _error(str(exc))
    except (DispatchError, LedgerError) as exc:
        return _error(str(exc))
    finally:
        ledger.close()
    _report(args, released, kept, errors)
    return 2 if errors and args.dispatch_id else 0


def _late(records: list, backends: Backends, names: list[str], errors: list[str],
          keep: set[str]) -> None:
    """Inserts that never answered can still land: watch them until they
    cannot, releasing what lands."""
    backends.watch_unanswered(records, names)
    while True:
        pending = [(name, m) for name in names if name in backends.built
                   for m, _ in backends[name].pending()]
        if not pending:
            return
        for name, machine in pending:
            try:
                landed = backends[name].settle(machine)
                if landed is not None and landed.key not in keep:
                    backends[name].release(landed)
            except DispatchError as exc:
                errors.append(str(exc))
                return
        time.sleep(0.25)


def _report(args: argparse.Namespace, released: list[dict[str, Any]],
            kept: list[dict[str, Any]], errors: list[str]) -> None:
    if args.format == "json":
        doc = {"released": [{k: v for k, v in r.items() if k not in ("event", "ts")}
                            for r in released], "kept": kept, "errors": errors}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return
    for record in released:
        sys.stdout.write(f"released {describe(record)} "
                         f"{record.get('instance', '')}".rstrip() + "\n")
    for handle in kept:
        sys.stdout.write(f"kept the selection {describe(handle)} "
                         f"{handle.get('instance', '')}".rstrip() + "\n")
    for problem in errors:
        sys.stdout.write(f"error: {problem}\n")
    sys.stdout.write(f"swept: {len(released)} released, {len(kept)} selection(s) kept\n")


def _error(message: str) -> int:
    from router import redact

    print(f"backend-router: error: {redact.clip(message, 1000)}", file=sys.stderr)
    return 2
