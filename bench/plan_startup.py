"""Cold, whole-process start-up of `backend-router plan`, against peers.

Prints the median wall time of each command and its ratio to the `import yaml`
floor (yaml is the one library `plan` must load). Target: plan <= 2x the floor.

    python bench/plan_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import yaml'": [sys.executable, "-c", "import yaml"],
    "backend-router plan (json)": [sys.executable, "-m", "router", "plan", "--intent",
                                   "capture-7b", "--gpu-count", "8", "--hours", "1.5",
                                   "--format", "json"],
    "backend-router plan (text)": [sys.executable, "-m", "router", "plan", "--intent",
                                   "capture-7b", "--gpu-count", "8", "--hours", "1.5"],
}


def median_seconds(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for argv in COMMANDS.values():  # warm the page cache, not the interpreter
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    results = {name: median_seconds(argv, args.runs) for name, argv in COMMANDS.items()}
    floor = results["python -c 'import yaml'"]
    print(f"{'command':32} {'median ms':>10} {'x python':>9} {'x yaml':>7}")
    for name, seconds in results.items():
        print(f"{name:32} {seconds * 1000:10.1f} {seconds / results['python -c pass']:9.2f} "
              f"{seconds / floor:7.2f}")
    ratio = results["backend-router plan (json)"] / floor
    verdict = "meets" if ratio <= 2.0 else "MISSES"
    print(f"plan / yaml floor = {ratio:.2f} ({verdict} the <= 2.00 target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
