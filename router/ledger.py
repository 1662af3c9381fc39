"""The per-day GCP attempt cap, kept in SQLite (WAL) so concurrent dispatches
count exactly. A dispatch that touches GCP costs one attempt per UTC day,
however many rungs and zones its width walk tries; rerunning the same
dispatch id costs nothing more."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from pathlib import Path


def default_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "backend-router" / "ledger.sqlite"


class Ledger:
    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.execute("CREATE TABLE IF NOT EXISTS gcp_attempts (day TEXT NOT NULL, "
                        "dispatch_id TEXT NOT NULL, at TEXT NOT NULL, "
                        "PRIMARY KEY (day, dispatch_id))")

    @staticmethod
    def today() -> str:
        return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")

    def claim(self, dispatch_id: str, cap: int, day: str | None = None) -> tuple[bool, int]:
        """(allowed, attempts today). Race-free: BEGIN IMMEDIATE takes the write
        lock before counting, so two dispatches cannot both take the last slot."""
        day = day or self.today()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            seen = self.db.execute("SELECT 1 FROM gcp_attempts WHERE day=? AND dispatch_id=?",
                                   (day, dispatch_id)).fetchone()
            count = self.db.execute("SELECT COUNT(*) FROM gcp_attempts WHERE day=?",
                                    (day,)).fetchone()[0]
            if seen:
                self.db.execute("COMMIT")
                return True, count
            if count >= cap:
                self.db.execute("COMMIT")
                return False, count
            self.db.execute("INSERT INTO gcp_attempts VALUES (?, ?, ?)",
                            (day, dispatch_id, dt.datetime.now(dt.UTC).isoformat()))
            self.db.execute("COMMIT")
            return True, count + 1
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self.db.close()
