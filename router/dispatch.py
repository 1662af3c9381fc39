"""Walk the planned ladder with real backends; launch on the first rung with
capacity. Outcomes: launched (read back, then selected: exit 0),
capacity-miss / quota-miss / unavailable / cap-reached (next rung), error
(stop, exit 2). Every rung missed: exit 1. A workload that fails after launch
is not a miss: dispatch has already returned, and it never cascades.

The lifecycle of one dispatch, and what each step guarantees:

1. preflight: every backend on the ladder is checked before the first
   attempt (`--skip-backend` leaves one out on purpose);
2. reconcile: a rerun of a dispatch id adopts the machine an earlier run
   selected or made, if it is alive and ours, and releases the rest;
3. walk: rungs in order; a launched machine is read back, and only a running
   or starting one is selected;
4. settle: an insert that never answered can still land until its window
   closes; dispatch keeps looking until then, and a landing is released (or,
   when every rung missed, selected);
5. cleanup, whatever happened (exhausted, error, SIGINT, SIGTERM): every
   machine this dispatch made that is not the selection is released.

Every backend is reached through one interface (router/backends/base.py)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from router.backends import FACTORIES, NAMES, Backends, Endpoints, Factory
from router.backends.base import ALIVE, Check, Context, DispatchError, Machine, Workload
from router.config import LadderConfig
from router.console import Console
from router.events import EventLog
from router.planner import Request, Rung, plan

DISPATCH_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,19}")
READBACK_TRIES = 3  # a read-back that cannot answer ("unknown") is asked again


class Cancelled(Exception):
    """SIGINT or SIGTERM arrived: stop issuing and clean up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass
class Options:
    where: Endpoints
    rerun: bool  # the dispatch id was given: look for what an earlier run made


@dataclass(frozen=True)
class Clock:
    """Where dispatch reads the time and waits. The real one is the wall
    clock; `backend-router simulate` passes a virtual one, so the same walk
    runs in microseconds. `threads`: whether independent checks may run on a
    thread pool (a virtual clock has nothing to overlap)."""

    now: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    threads: bool = True


WALL_CLOCK = Clock()


class Dispatcher:
    def __init__(self, request: Request, config: LadderConfig, workload: Workload,
                 events: EventLog, options: Options, console: Console | None = None,
                 selected_extra: dict[str, Any] | None = None, ledger: Any = None, *,
                 clock: Clock = WALL_CLOCK, factories: Mapping[str, Factory] = FACTORIES,
                 rungs: tuple[Rung, ...] | None = None) -> None:
        """`clock`, `factories` (backend name -> builder) and `rungs` (the
        planned ladder, default `plan(request, config)`) are what simulate
        swaps in; a real dispatch leaves them at their defaults."""
        self.request = request
        self.config = config
        self.events = events
        self.options = options
        self.clock = clock
        self.console = console or Console(False, stream=None)
        self.selected_extra = selected_extra or {}
        self.ctx = Context(config, events, workload, ledger)
        self.backends = Backends(self.ctx, options.where, factories)
        planned = plan(request, config) if rungs is None else rungs
        self.rungs = [r for r in planned if r.backend not in options.where.skip]
        self.selection: Machine | None = None
        self.selected_event: dict[str, Any] | None = None
        self.created: dict[str, Machine] = {}  # made by this dispatch, not released
        self.signum: int | None = None
        self.cleanup_errors: list[str] = []
        self.started = False  # past the preflight: machines may exist
        events.listeners.append(self.console.on_event)

    def on_ladder(self) -> list[str]:
        present = {r.backend for r in self.rungs}
        return [name for name in NAMES if name in present]

    # ---- signals -------------------------------------------------------------------------

    def cancel(self, signum: int) -> None:
        """From the signal handler: ask the walk to stop at its next safe point."""
        self.signum = signum
        self.ctx.stop.set()

    def _check_stop(self) -> None:
        if self.ctx.failure is not None:
            raise DispatchError(self.ctx.failure)
        if self.signum is not None:
            raise Cancelled(self.signum)

    def may_be_live(self) -> list[Machine]:
        """What a hard stop would leave behind: the ledger's machines of this
        dispatch that were sent, made or selected and not released (requests
        still in flight included), else what this process knows of."""
        known = {m.key: m for m in self.created.values()}
        if self.selection is not None:
            known[self.selection.key] = self.selection
        for name in list(self.backends.built):
            known.update((m.key, m) for m, _ in self.backends[name].pending())
        if self.ctx.ledger is not None:
            from router.ledger import LedgerError

            try:
                records = self.ctx.ledger.machines(self.ctx.workload.dispatch_id)
            except LedgerError:
                records = []
            for _, record in records:
                if record.state in ("sent", "created", "selected"):
                    known.setdefault(record.key, Machine(record.backend, record.key,
                                                         record.handle))
        return list(known.values())

    # ---- 1. preflight --------------------------------------------------------------------

    def preflight(self) -> list[Check]:
        names = self.on_ladder()
        if not names:
            raise DispatchError("every backend on the ladder is skipped: nothing to try")
        regions = list(dict.fromkeys(z.rsplit("-", 1)[0] for r in self.rungs for z in r.zones))
        checks = run_checks(self.backends, names, regions, self.clock.threads)
        for check in checks:
            self.events.emit("epm:backend-check", backend=check.backend, usable=check.usable,
                             detail=check.detail)
        bad = [c for c in checks if not c.usable]
        if bad:
            first = bad[0]
            raise DispatchError(f"{first.backend} cannot be used: {first.detail} "
                                f"(fix it, or pass --skip-backend {first.backend})")
        return checks

    # ---- 2. reconcile --------------------------------------------------------------------

    def reconcile(self) -> bool:
        """A rerun adopts what an earlier run of this id left alive: its
        selection if that lives, else the widest live machine; the rest are
        released. Inserts it sent that may still land are looked after too."""
        dispatch_id = self.ctx.workload.dispatch_id
        records = self.ctx.ledger.machines(dispatch_id) if self.ctx.ledger else []
        chosen_before = {r.key for _, r in records if r.state == "selected"}
        self.backends.watch_unanswered(records, self.on_ladder())
        alive: list[tuple[Machine, dict[str, Any]]] = []
        for name in self.on_ladder():
            backend = self.backends[name]
            for machine in backend.find(dispatch_id):
                state, details = backend.state(machine)
                if state in ("running", "starting"):
                    alive.append((machine, details))
                elif state not in ("gone", "completed", "failed", "unknown"):
                    backend.release(machine)  # stopped: holds quota, does no work
        if not alive:
            return False
        order = {name: i for i, name in enumerate(NAMES)}
        alive.sort(key=lambda md: (md[0].key not in chosen_before, order[md[0].backend],
                                   -(md[0].width or 0), md[0].key))
        keep = alive[0][0]
        for machine, _ in alive[1:]:
            self.backends[machine.backend].release(machine)
        self._select(keep, rerun=True)
        return True

    # ---- 3. walk -------------------------------------------------------------------------

    def _walk(self) -> int:
        for index, rung in enumerate(self.rungs, 1):
            self._check_stop()
            if self._landings(adopt=True):
                return 0
            self.console.rung(index, len(self.rungs), rung)
            backend = self.backends[rung.backend]
            result = backend.try_rung(rung)
            if result.outcome != "launched" or result.machine is None:
                continue
            machine = result.machine
            self.created[machine.key] = machine
            self._check_stop()
            state, details = self._read_back(machine)
            if state in ALIVE:
                self._select(machine)
                return 0
            # Launched, then gone before we could select it (reclaimed, or a
            # replayed answer): not a machine. Release what is left; next rung.
            self.events.emit("epm:backend-attempt", backend=rung.backend, width=rung.width,
                             outcome="capacity-miss", readback=state,
                             detail=f"launched, then read back as {state}: not selected",
                             **_target(machine), **details)
            self._release(machine)
        self._check_stop()
        if self._settle(adopt=True):
            return 0
        self.events.emit("epm:backend-exhausted", requested_width=self.request.width,
                         rungs=len(self.rungs))
        return 1

    def _read_back(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        backend = self.backends[machine.backend]
        state, details = "unknown", {}
        for attempt in range(READBACK_TRIES):
            state, details = backend.state(machine)
            if state != "unknown":
                break
            self.clock.sleep(0.2 * (attempt + 1))
        return state, details

    def _select(self, machine: Machine, **extra: Any) -> None:
        # A job or pod found on a rerun may not say its width: the narrow
        # rungs all ask for the floor width, the last rung's.
        width = machine.width or (self.rungs[-1].width if self.rungs else self.request.width)
        fields: dict[str, Any] = {"backend": machine.backend, **_target(machine),
                                  "requested_width": self.request.width, "width": width,
                                  "degraded": (width or 0) < self.request.width,
                                  **machine.handle, **self.selected_extra, **extra}
        self.selection = machine
        self.created.pop(machine.key, None)
        self.ctx.record(machine, "selected")
        self.selected_event = self.events.emit("epm:backend-selected", **fields)

    def _release(self, machine: Machine) -> None:
        self.backends[machine.backend].release(machine)
        self.created.pop(machine.key, None)

    # ---- 4. settle -----------------------------------------------------------------------

    def _pending(self) -> list[tuple[Machine, float]]:
        out: list[tuple[Machine, float]] = []
        for name in list(self.backends.built):
            out.extend(self.backends[name].pending())
        return out

    def _landings(self, adopt: bool) -> bool:
        """Look once at every unanswered request. A landing becomes the
        selection when adopt is set and nothing is selected (it was an
        earlier rung than any still to come); otherwise it is released.
        True when a landing was selected."""
        chose = False
        for machine, _ in self._pending():
            landed = self.backends[machine.backend].settle(machine)
            if landed is None or (self.selection is not None
                                  and landed.key == self.selection.key):
                continue  # not landed, or it is the machine a rerun just adopted
            self.created[landed.key] = landed
            if adopt and self.selection is None and self.signum is None \
                    and self._read_back(landed)[0] in ALIVE:
                self._select(landed, late=True)
                chose = True
            else:
                self._release(landed)
        return chose

    def _settle(self, adopt: bool) -> bool:
        """Keep looking until no unanswered request can still land."""
        chose = False
        announced = False
        while self._pending():
            if not announced:
                pending = self._pending()
                until = max(lands_by for _, lands_by in pending) - self.clock.now()
                self.console.announce(f"waiting up to {max(until, 0):.0f} s for "
                                      f"{len(pending)} unanswered request(s) to land or expire")
                announced = True
            chose = self._landings(adopt and not chose) or chose
            if self._pending():
                self.clock.sleep(0.25)
        return chose

    # ---- the whole dispatch --------------------------------------------------------------

    def run(self) -> int:
        """Exit code: 0 selected, 1 exhausted. DispatchError and Cancelled
        propagate after cleanup."""
        finished = False
        try:
            self.preflight()
            self.started = True
            self._check_stop()
            code = 0 if self.options.rerun and self.reconcile() else self._walk()
            self._settle(adopt=False)
            finished = True
            return code
        finally:
            self.cleanup(thorough=not finished)

    def cleanup(self, thorough: bool) -> None:
        """Release every machine this dispatch made that is not its
        selection, then wait out requests that may still land. After an
        error or a signal, also list every backend by this dispatch's label,
        so nothing made in a half-finished step is missed. Never raises: a
        release that cannot be confirmed is kept in `cleanup_errors`."""
        for machine in list(self.created.values()):
            self._attempt_release(machine)
        try:
            self._settle(adopt=False)
        except DispatchError as exc:
            self.cleanup_errors.append(str(exc))
        if not (thorough and self.started):
            return
        keep = self.selection.key if self.selection else None
        for name in list(self.backends.built):
            try:
                found = self.backends[name].find(self.ctx.workload.dispatch_id)
            except DispatchError as exc:
                self.cleanup_errors.append(str(exc))
                continue
            for machine in found:
                if machine.key != keep:
                    self._attempt_release(machine)

    def _attempt_release(self, machine: Machine) -> None:
        try:
            self._release(machine)
        except DispatchError as exc:
            self.cleanup_errors.append(str(exc))


def run_checks(backends: Backends, names: list[str], regions: list[str],
               threads: bool = True) -> list[Check]:
    """Check each backend concurrently (in turn without `threads`); a backend
    that cannot even be built (no GCP project) is a failed check, not a crash."""

    def one(name: str) -> Check:
        try:
            return backends[name].check(regions)
        except DispatchError as exc:
            return Check(name, False, str(exc).removeprefix(f"{name.upper()}: "))

    if not threads:
        return [one(name) for name in names]
    with ThreadPoolExecutor(max_workers=max(1, len(names))) as pool:
        return list(pool.map(one, names))


def _target(machine: Machine) -> dict[str, Any]:
    return {k: v for k, v in machine.details.items() if v is not None}
