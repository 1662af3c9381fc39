"""What the shared ledger costs: the ledger writes of one rung attempt, on
PostgreSQL against SQLite, as a ratio.

One attempt writes what a GCP zone attempt writes during a dispatch: the
insert recorded before it is sent, its answer, and the attempt's history
row (three transactions). A dispatch adds a fixed cost around its attempts
(lease, cap claim, start, selection, end, release), measured apart. Both
ledgers commit durably (SQLite WAL, PostgreSQL with fsync on). Targets: at
most 3x SQLite, and at most 10 ms per attempt on a local server.

    bash .ci/postgres-up
    python bench/ledger_overhead.py [--attempts 300] [--url postgresql://…]

The URL defaults to the tests' server (WL_TEST_POSTGRES); the benchmark
works in a schema of its own and drops it afterwards.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from router.ledger import Ledger, open_ledger

DEFAULT_URL = os.environ.get("WL_TEST_POSTGRES", "postgresql://wl@127.0.0.1:5433/wl_test")
REQUEST = {"intent": "capture-7b", "width": 8, "hours": 1.0}


def one_attempt(ledger: Ledger, dispatch_id: str, n: int) -> None:
    handle = {"instance": f"wl-{dispatch_id}-{n}", "zone": "us-central1-a"}
    ledger.record(dispatch_id, "gcp", f"k{n}", handle, "sent", time.time() + 60)
    ledger.record(dispatch_id, "gcp", f"k{n}", handle, "missed")
    ledger.record_attempt(dispatch_id, time.time(), 0.0, "gcp", 8, "capacity-miss",
                          {"zone": "us-central1-a", "machine_type": "a2-ultragpu-8g",
                           "provisioning": "SPOT"})


def one_dispatch(ledger: Ledger, dispatch_id: str) -> None:
    ledger.acquire(dispatch_id, "bench", 30)
    ledger.claim(dispatch_id, 10**6)
    ledger.start_dispatch(dispatch_id, REQUEST, time.time())
    ledger.record_selected(dispatch_id, {"backend": "gcp", "width": 8})
    ledger.end_dispatch(dispatch_id, 0, time.time())
    ledger.release_lease(dispatch_id, "bench")


def measure(ledger: Ledger, attempts: int) -> tuple[float, float]:
    """Median seconds per attempt and per dispatch (fixed part)."""
    one_dispatch(ledger, "warm")
    one_attempt(ledger, "warm", 0)
    per_attempt = []
    for n in range(attempts):
        start = time.perf_counter()
        one_attempt(ledger, "bench", n)
        per_attempt.append(time.perf_counter() - start)
    per_dispatch = []
    for n in range(max(10, attempts // 10)):
        start = time.perf_counter()
        one_dispatch(ledger, f"d{n}")
        per_dispatch.append(time.perf_counter() - start)
    return statistics.median(per_attempt), statistics.median(per_dispatch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=300)
    parser.add_argument("--url", default=DEFAULT_URL)
    args = parser.parse_args()
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        url = f"{args.url}{'&' if '?' in args.url else '?'}options=-csearch_path%3D{schema}"
        pg = open_ledger(url, check=False)
        pg.migrate(create=True)
        with tempfile.TemporaryDirectory() as tmp:
            sqlite = open_ledger(str(Path(tmp) / "ledger.sqlite"))
            sq_attempt, sq_dispatch = measure(sqlite, args.attempts)
            sqlite.close()
        pg_attempt, pg_dispatch = measure(pg, args.attempts)
        pg.close()
    finally:
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    ratio = pg_attempt / sq_attempt
    print(f"per attempt (3 writes):  SQLite {sq_attempt * 1000:.2f} ms   "
          f"PostgreSQL {pg_attempt * 1000:.2f} ms   ratio {ratio:.2f}x")
    print(f"per dispatch (fixed):    SQLite {sq_dispatch * 1000:.2f} ms   "
          f"PostgreSQL {pg_dispatch * 1000:.2f} ms   ratio {pg_dispatch / sq_dispatch:.2f}x")
    ok = ratio <= 3 and pg_attempt <= 0.010
    print(f"target (<= 3x SQLite and <= 10 ms per attempt): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
