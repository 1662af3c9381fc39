"""The PostgreSQL ledger: many dispatch hosts, one ledger (psycopg 3, the
`postgres` extra, imported only on this path).

Why it is race-free: every transaction that reads what it will write first
owns a row of `locks` (`gcp-day:DAY` for the cap, `lease:ID` for a lease) by
`INSERT … ON CONFLICT (name) DO UPDATE`. That statement either inserts the
row or row-locks the existing one, atomically, and the lock is held until
COMMIT or ROLLBACK; a second transaction on the same name waits for it. The
isolation level is READ COMMITTED, where each statement reads a fresh
snapshot, so the statements after the lock see everything the previous owner
committed. The count and the insert of a cap claim, or the read and the write
of a lease, therefore happen as if alone, on every host. (SERIALIZABLE would
also do, at the price of retry loops on serialization failures; advisory locks
are per database, not per schema, and vanish with a pooled session.) A holder
killed mid-transaction loses its connection, and the server rolls it back,
releasing the row.

The clock is the server's (`clock_timestamp()`): lease expiry and the cap's
day are judged by one clock, however far apart the hosts' clocks drift.

The password never comes from the ladder config (config.py refuses one
there); libpq reads it from PGPASSWORD, PGPASSFILE or ~/.pgpass, or from the
URL in BACKEND_ROUTER_LEDGER. Messages name the URL without it."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from router.ledger import Ledger, LedgerError

T = TypeVar("T")
INSTALL_POSTGRES = "pip install 'width-aware-workflow[postgres]'"
CONNECT_TIMEOUT_SECONDS = 10
# A statement that waits longer than this (a lock held by a hung peer, a
# stalled server) fails closed instead of hanging dispatch.
STATEMENT_TIMEOUT_MS = 30_000
_SCHEMA_LOCK_KEY = 0x6C6564676572  # "ledger": serializes `ledger init|upgrade`


def shown_url(url: str) -> str:
    """The URL without its password (netloc or ?password=)."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            user, host = netloc.rsplit("@", 1)
            netloc = f"{user.split(':', 1)[0]}@{host}"
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"])
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return re.sub(r"://[^@/]*@", "://…@", url.split("?", 1)[0])


def require_driver() -> None:
    """One line (exit 2) when psycopg is not installed, like require_sdks."""
    from router.cliutil import installed

    if not installed("psycopg"):
        raise LedgerError("the PostgreSQL ledger needs psycopg, in the 'postgres' extra: "
                          f"{INSTALL_POSTGRES}")


class _Db:
    """sqlite3's `execute(sql with ?, args)` over a psycopg connection, so the
    semantics in router/ledger.py are written once. No statement there holds
    a literal '?' or '%'."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self.conn.execute(sql.replace("?", "%s"), args)


class PostgresLedger(Ledger):
    real_type = "DOUBLE PRECISION"

    def __init__(self, url: str, day_timezone: str = "UTC") -> None:
        super().__init__(day_timezone)
        self.url = url
        self.label = shown_url(url)
        require_driver()
        import psycopg

        self.psycopg = psycopg
        self.lock = threading.RLock()
        try:
            self.conn = psycopg.connect(url, autocommit=True,
                                        connect_timeout=CONNECT_TIMEOUT_SECONDS,
                                        application_name="backend-router")
            self.conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
        except psycopg.Error as exc:
            raise LedgerError(f"ledger {self.label}: cannot connect to {self._where()}: "
                              f"{_reason(exc)}") from None
        except Exception as exc:  # a malformed URL: psycopg raises ProgrammingError or ValueError
            raise LedgerError(f"ledger {self.label}: {_reason(exc)}") from None
        self.db = _Db(self.conn)

    def _where(self) -> str:
        try:
            from psycopg.conninfo import conninfo_to_dict

            info = conninfo_to_dict(self.url)
        except Exception:
            return "the server"
        host = str(info.get("host") or info.get("hostaddr") or "localhost")
        return f"{host}:{info.get('port') or 5432}"

    def _fail(self, exc: BaseException) -> LedgerError:
        return LedgerError(f"ledger {self.label} ({self._where()}): {_reason(exc)}")

    def _tx(self, work: Callable[[Any], T]) -> T:
        with self.lock:
            try:
                with self.conn.transaction():
                    return work(self.db)
            except self.psycopg.Error as exc:
                raise self._fail(exc) from None

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.db.execute(sql, args).fetchall()
            except self.psycopg.Error as exc:
                raise self._fail(exc) from None

    def _lock(self, db: Any, name: str) -> None:
        db.execute("INSERT INTO locks (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET "
                   "name = excluded.name", (name,))

    def _schema_lock(self, db: Any) -> None:
        # The locks table may not exist yet: a transaction-scoped advisory lock.
        db.execute("SELECT pg_advisory_xact_lock(?)", (_SCHEMA_LOCK_KEY,))

    def _now(self, db: Any) -> float:
        return float(db.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())").fetchone()[0])

    def _tables(self, db: Any) -> set[str]:
        rows = db.execute("SELECT table_name FROM information_schema.tables "
                          "WHERE table_schema = current_schema()").fetchall()
        return {r[0] for r in rows}

    def close(self) -> None:
        with self.lock:
            self.conn.close()


def _reason(exc: BaseException) -> str:
    """psycopg's message, as one line, without libpq's "connection to server
    at … failed:" preamble and hints."""
    text = str(exc).strip() or type(exc).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else text
    first = re.sub(r"^connection failed:\s*", "", first)
    first = re.sub(r'^connection to server (at|on) .*? failed:\s*', "", first)
    return first[:300] or type(exc).__name__
