"""The one §9 parser: finding the section, lines, schema and bounds."""

import pytest

from router import config
from router.section9 import PlanError, check_against_ladder, parse_plan

CFG = config.load()
PHASE = "  - {name: a, intent: capture-7b, width: 8, gpu_hours: 8, launch: x}\n"


def test_section_heading_forms_and_first_yaml_block_only() -> None:
    for heading in ("## §9 Compute", "# 9. Compute", "### §9. GPU phases"):
        text = (f"# P\n\n```yaml\nphases: [oops]\n```\n\n{heading}\n\n```python\nx=1\n```\n\n"
                f"```yaml\nphases:\n{PHASE}```\n\n```yaml\nphases: []\n```\n")
        plan = parse_plan(text, "p.md")
        assert [p.name for p in plan.phases] == ["a"]
        assert plan.phases[0].line == text.splitlines().index(PHASE.rstrip("\n")) + 1


def test_section_ends_at_next_heading_of_same_level() -> None:
    text = "## §9 Compute\n\nnone here\n\n## 10. Risks\n\n```yaml\nphases: []\n```\n"
    with pytest.raises(PlanError, match="has no ```yaml block") as info:
        parse_plan(text, "p.md")
    assert info.value.line == 1


def test_yaml_fence_inside_a_subheading_still_counts() -> None:
    text = f"## §9 Compute\n\n### Phases\n\n```yaml\nphases:\n{PHASE}```\n"
    assert parse_plan(text, "p.md").phases[0].width == 8


def test_headings_inside_fences_are_not_sections() -> None:
    text = "```md\n## §9 fake\n```\n"
    with pytest.raises(PlanError, match="no §9 section"):
        parse_plan(text, "p.md")


def test_duplicate_phase_names_and_unknown_top_level_keys() -> None:
    with pytest.raises(PlanError, match="duplicate phase name 'a'"):
        parse_plan(f"## §9\n```yaml\nphases:\n{PHASE}{PHASE}```\n", "p.md")
    with pytest.raises(PlanError, match="unknown top-level key 'budget'") as info:
        parse_plan("## §9\n```yaml\nphases: []\nbudget: 3\n```\n", "p.md")
    assert info.value.line == 4


@pytest.mark.parametrize(("axis", "message"), [
    ("{name: x, size: 0}", "size must be an integer >= 1"),
    ("{name: x, size: 2.5}", "size must be an integer >= 1"),
    ("{name: x}", "exactly 'name' and 'size'"),
    ("{name: '', size: 2}", "name must be a non-empty string"),
])
def test_shardable_axis_schema(axis: str, message: str) -> None:
    text = ("## §9\n```yaml\nphases:\n  - name: a\n    intent: eval-7b\n    width: 1\n"
            f"    gpu_hours: 1\n    shardable_axis: {axis}\n    launch: x\n```\n")
    with pytest.raises(PlanError, match=message):
        parse_plan(text, "p.md")


def test_ladder_checks_intent_and_minimum_width() -> None:
    text = ("## §9\n```yaml\nphases:\n  - {name: a, intent: eval-70b, width: 1, gpu_hours: 1, "
            "launch: x}\n  - {name: b, intent: lora-8b, width: 1, gpu_hours: 1, launch: x}\n```\n")
    errors = check_against_ladder(parse_plan(text, "p.md"), CFG)
    assert [e.line for e in errors] == [4, 5]
    assert "minimum width 2" in errors[0].message and "lora-7b" in errors[1].message


def test_phase_selection() -> None:
    two = f"## §9\n```yaml\nphases:\n{PHASE}{PHASE.replace('name: a', 'name: b')}```\n"
    plan = parse_plan(two, "p.md")
    assert plan.phase("b").name == "b"
    with pytest.raises(PlanError, match="phases: a, b"):
        plan.phase(None)
    with pytest.raises(PlanError, match="no phase 'c'"):
        plan.phase("c")


def test_huge_block_is_an_error() -> None:
    text = "## §9\n```yaml\nphases: []\n# " + "x" * 1_100_000 + "\n```\n"
    with pytest.raises(PlanError, match="larger than"):
        parse_plan(text, "p.md")
