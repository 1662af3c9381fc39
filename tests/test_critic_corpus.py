"""The critic corpus: real-shaped plans with the verdict, deny rules and
advisories each must get, written in the plan's first line."""

import re
from pathlib import Path

import pytest

from critics.review import review_file
from router import config

CORPUS = Path(__file__).parent / "critic_corpus"
CFG = config.load()
EXPECT = re.compile(r"<!-- expect: (APPROVE|REVISE) rules: (\S+) warnings: (\S+) -->")
PLANS = sorted(CORPUS.glob("*.md"))


def test_corpus_is_big_enough() -> None:
    assert len(PLANS) >= 40


@pytest.mark.parametrize("path", PLANS, ids=lambda p: p.stem)
def test_corpus_plan_gets_expected_verdict(path: Path) -> None:
    match = EXPECT.match(path.read_text())
    assert match, f"{path.name}: first line must be an expect comment"
    verdict, rules, warnings = match.groups()
    review = review_file(str(path), CFG)
    assert review.verdict == verdict, [f.message for f in review.findings]
    denied = sorted({f.rule for f in review.findings if f.severity == "error"})
    advised = sorted({f.rule for f in review.findings if f.severity == "warning"})
    assert denied == sorted(r for r in rules.split(",") if r != "-")
    assert advised == sorted(w for w in warnings.split(",") if w != "-")
