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
from router.planner import Request, validate


def run_dispatch(args: argparse.Namespace, command: list[str]) -> int:
    from router.cli import UsageError

    if not command:
        raise UsageError("dispatch needs a command after '--'")
    cfg = ladder_config.load(args.ladder)
    request = Request(intent=args.intent, width=args.gpu_count, hours=args.hours)
    validate(request, cfg)
    if args.dispatch_id is not None and not DISPATCH_ID.fullmatch(args.dispatch_id):
        raise UsageError(f"invalid --dispatch-id {args.dispatch_id!r}: 1-20 characters of "
                         "a-z, 0-9 and '-', starting with a letter or digit")
    dispatch_id = args.dispatch_id or uuid.uuid4().hex[:12]
    text = command[0] if len(command) == 1 else shlex.join(command)
    workload = Workload(dispatch_id=dispatch_id, command=text)
    try:
        events = EventLog(dispatch_id, args.events)
    except OSError as exc:
        raise UsageError(f"cannot open --events file: {exc.strerror}") from None
    options = Options(
        gcp_project=args.gcp_project or os.environ.get("GOOGLE_CLOUD_PROJECT")
        or os.environ.get("CLOUDSDK_CORE_PROJECT"),
        gcp_endpoint=args.gcp_endpoint, runpod_endpoint=args.runpod_endpoint,
        ledger_path=None, rerun=args.dispatch_id is not None,
        slurm_output_dir=args.slurm_output)
    try:
        return Dispatcher(request, cfg, workload, events, options).walk()
    except DispatchError as exc:
        events.emit("epm:backend-error", message=str(exc)[:500])
        print(f"backend-router: error: {exc}", file=sys.stderr)
        return 2
    finally:
        events.close()
