"""Arbitrary launch strings and arbitrary §9 YAML never make the critic raise;
hostile launches are judged in bounded time and memory, with one clear answer."""

import json
import resource
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from critics.launch import MAX_COUNT, OVER, analyze
from critics.review import review_plan
from router import config
from router.section9 import PlanError, parse_plan

CFG = config.load()
SHELLISH = st.text(alphabet=string.printable + "§→", max_size=200) | st.lists(
    st.sampled_from(["for", "i", "in", "do", "done", ";", "&", "&&", "|", "wait", "(", ")",
                     "{", "}", "$(seq 0 7)", "{0..3}", "CUDA_VISIBLE_DEVICES=$i", "'", '"',
                     "$((i % 4))", "torchrun", "--nproc_per_node", "8", "xargs", "-P",
                     "parallel", "-j", "{%}", ":::", "bash", "-c", "if", "then", "fi",
                     "while", "((", "))", "\n", "\\", "`", "#", "2>&1", ">"]),
    max_size=40).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(SHELLISH, st.sampled_from([None, 1, 2, 4, 8]))
def test_launch_analysis_never_raises(launch: str, width: int | None) -> None:
    result = analyze(launch, width)
    # A count is a real count: the "unpinned" placeholder (0) never escapes.
    assert result.gpus is None or result.gpus >= 1
    # No parallel work means exactly one busy GPU.
    assert result.parallel or result.gpus in (None, 1)


YAML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), YAML_VALUES.map(repr),
                 st.dictionaries(st.sampled_from(["name", "intent", "width", "gpu_hours",
                                                  "launch", "shardable_axis", "extra"]),
                                 YAML_VALUES, max_size=7).map(lambda d: f"phases: [{d!r}]")))
def test_arbitrary_section9_yaml_never_raises_anything_but_plan_error(body: str) -> None:
    text = f"# Plan\n\n## §9 Compute\n\n```yaml\n{body}\n```\n"
    try:
        plan = parse_plan(text, "fuzz.md")
        review_plan(plan, CFG)
    except PlanError as exc:
        # The error points into the file it read, at a line that exists.
        assert exc.path == "fuzz.md"
        assert exc.line is None or 1 <= exc.line <= text.count("\n") + 1


# ---- hostile launches: bounded time and memory, one clear answer ---------------

HUGE = "9" * 400
HOSTILE = [
    "for i in {0..999999999}; do CUDA_VISIBLE_DEVICES=$i python x.py & done; wait",
    "for i in {0..99999999999999999999999999}; do CUDA_VISIBLE_DEVICES=$((i % 8)) x & done; wait",
    f"vllm serve m --tensor-parallel-size {HUGE}",
    f"vllm serve m -tp {HUGE} -pp {HUGE} -dp {HUGE}",
    "vllm serve m --tensor-parallel-size " + "9" * 5000,
    "parallel -j 1e26 'CUDA_VISIBLE_DEVICES={%} python x.py' ::: a",
    "parallel -j 100000000000 'CUDA_VISIBLE_DEVICES={%} python x.py' ::: a",
    "parallel -j 100000000000 'CUDA_VISIBLE_DEVICES=$(({%} % 8)) python x.py' ::: a",
    "torchrun --nproc_per_node 0x10 train.py", "torchrun --nproc_per_node -4 train.py",
    "torchrun --nproc_per_node ² train.py", "accelerate launch --num_processes 3.5 t.py",
    "deepspeed --num_gpus 1e3 train.py", f"srun -n {HUGE} python x.py",
    f"seq 0 7 | xargs -P {HUGE} -I{{}} python x.py --gpu {{}}", "xargs -P -1 python x.py",
    f"python gen.py --num-shards {HUGE}",
    f"for ((i=0; i<{HUGE}; i++)); do CUDA_VISIBLE_DEVICES=$i x & done; wait",
    f"for i in $(seq 0 {HUGE}); do CUDA_VISIBLE_DEVICES=$i x & done; wait",
    f"for i in $(seq {HUGE} -1 0); do x & done; wait",
    "for a in {1..99999}; do for b in {1..99999}; do for c in {1..99999}; do x & done; done; done",
    "for a in $(seq 1 4096); do bash -c 'for b in {1..4096}; do x & done' & done; wait",
    "bash -c \"bash -c 'bash -c \\\"bash -c x\\\"'\"",
    "( " * 5000 + "x" + " )" * 5000, "{ " * 3000 + "x; " + "}; " * 3000,
    "$(" * 3000 + "x" + ")" * 3000, "x " * 30000, "a" * 70000,
    "echo $((" + "(" * 300 + "1" + ")" * 300 + "))",
    "CUDA_VISIBLE_DEVICES=" + ",".join(str(i) for i in range(20000)) + " x &  wait",
    "parallel -j 4096 'CUDA_VISIBLE_DEVICES=$(({%} * 99999999999999999999)) x' ::: a",
    "for i in " + " ".join(["0"] * 15000) + "; do CUDA_VISIBLE_DEVICES=$i x & done; wait",
]
MEMORY_LIMIT = 1 << 30  # 1 GiB for the whole critic process
SECONDS_PER_INPUT = 30  # generous: the bounds above keep each under ~2 s


def _plan_text(launch: str, width: int = 8) -> str:
    # JSON strings are YAML double-quoted scalars: any launch text round-trips.
    return ("# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - name: main\n"
            f"    intent: capture-7b\n    width: {width}\n    gpu_hours: 8\n"
            f"    launch: {json.dumps(launch)}\n```\n")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_critic(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "critics", str(path), "--format", "json"],
                          capture_output=True, text=True, timeout=SECONDS_PER_INPUT,
                          preexec_fn=_limit_memory)


def assert_one_clear_answer(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    if result.returncode == 2:
        assert result.stderr.count("\n") == 1 and result.stderr.startswith(
            "efficiency-critic: error: "), result.stderr
    else:
        assert result.returncode in (0, 1) and result.stderr == "", result.stderr[-2000:]
        verdict = json.loads(result.stdout)[0]["verdict"]
        assert verdict == ("APPROVE" if result.returncode == 0 else "REVISE")


@pytest.mark.parametrize("launch", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_launch_is_judged_in_bounded_time_and_memory(tmp_path: Path,
                                                              launch: str) -> None:
    path = tmp_path / "plan.md"
    path.write_text(_plan_text(launch))
    assert_one_clear_answer(run_critic(path))


@pytest.mark.parametrize("launch", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_launch_analysis_is_fast_in_process(launch: str) -> None:
    start = time.monotonic()
    for width in (1, 8):
        review_plan(parse_plan(_plan_text(launch, width), "p.md"), CFG)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize(("launch", "rule"), [
    # A count far past the width is the existing rule for more GPUs than width.
    (f"vllm serve m --tensor-parallel-size {HUGE}", "oversubscribed"),
    (f"torchrun --nproc_per_node {HUGE} train.py", "oversubscribed"),
    ("for i in {0..999999999}; do CUDA_VISIBLE_DEVICES=$i x & done; wait", "oversubscribed"),
    ("parallel -j 100000000000 'CUDA_VISIBLE_DEVICES={%} x' ::: a", "oversubscribed"),
    # Malformed counts and launches past a bound are named, not guessed.
    ("parallel -j 1e26 'CUDA_VISIBLE_DEVICES={%} x' ::: a", "unreadable-launch"),
    ("torchrun --nproc_per_node 0x10 train.py", "unreadable-launch"),
    ("deepspeed --num_gpus -2 train.py", "unreadable-launch"),
    ("( " * 5000 + "x" + " )" * 5000, "unreadable-launch"),
    ("a" * 70000, "unreadable-launch"),
    ("for a in {1..99999}; do for b in {1..99999}; do x & done; done; wait",
     "unreadable-launch"),
])
def test_hostile_counts_get_the_right_rule(launch: str, rule: str) -> None:
    review = review_plan(parse_plan(_plan_text(launch), "p.md"), CFG)
    assert {f.rule for f in review.findings} >= {rule}, [f.message for f in review.findings]
    if rule == "oversubscribed":
        assert review.verdict == "APPROVE"
        assert f"more than {MAX_COUNT}" in review.findings[0].message
    else:
        assert review.verdict == "REVISE" and len(review.findings) == 1


def test_periodic_pins_over_a_huge_range_are_read_exactly() -> None:
    for launch in ["for i in {0..99999999999}; do CUDA_VISIBLE_DEVICES=$((i % 8)) x & done; wait",
                   "parallel -j 99999999 'CUDA_VISIBLE_DEVICES=$(({%} % 8)) x' ::: a"]:
        assert analyze(launch, 8).gpus == 8
    assert analyze("for i in $(seq 0 999); do CUDA_VISIBLE_DEVICES=$((i % 8)) x & done; wait",
                   8).gpus == 8
    assert analyze("vllm serve m -tp 4096 -dp 4096", 8).gpus == OVER


HOSTILE_PARTS = st.sampled_from([
    "for i in", "do", "done", ";", "&", "wait", "{0..99999999999}", "$(seq 0 1e9)",
    "$(seq 0 99999999999999999999999)", f"{HUGE}", "1e26", "0x10", "-7", "²",
    "CUDA_VISIBLE_DEVICES=$i", "CUDA_VISIBLE_DEVICES=$((i % 8))", "torchrun",
    "--nproc_per_node", "-tp", "-dp", "vllm serve m", "parallel -j", "xargs -P",
    "'CUDA_VISIBLE_DEVICES={%} x'", ":::", "for ((i=0; i<99999999999; i++))", "(", ")",
    "{", "}", "bash -c", "'for j in {1..99999}; do y & done'", "$((", "))", "\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(HOSTILE_PARTS, max_size=30).map(" ".join), st.sampled_from([1, 2, 4, 8]))
def test_generated_hostile_launches_are_judged_quickly(launch: str, width: int) -> None:
    assume(launch.strip())  # an empty launch is a schema error, tested elsewhere
    start = time.monotonic()
    review_plan(parse_plan(_plan_text(launch, width), "p.md"), CFG)
    assert time.monotonic() - start < 10


@settings(max_examples=15, deadline=None)
@given(st.lists(HOSTILE_PARTS, min_size=5, max_size=30).map(" ".join))
def test_generated_hostile_launches_through_the_cli(launch: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.md"
        path.write_text(_plan_text(launch))
        assert_one_clear_answer(run_critic(path))
