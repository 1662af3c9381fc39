"""The pieces dispatch stands on: the attempt ledger under concurrency, event
lines and redaction, error classification, names, lazy SDK imports."""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.queues
import multiprocessing.synchronize
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from router.backends.base import Workload
from router.backends.gcp import classify, instance_name, request_id
from router.events import EventLog, redact
from router.ledger import LedgerError
from router.ledger import SqliteLedger as Ledger
from router.planner import Rung


def _claim(args: tuple[str, str, int]) -> bool:
    path, dispatch_id, cap = args
    ledger = Ledger(path)
    try:
        return ledger.claim(dispatch_id, cap, day="2026-11-29")[0]
    finally:
        ledger.close()


def test_ledger_is_race_free_across_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "ledger.sqlite")
    jobs = [(path, f"d{i}", 5) for i in range(24)]
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.map(_claim, jobs)
    assert sum(results) == 5
    ledger = Ledger(path)
    assert ledger.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert ledger.claim("d-new", 5, day="2026-11-29") == (False, 5)
    allowed = [d for (_, d, _), ok in zip(jobs, results, strict=True) if ok]
    assert ledger.claim(allowed[0], 5, day="2026-11-29")[0]  # a rerun costs nothing more
    assert ledger.claim("d-next-day", 5, day="2026-11-30") == (True, 1)


def _open_at_once(path: str, start: multiprocessing.synchronize.Barrier,
                  results: multiprocessing.queues.Queue[str]) -> None:
    start.wait()
    try:
        Ledger(path).close()
        results.put("ok")
    except LedgerError as exc:
        results.put(str(exc))


def test_a_new_ledger_opens_under_a_crowd(tmp_path: Path) -> None:
    # Dispatchers that start together all meet a ledger file nobody has made
    # yet; switching it to WAL is contended, and SQLite refuses that at once
    # rather than waiting out busy_timeout. Every opener must still get in.
    ctx = multiprocessing.get_context("fork")
    openers = 8
    for n in range(40):
        start, results = ctx.Barrier(openers), ctx.Queue()
        path = str(tmp_path / f"ledger{n}.sqlite")
        crowd = [ctx.Process(target=_open_at_once, args=(path, start, results))
                 for _ in range(openers)]
        for process in crowd:
            process.start()
        seen = [results.get(timeout=60) for _ in crowd]
        for process in crowd:
            process.join()
        assert seen == ["ok"] * openers, seen


def test_events_are_whole_lines_under_concurrency(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    logs = [EventLog(f"d{i}", str(path), stdout=open(os.devnull, "w")) for i in range(4)]  # noqa: SIM115

    def spam(log: EventLog) -> None:
        for n in range(200):
            log.emit("epm:backend-attempt", backend="gcp", n=n, detail="x" * 500)

    threads = [threading.Thread(target=spam, args=(log,)) for log in logs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 800 and all(json.loads(line)["event"] for line in lines)


def test_secrets_never_reach_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNPOD_API_KEY", "rpa_SECRETSECRET123")
    out = tmp_path / "out.txt"
    with out.open("w") as stdout:
        log = EventLog("d1", None, stdout=stdout)
        log.emit("epm:backend-error", message="auth failed for rpa_SECRETSECRET123",
                 api_key="abc", header="Bearer ya29.token-value")
    text = out.read_text()
    assert "SECRETSECRET" not in text and "ya29" not in text and '"abc"' not in text
    assert redact({"nested": ["token=hunter2"]}) == {"nested": ["[redacted]"]}


@pytest.mark.parametrize(("text", "status", "kind"), [
    ("ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS: no", 503, "capacity"),
    ("ZONE_RESOURCE_POOL_EXHAUSTED", None, "capacity"),
    ("insufficientCapacity", 409, "capacity"),
    ("UNSUPPORTED_OPERATION during create", 400, "capacity"),
    ("QUOTA_EXCEEDED: Quota 'PREEMPTIBLE_NVIDIA_A100_80GB_GPUS' exceeded", 403, "quota"),
    ("quotaExceeded GPUS_ALL_REGIONS", 403, "quota-all"),
    ("Too many requests", 429, "rate"),
    ("RESOURCE_OPERATION_RATE_EXCEEDED", 403, "rate"),
    ("backendError", 500, "transient"),
    ("Request had invalid authentication credentials", 401, "error"),
    ("Required 'compute.instances.create' permission", 403, "error"),
    ("Invalid value for field 'resource.machineType'", 400, "error"),
    ("The resource 'projects/p/global/networks/default' was not found", 404, "error"),
])
def test_error_classification(text: str, status: int | None, kind: str) -> None:
    assert classify(text, status) == kind


def test_names_and_request_ids_are_deterministic_and_valid() -> None:
    rung = Rung(backend="gcp", width=8, hours=1.0, machine_type="a3-highgpu-8g",
                provisioning="FLEX_START", zones=("us-central1-a",))
    name = instance_name("abcdefghij0123456789", rung, "asia-southeast1-c")
    assert name == instance_name("abcdefghij0123456789", rung, "asia-southeast1-c")
    assert len(name) <= 63 and name.startswith("wl-") and name == name.lower()
    assert instance_name("x", rung, "us-central1-a") != instance_name("x", rung, "us-central1-b")
    assert request_id(name, "z", "insert", "a1") == request_id(name, "z", "insert", "a1")
    assert request_id(name, "z", "insert", "a1") != request_id(name, "z", "delete-0", "a1")
    # A fresh attempt never reuses an old requestId: a replay could hand back
    # the DONE operation of an instance that was deleted since.
    assert request_id(name, "z", "insert", "a1") != request_id(name, "z", "insert", "a2")


def test_workload_script_exports_width_and_substitutes_placeholder() -> None:
    script = Workload("d1", "torchrun --nproc_per_node={width} x.py 'a b'").script_at(4)
    assert "export WIDTH=4\n" in script and "export WL_DISPATCH_ID=d1\n" in script
    assert script.rstrip().endswith("torchrun --nproc_per_node=4 x.py 'a b'")


def test_dispatch_imports_runpod_only_when_reaching_runpod(tmp_path: Path) -> None:
    """The preflight checks RunPod's key without the 2.4 s SDK import; only a
    walk that reaches a RunPod rung imports it."""
    code = r"""
import sys
from router.cli import main
from router.emulator.server import Emulator
from router.emulator.state import Faults, World
world = World({"gce": {"zones": {"us-central1-a": {"a2-ultragpu-1g": {"SPOT": 1}}},
               "quotas": {"us-central1": {"PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 8}}}}, Faults())
with Emulator(world) as emu:
    code = main(["dispatch", "--ladder", sys.argv[1], "--intent", "capture-7b",
                 "--gpu-count", "1", "--hours", "1", "--gcp-project", "p",
                 "--gcp-endpoint", emu.url, "--runpod-endpoint", emu.url,
                 "--skip-backend", "slurm", "--", "true"])
    print("CODE", code, "runpod" in sys.modules)
"""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "RUNPOD_API_KEY": "rpa_LAZY00000000"}
    ladder = str(Path(__file__).parent / "fixtures" / "ladder-small.yaml")
    result = subprocess.run([sys.executable, "-c", code, ladder], capture_output=True,
                            text=True, timeout=120, env=env)
    assert result.stdout.strip().splitlines()[-1] == "CODE 0 False", result.stderr


def test_emulator_queues_many_simultaneous_connections() -> None:
    """Twenty dispatchers fanning out over zones connect at once. With
    socketserver's default backlog of 5, the kernel would drop connections past
    the sixth while the accept loop is busy, and a client with a short request
    timeout would report the cloud as failing. Here the accept loop is not even
    running: every connection must still complete its handshake."""
    import socket

    from router.emulator.server import Emulator
    from router.emulator.state import Faults, World

    emu = Emulator(World({"gce": {"zones": {}, "quotas": {}}}, Faults()))  # never started
    try:
        port = emu.server.server_address[1]
        clients = [socket.create_connection(("127.0.0.1", port), timeout=0.5) for _ in range(60)]
        for sock in clients:
            sock.close()
    finally:
        emu.server.server_close()
