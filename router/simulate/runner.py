"""The Monte Carlo: each run is the real `Dispatcher` walking a policy's
rungs against simulated backends on a virtual clock, then the workload
running at the width it landed on.

A run's timeline:
1. dispatch (the walk, its latencies, a SLURM queue wait): time to capacity;
2. the workload runs for `gpu_hours / width` hours at the realized width;
3. a preemption (the rung's per-hour rate in the model) ends it early: the
   GPU-hours held so far are spent and lost (no checkpoints are modelled),
   the reclaimed capacity goes out of stock, and the run re-dispatches from
   the top of the ladder, the same walk again (it claims the per-day cap
   again too);
4. a dispatch that misses every rung ends the run as exhausted.
Makespan = from the first dispatch to the end of the run that completed."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from router.backends import Endpoints
from router.backends.base import Machine, Workload
from router.dispatch import Dispatcher, Options
from router.simulate.backends import QuietConsole, QuietEvents, SimLedger, factories
from router.simulate.model import CapacityModel
from router.simulate.policies import Policy
from router.simulate.world import HOUR, World

MAX_RUNS = 1_000_000
MAX_DISPATCHES_PER_RUN = 1_000  # preemption restarts beyond this: the run gives up
OPTIONS = Options(where=Endpoints(), rerun=False)
CONSOLE = QuietConsole()


@dataclass(slots=True)
class RunResult:
    time_to_capacity_hours: float | None  # None: exhausted before any landing
    makespan_hours: float | None  # None: exhausted (or gave up after restarts)
    gpu_hours: float
    runpod_gpu_hours: float
    landed: str | None  # "gcp:8": where the completed run ran
    restarts: int
    events: list[dict[str, Any]] = field(default_factory=list)  # only when kept


@dataclass
class PolicyRuns:
    policy: Policy
    results: list[RunResult]
    unknown: set[str]  # rungs tried that the model has no information about


def preemption_rate(model: CapacityModel, machine: Machine) -> tuple[float, Any]:
    """(per-hour rate, the GCP stock key it reclaims or None)."""
    details = machine.details
    if machine.backend == "gcp":
        key = (details.get("zone") or "", details.get("machine_type") or "",
               details.get("provisioning") or "")
        stock = model.stock(*key)
        return (stock.preemptions_per_hour, (key, stock)) if stock else (0.0, None)
    if machine.backend == "slurm":
        lane = model.slurm.get(details.get("lane") or "")
        return (lane.preemptions_per_hour if lane else 0.0), None
    pods = model.runpod.get(details.get("gpu_type") or "")
    return (pods.preemptions_per_hour if pods else 0.0), None


def one_run(policy: Policy, world: World, index: int, keep_events: bool = False) -> RunResult:
    clock = world.clock
    sim_clock = world.as_clock()
    builders = factories(world)
    ledger = SimLedger(world)
    first: float | None = None
    gpu_hours = runpod_gpu_hours = 0.0
    kept: list[dict[str, Any]] = []
    restarts = 0
    for restarts in range(MAX_DISPATCHES_PER_RUN):
        events = QuietEvents(f"sim{index}-{restarts}")
        dispatcher = Dispatcher(policy.request, policy.config,
                                Workload(events.dispatch_id, "simulated"), events, OPTIONS,
                                CONSOLE, ledger=ledger, clock=sim_clock, factories=builders,
                                rungs=policy.rungs)
        code = dispatcher.run()
        if keep_events:
            kept.extend(events.records)
        machine = dispatcher.selection
        if code != 0 or machine is None:
            break
        clock.sleep(world.queue_waits.pop(machine.key, 0.0))
        if first is None:
            first = clock.t
        width = machine.width or policy.request.width
        length = policy.gpu_hours / width * HOUR
        rate, reclaim = preemption_rate(world.model, machine)
        held = min(world.preempted_after(rate), length)
        clock.sleep(held)
        gpu_hours += width * held / HOUR
        if machine.backend == "runpod":
            runpod_gpu_hours += width * held / HOUR
        if held >= length:
            return RunResult(first / HOUR, clock.t / HOUR, gpu_hours, runpod_gpu_hours,
                             f"{machine.backend}:{width}", restarts, kept)
        if reclaim is not None:
            world.reclaimed(*reclaim)
    return RunResult(None if first is None else first / HOUR, None, gpu_hours,
                     runpod_gpu_hours, None, restarts, kept)


def simulate(policy: Policy, model: CapacityModel, runs: int, seed: int,
             keep_events: bool = False) -> PolicyRuns:
    """`runs` independent runs. One random stream per policy from `seed`:
    every policy sees the same seed, so a comparison is not noise between
    streams, and a seed gives the same numbers every time."""
    if not 1 <= runs <= MAX_RUNS:
        raise ValueError(f"runs must be within 1..{MAX_RUNS}, got {runs}")
    rng = random.Random(seed)
    unknown: set[str] = set()
    results = []
    for index in range(runs):
        world = World(model, rng)
        results.append(one_run(policy, world, index, keep_events))
        unknown |= world.unknown
    return PolicyRuns(policy, results, unknown)
