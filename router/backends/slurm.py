"""SLURM through the real `sbatch`, `squeue` and `scontrol`, called with
argument lists (never a shell). `sbatch --test-only` estimates the start; a
start later than the lane's maximum wait is a capacity miss, and a controller
that cannot be reached (or no sbatch at all) is `unavailable`."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess

from router.backends.base import DispatchError, RungResult, Workload
from router.config import LadderConfig, SlurmLane
from router.events import EventLog
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


def job_name(dispatch_id: str) -> str:
    return f"wl-{dispatch_id}"


class SlurmBackend:
    def __init__(self, config: LadderConfig, events: EventLog, workload: Workload,
                 output_dir: str | None = None) -> None:
        self.config = config
        self.events = events
        self.workload = workload
        self.output_dir = output_dir

    def _run(self, argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, input=stdin, capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)

    def _args(self, lane: SlurmLane, width: int) -> list[str]:
        args = [f"--partition={lane.partition}", f"--gres=gpu:{lane.gres_type}:{width}",
                f"--job-name={job_name(self.workload.dispatch_id)}"]
        if lane.account:
            args.append(f"--account={lane.account}")
        return args

    def existing_job(self) -> str | None:
        """A job an earlier run of this dispatch id submitted (a rerun after a crash)."""
        if shutil.which("squeue") is None:
            return None
        try:
            result = self._run(["squeue", "-h", "-o", "%i", "-n",
                                job_name(self.workload.dispatch_id)])
        except (OSError, subprocess.TimeoutExpired):
            return None
        ids = result.stdout.split() if result.returncode == 0 else []
        return ids[0] if ids else None

    def cancel(self, job_id: str) -> None:
        if shutil.which("scancel"):
            self._run(["scancel", job_id])

    def try_rung(self, rung: Rung) -> RungResult:
        lane = self.config.slurm_lanes[rung.lane or ""]
        result = self._try(lane, rung.width)
        fields = {"detail": result.detail[:300]} if result.detail else {}
        self.events.emit("epm:backend-attempt", backend="slurm", lane=lane.name,
                         partition=lane.partition, width=rung.width, outcome=result.outcome,
                         **fields)
        if result.outcome == "error":
            raise DispatchError(f"SLURM lane {lane.name}: {result.detail}")
        return result

    def _try(self, lane: SlurmLane, width: int) -> RungResult:
        if shutil.which("sbatch") is None:
            return RungResult("unavailable", detail="no sbatch on PATH")
        script = self.workload.script_at(width)
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
        args = ["sbatch", "--parsable", *self._args(lane, width)]
        if self.output_dir:
            args.append(f"--output={self.output_dir}/%x-%j.out")
        try:
            submit = self._run(args, script)
        except subprocess.TimeoutExpired:
            job = self.existing_job()  # it may have been accepted before the timeout
            if job:
                return RungResult("launched", handle={"job_id": job, "lane": lane.name})
            return RungResult("unavailable", detail="sbatch timed out")
        if submit.returncode != 0:
            return self._failure(submit.stderr + submit.stdout)
        job_id = submit.stdout.strip().split(";")[0]
        return RungResult("launched", handle={"job_id": job_id, "lane": lane.name,
                                              "partition": lane.partition})

    @staticmethod
    def _failure(text: str) -> RungResult:
        detail = " ".join(text.split())[:300]
        if any(s in text for s in UNREACHABLE):
            return RungResult("unavailable", detail=detail)
        if any(s in text for s in NEVER_FITS):
            return RungResult("capacity-miss", detail=detail)
        if any(s.lower() in text.lower() for s in INVALID):
            return RungResult("error", detail=detail)
        return RungResult("unavailable", detail=detail)
