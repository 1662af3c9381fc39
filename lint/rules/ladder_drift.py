"""ladder-drift: a surface states a ladder fact that contradicts the config."""

from __future__ import annotations

from lint import claims, generated
from lint.document import Document
from lint.findings import Finding
from router.config import LadderConfig

NAME = "ladder-drift"


def _col(unit_text: str, offset: int) -> int:
    return offset - (unit_text.rfind("\n", 0, offset) + 1) + 1


def check(doc: Document, config: LadderConfig) -> list[Finding]:
    findings = []
    region_lines: set[int] = set()
    for region in generated.regions(doc.lines, doc.code_lines, config):
        last = region.end if region.end is not None else region.begin
        region_lines.update(range(region.begin + 1, last + 2))
        if region.end is None:
            findings.append(Finding(doc.path, region.begin + 1, 1, NAME,
                                    f"generated region '{region.kind}' has no "
                                    "'<!-- workflow-lint:end -->' marker"))
        elif region.expected is None:
            known = ", ".join(sorted(generated.RENDERERS))
            findings.append(Finding(doc.path, region.begin + 1, 1, NAME,
                                    f"unknown generated region '{region.kind}' (known: {known})"))
        elif region.stale:
            findings.append(Finding(doc.path, region.begin + 1, 1, NAME,
                                    f"generated region '{region.kind}' is stale against the "
                                    "ladder config; run workflow-lint --fix"))
    for unit in doc.units:
        if unit.line in region_lines:
            continue
        for drift in claims.check_text(unit.text, config):
            findings.append(Finding(doc.path, unit.line_at(drift.offset),
                                    _col(unit.text, drift.offset), NAME, drift.message))
    return findings
