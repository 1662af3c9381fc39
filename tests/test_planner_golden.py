"""The width-1 (minimum-width) ladder of every packaged intent, pinned.

A change to these files is a change to what every narrow dispatch does today,
so they are rewritten only with `pytest --update-golden`, never silently."""

import json
from pathlib import Path

import pytest

from router import config
from router.plan_cmd import render_json
from router.planner import Request, plan

GOLDEN = Path(__file__).parent / "golden"
CFG = config.load()
CASES = [(intent, CFG.intents[intent].min_width, hours)
         for intent in sorted(CFG.intents) for hours in (1.5, 12.0, 200.0)]


@pytest.mark.parametrize(("intent", "width", "hours"), CASES)
def test_minimum_width_ladder_matches_golden(intent: str, width: int, hours: float,
                                             update_golden: bool) -> None:
    request = Request(intent, width, hours)
    rendered = render_json(request, plan(request, CFG)) + "\n"
    path = GOLDEN / f"plan-{intent}-w{width}-{hours:g}h.json"
    if update_golden:
        path.write_text(rendered)
    assert path.exists(), f"{path} missing: run pytest --update-golden once and review it"
    assert rendered == path.read_text()


def test_golden_files_have_no_orphans() -> None:
    expected = {f"plan-{i}-w{w}-{h:g}h.json" for i, w, h in CASES}
    assert {p.name for p in GOLDEN.glob("plan-*.json")} == expected


def test_golden_short_ladder_leads_with_spot_and_ends_with_runpod() -> None:
    doc = json.loads((GOLDEN / "plan-capture-7b-w1-1.5h.json").read_text())
    assert doc["rungs"][0] == {"backend": "gcp", "machine_type": "a2-ultragpu-1g",
                               "provisioning": "SPOT", "width": 1,
                               "zones": list(CFG.families["a100-80gb"].zones), "hours": 1.5}
    assert doc["rungs"][-1]["backend"] == "runpod"
