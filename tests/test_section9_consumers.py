"""The §9 rules (issue 11) as each consumer shows them: the lint's plan-block
rule, `efficiency-critic` and `backend-router plan --plan`. Every schema
problem of a block is reported, each on its own `file:line:` line; numbered
headings that are not §9 stay out; hostile numbers are one clear line (exit 2
or a finding), never a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from critics import cli as critic_cli
from router import cli as router_cli
from tests.lint_support import lint

ROOT = Path(__file__).resolve().parents[1]
BROKEN = """\
# Plan

## 9. Safety Rules

Never run on the login node.

## §9 Compute

```yml
phases:
  - name: a
    intent: eval-7b
    width: 3
    gpu_hours: -1
    launch: x
  - name: a
    intent: capture-7b
    width: 8
    gpu_hours: 8
    launch: x
    gpus: 8
```
"""
# (line, text) of each problem in BROKEN, in line order.
BROKEN_PROBLEMS = [(13, "width must be one of 1, 2, 4, 8, got 3"),
                   (14, "gpu_hours must be a number > 0"),
                   (16, "duplicate phase name 'a'"),
                   (21, "unknown key 'gpus'")]
SAFETY_ONLY = "# Plan\n\n## 9. Safety Rules\n\n```yaml\nphases: []\n```\n"
GOOD = ("# Plan\n\n## 9. Safety Rules\n\n```yaml\nphases: [oops]\n```\n\n"
        "### 9.3 Make Resources and SLURM First-Class\n\nProse.\n\n"
        "## §9 Compute\n\n```yml\nphases:\n  - {name: a, intent: eval-7b, width: 1, "
        "gpu_hours: 0.5, launch: python eval.py}\n```\n")


def run(module: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def error_lines(stderr: str, prog: str) -> list[tuple[int, str]]:
    out = []
    for line in stderr.splitlines():
        assert line.startswith(f"{prog}: error: "), line
        where, message = line.removeprefix(f"{prog}: error: ").split(": ", 1)
        out.append((int(where.rsplit(":", 1)[1]), message))
    return out


def assert_problems(got: list[tuple[int, str]]) -> None:
    assert len(got) == len(BROKEN_PROBLEMS), got
    for (line, needle), (got_line, message) in zip(BROKEN_PROBLEMS, got, strict=True):
        assert got_line == line and needle in message, (line, needle, got_line, message)


def test_critic_prints_every_problem_one_line_each(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(BROKEN)
    result = run("critics", str(plan))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert_problems(error_lines(result.stderr, "efficiency-critic"))
    assert f"{plan}:13: phase 'a'" in result.stderr


@pytest.mark.parametrize("command", [
    ("plan",),
    ("dispatch", "--dispatch-id", "s9"),
    ("simulate", "--capacity", str(ROOT / "examples" / "capacity" / "scarce-wide.yaml")),
])
def test_router_commands_print_every_problem_one_line_each(tmp_path: Path,
                                                           command: tuple[str, ...]) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text(BROKEN)
    result = run("router", *command, "--plan", str(plan))
    assert result.returncode == 2
    assert_problems(error_lines(result.stderr, "backend-router"))
    if command[0] == "dispatch":  # and one error event naming them all
        [event] = [json.loads(line) for line in result.stdout.splitlines()]
        assert event["event"] == "epm:backend-error"
        assert event["message"].count("plan.md:") == len(BROKEN_PROBLEMS)
    else:
        assert result.stdout == ""


def test_ladder_errors_of_every_phase_are_reported(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("## §9\n```yaml\nphases:\n  - {name: a, intent: eval-70b, width: 1, "
                    "gpu_hours: 1, launch: x}\n  - {name: b, intent: lora-8b, width: 1, "
                    "gpu_hours: 1, launch: x}\n```\n")
    for module, prog, args in (("critics", "efficiency-critic", ()),
                               ("router", "backend-router", ("plan", "--plan"))):
        result = run(module, *args, str(plan))
        assert result.returncode == 2
        got = error_lines(result.stderr, prog)
        assert [line for line, _ in got] == [4, 5], result.stderr
        assert "minimum width 2" in got[0][1] and "did you mean 'lora-7b'" in got[1][1]


def test_lint_gives_one_finding_per_problem_at_its_line() -> None:
    found = [f for f in lint(BROKEN, "plan", {"plan-block"})]
    assert_problems([(f.line, f.message) for f in found])


def test_numbered_headings_that_are_not_section9_leave_a_good_plan_alone(
        tmp_path: Path) -> None:
    assert lint(GOOD, "plan", {"plan-block"}) == []
    plan = tmp_path / "plan.md"
    plan.write_text(GOOD)
    assert run("critics", str(plan)).returncode == 0
    assert run("router", "plan", "--plan", str(plan)).returncode == 0


def test_a_configured_plan_without_section9_is_reported_a_surface_is_not(
        tmp_path: Path) -> None:
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "p.md").write_text(SAFETY_ONLY)
    (tmp_path / "CLAUDE.md").write_text(SAFETY_ONLY)
    result = run("lint", "--select", "plan-block", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "plans/p.md:1:1: plan-block no §9 section" in result.stdout
    assert "CLAUDE.md" not in result.stdout
    critic = run("critics", str(tmp_path / "plans" / "p.md"))
    assert critic.returncode == 2 and critic.stderr.count("\n") == 1
    assert "no §9 section" in critic.stderr


# Hostile numbers: huge ints (hundreds of digits), floats that overflow to inf,
# nan, negatives, bools, YAML's other numeral forms.
HUGE_INT = st.integers(min_value=10**50, max_value=10**400).map(str)
NUMBERS = st.one_of(
    HUGE_INT, HUGE_INT.map(lambda s: "-" + s), HUGE_INT.map(lambda s: s + ".5"),
    st.integers(min_value=-(10**6), max_value=10**12).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=300, max_value=100_000).map(lambda e: f"1.0e+{e}"),
    st.integers(min_value=300, max_value=100_000).map(lambda e: f"1e{e}"),
    st.sampled_from([".inf", "-.inf", ".nan", ".NaN", "true", "false", "null", "~", "-0",
                     "0", "1:30", "0x" + "f" * 120, "0o" + "7" * 120, "0b" + "1" * 300,
                     "1_000_000_000_000", "!!float 1e99999", "!!int '1" + "0" * 500 + "'",
                     "9" * 4400, "1" + "0" * 300 + ".0e+300"]))
FIELDS = ("width", "gpu_hours", "size")
LINES = {"width": 9, "gpu_hours": 10, "size": 13}  # each field's line in hostile_plan()


def hostile_plan(field: str, value: str) -> str:
    values = {"width": "8", "gpu_hours": "8", "size": "8"} | {field: value}
    return ("# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - name: a\n    intent: capture-7b\n"
            f"    width: {values['width']}\n    gpu_hours: {values['gpu_hours']}\n"
            f"    shardable_axis:\n      name: draws\n      size: {values['size']}\n"
            "    launch: torchrun --nproc_per_node 8 gen.py\n```\n")


def run_in_process(main, argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FIELDS), NUMBERS)
def test_hostile_numbers_are_one_clear_line_in_every_consumer(field: str, value: str) -> None:
    text = hostile_plan(field, value)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.md"
        path.write_text(text)
        # Any exception other than the clean paths fails the test (no traceback).
        critic_code, critic_err = run_in_process(critic_cli.main, [str(path)])
        plan_code, plan_err = run_in_process(router_cli.main, ["plan", "--plan", str(path)])
    findings = [f for f in lint(text, "plan") if f.rule == "plan-block"]
    bad = critic_code == 2
    assert critic_code in (0, 1, 2) and plan_code in (0, 2)
    assert bad == (plan_code == 2) == bool(findings), (critic_err, plan_err, findings)
    if bad:
        for err in (critic_err, plan_err):
            assert err.count("\n") == 1 and len(err) < 1200, err
        assert len(findings) == 1 and findings[0].line == LINES[field]
        assert "Traceback" not in critic_err + plan_err


@pytest.mark.parametrize("value", ["1e400", "1.0e+400", "9" * 300, "-" + "9" * 300,
                                   ".nan", "true"])
@pytest.mark.parametrize("field", FIELDS)
def test_hostile_numbers_end_to_end(tmp_path: Path, field: str, value: str) -> None:
    (tmp_path / "plans").mkdir()
    plan = tmp_path / "plans" / "p.md"
    plan.write_text(hostile_plan(field, value))
    critic = run("critics", str(plan))
    routed = run("router", "plan", "--plan", str(plan))
    linted = run("lint", "--select", "plan-block", cwd=tmp_path)
    assert critic.returncode == 2 and critic.stderr.count("\n") == 1
    assert routed.returncode == 2 and routed.stderr.count("\n") == 1
    assert linted.returncode == 1 and "plan-block" in linted.stdout
    for result in (critic, routed, linted):
        assert "Traceback" not in result.stderr + result.stdout
