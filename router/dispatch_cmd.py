"""`backend-router dispatch`: validate input, then walk the ladder."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import uuid

from router import config as ladder_config
from router.backends.base import DispatchError, Workload
from router.dispatch import DISPATCH_ID, Dispatcher, Options
from router.events import EventLog
from router.planner import validate


def run_dispatch(args: argparse.Namespace, command: list[str]) -> int:
    from router.cliutil import UsageError
    from router.plan_source import resolve

    cfg = ladder_config.load(args.ladder)
    source = resolve(args, cfg, command)
    request = source.request
    if not command and source.launch is None:
        raise UsageError("dispatch needs a command after '--' (or --plan with a launch)")
    validate(request, cfg)
    if args.dispatch_id is not None and not DISPATCH_ID.fullmatch(args.dispatch_id):
        raise UsageError(f"invalid --dispatch-id {args.dispatch_id!r}: 1-20 characters of "
                         "a-z, 0-9 and '-', starting with a letter or digit")
    dispatch_id = args.dispatch_id or uuid.uuid4().hex[:12]
    if source.launch is not None:
        text = source.launch
    else:
        text = command[0] if len(command) == 1 else shlex.join(command)
    sharded = source.phase is not None and source.phase.shardable_axis is not None
    workload = Workload(dispatch_id=dispatch_id, command=text, sharded=sharded)
    selected_extra = {"phase": source.phase.name, "plan": source.plan_path} \
        if source.phase is not None else {}
    try:
        events = EventLog(dispatch_id, args.events)
    except OSError as exc:
        raise UsageError(f"cannot open --events file: {exc.strerror}") from None
    options = Options(
        gcp_project=args.gcp_project or os.environ.get("GOOGLE_CLOUD_PROJECT")
        or os.environ.get("CLOUDSDK_CORE_PROJECT"),
        gcp_endpoint=args.gcp_endpoint, runpod_endpoint=args.runpod_endpoint,
        rerun=args.dispatch_id is not None,
        slurm_output_dir=args.slurm_output)
    try:
        dispatcher = Dispatcher(request, cfg, workload, events, options,
                                selected_extra=selected_extra)
        code = dispatcher.walk()
        if code == 0 and args.follow:
            from router.follow import follow

            follow(dispatcher, args.follow_interval)
        return code
    except DispatchError as exc:
        events.emit("epm:backend-error", message=str(exc)[:500])
        print(f"backend-router: error: {exc}", file=sys.stderr)
        return 2
    finally:
        events.close()
