"""Each workflow-lint rule's VALID/INVALID examples, run as tests (fixit-style)."""

import pytest

from lint import document
from lint.rules import critic_drift, dollar_cap, ladder_drift, plan_block, stale_claim
from router import config

CFG = config.load()
CLAIMS = stale_claim.load()


def markdown_findings(module, text: str) -> list:
    doc = document.parse("example.md", text)
    if module is ladder_drift:
        return ladder_drift.check(doc, CFG)
    if module is stale_claim:
        return stale_claim.check(doc, CLAIMS)
    if module is critic_drift:
        return critic_drift.check(doc)
    return plan_block.check(doc, CFG)


MODULES = [ladder_drift, stale_claim, critic_drift, plan_block]
CASES = [(m, kind, i, ex) for m in MODULES for kind in ("VALID", "INVALID")
         for i, ex in enumerate(getattr(m, kind))]


@pytest.mark.parametrize(("module", "kind", "index", "example"), CASES,
                         ids=[f"{m.NAME}-{k}-{i}" for m, k, i, _ in CASES])
def test_markdown_rule_examples(module, kind: str, index: int, example: str) -> None:
    found = markdown_findings(module, example)
    if kind == "VALID":
        assert found == []
    else:
        assert len(found) == 1, found
        assert found[0].rule == module.NAME


PY_CASES = [(kind, i, ex) for kind in ("VALID", "INVALID")
            for i, ex in enumerate(getattr(dollar_cap, kind))]


@pytest.mark.parametrize(("kind", "index", "example"), PY_CASES,
                         ids=[f"dollar-cap-{k}-{i}" for k, i, _ in PY_CASES])
def test_dollar_cap_examples(kind: str, index: int, example: str) -> None:
    found = dollar_cap.check("example.py", example)
    if kind == "VALID":
        assert found == []
    else:
        assert len(found) == 1 and found[0].rule == "dollar-cap", found


def test_dollar_cap_catches_public_agent_patterns() -> None:
    # Shapes of SWE-agent's per-instance cost limit and OpenHands' per-task budget.
    swe_agent = ("from dataclasses import dataclass\n\n@dataclass\nclass ModelArguments:\n"
                 "    per_instance_cost_limit: float = 3.0\n    total_cost_limit: float = 0.0\n\n"
                 "def check(self, cost):\n    if self.stats.instance_cost > "
                 "self.args.per_instance_cost_limit:\n        raise CostLimitExceeded()\n")
    openhands = ("class AppConfig:\n    max_budget_per_task: float | None = None\n\n"
                 "def step(state):\n    if state.metrics.accumulated_cost > "
                 "state.max_budget_per_task:\n        raise RuntimeError('budget')\n")
    lines = sorted(f.line for f in dollar_cap.check("swe.py", swe_agent))
    assert lines == [5, 6, 9]
    assert sorted(f.line for f in dollar_cap.check("oh.py", openhands)) == [2, 5]


def test_dollar_cap_prefilter_skips_files_without_money_words() -> None:
    assert not dollar_cap.needs_parse("MAX_GPU_HOURS = 8\nmax_attempts = 3\n")
    assert not dollar_cap.needs_parse("estimated_cost = hours * PRICE_PER_HOUR\n")
    assert dollar_cap.needs_parse("x = 1\nMaxCostUSD = 3\n")
    assert dollar_cap.needs_parse("while total_cost < 3:\n    pass\n")


def test_findings_point_at_the_right_line_and_column() -> None:
    doc = document.parse("x.md", "# T\n\nIntro.\n\n- Some text, then\n  RunPod → GCP here.\n")
    found = ladder_drift.check(doc, CFG)
    assert [(f.line, f.col) for f in found] == [(6, 1)]
    assert "expected GCP → SLURM → RunPod" in found[0].message
