"""stale-claim: retired statements, as data (lint/stale_claims.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule
from router import yamlsafe

PACKAGED = Path(__file__).resolve().parents[1] / "stale_claims.yaml"
# One character in, one character out, so match offsets stay valid.
_SPACE_LIKE = str.maketrans({"-": " ", "_": " ", "/": " ", "×": "x"})


class ClaimsError(ValueError):
    pass


@dataclass(frozen=True)
class StaleClaim:
    id: str
    message: str
    patterns: tuple[re.Pattern[str], ...]


def load(path: Path = PACKAGED) -> list[StaleClaim]:
    try:
        located = yamlsafe.load_file(path, "stale claims")
    except ValueError as exc:
        raise ClaimsError(str(exc)) from None
    data = located.data
    if not isinstance(data, list):
        raise ClaimsError(f"{path}: expected a list of claims")
    claims = []
    for i, entry in enumerate(data):
        line = located.line_of((i,))
        if not isinstance(entry, dict) or set(entry) != {"id", "message", "patterns"} or \
                not isinstance(entry["patterns"], list) or not entry["patterns"]:
            raise ClaimsError(f"{path}:{line}: each claim needs exactly id, message, patterns")
        try:
            patterns = tuple(re.compile(str(p), re.I) for p in entry["patterns"])
        except re.error as exc:
            raise ClaimsError(f"{path}:{line}: bad pattern: {exc}") from None
        claims.append(StaleClaim(str(entry["id"]), str(entry["message"]).strip(), patterns))
    return claims


def matched_sentences(ctx: Context) -> dict[tuple[int, int], tuple[StaleClaim, int]]:
    """Sentences that state a retired claim, keyed by (unit line, sentence
    start): each with the claim and the offset of the match in the unit text.
    A negated, historical or quoted statement of it is not a match."""
    key = "stale-sentences"
    if key in ctx.doc.cache:
        return ctx.doc.cache[key]
    from lint import reading

    lexicon = ctx.run.engine.lexicon
    found: dict[tuple[int, int], tuple[StaleClaim, int]] = {}
    for unit in ctx.doc.units:
        text = unit.text.translate(_SPACE_LIKE)
        hits = [(m.start(), claim) for claim in ctx.run.claims for pattern in claim.patterns
                for m in [pattern.search(text)] if m]
        if not hits:
            continue
        for start, end in reading.split_sentences(unit.text):
            if (unit.line, start) in found:
                continue
            masked = reading.blank_quotes(unit.text[start:end]).translate(_SPACE_LIKE)
            if masked.rstrip(" *_`").endswith("?"):
                continue  # a question asks; its answer carries the claim
            for claim in ctx.run.claims:
                m = next((m for p in claim.patterns for m in [p.search(masked)] if m), None)
                if m is None:
                    continue
                tokens = lexicon.tag(masked, cues_alone=True)
                if re.search(r"\b(?:none|nothing|no\s+longer)\b", masked, re.I) or \
                        any(t.kind == "history" for t in tokens) or any(
                        t.kind == "neg" and t.end <= m.start() + 1 and
                        masked[t.start:t.end].lower() != "no" for t in tokens):
                    continue
                found[(unit.line, start)] = (claim, start + m.start())
                break
    ctx.doc.cache[key] = found
    return found


class StaleClaimRule(Rule):
    """Reports a retired statement: a claim that once described the router and
    no longer does, such as the old "8× rungs are explicit-intent-only, not in
    the auto-ladder". Retired claims are data (`lint/stale_claims.yaml`, plus a
    workspace's `stale_claims` file), Vale-style existence rules matched
    per sentence. A sentence that negates the claim, reports it as history
    ("the old guide said …") or quotes it is not flagged, and a sentence
    reported here is not reported again by ladder-drift."""

    name = "stale-claim"
    summary = "a retired statement that no longer describes the router"
    VALID: ClassVar[list[Example]] = [
        Example("8× rungs are part of the auto ladder: the router goes wide when work shards."),
        Example("```text\n8× rungs are explicit-intent-only, NOT in the auto-ladder\n```"),
        Example("The old guide said 8× rungs were explicit-intent-only; that is retired."),
        Example("Never use RunPod first."),
    ]
    INVALID: ClassVar[list[Example]] = [
        Example("The 8× rungs are explicit-intent-only, NOT in the auto-ladder (#743).", 1, 18),
        Example("- a2-ultragpu-8g stays excluded from the auto ladder.", 1, 24),
        Example("8x machine rungs are opt-in.", 1, 1),
    ]

    def check(self, ctx: Context) -> list[Finding]:
        findings = []
        units = {u.line: u for u in ctx.doc.units}
        for (line, _), (claim, offset) in matched_sentences(ctx).items():
            at_line, col = units[line].position(offset)
            message = claim.message.replace("{widths}", ctx.run.engine.facts.width_label())
            findings.append(Finding(ctx.path, at_line, col, self.name,
                                    f"{message} [{claim.id}]"))
        return findings
