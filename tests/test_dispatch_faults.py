"""Dispatch under injected faults, crashes, signals, preemption and contention:
randomized scenarios against the emulator, through the real client libraries
and the real command line (`router.cli.main`), each replayable from its seed.

Scenario i draws, from `random.Random(i + 1_000_003 * WL_FAULT_SEED)`, the
capacity, quotas, faults (5xx, 429, stalls, silent operation errors, inserts
that time out but still create the VM), the request and a fault plan:

- none: one dispatch;
- sigkill / sigint / sigterm: the signal goes to the dispatcher right after it
  printed its K-th event (an event count, never a wall-clock delay), then a
  rerun with the same dispatch id;
- preempt: after a dispatch that selected, its machine is reclaimed
  (/_emulator/preempt), then a rerun;
- late: every insert is answered later than the client's whole retry budget
  but earlier than operation_timeout_seconds, so machines land after the
  client gave up on them;
- concurrent / concurrent-wait: a second dispatcher on the same id while the
  first is live, without and with --wait-lease.

Each dispatcher is a fork of this process (the SDKs are imported once, before
forking) running `router.cli.main(argv)` with its stdout on a pipe; the parent
reads the events as they come, which is how a kill lands on an event count.
Every scenario ends with a settle, a look at the emulator, `router sweep`, and
another look. The guarantees checked are in `check_run` and `finish`.

Environment: WL_FAULT_SCENARIOS (default 100), WL_FAULT_SEED (default 0),
WL_FAULT_ONLY=i[,j...] (replay those scenarios only), WL_FAULT_WORKERS (default
2: scenarios run on that many emulators at once)."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import queue
import random
import signal
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from router import config
from router.planner import Request, plan
from tests.dispatch_support import SMALL_LADDER, EmulatorProcess

BASE_SEED = int(os.environ.get("WL_FAULT_SEED", "0"))
SCENARIOS = int(os.environ.get("WL_FAULT_SCENARIOS", "100"))
ONLY = [int(x) for x in os.environ.get("WL_FAULT_ONLY", "").replace(",", " ").split()]
WORKERS = max(1, int(os.environ.get("WL_FAULT_WORKERS", "2")))
PER_CHUNK = 10

REQUEST_TIMEOUT = 0.3
OPERATION_TIMEOUT = 2.0
# Late scenarios need an answer later than the client's whole retry budget for one
# insert (about 5 s at a 0.3 s request timeout, with backoff) yet within
# operation_timeout_seconds; their ladder alone gets the longer window.
LATE_OPERATION_TIMEOUT = 8.0
RUN_DEADLINE = 120.0  # a dispatcher still running after this is reported as hung
SIGNAL_GRACE = 0.25  # after SIGINT/SIGTERM, no new rung and no exit-0/1 selection past this



def ladder_text(operation_timeout: float) -> str:
    text = (SMALL_LADDER.read_text()
            .replace("request_timeout_seconds: 2\n",
                     f"request_timeout_seconds: {REQUEST_TIMEOUT}\n")
            .replace("operation_timeout_seconds: 20\n",
                     f"operation_timeout_seconds: {operation_timeout}\n"))
    assert f"request_timeout_seconds: {REQUEST_TIMEOUT}\n" in text, "fixture changed"
    assert f"operation_timeout_seconds: {operation_timeout}\n" in text, "fixture changed"
    return text


CFG = config.parse(ladder_text(OPERATION_TIMEOUT), "fault-ladder.yaml")
REGIONS = sorted({z.rsplit("-", 1)[0] for fam in CFG.families.values() for z in fam.zones})
METRICS = sorted({m for fam in CFG.families.values() for m in fam.quota.values()})
RUNPOD_GPU = "NVIDIA A100 80GB PCIe"

PLANS = (("none", 16), ("sigkill", 16), ("sigint", 13), ("sigterm", 13), ("preempt", 16),
         ("concurrent", 10), ("concurrent-wait", 10), ("late", 4))
KILLS = {"sigkill": signal.SIGKILL, "sigint": signal.SIGINT, "sigterm": signal.SIGTERM}
CANCEL_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
ACTING = ("epm:backend-attempt", "epm:backend-selected", "epm:backend-released")
TERMINAL = ("epm:backend-selected", "epm:backend-exhausted")

FORK_LOCK = threading.Lock()  # a pipe's write end must reach exactly one child


def replay_command(index: int) -> str:
    return (f"WL_FAULT_SEED={BASE_SEED} WL_FAULT_ONLY={index} "
            "python -m pytest tests/test_dispatch_faults.py -q")


# ---- drawing a scenario ------------------------------------------------------------------


@dataclass
class Spec:
    index: int
    seed: int
    plan: str
    kill_at: int  # the event count after which the signal goes (kill plans)
    request: Request
    capacity: dict
    faults: dict

    @property
    def latency(self) -> float:
        return self.faults["latency_ms"] / 1000

    def describe(self) -> str:
        kill = f"@event {self.kill_at}" if self.plan in KILLS else ""
        return (f"plan {self.plan}{kill}, request {self.request.intent} "
                f"x{self.request.width} {self.request.hours}h")


def draw(index: int) -> Spec:
    seed = index + 1_000_003 * BASE_SEED
    rng = random.Random(seed)
    names, weights = zip(*PLANS, strict=True)
    kind = rng.choices(names, weights)[0]
    kill_at = rng.randint(1, 12)
    width = rng.choice([1, 2, 4, 8])
    hours = rng.choice([0.5, 2.0, 6.0, 30.0])
    zones: dict = {}
    for family in CFG.families.values():
        for zone in family.zones:
            for w in (1, 2, 4, 8):
                for model in family.provisioning:
                    if rng.random() < 0.12:
                        zones.setdefault(zone, {}).setdefault(
                            family.machine_type(w), {})[model] = rng.choice([1, 1, 2])
    quotas = {r: {m: rng.choice([0, 2, 4, 8, 64, 64]) for m in METRICS} for r in REGIONS}
    runpod = {RUNPOD_GPU: rng.choice([0, 1, 8])}

    def rate() -> float:
        return rng.choice([0.0, 0.0, 0.1, 0.25])

    faults = {"seed": rng.randrange(10**6), "latency_ms": rng.choice([0, 5, 20]),
              "error_5xx_rate": rate(), "rate_limit_rate": rate(), "timeout_rate": rate() / 2,
              "silent_operation_error_rate": rate(),
              "insert_timeout_creates_rate": rate() / 2,
              "reclaim_after_insert_rate": rate() / 2,
              "async_capacity_errors": rng.random() < 0.5, "timeout_s": 0.6}
    if kind.startswith("concurrent"):
        # A slower first dispatcher, so the second one meets it alive.
        faults["latency_ms"] = rng.choice([40, 80, 120])
    if kind == "late":
        # One rung reaches an insert (x1 for 200 h leaves no FLEX_START rung, and
        # only one region's preemptible A100 quota is open), and each insert is
        # answered after the client's retry budget is spent but before
        # operation_timeout_seconds: the machine lands after the client gave up.
        width, hours = 1, 200.0
        region = rng.choice(sorted({z.rsplit("-", 1)[0]
                                    for z in CFG.families["a100-80gb"].zones}))
        quotas = {r: dict.fromkeys(METRICS, 0) for r in REGIONS}
        quotas[region]["PREEMPTIBLE_NVIDIA_A100_80GB_GPUS"] = 8
        for zone in CFG.families["a100-80gb"].zones:
            if zone.startswith(region + "-"):
                zones.setdefault(zone, {}).setdefault("a2-ultragpu-1g", {})["SPOT"] = 1
        faults.update(latency_ms=round(rng.uniform(0.75, 0.9) * LATE_OPERATION_TIMEOUT * 1000),
                      timeout_rate=0.0, insert_timeout_creates_rate=0.0,
                      silent_operation_error_rate=0.0, rate_limit_rate=0.0,
                      error_5xx_rate=rng.choice([0.0, 0.1]))
    capacity = {"gce": {"zones": zones, "quotas": quotas}, "runpod": {"gpus": runpod}}
    return Spec(index, seed, kind, kill_at, Request("capture-7b", width, hours), capacity,
                faults)


# ---- the emulator --------------------------------------------------------------------------


def http(url: str, doc: dict | None = None) -> tuple[int, Any]:
    data = None if doc is None else json.dumps(doc).encode()
    req = urllib.request.Request(url, data=data, method="GET" if doc is None else "POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


def live_machines(url: str, dispatch_id: str) -> list[dict]:
    """Every machine of the dispatch id in the emulator, as {kind, name, zone, ...}."""
    status, snap = http(f"{url}/_emulator/instances")
    assert status == 200, f"HARNESS: emulator snapshot failed: {status} {snap}"
    machines = [{"kind": "gcp", "name": i["name"], "zone": i.get("zoneName"),
                 "machine_type": i.get("machineType", ""), "width": i["labels"].get("wl-width"),
                 "status": i.get("status")}
                for i in snap["instances"] if i["labels"].get("wl-dispatch") == dispatch_id]
    machines += [{"kind": "runpod", "name": p["id"], "zone": None, "status": p.get(
                  "desiredStatus")}
                 for p in snap["pods"] if p.get("name") == f"wl-{dispatch_id}"]
    return machines


def key(machine: dict | None) -> tuple[str, str] | None:
    return None if machine is None else (machine["kind"], machine["name"])


def show(machines: list[dict]) -> str:
    return "[" + ", ".join(f"{m['kind']}:{m['name']}" + (f"@{m['zone']}" if m["zone"] else "")
                           for m in machines) + "]"


# ---- one dispatcher, forked -----------------------------------------------------------------


def _child(argv: list[str], wfd: int, err_path: Path, env: dict[str, str]) -> None:
    """In the forked child: stdout to the pipe, stderr to a file, then main()."""
    code = 3
    try:
        os.dup2(wfd, 1)
        os.close(wfd)
        err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(err, 2)
        os.close(err)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                      line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                      line_buffering=True)
        os.environ.update(env)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from router.cli import main

        code = main(argv)
        if not isinstance(code, int):
            print(f"harness: main() returned {code!r}, not an int", file=sys.stderr)
            code = 3
    except SystemExit as exc:  # what `sys.exit(main())` would have done
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except BaseException:
        traceback.print_exc()
        code = 3
    finally:
        # Never return into pytest in the child, whatever arrives now.
        with contextlib.suppress(BaseException):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code & 0xFF)


@dataclass
class Run:
    label: str
    argv: list[str]
    kill: tuple[signal.Signals, int] | None = None  # (signal, after this many events)
    wait_lease: bool = False
    pid: int = 0
    started: float = 0.0
    reaped: float = 0.0
    reaped_wall: float = 0.0
    code: int | None = None
    events: list[dict] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)  # stdout lines that are not JSON events
    stderr: str = ""
    kill_sent: bool = False
    kill_time: float = 0.0  # wall clock (the events' `ts` clock) when the signal went
    kill_index: int = 0  # how many events had been read when it went
    live: list[dict] = field(default_factory=list)  # the emulator just after it was reaped
    hung: bool = False
    first_act: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    error: str = ""

    def start(self, url: str, dispatch_id: str, env: dict[str, str], tmp: Path) -> Run:
        err_path = tmp / f"{self.label}.stderr"
        with FORK_LOCK:
            rfd, wfd = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(rfd)
                _child(self.argv, wfd, err_path, env)
            os.close(wfd)
        self.pid, self.started = pid, time.monotonic()
        threading.Thread(target=self._pump, args=(rfd, url, dispatch_id, err_path),
                         daemon=True).start()
        return self

    def _pump(self, rfd: int, url: str, dispatch_id: str, err_path: Path) -> None:
        try:
            with os.fdopen(rfd, "rb") as pipe:
                for raw in pipe:
                    line = raw.decode("utf-8", "replace").rstrip("\n")
                    try:
                        doc = json.loads(line)
                    except ValueError:
                        doc = None
                    if not (isinstance(doc, dict) and "event" in doc):
                        if line.strip():
                            self.junk.append(line[:200])
                        continue
                    self.events.append(doc)
                    if doc["event"] in ACTING:
                        self.first_act.set()
                    if self.kill and not self.kill_sent and len(self.events) >= self.kill[1]:
                        self.kill_time, self.kill_index = time.time(), len(self.events)
                        os.kill(self.pid, self.kill[0])  # not reaped yet: the pid is ours
                        self.kill_sent = True
        except Exception:
            self.error = traceback.format_exc()
        finally:
            _, status = os.waitpid(self.pid, 0)
            self.reaped = time.monotonic()
            self.reaped_wall = time.time()
            self.code = os.waitstatus_to_exitcode(status)
            try:
                self.live = live_machines(url, dispatch_id)
            except Exception:
                self.error += traceback.format_exc()
            with contextlib.suppress(OSError):
                self.stderr = err_path.read_text(errors="replace")
            self.first_act.set()
            self.done.set()

    def wait(self) -> Run:
        if not self.done.wait(RUN_DEADLINE):
            self.hung = True
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.done.wait(30)
        if self.error:
            raise AssertionError(f"HARNESS error reading run {self.label}:\n{self.error}")
        return self

    # ---- what it said ----

    def named(self, event: str) -> list[dict]:
        return [e for e in self.events if e.get("event") == event]

    @property
    def selected(self) -> dict | None:
        sel = self.named("epm:backend-selected")
        return sel[-1] if sel else None

    @property
    def selection(self) -> tuple[str, str] | None:
        sel = self.selected
        if sel is None:
            return None
        if sel.get("backend") == "runpod":
            return ("runpod", str(sel.get("pod_id")))
        if sel.get("backend") == "gcp":
            return ("gcp", str(sel.get("instance")))
        return (str(sel.get("backend")), str(sel.get("job_id")))

    def summary(self) -> str:
        kill = ""
        if self.kill:
            sent = "sent" if self.kill_sent else "not sent (it ended first)"
            kill = f", {self.kill[0].name} after event {self.kill[1]} {sent}"
        counts: dict[str, int] = {}
        for e in self.events:
            name = e["event"].removeprefix("epm:backend-")
            if name == "attempt":
                name = f"{e.get('backend')}:{e.get('outcome')}"
            counts[name] = counts.get(name, 0) + 1
        tail = ", ".join(f"{k}×{v}" for k, v in counts.items())
        sel = f", selected {self.selection}" if self.selection else ""
        return (f"{self.label}: exit {self.code}{kill}{sel}; events: {tail or 'none'}; "
                f"live after: {show(self.live)}")


# ---- one scenario -----------------------------------------------------------------------------


class Scenario:
    def __init__(self, spec: Spec, url: str, tmp: Path) -> None:
        self.spec = spec
        self.url = url
        self.tmp = tmp
        self.id = f"f{spec.index}"
        self.runs: list[Run] = []
        self.problems: list[str] = []
        self.selection: tuple[str, str] | None = None  # what the ledger should be keeping
        self.env = {"XDG_STATE_HOME": str(tmp / "state"), "PATH": str(tmp / "empty-path"),
                    "RUNPOD_API_KEY": "rpa_FAULTTEST0000000000", "NO_PROXY": "127.0.0.1",
                    "no_proxy": "127.0.0.1"}
        (tmp / "empty-path").mkdir(parents=True, exist_ok=True)
        self.ladder = tmp / "fault-ladder.yaml"
        self.ladder.write_text(ladder_text(
            LATE_OPERATION_TIMEOUT if spec.plan == "late" else OPERATION_TIMEOUT))

    def fail(self, run: Run | None, message: str) -> None:
        self.problems.append(f"[{run.label if run else 'scenario'}] {message}")

    def argv(self, wait_lease: bool = False) -> list[str]:
        req = self.spec.request
        argv = ["dispatch", "--ladder", str(self.ladder), "--gcp-project", "proj",
                "--gcp-endpoint", self.url, "--runpod-endpoint", self.url,
                "--intent", req.intent, "--gpu-count", str(req.width), "--hours", str(req.hours),
                "--dispatch-id", self.id, "--skip-backend", "slurm"]
        if wait_lease:
            argv.append("--wait-lease")
        return [*argv, "--", "python", "train.py", "--shards", "{width}"]

    def start(self, label: str, kill: tuple[signal.Signals, int] | None = None,
              wait_lease: bool = False) -> Run:
        run = Run(label, self.argv(wait_lease), kill=kill, wait_lease=wait_lease)
        self.runs.append(run)
        return run.start(self.url, self.id, self.env, self.tmp)

    def live(self) -> list[dict]:
        return live_machines(self.url, self.id)

    # ---- the plans ----

    def play(self) -> None:
        spec = self.spec
        status, body = http(f"{self.url}/_emulator/reset",
                            {"capacity": spec.capacity, "faults": spec.faults})
        assert status == 200, f"HARNESS: emulator reset failed: {status} {body}"
        if spec.plan in ("concurrent", "concurrent-wait"):
            self.play_concurrent(wait_lease=spec.plan == "concurrent-wait")
        else:
            kill = (KILLS[spec.plan], spec.kill_at) if spec.plan in KILLS else None
            first = self.start("first", kill=kill).wait()
            self.check_run(first)
            if spec.plan == "preempt" and first.code == 0 and first.selection:
                status, body = http(f"{self.url}/_emulator/preempt",
                                    {"name": first.selection[1]})
                if status != 200:
                    self.fail(first, f"its selection {first.selection} could not be preempted "
                                     f"(not live?): {status} {body}")
                self.selection = None
            if spec.plan in KILLS or spec.plan == "preempt":
                before = self.live()
                rerun = self.start("rerun").wait()
                self.check_run(rerun, adopt_from=first, live_before=before)
        self.finish()

    def play_concurrent(self, wait_lease: bool) -> None:
        first = self.start("A")
        first.first_act.wait(RUN_DEADLINE)  # it acts: it holds the lease
        second = self.start("B-wait" if wait_lease else "B", wait_lease=wait_lease)
        first.wait()
        second.wait()
        for run in sorted((first, second), key=lambda r: r.reaped):
            if run is first:
                self.check_run(first)
            else:
                self.check_run(second, adopt_from=first if first.reaped < second.reaped
                               else None, rival=first)
        picks = {r.selection for r in (first, second) if r.selection}
        if len(picks) > 1:
            self.fail(None, f"two dispatchers on one id both selected, different machines: "
                            f"{sorted(picks)}")
        # Mutual exclusion: the second acts (attempts, selects, releases) only once the
        # first has said its last word.
        acting = [e["ts"] for e in second.events if e.get("event") in ACTING and "ts" in e]
        last = max((e["ts"] for e in first.events if "ts" in e), default=None)
        if second.code != 2 and acting and last is not None and min(acting) < last - 0.002:
            self.fail(second, f"acted at ts {min(acting)} while the first dispatcher was still "
                              f"live (its last event at ts {last})")

    # ---- the guarantees ----

    def check_run(self, run: Run, adopt_from: Run | None = None,
                  live_before: list[dict] | None = None, rival: Run | None = None) -> None:
        code = run.code
        if run.hung:
            self.fail(run, f"still running after {RUN_DEADLINE:.0f}s (killed)")
        if "Traceback" in run.stderr:
            self.fail(run, "traceback on stderr:\n    " +
                      run.stderr.strip()[-1500:].replace("\n", "\n    "))
        if run.junk:
            self.fail(run, f"stdout lines that are not JSON events: {run.junk[:3]}")
        if any(e.get("dispatch_id") != self.id for e in run.events):
            self.fail(run, "an event without dispatch_id " + self.id)

        # Exit codes, and what each one means.
        allowed = {0, 1}
        signalled = run.kill[0] if run.kill and run.kill_sent else None
        if signalled is signal.SIGKILL:
            allowed.add(-signal.SIGKILL)
        elif signalled is not None:
            allowed.add(CANCEL_CODES[signalled])
        lease_refused_ok = (rival is not None and not run.wait_lease
                            and rival.reaped > run.started)
        if lease_refused_ok:
            allowed.add(2)
        if code not in allowed:
            why = f" after {signalled.name}" if signalled else ""
            self.fail(run, f"exit {code}{why}; allowed here: {sorted(allowed)}"
                      + self.error_text(run))
        selected = run.named("epm:backend-selected")
        if code == 0:
            if len(selected) != 1:
                self.fail(run, f"exit 0 with {len(selected)} epm:backend-selected events")
            self.check_selected_live(run)
        elif code == 1:
            if selected or not run.named("epm:backend-exhausted"):
                self.fail(run, "exit 1 needs epm:backend-exhausted and no selection")
        elif code in (130, 143) and not run.named("epm:backend-cancelled"):
            self.fail(run, f"exit {code} without epm:backend-cancelled")
        elif code == 2 and lease_refused_ok:
            errors = run.named("epm:backend-error")
            text = json.dumps(errors) + run.stderr
            if not errors:
                self.fail(run, "lease refused (exit 2) without epm:backend-error")
            if str(rival.pid) not in text:
                self.fail(run, f"lease refused but the holder (pid {rival.pid}) is not named: "
                               f"{text[:300]!r}")
            if run.named("epm:backend-attempt") or selected:
                self.fail(run, "refused the lease, yet attempted or selected: two live "
                               "dispatchers on one id")
        if signalled in CANCEL_CODES:
            self.check_stopped(run, signalled)

        # At most its selection survives a dispatch that ended while no other ran.
        refused = code == 2 and lease_refused_ok
        if code != -signal.SIGKILL and not refused and self.alone_at_end(run):
            keep = run.selection
            extra = [m for m in run.live if key(m) != keep]
            if extra:
                self.fail(run, f"ended (exit {code}) leaving machines beyond its selection "
                               f"{keep}: {show(extra)}")

        # A rerun adopts a selection that is still alive: the same machine, no new one.
        if adopt_from is not None and not refused and code is not None and code >= 0:
            earlier = adopt_from.selection
            alive = live_before if live_before is not None else adopt_from.live
            if earlier and any(key(m) == earlier for m in alive):
                if code != 0 or run.selection != earlier:
                    self.fail(run, f"the earlier selection {earlier} was alive, yet this run "
                                   f"ended {code} selecting {run.selection}")
                # Finding its own machine again (same rung, same zone) is not a new one.
                old = adopt_from.selected or {}
                same = (old.get("backend"), old.get("machine_type"), old.get("provisioning"),
                        old.get("zone"))
                launched = [e for e in run.named("epm:backend-attempt")
                            if e.get("outcome") == "launched" and (
                                e.get("backend") == "runpod" or (
                                    e.get("backend"), e.get("machine_type"),
                                    e.get("provisioning"), e.get("zone")) != same)]
                if launched:
                    self.fail(run, f"adopting {earlier} it still launched {len(launched)} "
                                   "other machine(s)")

        self.check_runpod_last(run)
        if not refused:
            if run.selection:
                self.selection = run.selection
            elif code == 1:
                self.selection = None

    def check_stopped(self, run: Run, sig: signal.Signals) -> None:
        """After SIGINT/SIGTERM: no new rung, and no normal ending it reached only later."""
        def rung(e: dict) -> tuple:
            return (e.get("backend"), e.get("machine_type") or e.get("gpu_type"),
                    e.get("provisioning"), e.get("width"))

        def issuing(e: dict) -> bool:  # not a skip decided without asking anyone
            return e.get("event") == "epm:backend-attempt" and (
                e.get("backend") != "gcp" or e.get("zone") is not None)

        late = run.kill_time + SIGNAL_GRACE
        known = {rung(e) for e in run.events[:run.kill_index] if issuing(e)}
        after = [e for e in run.events[run.kill_index:] if issuing(e) and rung(e) not in known]
        # The first rung after the signal may have been in flight when it came.
        fresh = list(dict.fromkeys(rung(e) for e in after))[1:]
        new = sorted({rung(e) for e in after if rung(e) in fresh and e.get("ts", 0) > late},
                     key=str)
        if new:
            self.fail(run, f"kept walking after {sig.name}: new rungs {new[:3]}")
        ended = [e for e in run.events if e.get("event") in TERMINAL]
        if run.code in (0, 1) and ended and ended[-1].get("ts", 0) > late:
            self.fail(run, f"exit {run.code} with {ended[-1]['event']} "
                           f"{ended[-1]['ts'] - run.kill_time:.2f}s after {sig.name} "
                           f"(expected exit {CANCEL_CODES[sig]})")

    def alone_at_end(self, run: Run) -> bool:
        return all(o is run or o.reaped < run.reaped or o.started > run.reaped
                   for o in self.runs)

    def error_text(self, run: Run) -> str:
        errors = run.named("epm:backend-error")
        text = (errors[-1].get("message") if errors else "") or run.stderr.strip()[-300:]
        return f" ({text})" if text else ""

    def check_selected_live(self, run: Run) -> None:
        sel = run.selected
        if sel is None:
            return
        if sel.get("dispatch_id") != self.id:
            self.fail(run, f"selected another dispatch id: {sel}")
        if sel.get("requested_width") != self.spec.request.width:
            self.fail(run, f"requested_width {sel.get('requested_width')} != "
                           f"{self.spec.request.width}")
        if not isinstance(sel.get("width"), int) or sel["width"] > self.spec.request.width:
            self.fail(run, f"selected width {sel.get('width')} for a request of "
                           f"{self.spec.request.width}")
        found = [m for m in run.live if key(m) == run.selection]
        if not found:
            self.fail(run, f"exit 0 but its selection {run.selection} is not live "
                           f"(live: {show(run.live)})")
            return
        machine = found[0]
        if machine["kind"] == "gcp":
            if sel.get("zone") and sel["zone"] != machine["zone"]:
                self.fail(run, f"selected zone {sel['zone']}, the machine is in "
                               f"{machine['zone']}")
            if sel.get("machine_type") and not machine["machine_type"].endswith(
                    "/" + sel["machine_type"]):
                self.fail(run, f"selected {sel['machine_type']}, the machine is "
                               f"{machine['machine_type']}")
            if machine["width"] != str(sel.get("width")):
                self.fail(run, f"selected width {sel.get('width')}, the machine is labelled "
                               f"wl-width={machine['width']}")

    def check_runpod_last(self, run: Run) -> None:
        attempts = run.named("epm:backend-attempt")
        first = next((i for i, e in enumerate(attempts) if e.get("backend") == "runpod"), None)
        if first is None:
            return
        before = attempts[:first]

        def where(e: dict) -> tuple:
            return (e.get("zone"), e.get("machine_type"), e.get("provisioning"), e.get("width"))

        # A launch that was read back as gone (reclaimed before it could be
        # selected) is a miss, reported by a later attempt with `readback`.
        lost = [where(e) for e in before if e.get("readback")]
        for e in before:
            if e.get("backend") == "gcp" and e.get("outcome") == "launched":
                if where(e) in lost:
                    lost.remove(where(e))
                else:
                    self.fail(run, "RunPod attempted after a GCP machine launched in the "
                                   "same run")
                    return
        rungs = {(r.machine_type, r.provisioning) for r in plan(self.spec.request, CFG)
                 if r.backend == "gcp"}
        seen = {(e.get("machine_type"), e.get("provisioning")) for e in before
                if e.get("backend") == "gcp"}
        for other in self.runs:
            if other is not run:
                seen |= {(e.get("machine_type"), e.get("provisioning"))
                         for e in other.named("epm:backend-attempt")
                         if e.get("backend") == "gcp"}
        missing = sorted(rungs - seen, key=str)
        if missing:
            self.fail(run, f"RunPod attempted before these GCP rungs were tried or skipped: "
                           f"{missing}")

    def finish(self) -> None:
        """Let any late insert land, look, sweep, look again."""
        # An insert lands at most `latency` after it was sent, and a zone's
        # attempt event comes after its last send: wait until every send of
        # every run could have landed.
        sends = [max((e.get("ts", 0) for e in r.named("epm:backend-attempt")),
                     default=r.reaped_wall) if r.code in (0, 1) else r.reaped_wall
                 for r in self.runs]
        until = max(sends, default=time.time()) + self.spec.latency + 0.1
        settle = max(0.05, until - time.time())
        time.sleep(settle)
        live = self.live()
        keep = self.selection
        extra = [m for m in live if key(m) != keep]
        if extra:
            self.fail(None, f"{settle:.2f}s after the last dispatch ended, {len(live)} live "
                            f"machines, beyond the selection {keep}: {show(extra)}")
        sweep = Run("sweep", ["sweep", "--dispatch-id", self.id, "--ladder", str(self.ladder),
                              "--gcp-project", "proj", "--gcp-endpoint", self.url,
                              "--runpod-endpoint", self.url])
        self.runs.append(sweep)
        sweep.start(self.url, self.id, self.env, self.tmp).wait()
        if sweep.code != 0 or "Traceback" in sweep.stderr or sweep.hung:
            self.fail(sweep, f"sweep exit {sweep.code}: {sweep.stderr.strip()[-400:]!r}")
        after = self.live()
        leaked = [m for m in after if key(m) != keep]
        if leaked:
            self.fail(sweep, f"leaked after sweep (selection {keep}): {show(leaked)}")
        if keep and any(key(m) == keep for m in live) and not any(key(m) == keep
                                                                  for m in after):
            self.fail(sweep, f"sweep deleted the recorded selection {keep}")

    def report(self) -> str:
        spec = self.spec
        lines = [f"scenario {spec.index} (seed {spec.seed}, {spec.describe()}):"]
        lines += [f"  - {p}" for p in self.problems]
        lines.append(f"  replay: {replay_command(spec.index)}")
        lines.append(f"  faults: {spec.faults}")
        lines += [f"  {r.summary()}" for r in self.runs]
        return "\n".join(lines)


# ---- pytest -----------------------------------------------------------------------------------


def chunks() -> list[list[int]]:
    if ONLY:
        return [[i] for i in ONLY]
    return [list(range(start, min(SCENARIOS, start + PER_CHUNK)))
            for start in range(0, SCENARIOS, PER_CHUNK)]


def chunk_id(indices: list[int]) -> str:
    return f"s{indices[0]}" if len(indices) == 1 else f"s{indices[0]}-{indices[-1]}"


@pytest.fixture(scope="module")
def emulators(tmp_path_factory: pytest.TempPathFactory):
    # Import once, before forking: each dispatcher then starts in milliseconds.
    for module in ("google.cloud.compute_v1", "runpod", "router.cli", "router.dispatch_cmd",
                   "router.dispatch", "router.backends.gcp", "router.backends.runpod_backend",
                   "router.ledger", "router.ledger_events"):
        importlib.import_module(module)
    emus = [EmulatorProcess(tmp_path_factory.mktemp("emu"), {}) for _ in range(WORKERS)]
    for emu in emus:  # warm the parent's own HTTP path before threads fork
        http(f"{emu.url}/_emulator/instances")
    yield emus
    for emu in emus:
        emu.close()


def run_scenario(spec: Spec, emu: EmulatorProcess, tmp: Path) -> Scenario:
    assert emu.proc.poll() is None, f"HARNESS: the emulator exited ({emu.proc.returncode})"
    scenario = Scenario(spec, emu.url, tmp)
    scenario.play()
    return scenario


@pytest.mark.parametrize("indices", chunks(), ids=chunk_id)
def test_fault_injected_scenarios(emulators: list[EmulatorProcess], tmp_path: Path,
                                  indices: list[int]) -> None:
    todo: queue.Queue[int] = queue.Queue()
    for index in indices:
        todo.put(index)
    results: dict[int, Scenario] = {}
    crashes: dict[int, str] = {}

    def worker(emu: EmulatorProcess) -> None:
        while True:
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            try:
                results[index] = run_scenario(draw(index), emu, tmp_path / f"s{index}")
            except BaseException:
                crashes[index] = traceback.format_exc()

    threads = [threading.Thread(target=worker, args=(emu,), daemon=True)
               for emu in emulators[:len(indices)]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if crashes:
        index = min(crashes)
        raise AssertionError(f"HARNESS failure in scenario {index} "
                             f"(replay: {replay_command(index)}):\n{crashes[index]}")
    failed = [results[i] for i in sorted(results) if results[i].problems]
    assert not failed, (f"{len(failed)} of {len(indices)} scenarios broke a dispatch "
                        "guarantee:\n\n" + "\n\n".join(s.report() for s in failed))
