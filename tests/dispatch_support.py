"""Shared helpers for dispatch tests: an emulator process, a CLI runner, and
readers for what the emulator and the events say."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SMALL_LADDER = Path(__file__).parent / "fixtures" / "ladder-small.yaml"
ALL_REGIONS = ("us-central1", "us-east4", "us-east5", "us-west1", "us-west4", "europe-west4",
               "asia-southeast1")
METRICS = ("NVIDIA_A100_80GB_GPUS", "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS", "NVIDIA_H100_GPUS",
           "PREEMPTIBLE_NVIDIA_H100_GPUS")


def quotas(limit: int = 64, **overrides: dict[str, int]) -> dict[str, dict[str, int]]:
    table = {region: dict.fromkeys(METRICS, limit) for region in ALL_REGIONS}
    for region, metrics in overrides.items():
        table[region.replace("_", "-")].update(metrics)
    return table


class EmulatorProcess:
    """`backend-router emulator` as a user runs it, in its own process."""

    def __init__(self, tmp: Path, capacity: dict, *flags: str) -> None:
        self.capacity_file = tmp / "capacity.yaml"
        self.capacity_file.write_text(yaml.safe_dump(capacity))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "router", "emulator", "--capacity", str(self.capacity_file),
             *flags],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:"), (line, self.proc.stderr.read())
        self.url = line.removeprefix("listening on ")

    def state(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/_emulator/instances", timeout=10) as resp:
            return json.load(resp)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def run_dispatch(emulator: EmulatorProcess | None, *args: str, command: str | None = "true",
                 ladder: Path = SMALL_LADDER, env: dict | None = None,
                 events: Path | None = None, timeout: float = 180
                 ) -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    argv = [sys.executable, "-m", "router", "dispatch", "--ladder", str(ladder)]
    if emulator is not None:  # before *args, so a test can override one of them
        argv += ["--gcp-project", "proj", "--gcp-endpoint", emulator.url,
                 "--runpod-endpoint", emulator.url]
    argv += list(args)
    if events is not None:
        argv += ["--events", str(events)]
    if command is not None:  # None: the command comes from --plan
        argv += ["--", command]
    full_env = {**os.environ, "RUNPOD_API_KEY": "rpa_TESTKEY1234567890", **(env or {})}
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=full_env)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result, lines


def slurm_ready() -> bool:
    if shutil.which("sbatch") is None or shutil.which("sinfo") is None:
        return False
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and any(s in out.stdout for s in ("idle", "mix", "alloc"))
