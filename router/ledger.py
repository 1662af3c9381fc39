"""Dispatch's ledger, in SQLite (WAL), shared by every dispatch on a host:

- the per-day GCP attempt cap: a dispatch that touches GCP costs one attempt
  per UTC day, however many rungs and zones its walk tries; rerunning the same
  dispatch id costs nothing more;
- leases: one live dispatcher per dispatch id;
- machines: every insert, job and pod a dispatch sent, written BEFORE it is
  sent, with its state (sent, created, selected, released). A rerun, a sweep
  or a second Ctrl-C reads it to know what may be live and until when an
  unanswered insert can still land.

Every failure surfaces as LedgerError with one line naming the path, so
dispatch can fail closed (exit 2) instead of crashing."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS gcp_attempts (day TEXT NOT NULL, dispatch_id TEXT NOT NULL, "
    "at TEXT NOT NULL, PRIMARY KEY (day, dispatch_id))",
    "CREATE TABLE IF NOT EXISTS leases (dispatch_id TEXT PRIMARY KEY, holder TEXT NOT NULL, "
    "host TEXT NOT NULL, pid INTEGER NOT NULL, started TEXT NOT NULL, acquired REAL NOT NULL, "
    "expires REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS machines (dispatch_id TEXT NOT NULL, backend TEXT NOT NULL, "
    "key TEXT NOT NULL, handle TEXT NOT NULL, state TEXT NOT NULL, sent REAL NOT NULL, "
    "lands_by REAL NOT NULL, PRIMARY KEY (dispatch_id, backend, key))",
)


class LedgerError(Exception):
    """The ledger cannot be used; the message is one line and names the path."""


class LeaseHeld(Exception):
    def __init__(self, holder: Lease) -> None:
        super().__init__(f"dispatch id {holder.dispatch_id!r} is held by a live dispatcher "
                         f"(pid {holder.pid} on {holder.host}, since "
                         f"{_clock(holder.acquired)}); pass --wait-lease to wait for it")
        self.holder = holder


@dataclass(frozen=True)
class Lease:
    dispatch_id: str
    holder: str
    host: str
    pid: int
    started: str  # the holder process's start time, so a reused pid is not mistaken for it
    acquired: float
    expires: float


@dataclass(frozen=True)
class MachineRecord:
    backend: str
    key: str
    handle: dict[str, Any]
    state: str
    sent: float
    lands_by: float


def default_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "backend-router" / "ledger.sqlite"


def process_start(pid: int) -> str | None:
    """The kernel's start time of pid (clock ticks since boot), or None when
    the process is gone or a zombie (killed, not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = raw.rsplit(")", 1)[-1].split()
    if not fields or fields[0] in ("Z", "X"):
        return None
    return fields[19] if len(fields) > 19 else None


def _clock(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class Ledger:
    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self.lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                mode = os.stat(self.path).st_mode
            except FileNotFoundError:
                mode = None
            if mode is not None and not stat.S_ISREG(mode):
                raise LedgerError(f"ledger {self.path}: not a regular file")
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                      check_same_thread=False)
            self.db.execute("PRAGMA busy_timeout=30000")
            self.db.execute("PRAGMA journal_mode=WAL")
            for statement in SCHEMA:
                self.db.execute(statement)
        except LedgerError:
            raise
        except (OSError, sqlite3.Error) as exc:
            raise LedgerError(f"ledger {self.path}: {_why(exc)}") from None

    # ---- plumbing ------------------------------------------------------------------------

    def _tx(self, work: Any) -> Any:
        """Run work(db) inside BEGIN IMMEDIATE: the write lock is taken before
        reading, so two dispatchers never both see a free slot or lease."""
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(self.db)
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")
                return result
            except sqlite3.Error as exc:
                raise LedgerError(f"ledger {self.path}: {_why(exc)}") from None

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise LedgerError(f"ledger {self.path}: {_why(exc)}") from None

    # ---- the per-day GCP attempt cap -----------------------------------------------------

    @staticmethod
    def today() -> str:
        return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")

    def claim(self, dispatch_id: str, cap: int, day: str | None = None) -> tuple[bool, int]:
        """(allowed, attempts today); race-free across processes."""
        day = day or self.today()

        def work(db: sqlite3.Connection) -> tuple[bool, int]:
            seen = db.execute("SELECT 1 FROM gcp_attempts WHERE day=? AND dispatch_id=?",
                              (day, dispatch_id)).fetchone()
            count = db.execute("SELECT COUNT(*) FROM gcp_attempts WHERE day=?",
                               (day,)).fetchone()[0]
            if seen:
                return True, count
            if count >= cap:
                return False, count
            db.execute("INSERT INTO gcp_attempts VALUES (?, ?, ?)",
                       (day, dispatch_id, dt.datetime.now(dt.UTC).isoformat()))
            return True, count + 1

        return self._tx(work)

    # ---- leases --------------------------------------------------------------------------

    def acquire(self, dispatch_id: str, holder: str, ttl: float) -> Lease:
        """Take the lease for dispatch_id, or raise LeaseHeld. A lease whose
        holder is dead (same host, process gone) or whose time ran out is
        taken over."""
        me = Lease(dispatch_id, holder, socket.gethostname(), os.getpid(),
                   process_start(os.getpid()) or "?", time.time(), time.time() + ttl)

        def work(db: sqlite3.Connection) -> Lease:
            row = db.execute("SELECT dispatch_id, holder, host, pid, started, acquired, expires "
                             "FROM leases WHERE dispatch_id=?", (dispatch_id,)).fetchone()
            if row is not None:
                held = Lease(*row)
                if held.holder != holder and _alive(held):
                    raise LeaseHeld(held)
            db.execute("INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (me.dispatch_id, me.holder, me.host, me.pid, me.started, me.acquired,
                        me.expires))
            return me

        return self._tx(work)

    def renew(self, dispatch_id: str, holder: str, ttl: float) -> bool:
        """Extend our lease; False when it is no longer ours."""
        def work(db: sqlite3.Connection) -> bool:
            cur = db.execute("UPDATE leases SET expires=? WHERE dispatch_id=? AND holder=?",
                             (time.time() + ttl, dispatch_id, holder))
            return cur.rowcount == 1

        return self._tx(work)

    def release_lease(self, dispatch_id: str, holder: str) -> None:
        self._tx(lambda db: db.execute("DELETE FROM leases WHERE dispatch_id=? AND holder=?",
                                       (dispatch_id, holder)))

    # ---- machines ------------------------------------------------------------------------

    def record(self, dispatch_id: str, backend: str, key: str, handle: dict[str, Any],
               state: str, lands_by: float | None = None) -> None:
        now = time.time()

        def work(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT sent, lands_by, state FROM machines WHERE dispatch_id=? "
                             "AND backend=? AND key=?", (dispatch_id, backend, key)).fetchone()
            if row and row[2] == "selected" and state in ("created", "missed"):
                return  # a late look at the selected machine does not demote it
            sent = row[0] if row and state != "sent" else now
            until = lands_by if lands_by is not None else (row[1] if row else now)
            db.execute("INSERT OR REPLACE INTO machines VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (dispatch_id, backend, key, json.dumps(handle, sort_keys=True), state,
                        sent, until))

        self._tx(work)

    def machines(self, dispatch_id: str | None = None) -> list[tuple[str, MachineRecord]]:
        sql = "SELECT dispatch_id, backend, key, handle, state, sent, lands_by FROM machines"
        rows = self._query(sql + (" WHERE dispatch_id=?" if dispatch_id else ""),
                           (dispatch_id,) if dispatch_id else ())
        return [(row[0], MachineRecord(row[1], row[2], json.loads(row[3]), row[4], row[5],
                                       row[6])) for row in rows]

    def close(self) -> None:
        with self.lock:
            self.db.close()


def _alive(lease: Lease) -> bool:
    if lease.expires < time.time():
        return False
    if lease.host == socket.gethostname():
        # Same host: the process itself tells us, without waiting out the lease.
        return process_start(lease.pid) == lease.started
    return True


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc) or type(exc).__name__
    if "not a database" in text:
        return "not a ledger (the file is not an SQLite database)"
    return text
