"""ladder-drift: a surface states a ladder fact that contradicts the config."""

from __future__ import annotations

from typing import ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule

CRITIC_TOPICS = {"critic verdict", "widening threshold", "parallel work"}


def claim_findings(ctx: Context, rule: str, critic_topics: bool) -> list[Finding]:
    """One finding per wrong sentence, from the claim engine's readings."""
    from lint import suggest

    engine = ctx.run.engine
    critic = "critic" in ctx.kinds
    skip = region_lines(ctx)
    stale = set()
    if "stale-claim" in ctx.selected and not critic_topics:
        from lint.rules.stale_claim import matched_sentences

        stale = matched_sentences(ctx)
    findings = []
    for r in engine.analyze(ctx.doc, skip, critic):
        if (r.unit.line, r.sentence.start) in stale:
            continue
        for p, verdict in r.drifts():
            if (p.topic in CRITIC_TOPICS) != critic_topics:
                continue
            line, col = r.unit.position(p.start)
            if r.snippet:
                # a config snippet's fix is the config's own value, in the snippet's form
                fix = suggest.line_fix(engine, r.snippet.strip(), critic) \
                    if isinstance(r.snippet, str) else ""
            elif r.unit.data:
                fix = suggest.data_suggestion(engine, r.unit, verdict, critic)
            else:
                fix = suggest.suggestion(engine, _as_written(r), p, verdict, r.sentence.start,
                                         critic)
                if fix and r.unit.kind == "table-row" and fix.startswith(r.text[:1]) and \
                        " | " in fix:
                    fix = f"| {fix} |"  # the row as it is written, its cells mended
            message = f"{p.topic}: the text says {p.describe()}; the ladder says " \
                      f"{verdict.expected}" if not critic_topics else \
                      f"{p.topic}: the text says {p.describe()}; {verdict.expected}"
            if fix:
                message += f". Suggested: \"{fix}\""
            findings.append(Finding(ctx.path, line, col, rule, message))
            break  # one finding per sentence: its first wrong claim
    return findings


def region_lines(ctx: Context) -> set[int]:
    key = "generated-regions"
    if key not in ctx.doc.cache:
        lines: set[int] = set()
        from lint import generated  # with the ladder config: only when Markdown is linted

        regions = generated.regions(ctx.doc.lines, ctx.doc.code_lines, ctx.run.config)
        for region in regions:
            last = region.end if region.end is not None else region.begin
            lines.update(range(region.begin + 1, last + 2))
        ctx.doc.cache[key] = (regions, lines)
    return ctx.doc.cache[key][1]


class LadderDrift(Rule):
    """Reads the prose of each surface (sentences in paragraphs, list items,
    headings as context, table rows, the `key: value` lines and comments of
    plain-text and YAML fences, and YAML fences that restate the ladder config
    value by value; not other code, not a tool's output transcript, not front
    matter) into propositions about the ladder, and reports each one that the
    router's ladder config contradicts: backend order, SLURM lane order, what
    is on the ladder at all, how many backends it has, the width chain, where
    a request of one width starts, provisioning models per family
    or machine type, the lead model per job length, the short threshold, the
    FLEX_START maximum run, the family order at one width, an intent's
    minimum width, the auto ladder, each SLURM lane's partition, widest
    allocation and wait, the families' machine types and GPUs, the width the
    SLURM and RunPod rungs ask for, RunPod's GPU types, and derived facts
    such as a job's length at a degraded width. It also reports a stale,
    unterminated or unknown generated region."""

    name = "ladder-drift"
    summary = "a surface states a ladder fact that contradicts the router's config"
    VALID: ClassVar[list[Example]] = [
        Example("The router walks GCP → SLURM → RunPod."),
        Example("Wide first: 8×, then 4×, 2×, 1× on capacity misses."),
        Example("After the 1× GCP rungs come the SLURM lanes, then RunPod, the last rung."),
        Example("Short jobs (under 4 h) lead with SPOT; long jobs lead with FLEX_START."),
        Example("Short jobs never lead with FLEX_START."),
        Example("`a3-highgpu-8g` is FLEX_START/SPOT-only, and `a2-ultragpu-8g` is not "
                "SPOT-only."),
        Example("The SLURM lanes are tried after the narrowest GCP rungs and before RunPod."),
        Example("## Debugging\n\nOpen an interactive shell with Slurm first, then attach."),
        Example("The video player steps speed 1x -> 2x -> 4x -> 8x."),
        Example("```text\nRunPod → GCP\n```"),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example("Try RunPod → GCP → SLURM.", 1, 5),
        Example("Degrade 1× → 2× → 4× → 8× on capacity misses.", 1, 9),
        Example("`a3-highgpu-8g` is SPOT-only.", 1, 2),
        Example("Short jobs lead with STANDARD (on-demand).", 1, 22),
        Example("- On a capacity miss, SLURM is the last rung.", 1, 23),
        Example("| step | backend |\n| --- | --- |\n| 1 | SLURM |\n| 2 | GCP |", 4, 7),
        Example("A 3 h job at 8× that degrades to 2× still counts as short.", 1, 53),
        Example("<!-- workflow-lint:generated ladder-order -->\n1. stale\n"
                "<!-- workflow-lint:end -->", 1, 1),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        region_lines(ctx)
        regions, _ = ctx.doc.cache["generated-regions"]
        findings = []
        for region in regions:
            if region.end is None:
                findings.append(Finding(ctx.path, region.begin + 1, 1, self.name,
                                        f"generated region '{region.kind}' has no "
                                        "'<!-- workflow-lint:end -->' marker"))
            elif region.expected is None:
                from lint import generated

                known = ", ".join(sorted(generated.RENDERERS))
                findings.append(Finding(ctx.path, region.begin + 1, 1, self.name,
                                        f"unknown generated region '{region.kind}' "
                                        f"(known: {known})"))
            elif region.stale:
                findings.append(Finding(ctx.path, region.begin + 1, 1, self.name,
                                        f"generated region '{region.kind}' is stale against "
                                        "the ladder config; run workflow-lint --fix"))
        return findings + claim_findings(ctx, self.name, critic_topics=False)


def _as_written(r) -> str:
    """The sentence with the setting keys the document read spoken ("min width"
    in a table's `min_width` cell, "key: 6" for "key — default 6") written back as
    the file has them, so a fix keeps the key's name. The spoken form has the
    same length."""
    from lint.document import plain_text

    text = r.text
    if "_" not in r.unit.raw:
        return text
    written = plain_text(r.unit)[r.sentence.start:r.sentence.end]
    # (only blanked or colon-marked characters differ: "— default" read as ":")
    if len(written) != len(text) or any(a != b and b not in " :\n"
                                        for a, b in zip(written, text, strict=True)):
        return text
    return written
