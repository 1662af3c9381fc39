"""One dispatcher "host" for the ledger concurrency test: run as its own
process, in its own working directory, with its own BACKEND_ROUTER_HOST and
the shared ledger in BACKEND_ROUTER_LEDGER. It goes through the code paths
dispatch uses (open_ledger, LeaseKeeper, claim, the history records) and
prints what it saw as one JSON line.

    work ROUNDS CAP SHARED   claim the cap and hold shared dispatch ids
    hold ID TTL              take ID's lease, say so, and wait to be killed
    take ID TTL              wait for ID's lease, hold it briefly, release it
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time

from router.lease import LeaseKeeper
from router.ledger import open_ledger


def _keeper(ledger, dispatch_id: str, ttl: float) -> tuple[LeaseKeeper, object]:
    keeper = LeaseKeeper(ledger, dispatch_id, on_lost=lambda: None, ttl=ttl)
    lease = keeper.acquire(True, threading.Event(), lambda _: None)
    return keeper, lease


def work(rounds: int, cap: int, shared: int) -> dict:
    ledger = open_ledger(None)
    me = os.environ["BACKEND_ROUTER_HOST"]
    rng = random.Random(me)
    claims: dict[str, bool] = {}
    holds: list[list] = []
    for k in range(rounds):
        dispatch_id = f"shared-{rng.randrange(shared)}"
        keeper, _ = _keeper(ledger, dispatch_id, 30.0)
        start = time.time()
        # Inside the lease, what a dispatch does: claim, record, attempt.
        claims[dispatch_id] = ledger.claim(dispatch_id, cap)[0] or claims.get(dispatch_id, False)
        own = f"{me}-{k}"
        claims[own] = ledger.claim(own, cap)[0]
        ledger.start_dispatch(dispatch_id, {"intent": "capture-7b", "width": 8, "hours": 1.0},
                              start)
        ledger.record_attempt(dispatch_id, time.time(), 0.0, "gcp", 8, "capacity-miss", {})
        time.sleep(rng.uniform(0, 0.02))
        holds.append([dispatch_id, start, time.time()])
        keeper.release()
    ledger.close()
    return {"claims": claims, "holds": holds}


def hold(dispatch_id: str, ttl: float) -> None:
    ledger = open_ledger(None)
    _, lease = _keeper(ledger, dispatch_id, ttl)
    print(json.dumps({"held": True, "acquired": lease.acquired}), flush=True)
    time.sleep(600)  # the heartbeat renews the lease until the test kills us


def take(dispatch_id: str, ttl: float) -> dict:
    ledger = open_ledger(None)
    keeper, lease = _keeper(ledger, dispatch_id, ttl)
    start = time.time()
    time.sleep(0.05)
    end = time.time()
    keeper.release()
    ledger.close()
    return {"acquired": lease.acquired, "start": start, "end": end}


def main() -> None:
    mode, *args = sys.argv[1:]
    if mode == "work":
        print(json.dumps(work(int(args[0]), int(args[1]), int(args[2]))))
    elif mode == "hold":
        hold(args[0], float(args[1]))
    else:
        print(json.dumps(take(args[0], float(args[1]))))


if __name__ == "__main__":
    main()
