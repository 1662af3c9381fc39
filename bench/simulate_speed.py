"""How fast `backend-router simulate` is, against one `backend-router plan`
call for the same request (the #825 workload: plans/825 phase `generate`).

Both are timed the same way, as whole processes a user runs: the median wall
time of `plan --format json`, and the wall time of one `simulate` of 10,000
runs spread over the three policies `ladder`, `narrow` and `serial-zones`
(3,334 runs each; a run is one dispatch plus one per preemption restart).
Prints the ratio. Target: simulate <= 60x plan.

    python bench/simulate_speed.py [--runs 10000] [--plan-runs 7]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "examples" / "workspace" / "plans" / "825-sampled-separator-control.md"
MODEL = ROOT / "examples" / "capacity" / "scarce-wide.yaml"
POLICIES = ("ladder", "narrow", "serial-zones")
TARGET = 60.0


def timed(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - start, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="runs over all policies")
    parser.add_argument("--plan-runs", type=int, default=7)
    args = parser.parse_args()
    request = ["--plan", str(PLAN), "--phase", "generate"]
    plan = [sys.executable, "-m", "router", "plan", *request, "--format", "json"]
    per_policy = math.ceil(args.runs / len(POLICIES))
    simulate = [sys.executable, "-m", "router", "simulate", *request, "--capacity", str(MODEL),
                "--runs", str(per_policy), "--seed", "1", "--format", "json"]
    for name in POLICIES:
        simulate += ["--policy", name]
    timed(plan)  # warm the page cache, not the interpreter
    plan_s = statistics.median(timed(plan)[0] for _ in range(args.plan_runs))
    simulate_s, out = timed(simulate)
    doc = json.loads(out)
    dispatches = sum(p["runs"] * (1 + p["restarts_per_run"]) for p in doc["policies"])
    ratio = simulate_s / plan_s
    print(f"backend-router plan (median of {args.plan_runs}): {plan_s * 1000:8.1f} ms")
    print(f"backend-router simulate, {per_policy * len(POLICIES)} runs "
          f"({dispatches:.0f} dispatches) over {', '.join(POLICIES)}: {simulate_s:8.2f} s "
          f"({simulate_s / dispatches * 1e6:.0f} us per dispatch)")
    verdict = "meets" if ratio <= TARGET else "MISSES"
    print(f"simulate / plan = {ratio:.1f} ({verdict} the <= {TARGET:g} target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
