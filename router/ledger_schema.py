"""The ledger's tables, one definition for both backends, and its versions.

The schema is versioned in the table `ledger_schema` (one row). Version 0 is
the unversioned ledger of earlier releases (SQLite only: gcp_attempts, leases,
machines). Creation and upgrades are explicit (`backend-router ledger
init|upgrade`); every other command checks the version at start and refuses,
with the command to run, a ledger older or newer than the code. The one
exception is a brand-new local SQLite file, created at the current version so
the first dispatch on a laptop needs no setup (docs/ledger.md).

A new version appends its statements to MIGRATIONS; never edit a released one."""

from __future__ import annotations

SCHEMA_VERSION = 1

# Statements that bring a ledger from version N-1 to N, keyed by N. `{real}` is
# the dialect's 64-bit float (PostgreSQL's REAL is 32-bit: epoch seconds would
# lose their minutes). IF NOT EXISTS: version 0 already has three of the tables.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "CREATE TABLE IF NOT EXISTS gcp_attempts (day TEXT NOT NULL, dispatch_id TEXT NOT NULL, "
        "at TEXT NOT NULL, PRIMARY KEY (day, dispatch_id))",
        "CREATE TABLE IF NOT EXISTS leases (dispatch_id TEXT PRIMARY KEY, holder TEXT NOT NULL, "
        "host TEXT NOT NULL, pid INTEGER NOT NULL, started TEXT NOT NULL, "
        "acquired {real} NOT NULL, expires {real} NOT NULL)",
        "CREATE TABLE IF NOT EXISTS machines (dispatch_id TEXT NOT NULL, backend TEXT NOT NULL, "
        "key TEXT NOT NULL, handle TEXT NOT NULL, state TEXT NOT NULL, sent {real} NOT NULL, "
        "lands_by {real} NOT NULL, PRIMARY KEY (dispatch_id, backend, key))",
        # One row per name that a transaction must own before it reads what
        # it will write (PostgreSQL; SQLite's BEGIN IMMEDIATE locks the file).
        "CREATE TABLE IF NOT EXISTS locks (name TEXT PRIMARY KEY)",
        "CREATE TABLE IF NOT EXISTS dispatches (dispatch_id TEXT PRIMARY KEY, "
        "host TEXT NOT NULL, started {real} NOT NULL, ended {real}, request TEXT NOT NULL, "
        "selected TEXT, exit INTEGER)",
        "CREATE INDEX IF NOT EXISTS dispatches_by_start ON dispatches (started)",
        "CREATE TABLE IF NOT EXISTS attempts (dispatch_id TEXT NOT NULL, seq INTEGER NOT NULL, "
        "at {real} NOT NULL, latency_seconds {real} NOT NULL, backend TEXT NOT NULL, "
        "width INTEGER NOT NULL, outcome TEXT NOT NULL, target TEXT NOT NULL, "
        "PRIMARY KEY (dispatch_id, seq))",
        "CREATE TABLE IF NOT EXISTS sweeps (at {real} NOT NULL, host TEXT NOT NULL, "
        "dispatch_id TEXT, released INTEGER NOT NULL, kept INTEGER NOT NULL, "
        "errors INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS ledger_schema (version INTEGER NOT NULL)",
    ),
}

# Tables of version 0: their presence without ledger_schema means "version 0".
VERSION_0_TABLES = frozenset({"gcp_attempts", "leases", "machines"})

assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))


def steps(current: int, real: str) -> list[tuple[int, list[str]]]:
    """The migrations from `current` to SCHEMA_VERSION, rendered for a dialect."""
    return [(version, [s.format(real=real) for s in MIGRATIONS[version]])
            for version in range(current + 1, SCHEMA_VERSION + 1)]
