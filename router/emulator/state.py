"""The emulator's world: capacity, quotas, instances, operations, pods, faults.

Everything here is plain data behind one lock, so the HTTP layer stays thin
and tests can reason about the state the router leaves behind.
"""

from __future__ import annotations

import random
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from router import yamlsafe

POOL_EXHAUSTED = "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS"
RUNPOD_NO_CAPACITY = ("There are no longer any instances available with the requested "
                      "specifications. Please refresh and try again.")
MODELS = ("SPOT", "FLEX_START", "STANDARD")
FAULT_KEYS = {"seed", "latency_ms", "error_5xx_rate", "rate_limit_rate", "timeout_rate",
              "silent_operation_error_rate", "insert_timeout_creates_rate", "async_capacity_errors",
              "timeout_s", "reclaim_after_insert_rate"}


# Bounds on every number the emulator takes from a capacity file, a reset
# request or a flag: a count or a sleep of 10**400 (or nan) would otherwise
# surface as an OverflowError or ValueError deep inside a request handler.
MAX_COUNT = 1_000_000  # machines, pods or GPUs of one kind
MAX_QUOTA = 1_000_000_000.0
MAX_SEED = 2**63 - 1
MAX_PORT = 65_535
_FAULT_RANGES: dict[str, tuple[float, float]] = {
    "latency_ms": (0.0, 600_000.0),  # ten minutes
    "timeout_s": (0.0, 3_600.0),
    **{key: (0.0, 1.0) for key in ("error_5xx_rate", "rate_limit_rate", "timeout_rate",
                                   "silent_operation_error_rate",
                                   "insert_timeout_creates_rate",
                                   "reclaim_after_insert_rate")},
}


class CapacityError(ValueError):
    """Bad emulator input: the capacity file, faults, or the port."""


class FaultsError(CapacityError):
    """A bad fault setting; `key` names it (None: the faults as a whole)."""

    def __init__(self, key: str | None, message: str) -> None:
        super().__init__(message)
        self.key = key


class ApiError(Exception):
    """An HTTP error response in Compute Engine's JSON shape."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.status, "message": self.message,
                          "errors": [{"domain": "global", "reason": self.reason,
                                      "message": self.message}]}}


@dataclass
class Faults:
    seed: int = 0
    latency_ms: float = 0.0
    error_5xx_rate: float = 0.0
    rate_limit_rate: float = 0.0
    timeout_rate: float = 0.0  # the response stalls past the client's timeout; nothing created
    silent_operation_error_rate: float = 0.0  # a DONE operation with errors and no HTTP status
    insert_timeout_creates_rate: float = 0.0  # stalls, but the VM is created anyway
    async_capacity_errors: bool = False  # capacity misses as failed operations, not 503s
    timeout_s: float = 30.0  # how long a stalled response stalls
    # A SPOT / FLEX_START VM reclaimed the moment its insert is DONE: the
    # operation says success, and a read-back finds nothing.
    reclaim_after_insert_rate: float = 0.0


def validate_faults(values: Any) -> Faults:
    """Faults from a mapping (a capacity file's `faults:`, a reset request, the
    flags), every value checked against its range. Raises FaultsError."""
    if not isinstance(values, dict):
        raise FaultsError(None, "faults: expected a mapping")
    for key, value in values.items():
        if key not in FAULT_KEYS:
            raise FaultsError(None, f"faults: unknown key {str(key)[:40]!r} "
                                    f"(allowed: {', '.join(sorted(FAULT_KEYS))})")
        if key == "async_capacity_errors":
            if not isinstance(value, bool):
                raise FaultsError(key, f"faults.{key}: expected true or false")
        elif key == "seed":
            if isinstance(value, bool) or not isinstance(value, int) or \
                    not 0 <= value <= MAX_SEED:
                raise FaultsError(key, f"faults.seed: expected an integer within 0..{MAX_SEED}")
        else:
            low, high = _FAULT_RANGES[key]
            # Compared, never converted: nan fails, and 10**400 cannot reach float().
            if isinstance(value, bool) or not isinstance(value, int | float) or \
                    not low <= value <= high:
                raise FaultsError(key, f"faults.{key}: expected a number within "
                                       f"{low:g}..{high:g}")
    return Faults(**values)


def validate_port(port: Any) -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= MAX_PORT:
        shown = str(port) if isinstance(port, int) and abs(port) < 10**12 else "value"
        raise CapacityError(f"invalid port {shown}: must be within 0..{MAX_PORT}")
    return port


@dataclass
class Instance:
    project: str
    zone: str
    name: str
    machine_type: str
    provisioning: str
    gpus: int
    metadata: dict[str, str]
    labels: dict[str, str]
    status: str = "RUNNING"
    created: float = field(default_factory=time.time)

    def resource(self) -> dict[str, Any]:
        base = f"https://www.googleapis.com/compute/v1/projects/{self.project}/zones/{self.zone}"
        # RFC 3339 with a numeric offset, as Compute Engine writes it.
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.created)) + \
            f".{int(self.created * 1000) % 1000:03d}-00:00"
        return {"kind": "compute#instance", "name": self.name, "status": self.status,
                "creationTimestamp": stamp,
                "zone": base, "selfLink": f"{base}/instances/{self.name}",
                "machineType": f"{base}/machineTypes/{self.machine_type}",
                "scheduling": {"provisioningModel": self.provisioning},
                "labels": self.labels,
                "metadata": {"items": [{"key": k, "value": v} for k, v in self.metadata.items()]}}


def region_of(zone: str) -> str:
    return zone.rsplit("-", 1)[0]


def gpus_of(machine_type: str) -> int:
    # ASCII digits, a few: \d also matches other scripts' digits, and int() of a
    # 5000-digit run raises inside the request handler.
    match = re.search(r"-([0-9]{1,6})g$", machine_type)
    return int(match.group(1)) if match else 1


def quota_metric(machine_type: str, provisioning: str) -> str:
    gpu = "H100" if machine_type.startswith("a3-") else "A100_80GB"
    prefix = "" if provisioning == "STANDARD" else "PREEMPTIBLE_"
    return f"{prefix}NVIDIA_{gpu}_GPUS"


class World:
    def __init__(self, capacity: dict[str, Any], faults: Faults) -> None:
        self.lock = threading.RLock()
        self.capacity: dict[tuple[str, str, str], int] = {}
        gce = capacity.get("gce") or {}
        for zone, machines in (gce.get("zones") or {}).items():
            for machine_type, models in (machines or {}).items():
                for model, count in (models or {}).items():
                    self.capacity[(zone, machine_type, model)] = int(count)
        self.quotas: dict[str, dict[str, float]] = {
            region: {metric: float(limit) for metric, limit in (metrics or {}).items()}
            for region, metrics in (gce.get("quotas") or {}).items()}
        self.reject_auth = bool(gce.get("reject_auth", False))
        self.runpod_capacity: dict[str, int] = {
            gpu: int(n) for gpu, n in ((capacity.get("runpod") or {}).get("gpus") or {}).items()}
        self.runpod_keys_rejected = set((capacity.get("runpod") or {}).get("reject_keys") or [])
        self.faults = faults
        self.rng = random.Random(faults.seed)
        self.instances: dict[tuple[str, str, str], Instance] = {}
        self.operations: dict[str, dict[str, Any]] = {}
        self.request_ids: dict[str, str] = {}
        self.pods: dict[str, dict[str, Any]] = {}

    # ---- faults -------------------------------------------------------------------

    def roll(self, rate: float) -> bool:
        with self.lock:
            return rate > 0 and self.rng.random() < rate

    def latency(self) -> None:
        if self.faults.latency_ms:
            time.sleep(self.faults.latency_ms / 1000)

    # ---- quotas ---------------------------------------------------------------------

    def usage(self, region: str, metric: str) -> float:
        return float(sum(i.gpus for i in self.instances.values()
                         if region_of(i.zone) == region and
                         quota_metric(i.machine_type, i.provisioning) == metric))

    def region(self, project: str, region: str) -> dict[str, Any]:
        with self.lock:
            quotas = [{"metric": metric, "limit": limit, "usage": self.usage(region, metric)}
                      for metric, limit in sorted(self.quotas.get(region, {}).items())]
            return {"kind": "compute#region", "name": region, "status": "UP", "quotas": quotas,
                    "selfLink": f"https://www.googleapis.com/compute/v1/projects/{project}/"
                                f"regions/{region}"}

    # ---- operations -----------------------------------------------------------------

    def _operation(self, project: str, zone: str, kind: str, target: str,
                   error: tuple[str, str] | None = None, http_status: int | None = None,
                   status: str = "DONE") -> dict[str, Any]:
        name = f"operation-{uuid.uuid4().hex[:16]}"
        op: dict[str, Any] = {
            "kind": "compute#operation", "id": str(self.rng.randrange(10**12)), "name": name,
            "zone": f"https://www.googleapis.com/compute/v1/projects/{project}/zones/{zone}",
            "operationType": kind, "targetLink": target, "status": status,
            "progress": 100 if status == "DONE" else 0,
            "insertTime": time.strftime("%Y-%m-%dT%H:%M:%S.000-00:00", time.gmtime()),
        }
        if error:
            op["error"] = {"errors": [{"code": error[0], "message": error[1]}]}
            if http_status is not None:
                op["httpErrorStatusCode"] = http_status
                op["httpErrorMessage"] = "SERVICE UNAVAILABLE" if http_status == 503 \
                    else "FORBIDDEN"
        self.operations[name] = op
        return op

    def operation(self, name: str) -> dict[str, Any]:
        with self.lock:
            if name not in self.operations:
                raise ApiError(404, "notFound", f"The resource 'operations/{name}' was not found")
            return self.operations[name]

    # ---- instances ------------------------------------------------------------------

    def insert(self, project: str, zone: str, body: dict[str, Any],
               request_id: str | None) -> tuple[dict[str, Any], bool]:
        """Returns (operation, stall): stall means the HTTP response should hang."""
        with self.lock:
            if request_id and request_id in self.request_ids:
                return self.operations[self.request_ids[request_id]], False
            name = str(body.get("name", ""))
            if not re.fullmatch(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?", name):
                raise ApiError(400, "invalid", f"Invalid value for field 'resource.name': "
                                               f"'{name}'.")
            machine_type = str(body.get("machineType", "")).rsplit("/", 1)[-1]
            if not machine_type:
                raise ApiError(400, "invalid", "Invalid value for field 'resource.machineType'")
            scheduling = body.get("scheduling") or {}
            meta = body.get("metadata") or {}
            items = (meta.get("items") or []) if isinstance(meta, dict) else None
            labels = body.get("labels") or {}
            # Checked before any state changes: a wrong-typed field is a 400, as
            # Compute Engine answers it, not an AttributeError in the handler.
            for field_name, ok in (("scheduling", isinstance(scheduling, dict)),
                                   ("metadata", isinstance(items, list) and
                                    all(isinstance(i, dict) and isinstance(i.get("key", ""), str)
                                        for i in items)),
                                   ("labels", isinstance(labels, dict))):
                if not ok:
                    raise ApiError(400, "invalid",
                                   f"Invalid value for field 'resource.{field_name}'")
            model = scheduling.get("provisioningModel", "STANDARD")
            if not isinstance(model, str) or model not in MODELS:
                raise ApiError(400, "invalid", f"Invalid provisioning model {str(model)[:40]}")
            max_run = scheduling.get("maxRunDuration") or {}
            if model == "FLEX_START" and not (isinstance(max_run, dict) and
                                              max_run.get("seconds")):
                raise ApiError(400, "invalid", "FLEX_START requires scheduling.maxRunDuration")
            if self.roll(self.faults.rate_limit_rate):
                raise ApiError(429, "rateLimitExceeded",
                               "RESOURCE_OPERATION_RATE_EXCEEDED: rate limit exceeded")
            if self.roll(self.faults.error_5xx_rate):
                raise ApiError(500, "backendError", "Internal error. Please try again.")
            if self.roll(self.faults.timeout_rate):
                return {}, True
            key = (project, zone, name)
            target = f"https://www.googleapis.com/compute/v1/projects/{project}/zones/{zone}/" \
                     f"instances/{name}"
            if key in self.instances:
                raise ApiError(409, "alreadyExists",
                               f"The resource 'projects/{project}/zones/{zone}/instances/{name}'"
                               " already exists")
            gpus = gpus_of(machine_type)
            region = region_of(zone)
            metric = quota_metric(machine_type, model)
            limit = self.quotas.get(region, {}).get(metric, 0.0)
            if self.usage(region, metric) + gpus > limit:
                message = (f"Quota '{metric}' exceeded.  Limit: {limit} in region {region}.")
                raise ApiError(403, "quotaExceeded", f"QUOTA_EXCEEDED: {message}")
            cap_key = (zone, machine_type, model)
            if self.capacity.get(cap_key, 0) <= 0:
                message = (f"The zone 'projects/{project}/zones/{zone}' does not have enough "
                           f"resources available to fulfill the request. '(resource type:"
                           f"compute)'.")
                if self.faults.async_capacity_errors:
                    op = self._operation(project, zone, "insert", target,
                                         (POOL_EXHAUSTED, message), 503)
                    self._remember(request_id, op)
                    return op, False
                raise ApiError(503, POOL_EXHAUSTED, f"{POOL_EXHAUSTED}: {message}")
            if self.roll(self.faults.silent_operation_error_rate):
                op = self._operation(project, zone, "insert", target,
                                     ("ZONE_RESOURCE_POOL_EXHAUSTED", "no capacity (silent)"))
                self._remember(request_id, op)
                return op, False
            self.capacity[cap_key] -= 1
            metadata = {item.get("key", ""): item.get("value", "") for item in items or []}
            self.instances[key] = Instance(project, zone, name, machine_type, model, gpus,
                                           metadata, dict(labels))
            op = self._operation(project, zone, "insert", target)
            self._remember(request_id, op)
            if model != "STANDARD" and self.roll(self.faults.reclaim_after_insert_rate):
                del self.instances[key]
                self.capacity[cap_key] += 1
            stall = self.roll(self.faults.insert_timeout_creates_rate)
            return op, stall

    def _remember(self, request_id: str | None, op: dict[str, Any]) -> None:
        if request_id:
            self.request_ids[request_id] = op["name"]

    def get(self, project: str, zone: str, name: str) -> dict[str, Any]:
        with self.lock:
            inst = self.instances.get((project, zone, name))
            if inst is None:
                raise ApiError(404, "notFound", f"The resource 'projects/{project}/zones/{zone}/"
                                                f"instances/{name}' was not found")
            return inst.resource()

    def list(self, project: str, zone: str, label_filter: str | None) -> dict[str, Any]:
        with self.lock:
            items = [i for i in self.instances.values() if i.project == project and i.zone == zone]
            if label_filter:
                m = re.search(r"labels\.([\w-]+)\s*=\s*\"?([\w-]+)\"?", label_filter)
                if m:
                    items = [i for i in items if i.labels.get(m.group(1)) == m.group(2)]
            return {"kind": "compute#instanceList", "items": [i.resource() for i in items]}

    def delete(self, project: str, zone: str, name: str,
               request_id: str | None) -> dict[str, Any]:
        with self.lock:
            if request_id and request_id in self.request_ids:
                return self.operations[self.request_ids[request_id]]
            inst = self.instances.pop((project, zone, name), None)
            if inst is None:
                raise ApiError(404, "notFound", f"The resource 'projects/{project}/zones/{zone}/"
                                                f"instances/{name}' was not found")
            cap_key = (zone, inst.machine_type, inst.provisioning)
            self.capacity[cap_key] = self.capacity.get(cap_key, 0) + 1
            op = self._operation(project, zone, "delete", inst.resource()["selfLink"])
            self._remember(request_id, op)
            return op

    # ---- RunPod -----------------------------------------------------------------------

    def deploy_pod(self, fields: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            gpu = str(fields.get("gpuTypeId"))
            count = fields.get("gpuCount") or 1
            if isinstance(count, str) and count.isascii() and count.isdigit() and len(count) < 10:
                count = int(count)
            if isinstance(count, bool) or not isinstance(count, int) or \
                    not 1 <= count <= MAX_COUNT:
                raise ApiError(400, "invalid", f"invalid gpuCount {str(count)[:40]!r}")
            if self.runpod_capacity.get(gpu, 0) < count:
                raise LookupError(RUNPOD_NO_CAPACITY)
            self.runpod_capacity[gpu] -= count
            pod_id = uuid.uuid4().hex[:14]
            pod = {"id": pod_id, "name": fields.get("name"), "imageName": fields.get("imageName"),
                   "gpuTypeId": gpu, "gpuCount": count, "env": fields.get("env") or [],
                   "dockerArgs": fields.get("dockerArgs"), "desiredStatus": "RUNNING",
                   "machineId": "emu", "machine": {"podHostId": f"{pod_id}-emu"}}
            self.pods[pod_id] = pod
            return pod

    def terminate_pod(self, pod_id: str) -> None:
        with self.lock:
            pod = self.pods.pop(pod_id, None)
            if pod:
                self.runpod_capacity[pod["gpuTypeId"]] = \
                    self.runpod_capacity.get(pod["gpuTypeId"], 0) + pod["gpuCount"]

    def preempt(self, name: str) -> bool:
        """Reclaim a machine as Compute Engine does a SPOT VM with
        instance_termination_action=DELETE (or RunPod a pod): it is gone."""
        with self.lock:
            for key, inst in list(self.instances.items()):
                if inst.name == name:
                    del self.instances[key]
                    cap_key = (inst.zone, inst.machine_type, inst.provisioning)
                    self.capacity[cap_key] = self.capacity.get(cap_key, 0) + 1
                    return True
            if name in self.pods:
                self.terminate_pod(name)
                return True
            return False

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {"instances": [i.resource() | {"project": i.project, "zoneName": i.zone,
                                                  "gpus": i.gpus}
                                  for i in self.instances.values()],
                    "pods": list(self.pods.values())}


def load_capacity(path: str) -> tuple[dict[str, Any], Faults]:
    """Read and validate a capacity file. Raises CapacityError with file:line."""
    from router import textfile
    from router.config import shown_path

    shown = shown_path(path)
    try:  # textfile.read refuses anything but a regular file: a FIFO would block
        text = textfile.read(path, 2_000_000, "capacity file")
    except textfile.TextFileError as exc:
        where = f"{shown}:{exc.line}" if exc.line else shown
        raise CapacityError(f"{where}: {exc.message}") from None
    try:
        located = yamlsafe.load(text)
    except yamlsafe.YamlError as exc:
        raise CapacityError(f"{shown}:{exc.line}: {exc.message}") from None
    data = located.data or {}

    def fail(at: tuple[Any, ...], message: str) -> CapacityError:
        return CapacityError(f"{shown}:{located.line_of(at)}: {message}")

    return data, validate_capacity(data, fail)


def validate_capacity(data: Any,
                      fail: Callable[[tuple[Any, ...], str], CapacityError] | None = None
                      ) -> Faults:
    """Check a capacity document (file or reset request) before World reads it;
    returns its faults. `fail(key_path, message)` builds the error (a file adds
    its line); by default the message alone."""
    if fail is None:
        def fail(at: tuple[Any, ...], message: str) -> CapacityError:
            return CapacityError(message)

    def mapping(value: Any, at: tuple[Any, ...]) -> dict[Any, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise fail(at, f"{'.'.join(map(str, at))}: expected a mapping")
        return value

    def name(value: Any, at: tuple[Any, ...]) -> None:
        if not isinstance(value, str) or not value.strip() or len(value) > 200 or \
                any(not c.isprintable() for c in value):
            raise fail(at, f"{'.'.join(map(str, at[:-1]))}: {str(value)[:40]!r} is not a "
                           "valid name (printable text, 1..200 characters)")

    def count(value: Any, at: tuple[Any, ...], what: str, maximum: float = MAX_COUNT,
              integer: bool = True) -> None:
        kind = int if integer else int | float
        if isinstance(value, bool) or not isinstance(value, kind) or \
                not 0 <= value <= maximum:
            raise fail(at, f"{what}: expected {'a count' if integer else 'a number'} "
                           f"within 0..{maximum:g}")

    if not isinstance(data, dict):
        raise fail((), "capacity file must be a mapping")
    for key in data:
        if key not in ("gce", "runpod", "faults"):
            raise fail((key,), f"unknown key {str(key)[:40]!r} (allowed: gce, runpod, faults)")
    gce = mapping(data.get("gce"), ("gce",))
    for key in gce:
        if key not in ("zones", "quotas", "reject_auth"):
            raise fail(("gce", key), f"gce: unknown key {str(key)[:40]!r}")
    for zone, machines in mapping(gce.get("zones"), ("gce", "zones")).items():
        name(zone, ("gce", "zones", zone))
        if not isinstance(machines, dict):
            raise fail(("gce", "zones", zone), f"gce.zones.{zone}: expected a mapping")
        for machine, models in machines.items():
            name(machine, ("gce", "zones", zone, machine))
            if not isinstance(models, dict):
                raise fail(("gce", "zones", zone, machine), f"{machine}: expected a mapping")
            for model, n in models.items():
                if model not in MODELS:
                    raise fail(("gce", "zones", zone, machine, model),
                               f"{zone}.{machine}: expected SPOT/FLEX_START/STANDARD, got "
                               f"{str(model)[:40]!r}")
                count(n, ("gce", "zones", zone, machine, model), f"{zone}.{machine}.{model}")
    for region, metrics in mapping(gce.get("quotas"), ("gce", "quotas")).items():
        name(region, ("gce", "quotas", region))
        for metric, limit in mapping(metrics, ("gce", "quotas", region)).items():
            name(metric, ("gce", "quotas", region, metric))
            count(limit, ("gce", "quotas", region, metric), f"gce.quotas.{region}.{metric}",
                  MAX_QUOTA, integer=False)
    if not isinstance(gce.get("reject_auth", False), bool):
        raise fail(("gce", "reject_auth"), "gce.reject_auth: expected true or false")
    runpod = mapping(data.get("runpod"), ("runpod",))
    if set(runpod) - {"gpus", "reject_keys"}:
        raise fail(("runpod",), "runpod: allowed keys are gpus, reject_keys")
    for gpu, n in mapping(runpod.get("gpus"), ("runpod", "gpus")).items():
        name(gpu, ("runpod", "gpus", gpu))
        count(n, ("runpod", "gpus", gpu), f"runpod.gpus.{gpu}")
    keys = runpod.get("reject_keys") or []
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise fail(("runpod", "reject_keys"), "runpod.reject_keys: expected a list of strings")
    try:
        return validate_faults(data.get("faults") or {})
    except FaultsError as exc:
        raise fail(("faults",) if exc.key is None else ("faults", exc.key), str(exc)) from None
