"""GCP through google-cloud-compute (REST transport).

Time to capacity is the point: a rung's zones are tried concurrently, so a
rung costs about one API round trip however many zones are dry. Safety is the
other point: at most one instance survives a dispatch. Every instance created
beyond the winner is deleted, and the deletion is confirmed by a 404.

Idempotency: instance names derive from the dispatch id and the rung, so a
zone never holds two machines of one dispatch and a rung; retries of one
insert share a requestId, but every attempt (every run of the process) gets
a fresh one, because Compute Engine replays a known requestId's old DONE
operation even after that instance was deleted, which would hand back a
machine that no longer exists. Every insert is written to the ledger before
it is sent; one that never answered can still land until
`operation_timeout_seconds` after it was sent, and dispatch sweeps for it.

The polling trap: `insert(...).result()` polls the real Google endpoint
whatever `client_options` says, and returns None for an operation that
finished with `error.errors` but no HTTP status. So operations are polled with
a ZoneOperationsClient built on the same endpoint and credentials, and their
errors are read directly.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from router import redact
from router.backends.base import Check, Context, DispatchError, Machine, RungResult
from router.config import LadderConfig
from router.planner import Rung

CAPACITY_CODES = ("ZONE_RESOURCE_POOL_EXHAUSTED", "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS",
                  "insufficientCapacity", "UNSUPPORTED_OPERATION", "STOCKOUT",
                  "does not have enough resources")
QUOTA_CODES = ("QUOTA_EXCEEDED", "quotaExceeded")
RATE_CODES = ("RESOURCE_OPERATION_RATE_EXCEEDED", "rateLimitExceeded", "userRateLimitExceeded")
MAX_RETRIES = 5
# The longest the retries of one request can sleep in all (0.1 s doubling, at most 2 s).
BACKOFF_TOTAL = sum(min(0.1 * 2 ** attempt, 2.0) for attempt in range(MAX_RETRIES + 1))
NAMESPACE = uuid.UUID("6f1c3c5e-7d2a-4f0e-9a55-3b1c2d4e5f60")
DISPATCH_LABEL = "wl-dispatch"


ALIVE_STATUS = {"PROVISIONING": "starting", "STAGING": "starting", "RUNNING": "running"}
PREEMPTIBLE = ("SPOT", "FLEX_START")


@dataclass
class ZoneOutcome:
    zone: str
    outcome: str  # launched | capacity-miss | quota-miss | error
    name: str
    detail: str = ""
    all_regions: bool = False


def region_of(zone: str) -> str:
    return zone.rsplit("-", 1)[0]


def instance_name(dispatch_id: str, rung: Rung, zone: str) -> str:
    family = (rung.machine_type or "x").split("-", 1)[0]
    model = {"SPOT": "spot", "FLEX_START": "flex", "STANDARD": "std"}[rung.provisioning or ""]
    digest = hashlib.sha1(zone.encode()).hexdigest()[:6]
    return f"wl-{dispatch_id}-{family}-{rung.width}x-{model}-{digest}"


def request_id(name: str, zone: str, action: str, attempt: str) -> str:
    """Deterministic within one attempt (its retries dedupe), fresh across attempts."""
    return str(uuid.uuid5(NAMESPACE, f"{name}/{zone}/{action}/{attempt}"))


def classify(text: str, status: int | None) -> str:
    """capacity | quota | quota-all | rate | transient | error."""
    if any(code in text for code in CAPACITY_CODES):
        return "capacity"
    if any(code in text for code in QUOTA_CODES):
        return "quota-all" if "GPUS_ALL_REGIONS" in text else "quota"
    if status == 429 or any(code in text for code in RATE_CODES):
        return "rate"
    if status in (500, 502, 503, 504) or status is None:
        return "transient"
    return "error"


def client_kwargs(endpoint: str | None) -> dict[str, Any]:
    """Client options for the real service, or for the emulator on 127.0.0.1
    (anonymous credentials: there is nothing to authenticate to)."""
    kwargs: dict[str, Any] = {"transport": "rest"}
    if endpoint:
        from google.api_core.client_options import ClientOptions

        kwargs["client_options"] = ClientOptions(api_endpoint=endpoint)
        if endpoint.startswith(("http://127.0.0.1", "http://localhost")):
            from google.auth.credentials import AnonymousCredentials

            kwargs["credentials"] = AnonymousCredentials()
    return kwargs


def regions_client(endpoint: str | None) -> Any:
    from google.cloud.compute_v1.services.regions import RegionsClient

    try:
        return RegionsClient(**client_kwargs(endpoint))
    except Exception as exc:
        raise DispatchError(f"GCP credentials: {exc}") from None


class QuotaReader:
    """Regional quotas, each region read once (RegionsClient.get)."""

    def __init__(self, project: str, client: Any, timeout: float) -> None:
        self.project = project
        self.client = client
        self.timeout = timeout
        self.lock = threading.Lock()
        self.regions: dict[str, dict[str, tuple[float, float]] | None] = {}
        self.failures: dict[str, str] = {}  # region -> why its quotas could not be read

    def read(self, region: str, remember_failure: bool = True) -> Exception | None:
        """Read one region's quotas into the cache (safe to call for several
        regions at once); the exception when they could not be read. A
        failure not remembered is asked again by the next `get`."""
        try:
            info = self.client.get(project=self.project, region=region, timeout=self.timeout)
        except Exception as exc:
            if remember_failure:
                self.regions[region] = None
                self.failures[region] = _short(exc)
            return exc
        self.regions[region] = {q.metric: (q.limit, q.usage) for q in info.quotas}
        return None

    def get(self, region: str, metric: str) -> tuple[float, float] | None:
        """(limit, usage); a metric the region does not list admits nothing.
        None: the quota could not be read (the insert will find out)."""
        with self.lock:
            if region not in self.regions:
                exc = self.read(region)
                status = getattr(exc, "code", None)
                if isinstance(status, int) and classify(str(exc), status) == "error":
                    del self.regions[region], self.failures[region]
                    raise DispatchError(f"GCP regions.get {region}: {_short(exc)}") from None
            table = self.regions[region]
            return None if table is None else table.get(metric, (0.0, 0.0))


class GcpBackend:
    name = "gcp"

    def __init__(self, ctx: Context, project: str, endpoint: str | None) -> None:
        self.ctx = ctx
        self.config: LadderConfig = ctx.config
        self.project = project
        self.endpoint = endpoint
        self._clients: tuple[Any, Any, Any] | None = None
        self.quotas: QuotaReader | None = None
        self.blocked_regions: dict[tuple[str, str], str] = {}  # (region, metric) -> why
        self.lock = threading.Lock()
        self.sleep = time.sleep
        self.attempt = uuid.uuid4().hex  # this process's requestId salt
        self.allowed: bool | None = None  # the per-day cap, claimed on the first rung
        self.all_blocked = False  # a GPUS_ALL_REGIONS quota: no GCP rung can launch
        self.unanswered: dict[str, tuple[Machine, float]] = {}  # key -> (machine, lands by)
        self.zones = list(dict.fromkeys(z for fam in self.config.families.values()
                                        for z in fam.zones))

    @property
    def dispatch_id(self) -> str:
        return self.ctx.workload.dispatch_id

    # ---- clients ---------------------------------------------------------------------

    def clients(self) -> tuple[Any, Any, Any]:
        if self._clients is None:
            from google.cloud.compute_v1.services.instances import InstancesClient
            from google.cloud.compute_v1.services.regions import RegionsClient
            from google.cloud.compute_v1.services.zone_operations import ZoneOperationsClient

            kwargs = client_kwargs(self.endpoint)
            try:
                self._clients = (InstancesClient(**kwargs), ZoneOperationsClient(**kwargs),
                                 RegionsClient(**kwargs))
            except Exception as exc:  # DefaultCredentialsError and friends
                raise DispatchError(f"GCP credentials: {_short(exc)}") from None
            self.quotas = QuotaReader(self.project, self._clients[2],
                                      self.config.gcp.request_timeout_seconds)
        return self._clients

    def check(self, regions: list[str] | None = None) -> Check:
        """Credentials, the project, and quota reads: every region's quotas
        are read (concurrently), a read the walk needs anyway, so the answers
        prime the quota cache. A region whose quotas cannot be read is noted:
        dispatch still works there (the insert finds out), but blind."""
        regions = list(dict.fromkeys(regions or [region_of(z) for z in self.zones]))
        if not regions:
            return Check("gcp", True, f"project {self.project}: no GCP rungs", {})
        try:
            self.clients()
        except DispatchError as exc:
            return Check("gcp", False, str(exc), {"credentials": str(exc)})
        quotas = self.quotas
        assert quotas is not None
        with ThreadPoolExecutor(max_workers=min(8, len(regions))) as pool:
            # A region that fails here is asked again by the walk, as if unread.
            errors = dict(zip(regions, pool.map(lambda r: quotas.read(r, False), regions),
                              strict=True))
        unreadable = {region: _short(exc) for region, exc in errors.items() if exc is not None}
        if len(unreadable) == len(regions):
            status = getattr(errors[regions[0]], "code", None)
            what = "credentials" if status in (401, 403) else "project" \
                if status == 404 else "endpoint"
            why = unreadable[regions[0]]
            return Check("gcp", False, f"project {self.project}: {why}", {what: why})
        checks = {"credentials": "ok", "project": "ok",
                  "quotas": "ok" if not unreadable else
                  "unreadable in " + ", ".join(sorted(unreadable))}
        detail = f"project {self.project}, quotas read in {len(regions) - len(unreadable)} " \
                 f"of {len(regions)} regions"
        return Check("gcp", True, detail, checks)

    def quota(self, region: str, metric: str) -> tuple[float, float] | None:
        """(limit, usage) for metric in region, read once per dispatch."""
        self.clients()
        assert self.quotas is not None
        return self.quotas.get(region, metric)

    # ---- instances ---------------------------------------------------------------------

    def _instance(self, rung: Rung, zone: str, name: str) -> Any:
        from google.cloud.compute_v1 import types as t

        gcp = self.config.gcp
        model = rung.provisioning
        scheduling = t.Scheduling(provisioning_model=model, on_host_maintenance="TERMINATE",
                                  automatic_restart=model == "STANDARD")
        reservation = None
        if model == "SPOT":
            scheduling.instance_termination_action = "DELETE"
        elif model == "FLEX_START":
            hours = min(rung.hours + gcp.flex_start_margin_hours,
                        self.config.flex_start_max_run_hours)
            scheduling.max_run_duration = t.Duration(seconds=int(hours * 3600))
            scheduling.instance_termination_action = "DELETE"
            reservation = t.ReservationAffinity(consume_reservation_type="NO_RESERVATION")
        script = self.ctx.workload.script_at(rung.width, visible_devices=True)
        instance = t.Instance(
            name=name,
            machine_type=f"zones/{zone}/machineTypes/{rung.machine_type}",
            scheduling=scheduling,
            disks=[t.AttachedDisk(boot=True, auto_delete=True, initialize_params=t.
                                  AttachedDiskInitializeParams(source_image=gcp.boot_image,
                                                               disk_size_gb=gcp.boot_disk_gb))],
            network_interfaces=[t.NetworkInterface(network=gcp.network)],
            metadata=t.Metadata(items=[t.Items(key="startup-script", value=script),
                                       t.Items(key="wl-width", value=str(rung.width))]),
            labels={DISPATCH_LABEL: self.dispatch_id, "wl-width": str(rung.width)},
        )
        if reservation is not None:
            instance.reservation_affinity = reservation
        return instance

    def _machine(self, zone: str, name: str, rung: Rung | None = None,
                 inst: Any = None) -> Machine:
        if inst is not None:
            labels = dict(inst.labels)
            model = inst.scheduling.provisioning_model
            width = labels.get("wl-width", "")
            details = {"machine_type": inst.machine_type.rsplit("/", 1)[-1],
                       "provisioning": getattr(model, "name", model) or None, "zone": zone}
            created = _epoch(getattr(inst, "creation_timestamp", ""))
            return Machine("gcp", f"{zone}/{name}", {"instance": name, "zone": zone,
                                                     "project": self.project},
                           int(width) if width.isdigit() else None, details, created,
                           labels.get(DISPATCH_LABEL))
        assert rung is not None
        return Machine("gcp", f"{zone}/{name}",
                       {"instance": name, "zone": zone, "project": self.project}, rung.width,
                       {"machine_type": rung.machine_type, "provisioning": rung.provisioning,
                        "zone": zone}, time.time(), self.dispatch_id)

    def _classify_exception(self, exc: BaseException) -> str:
        status = getattr(exc, "code", None)
        status = status if isinstance(status, int) else None
        text = f"{exc} {getattr(exc, 'errors', '')}"
        if status is None and _is_timeout(exc):
            return "transient"
        if status is None and not _is_google(exc):
            return "transient" if _is_network(exc) else "error"
        return classify(text, status)

    def insert_zone(self, rung: Rung, zone: str) -> ZoneOutcome:
        from google.cloud.compute_v1 import types as t

        instances, operations, _ = self.clients()
        name = instance_name(self.dispatch_id, rung, zone)
        machine = self._machine(zone, name, rung)
        request = t.InsertInstanceRequest(project=self.project, zone=zone,
                                          instance_resource=self._instance(rung, zone, name),
                                          request_id=request_id(name, zone, "insert",
                                                                self.attempt))
        timeout = self.config.gcp.request_timeout_seconds
        window = self.config.gcp.operation_timeout_seconds
        # Written before it is sent: whoever looks next knows it may land, up
        # to the operation window after the last retry there is time for.
        retry_seconds = (MAX_RETRIES + 1) * timeout + BACKOFF_TOTAL
        self.ctx.record(machine, "sent", time.time() + retry_seconds + window)
        op = None
        for attempt in range(MAX_RETRIES + 1):
            sent = time.time()
            try:
                op = instances.insert(request=request, timeout=timeout)
                break
            except Exception as exc:
                kind = self._classify_exception(exc)
                status = getattr(exc, "code", None)
                if status == 409 or "alreadyExists" in str(exc):
                    return self._adopt(machine)
                if kind in ("rate", "transient") and attempt < MAX_RETRIES \
                        and not self.ctx.stop.is_set():
                    self.sleep(min(0.1 * 2 ** attempt, 2.0))
                    continue
                if kind in ("rate", "transient"):
                    # No answer: the insert may still land; if not, the zone
                    # could not give us a machine now, which is a miss.
                    return self._settle_unknown(machine, sent + window, _short(exc))
                return self._missed(machine, kind, _short(exc))
        return self._wait(operations, machine, op.name, timeout)

    def _wait(self, operations: Any, machine: Machine, op_name: str,
              timeout: float) -> ZoneOutcome:
        zone = machine.handle["zone"]
        deadline = time.monotonic() + self.config.gcp.operation_timeout_seconds
        lands_by = time.time() + self.config.gcp.operation_timeout_seconds
        failures = 0
        while True:
            if self.ctx.stop.is_set():
                return self._settle_unknown(machine, lands_by, "stopped waiting (cancelled)")
            try:
                op = operations.wait(project=self.project, zone=zone, operation=op_name,
                                     timeout=timeout)
            except Exception as exc:
                failures += 1
                if failures > MAX_RETRIES or self._classify_exception(exc) == "error":
                    return self._settle_unknown(machine, lands_by, _short(exc))
                self.sleep(min(0.1 * 2 ** failures, 2.0))
                continue
            if _status(op) == "DONE":
                errors = list(op.error.errors) if op.error else []
                if not errors:
                    self.ctx.record(machine, "created")
                    return ZoneOutcome(zone, "launched", machine.handle["instance"])
                text = " ".join(f"{e.code} {e.message}" for e in errors)
                kind = classify(text, op.http_error_status_code or None)
                if kind in ("rate", "transient"):
                    kind = "capacity"  # a failed create that is not an error of ours
                return self._missed(machine, kind, text)
            if time.monotonic() > deadline:
                return self._settle_unknown(machine, lands_by, "operation did not finish in time")

    def _missed(self, machine: Machine, kind: str, detail: str) -> ZoneOutcome:
        """A definite answer that no machine was made."""
        self.ctx.record(machine, "missed")
        zone, name = machine.handle["zone"], machine.handle["instance"]
        if kind == "capacity":
            return ZoneOutcome(zone, "capacity-miss", name, detail)
        if kind in ("quota", "quota-all"):
            return ZoneOutcome(zone, "quota-miss", name, detail, all_regions=kind == "quota-all")
        return ZoneOutcome(zone, "error", name, detail)

    def _settle_unknown(self, machine: Machine, lands_by: float, detail: str) -> ZoneOutcome:
        """We could not learn what happened: look. If the machine exists, it is
        ours to keep or delete; if not, the zone missed for now, and the insert
        stays unanswered until it can no longer land."""
        zone, name = machine.handle["zone"], machine.handle["instance"]
        if self._get(zone, name) is not None:
            self.ctx.record(machine, "created")
            return ZoneOutcome(zone, "launched", name)
        with self.lock:
            self.unanswered[machine.key] = (machine, lands_by)
        self.ctx.record(machine, "sent", lands_by)
        return ZoneOutcome(zone, "capacity-miss", name, f"no answer: {detail}")

    def _adopt(self, machine: Machine) -> ZoneOutcome:
        zone, name = machine.handle["zone"], machine.handle["instance"]
        found = self._get(zone, name)
        if found is not None and found.labels.get(DISPATCH_LABEL) == self.dispatch_id:
            self.ctx.record(machine, "created")
            return ZoneOutcome(zone, "launched", name, "already running (rerun)")
        self.ctx.record(machine, "missed")
        return ZoneOutcome(zone, "error", name, f"instance {name} exists and is not ours")

    def _get(self, zone: str, name: str) -> Any | None:
        """The instance, or None once it no longer exists."""
        instances, _, _ = self.clients()
        for attempt in range(MAX_RETRIES + 1):
            try:
                return instances.get(project=self.project, zone=zone, instance=name,
                                     timeout=self.config.gcp.request_timeout_seconds)
            except Exception as exc:
                if getattr(exc, "code", None) == 404:
                    return None
                if attempt == MAX_RETRIES:
                    raise DispatchError(f"GCP get {zone}/{name}: {_short(exc)}") from None
                self.sleep(min(0.1 * 2 ** attempt, 2.0))
        return None

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        inst = self._get(machine.handle["zone"], machine.handle["instance"])
        if inst is None:
            # A SPOT or FLEX_START VM is deleted when reclaimed (termination action DELETE).
            reclaimed = machine.details.get("provisioning") in PREEMPTIBLE
            return ("preempted" if reclaimed else "gone"), {}
        status = getattr(inst.status, "name", None) or str(inst.status)
        if status in ALIVE_STATUS:
            return ALIVE_STATUS[status], {"status": status}
        return "stopped", {"status": status}

    def release(self, machine: Machine) -> None:
        """Delete and confirm by a 404; never returns while the machine may live."""
        from google.cloud.compute_v1 import types as t

        instances, operations, _ = self.clients()
        zone, name = machine.handle["zone"], machine.handle["instance"]
        timeout = self.config.gcp.request_timeout_seconds
        deadline = time.monotonic() + self.config.gcp.operation_timeout_seconds
        tries = 0
        while time.monotonic() < deadline:
            try:
                op = instances.delete(request=t.DeleteInstanceRequest(
                    project=self.project, zone=zone, instance=name,
                    request_id=request_id(name, zone, f"delete-{tries}", self.attempt)),
                    timeout=timeout)
                operations.wait(project=self.project, zone=zone, operation=op.name,
                                timeout=timeout)
            except Exception as exc:
                if getattr(exc, "code", None) != 404:
                    tries += 1
                    self.sleep(min(0.1 * 2 ** tries, 2.0))
            if self._get(zone, name) is None:
                self.ctx.record(machine, "released")
                self.ctx.events.emit("epm:backend-released", backend="gcp", zone=zone,
                                     instance=name, confirmed=True)
                return
            tries += 1
        raise DispatchError(f"could not confirm deletion of {zone}/{name}; run "
                            f"`backend-router sweep --dispatch-id {machine.dispatch_id}`")

    def pending(self) -> list[tuple[Machine, float]]:
        with self.lock:
            return list(self.unanswered.values())

    def watch(self, machine: Machine, lands_by: float) -> None:
        with self.lock:
            self.unanswered[machine.key] = (machine, lands_by)

    def settle(self, machine: Machine) -> Machine | None:
        """Look again at an unanswered insert: the machine if it landed; None
        (and forget it) once it can no longer land."""
        zone, name = machine.handle["zone"], machine.handle["instance"]
        inst = self._get(zone, name)
        if inst is not None:
            with self.lock:
                self.unanswered.pop(machine.key, None)
            self.ctx.record(machine, "created")
            return machine
        with self.lock:
            entry = self.unanswered.get(machine.key)
            if entry is not None and entry[1] < time.time():
                del self.unanswered[machine.key]
                self.ctx.record(machine, "missed")
        return None

    # ---- finding what a dispatch has -------------------------------------------------------

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        """Every instance labelled for dispatch_id (None: for any dispatch) in
        every zone the ladder config names."""
        from google.cloud.compute_v1 import types as t

        instances, _, _ = self.clients()

        def list_zone(zone: str) -> list[Machine]:
            flt = f'labels.{DISPATCH_LABEL}="{dispatch_id}"' if dispatch_id else ""
            try:
                pager = instances.list(request=t.ListInstancesRequest(
                    project=self.project, zone=zone, filter=flt),
                    timeout=self.config.gcp.request_timeout_seconds)
                items = list(pager)
            except Exception as exc:
                raise DispatchError(f"GCP list {zone}: {_short(exc)}") from None
            return [self._machine(zone, i.name, inst=i) for i in items
                    if (i.labels.get(DISPATCH_LABEL) == dispatch_id if dispatch_id
                        else DISPATCH_LABEL in i.labels)]

        found: list[Machine] = []
        with ThreadPoolExecutor(max_workers=min(16, max(1, len(self.zones)))) as pool:
            for result in pool.map(list_zone, self.zones):
                found.extend(result)
        return found

    # ---- a rung ------------------------------------------------------------------------

    def _skip(self, rung: Rung, outcome: str, detail: str) -> RungResult:
        self.ctx.events.emit("epm:backend-attempt", backend="gcp",
                             machine_type=rung.machine_type, provisioning=rung.provisioning,
                             zone=None, width=rung.width, outcome=outcome, detail=detail)
        return RungResult(outcome, detail=detail)

    def _allowed_today(self) -> bool:
        """The per-day attempt cap: one claim per dispatch, in the ledger."""
        if self.allowed is None:
            ledger = self.ctx.ledger
            self.allowed = True if ledger is None else ledger.claim(
                self.dispatch_id, self.config.gcp_attempt_cap_per_day)[0]
        return self.allowed

    def try_rung(self, rung: Rung) -> RungResult:
        if self.all_blocked:
            return self._skip(rung, "quota-miss", "GPUS_ALL_REGIONS quota exhausted")
        if not self._allowed_today():
            return self._skip(rung, "cap-reached",
                              f"{self.config.gcp_attempt_cap_per_day} GCP dispatches today")
        result = self._try_zones(rung)
        self.all_blocked = self.all_blocked or result.all_gcp_blocked
        return result

    def insert_all(self, rung: Rung, zones: list[str]) -> Iterator[ZoneOutcome]:
        """Send every zone's insert at once; yield each outcome as it answers.
        Everything else about a rung (quota gates, one winner, the losers
        deleted, a fatal error) is `_try_zones`, which `simulate` shares: its
        backend overrides only this fan-out and the insert itself."""
        with ThreadPoolExecutor(max_workers=min(16, len(zones))) as pool:
            futures = {pool.submit(self.insert_zone, rung, zone): zone for zone in zones}
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception as exc:  # every future is collected: none is forgotten
                    result = ZoneOutcome(futures[future], "error", "", redact.clip(exc))
                yield result

    def _try_zones(self, rung: Rung) -> RungResult:
        metric = rung.quota_metric or ""
        zones: list[str] = []
        by_region: dict[str, list[str]] = {}  # regions in first-seen order, zones in rung order
        for zone in rung.zones:
            by_region.setdefault(region_of(zone), []).append(zone)
        for region, region_zones in by_region.items():
            if (region, metric) in self.blocked_regions:
                continue
            quota = self.quota(region, metric)
            if quota is not None and quota[0] - quota[1] < rung.width:
                limit, usage = quota
                self.ctx.events.emit("epm:backend-attempt", backend="gcp",
                                     machine_type=rung.machine_type,
                                     provisioning=rung.provisioning, zone=None, region=region,
                                     width=rung.width, outcome="quota-miss", metric=metric,
                                     limit=limit, usage=usage)
                continue
            zones.extend(region_zones)
        if not zones:
            return RungResult("quota-miss", detail="no region's quota admits this width")
        winner: ZoneOutcome | None = None
        losers: list[ZoneOutcome] = []
        fatal: ZoneOutcome | None = None
        all_regions = False
        for result in self.insert_all(rung, zones):
            self.ctx.events.emit("epm:backend-attempt", backend="gcp",
                                 machine_type=rung.machine_type,
                                 provisioning=rung.provisioning, zone=result.zone,
                                 width=rung.width, outcome=result.outcome,
                                 **({"detail": redact.clip(result.detail)}
                                    if result.detail else {}))
            if result.outcome == "launched":
                if winner is None and fatal is None:
                    winner = result
                else:
                    losers.append(result)
            elif result.outcome == "quota-miss":
                self.blocked_regions[(region_of(result.zone), metric)] = result.detail
                all_regions = all_regions or result.all_regions
            elif result.outcome == "error" and fatal is None:
                fatal = result
        # Everything is settled: no insert is still in flight. Keep one machine.
        if fatal is not None and winner is not None:
            losers.append(winner)
            winner = None
        for loser in losers:
            self.release(self._machine(loser.zone, loser.name, rung))
        if fatal is not None:
            raise DispatchError(f"GCP {rung.machine_type} {rung.provisioning} in {fatal.zone}: "
                                f"{fatal.detail}")
        if winner is not None:
            return RungResult("launched", zone=winner.zone,
                              handle={"instance": winner.name, "project": self.project},
                              machine=self._machine(winner.zone, winner.name, rung))
        outcome = "quota-miss" if all_regions or all(
            (region_of(z), metric) in self.blocked_regions for z in zones) else "capacity-miss"
        return RungResult(outcome, all_gcp_blocked=all_regions)


def _epoch(stamp: str) -> float | None:
    import datetime as dt

    try:
        return dt.datetime.fromisoformat(stamp).timestamp() if stamp else None
    except ValueError:
        return None


def _status(op: Any) -> str:
    status = getattr(op, "status", None)
    return getattr(status, "name", str(status))


def _short(exc: BaseException) -> str:
    return redact.clip(exc)


def _is_google(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("google.")


def _is_timeout(exc: BaseException) -> bool:
    name = type(exc).__name__
    return "Timeout" in name or "DeadlineExceeded" in name


def _is_network(exc: BaseException) -> bool:
    module = type(exc).__module__
    return module.startswith(("requests", "urllib3", "http.client")) or \
        isinstance(exc, ConnectionError | TimeoutError)
