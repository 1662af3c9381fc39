"""Dispatch you can trust with real credits: each failure a hostile operator
found, reproduced against the emulator through the real CLI and clients.

No phantom selection after preemption; one live dispatcher per id; a clean
stop on SIGINT / SIGTERM; late inserts swept; fail closed on ledger, events
and input errors; keys kept off stderr; the credentials preflight, `check`,
`sweep`, and what an operator sees on a terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from router.redact import clip
from tests.dispatch_support import SMALL_LADDER, EmulatorProcess, quotas

KEY = "rpa_TRUSTKEY0123456789abcdef"
EIGHT_WIDE = {"us-central1-a": {"a2-ultragpu-8g": {"SPOT": 1}},
              "us-central1-c": {"a2-ultragpu-8g": {"SPOT": 1}}}


@pytest.fixture
def emulator(emulator_factory):  # the shared factory (tests/conftest.py), by a shorter name
    return emulator_factory


@pytest.fixture(autouse=True)
def private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("RUNPOD_API_KEY", KEY)


def ladder(tmp_path: Path, request_timeout: float = 2, operation_timeout: float = 20) -> Path:
    path = tmp_path / "ladder.yaml"
    path.write_text(SMALL_LADDER.read_text()
                    .replace("request_timeout_seconds: 2",
                             f"request_timeout_seconds: {request_timeout}")
                    .replace("operation_timeout_seconds: 20",
                             f"operation_timeout_seconds: {operation_timeout}"))
    return path


def argv(emu: EmulatorProcess, *extra: str, ladder_file: Path = SMALL_LADDER,
         width: int = 8) -> list[str]:
    return [sys.executable, "-m", "router", "dispatch", "--ladder", str(ladder_file),
            "--intent", "capture-7b", "--gpu-count", str(width), "--hours", "1",
            "--gcp-project", "proj", "--gcp-endpoint", emu.url, "--runpod-endpoint", emu.url,
            "--skip-backend", "slurm", *extra]


def events_of(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def live(emu: EmulatorProcess) -> list[str]:
    state = emu.state()
    return sorted([i["name"] for i in state["instances"]] + [p["id"] for p in state["pods"]])


def post(url: str, doc: dict) -> None:
    req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="POST")
    urllib.request.urlopen(req, timeout=10).read()


def selection(events: list[dict]) -> dict:
    [selected] = [e for e in events if e["event"] == "epm:backend-selected"]
    return selected


# ---- selection means running --------------------------------------------------------------


def test_rerun_after_preemption_never_selects_the_dead_instance(emulator) -> None:
    emu = emulator({"gce": {"zones": {"us-central1-a": {"a2-ultragpu-8g": {"SPOT": 2}}},
                            "quotas": quotas()}})
    first = subprocess.run(argv(emu, "--dispatch-id", "pre1", "--", "true"),
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    name = selection(events_of(first.stdout))["instance"]
    post(f"{emu.url}/_emulator/preempt", {"name": name})
    assert live(emu) == []
    again = subprocess.run(argv(emu, "--dispatch-id", "pre1", "--", "true"),
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    chosen = selection(events_of(again.stdout))
    # The same deterministic name, but a real new machine: it is live now.
    assert live(emu) == [chosen["instance"]]
    assert chosen.get("rerun") is not True


def test_a_launch_that_dies_before_selection_is_a_miss(emulator) -> None:
    """A SPOT VM reclaimed between its insert and the read-back is not
    selected: the walk moves on and selects a machine that lives."""
    emu = emulator({"gce": {"zones": {"us-central1-a": {"a2-ultragpu-8g": {"SPOT": 1}},
                                      "us-east4-c": {"a2-ultragpu-4g": {"STANDARD": 1}}},
                            "quotas": quotas()}}, "--reclaim-after-insert-rate", "1")
    result = subprocess.run(argv(emu, "--dispatch-id", "die1", "--", "true"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    lost = [e for e in events if e["event"] == "epm:backend-attempt" and e.get("readback")]
    assert lost and lost[0]["readback"] == "preempted"
    assert lost[0]["machine_type"] == "a2-ultragpu-8g" and lost[0]["outcome"] == "capacity-miss"
    chosen = selection(events)
    assert chosen["machine_type"] == "a2-ultragpu-4g" and chosen["provisioning"] == "STANDARD"
    assert live(emu) == [chosen["instance"]]


# ---- one live dispatcher per id -----------------------------------------------------------


def test_second_dispatcher_on_one_id_exits_2_naming_the_holder(emulator, tmp_path) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    holder = subprocess.Popen(argv(emu, "--dispatch-id", "lease1", "--follow",
                                   "--follow-interval", "0.2", "--", "true"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in holder.stdout:  # wait until it holds the lease and has selected
            if '"epm:backend-selected"' in line:
                break
        second = subprocess.run(argv(emu, "--dispatch-id", "lease1", "--", "true"),
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and f"pid {holder.pid}" in second.stderr
        assert "--wait-lease" in second.stderr
        events = events_of(second.stdout)
        assert [e["event"] for e in events] == ["epm:backend-error"]
        waiter = subprocess.Popen(argv(emu, "--dispatch-id", "lease1", "--wait-lease", "--",
                                       "true"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        time.sleep(1.0)
        assert waiter.poll() is None  # still waiting for the holder
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.communicate(timeout=60)
    assert holder.returncode == 143
    out, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    adopted = selection(events_of(out))
    assert adopted["rerun"] is True and live(emu) == [adopted["instance"]]


def test_ctrl_c_while_waiting_for_the_lease_is_a_clean_130(emulator) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    holder = subprocess.Popen(argv(emu, "--dispatch-id", "wait1", "--follow", "--", "true"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in holder.stdout:
            if '"epm:backend-selected"' in line:
                break
        waiter = subprocess.Popen(argv(emu, "--dispatch-id", "wait1", "--wait-lease", "--",
                                       "true"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        time.sleep(2.0)
        waiter.send_signal(signal.SIGINT)
        out, err = waiter.communicate(timeout=60)
    finally:
        holder.kill()
        holder.communicate(timeout=30)
    assert waiter.returncode == 130 and "Traceback" not in err, err
    events = events_of(out)
    assert events[-1]["event"] == "epm:backend-cancelled"
    assert not any(e["event"] in ("epm:backend-attempt", "epm:backend-selected")
                   for e in events)


def test_a_killed_holders_lease_is_taken_over_at_once(emulator) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    proc = subprocess.Popen(argv(emu, "--dispatch-id", "kill1", "--follow", "--", "true"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if '"epm:backend-selected"' in line:
            break
    proc.kill()
    proc.communicate(timeout=30)
    start = time.monotonic()
    rerun = subprocess.run(argv(emu, "--dispatch-id", "kill1", "--", "true"),
                           capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr
    assert time.monotonic() - start < 20  # not the lease's 30 s timeout
    assert selection(events_of(rerun.stdout))["rerun"] is True and len(live(emu)) == 1


# ---- signals ------------------------------------------------------------------------------


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_mid_rung_releases_everything_and_exits(emulator, signum, code) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}}, "--latency-ms", "1500")
    proc = subprocess.Popen(argv(emu, "--dispatch-id", "sig1", "--", "true"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stdout:  # the preflight is done: the first rung's inserts are in flight
        seen.append(json.loads(line))
        if sum(e["event"] == "epm:backend-check" for e in seen) == 2:
            break
    time.sleep(0.5)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    events = seen + events_of(out)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert events[-1]["event"] == "epm:backend-cancelled"
    assert events[-1]["signal"] == signal.Signals(signum).name
    assert not any(e["event"] == "epm:backend-selected" for e in events)
    released = {e["instance"] for e in events if e["event"] == "epm:backend-released"}
    assert len(released) == 2 and live(emu) == []


def test_second_ctrl_c_prints_what_may_be_live_and_the_sweep_command(emulator,
                                                                      tmp_path) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}}, "--latency-ms", "2000")
    quick = ladder(tmp_path, request_timeout=1, operation_timeout=4)
    proc = subprocess.Popen(argv(emu, "--dispatch-id", "twice", "--", "true",
                                 ladder_file=quick),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    for line in proc.stdout:
        seen.append(json.loads(line))
        if sum(e["event"] == "epm:backend-check" for e in seen) == 2:
            break
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    assert "may still be live" in err and "wl-twice-a2-8x-spot-" in err
    last = events_of(out)[-1]
    assert last["event"] == "epm:backend-cancelled" and last["complete"] is False
    sweep_line = next(line for line in err.splitlines() if line.startswith("clean up with: "))
    sweep = sweep_line.removeprefix("clean up with: ").split()
    assert sweep[:4] == ["backend-router", "sweep", "--dispatch-id", "twice"]
    time.sleep(2.5)  # the inserts it abandoned land now
    assert live(emu)
    done = subprocess.run([sys.executable, "-m", "router", *sweep[1:]], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert live(emu) == [] and "released" in done.stdout


# ---- late inserts -------------------------------------------------------------------------


def test_inserts_that_land_after_the_retry_budget_never_make_a_second_machine(
        emulator, tmp_path) -> None:
    """Every insert answers after the client gave up. No RunPod pod plus GCP
    instances: the first landing is adopted, every other one released."""
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()},
                    "runpod": {"gpus": {"NVIDIA A100 80GB PCIe": 1}}}, "--latency-ms", "6000")
    # The client's whole retry budget (6 tries of 0.3 s plus backoff) is
    # about 5 s: every insert lands after it gave up, within the 10 s window.
    slow = ladder(tmp_path, request_timeout=0.3, operation_timeout=10)
    result = subprocess.run(argv(emu, "--dispatch-id", "late1", "--", "true",
                                 ladder_file=slow), capture_output=True, text=True, timeout=300)
    events = events_of(result.stdout)
    assert result.returncode == 0, result.stderr
    chosen = selection(events)
    assert chosen["backend"] == "gcp" and chosen.get("late") is True
    assert live(emu) == [chosen["instance"]]
    assert not any(e.get("backend") == "runpod" and e["event"] == "epm:backend-attempt"
                   for e in events)


def test_exhausted_walk_leaves_nothing_behind_even_late(emulator, tmp_path) -> None:
    """Inserts of a capacity the emulator does not have answer late (and
    fail); the walk ends exhausted only once nothing can still land."""
    emu = emulator({"gce": {"quotas": quotas()}}, "--latency-ms", "800")
    slow = ladder(tmp_path, request_timeout=0.2, operation_timeout=3)
    result = subprocess.run(argv(emu, "--", "true", ladder_file=slow, width=1),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    assert events_of(result.stdout)[-1]["event"] == "epm:backend-exhausted"
    assert live(emu) == []


# ---- fail closed ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["corrupt", "directory", "devnull"])
def test_ledger_errors_are_exit_2_with_an_error_event(emulator, tmp_path, kind) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    target = {"corrupt": tmp_path / "ledger.sqlite", "directory": tmp_path / "ledger-dir",
              "devnull": Path("/dev/null")}[kind]
    if kind == "corrupt":
        target.write_bytes(b"this is not an sqlite database at all" * 10)
    elif kind == "directory":
        target.mkdir()
    lad = tmp_path / "ladder-ledger.yaml"
    lad.write_text(SMALL_LADDER.read_text().replace("ledger_path: null",
                                                    f"ledger_path: {target}"))
    result = subprocess.run(argv(emu, "--", "true", ladder_file=lad), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"ledger {target}" in result.stderr and "Traceback" not in result.stderr
    assert [e["event"] for e in events_of(result.stdout)] == ["epm:backend-error"]
    assert live(emu) == []
    if kind == "corrupt":
        assert target.read_bytes().startswith(b"this is not")  # never overwritten


def test_events_file_that_is_a_fifo_or_directory_is_exit_2(emulator, tmp_path) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    fifo = tmp_path / "events.fifo"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        result = subprocess.run(argv(emu, "--events", str(target), "--", "true"),
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "--events" in result.stderr
        assert [e["event"] for e in events_of(result.stdout)] == ["epm:backend-error"]
    assert live(emu) == []


@pytest.mark.parametrize("command", ["", "   "])
def test_an_empty_launch_command_is_exit_2(emulator, command) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    result = subprocess.run(argv(emu, "--", command), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and "launch command is empty" in result.stderr
    assert live(emu) == []


# ---- keys stay secret -----------------------------------------------------------------------


class EchoAuth(BaseHTTPRequestHandler):
    """A RunPod endpoint that echoes the Authorization header in its error,
    raw, URL-encoded, and after a long prefix (so a clip would cut the key)."""

    def log_message(self, *args: object) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        auth = self.headers.get("Authorization", "")
        from urllib.parse import quote

        message = ("x" * 160 + f" you sent {auth}; encoded: {quote(auth)}; "
                   f"query: ?api_key={quote(auth.split()[-1])}")
        body = json.dumps({"errors": [{"message": message}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_a_key_echoed_by_the_endpoint_never_reaches_stderr_or_events(emulator) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoAuth)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        echo = f"http://127.0.0.1:{server.server_address[1]}"
        args = argv(emu, "--", "true")
        args[args.index("--runpod-endpoint") + 1] = echo
        result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    finally:
        server.shutdown()
    assert result.returncode == 2
    everything = result.stdout + result.stderr
    for fragment in (KEY, KEY[:12], "TRUSTKEY", "Bearer%20rpa", "rpa_TRUST"):
        assert fragment not in everything, fragment
    assert "[redacted]" in everything


@pytest.mark.parametrize("text", [
    f"Authorization: Bearer {KEY}",
    f"Bearer%20{KEY}",
    f"https://api.runpod.io/graphql?api_key={KEY}&x=1",
    f"api_key%3D{KEY}",
    f"token={KEY[:-3]}",
])
def test_redaction_comes_before_clipping(text: str) -> None:
    for width in (20, 40, 60, 300):
        clipped = clip("y" * 10 + " " + text, width)
        assert "TRUSTKEY" not in clipped and "rpa_" not in clipped, clipped


# ---- preflight and check ---------------------------------------------------------------------


def test_missing_runpod_key_fails_before_the_first_gcp_rung(emulator, monkeypatch) -> None:
    monkeypatch.delenv("RUNPOD_API_KEY")
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    result = subprocess.run(argv(emu, "--", "true"), capture_output=True, text=True,
                            timeout=60, env={k: v for k, v in os.environ.items()
                                             if k != "RUNPOD_API_KEY"})
    assert result.returncode == 2 and "RUNPOD_API_KEY is not set" in result.stderr
    events = events_of(result.stdout)
    assert not any(e["event"] == "epm:backend-attempt" for e in events)
    skipped = subprocess.run(argv(emu, "--skip-backend", "runpod", "--", "true"),
                             capture_output=True, text=True, timeout=60,
                             env={k: v for k, v in os.environ.items() if k != "RUNPOD_API_KEY"})
    assert skipped.returncode == 0, skipped.stderr


def test_check_reports_each_backend(emulator, tmp_path) -> None:
    emu = emulator({"gce": {"quotas": quotas()}})
    base = [sys.executable, "-m", "router", "check", "--ladder", str(SMALL_LADDER),
            "--gcp-project", "proj", "--gcp-endpoint", emu.url, "--runpod-endpoint", emu.url]
    ok = subprocess.run([*base, "--skip-backend", "slurm", "--format", "json"],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert [b["backend"] for b in doc["backends"]] == ["gcp", "runpod"]
    assert all(b["usable"] for b in doc["backends"]) and doc["skipped"] == ["slurm"]
    assert doc["backends"][0]["checks"]["quotas"] == "ok"
    env = {k: v for k, v in os.environ.items() if k != "RUNPOD_API_KEY"}
    env["PATH"] = str(tmp_path)  # no sbatch here
    bad = subprocess.run(base, capture_output=True, text=True, timeout=60, env=env)
    assert bad.returncode == 1
    lines = dict(line.split(None, 1) for line in bad.stdout.splitlines())
    assert lines["gcp"].startswith("ok") and "no sbatch" in lines["slurm"]
    assert "RUNPOD_API_KEY is not set" in lines["runpod"]


# ---- sweep --------------------------------------------------------------------------------


def test_sweep_keeps_the_selection_and_releases_the_rest(emulator) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    result = subprocess.run(argv(emu, "--dispatch-id", "sw1", "--", "true"),
                            capture_output=True, text=True, timeout=60)
    chosen = selection(events_of(result.stdout))["instance"]
    sweep = [sys.executable, "-m", "router", "sweep", "--dispatch-id", "sw1", "--ladder",
             str(SMALL_LADDER), "--gcp-project", "proj", "--gcp-endpoint", emu.url,
             "--runpod-endpoint", emu.url, "--skip-backend", "slurm", "--format", "json"]
    kept = subprocess.run(sweep, capture_output=True, text=True, timeout=60)
    assert kept.returncode == 0, kept.stderr
    assert json.loads(kept.stdout)["kept"][0]["instance"] == chosen
    assert live(emu) == [chosen]
    gone = subprocess.run([*sweep, "--all"], capture_output=True, text=True, timeout=60)
    assert [r["instance"] for r in json.loads(gone.stdout)["released"]] == [chosen]
    assert live(emu) == []


def test_sweep_older_than_only_touches_old_machines(emulator) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    subprocess.run(argv(emu, "--", "true"), capture_output=True, text=True, timeout=60)
    base = [sys.executable, "-m", "router", "sweep", "--ladder", str(SMALL_LADDER),
            "--gcp-project", "proj", "--gcp-endpoint", emu.url, "--runpod-endpoint", emu.url,
            "--skip-backend", "slurm", "--all", "--older-than"]
    young = subprocess.run([*base, "1h"], capture_output=True, text=True, timeout=60)
    assert young.returncode == 0 and len(live(emu)) == 1, young.stderr
    time.sleep(1.1)
    old = subprocess.run([*base, "1s"], capture_output=True, text=True, timeout=60)
    assert old.returncode == 0 and live(emu) == [], old.stdout + old.stderr
    bad = subprocess.run([*base, "soon"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


# ---- the operator's screen ------------------------------------------------------------------


def last_line(screen: str) -> str:
    """The line a person sees last: carriage returns and erase-line codes
    resolved the way a terminal resolves them."""
    return screen.replace("\x1b[K", "").replace("\r", "\n").strip().splitlines()[-1]


def run_on_terminal(args: list[str], timeout: float = 120) -> tuple[int, str]:
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execv(args[0], args)
    chunks = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode(errors="replace")


def test_a_terminal_gets_a_human_view_and_no_json(emulator, tmp_path) -> None:
    emu = emulator({"gce": {"zones": {"us-east4-c": {"a2-ultragpu-4g": {"SPOT": 2}}},
                            "quotas": quotas()}})
    log = tmp_path / "events.jsonl"
    code, screen = run_on_terminal(argv(emu, "--events", str(log), "--", "true"))
    assert code == 0, screen
    assert '{"event"' not in screen
    assert "attempts so far" in screen and "rung 1/" in screen
    final = last_line(screen)
    attempts = sum(json.loads(line)["event"] == "epm:backend-attempt"
                   for line in log.read_text().splitlines())
    assert final.startswith("selected gcp a2-ultragpu-4g SPOT us-east4-c at width 4 of 8 "
                            f"after {attempts} attempts in "), final
    code, screen = run_on_terminal(argv(emu, "--json", "--", "true"))
    assert code == 0 and '{"event": "epm:backend-selected"' in screen
    assert "attempts so far" not in screen  # no progress line among the JSON lines
    assert last_line(screen).startswith("selected gcp a2-ultragpu-4g SPOT us-east4-c")


def test_exhausted_terminal_line(emulator, monkeypatch) -> None:
    emu = emulator({"gce": {"quotas": quotas()}})
    code, screen = run_on_terminal(argv(emu, "--skip-backend", "runpod", "--", "true",
                                        width=1))
    assert code == 1
    final = last_line(screen)
    assert final.startswith("exhausted after ") and " attempts in " in final


# ---- CI never passes without the real parts -----------------------------------------------------


def test_ci_turns_a_skip_into_a_failure(tmp_path: Path) -> None:
    test = tmp_path / "test_skipping.py"
    test.write_text("import pytest\n\n@pytest.mark.skipif(True, reason='no slurm')\n"
                    "def test_needs_slurm():\n    pass\n")
    conftest = Path(__file__).with_name("conftest.py")
    (tmp_path / "conftest.py").write_text(conftest.read_text())
    env = {**os.environ, "WL_NO_SKIPS": "1"}
    strict = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(test)], capture_output=True, text=True, cwd=tmp_path, env=env,
                            timeout=120)
    assert strict.returncode != 0 and "WL_NO_SKIPS" in strict.stdout
    env.pop("WL_NO_SKIPS")
    lenient = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              str(test)], capture_output=True, text=True, cwd=tmp_path, env=env,
                             timeout=120)
    assert lenient.returncode == 0
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text()
    assert "export WL_NO_SKIPS=1" in ci
