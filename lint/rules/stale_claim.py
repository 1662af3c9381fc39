"""stale-claim: retired statements, as data (lint/stale_claims.yaml)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from lint.findings import Finding
from lint.rule import Context, Example, Rule

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
    # a packaged claim is about the ladder: it counts only where the sentence names
    # a ladder entity or its section is about routing ("`true` makes the skill
    # explicit-only in Cursor" is not the old 8× rule); a workspace's own claims
    # may be about anything
    ladder: bool = False


# --- Pattern safety -------------------------------------------------------
# Python's `re` backtracks and has no timeout, so a pattern such as `(a+)+$`
# can take years on one paragraph. Workspace patterns are therefore checked
# before use against a small pattern language whose worst case is bounded:
#
# * no backreferences, conditionals or lookarounds;
# * a quantifier that repeats more than once (`*`, `+`, `{m,n}`, n > 1) applies
#   to one character (a literal, `.`, `\s`, `[...]`), never to a group, and
#   counts stay at or under MAX_REPEAT_COUNT; `?` may make any group optional;
# * the time exponent (below) is at most MAX_TIME_EXPONENT, and the branching
#   of overlapping alternatives at most MAX_BRANCHING.
#
# With repeats of single characters only, the pattern's automaton (Glushkov:
# one state per character position) is a DAG plus self-loops, so a match can
# never be exponential in the text; the polynomial degree is the longest chain
# of loops that can split the same text between them (`\s*\s*`, `.*a.*`): the
# ambiguity degree. A search also restarts at every offset, which adds one to
# the exponent unless each loop of the chain is preceded by a loop-free prefix
# containing a character the loop cannot read (`auto\s*` restarts nowhere
# inside a run of spaces). Matching then runs over windows of WINDOW characters,
# so the worst case is about n * WINDOW steps for n characters of prose.

MAX_PATTERN_CHARS = 300
MAX_REPEAT_COUNT = 100
MAX_REPEATS = 30  # repeats per pattern: keeps the check itself quick (it is cubic in them)
MAX_TIME_EXPONENT = 2
MAX_BRANCHING = 64
WINDOW = 1000  # a claim longer than WINDOW // 2 characters may be missed
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
_ONE_CHAR = ("LITERAL", "NOT_LITERAL", "ANY", "IN")
_FORBIDDEN = {"GROUPREF": "a backreference", "GROUPREF_EXISTS": "a conditional group",
              "GROUPREF_IGNORE": "a backreference", "GROUPREF_LOC_IGNORE": "a backreference",
              "GROUPREF_UNI_IGNORE": "a backreference", "ASSERT": "a lookaround",
              "ASSERT_NOT": "a lookaround"}
_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}
# Characters a class is probed with: Latin-1, plus one of each kind Python's
# \w, \s and \d and case folding tell apart beyond it. A pattern's own literal
# characters and range ends are added, so two classes that share a character
# share a probed one (two overlapping ranges share an end of one of them).
_PROBES = "".join(map(chr, range(256))) + (
    "ſKİı→←–—\u2028\u2029\u3000\u200b\u0660٣中ǅﬁ₂ⅫΣσς\U0001f600\U00010400")


class PatternError(ValueError):
    pass


@dataclass
class _Glushkov:
    """Positions (one per single-character atom), their character classes
    (as the probed characters they match), self-loops and follow edges."""

    probes: str
    chars: list[frozenset[str]] = field(default_factory=list)
    loops: list[bool] = field(default_factory=list)
    follow: list[set[int]] = field(default_factory=list)

    def position(self, atom: tuple[Any, Any], loop: bool) -> int:
        self.chars.append(_probe(atom, self.probes))
        self.loops.append(loop)
        self.follow.append(set())
        return len(self.chars) - 1

    def build(self, items: Any) -> tuple[set[int], set[int], bool]:
        """(first, last, nullable) of a sequence, adding its follow edges."""
        first: set[int] = set()
        last: set[int] = set()
        nullable = True
        for item in items:
            f, la, n = self.item(item)
            for p in last:
                self.follow[p] |= f
            if nullable:
                first |= f
            last = (last | la) if n else la
            nullable = nullable and n
        return first, last, nullable

    def item(self, item: tuple[Any, Any]) -> tuple[set[int], set[int], bool]:
        op, av = str(item[0]), item[1]
        if op in _FORBIDDEN:
            raise PatternError(f"{_FORBIDDEN[op]} is not allowed")
        if op in _ONE_CHAR:
            p = self.position(item, False)
            return {p}, {p}, False
        if op == "AT":  # anchors and \b read no character
            return set(), set(), True
        if op == "BRANCH":
            parts = [self.build(sub) for sub in av[1]]
            first = set().union(*(f for f, _, _ in parts))
            return first, set().union(*(la for _, la, _ in parts)), any(n for _, _, n in parts)
        if op == "SUBPATTERN":
            return self.build(av[3])
        if op == "ATOMIC_GROUP":
            return self.build(av)
        if op in _REPEATS:
            return self.repeat(*av)
        raise PatternError(f"unsupported construct {op}")

    def repeat(self, low: int, high: Any, body: Any) -> tuple[set[int], set[int], bool]:
        from re._constants import MAXREPEAT

        if low > MAX_REPEAT_COUNT or (high != MAXREPEAT and high > MAX_REPEAT_COUNT):
            raise PatternError(f"a repeat count above {MAX_REPEAT_COUNT}")
        if high <= 1:  # `?` (or {1}): the body, maybe skipped
            f, la, n = self.build(body)
            return f, la, n or low == 0
        atoms = list(body)
        while len(atoms) == 1 and str(atoms[0][0]) == "SUBPATTERN":  # (?:a)+ is a+
            atoms = list(atoms[0][1][3])
        if len(atoms) != 1 or str(atoms[0][0]) not in _ONE_CHAR:
            raise PatternError("a repeated group (nested quantifier); repeat single "
                               "characters only, or make the group optional with ?")
        if sum(self.loops) >= MAX_REPEATS:
            raise PatternError(f"more than {MAX_REPEATS} repeats")
        p = self.position(atoms[0], True)
        self.follow[p].add(p)
        return {p}, {p}, low == 0


def _class_source(item: tuple[Any, Any]) -> str:
    op, av = str(item[0]), item[1]
    if op == "LITERAL":
        return re.escape(chr(av))
    if op == "NOT_LITERAL":
        return f"[^{re.escape(chr(av))}]"
    if op == "ANY":
        return "(?s:.)"  # conservative: as if DOTALL
    parts = []
    for sub_op, sub_av in av:
        sub = str(sub_op)
        if sub == "NEGATE":
            parts.insert(0, "^")
        elif sub == "LITERAL":
            parts.append(re.escape(chr(sub_av)))
        elif sub == "RANGE":
            parts.append(f"{re.escape(chr(sub_av[0]))}-{re.escape(chr(sub_av[1]))}")
        elif sub == "CATEGORY":
            parts.append(_CATEGORIES[str(sub_av)])
        else:
            raise PatternError(f"unsupported class item {sub}")
    return f"[{''.join(parts)}]"


def _probe(item: tuple[Any, Any], probes: str) -> frozenset[str]:
    matcher = re.compile(_class_source(item), re.I)
    return frozenset(c for c in probes if matcher.fullmatch(c))


def _pattern_chars(items: Any, out: set[str]) -> None:
    """Every literal character and range end of a parsed pattern (added to the probes)."""
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL"):
            out.update((chr(av), chr(av).lower(), chr(av).upper()))
        elif name == "RANGE":
            out.update(chr(v) for v in av)
            if av[1] - av[0] <= 4096:  # a small range is probed whole
                out.update(map(chr, range(av[0], av[1] + 1)))
        elif name == "IN":
            _pattern_chars(av, out)
        elif name == "BRANCH":
            for sub in av[1]:
                _pattern_chars(sub, out)
        elif name == "SUBPATTERN":
            _pattern_chars(av[3], out)
        elif name == "ATOMIC_GROUP":
            _pattern_chars(av, out)
        elif name in _REPEATS:
            _pattern_chars(av[2], out)


def _reaches(g: _Glushkov, starts: set[int], target: int, allowed: Any) -> bool:
    """Whether `target` is reachable from `starts` through positions `allowed` admits."""
    seen, todo = set(), [s for s in starts if s == target or allowed(s)]
    while todo:
        node = todo.pop()
        if node == target:
            return True
        if node in seen:
            continue
        seen.add(node)
        todo.extend(n for n in g.follow[node] if n != node and (n == target or allowed(n)))
    return False


def _restarts(g: _Glushkov, first: set[int], loop: int) -> int:
    r"""1 if a search can reach `loop` from many starting offsets over the same
    run of text, else 0. It can when some loop on the way (or `loop` itself) is
    reachable from the pattern's start reading only characters that loop reads:
    a search restarting inside the run gets there again (`[a-z]*auto\s*`,
    `\s*x`). A loop behind a character it cannot read (`auto\s*`) is entered
    from one start per run."""
    for p in range(loop + 1):
        if not g.loops[p] or not (p == loop or _reaches(g, {p}, loop, lambda _n: True)):
            continue
        own = g.chars[p]
        if _reaches(g, first, p, lambda n, own=own: bool(g.chars[n] & own)):
            return 1
    return 0


def _complexity(g: _Glushkov, first: set[int]) -> tuple[int, int]:
    """(time exponent, branching) of the automaton."""
    loops = [p for p, is_loop in enumerate(g.loops) if is_loop]
    exponent: dict[int, int] = {}
    for q in loops:  # positions are in text order, and edges only go forward
        best = 1 + _restarts(g, first, q)
        for p in loops:
            if p >= q:
                break
            shared = g.chars[p] & g.chars[q]
            if shared and _reaches(g, g.follow[p] - {p}, q,
                                   lambda n, s=shared: bool(g.chars[n] & s)):
                best = max(best, exponent[p] + 1)
        exponent[q] = best
        if best > MAX_TIME_EXPONENT:
            break  # already refused; the rest would only cost time
    branching = 1
    for succ in [first, *g.follow]:
        nodes = sorted(succ)
        overlapping = {a for a in nodes for b in nodes if a != b and g.chars[a] & g.chars[b]}
        branching *= max(1, len(overlapping))
        if branching > MAX_BRANCHING:
            break
    return max(exponent.values(), default=1 if g.chars else 0), branching


@functools.lru_cache(maxsize=256)
def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` could backtrack without bound, or None if it is safe."""
    import re._parser as sre_parse

    if len(pattern) > MAX_PATTERN_CHARS:
        return f"longer than {MAX_PATTERN_CHARS} characters"
    try:
        parsed = sre_parse.parse(pattern, re.I)
    except re.error as exc:
        return str(exc)
    extra: set[str] = set()
    _pattern_chars(parsed, extra)
    g = _Glushkov("".join(dict.fromkeys(_PROBES + "".join(sorted(extra)))))
    try:
        first, _, nullable = g.build(parsed)
    except PatternError as exc:
        return str(exc)
    if nullable:  # it would match every sentence
        return "it matches empty text"
    exponent, branching = _complexity(g, first)
    if exponent > MAX_TIME_EXPONENT:
        return (f"catastrophic backtracking: its repeats can share out the same text, so a "
                f"search takes time of order n^{exponent} (at most n^{MAX_TIME_EXPONENT}); "
                "put a character between them that they cannot both match")
    if branching > MAX_BRANCHING:
        return (f"its overlapping alternatives branch more than {MAX_BRANCHING} ways; "
                "start alternatives with different characters")
    return None


@functools.lru_cache(maxsize=256)
def _reads_the_end(source: str) -> bool:
    r"""Whether a pattern has an anchor ($, \b, \B, \Z...), which a window's cut
    end could satisfy falsely; without one, a match in a window is a match."""
    return re.search(r"\\[bBZ]|\$", source) is not None


@functools.lru_cache(maxsize=256)
def _prefiltered(pattern: re.Pattern[str]) -> Any:
    from lint.lexicon import Prefiltered

    return Prefiltered(pattern)


def _may_match(pattern: re.Pattern[str], lowered: str) -> bool:
    """False when the text (its gate text `lowered`) lacks every literal a
    match of `pattern` needs: most units name none of a claim's words."""
    return _prefiltered(pattern).may_match(lowered)


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    r"""`pattern.search(text)` over overlapping windows of WINDOW characters, so
    a long paragraph costs linear time. `pos` keeps ^ and \b honest at a
    window's start; a match of an anchored pattern that touches a window's cut
    end is retried in the next window."""
    step = WINDOW // 2
    for start in range(0, max(len(text) - step, 1), step):
        end = min(start + WINDOW, len(text))
        m = pattern.search(text, start, end)
        if m and (m.end() < end or end == len(text) or not _reads_the_end(pattern.pattern)):
            return m
    return None


def _compile(pattern: Any, where: str, trusted: bool) -> re.Pattern[str]:
    text = str(pattern)
    # The packaged patterns are checked by the tests (test_stale_claim_patterns),
    # not on every run: the check is a third of this rule's start-up.
    problem = None if trusted else pattern_problem(text)
    if problem:
        from router.config import brief  # here: the rule registry imports this module

        raise ClaimsError(f"{where}: unsafe pattern {brief(text)}: {problem}")
    return re.compile(text, re.I)


def load(path: Path = PACKAGED) -> list[StaleClaim]:
    try:
        from router import yamlsafe  # yaml only when the claims are loaded

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
        patterns = tuple(_compile(p, f"{path}:{located.line_of((i, 'patterns', j))}",
                                  path == PACKAGED)
                         for j, p in enumerate(entry["patterns"]))
        claims.append(StaleClaim(str(entry["id"]), str(entry["message"]).strip(), patterns,
                                 ladder=path == PACKAGED))
    return claims


# "…; the explicit-intent-only rule is gone": the sentence retires the claim
_RETIRED_NOTE = re.compile(
    r"\b(?:is|are|was|were|has\s+been|have\s+been|got)\s+(?:now\s+|since\s+)?(?:gone|retired|"
    r"removed|dropped|obsolete|stale|dead|deprecated|abolished|lifted|scrapped|reverted)\b|"
    r"\b(?:retired|obsolete|deprecated|outdated|old|former|previous)\s+(?:\w+\s+)?(?:rule|wording|"
    r"line|ladder|guide|guidance|text|version|policy)\b", re.I)


def matched_sentences(ctx: Context) -> dict[tuple[int, int], tuple[StaleClaim, int]]:
    """Sentences that state a retired claim, keyed by (unit line, sentence
    start): each with the claim and the offset of the match in the unit text.
    A negated, historical or quoted statement of it is not a match."""
    key = "stale-sentences"
    if key in ctx.doc.cache:
        return ctx.doc.cache[key]
    from lint import reading
    from lint.document import ARCHIVE_HEADING, corrected_quote_lines
    from lint.lexicon import _gate_text

    lexicon = ctx.run.engine.lexicon
    found: dict[tuple[int, int], tuple[StaleClaim, int]] = {}
    corrected = corrected_quote_lines(ctx.doc)
    for unit in ctx.doc.units:
        if unit.line in corrected:
            continue  # quoted to be corrected: "> 8× rungs are explicit-intent-only" + "Retired."
        text = unit.text.translate(_SPACE_LIKE)
        lowered = _gate_text(text)
        hits = [(m.start(), claim) for claim in ctx.run.claims for pattern in claim.patterns
                if _may_match(pattern, lowered) for m in [search(pattern, text)] if m]
        if not hits:
            continue
        for start, end in reading.split_sentences(unit.text):
            if (unit.line, start) in found:
                continue
            masked = reading.blank_quotes(unit.text[start:end]).translate(_SPACE_LIKE)
            if masked.rstrip(" *_`").endswith("?"):
                continue  # a question asks; its answer carries the claim
            for claim in ctx.run.claims:
                m = next((m for p in claim.patterns for m in [search(p, masked)] if m), None)
                if m is None:
                    continue
                if claim.ladder and not (lexicon.mentions_anything(masked) or
                                         lexicon.ladder_context.search(masked) or
                                         lexicon.ladder_context.search(unit.heading)):
                    continue
                tokens = lexicon.tag(masked, cues_alone=True)
                if re.search(r"\b(?:none|nothing|no\s+longer)\b", masked, re.I) or \
                        _RETIRED_NOTE.search(masked) or ARCHIVE_HEADING.search(unit.heading) or \
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
        Example("`true` makes the skill explicit-only in Claude Code and Cursor."),
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
