"""unverified-claim: a ladder sentence the engine could not read (off by default)."""

from __future__ import annotations

from typing import ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule
from lint.rules.ladder_drift import region_lines

_ENTITIES = ("backend", "lane", "family", "model", "width", "intent", "duration")
_CUES = ("then", "before", "after", "first", "last", "only", "neg", "may")


class UnverifiedClaim(Rule):
    """Reports a sentence in ladder context (the sentence or its section is
    about routing, dispatch, fallback, rungs, capacity or the ladder) that
    names two or more ladder entities with an order or permission cue, but
    from which the claim engine read no proposition. Nothing about the ladder
    then passes silently: rewrite the sentence more plainly, or suppress it.
    Off by default; turn it on with `--select unverified-claim` or
    `strict = true` in `[tool.workflow-lint]`."""

    name = "unverified-claim"
    summary = "a sentence about the ladder that the lint could not read"
    default = False
    VALID: ClassVar[list[Example]] = [
        Example("The router walks GCP → SLURM → RunPod."),
        Example("RunPod spends real dollars."),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example("When the ladder misses, SLURM and RunPod are only for the patient.", 1, 1),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        engine = ctx.run.engine
        findings = []
        for r in engine.analyze(ctx.doc, region_lines(ctx), "critic" in ctx.kinds):
            s = r.sentence
            if r.props or not s.context or s.history or s.question:
                continue
            entities = {(t.kind, str(t.value)) for t in s.tokens if t.kind in _ENTITIES}
            if len(entities) < 2 or not any(t.kind in _CUES for t in s.tokens):
                continue
            if engine.lexicon.procedural.search(s.text):
                continue
            line, col = r.unit.position(s.start + len(s.text) - len(s.text.lstrip()))
            findings.append(Finding(ctx.path, line, col, self.name,
                                    "this ladder sentence was not understood; check it by hand "
                                    "or rewrite it (workflow-lint --explain shows what was read)"))
        return findings
