"""plan-block: a plan's §9 block must parse, fit the schema, and fit the ladder."""

from __future__ import annotations

from lint.document import Document
from lint.findings import Finding
from router.config import LadderConfig
from router.section9 import PlanError, check_against_ladder, parse_plan

NAME = "plan-block"


def check(doc: Document, config: LadderConfig) -> list[Finding]:
    try:
        plan = parse_plan(doc.text, doc.path, doc.tokens)
    except PlanError as exc:
        return [Finding(doc.path, exc.line or 1, 1, NAME, exc.message)]
    return [Finding(doc.path, err.line or 1, 1, NAME, err.message)
            for err in check_against_ladder(plan, config)]
