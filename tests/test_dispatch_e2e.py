"""End-to-end dispatch walks through the real client libraries against the
emulator (and the real SLURM cluster that .ci/run starts)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.dispatch_support import (
    SMALL_LADDER,
    quotas,
    run_dispatch,
    slurm_ready,
)


@pytest.fixture(autouse=True)
def private_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def python_only_path() -> dict[str, str]:
    """A PATH without sbatch (dispatch runs by absolute interpreter path): the
    SLURM lanes are `unavailable`."""
    empty = Path(os.environ.get("TMPDIR", "/tmp")) / "wl-empty-path"
    empty.mkdir(exist_ok=True)
    return {"PATH": str(empty)}


def outcomes(events: list[dict]) -> list[tuple]:
    return [(e["backend"], e.get("machine_type") or e.get("lane") or e.get("gpu_type"),
             e.get("provisioning"), e.get("zone"), e["width"], e["outcome"])
            for e in events if e["event"] == "epm:backend-attempt"]


def attempts(events: list[dict]) -> list[dict]:
    return [e for e in events if e["event"] == "epm:backend-attempt"]


def selected(events: list[dict]) -> list[dict]:
    return [e for e in events if e["event"] == "epm:backend-selected"]


def test_degrades_from_8_to_4_in_a_second_zone(emulator_factory, tmp_path: Path) -> None:
    emu = emulator_factory({"gce": {"zones": {"us-central1-c": {"a2-ultragpu-4g": {"SPOT": 1}}},
                                    "quotas": quotas()}})
    log = tmp_path / "events.jsonl"
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "8",
                                  "--hours", "1", events=log,
                                  command="python gen.py --num-shards {width}")
    assert result.returncode == 0, result.stderr
    [sel] = selected(events)
    assert sel["backend"] == "gcp" and sel["machine_type"] == "a2-ultragpu-4g"
    assert sel["zone"] == "us-central1-c" and sel["provisioning"] == "SPOT"
    assert (sel["requested_width"], sel["width"], sel["degraded"]) == (8, 4, True)
    tried = outcomes(events)
    assert all(t[4] == 8 for t in tried[:tried.index(next(t for t in tried if t[4] == 4))])
    assert ("gcp", "a2-ultragpu-8g", "SPOT", "us-central1-a", 8, "capacity-miss") in tried
    [inst] = emu.state()["instances"]
    assert inst["name"] == sel["instance"] and inst["zoneName"] == "us-central1-c"
    script = {i["key"]: i["value"] for i in inst["metadata"]["items"]}["startup-script"]
    assert "export WIDTH=4" in script and "python gen.py --num-shards 4" in script
    assert [json.loads(line) for line in log.read_text().splitlines()] == events


def test_quota_skips_wide_rungs(emulator_factory) -> None:
    capacity = {"gce": {"zones": {"us-central1-a": {"a2-ultragpu-8g": {"SPOT": 1, "FLEX_START": 1},
                                                    "a2-ultragpu-4g": {"SPOT": 1}}},
                        "quotas": quotas(64, us_central1={"PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 4},
                                         us_east4={"PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 4})}}
    emu = emulator_factory(capacity)
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "8",
                                  "--hours", "1")
    assert result.returncode == 0, result.stderr
    quota_misses = [e for e in events if e.get("outcome") == "quota-miss"
                    and e.get("machine_type") == "a2-ultragpu-8g"]
    assert {e["provisioning"] for e in quota_misses} == {"SPOT", "FLEX_START"}
    assert all(e["metric"] == "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS" and e["limit"] == 4
               and e["usage"] == 0 for e in quota_misses)
    assert not any(e.get("zone") and e.get("machine_type") == "a2-ultragpu-8g"
                   and e.get("provisioning") in ("SPOT", "FLEX_START")
                   for e in events if e["event"] == "epm:backend-attempt")
    [sel] = selected(events)
    assert sel["machine_type"] == "a2-ultragpu-4g" and sel["width"] == 4


@pytest.mark.skipif(not slurm_ready(), reason="SLURM daemons are not running (.ci/slurm-up)")
def test_gcp_dry_then_the_real_slurm_lane(emulator_factory, tmp_path: Path) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()}, "runpod": {"gpus": {
        "NVIDIA A100 80GB PCIe": 1}}})
    out = tmp_path / "job-env.txt"
    result, events = run_dispatch(
        emu, "--intent", "capture-7b", "--gpu-count", "2", "--hours", "1",
        "--slurm-output", str(tmp_path),
        command=f"env > {out}; echo shards={{width}} >> {out}")
    assert result.returncode == 0, result.stderr
    tried = outcomes(events)
    # Every GCP rung of the plan was tried, all of them before the SLURM lane.
    from router import config
    from router.planner import Request, plan

    cfg = config.load(str(SMALL_LADDER))
    planned = {(r.machine_type, r.provisioning, r.width)
               for r in plan(Request("capture-7b", 2, 1.0), cfg) if r.backend == "gcp"}
    assert {(t[1], t[2], t[4]) for t in tried if t[0] == "gcp"} == planned
    first_slurm = next(i for i, t in enumerate(tried) if t[0] == "slurm")
    assert all(t[0] == "gcp" for t in tried[:first_slurm])
    assert tried[-1][:2] == ("slurm", "campus-a100") and tried[-1][5] == "launched"
    assert all(t[5] != "launched" for t in tried[:-1]) and "runpod" not in {t[0] for t in tried}
    [sel] = selected(events)
    assert sel["backend"] == "slurm" and sel["width"] == 1 and sel["degraded"] is True
    deadline = time.time() + 60
    while not (out.exists() and "shards=1" in out.read_text()) and time.time() < deadline:
        time.sleep(0.3)
    env = out.read_text()
    assert "WIDTH=1" in env and "shards=1" in env and "CUDA_VISIBLE_DEVICES=0" in env
    assert emu.state()["instances"] == [] and emu.state()["pods"] == []


@pytest.mark.skipif(not slurm_ready(), reason="SLURM daemons are not running (.ci/slurm-up)")
def test_slurm_lane_that_cannot_fit_falls_to_runpod_last(emulator_factory,
                                                         tmp_path: Path) -> None:
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(SMALL_LADDER.read_text().replace("gres_type: a100", "gres_type: h200"))
    emu = emulator_factory({"gce": {"quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1", ladder=ladder)
    assert result.returncode == 0, result.stderr
    tried = outcomes(events)
    backends = [t[0] for t in tried]
    assert backends == sorted(backends, key=["gcp", "slurm", "runpod"].index)
    assert tried[-2][0] == "slurm" and tried[-2][5] == "capacity-miss"
    assert tried[-1][:2] == ("runpod", "NVIDIA A100 80GB PCIe") and tried[-1][5] == "launched"
    [pod] = emu.state()["pods"]
    assert selected(events)[0]["pod_id"] == pod["id"]
    assert "rpa_TESTKEY1234567890" not in json.dumps(events)


def test_no_sbatch_fails_the_preflight_before_any_attempt(emulator_factory) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA H100 80GB HBM3": 8}}})
    result, events = run_dispatch(emu, "--intent", "eval-70b", "--gpu-count", "4",
                                  "--hours", "1", env=python_only_path())
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "slurm cannot be used: no sbatch on PATH" in result.stderr
    assert "--skip-backend slurm" in result.stderr
    assert outcomes(events) == [] and events[-1]["event"] == "epm:backend-error"
    checks = {e["backend"]: e["usable"] for e in events if e["event"] == "epm:backend-check"}
    assert checks == {"gcp": True, "slurm": False, "runpod": True}
    assert emu.state() == {"instances": [], "pods": []}


def test_skipped_slurm_and_runpod_exhaustion_exits_1(emulator_factory) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()}})
    result, events = run_dispatch(emu, "--intent", "eval-70b", "--gpu-count", "4",
                                  "--hours", "1", "--skip-backend", "slurm",
                                  env=python_only_path())
    assert result.returncode == 1, result.stderr
    tried = outcomes(events)
    assert "slurm" not in {t[0] for t in tried}
    assert tried[-1] == ("runpod", "NVIDIA H100 80GB HBM3", None, None, 2, "capacity-miss")
    assert {t[4] for t in tried if t[0] == "gcp"} == {4, 2}
    assert events[-1]["event"] == "epm:backend-exhausted"
    assert emu.state() == {"instances": [], "pods": []}


def test_attempt_cap_reached_goes_on_to_the_next_backends(emulator_factory,
                                                          tmp_path: Path) -> None:
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(SMALL_LADDER.read_text().replace("gcp_attempt_cap_per_day: 1000",
                                                       "gcp_attempt_cap_per_day: 1"))
    emu = emulator_factory({"gce": {"quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 2}}})
    first, first_events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "2",
                                       "--hours", "1", "--skip-backend", "slurm",
                                       ladder=ladder, env=python_only_path())
    assert first.returncode == 0
    assert not any(e.get("outcome") == "cap-reached" for e in first_events)
    second, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "2",
                                  "--hours", "1", "--skip-backend", "slurm", ladder=ladder,
                                  env=python_only_path())
    assert second.returncode == 0
    gcp = [t for t in outcomes(events) if t[0] == "gcp"]
    assert gcp and all(t[5] == "cap-reached" for t in gcp)
    assert selected(events)[0]["backend"] == "runpod"


def test_auth_error_stops_the_walk_with_exit_2(emulator_factory) -> None:
    emu = emulator_factory({"gce": {"reject_auth": True, "quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "gcp cannot be used" in result.stderr and "credentials" in result.stderr
    assert outcomes(events) == []  # the preflight stopped it before the first attempt
    assert events[-1]["event"] == "epm:backend-error"
    assert emu.state() == {"instances": [], "pods": []}


def test_runpod_bad_key_is_an_error(emulator_factory) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()}, "runpod": {
        "gpus": {"NVIDIA A100 80GB PCIe": 1}, "reject_keys": ["rpa_BADKEY000000"]}})
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1", "--skip-backend", "slurm",
                                  env={**python_only_path(), "RUNPOD_API_KEY": "rpa_BADKEY000000"})
    assert result.returncode == 2 and "rejected the API key" in result.stderr
    assert outcomes(events) == []  # found before the first GCP rung, not at the last rung
    assert events[-1]["event"] == "epm:backend-error"
    assert "rpa_BADKEY000000" not in result.stdout + result.stderr


@pytest.mark.skipif(not slurm_ready(), reason="SLURM daemons are not running (.ci/slurm-up)")
def test_a_failing_workload_is_not_a_miss(emulator_factory, tmp_path: Path) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1", "--slurm-output", str(tmp_path),
                                  command="exit 3")
    assert result.returncode == 0
    assert selected(events)[0]["backend"] == "slurm"
    assert not any(e["backend"] == "runpod" for e in attempts(events))
    assert emu.state()["pods"] == []


def test_rerun_with_same_dispatch_id_adopts_the_machine(emulator_factory) -> None:
    emu = emulator_factory({"gce": {"zones": {"us-east4-c": {"a2-ultragpu-2g": {"SPOT": 2}}},
                                    "quotas": quotas()}})
    args = ("--intent", "capture-7b", "--gpu-count", "2", "--hours", "1", "--dispatch-id",
            "job-42")
    first, _ = run_dispatch(emu, *args)
    second, events = run_dispatch(emu, *args)
    assert first.returncode == second.returncode == 0
    [sel] = selected(events)
    assert sel.get("rerun") is True and sel["instance"].startswith("wl-job-42-")
    assert len(emu.state()["instances"]) == 1


def test_bad_dispatch_input_is_one_line(emulator_factory, tmp_path: Path) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()}})
    for extra in (("--dispatch-id", "Bad_ID"), ("--gpu-count", "3")):
        args = ["--intent", "capture-7b", "--hours", "1"]
        if extra[0] != "--gpu-count":
            args += ["--gpu-count", "1"]
        result, _ = run_dispatch(emu, *args, *extra)
        assert result.returncode == 2 and result.stderr.count("\n") == 1
    bad = tmp_path / "cap.yaml"
    bad.write_text("gce:\n  zones:\n    z:\n      m: {SPOTTY: 1}\n")
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "router", "emulator", "--capacity", str(bad)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and f"{bad}:4:" in proc.stderr


@pytest.mark.skipif(not Path("/etc/slurm/slurm.conf").exists(),
                    reason="slurm-wlm is not installed (.ci/slurm-up)")
def test_unreachable_slurm_controller_is_unavailable(emulator_factory, tmp_path: Path) -> None:
    conf = tmp_path / "slurm.conf"
    text = Path("/etc/slurm/slurm.conf").read_text()
    conf.write_text(text.replace("ClusterName=wl", "ClusterName=wl\nSlurmctldPort=6999\n"
                                                   "MessageTimeout=2"))
    emu = emulator_factory({"gce": {"quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1", env={"SLURM_CONF": str(conf)})
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "slurm cannot be used: controller" in result.stderr and outcomes(events) == []
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1", "--skip-backend", "slurm",
                                  env={"SLURM_CONF": str(conf)})
    assert result.returncode == 0, result.stderr
    assert "slurm" not in {t[0] for t in outcomes(events)}
    assert selected(events)[0]["backend"] == "runpod"


def test_odd_runpod_response_is_a_clear_error(emulator_factory) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()}})
    argv = ("--intent", "capture-7b", "--gpu-count", "1", "--hours", "1",
            "--runpod-endpoint", f"{emu.url}/not-graphql")
    result, events = run_dispatch(emu, *argv, "--skip-backend", "slurm", env=python_only_path())
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "runpod cannot be used" in result.stderr and "HTTP 404" in result.stderr
    assert "Traceback" not in result.stderr and outcomes(events) == []
    assert events[-1]["event"] == "epm:backend-error"


def test_emulator_fault_flags_override_the_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    cap = tmp_path / "cap.yaml"
    cap.write_text("gce:\n  zones:\n    us-central1-a:\n      a2-ultragpu-1g: {SPOT: 1}\n"
                   "  quotas:\n    us-central1: {PREEMPTIBLE_NVIDIA_A100_80GB_GPUS: 8}\n"
                   "faults: {error_5xx_rate: 0.0}\n")
    proc = subprocess.Popen([sys.executable, "-m", "router", "emulator", "--capacity", str(cap),
                             "--error-5xx-rate", "1", "--seed", "3"],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[-1]
        import urllib.error
        import urllib.request

        body = b'{"name": "x1", "machineType": "zones/us-central1-a/machineTypes/a2-ultragpu-1g"}'
        req = urllib.request.Request(f"{url}/compute/v1/projects/p/zones/us-central1-a/instances",
                                     data=body, method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=10)
        assert info.value.code == 500
    finally:
        proc.kill()
        proc.wait()
    bad = subprocess.run([sys.executable, "-m", "router", "emulator", "--capacity", str(cap),
                          "--timeout-rate", "2"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "within 0..1" in bad.stderr


@pytest.mark.skipif(not slurm_ready(), reason="SLURM daemons are not running (.ci/slurm-up)")
def test_follow_reports_a_failed_job_and_never_cascades(emulator_factory,
                                                        tmp_path: Path) -> None:
    emu = emulator_factory({"gce": {"quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
    result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                  "--hours", "1", "--slurm-output", str(tmp_path), "--follow",
                                  "--follow-interval", "0.3", command="sleep 0.5; exit 3")
    assert result.returncode == 0, result.stderr
    ended = events[-1]
    assert ended["event"] == "epm:workload-ended" and ended["backend"] == "slurm"
    assert ended["state"] == "failed" and ended["exit_code"] == 3 and ended["cascaded"] is False
    assert not any(e["backend"] == "runpod" for e in attempts(events))
    assert emu.state()["pods"] == []


def test_follow_reports_a_preempted_spot_vm_and_never_cascades(emulator_factory) -> None:
    import subprocess
    import sys
    import urllib.request

    emu = emulator_factory({"gce": {"zones": {"us-central1-a": {"a2-ultragpu-2g": {"SPOT": 1}}},
                                    "quotas": quotas()},
                            "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
    argv = [sys.executable, "-m", "router", "dispatch", "--ladder", str(SMALL_LADDER),
            "--intent", "capture-7b", "--gpu-count", "2", "--hours", "1",
            "--gcp-project", "proj", "--gcp-endpoint", emu.url, "--runpod-endpoint", emu.url,
            "--follow", "--follow-interval", "0.2", "--skip-backend", "slurm", "--",
            "python train.py"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **python_only_path(),
                                 "RUNPOD_API_KEY": "rpa_TESTKEY1234567890"})
    lines = []
    for line in proc.stdout:
        lines.append(json.loads(line))
        if lines[-1]["event"] == "epm:backend-selected":
            break
    name = lines[-1]["instance"]
    req = urllib.request.Request(f"{emu.url}/_emulator/preempt", method="POST",
                                 data=json.dumps({"name": name}).encode())
    urllib.request.urlopen(req, timeout=10).read()
    rest, _ = proc.communicate(timeout=60)
    lines += [json.loads(line) for line in rest.splitlines()]
    assert proc.returncode == 0
    assert lines[-1]["event"] == "epm:workload-ended" and lines[-1]["state"] == "preempted"
    after = lines[lines.index(next(e for e in lines if e["event"] == "epm:backend-selected")):]
    assert not any(e["event"] == "epm:backend-attempt" for e in after)
    assert emu.state() == {"instances": [], "pods": []}


@pytest.mark.skipif(not slurm_ready(), reason="SLURM daemons are not running (.ci/slurm-up)")
def test_slurm_start_past_the_wait_limit_is_a_capacity_miss(emulator_factory,
                                                            tmp_path: Path) -> None:
    import subprocess

    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(SMALL_LADDER.read_text().replace("max_wait_minutes: 30",
                                                       "max_wait_minutes: 5"))
    blocker = subprocess.run(["sbatch", "--parsable", "--partition=gpu", "--gres=gpu:a100:8",
                              "--time=60", f"--output={tmp_path}/blocker.out",
                              "--wrap", "sleep 600"], capture_output=True, text=True, timeout=30)
    job = blocker.stdout.strip()
    assert blocker.returncode == 0, blocker.stderr
    try:
        deadline = time.time() + 30
        while time.time() < deadline:  # wait until the blocker holds the GPUs
            state = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True,
                                   text=True, timeout=10).stdout.strip()
            if state == "RUNNING":
                break
            time.sleep(0.3)
        emu = emulator_factory({"gce": {"quotas": quotas()},
                                "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}})
        result, events = run_dispatch(emu, "--intent", "capture-7b", "--gpu-count", "1",
                                      "--hours", "1", ladder=ladder)
    finally:
        subprocess.run(["scancel", job], timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    [slurm] = [e for e in attempts(events) if e["backend"] == "slurm"]
    assert slurm["outcome"] == "capacity-miss" and "wait limit" in slurm["detail"]
    assert selected(events)[0]["backend"] == "runpod"
