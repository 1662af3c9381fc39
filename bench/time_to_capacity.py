"""Time to capacity: one GCP rung whose first k zones are dry and whose last
zone has capacity, with every insert taking L seconds at the emulator.

Concurrent zones should cost about one round trip whatever k is; a serial zone
walk costs (k + 1) round trips. Prints both, their ratio to L, and the ratio
between them. Target: concurrent <= 1.5 L. Then dispatch's cold overhead
beyond importing the SDK (target <= 0.5 s).

    python bench/time_to_capacity.py [--latency 0.2] [--dry 1,3,6]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from router import config
from router.backends.base import Context, Workload
from router.backends.gcp import GcpBackend
from router.emulator.server import Emulator
from router.emulator.state import Faults, World
from router.events import EventLog
from router.planner import Rung

ZONES = [f"us-central1-{c}" for c in "abcdefgh"] + [f"us-east4-{c}" for c in "abc"]


def world(k: int, latency: float) -> World:
    zone = ZONES[k]
    return World({"gce": {"zones": {zone: {"a2-ultragpu-8g": {"SPOT": 1}}},
                          "quotas": {r: {"PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 64}
                                     for r in ("us-central1", "us-east4")}}},
                 Faults(latency_ms=latency * 1000))


def backend(url: str, cfg: config.LadderConfig, tag: str) -> GcpBackend:
    events = EventLog(tag, None, stdout=open(os.devnull, "w"))  # noqa: SIM115
    return GcpBackend(Context(cfg, events, Workload(tag, "true")), "bench", url)


def timed_rung(k: int, latency: float, cfg: config.LadderConfig, serial: bool) -> float:
    rung = Rung(backend="gcp", width=8, hours=1.0, machine_type="a2-ultragpu-8g",
                provisioning="SPOT", zones=tuple(ZONES[:k + 1]),
                quota_metric="PREEMPTIBLE_NVIDIA_A100_80GB_GPUS")
    with Emulator(world(k, latency)) as emu:
        gcp = backend(emu.url, cfg, f"b{k}{int(serial)}")
        gcp.clients()
        for region in ("us-central1", "us-east4"):
            gcp.quota(region, rung.quota_metric or "")  # read once per dispatch, not timed
        start = time.perf_counter()
        if serial:
            for zone in rung.zones:
                if gcp.insert_zone(rung, zone).outcome == "launched":
                    break
        else:
            assert gcp.try_rung(rung).outcome == "launched"
        return time.perf_counter() - start


def cold(argv: list[str], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per insert (L)")
    parser.add_argument("--dry", default="1,3,6", help="numbers of dry zones to try")
    args = parser.parse_args()
    cfg = config.load()
    cfg = replace(cfg, gcp=replace(cfg.gcp, request_timeout_seconds=30))
    latency = args.latency
    print(f"L = {latency:.3f} s per insert")
    print(f"{'dry zones k':>11} {'concurrent':>11} {'/L':>6} {'serial':>8} {'/L':>6} "
          f"{'serial/concurrent':>18}")
    worst = 0.0
    for k in (int(x) for x in args.dry.split(",")):
        conc = statistics.median(timed_rung(k, latency, cfg, False) for _ in range(3))
        serial = timed_rung(k, latency, cfg, True)
        worst = max(worst, conc / latency)
        print(f"{k:>11} {conc:>10.3f}s {conc / latency:>6.2f} {serial:>7.3f}s "
              f"{serial / latency:>6.2f} {serial / conc:>17.1f}x")
    print(f"worst concurrent time to capacity = {worst:.2f} L (target <= 1.5 L)")

    with tempfile.TemporaryDirectory() as tmp:
        capacity = Path(tmp) / "cap.yaml"
        capacity.write_text("gce:\n  zones:\n    us-central1-a:\n      a2-ultragpu-1g: "
                            "{SPOT: 1000}\n  quotas:\n    us-central1: "
                            "{PREEMPTIBLE_NVIDIA_A100_80GB_GPUS: 100000}\n")
        emu = subprocess.Popen([sys.executable, "-m", "router", "emulator", "--capacity",
                                str(capacity)], stdout=subprocess.PIPE, text=True)
        url = emu.stdout.readline().split()[-1]
        env_tmp = {"XDG_STATE_HOME": tmp}
        os.environ.update(env_tmp)
        try:
            sdk = cold([sys.executable, "-c", "import google.cloud.compute_v1"])
            dispatch = cold([sys.executable, "-m", "router", "dispatch", "--intent",
                             "capture-7b", "--gpu-count", "1", "--hours", "1",
                             "--gcp-project", "bench", "--gcp-endpoint", url,
                             "--skip-backend", "slurm", "--skip-backend", "runpod", "--",
                             "true"])
        finally:
            emu.kill()
    print(f"cold: import google.cloud.compute_v1 {sdk:.2f} s, dispatch to a launch "
          f"{dispatch:.2f} s, overhead beyond the SDK {dispatch - sdk:.2f} s (target <= 0.5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
