"""Default surfaces, found where agents read guidance; plans only where the
workspace says; per-rule file counts; the published CLI's discoverability."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "workspace"
DRIFT = "# Guidance\n\nRunPod is tried first, before GCP and SLURM.\n"
CRITIC_DRIFT = ("---\nname: efficiency-critic\n---\n\n# Reviewer\n\n"
                "A width-8 phase whose launch runs one serial process is APPROVEd.\n")


def lint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "lint", *args], cwd=cwd,
                            capture_output=True, text=True, timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def flagged(result: subprocess.CompletedProcess[str]) -> set[str]:
    return {line.split(":", 1)[0] for line in result.stdout.splitlines()
            if ": ladder-drift " in line or ": critic-drift " in line}


@pytest.mark.parametrize("where", [
    "CLAUDE.md", ".claude/CLAUDE.md", "services/api/CLAUDE.md", "AGENTS.md",
    "tools/AGENTS.md", ".claude/agents/reviewer.md", ".claude/rules/compute.md",
    ".claude/rules/team/gpu.md", "pkg/.claude/rules/x.md",
])
def test_each_default_surface_is_found(tmp_path: Path, where: str) -> None:
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(DRIFT, encoding="utf-8")
    assert flagged(lint(tmp_path)) == {where}
    # `workflow-lint .` walks into .claude/ too.
    assert flagged(lint(tmp_path, ".")) == {where}


def test_markdown_that_is_not_guidance_is_not_a_default_surface(tmp_path: Path) -> None:
    for where in ("README.md", "docs/notes.md", ".github/CLAUDE.md", "node_modules/x/CLAUDE.md"):
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / where).write_text(DRIFT, encoding="utf-8")
    result = lint(tmp_path)
    assert result.returncode == 0 and flagged(result) == set()
    assert "no guidance surface found" in result.stderr


@pytest.mark.parametrize("where", [".claude/agents/reviewer.md",
                                   ".claude/agents/efficiency-critic.md"])
def test_critic_guidance_by_front_matter_name_or_path(tmp_path: Path, where: str) -> None:
    (tmp_path / where).parent.mkdir(parents=True)
    (tmp_path / where).write_text(CRITIC_DRIFT, encoding="utf-8")
    result = lint(tmp_path, "--select", "critic-drift")
    assert result.returncode == 1 and f"{where}:" in result.stdout, result.stdout


def test_an_agent_named_otherwise_is_not_critic_guidance(tmp_path: Path) -> None:
    where = tmp_path / ".claude" / "agents" / "planner.md"
    where.parent.mkdir(parents=True)
    where.write_text(CRITIC_DRIFT.replace("efficiency-critic", "planner"), encoding="utf-8")
    assert lint(tmp_path, "--select", "critic-drift").returncode == 0


def test_no_surface_is_said_on_stderr_not_hidden(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("x = 1\n", encoding="utf-8")
    result = lint(tmp_path)
    assert result.returncode == 0 and "no guidance surface found" in result.stderr
    # Python-only rules need no surface: nothing to say.
    assert "no guidance surface" not in lint(tmp_path, "--select", "dollar-cap").stderr


def test_summary_counts_the_files_the_selected_rules_checked(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "CLAUDE.md").write_text("# Notes\n", encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("# Notes\n", encoding="utf-8")
    assert lint(tmp_path, "--select", "dollar-cap").stdout.strip().endswith(": 5 files, "
                                                                          "no findings.")
    assert lint(tmp_path, "--select", "ladder-drift").stdout.strip().endswith(
        ": 2 files, no findings.")
    assert lint(tmp_path).stdout.strip().endswith(": 7 files, no findings.")


def test_only_configured_plans_are_plans(tmp_path: Path) -> None:
    design = tmp_path / "docs" / "design" / "plans" / "roadmap.md"
    design.parent.mkdir(parents=True)
    design.write_text("# Roadmap\n\n## 9. Safety Rules\n\nBe careful.\n", encoding="utf-8")
    plan = tmp_path / "plans" / "x.md"
    plan.parent.mkdir()
    plan.write_text("# A plan with no compute section\n", encoding="utf-8")
    for args in ((), (".",), ("docs", "plans/x.md")):
        result = lint(tmp_path, *args)
        assert "roadmap.md" not in result.stdout, (args, result.stdout)
        assert "x.md:" in result.stdout and "plan-block" in result.stdout, (args, result.stdout)


def test_sarif_rules_each_have_a_help_uri_to_their_page(tmp_path: Path) -> None:
    from router import __version__

    (tmp_path / "CLAUDE.md").write_text(DRIFT, encoding="utf-8")
    doc = json.loads(lint(tmp_path, "--format", "sarif").stdout)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {"ladder-drift", "file-error", "unused-suppression"}
    for rule in rules:
        uri = urlparse(rule["helpUri"])
        assert uri.scheme == "https"
        # The page of the installed version, at its tag, and the page exists.
        assert uri.path.endswith(f"/blob/v{__version__}/docs/rules/{rule['id']}.md")
        assert (ROOT / "docs" / "rules" / f"{rule['id']}.md").is_file()


def test_list_rules_and_rule_pages() -> None:
    listing = lint(ROOT, "--list-rules")
    assert listing.returncode == 0 and "ladder-drift" in listing.stdout
    page = lint(ROOT, "rule", "ladder-drift")
    assert page.returncode == 0 and "Invalid" in page.stdout
    unknown = lint(ROOT, "rule", "no-such-rule")
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1


def test_a_named_agent_rules_file_is_read_and_an_unknown_one_is_reported(tmp_path: Path) -> None:
    (tmp_path / ".cursor" / "rules").mkdir(parents=True)
    for name in (".cursorrules", ".windsurfrules", ".cursor/rules/compute.mdc"):
        (tmp_path / name).write_text(DRIFT, encoding="utf-8")
    (tmp_path / "diagram.png").write_bytes(b"\x89PNG")
    result = lint(tmp_path, ".cursorrules", ".windsurfrules", ".cursor/rules/compute.mdc",
                  "diagram.png")
    assert flagged(result) == {".cursorrules", ".windsurfrules", ".cursor/rules/compute.mdc"}
    assert "diagram.png:1:1: file-error not Markdown, Python or a config file; not linted" \
        in result.stdout
    alone = lint(tmp_path, "diagram.png")
    assert alone.returncode == 0 and "file-error" in alone.stdout  # a warning, not a failure
