"""Writes a dispatch's attempts and selection to the ledger as the walk emits
them: an EventLog listener, so the walk itself (router/dispatch.py) knows
nothing of history. A write that fails is kept as the dispatch's failure and
stops the walk at its next safe point, as a failed machine record does
(Context.record): fail closed, never a half-recorded dispatch that looks whole."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from router.ledger import TARGET_KEYS, Ledger, LedgerError

if TYPE_CHECKING:
    from router.backends.base import Context

SELECTED_KEYS = ("backend", "width", "zone", "machine_type", "provisioning", "lane", "gpu_type")


class LedgerRecorder:
    def __init__(self, ledger: Ledger, ctx: Context) -> None:
        self.ledger = ledger
        self.ctx = ctx

    def __call__(self, record: dict[str, Any]) -> None:
        event = record.get("event")
        if event not in ("epm:backend-attempt", "epm:backend-selected"):
            return
        dispatch_id = str(record.get("dispatch_id"))
        try:
            if event == "epm:backend-attempt":
                target = {k: record.get(k) for k in TARGET_KEYS}
                target["queue_wait_seconds"] = _number(record.get("queue_wait_seconds"))
                self.ledger.record_attempt(
                    dispatch_id, float(record.get("ts") or 0.0),
                    _number(record.get("latency_seconds")) or 0.0, str(record.get("backend")),
                    int(record.get("width") or 0), str(record.get("outcome")), target)
            else:
                self.ledger.record_selected(dispatch_id,
                                            {k: record.get(k) for k in SELECTED_KEYS})
        except LedgerError as exc:
            if self.ctx.failure is None:
                self.ctx.failure = str(exc)
            self.ctx.stop.set()


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None
