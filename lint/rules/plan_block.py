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


_PHASE = "  - {name: gen, intent: capture-7b, width: 8, gpu_hours: 8, launch: x}\n"
VALID = [
    f"# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n{_PHASE}```\n",
    "# Plan\n\n## 9. Compute\n\n```yaml\nphases: []\n```\n",
]
INVALID = [
    "# Plan\n\nNo compute section.\n",
    "# Plan\n\n## §9 Compute\n\n```yaml\nphases: [\n```\n",
    f"# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n{_PHASE.replace('width: 8', 'width: 3')}```\n",
    f"# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n{_PHASE.replace('capture-7b', 'capture-70b')}"
    "```\n",
    "# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - {name: g, intent: eval-70b, width: 1, "
    "gpu_hours: 1, launch: x}\n```\n",
    "# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n"
    f"{_PHASE.replace('launch: x', 'launch: x, gpus: 8')}```\n",
]
