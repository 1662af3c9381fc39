"""The published hook, end to end: pre-commit installs it from this repository
(a plain install: no cloud SDK) into a fresh git repository holding a copy of
the example workspace with its own ladder file. A commit that changes only the
ladder (the short/long threshold) makes CLAUDE.md stale: the hook must fire on
the YAML file, lint the whole workspace, block the commit, and print one
summary. pre-commit and git are real; PyPI is the only network it uses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "workspace"
PACKAGED = ROOT / "router" / "ladder.yaml"


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60,
                          check=True)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One hook environment for the module's tests (pre-commit caches by repo+rev).
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "team"
    shutil.copytree(EXAMPLE, repo)
    shutil.copy(PACKAGED, repo / "ladder.yaml")
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "[tool.workflow-lint]\n", '[tool.workflow-lint]\nladder = "ladder.yaml"\n'),
        encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start")
    return repo


def try_repo(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`pre-commit try-repo <this repo> workflow-lint`: the hook as published,
    run on the staged files as a commit would run it."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)  # the hook must run from its own install
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(ROOT),
                           "workflow-lint", "--color", "never", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)


def test_a_ladder_only_commit_that_makes_claude_md_stale_is_blocked(repo: Path,
                                                                    pre_commit_home: Path
                                                                    ) -> None:
    clean = try_repo(repo, pre_commit_home, "--all-files")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    ladder = repo / "ladder.yaml"
    text = ladder.read_text(encoding="utf-8")
    assert "short_threshold_hours: 4" in text
    ladder.write_text(text.replace("short_threshold_hours: 4", "short_threshold_hours: 6"),
                      encoding="utf-8")
    git(repo, "add", "ladder.yaml")  # the only staged change

    result = try_repo(repo, pre_commit_home)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "workflow-lint" in out and "Failed" in out
    # The stale surface is named although only the ladder was staged.
    assert "CLAUDE.md:15:" in out and "ladder-drift" in out
    # One run, one summary: no "All checks passed" from a second batch.
    assert out.count("Found ") == 1 and "All checks passed" not in out


def test_an_unrelated_yaml_change_passes(repo: Path, pre_commit_home: Path) -> None:
    # YAML that is not a config source of the workspace is not linted as one.
    (repo / "data.yaml").write_text("rows: [1, 2, 3]\n", encoding="utf-8")
    git(repo, "add", "data.yaml")
    result = try_repo(repo, pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr


def test_exclude_holds_for_files_pre_commit_names(repo: Path, pre_commit_home: Path) -> None:
    # A drifted surface under an excluded folder does not block the commit.
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        "[tool.workflow-lint]\n", '[tool.workflow-lint]\nexclude = ["vendor"]\n'),
        encoding="utf-8")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "CLAUDE.md").write_text(
        "# Vendored\n\nRunPod is tried first, before GCP.\n", encoding="utf-8")
    git(repo, "add", "-A")
    result = try_repo(repo, pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr
