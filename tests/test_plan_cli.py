"""`backend-router plan` end to end, as a user runs it: exit codes, one-line
errors, the contract's JSON, and no cloud SDK imported."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from router import config


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "router", *args], capture_output=True,
                          text=True, timeout=60)


def plan_args(intent: str = "capture-7b", width: str = "8", hours: str = "1.5") -> list[str]:
    return ["plan", "--intent", intent, "--gpu-count", width, "--hours", hours]


def test_json_matches_contract_shape() -> None:
    result = run(*plan_args(), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["request"] == {"intent": "capture-7b", "width": 8, "hours": 1.5}
    first = doc["rungs"][0]
    assert first["backend"] == "gcp" and first["machine_type"] == "a2-ultragpu-8g"
    assert first["provisioning"] == "SPOT" and first["width"] == 8
    assert "us-central1-a" in first["zones"]
    slurm = [r for r in doc["rungs"] if r["backend"] == "slurm"]
    assert slurm and all(set(r) >= {"lane", "width"} and r["width"] == 1 for r in slurm)
    assert doc["rungs"][-1]["backend"] == "runpod" and "gpu_type" in doc["rungs"][-1]


def test_text_table_has_one_row_per_rung_with_reasons() -> None:
    text = run(*plan_args()).stdout.splitlines()
    json_rungs = json.loads(run(*plan_args(), "--format", "json").stdout)["rungs"]
    rows = text[2:-1]
    assert len(rows) == len(json_rungs)
    assert "requested width 8" in rows[0] and "SPOT" in rows[0]
    assert "degraded 8→4" in rows[5]
    assert rows[-1].split()[1] == "runpod"
    assert text[-1].startswith(f"{len(json_rungs)} rungs")


@pytest.mark.parametrize("width", ["3", "0", "-8", "x", "16", "2.0"])
def test_bad_width_is_one_line_naming_allowed_widths(width: str) -> None:
    result = run(*plan_args(width=width))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "1, 2, 4, 8" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("hours", ["0", "-1", "nan", "inf", "-inf", "soon"])
def test_bad_hours_is_one_line(hours: str) -> None:
    result = run(*plan_args(hours=hours))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "hours" in result.stderr


def test_unknown_intent_suggests_nearest() -> None:
    result = run(*plan_args(intent="eval-7B"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "did you mean 'eval-7b'" in result.stderr


def test_width_below_intent_minimum_is_rejected() -> None:
    result = run(*plan_args(intent="eval-70b", width="1"))
    assert result.returncode == 2 and "minimum width 2" in result.stderr


def test_missing_flag_is_one_line() -> None:
    result = run("plan", "--intent", "capture-7b")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


def test_malformed_ladder_names_file_line_and_key(tmp_path: Path) -> None:
    text = config.PACKAGED_LADDER.read_text().replace("max_width: 4", "max_width: 3")
    bad = tmp_path / "ladder.yaml"
    bad.write_text(text)
    line = text.splitlines().index("    max_width: 3") + 1
    result = run(*plan_args(), "--ladder", str(bad))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert f"{bad}:{line}: slurm_lanes.1.max_width" in result.stderr


def test_custom_ladder_is_used(tmp_path: Path) -> None:
    text = config.PACKAGED_LADDER.read_text().replace("short_threshold_hours: 4",
                                                      "short_threshold_hours: 1")
    custom = tmp_path / "ladder.yaml"
    custom.write_text(text)
    doc = json.loads(run(*plan_args(), "--ladder", str(custom), "--format", "json").stdout)
    assert doc["rungs"][0]["provisioning"] == "FLEX_START"


def test_plan_never_imports_cloud_sdks() -> None:
    code = ("import sys; from router.cli import main; main(['plan','--intent','capture-7b',"
            "'--gpu-count','8','--hours','2']); "
            "bad=[m for m in sys.modules if m.startswith(('google','runpod','libcst'))]; "
            "print('LOADED', bad)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip().splitlines()[-1] == "LOADED []"
