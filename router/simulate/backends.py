"""Simulated GCP, SLURM and RunPod backends: the real backend classes with
only their cloud calls replaced by answers from the capacity model on the
virtual clock.

What stays the real code: GcpBackend.try_rung (the per-day cap claim, the
GPUS_ALL_REGIONS block) and _try_zones (the zone walk: every zone of a rung
at once, one winner kept, extra launches deleted); SlurmBackend.try_rung
(the lane's outcome, the wait-limit miss) and RunpodBackend.try_rung.
What is replaced: the insert of one zone and the concurrent fan-out (all of a
rung's inserts are sent at once, so the rung costs its slowest answer),
`sbatch`, the pod create, read-backs, deletes, and finding machines.
No SDK is imported on this path."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from router.backends import Endpoints, Factory
from router.backends.base import Check, Context, Machine, RungResult
from router.backends.gcp import GcpBackend, ZoneOutcome, instance_name
from router.backends.runpod_backend import RunpodBackend, pod_name
from router.backends.slurm import SlurmBackend
from router.config import SlurmLane
from router.console import Console
from router.events import EventLog
from router.planner import Rung
from router.simulate.world import DAY, World

NO_INFORMATION = "no information in the capacity model: treated as no capacity"


class QuietEvents(EventLog):
    """Events kept in memory, unredacted and unserialized: a simulated walk
    emits thousands, and nothing secret is in them."""

    def __init__(self, dispatch_id: str) -> None:
        super().__init__(dispatch_id, None, stdout=False)
        self.records: list[dict[str, Any]] = []

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        record = {"event": event, **fields}
        self.records.append(record)
        for listener in self.listeners:
            listener(record)
        return record


class QuietConsole(Console):
    """No terminal: a simulated walk has nobody watching it."""

    def __init__(self) -> None:
        super().__init__(False, stream=None)

    def rung(self, index: int, total: int, rung: Rung) -> None:
        return None

    def on_event(self, record: dict[str, Any]) -> None:
        return None

    def announce(self, text: str) -> None:
        return None


class SimLedger:
    """The ledger calls dispatch makes, in memory: the per-day GCP claim
    (with the model's other dispatches already counted each day) and
    machine records (dropped: nothing outlives a simulated run)."""

    def __init__(self, world: World, day_offset: int = 0) -> None:
        self.world = world
        self.day_offset = day_offset
        self.claims: dict[int, set[str]] = {}

    def claim(self, dispatch_id: str, cap: int, day: str | None = None) -> tuple[bool, int]:
        today = self.day_offset + int(self.world.clock.t // DAY)
        ours = self.claims.setdefault(today, set())
        count = self.world.model.other_gcp_dispatches_per_day + len(ours)
        if dispatch_id in ours:
            return True, count
        if count >= cap:
            return False, count
        ours.add(dispatch_id)
        return True, count + 1

    def record(self, *args: Any, **kwargs: Any) -> None:
        return None

    def machines(self, dispatch_id: str | None = None) -> list[Any]:
        return []


class SimGcp(GcpBackend):
    def __init__(self, ctx: Context, world: World) -> None:
        super().__init__(ctx, "simulated", None)
        self.world = world

    def check(self, regions: list[str] | None = None) -> Check:
        return Check("gcp", True, "simulated")

    def quota(self, region: str, metric: str) -> tuple[float, float] | None:
        return None  # quotas are not modelled: as if unreadable, the insert finds out

    def insert_all(self, rung: Rung, zones: list[str]) -> Iterator[ZoneOutcome]:
        world = self.world
        answers: list[tuple[float, ZoneOutcome]] = []
        for zone in zones:
            key = (zone, rung.machine_type or "", rung.provisioning or "")
            stock = world.model.stock(*key)
            if stock is None:
                world.unknown.add(f"gcp {key[1]} {key[2]} {zone}")
                answers.append((0.0, ZoneOutcome(zone, "capacity-miss", "", NO_INFORMATION)))
                continue
            if world.in_stock(key, stock):  # only a machine needs its name
                answer = ZoneOutcome(zone, "launched", instance_name(self.dispatch_id, rung, zone))
            else:
                answer = ZoneOutcome(zone, "capacity-miss", "")
            answers.append((stock.insert_latency_seconds, answer))
        # Sent at once: the rung takes as long as its slowest answer, and the
        # answers arrive fastest first (ties in zone order).
        answers.sort(key=lambda answer: answer[0])
        world.clock.sleep(answers[-1][0] if answers else 0.0)
        for _, outcome in answers:
            yield outcome

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        return "starting", {}

    def release(self, machine: Machine) -> None:
        self.ctx.record(machine, "released")
        self.ctx.events.emit("epm:backend-released", backend="gcp", zone=machine.handle["zone"],
                             instance=machine.handle["instance"], confirmed=True)

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        return []


class SimSlurm(SlurmBackend):
    def __init__(self, ctx: Context, world: World) -> None:
        super().__init__(ctx, None)
        self.world = world

    def check(self, regions: list[str] | None = None) -> Check:
        return Check("slurm", True, "simulated")

    def _try(self, lane: SlurmLane, width: int) -> RungResult:
        world = self.world
        queue = world.model.slurm.get(lane.name)
        if queue is None:
            world.unknown.add(f"slurm {lane.name}")
            return RungResult("capacity-miss", detail=NO_INFORMATION)
        world.clock.sleep(queue.submit_latency_seconds)
        if queue.unavailable_share and world.rng.random() < queue.unavailable_share:
            return RungResult("unavailable", detail="controller unreachable (simulated)")
        mean = queue.mean_wait(width)
        wait = world.rng.expovariate(1.0 / mean) if mean > 0 else 0.0
        if wait > lane.max_wait_minutes:  # the same test as `sbatch --test-only`'s estimate
            return RungResult("capacity-miss",
                              detail=f"estimated start in {wait:.0f} min > "
                                     f"{lane.max_wait_minutes:g} min wait limit")
        result = self._launched(world.next_name(), lane, width)
        assert result.machine is not None
        world.queue_waits[result.machine.key] = wait * 60
        return result

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        return "starting", {}

    def release(self, machine: Machine) -> None:
        self.ctx.record(machine, "released")
        self.ctx.events.emit("epm:backend-released", backend="slurm",
                             job_id=machine.handle["job_id"], confirmed=True)

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        return []


class SimRunpod(RunpodBackend):
    def __init__(self, ctx: Context, world: World) -> None:
        super().__init__(ctx, "http://simulated")
        self.world = world

    def check(self, regions: list[str] | None = None) -> Check:
        return Check("runpod", True, "simulated")

    def _try(self, rung: Rung) -> RungResult:
        world = self.world
        pods = world.model.runpod.get(rung.gpu_type or "")
        if pods is None:
            world.unknown.add(f"runpod {rung.gpu_type}")
            return RungResult("capacity-miss", detail=NO_INFORMATION)
        world.clock.sleep(pods.create_latency_seconds)
        if world.rng.random() >= pods.available_share:
            return RungResult("capacity-miss", detail="no longer any instances available "
                                                      "(simulated)")
        pod = {"id": f"sim{world.next_name()}", "name": pod_name(self.dispatch_id)}
        return self._launched(self._machine(pod, rung.width, rung.gpu_type), rung)

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        return "starting", {}

    def release(self, machine: Machine) -> None:
        self.ctx.record(machine, "released")
        self.ctx.events.emit("epm:backend-released", backend="runpod",
                             pod_id=machine.handle["pod_id"], confirmed=True)

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        return []


def factories(world: World) -> Mapping[str, Factory]:
    """Backend builders for Dispatcher: the simulated three, all on `world`."""

    def gcp(ctx: Context, where: Endpoints) -> SimGcp:
        return SimGcp(ctx, world)

    def slurm(ctx: Context, where: Endpoints) -> SimSlurm:
        return SimSlurm(ctx, world)

    def runpod(ctx: Context, where: Endpoints) -> SimRunpod:
        return SimRunpod(ctx, world)

    return {"gcp": gcp, "slurm": slurm, "runpod": runpod}
