"""RunPod through the runpod SDK: the last rung, real dollars.

`import runpod` costs about 2.4 s cold, so it happens only when the walk
reaches a RunPod rung. The key comes from RUNPOD_API_KEY and never appears in
events or messages. The SDK interpolates strings into GraphQL unescaped, so the
launch script travels base64-encoded in the pod's environment.
"""

from __future__ import annotations

import base64
import os

from router.backends.base import DispatchError, RungResult, Workload
from router.config import LadderConfig
from router.events import EventLog
from router.planner import Rung

NO_CAPACITY = "no longer any instances available"
IMAGE = "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"


def pod_name(dispatch_id: str) -> str:
    return f"wl-{dispatch_id}"


class RunpodBackend:
    def __init__(self, config: LadderConfig, events: EventLog, workload: Workload,
                 endpoint: str | None) -> None:
        self.config = config
        self.events = events
        self.workload = workload
        self.endpoint = endpoint
        self._sdk = None

    def sdk(self):
        if self._sdk is None:
            if self.endpoint:
                os.environ["RUNPOD_API_BASE_URL"] = self.endpoint.rstrip("/")
            key = os.environ.get("RUNPOD_API_KEY")
            if not key:
                raise DispatchError("RunPod: RUNPOD_API_KEY is not set")
            import runpod

            runpod.api_key = key
            self._sdk = runpod
        return self._sdk

    def existing_pod(self) -> str | None:
        if not os.environ.get("RUNPOD_API_KEY"):
            return None
        try:
            pods = self.sdk().get_pods()
        except Exception:
            return None
        for pod in pods or []:
            if pod.get("name") == pod_name(self.workload.dispatch_id):
                return str(pod.get("id"))
        return None

    def terminate(self, pod_id: str) -> None:
        self.sdk().terminate_pod(pod_id)

    def try_rung(self, rung: Rung) -> RungResult:
        result = self._try(rung)
        fields = {"detail": result.detail[:300]} if result.detail else {}
        self.events.emit("epm:backend-attempt", backend="runpod", gpu_type=rung.gpu_type,
                         width=rung.width, outcome=result.outcome, **fields)
        if result.outcome == "error":
            raise DispatchError(f"RunPod {rung.gpu_type}: {result.detail}")
        return result

    def _try(self, rung: Rung) -> RungResult:
        runpod = self.sdk()
        script = self.workload.script_at(rung.width, visible_devices=True)
        env = {**self.workload.env_at(rung.width, visible_devices=True),
               "WL_LAUNCH_B64": base64.b64encode(script.encode()).decode()}
        try:
            pod = runpod.create_pod(
                name=pod_name(self.workload.dispatch_id), image_name=IMAGE,
                gpu_type_id=rung.gpu_type, cloud_type=self.config.runpod_cloud_type,
                gpu_count=rung.width, env=env, support_public_ip=False, start_ssh=False,
                docker_args="bash -c 'echo $WL_LAUNCH_B64 | base64 -d | bash'")
        except runpod.error.AuthenticationError:
            return RungResult("error", detail="RunPod rejected the API key")
        except runpod.error.QueryError as exc:
            message = str(exc)
            if NO_CAPACITY in message:
                return RungResult("capacity-miss", detail=message[:200])
            return RungResult("error", detail=f"RunPod: {message[:200]}")
        except ValueError as exc:  # an unknown GPU type, from the SDK's own check
            return RungResult("error", detail=f"RunPod: {exc}")
        except (KeyError, TypeError) as exc:
            return RungResult("error", detail=f"RunPod returned an unexpected response ({exc!r})")
        except Exception as exc:
            if "JSONDecodeError" in type(exc).__name__ or "json" in type(exc).__module__:
                return RungResult("error", detail="RunPod returned a response that is not JSON")
            return RungResult("unavailable", detail=f"RunPod unreachable: {type(exc).__name__}")
        if not isinstance(pod, dict) or not pod.get("id"):
            return RungResult("error", detail="RunPod returned no pod id")
        return RungResult("launched", handle={"pod_id": pod["id"]})
