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


def _right(path: Path) -> bool:
    match = EXPECT.match(path.read_text())
    assert match, f"{path.name}: first line must be an expect comment"
    verdict, rules, warnings = match.groups()
    review = review_file(str(path), CFG)
    denied = sorted({f.rule for f in review.findings if f.severity == "error"})
    advised = sorted({f.rule for f in review.findings if f.severity == "warning"})
    return (review.verdict == verdict and denied == sorted(r for r in rules.split(",") if r != "-")
            and advised == sorted(w for w in warnings.split(",") if w != "-"))


@pytest.mark.parametrize("folder", ["critic_heldout", "critic_fresh"])
def test_plans_written_apart_meet_the_accuracy_goal(folder: str) -> None:
    # Written from the issue and the docs by people who never read the critic
    # (critic_fresh: after the critic was done, and never tuned on). The goal
    # is 95% of verdicts, rules and warnings right; a miss is tolerated, a
    # slide is not.
    plans = sorted((Path(__file__).parent / folder).glob("*.md"))
    assert len(plans) >= 40
    wrong = [p.stem for p in plans if not _right(p)]
    assert len(wrong) <= 0.05 * len(plans), wrong
