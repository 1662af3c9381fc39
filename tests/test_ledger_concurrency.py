"""Many dispatch hosts, one PostgreSQL ledger: 20 dispatcher processes, each
in its own working directory with its own host name and state dir (no shared
file), against one server (tests/ledger_driver.py is each "host").

- the project-wide per-day cap is never exceeded (and is reached: demand is
  well above it);
- one dispatch id never has two holders at once;
- a lease holder that is SIGKILLed is taken over, and only after its lease
  expired by the ledger's clock."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from router.ledger import open_ledger
from tests.ledger_support import ledger_setting

ROOT = Path(__file__).resolve().parents[1]
DRIVER = Path(__file__).with_name("ledger_driver.py")
HOSTS = 20


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with ledger_setting("postgresql", tmp_path) as value:
        yield value


def start(tmp_path: Path, url: str, host: str, *args: str) -> subprocess.Popen[str]:
    home = tmp_path / host
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
           "XDG_STATE_HOME": str(home / "state"), "PYTHONPATH": str(ROOT),
           "BACKEND_ROUTER_LEDGER": url, "BACKEND_ROUTER_HOST": host}
    for name in ("WL_TEST_POSTGRES", "PGPASSWORD", "PGPASSFILE"):
        if name in os.environ:
            env[name] = os.environ[name]
    return subprocess.Popen([sys.executable, str(DRIVER), *args], cwd=home, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str], timeout: float = 240) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def no_overlap(intervals: list[tuple[float, float]]) -> bool:
    ordered = sorted(intervals)
    return all(later[0] >= earlier[1] for earlier, later in pairwise(ordered))


def test_twenty_hosts_never_exceed_the_cap_or_share_a_lease(tmp_path: Path, url: str) -> None:
    cap, rounds, shared = 37, 6, 3
    procs = [start(tmp_path, url, f"host-{i:02d}", "work", str(rounds), str(cap), str(shared))
             for i in range(HOSTS)]
    results = [finish(p) for p in procs]
    allowed = {d for r in results for d, ok in r["claims"].items() if ok}
    assert len(allowed) == cap  # demand (123 ids) is far above the cap: reached, not passed
    ledger = open_ledger(url)
    try:
        use = ledger.cap_use(cap)
        assert use["used"] == cap and sorted(use["dispatch_ids"]) == sorted(allowed)
        history = ledger.history(100)
        attempts = sum(1 for x in ledger.export() if x["kind"] == "attempt")
    finally:
        ledger.close()
    holds: dict[str, list[tuple[float, float]]] = {}
    for r in results:
        for dispatch_id, t0, t1 in r["holds"]:
            holds.setdefault(dispatch_id, []).append((t0, t1))
    assert sum(len(v) for v in holds.values()) == HOSTS * rounds
    for dispatch_id, intervals in holds.items():
        assert no_overlap(intervals), f"two holders of {dispatch_id} at once"
    assert {h["dispatch_id"] for h in history} == set(holds)
    assert attempts == HOSTS * rounds


def test_a_killed_holder_is_taken_over_after_its_lease_expires(tmp_path: Path,
                                                               url: str) -> None:
    ttl = 3.0
    victim = start(tmp_path, url, "host-victim", "hold", "victim", str(ttl))
    assert victim.stdout is not None
    line = victim.stdout.readline()
    assert json.loads(line)["held"], victim.stderr.read() if victim.stderr else ""
    time.sleep(1.2)  # let the heartbeat renew it at least once
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    ledger = open_ledger(url)
    try:
        expires = ledger._query("SELECT expires FROM leases WHERE dispatch_id='victim'")[0][0]
    finally:
        ledger.close()
    takers = [start(tmp_path, url, f"host-{i:02d}", "take", "victim", "30")
              for i in range(HOSTS - 1)]
    results = [finish(p, timeout=120) for p in takers]
    first = min(r["acquired"] for r in results)
    assert first >= expires  # never before the dead holder's lease ran out
    assert first <= expires + 10  # but soon after it did
    assert no_overlap([(r["start"], r["end"]) for r in results])


def test_twenty_real_dispatches_from_twenty_hosts_share_one_cap(tmp_path: Path, url: str,
                                                                emulator_factory) -> None:
    """The same, end to end: 20 `backend-router dispatch` processes, each its own
    "host" (working directory, state dir, host name), against one emulator and
    one PostgreSQL ledger, with a per-day cap of 5. Capacity is plentiful, so
    exactly the 5 dispatches that claim the cap launch on GCP; the other 15 get
    cap-reached and, with SLURM and RunPod left out, exhaust the ladder."""
    from tests.dispatch_support import SMALL_LADDER, quotas

    cap = 5
    ladder = tmp_path / "ladder.yaml"
    # The small ladder's 2 s request timeout is for the timeout tests; twenty
    # dispatchers starting at once on a small CI machine can take longer than
    # that to be answered, and this test is about the cap, not timeouts.
    ladder.write_text(SMALL_LADDER.read_text().replace(
        "gcp_attempt_cap_per_day: 1000", f"gcp_attempt_cap_per_day: {cap}").replace(
        "request_timeout_seconds: 2", "request_timeout_seconds: 60"))
    emu = emulator_factory({"gce": {"zones": {"us-central1-a": {"a2-ultragpu-8g": {"SPOT": 40}}},
                                    "quotas": quotas(limit=4096)}})
    procs = []
    for i in range(HOSTS):
        host = f"host-{i:02d}"
        home = tmp_path / host
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state"),
               "PYTHONPATH": str(ROOT), "BACKEND_ROUTER_LEDGER": url,
               "BACKEND_ROUTER_HOST": host}
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "router", "dispatch", "--ladder", str(ladder), "--intent",
             "capture-7b", "--gpu-count", "8", "--hours", "1", "--gcp-project", "proj",
             "--gcp-endpoint", emu.url, "--skip-backend", "slurm", "--skip-backend", "runpod",
             "--dispatch-id", f"d{i:02d}", "--", "true"],
            cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert "Traceback" not in err, err
        events = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
        outcomes.append((proc.returncode, events, err))
    launched = [e for code, events, _ in outcomes for e in events
                if e["event"] == "epm:backend-selected"]
    capped = [code for code, events, _ in outcomes
              if any(e.get("outcome") == "cap-reached" for e in events)]
    # On failure, say what the dispatches that neither launched nor hit the cap did.
    odd = [(code, events, err) for code, events, err in outcomes
           if not any(e["event"] == "epm:backend-selected" or e.get("outcome") == "cap-reached"
                      for e in events)]
    assert len(launched) == cap and all(e["backend"] == "gcp" for e in launched), odd
    assert len(capped) == HOSTS - cap and set(capped) == {1}, odd
    ledger = open_ledger(url)
    try:
        use = ledger.cap_use(cap)
    finally:
        ledger.close()
    assert use["used"] == cap
