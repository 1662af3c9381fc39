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


# Examples run as tests (tests/test_lint_rules.py): each VALID document lints
# clean, each INVALID one yields exactly one ladder-drift finding.
VALID = [
    "The router walks GCP → SLURM → RunPod.",
    "Wide first: 8×, then 4×, 2×, 1× on capacity misses.",
    "After the 1× GCP rungs come the SLURM lanes, then RunPod, the last rung.",
    "Short jobs (under 4 h) lead with SPOT; long jobs lead with FLEX_START.",
    "`a3-highgpu-8g` is FLEX_START/SPOT-only.",
    "RunPod is used only after GCP and SLURM are exhausted.",
    "WebGPU runs 8x faster than WebGL, then 2x again with shaders.",
    "```text\nRunPod → GCP\n```",
    "| step | backend |\n| --- | --- |\n| 1 | GCP → SLURM → RunPod |",
]
INVALID = [
    "Try RunPod → GCP → SLURM.",
    "Degrade 1× → 2× → 4× → 8×.",
    "`a3-highgpu-8g` is SPOT-only.",
    "Short jobs lead with FLEX_START.",
    "SLURM is the last rung.",
    "| step | backend |\n| --- | --- |\n| 1 | SLURM → GCP |",
    "<!-- workflow-lint:generated ladder-order -->\n1. stale\n<!-- workflow-lint:end -->",
]
