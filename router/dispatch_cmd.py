"""`backend-router dispatch`: validate input, take the lease, walk the ladder,
and clean up whatever happens.

Fail closed: a ledger, events-file or config error is exit 2 with one line
on stderr and an `epm:backend-error` event, never exit 1 (which means every
rung missed) and never a traceback. SIGINT / SIGTERM stop the walk at its
next safe point, release every unselected machine, emit
`epm:backend-cancelled` and exit 130 / 143; a second one stops at once and
prints what may still be live and the command that cleans it up."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import time
import uuid
from typing import Any

from router import redact
from router.backends import Endpoints
from router.backends.base import DispatchError, Workload
from router.console import Console, describe
from router.dispatch import DISPATCH_ID, Cancelled, Dispatcher, Options
from router.events import EventLog, EventsFileError

EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}


def run_dispatch(args: argparse.Namespace, command: list[str]) -> int:
    dispatch_id = args.dispatch_id or uuid.uuid4().hex[:12]
    human = sys.stdout.isatty() and not args.json
    console = Console(human)
    fallback = EventLog(dispatch_id, None, stdout=False if human else None)
    try:
        prepared = _prepare(args, command, dispatch_id, human)
    except EventsFileError as exc:
        return _fail(fallback, f"cannot use --events file {exc}")
    except Exception as exc:
        from router.cli import input_errors

        if isinstance(exc, input_errors()):
            # a §9 block's problems: one stderr line each, one error event for all
            lines = exc.lines() if len(getattr(exc, "problems", ())) > 1 else [str(exc)]
            return _fail(fallback, *lines)
        raise
    events, dispatcher_args = prepared
    try:
        return _run(args, events, console, *dispatcher_args)
    finally:
        events.close()


def _fail(events: EventLog, *lines: str) -> int:
    shown = [redact.clip(line, 1000) for line in lines]
    events.emit("epm:backend-error", message="; ".join(shown))
    for line in shown:
        print(f"backend-router: error: {line}", file=sys.stderr)
    return 2


def _prepare(args: argparse.Namespace, command: list[str], dispatch_id: str,
             human: bool) -> tuple[EventLog, tuple[Any, ...]]:
    from router.backends import require_sdks
    from router.check_cmd import ladder_backends
    from router.cliutil import UsageError
    from router.plan_source import resolve
    from router.planner import validate
    from router.workspace import load_ladder

    if args.dispatch_id is not None and not DISPATCH_ID.fullmatch(args.dispatch_id):
        raise UsageError(f"invalid --dispatch-id {args.dispatch_id!r}: 1-20 characters of "
                         "a-z, 0-9 and '-', starting with a letter or digit")
    cfg = load_ladder(args.ladder, args.plan)
    source = resolve(args, cfg, command)
    request = source.request
    validate(request, cfg)
    if source.launch is not None:
        text = source.launch
    elif not command:
        raise UsageError("dispatch needs a command after '--' (or --plan with a launch)")
    else:
        text = command[0] if len(command) == 1 else shlex.join(command)
    if not text.strip():
        raise UsageError("the launch command is empty: a machine would run nothing")
    sharded = source.phase is not None and source.phase.shardable_axis is not None
    workload = Workload(dispatch_id=dispatch_id, command=text, sharded=sharded)
    selected_extra = {"phase": source.phase.name, "plan": source.plan_path} \
        if source.phase is not None else {}
    events = EventLog(dispatch_id, args.events, stdout=False if human else None)
    options = Options(where=Endpoints.from_args(args), rerun=args.dispatch_id is not None)
    require_sdks([n for n in ladder_backends(cfg) if n not in options.where.skip], "dispatch")
    return events, (request, cfg, workload, options, selected_extra)


def _run(args: argparse.Namespace, events: EventLog, console: Console, request: Any,
         cfg: Any, workload: Workload, options: Options, selected_extra: dict) -> int:
    from router.lease import LeaseKeeper
    from router.ledger import LeaseHeld, LedgerError, open_ledger
    from router.ledger_events import LedgerRecorder

    released: list[dict[str, Any]] = []
    events.listeners.append(lambda r: released.append(r)
                            if r["event"] == "epm:backend-released" else None)
    try:
        # Before the first attempt: an unreachable or mismatched ledger is
        # exit 2 here, never a silent fallback to a local file.
        ledger = open_ledger(cfg.ledger, cfg.ledger_day_timezone)
    except LedgerError as exc:
        return _fail(events, str(exc))
    dispatcher = Dispatcher(request, cfg, workload, events, options, console,
                            selected_extra=selected_extra, ledger=ledger)
    keeper = LeaseKeeper(ledger, workload.dispatch_id, on_lost=lambda: dispatcher.cancel(0))
    previous = _install_signals(dispatcher, console, options, args)
    code: int | None = None
    started = False
    try:
        try:
            keeper.acquire(args.wait_lease, dispatcher.ctx.stop, console.announce)
        except LeaseHeld as exc:
            if dispatcher.signum is not None:  # Ctrl-C while waiting for the lease
                raise Cancelled(dispatcher.signum) from None
            return _fail(events, str(exc))
        if dispatcher.signum is not None:
            raise Cancelled(dispatcher.signum)
        # Only the lease holder writes the dispatch's history.
        ledger.start_dispatch(workload.dispatch_id, {"intent": request.intent,
                                                     "width": request.width,
                                                     "hours": request.hours}, time.time())
        started = True
        events.listeners.append(LedgerRecorder(ledger, dispatcher.ctx))
        code = dispatcher.run()
        if dispatcher.cleanup_errors:
            return 2  # a machine may outlive us: never report plain success
        if dispatcher.signum is not None:  # it came while the last requests settled
            raise Cancelled(dispatcher.signum)
        # The dispatch ends here; following the workload is not part of its duration.
        _end(ledger, workload.dispatch_id, code)
        started = False
        if code == 0 and args.follow:
            from router.follow import follow

            follow(dispatcher, args.follow_interval)
        if dispatcher.selected_event is not None:
            console.close(console.selected(dispatcher.selected_event))
        elif code == 1:
            console.close(console.exhausted())
        return code
    except Cancelled as stop:
        if keeper.lost:
            return _fail(events, "another dispatcher took over the lease on dispatch id "
                                 f"{workload.dispatch_id!r}: stopped, unselected machines "
                                 "released")
        code = EXIT_SIGNAL.get(signal.Signals(stop.signum), 130)
        name = signal.Signals(stop.signum).name
        events.emit("epm:backend-cancelled", signal=name, released=len(released),
                    selected=bool(dispatcher.selection), complete=True)
        console.close(f"cancelled by {name} after {console.attempts} attempts; released "
                      f"{len(released)} machine(s)"
                      + (f"; kept the selection {describe(dispatcher.selected_event or {})}"
                         if dispatcher.selection else ""))
        return code
    except (DispatchError, LedgerError) as exc:
        code = 2
        return _fail(events, str(exc))
    finally:
        for problem in dispatcher.cleanup_errors:
            _fail(events, f"cleanup: {problem}")
        if started and not keeper.lost:  # a lost lease: the new holder owns the record
            _end(ledger, workload.dispatch_id, 2 if dispatcher.cleanup_errors or code is None
                 else code)
        keeper.release()
        ledger.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _end(ledger: Any, dispatch_id: str, code: int) -> None:
    """The dispatch's end, for `ledger history`. A ledger that fails now has
    nothing left to protect: the walk is over and its machines are recorded."""
    from router.ledger import LedgerError

    with contextlib.suppress(LedgerError):
        ledger.end_dispatch(dispatch_id, code, time.time())


def _install_signals(dispatcher: Dispatcher, console: Console, options: Options,
                     args: argparse.Namespace) -> dict[int, Any]:
    def handle(signum: int, _frame: Any) -> None:
        if dispatcher.signum is None:
            dispatcher.cancel(signum)
            console.announce(f"{signal.Signals(signum).name}: stopping; releasing every "
                             "machine not selected (again to stop at once)")
            return
        _hard_stop(dispatcher, signum, options, args)

    previous = {}
    for signum in EXIT_SIGNAL:
        # Not the main thread (embedded use): no handler, no change.
        with contextlib.suppress(ValueError):
            previous[signum] = signal.signal(signum, handle)
    return previous


def _hard_stop(dispatcher: Dispatcher, signum: int, options: Options,
               args: argparse.Namespace) -> None:
    """The second signal: say what may still be live and how to clean it up,
    then leave now."""
    live = dispatcher.may_be_live()
    dispatch_id = dispatcher.ctx.workload.dispatch_id
    sweep = ["backend-router", "sweep", "--dispatch-id", dispatch_id]
    for flag, value in (("--ladder", args.ladder), ("--gcp-project", options.where.gcp_project),
                        ("--gcp-endpoint", options.where.gcp_endpoint),
                        ("--runpod-endpoint", options.where.runpod_endpoint)):
        if value:
            sweep += [flag, value]
    for name in sorted(options.where.skip):
        sweep += ["--skip-backend", name]
    lines = [f"stopped at once by a second {signal.Signals(signum).name}; "
             f"{len(live)} machine(s) may still be live:"]
    lines += [f"  {describe({'backend': m.backend, **m.details, **m.handle})} "
              f"{m.handle.get('instance', '')}".rstrip() for m in live]
    lines.append(f"clean up with: {shlex.join(sweep)}")
    try:
        dispatcher.events.emit("epm:backend-cancelled", signal=signal.Signals(signum).name,
                               complete=False, may_be_live=[m.handle for m in live],
                               sweep=shlex.join(sweep))
        sys.stderr.write("\n" + "\n".join(lines) + "\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_SIGNAL.get(signal.Signals(signum), 130))
