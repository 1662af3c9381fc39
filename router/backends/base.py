"""What every backend shares: the workload to launch, the result of a rung,
the machines a dispatch makes, and the one interface dispatch, follow, sweep
and check use to talk to any backend."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from router.planner import Rung

if TYPE_CHECKING:
    from router.config import LadderConfig
    from router.events import EventLog
    from router.ledger import Ledger


class DispatchError(Exception):
    """A permanent error (credentials, permission, invalid request): stop the walk."""


@dataclass(frozen=True)
class Workload:
    dispatch_id: str
    command: str  # may contain {width}
    env: dict[str, str] = field(default_factory=dict)
    sharded: bool = False  # the phase declares a shardable axis: NUM_SHARDS follows the width

    def command_at(self, width: int) -> str:
        """The launch command at the realized width."""
        return self.command.replace("{width}", str(width))

    def env_at(self, width: int, visible_devices: bool = False) -> dict[str, str]:
        """The workload's environment at the realized width. `visible_devices`
        sets CUDA_VISIBLE_DEVICES for backends that do not (SLURM does)."""
        env = {**self.env, "WIDTH": str(width), "WL_DISPATCH_ID": self.dispatch_id}
        if self.sharded:
            env["NUM_SHARDS"] = str(width)
        if visible_devices:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(width))
        return env

    def script_at(self, width: int, visible_devices: bool = False) -> str:
        """A bash script that exports the environment and runs the command."""
        lines = ["#!/bin/bash", "set -o pipefail"]
        for key, value in sorted(self.env_at(width, visible_devices).items()):
            lines.append(f"export {key}={_quote(value)}")
        lines.append(self.command_at(width))
        return "\n".join(lines) + "\n"


def _quote(value: str) -> str:
    if re.fullmatch(r"[\w@%+=:,./-]+", value):
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"


@dataclass
class RungResult:
    outcome: str
    zone: str | None = None
    handle: dict[str, Any] = field(default_factory=dict)  # instance / job id / pod id
    detail: str = ""
    all_gcp_blocked: bool = False  # a GPUS_ALL_REGIONS quota: no GCP rung can launch
    machine: Machine | None = None  # set when launched


# What a read-back can say about a machine. Selection needs one of ALIVE; a
# workload that already ran to completion counts (it ran: nothing is phantom).
ALIVE = ("running", "starting", "completed")


@dataclass(frozen=True)
class Machine:
    """One instance, job or pod a dispatch made. `key` is unique per backend
    (zone/name, job id, pod id); `handle` is what events name it by."""

    backend: str
    key: str
    handle: dict[str, Any]
    width: int | None = None
    details: dict[str, Any] = field(default_factory=dict)  # machine type, lane, gpu type…
    created: float | None = None  # epoch seconds, where the backend says
    dispatch_id: str | None = None  # whose machine (sweep finds other dispatches' too)


@dataclass
class Context:
    """What every backend of one dispatch (or sweep, or check) shares."""

    config: LadderConfig
    events: EventLog
    workload: Workload
    ledger: Ledger | None = None  # None: nothing is recorded (check, plan)
    stop: threading.Event = field(default_factory=threading.Event)  # set on SIGINT/SIGTERM

    failure: str | None = None  # the first ledger write that failed

    def record(self, machine: Machine, state: str, lands_by: float | None = None) -> None:
        """Write to the ledger. A failure here never aborts a backend mid-flight
        (a half-finished rung would lose track of machines it made): it is
        kept, and dispatch stops at its next safe point (fail closed)."""
        if self.ledger is None:
            return
        from router.ledger import LedgerError

        try:
            self.ledger.record(machine.dispatch_id or self.workload.dispatch_id,
                               machine.backend, machine.key, machine.handle, state, lands_by)
        except LedgerError as exc:
            if self.failure is None:
                self.failure = str(exc)
            self.stop.set()


class AnswersAtOnce:
    """For a backend whose requests never land after they were answered:
    sbatch answers or times out (a timed-out submit is looked up by name), and
    so does a RunPod create. Nothing to watch, nothing to settle."""

    def pending(self) -> list[tuple[Machine, float]]:
        return []

    def watch(self, machine: Machine, lands_by: float) -> None:
        return None

    def settle(self, machine: Machine) -> Machine | None:
        return None


@dataclass
class Check:
    backend: str
    usable: bool
    detail: str
    checks: dict[str, str] = field(default_factory=dict)  # what was looked at -> ok / why not


class Backend(Protocol):
    """What dispatch needs from a backend. Implementations: GcpBackend,
    SlurmBackend, RunpodBackend."""

    name: str

    def check(self, regions: list[str] | None = None) -> Check:
        """Can this backend be used at all (credentials, tools, controller)?"""

    def try_rung(self, rung: Rung) -> RungResult:
        """Try one rung; a launched result carries `machine`."""

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        """The machines this dispatch (or, with None, any dispatch) has."""

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        """Read back: (running | starting | completed | failed | preempted |
        stopped | gone, details)."""

    def release(self, machine: Machine) -> None:
        """Delete, cancel or terminate, confirmed; emits epm:backend-released."""

    def pending(self) -> list[tuple[Machine, float]]:
        """Requests sent without an answer: (machine, epoch by which it lands)."""

    def watch(self, machine: Machine, lands_by: float) -> None:
        """Treat a request an earlier run sent (from the ledger) as unanswered."""

    def settle(self, machine: Machine) -> Machine | None:
        """Look again at an unanswered request: the machine if it landed."""
