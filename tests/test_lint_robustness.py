"""Real-world CLAUDE.md and rules-file shapes: no crash, no false positive."""

import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint.engine import Linter, Target
from lint.rules import dollar_cap, names
from lint.workspace import Workspace
from router import config
from tests.lint_support import lint

CFG = config.load()

FRONT_MATTERS = [
    "---\npaths:\n  - \"src/**/*.py\"\n  - \"plans/**\"\n---\n",
    "---\npaths: [\"src/**\", \"docs/**\"]\n---\n",
    "---\ndescription: GCP → SLURM → RunPod notes\nglobs: \"**/*.md\"\nalwaysApply: false\n---\n",
    "+++\ntitle = \"rules\"\n+++\n",
    "",
]
BODY = ("# Compute\n\nThe router walks GCP → SLURM → RunPod.\n\n"
        "```markdown\n---\npaths: [x]\n---\n# Heading inside a fence\nRunPod → GCP\n---\n```\n\n"
        "~~~\nSLURM is the last rung.\n~~~\n\n"
        "    indented code: RunPod first\n\n"
        "Our renderer uses WebGPU; the GPU path is 8x faster, then 2x more with caching.\n"
        "A100 and H100 GPUs both work. Spot checks happen weekly.\n")


@pytest.mark.parametrize("front", FRONT_MATTERS, ids=["paths-list", "paths-inline",
                                                      "description-globs", "toml", "none"])
def test_front_matter_and_fences_are_not_prose(front: str) -> None:
    assert lint(front + BODY, name="CLAUDE.md") == []


def test_front_matter_lines_are_blank_for_line_numbers() -> None:
    found = lint(FRONT_MATTERS[0] + "\nSLURM is the last rung.\n", rules={"ladder-drift"})
    assert [f.line for f in found] == [7]


def test_huge_file_is_linted_without_trouble() -> None:
    paragraph = "GCP first, then SLURM, then RunPod, the last rung. " * 20 + "\n\n"
    assert lint("# Big\n\n" + paragraph * 2000, rules={"ladder-drift"}) == []


def test_unterminated_front_matter_is_prose() -> None:
    assert len(lint("---\nRunPod → GCP\n", rules={"ladder-drift"})) == 1


MARKDOWN_ALPHABET = string.printable + "§→×—…“”"
MARKDOWN_PIECES = st.lists(st.sampled_from([
    "# ", "## §9 Compute\n", "```yaml\n", "```\n", "---\n", "phases:\n", "  - name: a\n",
    "intent: capture-7b\n", "width: 8\n", "GCP → SLURM → RunPod", "RunPod → GCP", "8× → 1×",
    "short jobs lead with ", "SPOT", "FLEX_START", "a3-highgpu-8g is ", "-only", "| a | b |\n",
    "|---|---|\n", "<!-- workflow-lint: ignore[ladder-drift] -->", "<!-- workflow-lint:generated "
    "ladder-order -->\n", "<!-- workflow-lint:end -->\n", "\n", " ", "&", "*", "`", "> ",
    "1. ", "- ", "**unsharded-wide**", "## REVISE\n", "at least 3 GPU-hours"]), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(alphabet=MARKDOWN_ALPHABET, max_size=400),
                 MARKDOWN_PIECES.map("".join)))
def test_arbitrary_markdown_never_raises(text: str) -> None:
    linter = Linter(Workspace(root=Path(".")), set(names()))
    linter._config = CFG
    for finding in linter.markdown(Target(Path("fuzz.md"), "fuzz.md",
                                          {"markdown", "plan", "critic"}), text):
        lines = text.splitlines() or [""]
        assert 1 <= finding.line <= max(len(lines), 1) + 1, finding
        assert finding.col >= 1


# Fragments of ladder prose, so the draws reach the readers' rarer paths (a
# pointer back, a relative-clause miss, a second job, a reason clause)
PROSE_PIECES = st.lists(st.sampled_from([
    "If both miss, ", "A request that misses ", "goes straight to ", "When 4x has no capacity ",
    "the router takes a free 8x machine", ", and it ", "(", ")", ":", ";", ". ", "\n", "- ",
    "1. ", "never ", "not ", "every A100 rung ", "before ", "after ", "right after ",
    "between ", "eval-70b ", "capture-7b ", "a 3.9 h job ", "and a 4.0 h job ", "at width 1 ",
    "for 3 h", "4 GPUs × 45 h", "→ 180 h at width 1", "leads with ", "SPOT", "FLEX_START",
    "campus-a100", "campus-preempt", "RunPod", "SLURM", "GCP", "Some people think ",
    "If FLEX_START were allowed past 168 h, ", "It's not the case that ", "Since 4 h is ",
    "with no shardable axis ", "gets APPROVE", "is REVISEd", "`bash run.sh`", "Below it, ",
    "Intent minimums:\n```json\n{\"lora-7b\": 2}\n```\n", "What happens to a dispatch:\n",
    "retried at 2 and then at 1 GPU", "the job runs 6 h on one GPU", "Its ", "last ",
    "only splits one model over four GPUs", "without a trailing `&`"]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(PROSE_PIECES.map("".join))
def test_arbitrary_ladder_prose_never_raises(text: str) -> None:
    linter = Linter(Workspace(root=Path(".")), set(names()))
    linter._config = CFG
    for surface in ("CLAUDE.md", ".claude/agents/efficiency-critic.md"):
        kinds = {"markdown", "critic"} if "critic" in surface else {"markdown"}
        for finding in linter.markdown(Target(Path(surface), surface, kinds), text):
            assert finding.col >= 1


PYTHON_PIECES = st.lists(st.sampled_from([
    "MAX_COST_USD = 5\n", "def f(spend_cap=1):\n", "    pass\n", "if cost > 3:\n", "    x()\n",
    "class C:\n", "    budget_usd: float = 1\n", "{'cost_limit': 1}\n", "os.environ['X']\n",
    "(", ")", ":", "\n", "    ", "'", '"""', "# workflow-lint: ignore[dollar-cap]\n",
    "lambda: cost\n", "assert spent < 1\n", "return cost >= LIMIT\n", "b'cost'\n"]),
    max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=300), PYTHON_PIECES.map("".join)))
def test_arbitrary_python_never_raises(text: str) -> None:
    source = "cost = 1\n" + text
    for finding in dollar_cap.check("fuzz.py", source):
        assert finding.rule in ("dollar-cap", "file-error")
        # The position names text that exists.
        assert 1 <= finding.line <= len(source.splitlines()) + 1 and finding.col >= 1


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from lint import cli

    def interrupted(self, targets):
        raise KeyboardInterrupt

    monkeypatch.setattr(Linter, "run", interrupted)
    assert cli.main(["--select", "dollar-cap", "."]) == 130
    assert capsys.readouterr().err == "workflow-lint: interrupted\n"


def test_ctrl_c_during_a_parallel_run_stops_every_worker(tmp_path: Path) -> None:
    """The terminal sends SIGINT to the whole group: the workers leave it to the
    main process, which stops the pool and says so once; no traceback, no
    worker left behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    # a class named for money is parsed whole: each file costs libcst real time
    cap = ("class CostSettings:\n" + "".join(f"    field_{i}: int = {i}\n" for i in range(300))
           + "    max_cost_usd: float = 5.0\n")
    for i in range(240):
        (tmp_path / f"module_{i}.py").write_text(cap)
    proc = subprocess.Popen([sys.executable, "-m", "lint", "--select", "dollar-cap", "."],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True)

    def children() -> list[str]:
        found = []
        for task in Path(f"/proc/{proc.pid}/task").glob("*/children"):
            found += task.read_text().split()
        return found

    deadline = time.monotonic() + 30
    while len(children()) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = children()
    assert proc.poll() is None and len(workers) >= 2, "the run ended before its workers started"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err, out[-300:]) == (130, "workflow-lint: interrupted\n", "")
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists() or \
            Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
