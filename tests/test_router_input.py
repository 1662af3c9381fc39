"""Hostile input at `backend-router`'s edge, run as a user runs it: every bad
input is one `backend-router: error:` line on stderr (with file:line where there
is a file), exit 2, never a traceback and never a hang."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from router import config

LADDER = config.PACKAGED_LADDER.read_text()
HUGE = "9" * 5000  # past int()'s 4300-digit limit
LONG = "9" * 400  # converts, but overflows a float


def short_id(value: object) -> str | None:
    """Test ids for long inputs: a 5000-digit id helps no one."""
    text = str(value)
    return f"{text[:24]}...{len(text)}" if len(text) > 40 else None


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "router", *args], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def assert_bad_input(result: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 2 and one short error line. A needle that is a `path:line:` location
    must open the message; the others must appear in the rest of it (so a word
    in the test's tmp_path cannot satisfy them)."""
    err = result.stderr
    assert result.returncode == 2, (result.returncode, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    assert err.startswith("backend-router: error: ") and err.count("\n") == 1, err[:2000]
    assert len(err) < 600, f"error line too long ({len(err)} characters)"
    body = err.removeprefix("backend-router: error: ")
    for needle in needles:
        if needle.startswith(os.sep) and needle.endswith(":"):
            assert body.startswith(needle), err
            body = body[len(needle):]
        else:
            assert needle in body, err
    return err


def plan_cmd(*extra: str) -> list[str]:
    return ["plan", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1", *extra]


def write_plan(tmp_path: Path, gpu_hours: str = "8", intent: str = "capture-7b",
               launch: str = '"torchrun --nproc_per_node 8 x.py"') -> Path:
    path = tmp_path / "plan.md"
    path.write_text("# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - name: gen\n"
                    f"    intent: {intent}\n    width: 8\n    gpu_hours: {gpu_hours}\n"
                    f"    launch: {launch}\n```\n")
    return path  # gpu_hours is on line 10, intent on 8, launch on 11


def write_ladder(tmp_path: Path, old: str, new: str) -> Path:
    assert old in LADDER, old
    path = tmp_path / "ladder.yaml"
    path.write_text(LADDER.replace(old, new, 1))
    return path


def line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


# ---- 1. numbers are bounded where they are parsed ------------------------------------------


@pytest.mark.parametrize("gpu_hours", [LONG, HUGE, "0x" + "f" * 300, "1.0e+400", ".nan",
                                       "2000000", "1:" * 60 + "1"], ids=short_id)
def test_plan_gpu_hours_bounded_with_file_line(tmp_path: Path, gpu_hours: str) -> None:
    plan = write_plan(tmp_path, gpu_hours)
    assert_bad_input(run("plan", "--plan", str(plan)), f"{plan}:10:", "gpu_hours")


def test_plan_gpu_hours_in_range_still_plans(tmp_path: Path) -> None:
    result = run("plan", "--plan", str(write_plan(tmp_path, "12.5")), "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["request"]["hours"] == 12.5 / 8


@pytest.mark.parametrize("hours", ["1e400", HUGE, LONG, "1e300", "2e6"], ids=short_id)
def test_hours_flag_bounded(hours: str) -> None:
    err = assert_bad_input(run("plan", "--intent", "capture-7b", "--gpu-count", "8",
                               "--hours", hours))
    assert "hours" in err


def test_huge_hours_never_reach_json_as_infinity() -> None:
    # 1.7e308 is finite, but x8 at the narrowest width is not: refused up front.
    assert_bad_input(run(*plan_cmd()[:-2], "--hours", "1.7e308", "--format", "json"))


@pytest.mark.parametrize(("old", "new", "key"), [
    ("short_threshold_hours: 4", f"short_threshold_hours: {HUGE}", "short_threshold_hours"),
    ("short_threshold_hours: 4", f"short_threshold_hours: {LONG}", "short_threshold_hours"),
    ("short_threshold_hours: 4", "short_threshold_hours: 1.0e+400", "short_threshold_hours"),
    ("short_threshold_hours: 4", "short_threshold_hours: .nan", "short_threshold_hours"),
    ("flex_start_max_run_hours: 168", "flex_start_max_run_hours: 1e9",
     "flex_start_max_run_hours"),
    ("gcp_attempt_cap_per_day: 48", f"gcp_attempt_cap_per_day: {HUGE}",
     "gcp_attempt_cap_per_day"),
    ("gcp_attempt_cap_per_day: 48", "gcp_attempt_cap_per_day: 0b" + "1" * 90,
     "gcp_attempt_cap_per_day"),
    ("request_timeout_seconds: 30", f"request_timeout_seconds: {LONG}",
     "request_timeout_seconds"),
    ("request_timeout_seconds: 30", "request_timeout_seconds: 1.0e+300",
     "request_timeout_seconds"),
    ("boot_disk_gb: 200", "boot_disk_gb: 1000000000000", "boot_disk_gb"),
    ("max_wait_minutes: 30", f"max_wait_minutes: {LONG}", "max_wait_minutes"),
    ("max_wait_minutes: 30", "max_wait_minutes: " + "1:" * 60 + "1", "max_wait_minutes"),
    ("version: 1", "version: " + HUGE, "version"),
], ids=short_id)
def test_ladder_numbers_bounded_with_file_line(tmp_path: Path, old: str, new: str,
                                                key: str) -> None:
    ladder = write_ladder(tmp_path, old, new)
    line = line_of(ladder, new[:30])
    assert_bad_input(run(*plan_cmd("--ladder", str(ladder))), f"{ladder}:{line}:", key)


# ---- 2. only regular files are read ------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("flags", [["plan", "--plan", "{}"], plan_cmd("--ladder", "{}"),
                                   ["emulator", "--capacity", "{}"]])
def test_fifo_is_refused_not_read(fifo: Path, flags: list[str]) -> None:
    args = [a.replace("{}", str(fifo)) for a in flags]
    assert_bad_input(run(*args, timeout=20), "not a regular file")


@pytest.mark.parametrize("flags", [["plan", "--plan", "{}"], plan_cmd("--ladder", "{}"),
                                   ["emulator", "--capacity", "{}"]])
def test_directory_is_refused(tmp_path: Path, flags: list[str]) -> None:
    args = [a.replace("{}", str(tmp_path)) for a in flags]
    assert_bad_input(run(*args, timeout=20), "not a regular file")


# ---- 3. names are one line of text --------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "what"), [
    ("\n  capture-7b:\n", '\n  "capture-7b\\nx":\n', "intent name"),
    ("\n  capture-7b:\n", '\n  "capture-7b\\0":\n', "intent name"),
    ("\n  capture-7b:\n", '\n  "capture-7b\\u202e":\n', "intent name"),
    ("- name: campus-a100", '- name: "campus\\ta100"', "lane name"),
    ("\n  a100-80gb:\n", '\n  "a100\\e[31m":\n', "family name"),
    ("families: [a100-80gb, h100-80gb]", 'families: [a100-80gb, "h100\\x07"]',
     "control character"),
    ("\n  capture-7b:\n", "\n  " + "c" * 300 + ":\n", "longer than"),
])
def test_ladder_names_with_control_characters_refused(tmp_path: Path, old: str, new: str,
                                                      what: str) -> None:
    ladder = write_ladder(tmp_path, old, new)
    line = line_of(ladder, new.strip().split("\n")[0][:12])
    assert_bad_input(run(*plan_cmd("--ladder", str(ladder))), f"{ladder}:{line}:", what)


@pytest.mark.parametrize("intent", ["capture-7b\nfoo", "capture-7b\x1b[2J", "capture-7b\u2028",
                                    "x" * 300])
def test_intent_flag_with_control_characters_refused(intent: str) -> None:
    assert_bad_input(run("plan", "--intent", intent, "--gpu-count", "1", "--hours", "1"),
                     "intent")


def test_intent_flag_not_utf8_refused() -> None:
    result = subprocess.run([sys.executable.encode(), b"-m", b"router", b"plan", b"--intent",
                             b"capture-7b\xff", b"--gpu-count", b"1", b"--hours", b"1"],
                            capture_output=True, timeout=60)
    text = subprocess.CompletedProcess(result.args, result.returncode, "",
                                       result.stderr.decode("utf-8", "backslashreplace"))
    assert_bad_input(text, "not valid UTF-8")


@pytest.mark.parametrize(("intent", "needle"), [('"capture-7b\\n"', "control character"),
                                                ('"capture\\0"', "control character"),
                                                ('"capture-7b\\x85"', "control character")])
def test_plan_intent_with_control_characters_refused(tmp_path: Path, intent: str,
                                                     needle: str) -> None:
    plan = write_plan(tmp_path, intent=intent)
    assert_bad_input(run("plan", "--plan", str(plan)), f"{plan}:8:", needle)


def test_plan_launch_with_nul_refused(tmp_path: Path) -> None:
    plan = write_plan(tmp_path, launch='"python x.py\\0 --y"')
    assert_bad_input(run("plan", "--plan", str(plan)), f"{plan}:11:", "launch")


def test_intent_flag_disagreeing_with_plan_stays_one_line(tmp_path: Path) -> None:
    plan = write_plan(tmp_path)
    assert_bad_input(run("plan", "--plan", str(plan), "--intent", "eval-7b\n\nforged"),
                     "intent")


# ---- 4. the emulator's flags, capacity file and reset endpoint ------------------------------


def write_capacity(tmp_path: Path, text: str = "gce:\n  zones: {}\n") -> Path:
    path = tmp_path / "capacity.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("flags", [
    ["--port", "70000"], ["--port", "-1"], ["--port", HUGE[:60]],
    ["--latency-ms", "-5"], ["--latency-ms", "nan"], ["--latency-ms", "1e400"],
    ["--timeout-s", "nan"], ["--timeout-s", "inf"], ["--timeout-s", "-1"],
    ["--timeout-rate", "2"], ["--seed", "-1"], ["--seed", "9" * 30],
])
def test_emulator_bad_flags_refused_before_listening(tmp_path: Path, flags: list[str]) -> None:
    result = run("emulator", "--capacity", str(write_capacity(tmp_path)), *flags, timeout=20)
    assert result.stdout == ""
    assert_bad_input(result)


@pytest.mark.parametrize(("text", "line"), [
    (f"gce:\n  zones:\n    us-central1-a:\n      a2-ultragpu-4g: {{SPOT: {HUGE}}}\n", 4),
    (f"gce:\n  zones:\n    us-central1-a:\n      a2-ultragpu-4g: {{SPOT: {LONG}}}\n", 4),
    ("gce:\n  zones:\n    us-central1-a:\n      a2-ultragpu-4g: {SPOT: -1}\n", 4),
    ("gce:\n  zones:\n    us-central1-a:\n      a2-ultragpu-4g: {SPOT: 10000000000}\n", 4),
    ("gce:\n  zones: [us-central1-a]\n", 2),
    ("gce:\n  quotas:\n    us-central1: {X: abc}\n", 3),
    ("gce:\n  quotas:\n    us-central1: {X: .inf}\n", 3),
    ("gce:\n  reject_auth: maybe\n", 2),
    ('runpod:\n  gpus: {"NVIDIA A100 80GB PCIe": 1.0e+400}\n', 2),
    ("runpod:\n  gpus: {A: 1}\n  reject_keys: 7\n", 3),
    ("faults:\n  timeout_s: .nan\n", 2),
    ("faults:\n  latency_ms: -5\n", 2),
    ("faults:\n  latency_ms: abc\n", 2),
    ("faults:\n  seed: 1.5\n", 2),
    ("faults:\n  async_capacity_errors: 3\n", 2),
    ("when: 2024-13-45\n", 1),
], ids=short_id)
def test_emulator_capacity_file_bounded(tmp_path: Path, text: str, line: int) -> None:
    capacity = write_capacity(tmp_path, text)
    result = run("emulator", "--capacity", str(capacity), timeout=20)
    assert result.stdout == ""
    assert_bad_input(result, f"{capacity}:{line}:")


@pytest.fixture
def emulator(tmp_path: Path) -> Iterator[str]:
    capacity = write_capacity(tmp_path, "gce:\n  zones:\n    us-central1-a:\n"
                                        "      a2-ultragpu-1g: {SPOT: 1}\n")
    proc = subprocess.Popen([sys.executable, "-m", "router", "emulator", "--capacity",
                             str(capacity)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "emulator did not start"
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("listening on "), line + proc.stderr.read()  # type: ignore
        yield line.split()[-1]
    finally:
        proc.terminate()
        try:
            _, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
        assert "Traceback" not in stderr, stderr


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.parametrize("body", [
    '{"faults": {"timeout_s": NaN}}', '{"faults": {"timeout_s": Infinity}}',
    '{"faults": {"latency_ms": -5}}', '{"faults": {"latency_ms": 1e400}}',
    '{"faults": {"seed": ' + HUGE + "}}", '{"faults": {"seed": ' + LONG + "}}",
    '{"faults": {"error_5xx_rate": 2}}', '{"faults": {"timeout_s": "soon"}}',
    '{"faults": {"colour": 1}}', '{"faults": [1, 2]}',
    '{"capacity": {"gce": {"zones": {"z": {"m": {"SPOT": ' + LONG + "}}}}}}",
    '{"capacity": {"gce": {"quotas": {"r": {"M": "x"}}}}}',
    '{"capacity": {"gce": {"zones": [1]}}}', '{"capacity": {"runpod": {"gpus": {"A": -1}}}}',
    '{"capacity": 5}', "[1, 2]", "[" * 100_000, "{not json",
], ids=short_id)
def test_emulator_reset_answers_400_and_keeps_serving(emulator: str, body: str) -> None:
    status, text = post(f"{emulator}/_emulator/reset", body.encode())
    assert status == 400, text
    assert "error" in json.loads(text)
    with urllib.request.urlopen(f"{emulator}/_emulator/instances", timeout=20) as response:
        assert response.status == 200


def test_emulator_reset_accepts_good_faults(emulator: str) -> None:
    body = json.dumps({"capacity": {"gce": {"zones": {"us-central1-a": {
        "a2-ultragpu-1g": {"SPOT": 2}}}}}, "faults": {"seed": 3, "latency_ms": 5,
                                                       "timeout_s": 0.5}})
    assert post(f"{emulator}/_emulator/reset", body.encode())[0] == 200


@pytest.mark.parametrize("length", ["-5", "abc", "99999999999999999999"])
def test_emulator_bad_content_length_is_an_answer_not_a_hang(emulator: str,
                                                              length: str) -> None:
    import http.client

    host, port = emulator.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=20)
    conn.putrequest("POST", "/_emulator/reset")
    conn.putheader("Content-Length", length)
    conn.endheaders()
    assert conn.getresponse().status in (400, 413)
    conn.close()


@pytest.mark.parametrize("body", [
    {"name": "vm-a", "machineType": "a2-ultragpu-" + "9" * 5000 + "g"},
    {"name": "vm-b", "machineType": "a2-ultragpu-1g", "scheduling": "SPOT"},
    {"name": "vm-c", "machineType": "a2-ultragpu-1g", "metadata": {"items": [1]}},
    {"name": "vm-d", "machineType": "a2-ultragpu-1g", "labels": ["x"]},
])
def test_emulator_insert_with_hostile_fields_is_an_answer(emulator: str,
                                                          body: dict[str, object]) -> None:
    url = f"{emulator}/compute/v1/projects/p/zones/us-central1-a/instances"
    status, _ = post(url, json.dumps(body).encode())
    assert 400 <= status < 600


# ---- other hostile YAML -------------------------------------------------------------------


def test_ladder_merge_key_bomb_is_refused_quickly(tmp_path: Path) -> None:
    inner = "{" + ", ".join(f"k{i}: {i}" for i in range(10)) + "}"
    node = f"&l0 {inner}"
    for level in range(1, 12):  # 10**12 entries if flatten_mapping were let loose
        node = f"&l{level} {{<<: [{node}, " + ", ".join([f"*l{level - 1}"] * 9) + "]}"
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(f"bomb: {node}\n" + LADDER)
    assert_bad_input(run(*plan_cmd("--ladder", str(ladder)), timeout=30), f"{ladder}:1:")


@pytest.mark.parametrize(("old", "new"), [
    ('"a2-ultragpu-{width}g"', '"a2-ultragpu-{width}g-{zone}"'),
    ('"a2-ultragpu-{width}g"', '"a2-ultragpu-{width:>999999999}g{width}"'),
    ('"a2-ultragpu-{width}g"', '"a2-ultragpu-{width}g{"'),
    ('"a2-ultragpu-{width}g"', '"a2-ultragpu-{width}g{0}"'),
])
def test_machine_type_template_only_takes_width(tmp_path: Path, old: str, new: str) -> None:
    ladder = write_ladder(tmp_path, old, new)
    assert_bad_input(run(*plan_cmd("--ladder", str(ladder))),
                     f"{ladder}:{line_of(ladder, new)}:", "machine_type")


def test_ladder_deep_nesting_is_refused(tmp_path: Path) -> None:
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text("x: " + "[" * 50_000 + "]" * 50_000 + "\n" + LADDER)
    assert_bad_input(run(*plan_cmd("--ladder", str(ladder))), "nested too deeply")


def test_ladder_not_utf8_names_its_line(tmp_path: Path) -> None:
    ladder = tmp_path / "ladder.yaml"
    needle = "gpu: NVIDIA A100 80GB"
    ladder.write_bytes(LADDER.encode().replace(needle.encode(), b"gpu: NVIDIA A100 \xff", 1))
    line = next(i for i, text in enumerate(LADDER.splitlines(), 1) if needle in text)
    assert_bad_input(run(*plan_cmd("--ladder", str(ladder))), f"{ladder}:{line}:", "UTF-8")


def test_plan_file_cap(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("1. a\n" * 500_000)  # 2.5 MB of the slowest Markdown we know
    assert_bad_input(run("plan", "--plan", str(plan), timeout=30), "larger than")
