"""Held-out acceptance tests for issue 11 (adoption on real repositories).

Written from the issue and the contracts alone: every command runs in a
subprocess, in a workspace built under tmp_path, and the assertions check exit
codes, paths, rule names, counts and the absence of tracebacks, never wording.
"""

from __future__ import annotations

import copy
import ctypes
import importlib.util
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "workspace"
CORPUS = Path(__file__).parent / "critic_corpus"

CONTRACT_RULES = ["ladder-drift", "stale-claim", "critic-drift", "plan-block", "dollar-cap",
                  "unverified-claim"]
DENY_RULES = {"unsharded-wide", "under-saturated", "needlessly-narrow", "unreadable-launch"}

GOOD_LAUNCH = ("for i in $(seq 0 $(({width}-1))); do CUDA_VISIBLE_DEVICES=$i python eval.py "
               "--num-shards {width} --shard-id $i & done; wait")


# ---------------------------------------------------------------- helpers


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def run(module: str, *args: object, cwd: Path, timeout: float = 120,
        preexec_fn: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `python -m module args` and fail on a hang or any traceback."""
    argv = [sys.executable, "-m", module, *map(str, args)]
    try:
        result = subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, text=True,
                                errors="replace", timeout=timeout, preexec_fn=preexec_fn,
                                stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`{' '.join(argv[2:])[:300]}` did not finish within {timeout} s")
    assert "Traceback" not in result.stderr, result.stderr[-4000:]
    assert "Traceback" not in result.stdout, result.stdout[-4000:]
    return result


def lint(*args: object, cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return run("lint", *args, cwd=cwd, **kw)


def critic(*args: object, cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return run("critics", *args, cwd=cwd, **kw)


def router(*args: object, cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return run("router", *args, cwd=cwd, **kw)


def out(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def lint_json(*args: object, cwd: Path, **kw: object) -> tuple[int, list[dict]]:
    result = lint(*args, "--format", "json", cwd=cwd, **kw)
    assert result.returncode in (0, 1), out(result)
    return result.returncode, json.loads(result.stdout)


def findings_at(findings: list[dict], rel: str, rule: str | None = None) -> list[dict]:
    return [f for f in findings
            if f["path"].replace("\\", "/").endswith(rel) and (rule is None or f["rule"] == rule)]


def packaged_ladder() -> Path:
    spec = importlib.util.find_spec("router")
    assert spec is not None and spec.origin is not None
    path = Path(spec.origin).parent / "ladder.yaml"
    assert path.is_file(), path
    return path


def ladder_with_intent(new: str = "eval-13b", base: str = "eval-7b") -> str:
    data = yaml.safe_load(packaged_ladder().read_text())
    data["intents"][new] = copy.deepcopy(data["intents"][base])
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def phase_yaml(name: str = "eval", intent: str = "eval-7b", width: object = 8,
               gpu_hours: object = 8, axis: object = 8, launch: str = GOOD_LAUNCH) -> str:
    lines = [f"  - name: {name}", f"    intent: {intent}", f"    width: {width}",
             f"    gpu_hours: {gpu_hours}"]
    if axis is not None:
        lines.append(f"    shardable_axis: {{name: checkpoint, size: {axis}}}")
    lines.append(f"    launch: {json.dumps(launch)}")
    return "\n".join(lines) + "\n"


def plan_md(phases: str, heading: str = "## §9 Compute", fence: str = "yaml",
            before: str = "", after: str = "") -> str:
    return (f"# Plan\n\n## 1. Question\n\nDoes it work?\n\n{before}{heading}\n\n"
            f"The work shards along checkpoints.\n\n```{fence}\nphases:\n{phases}```\n\n{after}")


def plan_from_phases(phases: list[dict]) -> str:
    body = yaml.safe_dump({"phases": phases}, sort_keys=False, width=10**6, allow_unicode=True)
    return f"# Plan\n\n## §9 Compute\n\n```yaml\n{body}```\n"


def summary_files(stdout: str) -> int:
    """The file count in the text format's summary line (the last line)."""
    last = stdout.strip().splitlines()[-1]
    match = re.search(r"(\d+) files?\b", last)
    assert match, f"no file count in summary line {last!r}"
    return int(match.group(1))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A copy of the example workspace (explicit surfaces, plans = plans/*.md)."""
    copy_ = tmp_path / "ws"
    shutil.copytree(EXAMPLE, copy_)
    return copy_


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """A workspace with an empty [tool.workflow-lint] table: every default applies."""
    root = tmp_path / "bare"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.workflow-lint]\n")
    return root


DRIFTS = [
    "When GCP is dry, try RunPod → SLURM.",
    "RunPod is tried first.",
    "Long jobs lead with SPOT.",
]


def drift_doc(sentence: str = DRIFTS[0], front: str = "") -> str:
    return f"{front}# Guidance\n\n## Compute backends\n\n{sentence}\n"


# ------------------------------------------- 1. one workspace config for all three


PLAN_13B = "plans/900-eval-13b.md"


def make_custom_ws(ws: Path) -> Path:
    """The example workspace with its own ladder adding intent eval-13b, and a plan using it."""
    (ws / "ladder.yaml").write_text(ladder_with_intent())
    pyproject = ws / "pyproject.toml"
    text = pyproject.read_text()
    assert text.rstrip().endswith('plans = ["plans/*.md"]'), "example pyproject changed shape"
    pyproject.write_text(text.rstrip() + '\nladder = "ladder.yaml"\n')
    (ws / PLAN_13B).write_text(plan_md(phase_yaml(intent="eval-13b")))
    return ws


def where(ws: Path, tmp_path: Path, kind: str) -> tuple[Path, str]:
    """(cwd, plan argument) for running from the root, a subfolder, or outside."""
    if kind == "root":
        return ws, PLAN_13B
    if kind == "subfolder":
        return ws / "plans", Path(PLAN_13B).name
    if kind == "deep-subfolder":
        deep = ws / "notes" / "a" / "b"
        deep.mkdir(parents=True)
        return deep, os.path.relpath(ws / PLAN_13B, deep)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    return outside, str(ws / PLAN_13B)


PLACES = ["root", "subfolder", "deep-subfolder", "outside"]


@pytest.mark.parametrize("place", PLACES)
def test_custom_intent_is_accepted_by_lint(ws: Path, tmp_path: Path, place: str) -> None:
    make_custom_ws(ws)
    cwd, plan = where(ws, tmp_path, place)
    code, found = lint_json(plan, cwd=cwd)
    assert not [f for f in found if f["rule"] == "plan-block"], found
    assert code == 0, found


@pytest.mark.parametrize("place", PLACES)
def test_custom_intent_is_accepted_by_critic(ws: Path, tmp_path: Path, place: str) -> None:
    make_custom_ws(ws)
    cwd, plan = where(ws, tmp_path, place)
    result = critic(plan, "--format", "json", cwd=cwd)
    assert result.returncode == 0, out(result)
    assert [p["verdict"] for p in json.loads(result.stdout)] == ["APPROVE"]


@pytest.mark.parametrize("place", PLACES)
def test_custom_intent_is_accepted_by_plan(ws: Path, tmp_path: Path, place: str) -> None:
    make_custom_ws(ws)
    cwd, plan = where(ws, tmp_path, place)
    result = router("plan", "--plan", plan, "--phase", "eval", "--format", "json", cwd=cwd)
    assert result.returncode == 0, out(result)
    doc = json.loads(result.stdout)
    assert doc["request"]["intent"] == "eval-13b" and doc["request"]["width"] == 8
    assert doc["rungs"][0]["backend"] == "gcp"


def test_custom_intent_workspace_lints_clean(ws: Path) -> None:
    make_custom_ws(ws)
    result = lint(cwd=ws)
    assert result.returncode == 0, out(result)


@pytest.mark.parametrize("sub", [".", "plans", "notes/deep"])
def test_plan_by_intent_finds_workspace_ladder_from_cwd(ws: Path, sub: str) -> None:
    make_custom_ws(ws)
    cwd = ws / sub
    cwd.mkdir(parents=True, exist_ok=True)
    result = router("plan", "--intent", "eval-13b", "--gpu-count", "4", "--hours", "2",
                    "--format", "json", cwd=cwd)
    assert result.returncode == 0, out(result)
    assert json.loads(result.stdout)["request"]["intent"] == "eval-13b"


def test_critic_on_folder_uses_workspace_ladder(ws: Path, tmp_path: Path) -> None:
    make_custom_ws(ws)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    result = critic(ws / "plans", "--format", "json", cwd=outside)
    assert result.returncode == 1, out(result)  # the example's draft plan is a REVISE
    verdicts = {Path(p["path"]).name: p["verdict"] for p in json.loads(result.stdout)}
    assert verdicts[Path(PLAN_13B).name] == "APPROVE"


@pytest.mark.parametrize("command", ["lint-workspace", "lint-path", "critic", "plan"])
def test_ladder_flag_overrides_the_workspace_ladder(ws: Path, command: str) -> None:
    """The workspace ladder knows eval-13b; --ladder with the packaged ladder does not."""
    make_custom_ws(ws)
    ladder = str(packaged_ladder())
    if command == "lint-workspace":
        code, found = lint_json("--ladder", ladder, cwd=ws)
        assert code == 1 and findings_at(found, PLAN_13B, "plan-block"), found
    elif command == "lint-path":
        code, found = lint_json(PLAN_13B, "--ladder", ladder, cwd=ws)
        assert code == 1 and findings_at(found, PLAN_13B, "plan-block"), found
    elif command == "critic":
        result = critic(PLAN_13B, "--ladder", ladder, cwd=ws)
        assert result.returncode == 2, out(result)
    else:
        result = router("plan", "--plan", PLAN_13B, "--phase", "eval", "--ladder", ladder,
                        cwd=ws)
        assert result.returncode == 2, out(result)


@pytest.mark.parametrize("command", ["lint-workspace", "lint-path", "critic", "plan"])
def test_ladder_flag_supplies_a_custom_intent(ws: Path, tmp_path: Path, command: str) -> None:
    """The workspace names no ladder (packaged: no eval-13b); --ladder FILE adds it."""
    (ws / PLAN_13B).write_text(plan_md(phase_yaml(intent="eval-13b")))
    custom = tmp_path / "ladders" / "custom.yaml"
    custom.parent.mkdir()
    custom.write_text(ladder_with_intent())
    if command.startswith("lint"):
        args = [] if command == "lint-workspace" else [PLAN_13B]
        code, found = lint_json(*args, cwd=ws)
        assert code == 1 and findings_at(found, PLAN_13B, "plan-block"), found  # control
        code, found = lint_json(*args, "--ladder", custom, cwd=ws)
        assert code == 0 and not findings_at(found, PLAN_13B, "plan-block"), found
    elif command == "critic":
        assert critic(PLAN_13B, cwd=ws).returncode == 2  # control
        result = critic(PLAN_13B, "--ladder", custom, cwd=ws)
        assert result.returncode == 0, out(result)
    else:
        args = ["plan", "--plan", PLAN_13B, "--phase", "eval"]
        assert router(*args, cwd=ws).returncode == 2  # control
        result = router(*args, "--ladder", custom, cwd=ws)
        assert result.returncode == 0, out(result)


# --------------------------------------------------- 2. surface discovery defaults


SURFACES = [
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "sub/dir/CLAUDE.md",
    "services/api/CLAUDE.md",
    "AGENTS.md",
    ".claude/agents/runner.md",
    ".claude/rules/compute.md",
    ".claude/rules/team/gpu/backends.md",
]


@pytest.mark.parametrize("sentence", DRIFTS)
@pytest.mark.parametrize("rel", SURFACES)
def test_default_surfaces_are_discovered(bare: Path, rel: str, sentence: str) -> None:
    path = bare / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    front = "---\nname: runner\ndescription: runs jobs\n---\n\n" if "/agents/" in rel else ""
    path.write_text(drift_doc(sentence, front))
    code, found = lint_json(cwd=bare)
    assert findings_at(found, rel, "ladder-drift"), found
    assert code == 1


def test_every_default_surface_in_one_workspace(bare: Path) -> None:
    for rel in SURFACES:
        path = bare / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(drift_doc())
    code, found = lint_json(cwd=bare)
    missing = [rel for rel in SURFACES if not findings_at(found, rel, "ladder-drift")]
    assert not missing and code == 1, (missing, found)


@pytest.mark.parametrize("rel", [".venv/lib/CLAUDE.md", ".git/CLAUDE.md",
                                 "node_modules/pkg/CLAUDE.md"])
def test_nested_claude_md_in_skipped_folders_is_not_a_surface(bare: Path, rel: str) -> None:
    (bare / "CLAUDE.md").write_text("# Guidance\n\nGCP credits are plentiful.\n")
    path = bare / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(drift_doc())
    code, found = lint_json(cwd=bare)
    assert code == 0 and not findings_at(found, rel), found


CRITIC_DRIFT = ("# Critic\n\n## Warn\n\n- **needlessly-narrow** plans get a warning only.\n"
                "- A plan launched with `device_map=auto` counts as parallel work.\n")


@pytest.mark.parametrize("rel", [".claude/agents/critic.md", ".claude/agents/reviewer-gpu.md"])
@pytest.mark.parametrize("name_line", ["name: efficiency-critic", 'name: "efficiency-critic"'])
def test_critic_guidance_recognised_by_front_matter(bare: Path, rel: str, name_line: str) -> None:
    path = bare / rel
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{name_line}\ndescription: reviews plans\n---\n\n{CRITIC_DRIFT}")
    code, found = lint_json(cwd=bare)
    assert findings_at(found, rel, "critic-drift"), found
    assert code == 1


def test_agent_with_another_name_is_not_critic_guidance(bare: Path) -> None:
    rel = ".claude/agents/critic.md"
    path = bare / rel
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: reviewer\ndescription: reviews prose\n---\n\n{CRITIC_DRIFT}")
    _, found = lint_json(cwd=bare)
    assert not findings_at(found, rel, "critic-drift"), found


@pytest.mark.parametrize("rel", [".claude/rules/compute.md", ".claude/agents/runner.md",
                                 ".claude/CLAUDE.md", ".claude/rules/a/b/deep.md"])
def test_lint_dot_descends_into_dot_claude(bare: Path, rel: str) -> None:
    (bare / "CLAUDE.md").write_text("# Guidance\n\nGCP credits are plentiful.\n")
    path = bare / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(drift_doc())
    code, found = lint_json(".", cwd=bare)
    assert findings_at(found, rel, "ladder-drift"), found
    assert code == 1


@pytest.mark.parametrize("layout", ["python-only", "empty", "no-pyproject", "docs-only"])
def test_no_guidance_surface_is_said_on_stderr(tmp_path: Path, layout: str) -> None:
    root = tmp_path / "w"
    root.mkdir()
    if layout != "no-pyproject":
        (root / "pyproject.toml").write_text("[tool.workflow-lint]\n")
    if layout in ("python-only", "no-pyproject"):
        (root / "main.py").write_text("x = 1\n")
    if layout == "docs-only":
        (root / "docs").mkdir()
        (root / "docs" / "README.txt").write_text("hello\n")
    result = lint(cwd=root)
    assert result.returncode == 0, out(result)
    assert result.stderr.strip(), "a run that finds no surface must say so on stderr"
    stderr = result.stderr.replace(str(tmp_path.resolve()), "").replace(str(tmp_path), "")
    assert re.search(r"surface|guidance", stderr, re.IGNORECASE), result.stderr


@pytest.mark.parametrize("n", [1, 4, 9])
def test_dollar_cap_summary_counts_only_python_files(ws: Path, n: int) -> None:
    src = ws / "src"
    src.mkdir()
    for i in range(n):
        (src / f"mod{i}.py").write_text(f"VALUE_{i} = {i}\n")
    (ws / "docs").mkdir()
    (ws / "docs" / "notes.md").write_text("# Notes\n\nNothing about compute.\n")
    result = lint("--select", "dollar-cap", cwd=ws)
    assert result.returncode == 0, out(result)
    assert summary_files(result.stdout) == n


def test_plan_block_summary_counts_only_plans(ws: Path) -> None:
    (ws / "src").mkdir()
    for i in range(5):
        (ws / "src" / f"mod{i}.py").write_text("x = 1\n")
    result = lint("--select", "plan-block", cwd=ws)
    assert result.returncode == 0, out(result)
    assert summary_files(result.stdout) == len(list((ws / "plans").glob("*.md")))


# ------------------------------------------------------------------ 3. plans


NO_SECTION9 = "# Design: caching\n\n## 1. Goal\n\nMake reads faster.\n\n## 2. Plan\n\nCache.\n"


@pytest.mark.parametrize("rel", ["docs/design/plans/x.md", "notes/plans/2024/y.md",
                                 "a/b/c/plans/z.md"])
@pytest.mark.parametrize("arg", ["file", "top-folder", "dot"])
@pytest.mark.parametrize("config", ["example", "default"])
def test_unconfigured_plans_folder_is_not_a_plan(ws: Path, rel: str, arg: str,
                                                 config: str) -> None:
    if config == "default":
        (ws / "pyproject.toml").write_text("[tool.workflow-lint]\n")
    path = ws / rel
    path.parent.mkdir(parents=True)
    path.write_text(NO_SECTION9)
    target = {"file": rel, "top-folder": rel.split("/")[0], "dot": "."}[arg]
    code, found = lint_json(target, cwd=ws)
    assert not findings_at(found, rel, "plan-block"), found
    assert code == 0, found


def test_unconfigured_plans_folder_workspace_mode(ws: Path) -> None:
    rel = "docs/design/plans/x.md"
    (ws / rel).parent.mkdir(parents=True)
    (ws / rel).write_text(NO_SECTION9)
    code, found = lint_json(cwd=ws)
    assert code == 0 and not findings_at(found, rel), found


@pytest.mark.parametrize("arg", ["file", "folder", "dot", "workspace"])
def test_configured_plan_without_section9_is_reported(ws: Path, arg: str) -> None:
    rel = "plans/new.md"
    (ws / rel).write_text(NO_SECTION9)
    args = {"file": [rel], "folder": ["plans"], "dot": ["."], "workspace": []}[arg]
    code, found = lint_json(*args, cwd=ws)
    assert code == 1 and findings_at(found, rel, "plan-block"), found


@pytest.mark.parametrize("arg", ["file", "workspace"])
def test_custom_plan_glob_is_a_plan(ws: Path, arg: str) -> None:
    (ws / "pyproject.toml").write_text('[tool.workflow-lint]\nplans = ["research/**/*.md"]\n')
    rel = "research/q3/y.md"
    (ws / rel).parent.mkdir(parents=True)
    (ws / rel).write_text(NO_SECTION9)
    code, found = lint_json(*([rel] if arg == "file" else []), cwd=ws)
    assert code == 1 and findings_at(found, rel, "plan-block"), found


NOT_SECTION9 = ["## 9. Safety Rules", "### 9.3 Make Resources and SLURM First-Class",
                "## 9 Safety", "## 9. Risks and mitigations", "### 9.1 Compute budget notes"]


def fake_section(heading: str, with_yaml: bool) -> str:
    body = f"{heading}\n\nNever run jobs as root.\n\n"
    if with_yaml:
        body += "```yaml\nrules:\n  - no-root\n  - no-secrets\n```\n\n"
    return body


@pytest.mark.parametrize("with_yaml", [False, True])
@pytest.mark.parametrize("position", ["before", "after"])
@pytest.mark.parametrize("heading", NOT_SECTION9)
def test_numbered_headings_are_not_section9(ws: Path, heading: str, position: str,
                                            with_yaml: bool) -> None:
    fake = fake_section(heading, with_yaml)
    rel = "plans/numbered.md"
    text = plan_md(phase_yaml(), before=fake if position == "before" else "",
                   after=fake if position == "after" else "")
    (ws / rel).write_text(text)
    result = critic(rel, "--format", "json", cwd=ws)
    assert result.returncode == 0, out(result)
    code, found = lint_json(rel, cwd=ws)
    assert code == 0 and not findings_at(found, rel, "plan-block"), found
    plan = router("plan", "--plan", rel, "--phase", "eval", cwd=ws)
    assert plan.returncode == 0, out(plan)


@pytest.mark.parametrize("heading", NOT_SECTION9)
def test_numbered_heading_alone_is_no_section9(ws: Path, heading: str) -> None:
    rel = "plans/numbered.md"
    (ws / rel).write_text(f"# Plan\n\n{fake_section(heading, True)}")
    assert critic(rel, cwd=ws).returncode == 2
    code, found = lint_json(rel, cwd=ws)
    assert code == 1 and findings_at(found, rel, "plan-block"), found


SECTION9 = ["## §9 Compute", "## 9. Compute", "## 9 Compute plan", "### 9. Compute and storage",
            "# 9 Compute", "## §9"]


@pytest.mark.parametrize("heading", SECTION9)
def test_section9_headings_are_read(ws: Path, heading: str) -> None:
    rel = "plans/s9.md"
    (ws / rel).write_text(plan_md(phase_yaml(), heading=heading))
    assert critic(rel, cwd=ws).returncode == 0
    code, found = lint_json(rel, cwd=ws)
    assert code == 0 and not findings_at(found, rel, "plan-block"), found
    assert router("plan", "--plan", rel, "--phase", "eval", cwd=ws).returncode == 0
    # The block is really read: a wasteful launch is a REVISE, a bad width an error.
    (ws / rel).write_text(plan_md(phase_yaml(launch="python eval.py"), heading=heading))
    assert critic(rel, cwd=ws).returncode == 1
    (ws / rel).write_text(plan_md(phase_yaml(width=3), heading=heading))
    assert critic(rel, cwd=ws).returncode == 2
    code, found = lint_json(rel, cwd=ws)
    assert code == 1 and findings_at(found, rel, "plan-block"), found


@pytest.mark.parametrize("fence", ["yml", "yaml"])
def test_yml_fence_is_accepted(ws: Path, fence: str) -> None:
    rel = "plans/fence.md"
    (ws / rel).write_text(plan_md(phase_yaml(), fence=fence))
    assert critic(rel, cwd=ws).returncode == 0
    code, found = lint_json(rel, cwd=ws)
    assert code == 0 and not findings_at(found, rel), found
    assert router("plan", "--plan", rel, "--phase", "eval", cwd=ws).returncode == 0
    (ws / rel).write_text(plan_md(phase_yaml(launch="python eval.py"), fence=fence))
    assert critic(rel, cwd=ws).returncode == 1
    (ws / rel).write_text(plan_md(phase_yaml(width=6), fence=fence))
    code, found = lint_json(rel, cwd=ws)
    assert code == 1 and findings_at(found, rel, "plan-block"), found


def test_every_schema_error_across_phases_is_reported(ws: Path) -> None:
    phases = (phase_yaml(name="alpha", width=3)
              + phase_yaml(name="bravo") + "    colour: red\n"
              + phase_yaml(name="charlie", gpu_hours=0)
              + "  - name: delta\n    intent: eval-7b\n    width: 1\n    gpu_hours: 1\n"
              + phase_yaml(name="echo", intent="eval-7x"))
    rel = "plans/many-errors.md"
    (ws / rel).write_text(plan_md(phases))
    code, found = lint_json(rel, cwd=ws)
    errors = findings_at(found, rel, "plan-block")
    assert code == 1 and len(errors) >= 5, found
    for name in ("alpha", "bravo", "charlie", "delta", "echo"):
        assert any(name in f["message"] for f in errors), (name, errors)
    result = critic(rel, cwd=ws)
    assert result.returncode == 2
    for name in ("alpha", "bravo", "charlie", "delta", "echo"):
        assert name in result.stderr, (name, result.stderr)


def test_every_schema_error_of_one_phase_is_reported(ws: Path) -> None:
    phases = ("  - name: solo\n    intent: eval-7b\n    width: 3\n    gpu_hours: -1\n"
              "    launch: python x.py\n    colour: red\n")
    rel = "plans/one-phase-errors.md"
    text = plan_md(phases)
    (ws / rel).write_text(text)
    lines = text.splitlines()
    expected = {i + 1 for i, line in enumerate(lines)
                if line.strip().startswith(("width:", "gpu_hours:", "colour:"))}
    assert len(expected) == 3
    code, found = lint_json(rel, cwd=ws)
    errors = findings_at(found, rel, "plan-block")
    assert code == 1 and {f["line"] for f in errors} >= expected, found
    result = critic(rel, cwd=ws)
    assert result.returncode == 2
    for key in ("width", "gpu_hours", "colour"):
        assert key in result.stderr, (key, result.stderr)


# ------------------------------------------------------ 4. pre-commit-facing CLI


@pytest.mark.parametrize("module", ["lint", "critics", "router"])
def test_version_flag(tmp_path: Path, module: str) -> None:
    result = run(module, "--version", cwd=tmp_path)
    assert result.returncode == 0, out(result)
    assert re.search(r"\d+\.\d+", out(result)), out(result)
    assert len(out(result).strip().splitlines()) == 1


def test_list_rules(tmp_path: Path) -> None:
    result = lint("--list-rules", cwd=tmp_path)
    assert result.returncode == 0, out(result)
    for rule in CONTRACT_RULES:
        assert rule in result.stdout, rule


@pytest.mark.parametrize("rule", CONTRACT_RULES)
def test_rule_documentation(tmp_path: Path, rule: str) -> None:
    result = lint("rule", rule, cwd=tmp_path)
    assert result.returncode == 0, out(result)
    assert rule in result.stdout and len(result.stdout) > 200


@pytest.mark.parametrize("name", ["ladder-drfit", "no-such-rule", "LADDER DRIFT"])
def test_unknown_rule_is_usage_error(tmp_path: Path, name: str) -> None:
    result = lint("rule", name, cwd=tmp_path)
    assert result.returncode == 2, out(result)
    assert result.stderr.count("\n") == 1, result.stderr


def test_sarif_rules_have_help_uri(ws: Path) -> None:
    (ws / "CLAUDE.md").write_text(drift_doc())
    (ws / "src").mkdir()
    (ws / "src" / "budget.py").write_text("MAX_COST_USD = 5\n")
    result = lint("--format", "sarif", cwd=ws)
    assert result.returncode == 1, out(result)
    sarif = json.loads(result.stdout)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert "ladder-drift" in ids and "dollar-cap" in ids
    for r in rules:
        uri = r.get("helpUri")
        assert isinstance(uri, str) and urlparse(uri).scheme in ("http", "https"), r
    for res in sarif["runs"][0]["results"]:
        assert rules[ids.index(res["ruleId"])].get("helpUri")


def make_excluded(ws: Path) -> None:
    text = (ws / "pyproject.toml").read_text()
    (ws / "pyproject.toml").write_text(text.rstrip() + '\nexclude = ["legacy/**"]\n')
    (ws / "legacy").mkdir()
    (ws / "legacy" / "notes.md").write_text(drift_doc())
    (ws / "legacy" / "budget.py").write_text("MAX_COST_USD = 5\n")
    (ws / "legacy" / "CLAUDE.md").write_text(drift_doc())


EXCLUDED = ["legacy/notes.md", "legacy/budget.py", "legacy/CLAUDE.md"]


def test_force_exclude_applies_exclude_to_named_files(ws: Path) -> None:
    make_excluded(ws)
    code, found = lint_json(*EXCLUDED, "--force-exclude", cwd=ws)
    assert code == 0 and not found, found
    result = lint("--force-exclude", "legacy/notes.md", cwd=ws)
    assert result.returncode == 0, out(result)


def test_force_exclude_still_lints_files_not_excluded(ws: Path) -> None:
    make_excluded(ws)
    (ws / "CLAUDE.md").write_text(drift_doc())
    code, found = lint_json("CLAUDE.md", *EXCLUDED, "--force-exclude", cwd=ws)
    assert code == 1 and findings_at(found, "CLAUDE.md", "ladder-drift"), found
    assert not [f for f in found if f["path"].startswith("legacy")], found


def test_without_force_exclude_named_files_are_linted(ws: Path) -> None:
    make_excluded(ws)
    code, found = lint_json(*EXCLUDED, cwd=ws)
    assert code == 1
    assert findings_at(found, "legacy/notes.md", "ladder-drift"), found
    assert findings_at(found, "legacy/budget.py", "dollar-cap"), found


def test_pre_commit_hook_fires_on_ladder_and_config_files() -> None:
    """The workflow-lint hook triggers on YAML and TOML (a ladder-only or pyproject-only
    commit) and passes --force-exclude; batches must not contradict each other."""
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in hooks if h["id"] == "workflow-lint")
    types = set(hook.get("types_or", [])) | set(hook.get("types", []))
    files = re.compile(hook.get("files", ""))
    for name, kind in (("ladder.yaml", "yaml"), ("config/ladder.yml", "yaml"),
                       ("pyproject.toml", "toml")):
        assert kind in types or (not types and files.search(name)), (name, hook)
    assert "--force-exclude" in [*hook.get("args", []), *str(hook["entry"]).split()], hook


def changed_ladder_ws(ws: Path) -> Path:
    """The example workspace with its own ladder whose short threshold is 6 h: the
    CLAUDE.md sentence "short jobs (under 4 h at that width)" is now stale."""
    data = yaml.safe_load(packaged_ladder().read_text())
    data["short_threshold_hours"] = 6
    (ws / "ladder.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    text = (ws / "pyproject.toml").read_text()
    (ws / "pyproject.toml").write_text(text.rstrip() + '\nladder = "ladder.yaml"\n')
    return ws


def test_changed_ladder_is_caught_in_workspace_mode(ws: Path) -> None:
    changed_ladder_ws(ws)
    code, found = lint_json(cwd=ws)
    assert code == 1 and findings_at(found, "CLAUDE.md", "ladder-drift"), found


@pytest.mark.parametrize("changed", [["ladder.yaml"], ["pyproject.toml"],
                                     ["ladder.yaml", "pyproject.toml"]])
def test_ladder_or_config_change_lints_the_whole_workspace(ws: Path,
                                                          changed: list[str]) -> None:
    """pre-commit passes only the changed files; a ladder or config change must still
    report the guidance it made stale."""
    changed_ladder_ws(ws)
    code, found = lint_json(*changed, cwd=ws)
    assert code == 1 and findings_at(found, "CLAUDE.md", "ladder-drift"), found


# ------------------------------------------------------------ 5. hardened inputs


HUGE = [
    ("width", "8" + "0" * 300),
    ("width", "-" + "9" * 300),
    ("gpu_hours", "1" * 400),
    ("gpu_hours", "9" * 300 + ".5"),
    ("gpu_hours", "1" * 5000),
    ("axis", "1" + "0" * 300),
]


def huge_phase(field: str, value: str) -> str:
    if field == "width":
        return phase_yaml(name="p", width=value)
    if field == "gpu_hours":
        return phase_yaml(name="p", gpu_hours=value)
    return phase_yaml(name="p", axis=value)


@pytest.mark.parametrize(("field", "value"), HUGE, ids=lambda v: str(v)[:12])
def test_huge_number_in_section9(ws: Path, field: str, value: str) -> None:
    rel = "plans/huge.md"
    (ws / rel).write_text(plan_md(huge_phase(field, value)))
    result = critic(rel, cwd=ws, timeout=30)
    assert result.returncode == 2, out(result)[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    plan = router("plan", "--plan", rel, "--phase", "p", cwd=ws, timeout=30)
    assert plan.returncode == 2, out(plan)[-2000:]
    assert len(plan.stderr.strip().splitlines()) == 1, plan.stderr[-2000:]
    code, found = lint_json(rel, cwd=ws, timeout=30)
    assert code == 1 and findings_at(found, rel, "plan-block"), found


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(field=st.sampled_from(["width", "gpu_hours", "axis"]),
       digits=st.integers(min_value=100, max_value=4500),
       negative=st.booleans())
def test_huge_numbers_hypothesis(tmp_path_factory: pytest.TempPathFactory, field: str,
                                 digits: int, negative: bool) -> None:
    root = tmp_path_factory.mktemp("huge")
    value = ("-" if negative else "") + "7" * digits
    (root / "plan.md").write_text(plan_md(huge_phase(field, value)))
    result = critic("plan.md", cwd=root, timeout=30)
    assert result.returncode == 2, out(result)[-2000:]


def symlink_loop(at: Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    twin = at.with_name("twin-" + at.name)
    at.symlink_to(twin.name)
    twin.symlink_to(at.name)


def default_ws(ws: Path) -> Path:
    """The example workspace with default surfaces (no `surfaces` key)."""
    (ws / "pyproject.toml").write_text("[tool.workflow-lint]\n")
    return ws


@pytest.mark.parametrize("mode", ["workspace", "dot", "rules-folder"])
def test_symlink_loop_in_surfaces_is_reported_not_a_crash(ws: Path, mode: str) -> None:
    default_ws(ws)
    symlink_loop(ws / ".claude" / "rules" / "loop.md")
    args = {"workspace": [], "dot": ["."], "rules-folder": [".claude/rules"]}[mode]
    result = lint(*args, cwd=ws, timeout=60)
    assert result.returncode in (1, 2), out(result)
    assert "loop.md" in out(result), out(result)


def test_symlink_loop_named_explicitly(ws: Path) -> None:
    symlink_loop(ws / "plans" / "loopy.md")
    symlink_loop(ws / "notes" / "loop.md")
    result = lint("notes/loop.md", cwd=ws, timeout=60)
    assert result.returncode in (1, 2) and "loop.md" in out(result), out(result)
    assert critic("plans/loopy.md", cwd=ws, timeout=60).returncode == 2
    plan = router("plan", "--plan", "plans/loopy.md", cwd=ws, timeout=60)
    assert plan.returncode == 2, out(plan)


def test_symlink_loop_in_plans_folder(ws: Path) -> None:
    symlink_loop(ws / "plans" / "loopy.md")
    result = critic("plans", cwd=ws, timeout=60)
    assert result.returncode in (1, 2), out(result)
    result = lint(cwd=ws, timeout=60)
    assert result.returncode in (0, 1, 2), out(result)


@pytest.mark.parametrize("mode", ["workspace", "dot", "critic"])
def test_directory_symlink_cycle_is_bounded(ws: Path, mode: str) -> None:
    default_ws(ws)
    (ws / "docs").mkdir()
    (ws / "docs" / "up").symlink_to("..")
    (ws / ".claude" / "rules" / "self").symlink_to(".")
    (ws / "plans" / "again").symlink_to("../plans")
    if mode == "critic":
        result = critic("plans", cwd=ws, timeout=60)
    else:
        result = lint(*(["."] if mode == "dot" else []), cwd=ws, timeout=60)
    assert result.returncode in (0, 1, 2), out(result)


STALE_REGION = ("\n<!-- workflow-lint:generated ladder-order -->\n1. stale text\n"
                "<!-- workflow-lint:end -->\n")


def escape_setup(ws: Path, tmp_path: Path) -> tuple[dict[Path, bytes], dict[Path, str]]:
    """Surfaces of the example workspace that are links to files outside it, each with a
    stale generated region and a drift. Returns the outside bytes and the links."""
    outside = tmp_path / "outside"
    outside.mkdir()
    claude = outside / "CLAUDE.md"
    claude.write_text((ws / "CLAUDE.md").read_text() + STALE_REGION + "\nRunPod is tried first.\n")
    rules_dir = outside / "rules"
    rules_dir.mkdir()
    failover = ws / ".claude" / "rules" / "compute-backend-failover.md"
    (rules_dir / failover.name).write_text(failover.read_text() + STALE_REGION)
    (ws / "CLAUDE.md").unlink()
    (ws / "CLAUDE.md").symlink_to(claude)
    shutil.rmtree(ws / ".claude" / "rules")
    (ws / ".claude" / "rules").symlink_to(rules_dir, target_is_directory=True)
    before = {p: p.read_bytes() for p in (claude, rules_dir / failover.name)}
    links = {ws / "CLAUDE.md": os.readlink(ws / "CLAUDE.md"),
             ws / ".claude" / "rules": os.readlink(ws / ".claude" / "rules")}
    return before, links


# However it is worded, a message about a link that leaves the workspace names it so.
SAYS_OUTSIDE = re.compile(r"outside|link|beyond|escape", re.IGNORECASE)


def says_outside(result: subprocess.CompletedProcess[str], tmp_path: Path) -> bool:
    text = out(result)
    for prefix in {str(tmp_path.resolve()), str(tmp_path)}:
        text = text.replace(prefix, "")
    return bool(SAYS_OUTSIDE.search(text))


def assert_untouched(before: dict[Path, bytes], links: dict[Path, str]) -> None:
    for path, data in before.items():
        assert path.read_bytes() == data, f"{path} outside the workspace was rewritten"
    for link, target in links.items():
        assert link.is_symlink(), f"{link} was replaced by a regular file"
        assert os.readlink(link) == target


@pytest.mark.parametrize("args", [["--fix"], ["--fix", "."], ["--fix", "CLAUDE.md"]])
def test_fix_never_writes_outside_nor_replaces_links(ws: Path, tmp_path: Path,
                                                     args: list[str]) -> None:
    before, links = escape_setup(ws, tmp_path)
    result = lint(*args, cwd=ws)
    assert_untouched(before, links)
    assert "CLAUDE.md" in out(result), "an outside link must not be skipped silently"
    assert says_outside(result, tmp_path), out(result)


def test_lint_says_so_when_a_surface_points_outside(ws: Path, tmp_path: Path) -> None:
    before, links = escape_setup(ws, tmp_path)
    result = lint(cwd=ws)
    assert result.returncode in (1, 2)
    assert "CLAUDE.md" in out(result) and "compute-backend-failover.md" in out(result)
    assert says_outside(result, tmp_path), out(result)
    assert_untouched(before, links)


@pytest.mark.parametrize("config", ["default", "explicit"])
def test_fix_keeps_an_inside_link_a_link(bare: Path, config: str) -> None:
    if config == "explicit":
        (bare / "pyproject.toml").write_text('[tool.workflow-lint]\nsurfaces = ["AGENTS.md"]\n')
    (bare / "docs").mkdir()
    guide = bare / "docs" / "guide.md"
    guide.write_text("# Guide\n\n## Compute backends\n" + STALE_REGION)
    (bare / "AGENTS.md").symlink_to("docs/guide.md")
    lint("--fix", cwd=bare)
    assert (bare / "AGENTS.md").is_symlink()
    assert os.readlink(bare / "AGENTS.md") == "docs/guide.md"


@pytest.fixture
def fifo_ws(ws: Path) -> Path:
    os.mkfifo(ws / "plans" / "fifo.md")
    return ws


def test_fifo_plan_critic(fifo_ws: Path) -> None:
    result = critic("plans/fifo.md", cwd=fifo_ws, timeout=30)
    assert result.returncode == 2 and "fifo.md" in result.stderr, out(result)


def test_fifo_plan_router(fifo_ws: Path) -> None:
    result = router("plan", "--plan", "plans/fifo.md", "--phase", "p", cwd=fifo_ws, timeout=30)
    assert result.returncode == 2 and "fifo.md" in result.stderr, out(result)


def test_fifo_plan_lint(fifo_ws: Path) -> None:
    result = lint("plans/fifo.md", cwd=fifo_ws, timeout=30)
    assert result.returncode in (1, 2) and "fifo.md" in out(result), out(result)


def test_fifo_in_folders_does_not_hang(fifo_ws: Path) -> None:
    os.mkfifo(fifo_ws / ".claude" / "rules" / "pipe.md")
    result = critic("plans", cwd=fifo_ws, timeout=30)
    assert result.returncode in (1, 2), out(result)
    result = lint(".", cwd=fifo_ws, timeout=30)
    assert result.returncode in (1, 2) and "fifo.md" in out(result), out(result)
    result = lint(cwd=fifo_ws, timeout=30)
    assert result.returncode in (0, 1, 2), out(result)


def test_fifo_surface(ws: Path) -> None:
    (ws / "CLAUDE.md").unlink()
    os.mkfifo(ws / "CLAUDE.md")
    result = lint(cwd=ws, timeout=30)
    assert result.returncode in (1, 2) and "CLAUDE.md" in out(result), out(result)
    default_ws(ws)
    result = lint(cwd=ws, timeout=30)
    assert result.returncode in (1, 2) and "CLAUDE.md" in out(result), out(result)


def _drop_dac() -> None:
    """preexec_fn: as root, drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the
    bounding set so that file permissions apply to the command (like `setpriv
    --bounding-set -dac_override,-dac_read_search`). A no-op for other users."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP


def _require_effective_chmod(path: Path) -> None:
    """Running as root, chmod 000 only binds a process without the DAC capabilities;
    the commands run through _drop_dac. If even that cannot stop a listing (a
    container without prctl), the test cannot observe the behaviour and skips."""
    probe = subprocess.run([sys.executable, "-c", "import os, sys; os.listdir(sys.argv[1])",
                            str(path)], capture_output=True, preexec_fn=_drop_dac, timeout=30)
    if probe.returncode == 0:
        pytest.skip("chmod 000 is not effective here (root with DAC capabilities)")


@pytest.fixture
def locked(ws: Path):
    """The example workspace (default surfaces) with an unreadable rules folder and an
    unreadable plans subfolder."""
    default_ws(ws)
    rules = ws / ".claude" / "rules"
    archive = ws / "plans" / "archive"
    archive.mkdir()
    (archive / "old.md").write_text(plan_md(phase_yaml()))
    for d in (rules, archive):
        d.chmod(0)
    try:
        _require_effective_chmod(rules)
        yield ws
    finally:
        for d in (rules, archive):
            d.chmod(0o755)


@pytest.mark.parametrize("args", [[], ["."], [".claude"]])
def test_unreadable_folder_is_a_file_error_in_lint(locked: Path, args: list[str]) -> None:
    code, found = lint_json(*args, cwd=locked, preexec_fn=_drop_dac)
    errors = [f for f in found if f["rule"] == "file-error" and ".claude/rules" in f["path"]]
    assert code == 1 and errors, found


def test_unreadable_folder_is_bad_input_for_critic(locked: Path) -> None:
    result = critic("plans", cwd=locked, preexec_fn=_drop_dac)
    assert result.returncode == 2 and "archive" in result.stderr, out(result)


def test_unreadable_plans_folder_in_lint_path_mode(locked: Path) -> None:
    code, found = lint_json("plans", cwd=locked, preexec_fn=_drop_dac)
    assert code == 1 and [f for f in found if f["rule"] == "file-error"
                          and "plans/archive" in f["path"]], found


GIB = 1 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def _nested_bash_c(depth: int) -> str:
    command = "python w.py & python w.py & wait"
    for _ in range(depth):
        command = "bash -c " + shlex.quote(command)
    return command


NESTED_BASH_C = _nested_bash_c(7)

HOSTILE = [
    "for i in {0..999999999}; do CUDA_VISIBLE_DEVICES=$i python w.py --shard $i & done; wait",
    "for i in {0..99999}{0..99999}{0..99999}; do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "echo {1..9}{1..9}{1..9}{1..9}{1..9}{1..9}{1..9}{1..9}{1..9}{1..9}{1..9}; python w.py",
    "for i in {0..7}; do for j in {0..999999999}; do CUDA_VISIBLE_DEVICES=$i python w.py & done;"
    " done; wait",
    "vllm serve m --tensor-parallel-size " + "9" * 300,
    "vllm serve m --tensor-parallel-size 99999999 --pipeline-parallel-size 99999999"
    " --data-parallel-size 99999999",
    "parallel -j 1e26 python w.py ::: a b c",
    "parallel -j 1e26 'CUDA_VISIBLE_DEVICES=$(({%} - 1)) python w.py {}' ::: a b c",
    "parallel -j " + "9" * 300 + " python w.py ::: a b",
    "xargs -P 99999999999999999999 -n 1 python w.py < items.txt",
    "torchrun --nproc_per_node=" + "9" * 300 + " train.py",
    "for i in $(seq 0 999999999999); do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "for i in $(seq 0 1e30); do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "for ((i=0; i<10**18; i++)); do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "for ((i=0; i<" + "9" * 300 + "; i++)); do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "python w.py --num-shards " + "9" * 300,
    "deepspeed --num_gpus " + "9" * 300 + " train.py",
    "accelerate launch --num_processes 1e300 train.py",
    "srun --ntasks " + "9" * 300 + " python w.py",
    "python -m sglang.launch_server --tp " + "9" * 300 + " --dp " + "9" * 300,
    "(" * 400 + "python w.py" + ")" * 400,
    NESTED_BASH_C,
    "python w.py " + "&& python w.py " * 5000,
    "CUDA_VISIBLE_DEVICES=" + ",".join(str(i) for i in range(20000)) + " python w.py",
]


def hostile_plan(launch: str) -> str:
    return plan_from_phases([{"name": "p", "intent": "eval-7b", "width": 8, "gpu_hours": 8,
                              "shardable_axis": {"name": "checkpoint", "size": 8},
                              "launch": launch}])


@pytest.mark.parametrize("launch", HOSTILE, ids=lambda s: re.sub(r"\W+", "_", s)[:40])
def test_hostile_launch_is_judged_in_bounded_time_and_memory(tmp_path: Path,
                                                             launch: str) -> None:
    (tmp_path / "plan.md").write_text(hostile_plan(launch))
    result = critic("plan.md", "--format", "json", cwd=tmp_path, timeout=20,
                    preexec_fn=_limit_memory)
    assert "MemoryError" not in out(result)
    assert result.returncode in (0, 1, 2), out(result)[-2000:]
    if result.returncode == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]
    else:
        assert json.loads(result.stdout)[0]["verdict"] in ("APPROVE", "REVISE")
    lint_result = lint("plan.md", cwd=tmp_path, timeout=20, preexec_fn=_limit_memory)
    assert lint_result.returncode in (0, 1), out(lint_result)[-2000:]


HOSTILE_TEMPLATES = [
    "for i in {{0..{n}}}; do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "vllm serve m --tensor-parallel-size {n} --data-parallel-size {n}",
    "parallel -j {n} python w.py ::: a b c",
    "xargs -P {n} python w.py < x",
    "torchrun --nproc_per_node={n} train.py",
    "for i in $(seq 0 {n}); do CUDA_VISIBLE_DEVICES=$i python w.py & done; wait",
    "python w.py --num-shards {n}",
    "parallel -j {n}e{n} python w.py ::: a",
]


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True, phases=[Phase.explicit, Phase.generate])
@given(template=st.sampled_from(HOSTILE_TEMPLATES),
       number=st.one_of(st.integers(min_value=10**6, max_value=10**12),
                        st.integers(min_value=20, max_value=400).map(lambda k: "9" * k)))
def test_hostile_launch_hypothesis(tmp_path_factory: pytest.TempPathFactory, template: str,
                                   number: object) -> None:
    root = tmp_path_factory.mktemp("hostile")
    (root / "plan.md").write_text(hostile_plan(template.format(n=number)))
    result = critic("plan.md", cwd=root, timeout=20, preexec_fn=_limit_memory)
    assert "MemoryError" not in out(result)
    assert result.returncode in (0, 1, 2)


CATASTROPHIC = [
    (r"^(a+)+$", "a" * 5000 + "!"),
    (r"(a|a)+$", "a" * 5000 + "!"),
    (r"(a|aa)+$", "a" * 5000 + "!"),
    (r"(a*)*b", "a" * 5000 + "!"),
    (r"(a+)+b", "a" * 5000 + "!"),
    (r"^(\w+\s?)*$", "a " * 2500 + "!"),
    (r"^(([a-z])+.)+[A-Z]([a-z])+$", "a" * 5000 + "!"),
    (r"(.*a){30}", "a" * 5000 + "!"),
    (r"(x+x+)+y", "x" * 5000 + "!"),
]


@pytest.mark.parametrize(("pattern", "text"), CATASTROPHIC, ids=lambda v: str(v)[:16])
def test_catastrophic_stale_claim_pattern_is_bounded(bare: Path, pattern: str,
                                                     text: str) -> None:
    text_pyproject = '[tool.workflow-lint]\nstale_claims = "stale.yaml"\n'
    (bare / "pyproject.toml").write_text(text_pyproject)
    (bare / "stale.yaml").write_text(yaml.safe_dump(
        [{"id": "hostile", "message": "retired", "patterns": [pattern]}]))
    (bare / "CLAUDE.md").write_text(f"# Guidance\n\n{text}\n\nGCP is tried first.\n")
    result = lint(cwd=bare, timeout=20)
    assert result.returncode in (0, 1, 2), out(result)
    if result.returncode == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_ordinary_stale_claim_pattern_still_works(bare: Path) -> None:
    (bare / "pyproject.toml").write_text('[tool.workflow-lint]\nstale_claims = "stale.yaml"\n')
    (bare / "stale.yaml").write_text(yaml.safe_dump(
        [{"id": "tuesdays", "message": "retired", "patterns": ["only on tuesdays"]}]))
    (bare / "CLAUDE.md").write_text("# Guidance\n\nThe router runs only on Tuesdays.\n")
    code, found = lint_json(cwd=bare, timeout=20)
    assert code == 1 and findings_at(found, "CLAUDE.md", "stale-claim"), found


# ------------------------------------- every critic suggestion earns APPROVE when pasted


FIXED_REVISE = [
    (8, 8, 8, "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python eval.py --ckpt all"),
    (4, 8, 4, "CUDA_VISIBLE_DEVICES=0,1,2,3 python eval.py --ckpt all"),
    (8, 16, 8, "python sweep.py --ranks 4,8,16,32,64,128,256,512"),
    (1, 6, 8, "python eval.py --all-checkpoints"),
    (8, 8, 8, "for i in $(seq 0 7); do CUDA_VISIBLE_DEVICES=$i python gen.py --shard $i; done"),
    (8, 8, 8, "for i in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$i python w.py --num-shards 4 "
              "--shard-id $i & done; wait"),
    (8, 8, 8, "python eval.py --model \"my model\" --out 'out dir'"),
    (4, 8, 4, "export CUDA_VISIBLE_DEVICES=0,1,2,3; python eval.py --batch 64 > log.txt 2>&1"),
    (8, 8, 8, "cd work && python eval.py --split test"),
    (2, 4, 2, "python eval.py --model m --device_map auto"),
    (8, 8, 8, "CUDA_VISIBLE_DEVICES=0 python eval.py --device cuda:0"),
    (2, 4, 8, "python -u eval.py --limit 100 | tee log.txt"),
]


def _key_tokens(launch: str) -> set[str]:
    tokens = set(re.findall(r"[\w./-]+\.py\b", launch))
    return tokens or {launch.split()[0]}


def suggested_commands(finding: dict, launch: str) -> list[str]:
    """The backtick-quoted parts of a suggestion that are whole launch commands (they
    name the original program), not flag fragments such as `--nproc_per_node={width}`."""
    keys = _key_tokens(launch)
    return [seg for seg in re.findall(r"`([^`]+)`", finding.get("suggestion") or "")
            if len(seg.split()) >= 2 and any(k in seg for k in keys)]


def suggested_width(finding: dict, width: int) -> int:
    match = re.search(r"\bwidth:\s*(\d+)", finding.get("suggestion") or "")
    return int(match.group(1)) if match else width


def paste_and_review(tmp_path: Path, cases: list[tuple[str, list[dict], str, dict]]) -> None:
    """cases: (label, phases, phase name, finding). Write each plan with the finding's
    suggested command pasted into that phase, review them all, and require no error
    finding on the pasted phase."""
    pasted = tmp_path / "pasted"
    pasted.mkdir()
    index: dict[str, tuple[str, str, str]] = {}
    for n, (label, phases, name, finding) in enumerate(cases):
        phase = next(p for p in phases if p["name"] == name)
        for m, command in enumerate(suggested_commands(finding, phase["launch"])):
            new = copy.deepcopy(phases)
            target = next(p for p in new if p["name"] == name)
            target["launch"] = command
            target["width"] = suggested_width(finding, phase["width"])
            file = f"case{n:03d}-{m}.md"
            (pasted / file).write_text(plan_from_phases(new))
            index[file] = (label, name, command)
    assert index, "no suggestion with a command to check"
    result = critic(*sorted(index), "--format", "json", cwd=pasted, timeout=120)
    assert result.returncode in (0, 1), out(result)[-3000:]
    bad = []
    for review in json.loads(result.stdout):
        label, name, command = index[Path(review["path"]).name]
        errors = [f["rule"] for f in review["findings"]
                  if f["phase"] == name and (f.get("severity", "error") == "error"
                                             or f["rule"] in DENY_RULES)]
        if errors:
            bad.append((label, command, errors))
    assert not bad, "suggestions that do not earn APPROVE:\n" + "\n".join(map(str, bad))


def test_fixed_suggestions_earn_approve(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    phases_of: dict[str, list[dict]] = {}
    for n, (width, hours, axis, launch) in enumerate(FIXED_REVISE):
        phases = [{"name": "main", "intent": "eval-7b", "width": width, "gpu_hours": hours,
                   "shardable_axis": {"name": "checkpoint", "size": axis}, "launch": launch}]
        phases_of[f"fixed{n:02d}.md"] = phases
        (src / f"fixed{n:02d}.md").write_text(plan_from_phases(phases))
    result = critic(*sorted(phases_of), "--format", "json", cwd=src)
    reviews = json.loads(result.stdout)
    assert [r["verdict"] for r in reviews] == ["REVISE"] * len(FIXED_REVISE), reviews
    cases = [(r["path"], phases_of[Path(r["path"]).name], f["phase"], f)
             for r in reviews for f in r["findings"] if f["rule"] in DENY_RULES]
    paste_and_review(tmp_path, cases)


def test_one_process_on_eight_suggestion_pins_one_gpu_per_worker(tmp_path: Path) -> None:
    launch = FIXED_REVISE[0][3]
    phases = [{"name": "main", "intent": "eval-7b", "width": 8, "gpu_hours": 8,
               "shardable_axis": {"name": "checkpoint", "size": 8}, "launch": launch}]
    (tmp_path / "p.md").write_text(plan_from_phases(phases))
    review = json.loads(critic("p.md", "--format", "json", cwd=tmp_path).stdout)[0]
    assert review["verdict"] == "REVISE"
    commands = [c for f in review["findings"] for c in suggested_commands(f, launch)]
    assert commands, review
    for command in commands:
        assert not re.search(r"CUDA_VISIBLE_DEVICES=\S+\s+CUDA_VISIBLE_DEVICES=", command), command
        assert "0,1,2,3,4,5,6,7" not in command, command
    paste_and_review(tmp_path, [("one-process-on-8", phases, "main", f)
                                for f in review["findings"] if f["rule"] in DENY_RULES])


def _section9_phases(text: str) -> list[dict] | None:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines)
                  if line.startswith("#") and "§9" in line), None)
    if start is None:
        return None
    fence = next((i for i in range(start + 1, len(lines))
                  if re.match(r"```\s*ya?ml\s*$", lines[i])), None)
    if fence is None:
        return None
    end = next(i for i in range(fence + 1, len(lines)) if lines[i].startswith("```"))
    data = yaml.safe_load("\n".join(lines[fence + 1:end]))
    phases = data.get("phases") if isinstance(data, dict) else None
    return phases if isinstance(phases, list) and phases else None


def test_corpus_suggestions_earn_approve(tmp_path: Path) -> None:
    result = critic(CORPUS, "--format", "json", cwd=tmp_path)
    assert result.returncode == 1, out(result)[-2000:]
    cases = []
    for review in json.loads(result.stdout):
        if review["verdict"] != "REVISE":
            continue
        phases = _section9_phases(Path(review["path"]).read_text())
        if phases is None:
            continue
        for f in review["findings"]:
            if f["rule"] in DENY_RULES - {"unreadable-launch"}:
                cases.append((Path(review["path"]).name, phases, f["phase"], f))
    assert len(cases) >= 10
    paste_and_review(tmp_path, cases)
