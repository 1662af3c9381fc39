"""`workflow-lint --explain FILE`: each ladder sentence, what the engine read
from it, and the verdict on each reading. The tool for trusting the lint, and
for debugging it."""

from __future__ import annotations

from pathlib import Path

from lint.propositions import Verdict


def _verdict(v: Verdict) -> str:
    if v.holds is None:
        return f"not decided by the ladder ({v.expected})" if v.expected else \
            "not decided by the ladder"
    return "true" if v.holds else f"DRIFT (expected: {v.expected})"


def explain(path: str, ws) -> str:
    from lint import document, engine
    from lint.rule import Context
    from lint.rules.ladder_drift import region_lines

    target = engine.Target(Path(path), path, {"markdown"})
    text, problem = engine.read_text(target)
    if problem is not None:
        from router.cliutil import UsageError

        raise UsageError(f"{path}: {problem.message}")
    assert text is not None
    doc = document.parse(path, text)
    critic = (doc.front_matter is not None and "efficiency-critic" in "\n".join(
        doc.lines[:doc.front_matter[1]])) or Path(path).name == "efficiency-critic.md" or \
        ws.matches(ws.rel(Path(path)), ws.critic_guidance)
    linter = engine.Linter(ws, set())
    ctx = Context(path, doc, text, {"markdown"}, linter)
    out = []
    readings = linter.engine.analyze(doc, region_lines(ctx), critic)
    for r in readings:
        s = r.sentence
        if not (r.props or s.context):
            continue
        line, col = r.unit.position(s.start + len(s.text) - len(s.text.lstrip()))
        out.append(f"{path}:{line}:{col}: {' '.join(r.text.split())}")
        if s.history:
            out.append("    history or a quoted statement: not a claim about today's ladder")
        elif s.question and not r.props:
            out.append("    a question: its answer carries the claim")
        elif not r.props:
            out.append("    not understood" if _has_entities(s) else "    no ladder claim")
        for p, v in zip(r.props, r.verdicts, strict=True):
            out.append(f"    {p.topic}: {p.describe()} → {_verdict(v)}")
    if not out:
        out.append(f"{path}: no ladder sentences")
    return "\n".join(out)


def _has_entities(sentence) -> bool:
    return sum(t.entity for t in sentence.tokens) >= 2
