"""Generated regions (cog-style): Markdown rendered from the ladder config
between markers, checked for staleness and rewritten by `--fix`.

    <!-- workflow-lint:generated ladder-table -->
    ...rendered text...
    <!-- workflow-lint:end -->
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from lint.facts import Facts
from router.config import LadderConfig

BEGIN = re.compile(r"^\s*<!--\s*workflow-lint:generated\s+([\w-]+)\s*-->\s*$")
END = re.compile(r"^\s*<!--\s*workflow-lint:end\s*-->\s*$")


def _ladder_table(config: LadderConfig) -> str:
    rows = ["| family | machine types | width degradation | provisioning | zones |",
            "| --- | --- | --- | --- | --- |"]
    for name, family in config.families.items():
        widths = sorted(family.widths, reverse=True)
        rows.append(f"| {name} | `{family.machine_type_template.replace('{width}', '{N}')}` | "
                    f"{' → '.join(f'{w}×' for w in widths)} | {'/'.join(family.provisioning)} | "
                    f"{len(family.zones)} |")
    return "\n".join(rows)


def _ladder_order(config: LadderConfig) -> str:
    """The ladder in order, every fact computed by the planner from `config`."""
    facts = Facts(config)
    lanes = ", ".join(facts.lanes()) or "none configured"
    flex = facts.flex_model or "FLEX_START"
    steps = {
        "gcp": f"GCP, widest first: {facts.width_label()} on capacity misses. At each "
               f"width, short jobs (under {facts.threshold:g} h) "
               f"{' → '.join(facts.short_order)}; long jobs {' → '.join(facts.long_order)}. "
               f"{flex} only where the job fits {facts.flex_max:g} h.",
        "slurm": f"Then the SLURM lanes ({lanes}).",
        "runpod": "RunPod, the last rung, only after GCP and SLURM are exhausted.",
    }
    return "\n".join(f"{i}. {steps[b]}" for i, b in enumerate(facts.backends, 1))


def _intent_table(config: LadderConfig) -> str:
    rows = ["| intent | families | minimum width | SLURM lanes | RunPod GPU types |",
            "| --- | --- | --- | --- | --- |"]
    for name, intent in config.intents.items():
        rows.append(f"| `{name}` | {', '.join(intent.families)} | {intent.min_width} | "
                    f"{', '.join(intent.slurm_lanes)} | {', '.join(intent.runpod_gpu_types)} |")
    return "\n".join(rows)


RENDERERS: dict[str, Callable[[LadderConfig], str]] = {
    "ladder-table": _ladder_table,
    "ladder-order": _ladder_order,
    "intent-table": _intent_table,
}


@dataclass(frozen=True)
class Region:
    kind: str
    begin: int  # 0-based index of the begin marker line
    end: int | None  # 0-based index of the end marker line, None if unterminated
    current: str
    expected: str | None  # None: unknown kind

    @property
    def stale(self) -> bool:
        return self.expected is not None and self.current != self.expected


def regions(lines: list[str], code_lines: set[int], config: LadderConfig) -> list[Region]:
    found = []
    i = 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m and (i + 1) not in code_lines:
            end = next((j for j in range(i + 1, len(lines)) if END.match(lines[j])), None)
            body = "\n".join(lines[i + 1:end if end is not None else i + 1])
            renderer = RENDERERS.get(m.group(1))
            found.append(Region(m.group(1), i, end, body,
                                renderer(config) if renderer else None))
            i = end + 1 if end is not None else i + 1
        else:
            i += 1
    return found


def fix(text: str, config: LadderConfig, code_lines: set[int]) -> str:
    """`text` with every stale region re-rendered; line endings preserved."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if text.endswith("\r\n") or "\r\n" in text[:2000] else "\n"
    plain = [line.rstrip("\r\n") for line in lines]
    for region in reversed(regions(plain, code_lines, config)):
        if region.stale and region.end is not None:
            rendered = [line + newline for line in (region.expected or "").split("\n")]
            lines[region.begin + 1:region.end] = rendered
    return "".join(lines)
