"""`dispatch --follow`: after the launch, watch the workload until it ends and
report how (`epm:workload-ended`). A failed or preempted workload is reported,
never relaunched elsewhere: a failure after launch is the workload's, not a
capacity miss, and cascading it would run the work twice."""

from __future__ import annotations

import re
import subprocess
import time
from typing import Any

SLURM_RUNNING = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING",
                 "SUSPENDED", "STAGE_OUT", "SIGNALING"}


def slurm_state(job_id: str) -> tuple[str, dict[str, Any]] | None:
    """(state, details) once the job has ended, None while it runs."""
    try:
        out = subprocess.run(["scontrol", "show", "job", "-o", job_id], capture_output=True,
                             text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None  # cannot look right now: look again later
    if out.returncode != 0:
        if "Invalid job id" in out.stderr:
            return "gone", {}
        return None
    state = re.search(r"\bJobState=(\S+)", out.stdout)
    code = re.search(r"\bExitCode=(\d+):(\d+)", out.stdout)
    job_state = state.group(1) if state else "UNKNOWN"
    if job_state in SLURM_RUNNING:
        return None
    details: dict[str, Any] = {"job_state": job_state}
    if code:
        details["exit_code"] = int(code.group(1))
        if int(code.group(2)):
            details["signal"] = int(code.group(2))
    if job_state == "COMPLETED":
        return "succeeded", details
    if job_state == "PREEMPTED":
        return "preempted", details
    return "failed", details


def gcp_state(gcp: Any, zone: str, name: str, provisioning: str | None) -> tuple[str, dict] | None:
    inst = gcp.get_instance(zone, name)
    if inst is None:
        # A SPOT or FLEX_START VM is deleted when reclaimed (termination action DELETE).
        return ("preempted" if provisioning in ("SPOT", "FLEX_START") else "deleted"), {}
    status = getattr(inst.status, "name", None) or str(inst.status)
    if status in ("TERMINATED", "STOPPED", "SUSPENDED"):
        return "stopped", {"status": status}
    return None


def runpod_state(runpod: Any, pod_id: str) -> tuple[str, dict] | None:
    try:
        pod = runpod.sdk().get_pod(pod_id)
    except Exception:
        return None
    if not pod:
        return "terminated", {}
    status = pod.get("desiredStatus")
    if status in ("EXITED", "TERMINATED"):
        return ("succeeded" if status == "EXITED" else "terminated"), {"status": status}
    return None


def follow(dispatcher: Any, interval: float, timeout: float | None = None) -> dict[str, Any]:
    kept = dispatcher.kept or {}
    backend = kept.get("backend")
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        if backend == "gcp":
            ended = gcp_state(dispatcher.gcp(), kept.get("zone", ""), kept.get("instance", ""),
                              kept.get("provisioning"))
        elif backend == "slurm":
            ended = slurm_state(str(kept.get("job_id")))
        elif backend == "runpod":
            ended = runpod_state(dispatcher.runpod(), str(kept.get("pod_id")))
        else:
            ended = ("unknown", {})
        if ended is not None:
            state, details = ended
            return dispatcher.events.emit("epm:workload-ended", backend=backend, state=state,
                                          cascaded=False, **details)
        if deadline is not None and time.monotonic() > deadline:
            return dispatcher.events.emit("epm:workload-ended", backend=backend,
                                          state="still-running", cascaded=False)
        time.sleep(interval)
