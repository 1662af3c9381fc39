"""Each rule's VALID/INVALID examples, run as tests (the fixit model), plus the
shape of findings and the promise that a suggested launch fixes the plan."""

import re

import pytest

from critics.launch import analyze
from critics.review import review_plan
from critics.rules import RULES, Context
from router import config
from router.section9 import parse_plan

CFG = config.load()


def plan_for(example: dict, intent: str = "capture-7b") -> str:
    axis = example.get("shardable_axis")
    axis_line = (f"    shardable_axis: {{name: {axis['name']}, size: {axis['size']}}}\n"
                 if axis else "")
    launch = str(example["launch"]).replace("'", "''")
    return ("# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - name: main\n"
            f"    intent: {intent}\n    width: {example['width']}\n"
            f"    gpu_hours: {example['gpu_hours']}\n{axis_line}    launch: '{launch}'\n```\n")


def findings_of(rule, example: dict) -> list:
    phase = parse_plan(plan_for(example), "example.md").phases[0]
    return rule.check(Context(phase, analyze(phase.launch, phase.width), CFG))


CASES = [(rule, kind, i, ex) for rule in RULES for kind in ("VALID", "INVALID")
         for i, ex in enumerate(getattr(rule, kind))]


@pytest.mark.parametrize(("rule", "kind", "index", "example"), CASES,
                         ids=[f"{r.name}-{k}-{i}" for r, k, i, _ in CASES])
def test_rule_examples(rule, kind: str, index: int, example: dict) -> None:
    found = findings_of(rule, example)
    if kind == "VALID":
        assert found == []
    else:
        assert len(found) == 1 and found[0].rule == rule.name
        assert found[0].severity == rule.severity


def test_every_rule_has_examples_both_ways() -> None:
    assert all(rule.VALID and rule.INVALID for rule in RULES)
    assert len({rule.name for rule in RULES}) == len(RULES)


def test_findings_state_wall_clock_before_and_after() -> None:
    rule = next(r for r in RULES if r.name == "needlessly-narrow")
    found = findings_of(rule, {"width": 1, "gpu_hours": 8, "launch": "python gen.py",
                               "shardable_axis": {"name": "draw_set", "size": 10}})
    assert "8.0 h → 1.0 h at width 8" in found[0].suggestion
    rule = next(r for r in RULES if r.name == "unsharded-wide")
    found = findings_of(rule, {"width": 4, "gpu_hours": 8, "launch": "python gen.py"})
    assert "8.0 h → 2.0 h at width 4" in found[0].suggestion


def test_narrow_suggestion_picks_largest_allowed_width_within_axis() -> None:
    rule = next(r for r in RULES if r.name == "needlessly-narrow")
    found = findings_of(rule, {"width": 1, "gpu_hours": 6, "launch": "python gen.py",
                               "shardable_axis": {"name": "prompt", "size": 6}})
    assert "set width: 4" in found[0].suggestion


def test_under_saturated_suggests_downsizing_to_what_the_work_fills() -> None:
    rule = next(r for r in RULES if r.name == "under-saturated")
    found = findings_of(rule, {"width": 8, "gpu_hours": 8, "launch": "python g.py --num-shards 8",
                               "shardable_axis": {"name": "model", "size": 3}})
    assert "downsize to width 2" in found[0].suggestion and found[0].line == 11


@pytest.mark.parametrize("width", [2, 4, 8])
def test_applying_the_sharded_launch_suggestion_gives_approve(width: int) -> None:
    text = plan_for({"width": 1, "gpu_hours": 16, "launch": "python gen.py --all",
                     "shardable_axis": {"name": "draw_set", "size": width}})
    review = review_plan(parse_plan(text, "p.md"), CFG)
    assert review.verdict == "REVISE"
    suggestion = review.findings[0].suggestion
    fixed_launch = re.search(r"`([^`]+)`", suggestion).group(1)
    fixed = plan_for({"width": width, "gpu_hours": 16, "launch": fixed_launch,
                      "shardable_axis": {"name": "draw_set", "size": width}})
    assert review_plan(parse_plan(fixed, "p.md"), CFG).verdict == "APPROVE"
