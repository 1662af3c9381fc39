"""Dispatch's ledger: one interface, two backends (SQLite, the embedded
default, and PostgreSQL, shared by many dispatch hosts), chosen by
`open_ledger` from the setting (a path, or a postgresql:// URL):

- the per-day GCP attempt cap: a dispatch that touches GCP costs one attempt
  per day (in the config's `ledger_day_timezone`), however many rungs and
  zones its walk tries; rerunning the same dispatch id costs nothing more;
- leases: one live dispatcher per dispatch id, with expiry and takeover;
- machines: every insert, job and pod a dispatch sent, written BEFORE it is
  sent, with its state (sent, created, selected, released). A rerun, a sweep
  or a second Ctrl-C reads it to know what may be live and until when an
  unanswered insert can still land;
- dispatches, attempts and sweeps, for `backend-router ledger history|export`.

The semantics are written once, here; a backend supplies only transactions,
its lock primitive, its clock and its catalog (router/ledger_pg.py explains
PostgreSQL's). Every failure surfaces as LedgerError with one line naming the
ledger, so dispatch can fail closed (exit 2) instead of crashing."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import sqlite3
import stat
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from router import ledger_schema

T = TypeVar("T")
ENV_SETTING = "BACKEND_ROUTER_LEDGER"
ENV_HOST = "BACKEND_ROUTER_HOST"
URL_SCHEMES = ("postgresql://", "postgres://")
# The rung details an attempt or selection keeps (the export format's keys).
TARGET_KEYS = ("zone", "machine_type", "provisioning", "family", "lane", "gpu_type")


class LedgerError(Exception):
    """The ledger cannot be used; the message is one line and names the ledger."""


class LedgerSchemaError(LedgerError):
    """The ledger's schema is missing, older or newer than this code."""


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


def host_name() -> str:
    """This host's name in leases. BACKEND_ROUTER_HOST overrides it (containers
    that share a hostname; tests that play several hosts)."""
    return (os.environ.get(ENV_HOST) or socket.gethostname())[:200]


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


def is_url(setting: str | None) -> bool:
    return bool(setting) and "://" in str(setting)


def effective_setting(configured: str | None) -> str | None:
    """BACKEND_ROUTER_LEDGER, when set, wins over the config's `ledger`: one
    host (a CI runner) can join a shared ledger without editing the workspace."""
    return os.environ.get(ENV_SETTING) or configured


def open_ledger(setting: str | None, day_timezone: str = "UTC", *,
                check: bool = True) -> Ledger:
    """The ledger a setting names: a postgresql:// URL, else an SQLite path
    (None: the per-user state dir). `check` refuses a schema that does not
    match this code (LedgerSchemaError); `ledger init|upgrade` pass False."""
    setting = effective_setting(setting)
    if is_url(setting):
        if not str(setting).startswith(URL_SCHEMES):
            scheme = str(setting).split("://", 1)[0][:20]
            raise LedgerError(f"ledger: unsupported URL scheme {scheme!r}: use a path (SQLite) "
                              "or postgresql://HOST/DB")
        from router.ledger_pg import PostgresLedger

        ledger: Ledger = PostgresLedger(str(setting), day_timezone)
    else:
        ledger = SqliteLedger(setting, day_timezone)
    if check:
        try:
            ledger.check_schema()
        except LedgerError:
            ledger.close()
            raise
    return ledger


class Ledger(ABC):
    """What dispatch, sweep and `ledger` use; they cannot tell backends apart."""

    label: str  # names the ledger in messages (a path, or a URL without password)

    def __init__(self, day_timezone: str = "UTC") -> None:
        self.lock = threading.RLock()
        self.day_timezone = day_timezone
        try:
            self.zone = ZoneInfo(day_timezone)
        except (ValueError, OSError, KeyError):
            raise LedgerError(f"ledger: unknown day time zone {day_timezone!r}") from None

    # ---- what a backend supplies ---------------------------------------------------------

    @abstractmethod
    def _tx(self, work: Callable[[Any], T]) -> T:
        """Run work(db) in one transaction; db.execute(sql with ?, args)."""

    @abstractmethod
    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    @abstractmethod
    def _lock(self, db: Any, name: str) -> None:
        """Own `name` until the transaction ends, before reading what it guards."""

    @abstractmethod
    def _now(self, db: Any) -> float:
        """The ledger's clock (epoch seconds): every host reads the same one."""

    @abstractmethod
    def _tables(self, db: Any) -> set[str]: ...

    @abstractmethod
    def _schema_lock(self, db: Any) -> None:
        """Serialize schema changes (two `ledger init` at once)."""

    real_type = "REAL"

    @abstractmethod
    def close(self) -> None: ...

    # ---- schema --------------------------------------------------------------------------

    def _version(self, db: Any) -> int | None:
        """The schema version; 0 for an unversioned old ledger, None when empty."""
        tables = self._tables(db)
        if "ledger_schema" in tables:
            row = db.execute("SELECT MAX(version) FROM ledger_schema").fetchone()
            return int(row[0]) if row and row[0] is not None else 0
        return 0 if tables & ledger_schema.VERSION_0_TABLES else None

    def schema_version(self) -> int | None:
        return self._tx(self._version)

    def check_schema(self) -> None:
        problem = self._schema_problem(self.schema_version())
        if problem:
            raise LedgerSchemaError(problem)

    def _schema_problem(self, version: int | None) -> str | None:
        current = ledger_schema.SCHEMA_VERSION
        if version is None:
            return f"ledger {self.label}: no ledger here yet: run `backend-router ledger init`"
        if version < current:
            return (f"ledger {self.label}: schema version {version} is older than this "
                    f"router's ({current}): run `backend-router ledger upgrade`")
        if version > current:
            return (f"ledger {self.label}: schema version {version} is newer than this "
                    f"router's ({current}): upgrade the router: "
                    "`pip install -U width-aware-workflow`")
        return None

    def migrate(self, *, create: bool) -> tuple[int | None, int]:
        """Bring the schema to the current version: (from, to). `create`
        (init) makes a new ledger; without it (upgrade) an empty one is refused,
        and with it an old one is (each names the other command)."""
        def work(db: Any) -> tuple[int | None, int]:
            self._schema_lock(db)
            version = self._version(db)
            current = ledger_schema.SCHEMA_VERSION
            refused = ((version is None and not create)
                       or (version is not None and version < current and create)
                       or (version is not None and version > current))
            if refused:
                raise LedgerSchemaError(self._schema_problem(version) or "")
            for target, statements in ledger_schema.steps(version or 0, self.real_type):
                for statement in statements:
                    db.execute(statement)
                db.execute("DELETE FROM ledger_schema")
                db.execute("INSERT INTO ledger_schema (version) VALUES (?)", (target,))
            return version, current

        return self._tx(work)

    # ---- the per-day GCP attempt cap -----------------------------------------------------

    def day_of(self, ts: float) -> str:
        return dt.datetime.fromtimestamp(ts, self.zone).strftime("%Y-%m-%d")

    def today(self) -> str:
        return self._tx(lambda db: self.day_of(self._now(db)))

    def claim(self, dispatch_id: str, cap: int, day: str | None = None) -> tuple[bool, int]:
        """(allowed, attempts that day); counted and claimed in one transaction
        that owns the day's lock, so no two dispatchers see the same free slot."""
        def work(db: Any) -> tuple[bool, int]:
            now = self._now(db)
            today = day or self.day_of(now)
            self._lock(db, f"gcp-day:{today}")
            seen = db.execute("SELECT 1 FROM gcp_attempts WHERE day=? AND dispatch_id=?",
                              (today, dispatch_id)).fetchone()
            count = db.execute("SELECT COUNT(*) FROM gcp_attempts WHERE day=?",
                               (today,)).fetchone()[0]
            if seen:
                return True, count
            if count >= cap:
                return False, count
            db.execute("INSERT INTO gcp_attempts (day, dispatch_id, at) VALUES (?, ?, ?)",
                       (today, dispatch_id, dt.datetime.fromtimestamp(now, dt.UTC).isoformat()))
            return True, count + 1

        return self._tx(work)

    def cap_use(self, cap: int) -> dict[str, Any]:
        def work(db: Any) -> dict[str, Any]:
            today = self.day_of(self._now(db))
            ids = [r[0] for r in db.execute("SELECT dispatch_id FROM gcp_attempts WHERE day=? "
                                            "ORDER BY at, dispatch_id", (today,)).fetchall()]
            return {"day": today, "timezone": self.day_timezone, "cap": cap, "used": len(ids),
                    "remaining": max(0, cap - len(ids)), "dispatch_ids": ids}

        return self._tx(work)

    # ---- leases --------------------------------------------------------------------------

    def acquire(self, dispatch_id: str, holder: str, ttl: float) -> Lease:
        """Take the lease for dispatch_id, or raise LeaseHeld. A lease whose
        holder is dead (same host, process gone) or whose time ran out (by the
        ledger's clock) is taken over."""
        def work(db: Any) -> Lease:
            self._lock(db, f"lease:{dispatch_id}")
            now = self._now(db)
            row = db.execute("SELECT dispatch_id, holder, host, pid, started, acquired, expires "
                             "FROM leases WHERE dispatch_id=?", (dispatch_id,)).fetchone()
            if row is not None:
                held = Lease(*row)
                if held.holder != holder and _alive(held, now):
                    raise LeaseHeld(held)
            me = Lease(dispatch_id, holder, host_name(), os.getpid(),
                       process_start(os.getpid()) or "?", now, now + ttl)
            db.execute("INSERT INTO leases (dispatch_id, holder, host, pid, started, acquired, "
                       "expires) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dispatch_id) DO "
                       "UPDATE SET holder=excluded.holder, host=excluded.host, pid=excluded.pid, "
                       "started=excluded.started, acquired=excluded.acquired, "
                       "expires=excluded.expires",
                       (me.dispatch_id, me.holder, me.host, me.pid, me.started, me.acquired,
                        me.expires))
            return me

        return self._tx(work)

    def renew(self, dispatch_id: str, holder: str, ttl: float) -> bool:
        """Extend our lease; False when it is no longer ours."""
        def work(db: Any) -> bool:
            self._lock(db, f"lease:{dispatch_id}")
            cur = db.execute("UPDATE leases SET expires=? WHERE dispatch_id=? AND holder=?",
                             (self._now(db) + ttl, dispatch_id, holder))
            return cur.rowcount == 1

        return self._tx(work)

    def release_lease(self, dispatch_id: str, holder: str) -> None:
        def work(db: Any) -> None:
            self._lock(db, f"lease:{dispatch_id}")
            db.execute("DELETE FROM leases WHERE dispatch_id=? AND holder=?",
                       (dispatch_id, holder))

        self._tx(work)

    # ---- machines ------------------------------------------------------------------------

    def record(self, dispatch_id: str, backend: str, key: str, handle: dict[str, Any],
               state: str, lands_by: float | None = None) -> None:
        # The dispatching host's clock: these times are compared with its own
        # deadlines (when an insert can still land), never across hosts.
        now = time.time()

        def work(db: Any) -> None:
            row = db.execute("SELECT sent, lands_by, state FROM machines WHERE dispatch_id=? "
                             "AND backend=? AND key=?", (dispatch_id, backend, key)).fetchone()
            if row and row[2] == "selected" and state in ("created", "missed"):
                return  # a late look at the selected machine does not demote it
            sent = row[0] if row and state != "sent" else now
            until = lands_by if lands_by is not None else (row[1] if row else now)
            db.execute("INSERT INTO machines (dispatch_id, backend, key, handle, state, sent, "
                       "lands_by) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dispatch_id, "
                       "backend, key) DO UPDATE SET handle=excluded.handle, "
                       "state=excluded.state, sent=excluded.sent, lands_by=excluded.lands_by",
                       (dispatch_id, backend, key, json.dumps(handle, sort_keys=True), state,
                        sent, until))

        self._tx(work)

    def machines(self, dispatch_id: str | None = None) -> list[tuple[str, MachineRecord]]:
        sql = "SELECT dispatch_id, backend, key, handle, state, sent, lands_by FROM machines"
        rows = self._query(sql + (" WHERE dispatch_id=?" if dispatch_id else ""),
                           (dispatch_id,) if dispatch_id else ())
        return [(row[0], MachineRecord(row[1], row[2], json.loads(row[3]), row[4], row[5],
                                       row[6])) for row in rows]

    # ---- dispatches, attempts, sweeps (history and export) -------------------------------

    def start_dispatch(self, dispatch_id: str, request: dict[str, Any], at: float) -> None:
        """A rerun of an id keeps its first start and its attempts, and goes on
        numbering them."""
        self._tx(lambda db: db.execute(
            "INSERT INTO dispatches (dispatch_id, host, started, ended, request, selected, exit) "
            "VALUES (?, ?, ?, NULL, ?, NULL, NULL) ON CONFLICT (dispatch_id) DO UPDATE SET "
            "host=excluded.host, ended=NULL, exit=NULL, request=excluded.request",
            (dispatch_id, host_name(), at, json.dumps(request, sort_keys=True))))

    def record_attempt(self, dispatch_id: str, at: float, latency: float, backend: str,
                       width: int, outcome: str, target: dict[str, Any]) -> None:
        # One statement: the next sequence number is read and written together
        # (a dispatch id's attempts come from its lease holder only).
        self._tx(lambda db: db.execute(
            "INSERT INTO attempts (dispatch_id, seq, at, latency_seconds, backend, width, "
            "outcome, target) SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ? "
            "FROM attempts WHERE dispatch_id=?",
            (dispatch_id, float(at), float(latency), backend, int(width), outcome,
             json.dumps(target, sort_keys=True), dispatch_id)))

    def record_selected(self, dispatch_id: str, selected: dict[str, Any]) -> None:
        self._tx(lambda db: db.execute("UPDATE dispatches SET selected=? WHERE dispatch_id=?",
                                       (json.dumps(selected, sort_keys=True), dispatch_id)))

    def end_dispatch(self, dispatch_id: str, exit_code: int, at: float) -> None:
        self._tx(lambda db: db.execute("UPDATE dispatches SET ended=?, exit=? WHERE "
                                       "dispatch_id=?", (at, exit_code, dispatch_id)))

    def record_sweep(self, dispatch_id: str | None, released: int, kept: int,
                     errors: int) -> None:
        self._tx(lambda db: db.execute(
            "INSERT INTO sweeps (at, host, dispatch_id, released, kept, errors) "
            "VALUES (?, ?, ?, ?, ?, ?)", (time.time(), host_name(), dispatch_id, released,
                                          kept, errors)))

    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        """The most recent dispatches, newest first."""
        rows = self._query(
            "SELECT d.dispatch_id, d.host, d.started, d.ended, d.request, d.selected, d.exit, "
            "(SELECT COUNT(*) FROM attempts a WHERE a.dispatch_id = d.dispatch_id) "
            "FROM dispatches d ORDER BY d.started DESC, d.dispatch_id LIMIT ?", (limit,))
        return [{"dispatch_id": r[0], "host": r[1], "started": r[2], "ended": r[3],
                 "duration_seconds": None if r[3] is None else round(r[3] - r[2], 3),
                 "request": json.loads(r[4]), "selected": _loads(r[5]), "attempts": r[7],
                 "exit": r[6]} for r in rows]

    def sweeps(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self._query("SELECT at, host, dispatch_id, released, kept, errors FROM sweeps "
                           "ORDER BY at DESC LIMIT ?", (limit,))
        keys = ("at", "host", "dispatch_id", "released", "kept", "errors")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def export(self) -> Iterator[dict[str, Any]]:
        """The export format (docs/ledger.md): each dispatch, oldest first,
        followed by its attempts in order."""
        dispatches = self._query("SELECT dispatch_id, started, ended, request, selected, exit "
                                 "FROM dispatches ORDER BY started, dispatch_id")
        attempts: dict[str, list[dict[str, Any]]] = {}
        for r in self._query("SELECT dispatch_id, seq, at, latency_seconds, backend, width, "
                             "outcome, target FROM attempts ORDER BY dispatch_id, seq"):
            target = json.loads(r[7])
            attempts.setdefault(r[0], []).append({
                "kind": "attempt", "dispatch_id": r[0], "seq": r[1], "at": r[2],
                "latency_seconds": r[3], "backend": r[4], "width": r[5], "outcome": r[6],
                **{k: target.get(k) for k in TARGET_KEYS},
                "queue_wait_seconds": target.get("queue_wait_seconds")})
        for r in dispatches:
            yield {"kind": "dispatch", "dispatch_id": r[0], "started": r[1], "ended": r[2],
                   "request": json.loads(r[3]), "selected": _loads(r[4]), "exit": r[5]}
            yield from attempts.pop(r[0], [])
        for rest in attempts.values():  # attempts of a dispatch row that is gone
            yield from rest


class SqliteLedger(Ledger):
    """One file on one host, in WAL mode. Never on a network share: its locks
    are not safe there (docs/ledger.md); share a PostgreSQL ledger instead."""

    def __init__(self, path: str | os.PathLike[str] | None = None,
                 day_timezone: str = "UTC") -> None:
        super().__init__(day_timezone)
        self.path = Path(path) if path else default_path()
        self.label = str(self.path)
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
            _enter_wal(self.db)
        except LedgerError:
            raise
        except (OSError, sqlite3.Error) as exc:
            raise LedgerError(f"ledger {self.path}: {_why(exc)}") from None
        # A brand-new local file is made at the current version (no setup for
        # the first dispatch on a laptop); an existing ledger is only checked.
        if self.schema_version() is None:
            self.migrate(create=True)

    def _tx(self, work: Callable[[Any], T]) -> T:
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

    def _lock(self, db: Any, name: str) -> None:
        return None  # BEGIN IMMEDIATE already holds the whole file's write lock

    def _schema_lock(self, db: Any) -> None:
        return None

    def _now(self, db: Any) -> float:
        return time.time()  # one host, one clock

    def _tables(self, db: Any) -> set[str]:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    def close(self) -> None:
        with self.lock:
            self.db.close()


def _enter_wal(db: sqlite3.Connection, patience: float = 30.0) -> None:
    """Switch a connection to WAL. Switching needs the file's exclusive lock,
    and SQLite answers a contended switch with "database is locked" at once,
    without waiting out busy_timeout (to avoid a deadlock between two
    connections both upgrading). Several dispatchers opening a brand-new
    ledger at the same moment meet exactly that, so retry with a short,
    growing pause, for as long as busy_timeout would have waited."""
    deadline = time.monotonic() + patience
    pause = 0.005
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def _alive(lease: Lease, now: float) -> bool:
    if lease.expires < now:
        return False
    if lease.host == host_name():
        # Same host: the process itself tells us, without waiting out the lease.
        return process_start(lease.pid) == lease.started
    return True


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc) or type(exc).__name__
    if "not a database" in text:
        return "not a ledger (the file is not an SQLite database)"
    return text
