"""SLURM through the real `sbatch`, `squeue`, `scontrol` and `scancel`, called
with argument lists (never a shell). `sbatch --test-only` estimates the start;
a start later than the lane's maximum wait is a capacity miss, and a
controller that cannot be reached (or no sbatch at all) is `unavailable`.

Job output goes where --slurm-output says, or to the per-user state directory;
never into whatever directory dispatch happened to run in."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from router import redact
from router.backends.base import AnswersAtOnce, Check, Context, DispatchError, Machine, RungResult
from router.config import SlurmLane
from router.planner import Rung

UNREACHABLE = ("Unable to contact slurm controller", "Connection refused",
               "Socket timed out", "Zero Bytes were transmitted", "slurm_load_partitions",
               "Unable to establish connection", "Communication connection failure",
               "Munge", "munge")
NEVER_FITS = ("Requested node configuration is not available",
              "Requested partition configuration not available now")
INVALID = ("invalid partition", "Invalid account", "Invalid generic resource", "Invalid qos",
           "Invalid account or account/partition combination")
TIMEOUT_S = 30
# scontrol's JobState, read back as dispatch's states.
STARTING = {"PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESIZING"}
RUNNING = {"RUNNING", "COMPLETING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "STOPPED"}


def job_name(dispatch_id: str) -> str:
    return f"wl-{dispatch_id}"


def default_output_dir() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(state) / "backend-router" / "slurm"


class SlurmBackend(AnswersAtOnce):
    name = "slurm"

    def __init__(self, ctx: Context, output_dir: str | None = None) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.output_dir = output_dir

    @property
    def dispatch_id(self) -> str:
        return self.ctx.workload.dispatch_id

    def _run(self, argv: list[str], stdin: str | None = None,
             timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, input=stdin, capture_output=True, text=True,
                              timeout=timeout, check=False)

    def _args(self, lane: SlurmLane, width: int) -> list[str]:
        args = [f"--partition={lane.partition}", f"--gres=gpu:{lane.gres_type}:{width}",
                f"--job-name={job_name(self.dispatch_id)}"]
        if lane.account:
            args.append(f"--account={lane.account}")
        return args

    # ---- check -------------------------------------------------------------------------

    def check(self, regions: list[str] | None = None) -> Check:
        if shutil.which("sbatch") is None:
            return Check("slurm", False, "no sbatch on PATH", {"sbatch": "not on PATH"})
        if shutil.which("scontrol") is None:
            return Check("slurm", False, "no scontrol on PATH", {"scontrol": "not on PATH"})
        try:
            ping = self._run(["scontrol", "ping"], timeout=10)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Check("slurm", False, f"scontrol ping: {exc}", {"controller": "no answer"})
        text = " ".join((ping.stdout + ping.stderr).split())
        if ping.returncode != 0 or "UP" not in ping.stdout:
            return Check("slurm", False, f"controller: {redact.clip(text, 200)}",
                         {"sbatch": "ok", "controller": "down"})
        return Check("slurm", True, "sbatch found, controller up",
                     {"sbatch": "ok", "controller": "up"})

    # ---- machines ----------------------------------------------------------------------

    def _machine(self, job_id: str, name: str, width: int | None = None,
                 lane: str | None = None, created: float | None = None) -> Machine:
        return Machine("slurm", f"job/{job_id}", {"job_id": job_id}, width,
                       {"lane": lane} if lane else {}, created,
                       name.removeprefix("wl-") if name.startswith("wl-") else None)

    def find(self, dispatch_id: str | None = None) -> list[Machine]:
        """Jobs still known to the controller that a dispatch submitted."""
        if shutil.which("squeue") is None:
            return []
        argv = ["squeue", "-h", "-o", "%i|%j|%V"]
        if dispatch_id:
            argv += ["-n", job_name(dispatch_id)]
        try:
            result = self._run(argv)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DispatchError(f"squeue: {exc}") from None
        if result.returncode != 0:
            raise DispatchError(f"squeue: {redact.clip(result.stderr, 200)}")
        found = []
        for line in result.stdout.splitlines():
            job_id, _, rest = line.partition("|")
            name, _, submitted = rest.partition("|")
            if job_id.strip() and name.startswith("wl-"):
                found.append(self._machine(job_id.strip(), name, created=_epoch(submitted)))
        return found

    def state(self, machine: Machine) -> tuple[str, dict[str, Any]]:
        job_id = str(machine.handle.get("job_id"))
        try:
            out = self._run(["scontrol", "show", "job", "-o", job_id])
        except (OSError, subprocess.TimeoutExpired):
            return "unknown", {}
        if out.returncode != 0:
            return ("gone", {}) if "Invalid job id" in out.stderr else ("unknown", {})
        state = re.search(r"\bJobState=(\S+)", out.stdout)
        code = re.search(r"\bExitCode=(\d+):(\d+)", out.stdout)
        job_state = state.group(1) if state else "UNKNOWN"
        details: dict[str, Any] = {"job_state": job_state}
        if job_state in STARTING:
            return "starting", details
        if job_state in RUNNING:
            return "running", details
        if code:
            details["exit_code"] = int(code.group(1))
            if int(code.group(2)):
                details["signal"] = int(code.group(2))
        if job_state == "COMPLETED":
            return "completed", details
        if job_state == "PREEMPTED":
            return "preempted", details
        return "failed", details

    def release(self, machine: Machine) -> None:
        job_id = str(machine.handle.get("job_id"))
        try:
            self._run(["scancel", job_id])
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DispatchError(f"scancel {job_id}: {exc}; run `backend-router sweep "
                                f"--dispatch-id {machine.dispatch_id}`") from None
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            state, _ = self.state(machine)
            if state not in ("starting", "running", "unknown"):
                self.ctx.record(machine, "released")
                self.ctx.events.emit("epm:backend-released", backend="slurm", job_id=job_id,
                                     confirmed=True)
                return
            time.sleep(0.2)
        raise DispatchError(f"SLURM job {job_id} still alive after scancel")

    # ---- a rung ------------------------------------------------------------------------

    def try_rung(self, rung: Rung) -> RungResult:
        lane = self.config.slurm_lanes[rung.lane or ""]
        result = self._try(lane, rung.width)
        fields = {"detail": redact.clip(result.detail)} if result.detail else {}
        self.ctx.events.emit("epm:backend-attempt", backend="slurm", lane=lane.name,
                             partition=lane.partition, width=rung.width,
                             outcome=result.outcome, **fields)
        if result.outcome == "error":
            raise DispatchError(f"SLURM lane {lane.name}: {result.detail}")
        return result

    def _launched(self, job_id: str, lane: SlurmLane, width: int) -> RungResult:
        machine = self._machine(job_id, job_name(self.dispatch_id), width, lane.name,
                                time.time())
        self.ctx.record(machine, "created")
        return RungResult("launched", handle={"job_id": job_id, "lane": lane.name,
                                              "partition": lane.partition}, machine=machine)

    def _try(self, lane: SlurmLane, width: int) -> RungResult:
        if shutil.which("sbatch") is None:
            return RungResult("unavailable", detail="no sbatch on PATH")
        script = self.ctx.workload.script_at(width)
        try:
            test = self._run(["sbatch", "--test-only", *self._args(lane, width)], script)
        except subprocess.TimeoutExpired:
            return RungResult("unavailable", detail="sbatch --test-only timed out")
        except OSError as exc:
            return RungResult("unavailable", detail=f"sbatch: {exc}")
        text = test.stderr + test.stdout
        if test.returncode != 0:
            return self._failure(text)
        start = re.search(r"to start at (\S+)", text)
        if start:
            try:
                when = dt.datetime.fromisoformat(start.group(1))
            except ValueError:
                when = None
            if when is not None:
                wait = (when - dt.datetime.now()).total_seconds() / 60
                if wait > lane.max_wait_minutes:
                    return RungResult("capacity-miss",
                                      detail=f"estimated start in {wait:.0f} min > "
                                             f"{lane.max_wait_minutes:g} min wait limit")
        output = Path(self.output_dir) if self.output_dir else default_output_dir()
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DispatchError(f"SLURM output directory {output}: {exc.strerror}") from None
        args = ["sbatch", "--parsable", *self._args(lane, width), f"--output={output}/%x-%j.out"]
        try:
            submit = self._run(args, script)
        except subprocess.TimeoutExpired:
            found = self.find(self.dispatch_id)  # accepted before the timeout?
            if found:
                return self._launched(str(found[0].handle["job_id"]), lane, width)
            return RungResult("unavailable", detail="sbatch timed out")
        if submit.returncode != 0:
            return self._failure(submit.stderr + submit.stdout)
        return self._launched(submit.stdout.strip().split(";")[0], lane, width)

    @staticmethod
    def _failure(text: str) -> RungResult:
        detail = redact.clip(text)
        if any(s in text for s in UNREACHABLE):
            return RungResult("unavailable", detail=detail)
        if any(s in text for s in NEVER_FITS):
            return RungResult("capacity-miss", detail=detail)
        if any(s.lower() in text.lower() for s in INVALID):
            return RungResult("error", detail=detail)
        return RungResult("unavailable", detail=detail)


def _epoch(stamp: str) -> float | None:
    try:
        return dt.datetime.fromisoformat(stamp.strip()).timestamp()
    except ValueError:
        return None
