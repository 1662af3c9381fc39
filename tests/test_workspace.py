"""One workspace config for all three commands: the nearest pyproject.toml with
a [tool.workflow-lint] table, upward from the plan file or the current
directory; its `ladder` key for lint, critic and router alike; --ladder wins."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "workspace"
PACKAGED = ROOT / "router" / "ladder.yaml"
PLAN = "plans/825-sampled-separator-control.md"


def run(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True,
                            text=True, timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def ladder_with(intent: str, copy_of: str = "eval-7b") -> str:
    """The packaged ladder config plus one intent copied from another."""
    text = PACKAGED.read_text(encoding="utf-8")
    start = text.index(f"  {copy_of}:\n")
    end = text.index("\n  ", text.index("\n", start) + 1)
    while text[end + 3] == " ":  # skip the copied intent's own keys
        end = text.index("\n  ", end + 1)
    block = text[start:end]
    return text[:end] + "\n" + block.replace(f"{copy_of}:", f"{intent}:", 1) + text[end:]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A copy of the example workspace whose ladder adds `eval-13b`, used by a plan."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    (root / "ladders").mkdir()
    (root / "ladders" / "team.yaml").write_text(ladder_with("eval-13b"), encoding="utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "[tool.workflow-lint]\n", '[tool.workflow-lint]\nladder = "ladders/team.yaml"\n'),
        encoding="utf-8")
    plan = root / PLAN
    plan.write_text(plan.read_text(encoding="utf-8").replace(
        "intent: eval-7b", "intent: eval-13b", 1), encoding="utf-8")
    assert "eval-13b" in plan.read_text(encoding="utf-8")
    return root


def test_all_three_commands_read_the_workspace_ladder(ws: Path) -> None:
    assert run("lint", cwd=ws).returncode == 0
    critic = run("critics", PLAN, cwd=ws)
    assert critic.returncode == 0, critic.stderr
    assert "APPROVE" in critic.stdout
    plan = run("router", "plan", "--plan", PLAN, "--phase", "generate", cwd=ws)
    assert plan.returncode == 0, plan.stderr


def test_the_plan_file_finds_its_workspace_from_anywhere(ws: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plan = str(ws / PLAN)
    assert run("critics", plan, cwd=elsewhere).returncode == 0
    assert run("router", "plan", "--plan", plan, "--phase", "generate",
               cwd=elsewhere).returncode == 0
    assert run("lint", plan, cwd=elsewhere).returncode == 0
    # From a subfolder the upward search reaches the same workspace.
    assert run("lint", cwd=ws / "plans").returncode == 0
    assert run("critics", Path(PLAN).name, cwd=ws / "plans").returncode == 0


def test_ladder_flag_overrides_the_workspace_on_all_three(ws: Path) -> None:
    # The packaged ladder has no eval-13b: every command now rejects the plan.
    flag = ("--ladder", str(PACKAGED))
    critic = run("critics", PLAN, *flag, cwd=ws)
    assert critic.returncode == 2 and "eval-13b" in critic.stderr
    plan = run("router", "plan", "--plan", PLAN, "--phase", "generate", *flag, cwd=ws)
    assert plan.returncode == 2 and "eval-13b" in plan.stderr
    lint = run("lint", *flag, cwd=ws)
    assert lint.returncode == 1 and "plan-block" in lint.stdout and "eval-13b" in lint.stdout


def test_a_ladder_change_in_config_is_followed(ws: Path) -> None:
    # Point the workspace at a ladder without the intent: all three follow it.
    (ws / "ladders" / "team.yaml").write_text(PACKAGED.read_text(encoding="utf-8"),
                                             encoding="utf-8")
    assert run("critics", PLAN, cwd=ws).returncode == 2
    assert run("router", "plan", "--plan", PLAN, "--phase", "eval", cwd=ws).returncode == 2
    assert run("lint", cwd=ws).returncode == 1


def test_nearest_table_wins_over_a_bare_pyproject(ws: Path) -> None:
    # A sub-package's pyproject.toml without the table does not hide the workspace.
    sub = ws / "plans"
    (sub / "pyproject.toml").write_text('[project]\nname = "sub"\n', encoding="utf-8")
    assert run("critics", Path(PLAN).name, cwd=sub).returncode == 0


@pytest.mark.parametrize("table, needle", [
    ('[tool.workflow-lint]\nladder = 3\n', "ladder must be a path"),
    ('[tool.workflow-lint]\nladdr = "x.yaml"\n', "unknown key 'laddr'"),
    ('[tool.workflow-lint\n', "cannot read"),
    ('[tool.workflow-lint]\nladder = "missing.yaml"\n', "missing.yaml"),
])
def test_a_bad_workspace_config_is_exit_2_for_all_three(ws: Path, table: str,
                                                       needle: str) -> None:
    (ws / "pyproject.toml").write_text(table, encoding="utf-8")
    for module, args in (("lint", ()), ("critics", (PLAN,)),
                         ("router", ("plan", "--plan", PLAN, "--phase", "generate"))):
        result = run(module, *args, cwd=ws)
        assert result.returncode == 2, (module, result.stdout, result.stderr)
        assert needle in result.stderr and len(result.stderr.strip().splitlines()) == 1
