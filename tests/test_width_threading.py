"""From a plan's §9 phase through the router to a re-sharded launch, and the
plan-time quota check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.dispatch_support import EmulatorProcess, quotas, run_dispatch, slurm_ready

PLAN = """# Plan: sampled-separator control

## §9 Compute

```yaml
phases:
  - name: generate
    intent: capture-7b
    width: 8
    gpu_hours: 8
    shardable_axis: {{name: draw_set, size: 10}}
    launch: "{launch}"
  - name: extract
    intent: capture-7b
    width: 1
    gpu_hours: 0.5
    launch: "python extract.py --shards {{width}}"
```
"""
SHARDED = ("for i in $(seq 0 $(({width}-1))); do CUDA_VISIBLE_DEVICES=$i python gen.py "
           "--num-shards {width} --shard-id $i & done; wait")


@pytest.fixture(autouse=True)
def private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.md"
    path.write_text(PLAN.format(launch=SHARDED))
    return path


def router(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "router", *args], capture_output=True,
                          text=True, timeout=120)


def test_plan_from_a_phase(plan_file: Path) -> None:
    result = router("plan", "--plan", str(plan_file), "--phase", "generate", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["request"] == {"intent": "capture-7b", "width": 8,
                                                    "hours": 1.0}
    same = router("plan", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                  "--format", "json")
    assert json.loads(same.stdout) == json.loads(result.stdout)


@pytest.mark.parametrize(("args", "needle"), [
    (("--phase", "nope"), "no phase 'nope' in §9 (phases: generate, extract)"),
    ((), "plan has 2 phases, name one with --phase (phases: generate, extract)"),
    (("--phase", "generate", "--gpu-count", "4"),
     "--gpu-count 4 disagrees with"),
    (("--phase", "generate", "--intent", "lora-7b"), "--intent lora-7b disagrees with"),
    (("--phase", "generate", "--hours", "2"), "--hours 2 disagrees with"),
])
def test_plan_input_errors_are_one_line(plan_file: Path, args: tuple, needle: str) -> None:
    result = router("plan", "--plan", str(plan_file), *args)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert needle in result.stderr, result.stderr
    if "disagrees" in needle:
        assert "width 8" in result.stderr or "intent capture-7b" in result.stderr \
            or "length 1" in result.stderr


def test_plan_without_section9_is_bad_input(tmp_path: Path) -> None:
    bare = tmp_path / "bare.md"
    bare.write_text("# Plan\n\nNo compute yet.\n")
    result = router("plan", "--plan", str(bare))
    assert result.returncode == 2 and "no §9 section" in result.stderr


def test_width_placeholder_in_a_width_1_phase_is_fine(plan_file: Path) -> None:
    result = router("plan", "--plan", str(plan_file), "--phase", "extract")
    assert result.returncode == 0, result.stderr


def test_dispatch_from_plan_degrades_and_reshards(plan_file: Path, tmp_path: Path) -> None:
    emu = EmulatorProcess(tmp_path, {"gce": {"zones": {"us-east4-c": {
        "a2-ultragpu-4g": {"SPOT": 1}}}, "quotas": quotas()}})
    try:
        argv = [sys.executable, "-m", "router", "dispatch", "--ladder",
                str(Path(__file__).parent / "fixtures" / "ladder-small.yaml"),
                "--plan", str(plan_file), "--phase", "generate", "--gcp-project", "proj",
                "--gcp-endpoint", emu.url, "--runpod-endpoint", emu.url]
        env = {**os.environ, "RUNPOD_API_KEY": "rpa_WIDTH000000000",
               "XDG_STATE_HOME": str(tmp_path / "state")}
        result = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env)
        assert result.returncode == 0, result.stderr
        events = [json.loads(line) for line in result.stdout.splitlines()]
        [sel] = [e for e in events if e["event"] == "epm:backend-selected"]
        assert (sel["width"], sel["requested_width"], sel["degraded"]) == (4, 8, True)
        assert sel["phase"] == "generate" and sel["plan"] == str(plan_file)
        [inst] = emu.state()["instances"]
        script = {i["key"]: i["value"] for i in inst["metadata"]["items"]}["startup-script"]
        assert "export WIDTH=4\n" in script and "export NUM_SHARDS=4\n" in script
        assert "export CUDA_VISIBLE_DEVICES=0,1,2,3\n" in script
        assert script.rstrip().endswith(
            "for i in $(seq 0 $((4-1))); do CUDA_VISIBLE_DEVICES=$i python gen.py "
            "--num-shards 4 --shard-id $i & done; wait")
    finally:
        emu.close()


def test_dispatch_command_must_agree_with_plan(plan_file: Path) -> None:
    result = router("dispatch", "--plan", str(plan_file), "--phase", "generate",
                    "--gcp-project", "p", "--", "python something-else.py")
    assert result.returncode == 2 and "disagrees with" in result.stderr


@pytest.mark.skipif(not slurm_ready(), reason="SLURM daemons are not running (.ci/slurm-up)")
def test_dispatch_from_plan_on_the_real_slurm_lane(tmp_path: Path) -> None:
    out = tmp_path / "env.txt"
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN.format(launch=f"env > {out}; echo shards={{width}} >> {out}"))
    emu = EmulatorProcess(tmp_path, {"gce": {"quotas": quotas()}})
    try:
        result, events = run_dispatch(emu, "--plan", str(plan), "--phase", "generate",
                                      "--slurm-output", str(tmp_path), command=None)
    finally:
        emu.close()
    assert result.returncode == 0, result.stderr
    [sel] = [e for e in events if e["event"] == "epm:backend-selected"]
    assert sel["backend"] == "slurm" and sel["width"] == 1 and sel["phase"] == "generate"
    deadline = time.time() + 60
    while not (out.exists() and "shards=" in out.read_text()) and time.time() < deadline:
        time.sleep(0.3)
    env = out.read_text()
    assert "WIDTH=1" in env and "NUM_SHARDS=1" in env and "shards=1" in env


def test_check_quota_marks_rungs_that_can_never_launch(tmp_path: Path) -> None:
    limited = quotas(64, **{r.replace("-", "_"): {"PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 4}
                            for r in ("us-central1", "us-east4", "us-east5", "europe-west4",
                                      "asia-southeast1")})
    emu = EmulatorProcess(tmp_path, {"gce": {"quotas": limited}})
    try:
        base = ["plan", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                "--check-quota", "--gcp-project", "proj", "--gcp-endpoint", emu.url]
        doc = json.loads(router(*base, "--format", "json").stdout)
        a2 = {(r["width"], r["provisioning"]): r["quota"] for r in doc["rungs"]
              if r.get("machine_type", "").startswith("a2-")}
        for model in ("SPOT", "FLEX_START"):
            assert a2[(8, model)] == {"metric": "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS",
                                      "region": "us-central1", "limit": 4.0, "usage": 0.0,
                                      "admits": False}
            assert a2[(4, model)]["admits"] is True
        assert a2[(8, "STANDARD")]["admits"] is True
        assert all("quota" not in r for r in doc["rungs"] if r["backend"] != "gcp")
        pruned = json.loads(router(*base, "--prune", "--format", "json").stdout)["rungs"]
        assert not [r for r in pruned if r.get("quota", {}).get("admits") is False]
        assert len(pruned) == len(doc["rungs"]) - 2
        text = router(*base).stdout
        assert text.count("NEVER 0/4") == 2 and "quota" in text.splitlines()[1]
    finally:
        emu.close()
    plain = router("plan", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                   "--format", "json")
    assert all("quota" not in r for r in json.loads(plain.stdout)["rungs"])
