"""`backend-router`: the command line. Heavy SDKs are imported only by the
subcommands that talk to clouds; `plan` needs nothing beyond yaml."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from router import __version__
from router.cliutil import OneLineParser as _Parser
from router.cliutil import UsageError, bounded_float, bounded_int, shown
from router.config import ALLOWED_WIDTHS


def _width(text: str) -> int:
    allowed = ", ".join(map(str, ALLOWED_WIDTHS))
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid width {shown(text)}: allowed widths are {allowed}") from None
    if value not in ALLOWED_WIDTHS:
        raise argparse.ArgumentTypeError(f"invalid width {value}: allowed widths are {allowed}")
    return value


_positive = bounded_float("number", minimum=0, exclusive_minimum=True)
_port = bounded_int("port", minimum=0, maximum=65_535)
_latency_ms = bounded_float("latency", minimum=0, maximum=600_000)
_timeout_s = bounded_float("timeout", minimum=0, maximum=3_600)
_seed = bounded_int("seed", minimum=0, maximum=2**63 - 1)
_rate = bounded_float("rate", minimum=0, maximum=1)
_hours = bounded_float("hours", minimum=0, exclusive_minimum=True)
_runs = bounded_int("runs", minimum=1, maximum=1_000_000)  # router/simulate/runner.py MAX_RUNS


def _request_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--intent", help="ladder intent, e.g. capture-7b")
    parser.add_argument("--gpu-count", type=_width, metavar="N",
                        help="requested width: 1, 2, 4 or 8")
    parser.add_argument("--hours", type=_hours, metavar="H",
                        help="expected wall-clock hours at the requested width")
    parser.add_argument("--plan", metavar="PLAN.md",
                        help="take intent, width, length and launch from this plan's §9 block")
    parser.add_argument("--phase", metavar="NAME",
                        help="the §9 phase to use (needed when the plan has several)")


def _gcp_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gcp-project", metavar="P",
                        help="GCP project (default: $GOOGLE_CLOUD_PROJECT)")
    parser.add_argument("--gcp-endpoint", metavar="URL",
                        help="Compute Engine endpoint; http://127.0.0.1:PORT is the emulator")


def _skip_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--skip-backend", action="append", choices=("gcp", "slurm", "runpod"),
                        metavar="NAME", help="leave this backend out on purpose (repeatable)")


def _backend_flags(parser: argparse.ArgumentParser) -> None:
    """What sweep and check share: the ladder, every backend's endpoint, the
    backends to leave out, and the output format."""
    parser.add_argument("--ladder", metavar="FILE")
    _gcp_flags(parser)
    parser.add_argument("--runpod-endpoint", metavar="URL")
    _skip_flag(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _duration(text: str) -> float:
    import re

    match = re.fullmatch(r"(\d{1,6}(?:\.\d{1,3})?)([smhd]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"invalid age {text!r}: expected e.g. 90s, 30m, 6h, "
                                         "2d")
    return float(match.group(1)) * _UNITS[match.group(2) or "s"]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="backend-router",
                     description="Plan and run the width-aware GCP → SLURM → RunPod ladder.")
    parser.add_argument("--version", action="version", version=f"backend-router {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plan = sub.add_parser("plan", help="print the ladder for a request without touching a cloud")
    _request_flags(plan)
    plan.add_argument("--ladder", metavar="FILE",
                      help="ladder config (default: the workspace's, else packaged)")
    plan.add_argument("--format", choices=("text", "json"), default="text")
    plan.add_argument("--check-quota", action="store_true",
                      help="read regional quotas (real client) and mark rungs that can never "
                           "launch")
    plan.add_argument("--prune", action="store_true",
                      help="with --check-quota: drop the rungs that can never launch")
    _gcp_flags(plan)

    dispatch = sub.add_parser("dispatch", help="walk the ladder for real and launch COMMAND",
                              usage="backend-router dispatch --intent I --gpu-count N --hours H "
                                    "[options] -- COMMAND...")
    _request_flags(dispatch)
    dispatch.add_argument("--ladder", metavar="FILE")
    dispatch.add_argument("--events", metavar="FILE", help="also append events to FILE")
    _gcp_flags(dispatch)
    dispatch.add_argument("--runpod-endpoint", metavar="URL",
                          help="RunPod API base URL; http://127.0.0.1:PORT is the emulator")
    dispatch.add_argument("--dispatch-id", metavar="ID",
                          help="reuse an id to resume after a crash without duplicating machines")
    dispatch.add_argument("--slurm-output", metavar="DIR", help="where SLURM job output goes")
    dispatch.add_argument("--follow", action="store_true",
                          help="after the launch, wait for the workload and report how it ended")
    dispatch.add_argument("--follow-interval", type=_positive, default=30.0, metavar="S",
                          help="seconds between looks at a followed workload (default 30)")
    dispatch.add_argument("--wait-lease", action="store_true",
                          help="if another dispatcher holds this dispatch id, wait for it "
                               "instead of exiting 2")
    _skip_flag(dispatch)
    dispatch.add_argument("--json", action="store_true",
                          help="JSON events on stdout even when it is a terminal")

    sweep = sub.add_parser("sweep", help="delete what dispatches left behind (all but each "
                                         "dispatch's selection)")
    which = sweep.add_mutually_exclusive_group(required=True)
    which.add_argument("--dispatch-id", metavar="ID", help="sweep this dispatch")
    which.add_argument("--older-than", type=_duration, metavar="AGE",
                       help="sweep every dispatch's leftovers older than AGE (e.g. 30m, 6h, 2d)")
    sweep.add_argument("--all", action="store_true",
                       help="release the selection too (the workload is stopped)")
    _backend_flags(sweep)

    check = sub.add_parser("check", help="can each backend on the ladder be used?")
    _backend_flags(check)

    simulate = sub.add_parser("simulate", help="replay the dispatch walk on a virtual clock "
                                               "under a capacity model, per policy")
    _request_flags(simulate)
    model = simulate.add_mutually_exclusive_group(required=True)
    model.add_argument("--capacity", metavar="MODEL.yaml", help="a capacity model file")
    model.add_argument("--from-ledger", nargs="?", const="", metavar="PATH",
                       help="estimate the model from a `ledger export` file (no PATH: the "
                            "configured ledger)")
    simulate.add_argument("--policy", action="append", metavar="P",
                          help="ladder (default), narrow, serial-zones, wide-slurm, or a ladder "
                               "FILE (repeatable)")
    simulate.add_argument("--ladder", action="append", metavar="FILE",
                          help="the workspace ladder: the base of the built-in policies")
    simulate.add_argument("--runs", type=_runs, default=1000, metavar="N",
                          help="simulated runs per policy (default 1000)")
    simulate.add_argument("--seed", type=_seed, default=0, metavar="S")
    simulate.add_argument("--format", choices=("text", "json"), default="text")
    simulate.add_argument("--plot", metavar="DIR",
                          help="write makespan CDFs and where runs landed, PNG and SVG")

    from router.ledger_cmd import add_parser as add_ledger

    add_ledger(sub)

    emulator = sub.add_parser("emulator", help="serve the GCE and RunPod emulator on 127.0.0.1")
    emulator.add_argument("--capacity", required=True, metavar="FILE")
    emulator.add_argument("--port", type=_port, default=0, metavar="N")
    faults = emulator.add_argument_group("faults (override the capacity file's faults:)")
    faults.add_argument("--latency-ms", type=_latency_ms, metavar="MS",
                        help="added to every insert")
    for name, help_text in (("error-5xx-rate", "inserts answered 500"),
                            ("rate-limit-rate", "inserts answered 429"),
                            ("timeout-rate", "inserts that stall; nothing created"),
                            ("silent-operation-error-rate",
                             "DONE operations with error.errors and no HTTP status"),
                            ("insert-timeout-creates-rate",
                             "inserts that stall but still create the VM"),
                            ("reclaim-after-insert-rate",
                             "SPOT/FLEX_START VMs reclaimed as soon as their insert is DONE")):
        faults.add_argument(f"--{name}", type=_rate, metavar="P", help=help_text)
    faults.add_argument("--async-capacity-errors", action="store_true", default=None,
                        help="capacity misses as failed operations instead of 503s")
    faults.add_argument("--timeout-s", type=_timeout_s, metavar="S",
                        help="how long a stalled response stalls")
    faults.add_argument("--seed", type=_seed, metavar="N", help="fault dice seed")
    return parser


def input_errors() -> tuple[type[Exception], ...]:
    """Bad input of every kind: one line, exit 2 (imported on use: startup stays cheap)."""
    from router.config import ConfigError
    from router.plan_source import PlanSourceError
    from router.planner import RequestError
    from router.section9 import PlanError
    from router.workspace import WorkspaceError

    return (UsageError, ConfigError, RequestError, PlanSourceError, PlanError, WorkspaceError)


def main(argv: Sequence[str] | None = None) -> int:
    errors = input_errors()
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1:]
    try:
        args = build_parser().parse_args(argv)
        if args.command == "plan":
            from router.plan_cmd import run_plan

            return run_plan(args)
        if args.command == "dispatch":
            from router.dispatch_cmd import run_dispatch

            return run_dispatch(args, command)
        if args.command == "sweep":
            from router.sweep_cmd import run_sweep

            return run_sweep(args)
        if args.command == "ledger":
            from router.ledger_cmd import run_ledger

            return run_ledger(args)
        if args.command == "check":
            from router.check_cmd import run_check

            return run_check(args)
        if args.command == "simulate":
            from router.simulate_cmd import run_simulate

            return run_simulate(args)
        if args.command == "emulator":
            from router.emulator.server import serve
            from router.emulator.state import CapacityError

            overrides = {key: value for key in (
                "latency_ms", "error_5xx_rate", "rate_limit_rate", "timeout_rate",
                "silent_operation_error_rate", "insert_timeout_creates_rate",
                "reclaim_after_insert_rate",
                "async_capacity_errors", "timeout_s", "seed")
                if (value := getattr(args, key)) is not None}
            try:
                return serve(args.capacity, args.port, overrides)
            except (CapacityError, OSError) as exc:
                raise UsageError(str(exc)) from None
        raise UsageError(f"unknown command {args.command!r}")
    except errors as exc:
        from router import redact

        # A §9 block with several schema problems names each on its own line
        # (plan, dispatch and simulate alike); everything else is one line.
        lines = exc.lines() if len(getattr(exc, "problems", ())) > 1 else [exc]
        for line in lines:
            print(f"backend-router: error: {redact.clip(line, 1000)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
