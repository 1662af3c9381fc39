"""RunPod: the last rung, real dollars.

Pods are created through the runpod SDK. `import runpod` costs about 2.4 s
cold, so it happens only when the walk reaches a RunPod rung. Everything
else (the credentials check, finding, reading back and terminating pods) is
one small GraphQL request made here with the same query shapes the SDK
sends, so a check, a rerun, a sweep or `--follow` never pays for the import.

The key comes from RUNPOD_API_KEY and never appears in events or messages
(router/redact.py). The SDK interpolates strings into GraphQL unescaped, so
the launch script travels base64-encoded in the pod's environment."""

from __future__ import annotations

import base64
import json
import os
import re
import time
import urllib.error
import urllib.request
from typing import Any

from router import redact
from router.backends.base import AnswersAtOnce, Check, Context, DispatchError, Machine, RungResult
from router.planner import Rung

NO_CAPACITY = "no longer any instances available"
IMAGE = "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"
DEFAULT_API = "https://api.runpod.io"
POD_ID = re.compile(r"[A-Za-z0-9]{1,64}")


def pod_name(dispatch_id: str) -> str:
    return f"wl-{dispatch_id}"


class RunpodUnreachable(Exception):
    pass


class RunpodBackend(AnswersAtOnce):
    name = "runpod"

    def __init__(self, ctx: Context, endpoint: str | None) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.endpoint = (endpoint or os.environ.get("RUNPOD_API_BASE_URL") or DEFAULT_API) \
            .rstrip("/")
        self._sdk = None

    @property
    def dispatch_id(self) -> str:
        return self.ctx.workload.dispatch_id

    def key(self) -> str:
        key = os.environ.get("RUNPOD_API_KEY")
        if not key:
            raise DispatchError("RunPod: RUNPOD_API_KEY is not set")
        return key

    def sdk(self) -> Any:
        if self._sdk is None:
            key = self.key()
            os.environ["RUNPOD_API_BASE_URL"] = self.endpoint
            import runpod

            runpod.api_key = key
            self._sdk = runpod
        return self._sdk

    def graphql(self, query: str) -> dict[str, Any]:
        """One GraphQL request; DispatchError for a rejected key or a GraphQL
        error, RunpodUnreachable when no answer came."""
        request = urllib.request.Request(
            f"{self.endpoint}/graphql", data=json.dumps({"query": query}).encode(),
            method="POST", headers={"Content-Type": "application/json",
                                    "Authorization": f"Bearer {self.key()}"})
        timeout = self.config.gcp.request_timeout_seconds
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = json.loads(response.read(2_000_000) or b"{}")
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise DispatchError("RunPod rejected the API key") from None
            raise RunpodUnreachable(f"HTTP {exc.code}") from None
        except (OSError, ValueError) as exc:
            raise RunpodUnreachable(redact.clip(exc, 200)) from None
        if not isinstance(body, dict):
            raise DispatchError("RunPod returned a response that is not a JSON object")
        if body.get("errors"):
            raise DispatchError(f"RunPod: {redact.clip(body['errors'], 200)}")
        return body.get("data") or {}

    # ---- check -------------------------------------------------------------------------

    def check(self, regions: list[str] | None = None) -> Check:
        if not os.environ.get("RUNPOD_API_KEY"):
            return Check("runpod", False, "RUNPOD_API_KEY is not set", {"key": "not set"})
        try:
            self.graphql("query { myself { pods { id } } }")
        except DispatchError as exc:
            return Check("runpod", False, str(exc), {"key": "rejected"})
        except RunpodUnreachable as exc:
            return Check("runpod", False, f"{self.endpoint} unreachable: {exc}",
                         {"key": "set", "api": "unreachable"})
        return Check("runpod", True, "API key accepted", {"key": "ok", "api": "ok"})

    # ---- machines ----------------------------------------------------------------------

    def _machine(self, pod: dict[str, Any], width: int | None = None,
                 gpu_type: str | None = None) -> Machine:
        name = str(pod.get("name") or "")
        return Machine("runpod", f"pod/{pod['id']}", {"pod_id": str(pod["id"])}, width,
                       {"gpu_type": gpu_type or pod.get("gpuTypeId")}, None,
                       name.removeprefix("wl-") if name.startswith("wl-") else None)

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        if not os.environ.get("RUNPOD_API_KEY"):
            return []
        try:
            data = self.graphql("query { myself { pods { id name desiredStatus gpuCount } } }")
        except RunpodUnreachable as exc:
            raise DispatchError(f"RunPod: cannot list pods: {exc}") from None
        pods = ((data.get("myself") or {}).get("pods")) or []
        wanted = pod_name(dispatch_id) if dispatch_id else None
        return [self._machine(p, p.get("gpuCount")) for p in pods
                if isinstance(p, dict) and p.get("id")
                and (p.get("name") == wanted if wanted else str(p.get("name", ""))
                     .startswith("wl-"))
                and p.get("desiredStatus") != "TERMINATED"]

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        pod_id = str(machine.handle.get("pod_id"))
        if not POD_ID.fullmatch(pod_id):
            return "gone", {}
        try:
            data = self.graphql(f'query {{ pod(input: {{podId: "{pod_id}"}}) '
                                '{ id desiredStatus } }')
        except RunpodUnreachable:
            return "unknown", {}
        pod = data.get("pod")
        if not pod:
            return "gone", {}
        status = pod.get("desiredStatus")
        details = {"status": status}
        if status == "RUNNING":
            return "running", details
        if status in ("CREATED", "RESTARTING"):
            return "starting", details
        if status == "EXITED":
            return "completed", details
        return "gone", details

    def release(self, machine: Machine) -> None:
        pod_id = str(machine.handle.get("pod_id"))
        if not POD_ID.fullmatch(pod_id):
            raise DispatchError(f"RunPod: invalid pod id {pod_id!r}")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                self.graphql(f'mutation {{ podTerminate(input: {{podId: "{pod_id}"}}) }}')
                if self.state(machine)[0] == "gone":
                    self.ctx.record(machine, "released")
                    self.ctx.events.emit("epm:backend-released", backend="runpod",
                                         pod_id=pod_id, confirmed=True)
                    return
            except RunpodUnreachable:
                pass
            time.sleep(0.5)
        raise DispatchError(f"could not confirm RunPod pod {pod_id} terminated; run "
                            f"`backend-router sweep --dispatch-id {machine.dispatch_id}`")

    # ---- a rung ------------------------------------------------------------------------

    def try_rung(self, rung: Rung) -> RungResult:
        result = self._try(rung)
        fields = {"detail": redact.clip(result.detail)} if result.detail else {}
        self.ctx.events.emit("epm:backend-attempt", backend="runpod", gpu_type=rung.gpu_type,
                             width=rung.width, outcome=result.outcome, **fields)
        if result.outcome == "error":
            raise DispatchError(f"RunPod {rung.gpu_type}: {result.detail}")
        return result

    def _try(self, rung: Rung) -> RungResult:
        runpod = self.sdk()
        script = self.ctx.workload.script_at(rung.width, visible_devices=True)
        env = {**self.ctx.workload.env_at(rung.width, visible_devices=True),
               "WL_LAUNCH_B64": base64.b64encode(script.encode()).decode()}
        try:
            pod = runpod.create_pod(
                name=pod_name(self.dispatch_id), image_name=IMAGE,
                gpu_type_id=rung.gpu_type, cloud_type=self.config.runpod_cloud_type,
                gpu_count=rung.width, env=env, support_public_ip=False, start_ssh=False,
                docker_args="bash -c 'echo $WL_LAUNCH_B64 | base64 -d | bash'")
        except runpod.error.AuthenticationError:
            return RungResult("error", detail="RunPod rejected the API key")
        except runpod.error.QueryError as exc:
            message = str(exc)
            if NO_CAPACITY in message:
                return RungResult("capacity-miss", detail=redact.clip(message, 200))
            return RungResult("error", detail=f"RunPod: {redact.clip(message, 200)}")
        except ValueError as exc:  # an unknown GPU type, from the SDK's own check
            return RungResult("error", detail=f"RunPod: {redact.clip(exc, 200)}")
        except (KeyError, TypeError) as exc:
            return RungResult("error", detail="RunPod returned an unexpected response "
                                              f"({redact.clip(repr(exc), 200)})")
        except Exception as exc:
            if "JSONDecodeError" in type(exc).__name__ or "json" in type(exc).__module__:
                return RungResult("error", detail="RunPod returned a response that is not JSON")
            found = self._landed_anyway()
            if found is not None:
                return self._launched(found, rung)
            return RungResult("unavailable", detail=f"RunPod unreachable: {type(exc).__name__}")
        if not isinstance(pod, dict) or not pod.get("id"):
            return RungResult("error", detail="RunPod returned no pod id")
        return self._launched(self._machine(pod, rung.width, rung.gpu_type), rung)

    def _launched(self, machine: Machine, rung: Rung) -> RungResult:
        self.ctx.record(machine, "created")
        return RungResult("launched", handle=dict(machine.handle), machine=machine)

    def _landed_anyway(self) -> Machine | None:
        """A create that got no answer may still have made the pod."""
        try:
            found = self.find(self.dispatch_id)
        except DispatchError:
            return None
        return found[0] if found else None
