"""critic-drift: the efficiency-critic guidance must state the critic's rules."""

from __future__ import annotations

import re
from typing import ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule
from lint.rules.ladder_drift import claim_findings


class CriticDrift(Rule):
    """Reads the critic's guidance with the same claim engine as ladder-drift
    and checks it against the critic's own rules in `critics.rules`: the
    verdict each kind of plan gets (REVISE for the deny rules, a warning that
    leaves the verdict alone for the advisories), the widening threshold of
    needlessly-narrow, and what counts as parallel work (model splitting with
    device_map=auto does not). A verdict stated in the sentence wins over the
    section heading; the heading decides only for a rule listed without one.
    It also reports a deny rule the guidance never states."""

    name = "critic-drift"
    summary = "the critic's guidance contradicts the critic's rules"
    reads = "critic"
    _ALL = ("## REVISE when\n\n- **unsharded-wide**, **under-saturated**, **needlessly-narrow** "
            "(at least 1 GPU-hour), **unreadable-launch**.\n\n## Warn\n\n"
            "- **unwaited-background**, **oversubscribed**.\n")
    VALID: ClassVar[list[Example]] = [
        Example(_ALL),
        Example(_ALL + "\nAn unsharded wide plan is never acceptable.\n"),
        Example(_ALL + "\nA plan that keeps one GPU busy at width 8 is REVISEd "
                       "(unsharded-wide).\n"),
        Example(_ALL + "\n`device_map=auto` model splitting is not parallel work.\n"),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example(_ALL + "\nAn unsharded wide plan is fine when the deadline is close.\n", 9, 4),
        Example(_ALL.replace("**needlessly-narrow** ", ""), 1, 1),
        Example(_ALL.replace("at least 1 GPU-hour", "at least 4 GPU-hours"), 3, 76),
        Example(_ALL + "\n## REVISE also when\n\n- **oversubscribed**.\n", 11, 5),
        Example(_ALL + "\n`device_map=auto` counts as parallel work.\n", 9, 2),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        from lint.propositions import facts_critic

        findings = claim_findings(ctx, self.name, critic_topics=True)
        rules = facts_critic(ctx.run.engine.facts)
        text = "\n".join(u.text for u in ctx.doc.units)
        for name, severity in rules.items():
            if severity == "error" and not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])",
                                                     text):
                findings.append(Finding(ctx.path, 1, 1, self.name,
                                        f"the critic guidance never states the '{name}' rule"))
        return findings
