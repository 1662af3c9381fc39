"""Hostile workspaces for lint, critic and `plan`: symlink loops and escapes,
FIFOs, folders that cannot be read. Every command ends (bounded time), prints
no traceback, exits 0/1/2 or reports a finding, and writes nothing outside
the workspace; a symlinked surface stays a link under --fix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "workspace"
PLAN = "plans/851-70b-eval.md"
STALE_REGION = ("# Guide\n\n<!-- workflow-lint:generated ladder-table -->\nstale\n"
                "<!-- workflow-lint:end -->\n")


def run(module: str, *args: str, cwd: Path, unprivileged: bool = False
        ) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", module, *args]
    if unprivileged and os.geteuid() == 0:
        # Root reads any folder; without these two capabilities it obeys modes.
        argv = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *argv]
    result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (0, 1, 2), result.stderr
    return result


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    return root


def test_symlink_loops_anywhere_are_not_followed(ws: Path) -> None:
    (ws / "plans" / "again").symlink_to(ws)                # a folder loop
    (ws / "self.md").symlink_to(ws / "self.md")            # a file loop
    (ws / "CLAUDE.md").rename(ws / "real.md")
    (ws / "CLAUDE.md").symlink_to("loop-a")                # a named surface in a loop
    (ws / "loop-a").symlink_to("loop-b")
    (ws / "loop-b").symlink_to("loop-a")
    lint = run("lint", cwd=ws)
    assert lint.returncode == 1 and "CLAUDE.md:1:1: file-error" in lint.stdout
    assert "loop" in lint.stdout
    assert run("lint", ".", cwd=ws).returncode == 1
    assert run("critics", "plans", cwd=ws).returncode == 1  # the draft plan REVISEs
    assert run("router", "plan", "--plan", "self.md", cwd=ws).returncode == 2


def test_a_surface_linked_outside_is_not_read_and_never_written(ws: Path,
                                                               tmp_path: Path) -> None:
    outside = tmp_path / "shared" / "CLAUDE.md"
    outside.parent.mkdir()
    outside.write_text(STALE_REGION, encoding="utf-8")
    before = outside.read_bytes()
    (ws / "CLAUDE.md").unlink()
    (ws / "CLAUDE.md").symlink_to(outside)
    for args in ((), ("--fix",), (".", "--fix")):
        result = run("lint", *args, cwd=ws)
        assert "outside the workspace" in result.stdout, result.stdout
    assert outside.read_bytes() == before
    assert (ws / "CLAUDE.md").is_symlink()


def test_fix_through_a_link_inside_the_workspace_keeps_the_link(ws: Path) -> None:
    (ws / "docs").mkdir()
    real = ws / "docs" / "guide.md"
    real.write_text(STALE_REGION, encoding="utf-8")
    (ws / "CLAUDE.md").unlink()
    (ws / "CLAUDE.md").symlink_to(Path("docs") / "guide.md")
    assert run("lint", cwd=ws).returncode == 1
    fixed = run("lint", "--fix", cwd=ws)
    assert "fixed CLAUDE.md" in fixed.stderr
    assert (ws / "CLAUDE.md").is_symlink()
    assert "| family |" in real.read_text(encoding="utf-8")
    assert run("lint", cwd=ws).returncode == 0


@pytest.mark.parametrize("where", ["CLAUDE.md", PLAN])
def test_a_fifo_never_hangs_any_command(ws: Path, where: str) -> None:
    (ws / where).unlink()
    os.mkfifo(ws / where)
    lint = run("lint", cwd=ws)
    assert lint.returncode == 1 and f"{where}:1:1: file-error" in lint.stdout
    assert run("lint", where, cwd=ws).returncode == 1
    critic = run("critics", where, cwd=ws)
    assert critic.returncode == 2 and "not a regular file" in critic.stderr
    plan = run("router", "plan", "--plan", where, cwd=ws)
    assert plan.returncode == 2 and "not a regular file" in plan.stderr


def test_a_folder_that_cannot_be_read_is_an_error(ws: Path) -> None:
    locked = ws / "plans" / "locked"
    locked.mkdir()
    shutil.copy(ws / PLAN, locked / "x.md")
    # Each command runs as a user who obeys modes (see run()); its parents
    # must be searchable for that user.
    for parent in [ws, *ws.parents]:
        if parent == Path("/") or parent.stat().st_mode & 0o005 == 0o005:
            continue
        parent.chmod(parent.stat().st_mode | 0o005)
    locked.chmod(0)
    try:
        lint = run("lint", ".", cwd=ws, unprivileged=True)
        assert "plans/locked:1:1: file-error cannot read folder" in lint.stdout
        assert lint.returncode == 1
        critic = run("critics", "plans", cwd=ws, unprivileged=True)
        assert critic.returncode == 2 and "locked: cannot read folder" in critic.stderr
    finally:
        locked.chmod(0o755)


# A random tree of files, folders, links (to inside, outside, themselves,
# nowhere) and FIFOs: lint and critic end, and nothing outside is touched.
_names = st.sampled_from(["CLAUDE.md", "AGENTS.md", "plans", ".claude", "agents", "rules",
                          "x.md", "y.py", "config.yaml", "sub"])
_entry = st.tuples(st.lists(_names, min_size=1, max_size=3),
                   st.sampled_from(["file", "dir", "fifo", "link-in", "link-out", "link-self",
                                    "link-none", "link-up"]))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_entry, max_size=8))
def test_random_hostile_trees_end_cleanly(tmp_path: Path, entries: list) -> None:
    import tempfile

    base = Path(tempfile.mkdtemp(dir=tmp_path))
    ws, outside = base / "ws", base / "outside.md"
    shutil.copytree(EXAMPLE, ws)
    outside.write_text(STALE_REGION, encoding="utf-8")
    for parts, kind in entries:
        path = ws.joinpath(*parts)
        if path.exists() or path.is_symlink():
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:  # a file, or a symlink loop, where a folder would go
            continue
        {"file": lambda p: p.write_text(STALE_REGION, encoding="utf-8"),
         "dir": lambda p: p.mkdir(),
         "fifo": os.mkfifo,
         "link-in": lambda p: p.symlink_to(ws / "CLAUDE.md"),
         "link-out": lambda p: p.symlink_to(outside),
         "link-self": lambda p: p.symlink_to(p),
         "link-none": lambda p: p.symlink_to(base / "missing"),
         "link-up": lambda p: p.symlink_to(ws)}[kind](path)
    before = outside.read_bytes()
    for module, args in (("lint", ()), ("lint", (".", "--fix")), ("critics", ("plans",))):
        run(module, *args, cwd=ws)
    assert outside.read_bytes() == before
