"""Review one plan: parse its §9 block once, analyze each launch, run every rule."""

from __future__ import annotations

from dataclasses import dataclass

from critics.launch import analyze
from critics.launchers import Families
from critics.rules import DEFAULT_WIDEN_THRESHOLD, RULES, VERDICTS, Context, Finding
from router.config import LadderConfig
from router.section9 import Plan, PlanError, check_against_ladder, read_plan


@dataclass(frozen=True)
class Review:
    path: str
    findings: tuple[Finding, ...]

    @property
    def verdict(self) -> str:
        approve, revise = VERDICTS
        return revise if any(f.severity == "error" for f in self.findings) else approve

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "verdict": self.verdict,
                "findings": [f.to_json() for f in self.findings]}


def review_plan(plan: Plan, config: LadderConfig,
                widen_threshold: float = DEFAULT_WIDEN_THRESHOLD,
                launchers: Families | None = None) -> Review:
    """`launchers`: the launcher families (default: the packaged ones)."""
    errors = check_against_ladder(plan, config)
    if errors:  # every phase the ladder cannot serve, not just the first
        raise PlanError.combine(errors)
    findings: list[Finding] = []
    for phase in plan.phases:
        ctx = Context(phase, analyze(phase.launch, phase.width, launchers), config,
                      widen_threshold, launchers=launchers)
        for rule in RULES:
            findings.extend(rule.check(ctx))
    return Review(plan.path, tuple(findings))


def review_file(path: str, config: LadderConfig,
                widen_threshold: float = DEFAULT_WIDEN_THRESHOLD,
                launchers: Families | None = None) -> Review:
    """Raises PlanError for bad input (no file, no §9, bad YAML, schema, intent);
    its `problems` list every schema (or ladder) problem of the block."""
    return review_plan(read_plan(path, config), config, widen_threshold, launchers)


__all__ = ["PlanError", "Review", "review_file", "review_plan"]
