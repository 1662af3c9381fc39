"""Every suggestion the critic prints, applied to its phase, earns APPROVE.

A suggestion is options joined by "; or ". An option may carry a launch in
backticks, a width ("set width: N" / "downsize to width N") and "remove
shardable_axis". Options with any of these are applied to the phase and the
phase is reviewed again: it must get no deny finding, and a warning's own
advisory must be gone. Options with none (prose such as "fill the width with a
launch over all 8 GPUs") cannot be applied; they are counted, not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from critics.review import review_plan
from critics.rules import RULES, Finding
from router import config
from router.section9 import Phase, Plan, parse_plan, read_plan
from tests.test_critic_rules import plan_for

ROOT = Path(__file__).parent.parent
CFG = config.load()
PLAN_FILES = sorted((ROOT / "tests" / "critic_corpus").glob("*.md")) + \
    sorted((ROOT / "examples" / "workspace" / "plans").glob("*.md"))
WIDTH = re.compile(r"(?:set width: |downsize to width )(\d+)")


@dataclass(frozen=True)
class Option:
    text: str
    launch: str | None
    width: int | None
    drop_axis: bool

    @property
    def applicable(self) -> bool:
        return self.launch is not None or self.width is not None or self.drop_axis


def options(finding: Finding) -> list[Option]:
    out = []
    for text in finding.suggestion.split("; or "):
        launches = re.findall(r"`([^`]+)`", text)
        assert len(launches) <= 1, text
        width = WIDTH.search(text)
        out.append(Option(text, launches[0] if launches else None,
                          int(width.group(1)) if width else None,
                          "remove shardable_axis" in text))
    return out


def apply(phase: Phase, option: Option) -> Phase:
    return replace(phase, launch=option.launch if option.launch is not None else phase.launch,
                   width=option.width if option.width is not None else phase.width,
                   shardable_axis=None if option.drop_axis else phase.shardable_axis)


def check_plan(plan: Plan) -> tuple[int, int]:
    """Apply every applicable option of every finding; (checked, prose) counts."""
    checked = prose = 0
    for finding in review_plan(plan, CFG).findings:
        phase = next(p for p in plan.phases if p.name == finding.phase)
        for option in options(finding):
            if not option.applicable:
                # A suggestion is printed on its finding's one line: a multi-line
                # launch (a script with arrays, functions) has no inline rewrite.
                prose += "\n" not in phase.launch.strip()
                continue
            fixed = apply(phase, option)
            again = review_plan(replace(plan, phases=(fixed,)), CFG).findings
            denied = [f"{f.rule}: {f.message}" for f in again if f.severity == "error"]
            assert not denied, (finding.rule, option.text, denied)
            if finding.severity == "warning" and option.launch is not None:
                assert finding.rule not in {f.rule for f in again}, (finding.rule, option.text)
            checked += 1
    return checked, prose


@pytest.mark.parametrize("path", PLAN_FILES, ids=lambda p: p.stem)
def test_suggestions_in_plan_fixtures_earn_approve(path: Path) -> None:
    check_plan(read_plan(str(path)))


def test_most_fixture_suggestions_are_checkable() -> None:
    checked = prose = 0
    for path in PLAN_FILES:
        c, p = check_plan(read_plan(str(path)))
        checked, prose = checked + c, prose + p
    # A few fills have no safe rewrite (a hand-written loop, parallel -j with
    # `{%} % 4`) and stay prose; the rest are applied and judged.
    assert checked >= 40 and prose <= checked // 4, (checked, prose)


EXAMPLES = [(rule.name, ex) for rule in RULES for kind in ("VALID", "INVALID")
            for ex in getattr(rule, kind)]


@pytest.mark.parametrize(("name", "example"), EXAMPLES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(EXAMPLES)])
def test_suggestions_for_rule_examples_earn_approve(name: str, example: dict) -> None:
    check_plan(parse_plan(plan_for(example), "example.md"))


@pytest.mark.parametrize("pin", ["CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ",
                                 "env CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ",
                                 "CUDA_VISIBLE_DEVICES=3 "])
def test_sharded_suggestion_drops_an_existing_pin(pin: str) -> None:
    # The reported bug: `CUDA_VISIBLE_DEVICES=$i CUDA_VISIBLE_DEVICES=0,…,7 python eval.py`
    # let the old pin win, so every worker saw all 8 GPUs.
    plan = parse_plan(plan_for({"width": 8, "gpu_hours": 8,
                                "launch": f"{pin}python eval.py --ckpt c --device cuda:3"}),
                      "p.md")
    finding = review_plan(plan, CFG).findings[0]
    launch = options(finding)[0].launch
    assert launch is not None and launch.count("CUDA_VISIBLE_DEVICES") == 1, launch
    assert "CUDA_VISIBLE_DEVICES=$i python eval.py --ckpt c --device cuda:0" in launch
    check_plan(plan)


def test_wide_intents_get_worker_groups_of_their_minimum_width() -> None:
    plan = parse_plan(plan_for({"width": 8, "gpu_hours": 8, "launch": "python eval.py"},
                               intent="eval-70b"), "p.md")
    finding = review_plan(plan, CFG).findings[0]
    assert "CUDA_VISIBLE_DEVICES=$((2*i+0)),$((2*i+1))" in (options(finding)[0].launch or "")
    # eval-70b cannot run at width 1, so the critic does not offer it.
    assert "width 1" not in finding.suggestion
    check_plan(plan)


def test_axis_narrower_than_width_suggests_the_width_it_fills() -> None:
    plan = parse_plan(plan_for({"width": 8, "gpu_hours": 8, "launch": "python gen.py",
                                "shardable_axis": {"name": "model", "size": 4}}), "p.md")
    first = options(review_plan(plan, CFG).findings[0])[0]
    assert first.width == 4 and first.launch is not None
    check_plan(plan)


# ---- generated launches ------------------------------------------------------

PINS = st.sampled_from(["", "CUDA_VISIBLE_DEVICES=0 ", "CUDA_VISIBLE_DEVICES=0,1,2,3 ",
                        "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ", "env CUDA_VISIBLE_DEVICES=1 "])
COUNT = st.sampled_from(["1", "2", "4", "8", "16", "{width}", "0x10", "99999999999"])
COMMANDS = st.one_of(
    st.sampled_from(["python eval.py --ckpt c", "python gen.py --device cuda:2",
                     "python gen.py --num-shards 4 --shard-id 0", "python gen.py --device_map auto",
                     "python gen.py --prompt 'a b'", "python x.py --out $OUT"]),
    COUNT.map(lambda n: f"torchrun --nproc_per_node={n} train.py"),
    COUNT.map(lambda n: f"accelerate launch --num_processes {n} train.py"),
    COUNT.map(lambda n: f"deepspeed --num_gpus {n} train.py"),
    COUNT.map(lambda n: f"vllm serve m --tensor-parallel-size {n}"),
    COUNT.map(lambda n: f"python -m sglang.launch_server --tp {n}"),
    COUNT.map(lambda n: f"python gen.py --num-shards {n}"),
    COUNT.map(lambda n: f"srun -n {n} python x.py"),
    COUNT.map(lambda n: f"seq 0 7 | xargs -P {n} -I{{}} python x.py --gpu {{}}"),
    COUNT.map(lambda n: f"parallel -j {n} 'CUDA_VISIBLE_DEVICES=$(({{%}}-1)) python x.py' ::: a"),
)
LOOPS = st.builds(
    lambda items, bg, wait, cmd: (f"for i in {items}; do CUDA_VISIBLE_DEVICES=$i {cmd}"
                                  f"{' &' if bg else ';'} done{'; wait' if wait else ''}"),
    st.sampled_from(["0 1", "0 0 1 1", "$(seq 0 3)", "{0..7}", "{0..99999999}",
                     "$(seq 0 $(({width}-1)))"]),
    st.booleans(), st.booleans(), st.sampled_from(["python x.py", "python x.py --shard $i"]))
LAUNCHES = st.one_of(st.builds(lambda pin, cmd: pin + cmd, PINS, COMMANDS), LOOPS)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(LAUNCHES, st.sampled_from([1, 2, 4, 8]), st.sampled_from([0.5, 8.0]),
       st.sampled_from([None, 1, 2, 3, 8, 600]), st.sampled_from(["capture-7b", "eval-70b"]))
def test_suggestions_for_generated_launches_earn_approve(launch: str, width: int, hours: float,
                                                         axis: int | None, intent: str) -> None:
    if intent == "eval-70b" and width < 2:
        width = 2
    example = {"width": width, "gpu_hours": hours, "launch": launch}
    if axis is not None:
        example["shardable_axis"] = {"name": "draw_set", "size": axis}
    check_plan(parse_plan(plan_for(example, intent=intent), "gen.md"))
