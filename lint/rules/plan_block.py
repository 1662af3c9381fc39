"""plan-block: a plan's §9 block must parse, fit the schema, and fit the ladder."""

from __future__ import annotations

from typing import ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule

_PHASE = "  - {name: gen, intent: capture-7b, width: 8, gpu_hours: 8, launch: x}\n"
_PLAN = "# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n{}```\n"


class PlanBlock(Rule):
    """Parses the §9 block of each plan (the first `yaml` or `yml` fence under
    the heading that starts with §9 or reads "9. Compute"; other numbered
    headings such as "9. Safety Rules" are not §9) with the shared §9 parser
    and reports a block that is missing, does not parse, does not fit the
    schema (unknown or missing keys, a width outside 1, 2, 4, 8, a gpu_hours
    that is not a number > 0, duplicate phase names), or does not fit the
    ladder (an unknown intent, a width below the intent's minimum). Every
    problem of a block is reported, one finding each, at its own line."""

    name = "plan-block"
    summary = "a §9 block that does not parse or does not fit the schema or the ladder"
    reads = "plan"
    VALID: ClassVar[list[Example]] = [
        Example(_PLAN.format(_PHASE)),
        Example("# Plan\n\n## 9. Compute\n\n```yaml\nphases: []\n```\n"),
        Example("# Plan\n\n## 9. Safety Rules\n\n```yaml\nphases: [oops]\n```\n\n"
                "## **§9 Compute**\n\n```yml\nphases: []\n```\n"),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example("# Plan\n\nNo compute section.\n", 1, 1),
        Example("# Plan\n\n## 9. Safety Rules\n\n```yaml\nphases: []\n```\n", 1, 1),
        Example("# Plan\n\n## §9 Compute\n\n```yaml\nphases: [\n```\n", 7, 1),
        Example(_PLAN.format(_PHASE.replace("width: 8", "width: 3")), 7, 1),
        Example(_PLAN.format(_PHASE.replace("capture-7b", "capture-70b")), 7, 1),
        Example(_PLAN.format("  - {name: g, intent: eval-70b, width: 1, gpu_hours: 1, "
                             "launch: x}\n"), 7, 1),
        Example(_PLAN.format(_PHASE.replace("launch: x", "launch: x, gpus: 8")), 7, 1),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        from router.section9 import PlanError, check_against_ladder, parse_plan

        doc = ctx.doc
        try:
            plan = parse_plan(doc.text, doc.path, doc.tokens, ctx.run.config)
        except PlanError as exc:  # one finding per problem, each at its own line
            return [Finding(ctx.path, p.line or 1, 1, self.name, p.message)
                    for p in exc.problems]
        return [Finding(ctx.path, err.line or 1, 1, self.name, err.message)
                for err in check_against_ladder(plan, ctx.run.config)]
