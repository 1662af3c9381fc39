"""A capacity model estimated from what the ledger recorded: the JSON-lines
format of `backend-router ledger export` (one `dispatch` line per dispatch,
one `attempt` line per rung attempt; lines of another kind are ignored).

What can be estimated, and from what:
- GCP, per (zone, machine type, provisioning): the share of attempts that
  launched (the in-stock share), and the mean insert latency. Single
  attempts do not show how long a stockout lasts, so the spells assume a
  mean of ASSUMED_OUT_HOURS out of stock; the report says so.
- SLURM, per lane: the share `unavailable`, and the mean queue wait of the
  attempts that recorded one. A lane with no recorded wait has no queue
  estimate, so no information.
- RunPod, per GPU type: the share of creates that launched.
- Preemptions: an export records attempts, not what happened after a
  launch, so none are modelled; the report says so.
Every estimate carries its sample count; anything never tried is left out,
and a run that reaches it reports "no information" instead of a number."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from router.config import shown_path
from router.simulate.model import (
    DEFAULT_CREATE_LATENCY_S,
    DEFAULT_INSERT_LATENCY_S,
    MAX_HOURS,
    MIN_MEAN_HOURS,
    CapacityModel,
    GcpEntry,
    Lane,
    ModelError,
    Pods,
    Stock,
)

ASSUMED_OUT_HOURS = 1.0
MAX_LINES = 5_000_000
MAX_LINE_CHARS = 100_000
BACKENDS = ("gcp", "slurm", "runpod")
OUTCOMES = ("launched", "capacity-miss", "quota-miss", "unavailable", "cap-reached", "error")
REQUIRED = {
    "dispatch": ("dispatch_id", "started", "ended", "request", "selected", "exit"),
    "attempt": ("dispatch_id", "seq", "at", "latency_seconds", "backend", "width", "outcome",
                "zone", "machine_type", "provisioning", "family", "lane", "gpu_type",
                "queue_wait_seconds"),
}


def read_lines(lines: Iterable[str], source: str) -> list[dict[str, Any]]:
    """The attempt records of an export; ModelError `PATH:LINE: message` for
    a line that is not a JSON object or lacks a required key."""
    attempts: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if number > MAX_LINES:
            raise ModelError(f"{shown_path(source)}: more than {MAX_LINES} lines")
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            raise _bad(source, number, f"line longer than {MAX_LINE_CHARS} characters")
        try:
            record = json.loads(line)
        except ValueError:
            raise _bad(source, number, "not a JSON object") from None
        attempt = check_record(record, source, number)
        if attempt is not None:
            attempts.append(attempt)
    return attempts


def check_record(record: Any, source: str, number: int) -> dict[str, Any] | None:
    """An attempt record (checked), None for another kind, or ModelError."""
    if not isinstance(record, dict):
        raise _bad(source, number, "not a JSON object")
    kind = record.get("kind")
    if kind not in REQUIRED:
        return None  # an unknown kind: additive evolution, ignored
    missing = [key for key in REQUIRED[kind] if key not in record]
    if missing:
        raise _bad(source, number, f"{kind} line lacks required key {missing[0]!r}")
    if kind != "attempt":
        return None
    if record["backend"] not in BACKENDS:
        raise _bad(source, number, f"unknown backend {str(record['backend'])[:40]!r}")
    if record["outcome"] not in OUTCOMES:
        raise _bad(source, number, f"unknown outcome {str(record['outcome'])[:40]!r}")
    for key in ("latency_seconds", "queue_wait_seconds"):
        value = record[key]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not 0 <= value <= 1e9):
            raise _bad(source, number, f"{key} must be a number >= 0 or null")
    for key in ("zone", "machine_type", "provisioning", "lane", "gpu_type"):
        if record[key] is not None and not isinstance(record[key], str):
            raise _bad(source, number, f"{key} must be a string or null")
    return record


def _bad(source: str, number: int, message: str) -> ModelError:
    return ModelError(f"{shown_path(source)}:{number}: {message}")


def estimate(attempts: list[dict[str, Any]], source: str) -> CapacityModel:
    """The capacity model these attempts support. ModelError when there is
    nothing to estimate from."""
    if not attempts:
        raise ModelError(f"{shown_path(source)}: the ledger has no attempts recorded: nothing "
                         "to estimate a capacity model from")
    model = CapacityModel(f"ledger {source}")
    gcp: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    lanes: dict[str, list[dict[str, Any]]] = {}
    pods: dict[str, list[dict[str, Any]]] = {}
    for a in attempts:
        if a["outcome"] in ("error", "cap-reached", "quota-miss"):
            continue  # about us (credentials, cap, quota), not about capacity
        if a["backend"] == "gcp" and a["zone"] and a["machine_type"] and a["provisioning"]:
            gcp.setdefault((a["zone"], a["machine_type"], a["provisioning"]), []).append(a)
        elif a["backend"] == "slurm" and a["lane"]:
            lanes.setdefault(a["lane"], []).append(a)
        elif a["backend"] == "runpod" and a["gpu_type"]:
            pods.setdefault(a["gpu_type"], []).append(a)
    for (zone, machine_type, provisioning), tries in sorted(gcp.items()):
        share = _launched_share(tries)
        stock_in = MAX_HOURS if share == 1 else min(MAX_HOURS, ASSUMED_OUT_HOURS * share /
                                                    (1 - share))
        if 0 < stock_in < MIN_MEAN_HOURS:
            stock_in = MIN_MEAN_HOURS
        stock_out = 0.0 if share == 1 else ASSUMED_OUT_HOURS
        latency = _mean([a["latency_seconds"] for a in tries if a["latency_seconds"]])
        model.gcp.append(GcpEntry((machine_type,), (provisioning,), (zone,),
                                  Stock(stock_in, stock_out, 0.0,
                                        DEFAULT_INSERT_LATENCY_S if latency is None else latency,
                                        len(tries))))
    for lane, tries in sorted(lanes.items()):
        waits: dict[int, list[float]] = {}
        for a in tries:
            if a["queue_wait_seconds"] is not None:
                waits.setdefault(a["width"], []).append(a["queue_wait_seconds"] / 60)
        if not waits:
            continue  # no queue wait recorded: no information about this lane
        every = [w for values in waits.values() for w in values]
        unavailable = sum(a["outcome"] == "unavailable" for a in tries) / len(tries)
        by_width = {width: sum(v) / len(v) for width, v in waits.items()} \
            if len(waits) > 1 else {}
        model.slurm[lane] = Lane(sum(every) / len(every), unavailable, 0.0, samples=len(tries),
                                 wait_minutes_by_width=by_width)
    for gpu_type, tries in sorted(pods.items()):
        latency = _mean([a["latency_seconds"] for a in tries if a["latency_seconds"]])
        model.runpod[gpu_type] = Pods(_launched_share(tries),
                                      DEFAULT_CREATE_LATENCY_S if latency is None else latency,
                                      samples=len(tries))
    counts = [e.stock.samples or 0 for e in model.gcp]
    model.notes = [
        f"estimated from {len(attempts)} recorded attempts: {len(model.gcp)} GCP "
        f"(zone, machine type, provisioning) estimates"
        + (f" from {min(counts)}-{max(counts)} attempts each" if counts else "")
        + f", {len(model.slurm)} SLURM lanes, {len(model.runpod)} RunPod GPU types",
        f"stockout spells assume a {ASSUMED_OUT_HOURS:g} h mean (single attempts do not show "
        "how long one lasts)",
        "no preemptions modelled (an export records attempts, not what happened after a "
        "launch)",
    ]
    return model


def _launched_share(tries: list[dict[str, Any]]) -> float:
    return sum(a["outcome"] == "launched" for a in tries) / len(tries)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def from_file(path: str) -> CapacityModel:
    import os
    import stat

    try:
        # O_NONBLOCK: a FIFO must not hang the command; only a regular file is read.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or "the path cannot be opened"
        raise ModelError(f"{shown_path(path)}: cannot read ledger export: {why}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ModelError(f"{shown_path(path)}: ledger export is not a regular file")
        with os.fdopen(fd, encoding="utf-8") as handle:
            attempts = read_lines(handle, path)
    except OSError as exc:
        raise ModelError(f"{shown_path(path)}: cannot read ledger export: "
                         f"{exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ModelError(f"{shown_path(path)}: ledger export is not UTF-8 text") from None
    return estimate(attempts, path)


def from_ledger(ledger: Any, where: str) -> CapacityModel:
    """The configured ledger, read through `Ledger.export()` (dicts of the
    export format) when this ledger has one."""
    export = getattr(ledger, "export", None)
    if export is None:
        raise ModelError("this ledger cannot export yet; run `backend-router ledger export > "
                         "FILE` and pass FILE")
    attempts = []
    for number, record in enumerate(export(), 1):
        attempt = check_record(record, where, number)
        if attempt is not None:
            attempts.append(attempt)
    return estimate(attempts, where)
