"""Walk the planned ladder with real backends; launch on the first rung with
capacity. Outcomes: launched (stop, exit 0), capacity-miss / quota-miss /
unavailable / cap-reached (next rung), error (stop, exit 2). Every rung missed:
exit 1. A workload that fails after launch is not a miss: dispatch has already
returned, and it never cascades to another backend."""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from typing import Any

from router.backends.base import DispatchError, RungResult, Workload
from router.config import LadderConfig
from router.events import EventLog
from router.planner import Request, Rung, plan

DISPATCH_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,19}")


@dataclass
class Options:
    gcp_project: str | None
    gcp_endpoint: str | None
    runpod_endpoint: str | None
    rerun: bool  # the dispatch id was given: look for what an earlier run made
    slurm_output_dir: str | None = None


class Progress:
    """Live progress on a terminal: the rung being tried, elapsed time, misses."""

    def __init__(self, total: int) -> None:
        self.enabled = sys.stderr.isatty()
        self.total = total
        self.start = time.monotonic()
        self.misses = 0

    def show(self, index: int, rung: Rung) -> None:
        if self.enabled:
            elapsed = time.monotonic() - self.start
            target = rung.target + (f" {rung.provisioning}" if rung.provisioning else "")
            sys.stderr.write(f"\r\x1b[K[{elapsed:6.1f}s] rung {index}/{self.total}: "
                             f"{rung.backend} {target} ×{rung.width} · misses so far: "
                             f"{self.misses}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


class Dispatcher:
    def __init__(self, request: Request, config: LadderConfig, workload: Workload,
                 events: EventLog, options: Options,
                 selected_extra: dict[str, Any] | None = None) -> None:
        self.selected_extra = selected_extra or {}
        self.request = request
        self.config = config
        self.workload = workload
        self.events = events
        self.options = options
        self.rungs = plan(request, config)
        # Every zone the ladder may touch: where an earlier run of this id left machines.
        self.gcp_zones = list(dict.fromkeys(z for r in self.rungs if r.backend == "gcp"
                                            for z in r.zones))
        self._gcp = self._slurm = self._runpod = None
        self.kept: dict[str, Any] | None = None  # the selected machine's handle

    # Backends are built on first use so their SDKs load only when reached.
    def gcp(self):
        if self._gcp is None:
            from router.backends.gcp import GcpBackend

            if not self.options.gcp_project:
                raise DispatchError("no GCP project: pass --gcp-project or set "
                                    "GOOGLE_CLOUD_PROJECT")
            self._gcp = GcpBackend(self.options.gcp_project, self.options.gcp_endpoint,
                                   self.config, self.events, self.workload)
        return self._gcp

    def slurm(self):
        if self._slurm is None:
            from router.backends.slurm import SlurmBackend

            self._slurm = SlurmBackend(self.config, self.events, self.workload,
                                       self.options.slurm_output_dir)
        return self._slurm

    def runpod(self):
        if self._runpod is None:
            from router.backends.runpod_backend import RunpodBackend

            self._runpod = RunpodBackend(self.config, self.events, self.workload,
                                         self.options.runpod_endpoint)
        return self._runpod

    def select(self, rung: Rung | None, result: RungResult, **extra: Any) -> None:
        width = rung.width if rung else extra.pop("width", self.request.width)
        fields: dict[str, Any] = {"backend": rung.backend if rung else extra.pop("backend")}
        if rung is not None and rung.backend == "gcp":
            fields.update(machine_type=rung.machine_type, provisioning=rung.provisioning,
                          zone=result.zone)
        elif rung is not None and rung.backend == "slurm":
            fields.update(lane=rung.lane)
        elif rung is not None:
            fields.update(gpu_type=rung.gpu_type)
        fields.update(requested_width=self.request.width, width=width,
                      degraded=width < self.request.width, **result.handle,
                      **self.selected_extra, **extra)
        self.kept = {**result.handle, "backend": fields["backend"], "zone": fields.get("zone"),
                     "provisioning": fields.get("provisioning")}
        self.events.emit("epm:backend-selected", **fields)

    def reconcile(self) -> bool:
        """After a crash, a rerun with the same dispatch id adopts what the first
        run launched (keeping exactly one machine) instead of launching again."""
        if self.gcp_zones and self.options.gcp_project:
            found = self.gcp().find_existing(self.gcp_zones)
            if found:
                found.sort(key=lambda zi: (-int(zi[1].labels.get("wl-width", "0")), zi[0]))
                keep_zone, keep = found[0]
                for zone, other in found[1:]:
                    self.gcp().delete_confirmed(zone, other.name)
                width = int(keep.labels.get("wl-width", self.request.width))
                model = keep.scheduling.provisioning_model
                self.select(None, RungResult("launched", zone=keep_zone,
                                             handle={"instance": keep.name}),
                            backend="gcp", width=width,
                            machine_type=keep.machine_type.rsplit("/", 1)[-1],
                            provisioning=getattr(model, "name", model) or None,
                            zone=keep_zone, rerun=True)
                return True
        if any(r.backend == "slurm" for r in self.rungs):
            job = self.slurm().existing_job()
            if job:
                self.select(None, RungResult("launched", handle={"job_id": job}),
                            backend="slurm", width=self.rungs[-1].width, rerun=True)
                return True
        if any(r.backend == "runpod" for r in self.rungs):
            pod = self.runpod().existing_pod()
            if pod:
                self.select(None, RungResult("launched", handle={"pod_id": pod}),
                            backend="runpod", width=self.rungs[-1].width, rerun=True)
                return True
        return False

    def walk(self) -> int:
        code = self._walk()
        if self.options.rerun:
            self.sweep()
        return code

    def sweep(self) -> None:
        """After a rerun, an insert the crashed run sent may still land. Wait out
        one request timeout, then delete every machine of this dispatch id but
        the selected one, so at most one survives."""
        keep = self.kept or {}
        if not (self.gcp_zones and self.options.gcp_project):
            return
        time.sleep(self.config.gcp.request_timeout_seconds)
        for zone, inst in self.gcp().find_existing(self.gcp_zones):
            if inst.name != keep.get("instance"):
                self.gcp().delete_confirmed(zone, inst.name)

    def _walk(self) -> int:
        progress = Progress(len(self.rungs))
        try:
            if self.options.rerun and self.reconcile():
                return 0
            gcp_allowed: bool | None = None
            gcp_blocked = False
            for index, rung in enumerate(self.rungs, 1):
                progress.show(index, rung)
                if rung.backend == "gcp":
                    if gcp_blocked:
                        self._skip(rung, "quota-miss", "GPUS_ALL_REGIONS quota exhausted")
                        continue
                    if gcp_allowed is None:
                        gcp_allowed = self._claim_gcp_attempt()
                    if not gcp_allowed:
                        self._skip(rung, "cap-reached",
                                   f"{self.config.gcp_attempt_cap_per_day} GCP dispatches "
                                   "today")
                        continue
                    result = self.gcp().try_rung(rung)
                    gcp_blocked = result.all_gcp_blocked
                elif rung.backend == "slurm":
                    result = self.slurm().try_rung(rung)
                else:
                    result = self.runpod().try_rung(rung)
                if result.outcome == "launched":
                    self.select(rung, result)
                    return 0
                progress.misses += 1
            self.events.emit("epm:backend-exhausted", requested_width=self.request.width,
                             rungs=len(self.rungs))
            return 1
        finally:
            progress.done()

    def _skip(self, rung: Rung, outcome: str, detail: str) -> None:
        self.events.emit("epm:backend-attempt", backend="gcp", machine_type=rung.machine_type,
                         provisioning=rung.provisioning, zone=None, width=rung.width,
                         outcome=outcome, detail=detail)

    def _claim_gcp_attempt(self) -> bool:
        from router.ledger import Ledger

        ledger = Ledger(self.config.ledger_path)
        try:
            allowed, _ = ledger.claim(self.workload.dispatch_id,
                                      self.config.gcp_attempt_cap_per_day)
        finally:
            ledger.close()
        return allowed
