"""Arbitrary launch strings and arbitrary §9 YAML never make the critic raise."""

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from critics.launch import analyze
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
