"""Universal invariants of the ladder, over intents, widths and lengths."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from router import config
from router.planner import LONG_ORDER, SHORT_ORDER, Request, plan

CFG = config.load()
BACKEND_RANK = {"gcp": 0, "slurm": 1, "runpod": 2}


@st.composite
def requests(draw: st.DrawFn) -> Request:
    intent = draw(st.sampled_from(sorted(CFG.intents)))
    minimum = CFG.intents[intent].min_width
    width = draw(st.sampled_from([w for w in (1, 2, 4, 8) if w >= minimum]))
    hours = draw(st.one_of(
        st.floats(min_value=1e-3, max_value=2000, allow_nan=False, allow_infinity=False),
        st.sampled_from([0.5, 1.0, 2.0, 3.999, 4.0, 4.001, 21.0, 42.0, 84.0, 168.0, 168.01]),
    ))
    return Request(intent, width, hours)


@settings(max_examples=300)
@given(requests())
def test_backends_are_ordered_gcp_then_slurm_then_runpod_last(request: Request) -> None:
    rungs = plan(request, CFG)
    ranks = [BACKEND_RANK[r.backend] for r in rungs]
    assert ranks == sorted(ranks)
    assert rungs[-1].backend == "runpod"


@settings(max_examples=300)
@given(requests())
def test_gcp_widths_step_down_from_requested_to_minimum(request: Request) -> None:
    widths = [r.width for r in plan(request, CFG) if r.backend == "gcp"]
    assert widths == sorted(widths, reverse=True)
    assert widths[0] == request.width
    assert widths[-1] == CFG.intents[request.intent].min_width
    assert set(widths) <= {request.width >> k for k in range(4)}


@settings(max_examples=300)
@given(requests())
def test_plan_ends_with_the_minimum_width_plan_rung_for_rung(request: Request) -> None:
    minimum = CFG.intents[request.intent].min_width
    full = plan(request, CFG)
    tail = plan(Request(request.intent, minimum, request.hours * request.width / minimum), CFG)
    assert full[len(full) - len(tail):] == tail
    assert all(r.width > minimum for r in full[:len(full) - len(tail)])


@settings(max_examples=300)
@given(requests())
def test_a3_is_never_standard_and_flex_start_fits_seven_days(request: Request) -> None:
    for rung in plan(request, CFG):
        if rung.machine_type and rung.machine_type.startswith("a3-"):
            assert rung.provisioning != "STANDARD"
        if rung.provisioning == "FLEX_START":
            assert rung.hours <= CFG.flex_start_max_run_hours


@settings(max_examples=300)
@given(requests())
def test_machine_gpu_count_equals_rung_width(request: Request) -> None:
    for rung in plan(request, CFG):
        if rung.backend == "gcp":
            match = re.fullmatch(r"a[23]-(?:ultragpu|highgpu)-(\d+)g", rung.machine_type or "")
            assert match and int(match.group(1)) == rung.width


@settings(max_examples=300)
@given(requests())
def test_each_width_leads_by_length_and_lengths_scale(request: Request) -> None:
    by_width: dict[int, list] = {}
    for rung in plan(request, CFG):
        if rung.backend == "gcp":
            by_width.setdefault(rung.width, []).append(rung)
    for width, rungs in by_width.items():
        expected_hours = request.hours * request.width / width
        assert all(abs(r.hours - expected_hours) <= 1e-9 * expected_hours for r in rungs)
        order = SHORT_ORDER if rungs[0].hours < CFG.short_threshold_hours else LONG_ORDER
        models = [r.provisioning for r in rungs]
        assert models == sorted(models, key=order.index)


@settings(max_examples=200)
@given(requests())
def test_plan_is_deterministic(request: Request) -> None:
    assert plan(request, CFG) == plan(request, config.load())
