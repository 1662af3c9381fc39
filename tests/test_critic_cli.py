"""`efficiency-critic` as a user runs it: verdicts, exit codes, formats, and
bad input as one clear line with exit 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "critic_corpus"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "critics", *args], capture_output=True,
                          text=True, timeout=60)


def write(tmp_path: Path, body: str, name: str = "plan.md") -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def block(yaml_text: str) -> str:
    return f"# Plan\n\n## §9 Compute\n\n```yaml\n{yaml_text}```\n"


def test_approve_exits_zero_with_summary() -> None:
    result = run(str(CORPUS / "torchrun-8-of-8.md"))
    assert result.returncode == 0
    assert result.stdout.strip().splitlines()[-1] == "1 plan, 1 APPROVE, 0 REVISE"


def test_revise_exits_one_and_json_matches_contract() -> None:
    paths = [str(CORPUS / "torchrun-8-of-8.md"), str(CORPUS / "single-python-wide.md")]
    result = run(*paths, "--format", "json")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert [r["verdict"] for r in doc] == ["APPROVE", "REVISE"]
    finding = doc[1]["findings"][0]
    assert set(finding) >= {"rule", "phase", "line", "message", "suggestion"}
    assert finding["rule"] == "unsharded-wide" and finding["phase"] == "main"
    assert doc[1]["path"] == paths[1]


def test_text_has_one_line_per_finding_and_summary() -> None:
    result = run(str(CORPUS / "two-phases-one-wasteful.md"), str(CORPUS / "xargs-8.md"))
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "2 plans, 1 APPROVE, 1 REVISE"
    finding_lines = [line for line in lines if ": unsharded-wide: " in line]
    assert len(finding_lines) == 1 and "two-phases-one-wasteful.md:24:" in finding_lines[0]


def test_folder_argument_reviews_every_plan() -> None:
    result = run(str(CORPUS), "--format", "json")
    assert result.returncode == 1 and len(json.loads(result.stdout)) >= 40


def test_widen_threshold_is_configurable() -> None:
    plan = str(CORPUS / "narrow-with-axis.md")
    assert run(plan).returncode == 1
    assert run(plan, "--widen-threshold", "100").returncode == 0


@pytest.mark.parametrize(("body", "needle"), [
    ("# Plan\n\nNo compute section.\n", "no §9 section"),
    ("# Plan\n\n## §9 Compute\n\nprose only\n", "has no ```yaml block"),
    (block("phases: [unclosed\n"), "invalid YAML"),
    (block("phases:\n  - name: a\n    intent: capture-7b\n    width: 3\n    gpu_hours: 1\n"
           "    launch: x\n"), ":9: phase 'a': width must be one of 1, 2, 4, 8"),
    (block("phases:\n  - name: a\n    intent: capture-7b\n    width: 1\n    gpu_hours: 1\n"
           "    launch: x\n    colour: red\n"), ":12: phase 'a': unknown key 'colour'"),
    (block("phases:\n  - name: a\n    intent: capture7b\n    width: 1\n    gpu_hours: 1\n"
           "    launch: x\n"), "did you mean 'capture-7b'"),
    (block("phases:\n  - name: a\n    intent: eval-70b\n    width: 1\n    gpu_hours: 1\n"
           "    launch: x\n"), "minimum width 2"),
    (block("phases:\n  - {name: a, intent: eval-7b, width: 1, gpu_hours: 0, launch: x}\n"),
     "gpu_hours must be a number > 0"),
])
def test_bad_plans_are_one_line_and_exit_two(tmp_path: Path, body: str, needle: str) -> None:
    result = run(write(tmp_path, body))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and needle in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_and_no_arguments_exit_two(tmp_path: Path) -> None:
    result = run(str(tmp_path / "absent.md"))
    assert result.returncode == 2 and "cannot read plan" in result.stderr
    assert run().returncode == 2


def test_empty_phases_approve(tmp_path: Path) -> None:
    assert run(write(tmp_path, block("phases: []\n"))).returncode == 0


def test_non_utf8_plan_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "bin.md"
    path.write_bytes(b"# \xff\xfe plan\n")
    result = run(str(path))
    assert result.returncode == 2 and "not UTF-8" in result.stderr


def test_alias_bomb_in_plan_is_bad_input_not_a_hang(tmp_path: Path) -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        prev, cur = chr(96 + i), chr(97 + i)
        bomb += f"{cur}: &{cur} [{', '.join('*' + prev for _ in range(10))}]\n"
    result = run(write(tmp_path, block(bomb + "phases: []\n")))
    assert result.returncode == 2 and "node budget" in result.stderr
