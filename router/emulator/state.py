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
from dataclasses import dataclass
from typing import Any

from router import yamlsafe

POOL_EXHAUSTED = "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS"
RUNPOD_NO_CAPACITY = ("There are no longer any instances available with the requested "
                      "specifications. Please refresh and try again.")
MODELS = ("SPOT", "FLEX_START", "STANDARD")
FAULT_KEYS = {"seed", "latency_ms", "error_5xx_rate", "rate_limit_rate", "timeout_rate",
              "silent_operation_error_rate", "insert_timeout_creates_rate", "async_capacity_errors",
              "timeout_s"}


class CapacityError(ValueError):
    pass


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

    def resource(self) -> dict[str, Any]:
        base = f"https://www.googleapis.com/compute/v1/projects/{self.project}/zones/{self.zone}"
        return {"kind": "compute#instance", "name": self.name, "status": self.status,
                "zone": base, "selfLink": f"{base}/instances/{self.name}",
                "machineType": f"{base}/machineTypes/{self.machine_type}",
                "scheduling": {"provisioningModel": self.provisioning},
                "labels": self.labels,
                "metadata": {"items": [{"key": k, "value": v} for k, v in self.metadata.items()]}}


def region_of(zone: str) -> str:
    return zone.rsplit("-", 1)[0]


def gpus_of(machine_type: str) -> int:
    match = re.search(r"-(\d+)g$", machine_type)
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
            model = scheduling.get("provisioningModel", "STANDARD")
            if model not in MODELS:
                raise ApiError(400, "invalid", f"Invalid provisioning model {model}")
            if model == "FLEX_START" and not (scheduling.get("maxRunDuration") or {}).get(
                    "seconds"):
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
            metadata = {item.get("key", ""): item.get("value", "")
                        for item in (body.get("metadata") or {}).get("items") or []}
            self.instances[key] = Instance(project, zone, name, machine_type, model, gpus,
                                           metadata, dict(body.get("labels") or {}))
            op = self._operation(project, zone, "insert", target)
            self._remember(request_id, op)
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
            count = int(fields.get("gpuCount") or 1)
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

    try:
        text = textfile.read(path, 2_000_000, "capacity file")
    except textfile.TextFileError as exc:
        where = f"{path}:{exc.line}" if exc.line else path
        raise CapacityError(f"{where}: {exc.message}") from None
    try:
        located = yamlsafe.load(text)
    except yamlsafe.YamlError as exc:
        raise CapacityError(f"{path}:{exc.line}: {exc.message}") from None
    data = located.data or {}

    def fail(at: tuple[Any, ...], message: str) -> CapacityError:
        return CapacityError(f"{path}:{located.line_of(at)}: {message}")

    if not isinstance(data, dict):
        raise fail((), "capacity file must be a mapping")
    for key in data:
        if key not in ("gce", "runpod", "faults"):
            raise fail((key,), f"unknown key {key!r} (allowed: gce, runpod, faults)")
    gce = data.get("gce") or {}
    if not isinstance(gce, dict):
        raise fail(("gce",), "gce must be a mapping")
    for key in gce:
        if key not in ("zones", "quotas", "reject_auth"):
            raise fail(("gce", key), f"gce: unknown key {key!r}")
    for zone, machines in (gce.get("zones") or {}).items():
        if not isinstance(machines, dict):
            raise fail(("gce", "zones", zone), f"gce.zones.{zone}: expected a mapping")
        for machine, models in machines.items():
            if not isinstance(models, dict):
                raise fail(("gce", "zones", zone, machine), f"{machine}: expected a mapping")
            for model, count in models.items():
                if model not in MODELS or isinstance(count, bool) or not isinstance(count, int) \
                        or count < 0:
                    raise fail(("gce", "zones", zone, machine, model),
                               f"{zone}.{machine}.{model}: expected SPOT/FLEX_START/STANDARD "
                               "with a count >= 0")
    runpod = data.get("runpod") or {}
    if not isinstance(runpod, dict) or set(runpod) - {"gpus", "reject_keys"}:
        raise fail(("runpod",), "runpod: allowed keys are gpus, reject_keys")
    faults_raw = data.get("faults") or {}
    if not isinstance(faults_raw, dict) or set(faults_raw) - FAULT_KEYS:
        raise fail(("faults",), f"faults: allowed keys are {', '.join(sorted(FAULT_KEYS))}")
    return data, Faults(**faults_raw)
