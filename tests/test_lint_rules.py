"""Each workflow-lint rule's VALID/INVALID examples, run as tests (fixit-style),
with the line and column each INVALID finding must point at; each rule's doc
page checked against its docstring."""

import re
from pathlib import Path

import pytest

from lint.rules import dollar_cap, registry
from tests.lint_support import lint

ROOT = Path(__file__).resolve().parents[1]
RULES = registry()
CASES = [(rule, kind, i, ex) for rule in RULES.values() for kind in ("VALID", "INVALID")
         for i, ex in enumerate(getattr(rule, kind))]


@pytest.mark.parametrize(("rule", "kind", "index", "example"), CASES,
                         ids=[f"{r.name}-{k}-{i}" for r, k, i, _ in CASES])
def test_rule_examples(rule, kind: str, index: int, example) -> None:
    reads = "markdown" if rule.reads == "markdown" else rule.reads
    found = [f for f in lint(example.text, reads, {rule.name},
                             "example.py" if reads == "python" else "example.md")
             if f.rule == rule.name]
    if kind == "VALID":
        assert found == []
    else:
        assert len(found) == 1, found
        assert (found[0].line, found[0].col) == (example.line, example.col), found[0]


def test_registry_finds_every_rule_once() -> None:
    assert set(RULES) == {"ladder-drift", "stale-claim", "critic-drift", "plan-block",
                          "dollar-cap", "unverified-claim"}
    assert not RULES["unverified-claim"].default
    assert all(RULES[name].default for name in RULES if name != "unverified-claim")


@pytest.mark.parametrize("name", sorted(RULES))
def test_rule_doc_page_states_the_docstring(name: str) -> None:
    page = (ROOT / "docs" / "rules" / f"{name}.md").read_text(encoding="utf-8")
    flat = " ".join(page.split())
    assert " ".join(RULES[name].doc().split()) in flat, \
        f"docs/rules/{name}.md does not state {name}'s docstring"
    for example in RULES[name].INVALID[:1]:
        first = example.text.splitlines()[0]
        assert first in page, f"docs/rules/{name}.md lacks its first INVALID example"


def test_every_doc_page_has_a_rule() -> None:
    from lint.rules import ENGINE_RULES

    pages = {p.stem for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert pages == set(RULES) | set(ENGINE_RULES)


def test_dollar_cap_catches_public_agent_patterns() -> None:
    # Shapes of SWE-agent's per-instance cost limit and OpenHands' per-task budget.
    swe_agent = ("from dataclasses import dataclass\n\n@dataclass\nclass ModelArguments:\n"
                 "    per_instance_cost_limit: float = 3.0\n    total_cost_limit: float = 0.0\n\n"
                 "def check(self, cost):\n    if self.stats.instance_cost > "
                 "self.args.per_instance_cost_limit:\n        raise CostLimitExceeded()\n")
    openhands = ("class AppConfig:\n    max_budget_per_task: float | None = None\n\n"
                 "def step(state):\n    if state.metrics.accumulated_cost > "
                 "state.max_budget_per_task:\n        raise RuntimeError('budget')\n")
    # A limit of 0.0 or None means "no limit": removing a cap is not setting one.
    lines = sorted(f.line for f in dollar_cap.check("swe.py", swe_agent))
    assert lines == [5, 9]
    assert sorted(f.line for f in dollar_cap.check("oh.py", openhands)) == [5]


def test_dollar_cap_prefilter_skips_files_without_money_words() -> None:
    assert not dollar_cap.needs_parse("MAX_GPU_HOURS = 8\nmax_attempts = 3\n")
    assert not dollar_cap.needs_parse("estimated_cost = hours * PRICE_PER_HOUR\n")
    assert dollar_cap.needs_parse("x = 1\nMaxCostUSD = 3\n")
    assert dollar_cap.needs_parse("while total_cost < 3:\n    pass\n")


def test_findings_point_at_the_claim_inside_list_items() -> None:
    text = "# T\n\nIntro.\n\n- Some text, then\n  RunPod → GCP here.\n"
    found = lint(text, rules={"ladder-drift"})
    assert [(f.line, f.col) for f in found] == [(6, 3)]
    assert "GCP → SLURM → RunPod" in found[0].message
    numbered = "Routing order:\n\n10. **Short jobs** lead with FLEX_START.\n"
    found = lint(numbered, rules={"ladder-drift"})
    line = numbered.splitlines()[found[0].line - 1]
    assert line[found[0].col - 1:].startswith("Short jobs") or \
        line[found[0].col - 1:].startswith("FLEX_START"), (line, found[0])


def test_one_finding_per_sentence_and_never_both_rules() -> None:
    text = "RunPod → SLURM → GCP, and 8× rungs are explicit-intent-only.\n"
    found = lint(text)
    assert len(found) == 1, found
    only_drift = lint(text, rules={"ladder-drift"})
    assert len(only_drift) == 1 and only_drift[0].rule == "ladder-drift"


def test_messages_say_claim_expected_and_a_fix_that_lints_clean() -> None:
    found = lint("Short jobs lead with FLEX_START.\n", rules={"ladder-drift"})
    message = found[0].message
    assert "the text says short jobs lead with FLEX_START" in message
    fix = re.search(r'Suggested: "(.*)"$', message).group(1)
    assert fix == "Short jobs lead with SPOT."
    assert lint(fix + "\n") == []
