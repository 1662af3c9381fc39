"""Dispatch under injected faults, crashes included: hundreds of randomized
scenarios against the emulator, through the real client libraries.

Each scenario draws capacity, quotas and faults (5xx, 429, stalled responses,
silent operation errors, inserts that time out but still create the VM), then
dispatches; about a third are killed with SIGKILL mid-walk and rerun with the
same dispatch id. Afterwards: exactly one live machine on success, zero on
exhaustion, no duplicates, RunPod never before GCP and SLURM are exhausted, and
the events agree with the emulator."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from router import config
from router.backends.base import DispatchError, Workload
from router.dispatch import Dispatcher, Options
from router.events import EventLog
from router.planner import Request, plan
from tests.dispatch_support import SMALL_LADDER, EmulatorProcess

SCENARIOS = int(os.environ.get("WL_FAULT_SCENARIOS", "300"))
LADDER_TEXT = (SMALL_LADDER.read_text()
               .replace("request_timeout_seconds: 2", "request_timeout_seconds: 0.3")
               .replace("operation_timeout_seconds: 20", "operation_timeout_seconds: 5"))
CFG = config.parse(LADDER_TEXT, "fault-ladder.yaml")
ZONES = {name: fam.zones for name, fam in CFG.families.items()}
REGIONS = sorted({z.rsplit("-", 1)[0] for zones in ZONES.values() for z in zones})
METRICS = sorted({m for fam in CFG.families.values() for m in fam.quota.values()})


def draw(rng: random.Random) -> tuple[dict, dict, Request]:
    width = rng.choice([1, 2, 4, 8])
    hours = rng.choice([0.5, 2.0, 6.0, 30.0])
    zones: dict = {}
    for family in CFG.families.values():
        for zone in family.zones:
            for w in (1, 2, 4, 8):
                for model in family.provisioning:
                    if rng.random() < 0.12:
                        zones.setdefault(zone, {}).setdefault(
                            family.machine_type(w), {})[model] = rng.choice([1, 1, 2])
    quotas = {r: {m: rng.choice([0, 2, 4, 8, 64, 64]) for m in METRICS} for r in REGIONS}
    capacity = {"gce": {"zones": zones, "quotas": quotas},
                "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": rng.choice([0, 1, 8])}}}
    rate = lambda: rng.choice([0.0, 0.0, 0.1, 0.25])  # noqa: E731
    faults = {"seed": rng.randrange(10**6), "latency_ms": rng.choice([0, 5, 20]),
              "error_5xx_rate": rate(), "rate_limit_rate": rate(), "timeout_rate": rate() / 2,
              "silent_operation_error_rate": rate(),
              "insert_timeout_creates_rate": rate() / 2,
              "async_capacity_errors": rng.random() < 0.5, "timeout_s": 0.6}
    return capacity, faults, Request("capture-7b", width, hours)


def post(url: str, doc: dict) -> None:
    req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=10).read()


def state(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/_emulator/instances", timeout=10) as resp:
        return json.load(resp)


def run_child(url: str, request: Request, dispatch_id: str, events: Path, rerun: bool,
              tmp: Path) -> int:
    """Fork a dispatcher (the parent already paid for importing the SDKs)."""
    pid = os.fork()
    if pid == 0:  # child
        code = 3
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            empty = tmp / "empty-path"
            empty.mkdir(exist_ok=True)
            os.environ.update(PATH=str(empty), XDG_STATE_HOME=str(tmp / "state"),
                              RUNPOD_API_KEY="rpa_FAULTTEST0000")
            log = EventLog(dispatch_id, str(events), stdout=open(os.devnull, "w"))  # noqa: SIM115
            options = Options(gcp_project="proj", gcp_endpoint=url, runpod_endpoint=url,
                              rerun=rerun)
            dispatcher = Dispatcher(request, CFG, Workload(dispatch_id, "run --shards {width}"),
                                    log, options)
            dispatcher.gcp().sleep = lambda s: time.sleep(s / 20)  # keep backoff short
            code = dispatcher.walk()
        except DispatchError:
            code = 2
        finally:
            os._exit(code)
    return pid


def wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def live_machines(url: str, dispatch_id: str) -> list[dict]:
    snap = state(url)
    vms = [i for i in snap["instances"] if i["labels"].get("wl-dispatch") == dispatch_id]
    pods = [p for p in snap["pods"] if p["name"] == f"wl-{dispatch_id}"]
    return vms + pods


def check(url: str, request: Request, dispatch_id: str, code: int, events: list[dict]) -> None:
    live = live_machines(url, dispatch_id)
    selected = [e for e in events if e["event"] == "epm:backend-selected"]
    assert code in (0, 1), (code, events[-3:])
    if code == 0:
        assert len(live) == 1, live
        assert len(selected) == 1
        handle = live[0].get("name") if "labels" in live[0] else live[0]["id"]
        assert handle in (selected[0].get("instance"), selected[0].get("pod_id"))
        if selected[0]["backend"] == "gcp" and "machine_type" in selected[0]:
            assert live[0]["machineType"].endswith("/" + selected[0]["machine_type"])
            assert live[0]["labels"]["wl-width"] == str(selected[0]["width"])
    else:
        assert live == [], live
        assert not selected and events[-1]["event"] == "epm:backend-exhausted"
    attempts = [e for e in events if e["event"] == "epm:backend-attempt"]
    first_runpod = next((i for i, e in enumerate(attempts) if e["backend"] == "runpod"), None)
    if first_runpod is not None:
        before = attempts[:first_runpod]
        assert all(e["outcome"] != "launched" for e in before if e["backend"] != "runpod")
        assert any(e["backend"] == "slurm" for e in before)
        gcp_rungs = {(r.machine_type, r.provisioning) for r in plan(request, CFG)
                     if r.backend == "gcp"}
        tried = {(e["machine_type"], e["provisioning"]) for e in before if e["backend"] == "gcp"}
        assert tried == gcp_rungs


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory):
    import google.cloud.compute_v1  # noqa: F401 - import once, before forking
    import runpod  # noqa: F401

    emu = EmulatorProcess(tmp_path_factory.mktemp("emu"), {})
    yield emu.url
    emu.close()


@pytest.mark.parametrize("chunk", range(10))
def test_fault_injected_scenarios(emulator: str, tmp_path: Path, chunk: int) -> None:
    per_chunk = -(-SCENARIOS // 10)
    for index in range(chunk * per_chunk, min(SCENARIOS, (chunk + 1) * per_chunk)):
        rng = random.Random(index)
        capacity, faults, request = draw(rng)
        post(f"{emulator}/_emulator/reset", {"capacity": capacity, "faults": faults})
        dispatch_id = f"s{index}"
        crash = rng.random() < 0.35
        events_file = tmp_path / f"{dispatch_id}.jsonl"
        if crash:
            pid = run_child(emulator, request, dispatch_id, tmp_path / "crashed.jsonl",
                            False, tmp_path)
            time.sleep(rng.uniform(0.0, 0.5))
            with contextlib.suppress(ProcessLookupError):  # it may have finished already
                os.kill(pid, signal.SIGKILL)
            wait(pid)
        code = wait(run_child(emulator, request, dispatch_id, events_file, crash, tmp_path))
        events = [json.loads(line) for line in events_file.read_text().splitlines()] \
            if events_file.exists() else []
        try:
            check(emulator, request, dispatch_id, code, events)
        except AssertionError as exc:
            raise AssertionError(f"scenario {index} (crash={crash}, faults={faults}, "
                                 f"request={request}): {exc}") from None
