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


@pytest.mark.parametrize("heading", [
    "## §9 Compute", "## §9", "### §9. GPU phases", "# 9. Compute", "## 9 Compute",
    "## 9. compute budget", "## 9. COMPUTE", "## **§9 Compute**", "## *9. Compute*",
    "## __9 Compute__", "## 9.Compute"])
def test_section9_heading_forms(heading: str) -> None:
    text = f"# P\n\n{heading}\n\n```yaml\nphases:\n{PHASE}```\n"
    assert parse_plan(text, "p.md").phases[0].name == "a"


@pytest.mark.parametrize("heading", [
    "## 9. Safety Rules", "### 9.3 Make Resources and SLURM First-Class", "## 9 Risks",
    "## §90 Appendix", "## 9. Computers we own", "## 19. Compute", "## Compute"])
def test_other_numbered_headings_are_not_section9(heading: str) -> None:
    text = f"# P\n\n{heading}\n\n```yaml\nphases:\n{PHASE}```\n"
    with pytest.raises(PlanError, match="no §9 section") as info:
        parse_plan(text, "p.md")
    assert len(info.value.problems) == 1


def test_numbered_sections_before_section9_are_skipped() -> None:
    # A long plan: "9. Safety Rules" and "9.3 ..." are ordinary sections; §9 comes later.
    text = ("# P\n\n## 9. Safety Rules\n\n```yaml\nphases: [oops]\n```\n\n"
            "### 9.3 Make Resources and SLURM First-Class\n\n```yaml\nbudget: 1\n```\n\n"
            f"## §9 Compute\n\n```yaml\nphases:\n{PHASE}```\n")
    plan = parse_plan(text, "p.md")
    assert [p.name for p in plan.phases] == ["a"]


@pytest.mark.parametrize("info", ["yml", "yaml", "YML", "yml title=phases", "yaml {.x}"])
def test_yaml_and_yml_fences(info: str) -> None:
    text = f"## §9 Compute\n\n```python\nx = 1\n```\n\n~~~{info}\nphases:\n{PHASE}~~~\n"
    assert parse_plan(text, "p.md").phases[0].width == 8


def test_first_yaml_or_yml_block_wins() -> None:
    text = f"## §9\n\n```yml\nphases:\n{PHASE}```\n\n```yaml\nphases: [oops]\n```\n"
    assert len(parse_plan(text, "p.md").phases) == 1


BROKEN = """\
## §9 Compute

```yaml
phases:
  - name: a
    intent: eval-7b
    width: 3
    gpu_hours: -1
    gpus: 8
    launch: x
  - name: a
    intent: 7
    width: true
    gpu_hours: .nan
    shardable_axis: {name: '', size: 0}
  - oops
budget: 3
```
"""


def test_every_schema_error_of_a_block_is_reported_at_its_line() -> None:
    with pytest.raises(PlanError) as info:
        parse_plan(BROKEN, "p.md")
    got = [(p.line, p.message) for p in info.value.problems]
    lines = BROKEN.splitlines()

    def line_of(text: str, after: int = 0) -> int:
        return next(i for i, ln in enumerate(lines, 1) if i > after and text in ln)

    expected = [
        (line_of("width: 3"), "width must be one of 1, 2, 4, 8, got 3"),
        (line_of("gpu_hours: -1"), "gpu_hours must be a number > 0"),
        (line_of("gpus: 8"), "unknown key 'gpus'"),
        (line_of("- name: a", 5), "required key 'launch' is missing"),
        (line_of("- name: a", 5), "duplicate phase name 'a'"),
        (line_of("intent: 7"), "intent must be a non-empty string"),
        (line_of("width: true"), "width must be one of 1, 2, 4, 8, got True"),
        (line_of("gpu_hours: .nan"), "gpu_hours must be a number > 0"),
        (line_of("shardable_axis"), "shardable_axis.name must be a non-empty string"),
        (line_of("shardable_axis"), "shardable_axis.size must be an integer >= 1"),
        (line_of("- oops"), "phases[2]: expected a mapping"),
        (line_of("budget: 3"), "unknown top-level key 'budget'"),
    ]
    for line, needle in expected:
        assert any(gl == line and needle in gm for gl, gm in got), (line, needle, got)
    assert len(got) == len(expected), got
    # Sorted by line; `line`/`message` are the first problem; str() has one line each.
    assert [gl for gl, _ in got] == sorted(gl for gl, _ in got)
    assert (info.value.line, info.value.message) == got[0]
    assert str(info.value).splitlines() == [f"p.md:{gl}: {gm}" for gl, gm in got]


def test_one_schema_error_still_reads_as_before() -> None:
    text = f"## §9\n```yaml\nphases:\n{PHASE.replace('width: 8', 'width: 6')}```\n"
    with pytest.raises(PlanError) as info:
        parse_plan(text, "p.md")
    assert str(info.value) == "p.md:4: phase 'a': width must be one of 1, 2, 4, 8, got 6"
    assert len(info.value.problems) == 1


def test_combined_ladder_errors_keep_every_problem() -> None:
    text = ("## §9\n```yaml\nphases:\n  - {name: a, intent: eval-70b, width: 1, gpu_hours: 1, "
            "launch: x}\n  - {name: b, intent: lora-8b, width: 1, gpu_hours: 1, launch: x}\n```\n")
    combined = PlanError.combine(check_against_ladder(parse_plan(text, "p.md"), CFG))
    assert [p.line for p in combined.problems] == [4, 5]
    assert len(str(combined).splitlines()) == 2
