"""`backend-router simulate`: read the workload, the capacity model and the
policies; run the Monte Carlo; print a table per policy (or JSON); plot.

Bad input (a model naming a rung no ladder has, a negative rate, an empty
ledger, a malformed export line) is one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from router.cliutil import UsageError, installed
from router.simulate.model import CapacityModel, ModelError

if TYPE_CHECKING:
    from router.config import LadderConfig

INSTALL_PLOT = "pip install 'width-aware-workflow[plot]'"


def _model(args: argparse.Namespace, config: LadderConfig) -> CapacityModel:
    from router.simulate import ledger_model, model

    if args.capacity is not None:
        return model.load(args.capacity)
    if args.from_ledger:
        return ledger_model.from_file(args.from_ledger)
    # No PATH: the configured ledger (SQLite or PostgreSQL), read the way
    # `ledger export` reads it.
    from router.ledger import LedgerError, open_ledger

    try:
        ledger = open_ledger(config.ledger, config.ledger_day_timezone)
    except LedgerError as exc:
        raise UsageError(str(exc)) from None
    try:
        return ledger_model.from_ledger(ledger, ledger.label)
    except LedgerError as exc:
        raise UsageError(str(exc)) from None
    finally:
        ledger.close()


def require_matplotlib() -> None:
    if not installed("matplotlib"):
        raise UsageError(f"--plot needs matplotlib, in the 'plot' extra: {INSTALL_PLOT}")


def run_simulate(args: argparse.Namespace) -> int:
    try:
        return _simulate(args)
    except KeyboardInterrupt:  # nothing to clean up: a simulation makes no machine
        print("backend-router: simulate interrupted", file=sys.stderr)
        return 130


def _simulate(args: argparse.Namespace) -> int:
    from router.plan_source import resolve
    from router.simulate import policies, report, runner, stats
    from router.workspace import load_ladder

    if args.plot is not None:
        require_matplotlib()
    if len(args.ladder or []) > 1:
        raise UsageError("--ladder names the workspace ladder once (the `ladder` policy); "
                         "compare other ladder files with --policy FILE")
    base = load_ladder(args.ladder[0] if args.ladder else None, args.plan)
    request = resolve(args, base).request
    try:
        built = [policies.build(name, base, request) for name in (args.policy or ["ladder"])]
    except policies.PolicyError as exc:
        raise UsageError(str(exc)) from None
    try:
        capacity = _model(args, base)
        if args.capacity is not None:
            capacity.check_against([p.config for p in built])
    except ModelError as exc:
        raise UsageError(str(exc)) from None
    runs = [runner.simulate(p, capacity, args.runs, args.seed) for p in built]
    summaries = [stats.summarize(r) for r in runs]
    if args.plot is not None:
        from router.simulate import plots

        written = plots.write_all(summaries, runs, args.plot)
        print(f"backend-router: wrote {len(written)} plot files to {args.plot}", file=sys.stderr)
    out = report.render_json(summaries, capacity, args.seed) if args.format == "json" \
        else report.render_text(summaries, capacity, args.seed)
    sys.stdout.write(out + "\n")
    return 0
