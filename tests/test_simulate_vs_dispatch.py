"""The same scenario through `dispatch` against the emulator and through
`simulate`'s walk: both try the same rungs in the same order, see the same
outcome in every zone, and select the same machine. (Simulate is the
dispatch code on a virtual clock, so this is the check that nothing in
between, such as the simulated backends, changed the walk.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from router import config as ladder_config
from router.planner import Request
from router.simulate import policies, runner
from router.simulate.model import CapacityModel, GcpEntry, Pods, Stock
from tests.dispatch_support import SMALL_LADDER, quotas, run_dispatch

NEVER = Stock(0.0, 1.0, 0.0, 0.0)
ALWAYS = Stock(1.0, 0.0, 0.0, 0.0)


@pytest.fixture(autouse=True)
def private_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def no_slurm_ladder(tmp_path: Path) -> Path:
    """The small test ladder without SLURM lanes: this comparison is about the
    walk, and needs no cluster."""
    raw = yaml.safe_load(SMALL_LADDER.read_text())
    raw["slurm_lanes"] = []
    for intent in raw["intents"].values():
        intent.pop("slurm_lanes", None)
    path = tmp_path / "ladder.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def rungs_tried(events: list[dict]) -> list[tuple]:
    """Each rung tried, in order, with the outcome seen in each of its zones
    (the zones of one rung answer in any order: they are sent at once)."""
    out: list[tuple] = []
    for e in events:
        if e["event"] != "epm:backend-attempt":
            continue
        rung = (e["backend"], e.get("machine_type") or e.get("gpu_type"), e.get("provisioning"),
                e["width"])
        if not out or out[-1][0] != rung:
            out.append((rung, set()))
        out[-1][1].add((e.get("zone"), e["outcome"]))
    return [(rung, frozenset(zones)) for rung, zones in out]


def chosen(events: list[dict]) -> tuple:
    [sel] = [e for e in events if e["event"] == "epm:backend-selected"]
    return (sel["backend"], sel.get("machine_type") or sel.get("gpu_type"),
            sel.get("provisioning"), sel.get("zone"), sel["width"])


SCENARIOS = {
    # 8x and its other zones dry: degrade to 4x SPOT in the second zone.
    "degrade-to-4": ({"gce": {"zones": {"us-central1-c": {"a2-ultragpu-4g": {"SPOT": 1}}}}},
                     [("us-central1-c", "a2-ultragpu-4g", "SPOT")], {}),
    # Only a long-job model at 2x (FLEX_START leads at 4 h and longer).
    "flex-at-2": ({"gce": {"zones": {"us-east4-a": {"a3-highgpu-2g": {"FLEX_START": 1}}}}},
                  [("us-east4-a", "a3-highgpu-2g", "FLEX_START")], {}),
    # GCP dry everywhere: the whole ladder is walked down to RunPod.
    "runpod-last": ({"gce": {"zones": {}}, "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}},
                    [], {"NVIDIA A100 80GB PCIe": 1.0}),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_dispatch_and_simulate_walk_the_same_rungs(name: str, emulator_factory,
                                                   tmp_path: Path) -> None:
    capacity, in_stock, pods = SCENARIOS[name]
    capacity["gce"]["quotas"] = quotas()
    ladder = no_slurm_ladder(tmp_path)
    emu = emulator_factory(capacity)
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "8",
                                  "--hours", "1", ladder=ladder)
    assert result.returncode == 0, result.stderr

    config = ladder_config.load(ladder)
    model = CapacityModel("equivalent", gcp=[GcpEntry(
        tuple(f.machine_type(w) for f in config.families.values() for w in f.widths),
        ("SPOT", "FLEX_START", "STANDARD"), None, NEVER)])
    model.gcp += [GcpEntry((machine,), (model_name,), (zone,), ALWAYS)
                  for zone, machine, model_name in in_stock]
    model.runpod = {gpu: Pods(share, 1.0) for gpu, share in pods.items()}
    model.runpod.update({gpu: Pods(0.0, 1.0) for gpu in config.runpod_gpu_types
                         if gpu not in pods})
    policy = policies.build("ladder", config, Request("capture-7b", 8, 1.0))
    [simulated] = runner.simulate(policy, model, 1, 0, keep_events=True).results

    assert rungs_tried(simulated.events) == rungs_tried(events)
    assert chosen(simulated.events) == chosen(events)
    assert len(rungs_tried(events)) >= 4  # a real walk, not a first-rung launch
