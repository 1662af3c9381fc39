"""One live dispatcher per dispatch id: a lease in the ledger, renewed by a
heartbeat while the dispatch runs.

A second dispatcher with the same id gets LeaseHeld (exit 2, naming the
holder), or waits for it with --wait-lease. A lease whose holder was killed
is taken over at once on the same host (the holder's process is gone), or
when its time runs out on another (by the ledger's clock: router/ledger.py).
If the heartbeat finds the lease taken (this process stalled past the
lease's time), `lost` is set and the walk stops before it issues or selects
anything more."""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Callable

from router.ledger import Lease, LeaseHeld, Ledger, LedgerError

TTL_SECONDS = 30.0
HEARTBEAT_SECONDS = 5.0
WAIT_POLL_SECONDS = 0.25


class LeaseKeeper:
    def __init__(self, ledger: Ledger, dispatch_id: str, on_lost: Callable[[], None],
                 ttl: float = TTL_SECONDS) -> None:
        self.ledger = ledger
        self.ttl = ttl
        self.heartbeat = min(HEARTBEAT_SECONDS, ttl / 6)  # several beats per lease
        self.dispatch_id = dispatch_id
        self.holder = uuid.uuid4().hex
        self.on_lost = on_lost
        self.lost = False
        self.done = threading.Event()
        self.thread: threading.Thread | None = None

    def acquire(self, wait: bool, stop: threading.Event,
                announce: Callable[[str], None]) -> Lease:
        """Take the lease, or raise LeaseHeld (LedgerError on a broken ledger).
        With wait, poll until it frees; stop (a signal) ends the wait."""
        told = False
        while True:
            try:
                lease = self.ledger.acquire(self.dispatch_id, self.holder, self.ttl)
                break
            except LeaseHeld as held:
                if not wait or stop.is_set():
                    raise
                if not told:
                    other = held.holder
                    announce(f"waiting for dispatch id {self.dispatch_id!r}: held by pid "
                             f"{other.pid} on {other.host}")
                    told = True
                stop.wait(WAIT_POLL_SECONDS)
        self.thread = threading.Thread(target=self._beat, name="lease-heartbeat", daemon=True)
        self.thread.start()
        return lease

    def _beat(self) -> None:
        while not self.done.wait(self.heartbeat):
            try:
                if not self.ledger.renew(self.dispatch_id, self.holder, self.ttl):
                    self.lost = True
                    self.on_lost()
                    return
            except LedgerError:
                continue  # a busy or briefly broken ledger: try again next beat

    def release(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        if not self.lost:
            # On failure it expires by itself: its holder (us) is gone after exit.
            with contextlib.suppress(LedgerError):
                self.ledger.release_lease(self.dispatch_id, self.holder)
