"""stale-claim: retired statements, as data (lint/stale_claims.yaml)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lint.document import Document
from lint.findings import Finding
from router import yamlsafe

NAME = "stale-claim"
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
    from router import textfile

    try:
        located = yamlsafe.load(textfile.read(path, yamlsafe.DEFAULT_MAX_BYTES, "stale claims"))
    except textfile.TextFileError as exc:
        raise ClaimsError(f"{path}: {exc.message}") from None
    except yamlsafe.YamlError as exc:
        raise ClaimsError(f"{path}:{exc.line}: {exc.message}") from None
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


def check(doc: Document, claims: list[StaleClaim]) -> list[Finding]:
    findings = []
    for unit in doc.units:
        text = unit.text.translate(_SPACE_LIKE)
        for claim in claims:
            for pattern in claim.patterns:
                m = pattern.search(text)
                if m:
                    col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                    findings.append(Finding(doc.path, unit.line_at(m.start()), col, NAME,
                                            f"{claim.message} [{claim.id}]"))
                    break
    return findings


VALID = [
    "8× rungs are part of the auto ladder: the router goes wide when work shards.",
    "```text\n8× rungs are explicit-intent-only, NOT in the auto-ladder\n```",
]
INVALID = [
    "The 8× rungs are explicit-intent-only, NOT in the auto-ladder (#743).",
    "a2-ultragpu-8g stays excluded from the auto ladder.",
    "8x machine rungs are opt-in.",
]
