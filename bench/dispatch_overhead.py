"""What trust costs: the credentials preflight (every backend on the ladder
checked before the first attempt) and the read-back (a launched machine is
read back as running before it is selected), measured against the emulator.

Runs whole dispatches in-process (the SDKs imported once, as a long-lived
dispatch host would) with the checks on, then with both replaced by no-ops,
and prints the medians and their difference. Target: the difference is at
most 0.2 s.

    python bench/dispatch_overhead.py [--runs 15]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

from router.cli import main as router_main
from router.dispatch import Dispatcher
from router.emulator.server import Emulator
from router.emulator.state import Faults, World

LADDER = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ladder-small.yaml"
QUOTAS = {r: {"PREEMPTIBLE_NVIDIA_A100_80GB_GPUS": 10**6, "PREEMPTIBLE_NVIDIA_H100_GPUS": 10**6,
              "NVIDIA_A100_80GB_GPUS": 10**6} for r in ("us-central1", "us-east4")}


def dispatch_once(url: str, index: int) -> float:
    argv = ["dispatch", "--ladder", str(LADDER), "--intent", "capture-7b", "--gpu-count", "4",
            "--hours", "1", "--gcp-project", "bench", "--gcp-endpoint", url,
            "--runpod-endpoint", url, "--skip-backend", "slurm", "--dispatch-id",
            f"bench-{index}", "--", "true"]
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        code = router_main(argv)
    elapsed = time.perf_counter() - start
    assert code == 0, code
    return elapsed


def measure(url: str, runs: int, offset: int) -> float:
    return statistics.median(dispatch_once(url, offset + i) for i in range(runs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    capacity = {"gce": {"zones": {"us-east4-c": {"a2-ultragpu-4g": {"SPOT": 10**6}}},
                        "quotas": QUOTAS}, "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 8}}}
    with tempfile.TemporaryDirectory() as state, Emulator(World(capacity, Faults())) as emu:
        os.environ.update(XDG_STATE_HOME=state, RUNPOD_API_KEY="rpa_BENCH000000000")
        dispatch_once(emu.url, 10**5)  # warm: SDK imports, connection pools
        checked = measure(emu.url, args.runs, 0)
        preflight, read_back = Dispatcher.preflight, Dispatcher._read_back
        Dispatcher.preflight = lambda self: []  # type: ignore[method-assign]
        Dispatcher._read_back = lambda self, machine: ("running", {})  # type: ignore[method-assign]
        try:
            bare = measure(emu.url, args.runs, 1000)
        finally:
            Dispatcher.preflight, Dispatcher._read_back = preflight, read_back
    added = checked - bare
    print(f"dispatch with preflight + read-back: {checked * 1000:7.1f} ms (median of {args.runs})")
    print(f"dispatch without them:               {bare * 1000:7.1f} ms")
    print(f"added by trust: {added * 1000:.1f} ms = {checked / bare:.2f}x "
          f"(target <= 200 ms)")
    return 0 if added <= 0.2 else 1


if __name__ == "__main__":
    sys.exit(main())
