"""The ledger's semantics, the same on both backends: every test here runs
against SQLite and against a real PostgreSQL server (tests/ledger_support.py).
The cap is counted and claimed in one transaction; the lease is exclusive,
expires and is taken over safely; dispatches, attempts and sweeps are
recorded and exported in the shared format; the schema version is checked."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from router.ledger import (
    LeaseHeld,
    Ledger,
    LedgerError,
    LedgerSchemaError,
    SqliteLedger,
    open_ledger,
)
from router.ledger_schema import SCHEMA_VERSION
from tests.ledger_support import ledger_setting

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def setting(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with ledger_setting(request.param, tmp_path) as value:
        yield value


@pytest.fixture
def ledger(setting: str) -> Iterator[Ledger]:
    opened = open_ledger(setting)
    yield opened
    opened.close()


def _claim(args: tuple[str, str, int]) -> bool:
    setting, dispatch_id, cap = args
    ledger = open_ledger(setting)
    try:
        return ledger.claim(dispatch_id, cap, day="2026-11-29")[0]
    finally:
        ledger.close()


# ---- the per-day cap ------------------------------------------------------------------------


def test_cap_is_counted_per_dispatch_and_per_day(ledger: Ledger) -> None:
    assert ledger.claim("a", 2, day="2026-11-29") == (True, 1)
    assert ledger.claim("b", 2, day="2026-11-29") == (True, 2)
    assert ledger.claim("c", 2, day="2026-11-29") == (False, 2)
    assert ledger.claim("a", 2, day="2026-11-29") == (True, 2)  # a rerun costs nothing more
    assert ledger.claim("c", 2, day="2026-11-30") == (True, 1)


def test_cap_is_never_exceeded_by_racing_processes(setting: str) -> None:
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        allowed = pool.map(_claim, [(setting, f"d{i}", 5) for i in range(24)])
    assert sum(allowed) == 5
    ledger = open_ledger(setting)
    try:
        assert ledger.claim("late", 5, day="2026-11-29") == (False, 5)
    finally:
        ledger.close()


def test_cap_use_reports_today_in_the_configured_time_zone(setting: str) -> None:
    ledger = open_ledger(setting, "Pacific/Kiritimati")  # UTC+14: often a day ahead of UTC
    try:
        today = ledger.today()
        assert today == dt.datetime.now(dt.timezone(dt.timedelta(hours=14))).strftime("%Y-%m-%d")
        assert ledger.claim("x", 3) == (True, 1)
        use = ledger.cap_use(3)
        assert use == {"day": today, "timezone": "Pacific/Kiritimati", "cap": 3, "used": 1,
                       "remaining": 2, "dispatch_ids": ["x"]}
    finally:
        ledger.close()


def test_the_day_boundary_is_the_configured_zones_midnight(ledger: Ledger) -> None:
    berlin = SqliteLedger.__new__(SqliteLedger)
    Ledger.__init__(berlin, "Europe/Berlin")
    # 23:30 UTC on 29 Nov is already 30 Nov in Berlin.
    ts = dt.datetime(2026, 11, 29, 23, 30, tzinfo=dt.UTC).timestamp()
    assert ledger.day_of(ts) == "2026-11-29"
    assert berlin.day_of(ts) == "2026-11-30"


def test_an_unknown_day_time_zone_is_a_ledger_error(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="unknown day time zone"):
        open_ledger(str(tmp_path / "l.sqlite"), "Mars/Olympus")


# ---- leases ---------------------------------------------------------------------------------


def test_lease_is_exclusive_until_released(ledger: Ledger, monkeypatch) -> None:
    lease = ledger.acquire("job", "holder-1", 60)
    assert lease.expires - lease.acquired == pytest.approx(60)
    monkeypatch.setenv("BACKEND_ROUTER_HOST", "another-host")  # no pid check: only expiry
    with pytest.raises(LeaseHeld, match="held by a live dispatcher") as held:
        ledger.acquire("job", "holder-2", 60)
    assert held.value.holder.holder == "holder-1"
    assert ledger.acquire("job", "holder-1", 60).holder == "holder-1"  # its own holder: fine
    assert ledger.renew("job", "holder-1", 60)
    assert not ledger.renew("job", "holder-2", 60)
    ledger.release_lease("job", "holder-1")
    assert ledger.acquire("job", "holder-2", 60).holder == "holder-2"
    assert not ledger.renew("job", "holder-1", 60)  # taken: the old holder learns it is lost


def test_a_lease_from_another_host_lives_until_it_expires(ledger: Ledger, monkeypatch) -> None:
    monkeypatch.setenv("BACKEND_ROUTER_HOST", "host-a")
    lease = ledger.acquire("job", "a", 2.0)
    monkeypatch.setenv("BACKEND_ROUTER_HOST", "host-b")
    with pytest.raises(LeaseHeld):
        ledger.acquire("job", "b", 30)
    time.sleep(2.2)
    taken = ledger.acquire("job", "b", 30)
    assert taken.host == "host-b" and taken.acquired >= lease.expires


def test_a_dead_holder_on_this_host_is_taken_over_at_once(ledger: Ledger) -> None:
    child = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(0,))
    child.start()
    child.join()
    ledger.acquire("job", "me", 60)
    # Forge a lease held by the (now dead) child on this host.
    ledger._tx(lambda db: db.execute("UPDATE leases SET holder='dead', pid=? WHERE "
                                     "dispatch_id='job'", (child.pid,)))
    assert ledger.acquire("job", "me-again", 60).holder == "me-again"


# ---- machines, dispatches, attempts, sweeps -------------------------------------------------


def test_machines_are_recorded_and_a_selection_is_never_demoted(ledger: Ledger) -> None:
    ledger.record("d1", "gcp", "k1", {"instance": "i1"}, "sent", lands_by=time.time() + 5)
    ledger.record("d1", "gcp", "k1", {"instance": "i1"}, "selected")
    ledger.record("d1", "gcp", "k1", {"instance": "i1"}, "created")
    ledger.record("d2", "slurm", "j1", {"job_id": "7"}, "created")
    records = ledger.machines("d1")
    assert [(d, r.key, r.state, r.handle) for d, r in records] == [
        ("d1", "k1", "selected", {"instance": "i1"})]
    assert {d for d, _ in ledger.machines()} == {"d1", "d2"}


REQUEST = {"intent": "capture-7b", "width": 8, "hours": 1.5}


def _a_dispatch(ledger: Ledger, dispatch_id: str, start: float) -> None:
    ledger.start_dispatch(dispatch_id, REQUEST, start)
    ledger.record_attempt(dispatch_id, start + 1, 0.25, "gcp", 8, "capacity-miss",
                          {"zone": "us-central1-a", "machine_type": "a2-ultragpu-8g",
                           "provisioning": "SPOT", "queue_wait_seconds": None})
    ledger.record_attempt(dispatch_id, start + 2, 0.0, "slurm", 1, "launched",
                          {"lane": "a100-short", "queue_wait_seconds": 12.5})
    ledger.record_selected(dispatch_id, {"backend": "slurm", "width": 1, "lane": "a100-short",
                                         "zone": None, "machine_type": None,
                                         "provisioning": None, "gpu_type": None})
    ledger.end_dispatch(dispatch_id, 0, start + 3)


DISPATCH_KEYS = {"kind", "dispatch_id", "started", "ended", "request", "selected", "exit"}
ATTEMPT_KEYS = {"kind", "dispatch_id", "seq", "at", "latency_seconds", "backend", "width",
                "outcome", "zone", "machine_type", "provisioning", "family", "lane", "gpu_type",
                "queue_wait_seconds"}


def test_export_is_the_shared_format(ledger: Ledger) -> None:
    _a_dispatch(ledger, "first", 1000.0)
    _a_dispatch(ledger, "second", 2000.0)
    lines = list(ledger.export())
    assert [(x["kind"], x["dispatch_id"]) for x in lines] == [
        ("dispatch", "first"), ("attempt", "first"), ("attempt", "first"),
        ("dispatch", "second"), ("attempt", "second"), ("attempt", "second")]
    for line in lines:
        assert set(line) == (DISPATCH_KEYS if line["kind"] == "dispatch" else ATTEMPT_KEYS)
        assert json.loads(json.dumps(line, sort_keys=True)) == line
    dispatch, miss, launch = lines[:3]
    assert dispatch == {"kind": "dispatch", "dispatch_id": "first", "started": 1000.0,
                        "ended": 1003.0, "request": REQUEST, "exit": 0,
                        "selected": {"backend": "slurm", "width": 1, "lane": "a100-short",
                                     "zone": None, "machine_type": None,
                                     "provisioning": None, "gpu_type": None}}
    assert (miss["seq"], miss["at"], miss["latency_seconds"], miss["outcome"], miss["zone"],
            miss["queue_wait_seconds"]) == (1, 1001.0, 0.25, "capacity-miss", "us-central1-a",
                                            None)
    assert (launch["seq"], launch["backend"], launch["lane"], launch["queue_wait_seconds"]) \
        == (2, "slurm", "a100-short", 12.5)


def test_history_is_newest_first_and_a_rerun_goes_on_numbering(ledger: Ledger) -> None:
    _a_dispatch(ledger, "first", 1000.0)
    _a_dispatch(ledger, "second", 2000.0)
    ledger.start_dispatch("first", REQUEST, 3000.0)  # a rerun of the same id
    ledger.record_attempt("first", 3001.0, 0.0, "runpod", 1, "unavailable", {})
    rows = ledger.history(10)
    assert [r["dispatch_id"] for r in rows] == ["second", "first"]
    rerun = rows[1]
    assert (rerun["started"], rerun["ended"], rerun["exit"], rerun["attempts"]) == \
        (1000.0, None, None, 3)
    assert rows[0]["duration_seconds"] == 3.0
    assert [x["seq"] for x in ledger.export() if x["dispatch_id"] == "first"
            and x["kind"] == "attempt"] == [1, 2, 3]
    assert len(ledger.history(1)) == 1


def test_sweeps_are_recorded(ledger: Ledger, monkeypatch) -> None:
    monkeypatch.setenv("BACKEND_ROUTER_HOST", "ci-runner-7")
    ledger.record_sweep("d1", released=2, kept=1, errors=0)
    ledger.record_sweep(None, released=0, kept=0, errors=1)
    rows = ledger.sweeps()
    assert [(r["dispatch_id"], r["released"], r["kept"], r["errors"], r["host"])
            for r in rows][::-1] == [("d1", 2, 1, 0, "ci-runner-7"), (None, 0, 0, 1,
                                                                      "ci-runner-7")]


# ---- schema versions ------------------------------------------------------------------------


def test_a_fresh_ledger_is_at_the_current_version(ledger: Ledger) -> None:
    assert ledger.schema_version() == SCHEMA_VERSION
    assert ledger.migrate(create=True) == (SCHEMA_VERSION, SCHEMA_VERSION)  # init twice: fine
    assert ledger.migrate(create=False) == (SCHEMA_VERSION, SCHEMA_VERSION)


def test_a_newer_ledger_is_refused_with_the_command_to_run(setting: str) -> None:
    ledger = open_ledger(setting)
    ledger._tx(lambda db: db.execute("UPDATE ledger_schema SET version=?",
                                     (SCHEMA_VERSION + 1,)))
    ledger.close()
    with pytest.raises(LedgerSchemaError, match=r"newer than this router's.*pip install -U"):
        open_ledger(setting)
    ledger = open_ledger(setting, check=False)
    try:
        with pytest.raises(LedgerSchemaError, match="newer"):
            ledger.migrate(create=False)
    finally:
        ledger.close()


OLD_TABLES = (  # the unversioned ledger of earlier releases (version 0)
    "CREATE TABLE gcp_attempts (day TEXT NOT NULL, dispatch_id TEXT NOT NULL, at TEXT NOT NULL, "
    "PRIMARY KEY (day, dispatch_id))",
    "CREATE TABLE leases (dispatch_id TEXT PRIMARY KEY, holder TEXT NOT NULL, host TEXT NOT "
    "NULL, pid INTEGER NOT NULL, started TEXT NOT NULL, acquired REAL NOT NULL, expires REAL "
    "NOT NULL)",
    "CREATE TABLE machines (dispatch_id TEXT NOT NULL, backend TEXT NOT NULL, key TEXT NOT NULL, "
    "handle TEXT NOT NULL, state TEXT NOT NULL, sent REAL NOT NULL, lands_by REAL NOT NULL, "
    "PRIMARY KEY (dispatch_id, backend, key))",
    "INSERT INTO gcp_attempts VALUES ('2026-11-29', 'old', '2026-11-29T10:00:00')",
)


@pytest.mark.parametrize("kind", BACKENDS)
def test_an_old_ledger_needs_upgrade_and_keeps_its_data(kind: str, tmp_path: Path) -> None:
    with ledger_setting(kind, tmp_path, initialized=False) as setting:
        if kind == "sqlite":
            with sqlite3.connect(setting) as db:
                for statement in OLD_TABLES:
                    db.execute(statement)
        else:
            import psycopg

            with psycopg.connect(setting, autocommit=True) as conn:
                for statement in OLD_TABLES:
                    conn.execute(statement)
        with pytest.raises(LedgerSchemaError,
                           match=r"schema version 0 is older.*`backend-router ledger upgrade`"):
            open_ledger(setting)
        ledger = open_ledger(setting, check=False)
        with pytest.raises(LedgerSchemaError, match="ledger upgrade"):
            ledger.migrate(create=True)  # init does not upgrade: it says which command does
        assert ledger.migrate(create=False) == (0, SCHEMA_VERSION)
        ledger.close()
        ledger = open_ledger(setting)
        assert ledger.claim("new", 2, day="2026-11-29") == (True, 2)  # the old claim counts
        ledger.close()


def test_a_new_sqlite_file_is_created_but_a_postgres_ledger_needs_init(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "ledger.sqlite"
    open_ledger(str(path)).close()
    assert path.exists()
    with ledger_setting("postgresql", tmp_path, initialized=False) as url:
        with pytest.raises(LedgerSchemaError, match="no ledger here yet: run `backend-router "
                                                    "ledger init`"):
            open_ledger(url)
        ledger = open_ledger(url, check=False)
        with pytest.raises(LedgerSchemaError, match="ledger init"):
            ledger.migrate(create=False)  # upgrade does not create
        assert ledger.migrate(create=True) == (None, SCHEMA_VERSION)
        ledger.close()
        open_ledger(url).close()


# ---- choosing the backend -------------------------------------------------------------------


def test_the_environment_wins_over_the_config(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BACKEND_ROUTER_LEDGER", str(tmp_path / "from-env.sqlite"))
    ledger = open_ledger(str(tmp_path / "from-config.sqlite"))
    assert ledger.label.endswith("from-env.sqlite")
    ledger.close()
    monkeypatch.setenv("BACKEND_ROUTER_LEDGER", "mysql://db/ledger")
    with pytest.raises(LedgerError, match="unsupported URL scheme 'mysql'"):
        open_ledger(None)


def test_an_unreachable_server_is_one_line_naming_the_host(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    state = tmp_path / "state"
    os.environ["XDG_STATE_HOME"] = str(state)
    try:
        with pytest.raises(LedgerError) as err:
            open_ledger("postgresql://wl:s3cret@127.0.0.1:1/ledger")
    finally:
        del os.environ["XDG_STATE_HOME"]
    message = str(err.value)
    assert message.startswith("ledger postgresql://wl@127.0.0.1:1/ledger: cannot connect to "
                              "127.0.0.1:1: ")
    assert "\n" not in message and "s3cret" not in message
    assert not state.exists()  # never a silent local file instead


# ---- the dispatch's listener ----------------------------------------------------------------


def test_the_event_listener_records_and_fails_closed(ledger: Ledger) -> None:
    import threading
    from types import SimpleNamespace

    from router.ledger_events import LedgerRecorder

    ctx = SimpleNamespace(failure=None, stop=threading.Event())
    recorder = LedgerRecorder(ledger, ctx)  # type: ignore[arg-type]
    ledger.start_dispatch("ev1", REQUEST, 100.0)
    recorder({"event": "epm:backend-attempt", "dispatch_id": "ev1", "backend": "runpod",
              "gpu_type": "NVIDIA A100 80GB PCIe", "width": 1, "outcome": "unavailable",
              "ts": 101.5})
    recorder({"event": "epm:backend-selected", "dispatch_id": "ev1", "backend": "runpod",
              "gpu_type": "NVIDIA A100 80GB PCIe", "width": 1, "pod_id": "p1", "ts": 102.0})
    recorder({"event": "epm:backend-released", "dispatch_id": "ev1", "ts": 103.0})  # ignored
    dispatch, attempt = list(ledger.export())
    assert dispatch["selected"]["gpu_type"] == "NVIDIA A100 80GB PCIe"
    assert (attempt["at"], attempt["outcome"], attempt["gpu_type"]) == \
        (101.5, "unavailable", "NVIDIA A100 80GB PCIe")
    assert ctx.failure is None and not ctx.stop.is_set()
    ledger.close()  # a broken ledger: the next write fails, and the walk must stop
    recorder({"event": "epm:backend-attempt", "dispatch_id": "ev1", "backend": "gcp",
              "width": 1, "outcome": "capacity-miss", "ts": 104.0})
    assert ctx.failure and ctx.failure.startswith("ledger ") and ctx.stop.is_set()
