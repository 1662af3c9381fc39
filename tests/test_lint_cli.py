"""workflow-lint as a user and pre-commit run it: workspace mode, path mode,
formats, suppressions, --fix, bad files, exit codes."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKSPACE = ROOT / "examples" / "workspace"


def lint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    copy = tmp_path / "ws"
    shutil.copytree(WORKSPACE, copy)
    return copy


def test_example_workspace_copy_lints_clean(ws: Path) -> None:
    result = lint(cwd=ws)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().startswith("All checks passed")


def test_this_repo_lints_itself_clean() -> None:
    result = lint(cwd=ROOT)
    assert result.returncode == 0, result.stdout


def test_drift_in_a_surface_is_reported_with_path_line_col(ws: Path) -> None:
    claude = ws / "CLAUDE.md"
    text = claude.read_text()
    claude.write_text(text + "\nOn a miss, RunPod → SLURM.\n")
    result = lint(cwd=ws)
    assert result.returncode == 1
    line = len(text.splitlines()) + 2
    assert f"CLAUDE.md:{line}:" in result.stdout and "ladder-drift" in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("Found 1 finding (1 error")


def test_stale_claim_and_json_shape(ws: Path) -> None:
    rules = ws / ".claude" / "rules" / "compute-backend-failover.md"
    rules.write_text(rules.read_text() + "\nThe 8× rungs are explicit-intent-only.\n")
    result = lint("--format", "json", cwd=ws)
    doc = json.loads(result.stdout)
    assert [f["rule"] for f in doc] == ["stale-claim"]
    assert set(doc[0]) == {"path", "line", "col", "rule", "severity", "message"}
    assert doc[0]["path"] == ".claude/rules/compute-backend-failover.md"


def test_sarif_and_github_formats(ws: Path) -> None:
    (ws / "CLAUDE.md").write_text("# W\n\nSLURM is the last rung.\n")
    sarif = json.loads(lint("--format", "sarif", cwd=ws).stdout)
    assert sarif["version"] == "2.1.0" and "sarif-2.1.0" in sarif["$schema"]
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "workflow-lint"
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    result = run["results"][0]
    assert result["ruleId"] == "ladder-drift" and ids[result["ruleIndex"]] == "ladder-drift"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 1}
    github = lint("--format", "github", cwd=ws).stdout.strip()
    assert github.startswith("::error file=CLAUDE.md,line=3,col=1,title=ladder-drift::")


def test_select_and_ignore(ws: Path) -> None:
    (ws / "CLAUDE.md").write_text("# W\n\nSLURM is the last rung.\n")
    assert lint("--select", "stale-claim", cwd=ws).returncode == 0
    assert lint("--ignore", "ladder-drift", cwd=ws).returncode == 0
    assert lint("--select", "ladder-drift", cwd=ws).returncode == 1
    bad = lint("--select", "ladder-drfit", cwd=ws)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_markdown_suppression_names_rule_and_unused_is_reported(ws: Path) -> None:
    (ws / "CLAUDE.md").write_text(
        "# W\n\nSLURM is the last rung. <!-- workflow-lint: ignore[ladder-drift] -->\n\n"
        "<!-- workflow-lint: ignore[ladder-drift] -->\nRunPod → GCP.\n\n"
        "Fine text. <!-- workflow-lint: ignore[stale-claim] -->\n\n"
        "SLURM is the last rung. <!-- workflow-lint: ignore -->\n")
    result = lint("--format", "json", cwd=ws)
    found = [(f["line"], f["rule"], f["severity"]) for f in json.loads(result.stdout)]
    assert found == [(8, "unused-suppression", "warning"),
                     (10, "ladder-drift", "error"),
                     (10, "unused-suppression", "warning")]


def test_python_suppression(tmp_path: Path) -> None:
    code = tmp_path / "agent.py"
    code.write_text("MAX_COST_USD = 5  # workflow-lint: ignore[dollar-cap]\nSPEND_CAP = 3\n"
                    "x = 1  # workflow-lint: ignore[dollar-cap]\n")
    doc = json.loads(lint("agent.py", "--format", "json", cwd=tmp_path).stdout)
    assert [(f["line"], f["rule"]) for f in doc] == [(2, "dollar-cap"),
                                                     (3, "unused-suppression")]


def test_fix_rewrites_stale_region_atomically(ws: Path) -> None:
    surface = ws / ".claude" / "rules" / "compute-backend-failover.md"
    surface.write_text(surface.read_text() + "\n<!-- workflow-lint:generated ladder-order -->\n"
                       "1. stale text\n<!-- workflow-lint:end -->\n\nAfter.\n")
    assert lint(cwd=ws).returncode == 1
    fixed = lint("--fix", cwd=ws)
    assert fixed.returncode == 0, fixed.stdout
    text = surface.read_text()
    assert "1. GCP, widest first" in text and "stale text" not in text
    assert text.endswith("<!-- workflow-lint:end -->\n\nAfter.\n")
    assert not [p for p in surface.parent.iterdir() if p.name.startswith(".")]
    assert lint(cwd=ws).returncode == 0


def test_bad_files_are_findings_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "bin.md").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.md").write_bytes(b"ok\ncaf\xe9\n")
    (tmp_path / "broken.py").write_text("def f(:\n    spend_usd = 1\n")
    (tmp_path / "good.md").write_text("SLURM is the last rung.\n")
    result = lint("bin.md", "latin.md", "broken.py", "good.md", "missing.md",
                  "--format", "json", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    found = {(f["path"], f["rule"], f["line"]) for f in json.loads(result.stdout)}
    assert ("bin.md", "file-error", 1) in found
    assert ("latin.md", "file-error", 2) in found
    assert ("broken.py", "file-error", 1) in found or ("broken.py", "file-error", 2) in found
    assert ("good.md", "ladder-drift", 1) in found
    assert ("missing.md", "file-error", 1) in found


def test_plan_path_gets_plan_block(ws: Path) -> None:
    plan = ws / "plans" / "new.md"
    plan.write_text("# Plan\n\nNo compute yet.\n")
    result = lint("plans/new.md", cwd=ws)
    assert result.returncode == 1 and "plans/new.md:1:1: plan-block no §9 section" in result.stdout


def test_bad_workspace_table_is_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.workflow-lint]\nsurfacez = []\n")
    result = lint(cwd=tmp_path)
    assert result.returncode == 2 and "unknown key 'surfacez'" in result.stderr


def test_bad_ladder_in_workspace_is_usage_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.workflow-lint]\nladder = "ladder.yaml"\n')
    (tmp_path / "ladder.yaml").write_text("version: 2\n")
    (tmp_path / "CLAUDE.md").write_text("GCP first.\n")
    result = lint(cwd=tmp_path)
    assert result.returncode == 2 and "ladder.yaml" in result.stderr
    assert result.stderr.count("\n") == 1


def test_linting_markdown_imports_no_code_readers(tmp_path: Path) -> None:
    # pre-commit pays every import: a Markdown-only run needs neither libcst nor
    # the critic's launch reader (only the critic's rule names and thresholds)
    ws = tmp_path / "ws"
    shutil.copytree(ROOT / "examples" / "workspace", ws)
    for code in ws.rglob("*.py"):
        code.unlink()
    probe = ("import sys\nfrom lint.cli import main\ntry:\n    main([])\nexcept SystemExit:\n"
             "    pass\nprint('LOADED', sorted(m for m in sys.modules if m.startswith("
             "('libcst', 'critics.launch', 'critics.shell', 'critics.suggest'))))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ws, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip().splitlines()[-1] == "LOADED []", out.stdout + out.stderr
