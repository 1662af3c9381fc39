"""The lexicon: every name the loaded ladder config defines, and the other ways
people write them (lint/lexicon.yaml), compiled once per run into a tagger.

`Lexicon.tag(text)` returns the entity and cue tokens of a clause, longest
match first, with offsets into the text. Entity names are never written here:
backends come from the planner's rungs, lanes, families, machine types, GPUs,
provisioning models, widths and intents from the config, critic rule names
from `critics.rules`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lint.workspace import LexiconError  # defined where the CLI can afford it
from router.config import PROVISIONING_MODELS, LadderConfig

PACKAGED = Path(__file__).with_name("lexicon.yaml")
ENTITY_KINDS = ("backend", "lane", "family", "model", "width", "intent", "duration",
                "gpuhours", "rule", "launcher", "podtype")
_NUMBER = r"\d+(?:\.\d+)?"


@dataclass(frozen=True)
class Token:
    kind: str  # an entity kind (ENTITY_KINDS) or a cue ("neg", "then", "first", ...)
    value: Any  # "gcp", "campus-a100", ("a100-80gb", 8), "SPOT", 8, 4.0, ...
    start: int
    end: int

    @property
    def entity(self) -> bool:
        return self.kind in ENTITY_KINDS


def _bounded(pattern: str) -> str:
    head = r"(?<!\w)" if re.match(r"[\w\\]|\((?!\?<)", pattern) else ""
    tail = r"(?![\w])" if re.search(r"[\w)?*+\]}]$", pattern) else ""
    return f"{head}(?:{pattern}){tail}"


_COMMON = {"start", "the", "and", "with", "time", "run", "runs", "use", "used", "not", "for",
           "job", "jobs", "lane", "lanes", "only", "than", "over", "more", "less", "one", "all"}
_OPTIONAL = re.compile(r"\((?:\?:)?[^()]*\)(?:[?*]|\{0,\d*\})")


_ESCAPE_OR_SYMBOL = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|"
                               r"[0-7]{1,3}|.)|[^\w-]")


@functools.lru_cache(maxsize=4096)  # asked for a branch's gate, then for what it also needs
def _required_runs(pattern: str) -> tuple[str, ...] | None:
    """The literal runs of two or more characters every match of `pattern`
    must contain, lowercased, and `_DIGIT` where it must contain a digit; None
    when the pattern is too intricate to tell cheaply. It reads the pattern as
    a string (no regex parse), so building the gates stays cheap."""
    if not re.search(r"[\\()\[\]{}|?*+^$.]", re.sub(r"\\\W", "", pattern)):
        # plain text, symbols too: "→", "->", "\?" are their own literal
        whole = re.sub(r"\\(\W)", r"\1", pattern).lower()
        return (whole,) if whole else None
    rest = re.sub(r"\(\?-?i:([^()]*)\)(?![?*])", r"\1", pattern)  # case flags keep their text
    while True:  # drop optional groups, innermost first
        shorter = _OPTIONAL.sub(" ", rest)
        if shorter == rest:
            break
        rest = shorter
    rest = re.sub(r"\(\?<?[=!][^()]*\)", " ", rest)  # lookarounds
    while True:  # required groups: what they hold varies, so they separate runs
        shorter = re.sub(r"\([^()]*\)\+?", " ", rest)
        if shorter == rest:
            break
        rest = shorter
    rest = re.sub(r"\[[^\]]*\][+*?]?", " ", rest)  # character classes
    # optional characters, escaped or not ("re-?run" needs "re" and "run", not "re-")
    rest = re.sub(r"(?:\\.|[^\\])(?:[?*]|\{0(?:,\d*)?\})", " ", rest)
    rest = rest.replace("+", "")
    if "|" in rest or "(" in rest or ")" in rest:
        return None
    # (an escape separates runs: "\n", "\x41" and "\u00d7" are not letters of the text)
    runs = [run.lower() for run in _ESCAPE_OR_SYMBOL.split(rest) if len(run) >= 2]
    if re.search(r"(?<!\\)\\d", rest):
        runs.append(_DIGIT)  # "[x×]\d": a digit, wherever the class's letters are
    return tuple(runs)


def _required_literal(pattern: str) -> str | None:
    """The longest literal run every match of `pattern` must contain,
    lowercased; None when there is none of two or more characters, or the
    pattern is too intricate to tell cheaply. Used to skip a kind's regex on
    text that cannot match it: a substring test costs far less than a
    case-insensitive alternation with lookarounds."""
    runs = [run for run in _required_runs(pattern) or () if run != _DIGIT]
    # The longest run, but a common word ("start" in flex-start) gates nothing.
    rare = [run for run in runs if run not in _COMMON]
    return max(rare or runs, key=len) if runs else None


def _also_required(pattern: str, literals: tuple[str, ...] | None) -> tuple[str, ...]:
    r"""The other literals every match of `pattern` needs besides one of
    `literals` (its gate): "eval\s+7b" is gated by "eval", a word most ML
    prose holds, and also needs "7b"; "[x×]\d" also needs a digit. Checked
    only once the gate's literal is found, so a text holding "eval" alone
    never searches the branch."""
    if literals is None:
        return ()
    runs = _required_runs(pattern) or ()
    return tuple(dict.fromkeys(run for run in runs if run not in literals))


# The literal that stands for "a decimal digit": `\d` matches any Unicode digit,
# so a pattern that starts with one is gated by a digit search, not by "0".."9".
_DIGIT = "\\d"
_DIGIT_RE = re.compile(r"\d")
# Characters that case-insensitive matching folds onto an ASCII letter though
# str.lower() keeps them ("ſ" matches "s"): the gate sees their ASCII partner.
_ASCII_FOLD = str.maketrans({"\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _gate_text(text: str) -> str:
    """The text the literal gates look in: lowered, and folded as `re.I` folds
    ("ſ" is "s"). Made once per text and passed to every kind."""
    lowered = text.lower()
    return lowered if lowered.isascii() else lowered.translate(_ASCII_FOLD)


_LEADING_LOOKAROUND = re.compile(r"\(\?<?[=!](?:[^()\\]|\\.)*\)")
# Positive lookbehinds of plain text in front, alone or as a group of choices
_LOOKBEHIND_TEXT = re.compile(r"\(\?<=([^()\\|?*+.\[\]{}^$]{2,})\)")
_LEADING_LOOKBEHIND = re.compile(rf"{_LOOKBEHIND_TEXT.pattern}|"
                                 rf"\(\?:{_LOOKBEHIND_TEXT.pattern}(?:\|{_LOOKBEHIND_TEXT.pattern})*\)")
# An anchor, or a class or any-character that may match nothing ("^\W*", "\s?")
_LEADING_OPTIONAL = re.compile(r"\^|\\[bBA]|(?:\\[wWsSdD]|\[(?:\\.|[^\]\\])*\]|\.)"
                               r"(?:[?*]|\{0(?:,\d*)?\})\??")


def _split_top(pattern: str) -> tuple[list[str], int] | None:
    """The branches of `pattern` split at its top-level bars, and the offset
    where an unbalanced ')' ends it (len(pattern) when none does); None when
    a class is left open."""
    depth, start, branches, i = 0, 0, [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":  # a class: its brackets and bars are not structure
            close = pattern.find("]", i + 2)
            if close < 0:
                return None
            i = close + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        elif c == "|" and depth == 0:
            branches.append(pattern[start:i])
            start = i + 1
        i += 1
    branches.append(pattern[start:i])
    return branches, i


_SPECIAL = set("\\()[]{}|?*+^$.")


def _required_literals(pattern: str) -> tuple[str, ...] | None:
    r"""Literals one of which every match of `pattern` contains, lowercased:
    its one required literal, else the choices of its leading group
    ("(?:before|prior\s+to|until)\s+..." needs "before", "prior" or "until"),
    the characters of a leading class ("[x×]"), or a digit where it starts
    with one. None when it cannot be told cheaply."""
    one = _required_literal(pattern)
    if one is not None:
        return (one,)
    split = _split_top(pattern)
    if split is None or split[1] != len(pattern):
        return None
    if len(split[0]) > 1:  # "a|b": each branch needs one of its own
        found: set[str] = set()
        for branch in split[0]:
            literals = _required_literals(branch) if branch else None
            if literals is None:
                return None
            found.update(literals)
        return tuple(sorted(found))
    behind = _LEADING_LOOKBEHIND.match(pattern)
    if behind:  # "(?:(?<=flex/)|(?<=spot/))od": the text behind is in the text too
        return tuple(sorted({t.lower() for t in _LOOKBEHIND_TEXT.findall(behind.group())}))
    body = pattern
    while True:  # lookarounds, anchors and optional atoms in front: they need no text
        m = _LEADING_LOOKAROUND.match(body) or _LEADING_OPTIONAL.match(body)
        if not m or not m.end():
            break
        body = body[m.end():]
    if body.startswith("\\d") and body[2:3] not in ("?", "*", "{"):
        return (_DIGIT,)
    if body.startswith("[0-9]") and body[5:6] not in ("?", "*", "{"):
        return tuple("0123456789")
    plain_class = re.match(r"\[([^\]\\^-]+)\](?![?*]|\{0)", body)
    if plain_class:
        return tuple(sorted(set(plain_class.group(1).lower())))
    if body[:1] and body[0] not in _SPECIAL and body[1:2] not in ("?", "*", "{"):
        return (body[0].lower(),)  # one plain character ("×" in "×(\d+|eight)")
    if not body.startswith("("):
        return None
    head = re.match(r"\((?:\?:|\?P<\w+>|\?[aiLmsux-]+:)?", body)
    assert head is not None
    if body[1:2] == "?" and head.end() == 1:
        return None  # a lookaround or other extension not handled above
    split = _split_top(body[head.end():])
    if split is None:
        return None
    branches, close = split
    after = body[head.end() + close + 1:]
    if close + head.end() >= len(body):
        return None
    if after[:1] in ("?", "*") or after.startswith("{0"):
        # an optional group in front ("(?:the\s+)?(?:guide|docs?)…"): what follows
        # it is required
        rest = re.sub(r"^(?:[?*]|\{0(?:,\d*)?\})\??", "", after)
        return _required_literals(rest) if rest and rest[0] not in "|)" else None
    found = set()
    for branch in branches:
        literals = _required_literals(branch) if branch else None
        if literals is None:
            return None
        found.update(literals)
    return tuple(sorted(found))


def _part(source: str, pattern: str) -> tuple[str, tuple[str, ...] | None, tuple[str, ...]]:
    """An alternation's branch: its source, and the literals `pattern` needs.
    The analysis depends on the pattern text alone and costs some milliseconds
    over a whole lexicon, so it is kept in the regex cache between runs."""
    from lint import regex_cache

    def analyse() -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
        literals = _required_literals(pattern)
        return literals, _also_required(pattern, literals)

    literals, also = regex_cache.remember(f"literals {pattern}", analyse, _is_analysis)
    return source, literals, also


def _is_strs(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(item, str) for item in value)


def _is_analysis(value: object) -> bool:
    """A stored `_part` analysis has its shape (the cache file is the
    workspace's, but a damaged or foreign one must not break a gate)."""
    return (isinstance(value, tuple) and len(value) == 2
            and (value[0] is None or _is_strs(value[0])) and _is_strs(value[1]))


def _holds_all(lowered: str, literals: tuple[str, ...]) -> bool:
    return all(_DIGIT_RE.search(lowered) if lit == _DIGIT else lit in lowered
               for lit in literals)


class _Alternation:
    """A case-insensitive union of patterns that searches only the alternatives
    the text can match. Each alternative's required literal (see
    `_required_literal`) is looked for in the lowered text first, and the
    union of the ones present, in their original order, is compiled once per
    distinct set. Python's regex engine tries every branch of an alternation at
    every position (case folding and the word-boundary lookbehind defeat its
    prefix scan), so a 60-branch cue list costs 60 tries per character; most
    sentences hold the literal of one or two branches, or none. The order kept
    means the leftmost match and the branch chosen there are the full union's."""

    # Distinct branch sets compiled per alternation; past this, the full union.
    MAX_SUBSETS = 256

    def __init__(self, parts: list[tuple[str, tuple[str, ...] | None, tuple[str, ...]]]
                 ) -> None:
        # (source with its named group, required literals or None, literals also required)
        self.parts = parts
        self.always = tuple(i for i, (_, lits, _) in enumerate(parts) if lits is None)
        by_literal: dict[str, list[int]] = {}
        for i, (_, lits, _) in enumerate(parts):
            for lit in lits or ():
                by_literal.setdefault(lit, []).append(i)
        self.by_literal = tuple((lit, tuple(ix)) for lit, ix in by_literal.items())
        self._also = {i: also for i, (_, lits, also) in enumerate(parts) if lits and also}
        # One scan for "any literal at all": a case-sensitive alternation of plain
        # text over the lowered text, which the engine skips through by first
        # character; most texts hold none of a kind's literals.
        self._any = _literal_scan(by_literal)
        self._subsets: dict[tuple[int, ...], re.Pattern[str]] = {}
        self._full: re.Pattern[str] | None = None

    @property
    def full(self) -> re.Pattern[str]:
        """The whole union, compiled on first use: most are never needed whole."""
        if self._full is None:
            self._full = re.compile("|".join(src for src, _, _ in self.parts), re.I)
        return self._full

    def regex_for(self, lowered: str) -> re.Pattern[str] | None:
        """The union of the branches that can match the text whose gate text
        (`_gate_text`) is `lowered`; None when none can."""
        present = {i for lit, ix in self.by_literal
                   if (_DIGIT_RE.search(lowered) if lit == _DIGIT else lit in lowered)
                   for i in ix} \
            if self._any is not None and self._any.search(lowered) else ()
        if present and self._also:
            also = self._also
            present = {i for i in present if i not in also or _holds_all(lowered, also[i])}
        if not present:
            if not self.always:
                return None
            key = self.always
        elif self.always:
            key = tuple(sorted((*self.always, *present)))
        else:
            key = tuple(sorted(present))
        if len(key) == len(self.parts):
            return self.full
        regex = self._subsets.get(key)
        if regex is None:
            if len(self._subsets) >= self.MAX_SUBSETS:
                return self.full
            regex = re.compile("|".join(self.parts[i][0] for i in key), re.I)
            self._subsets[key] = regex
        return regex


class Prefiltered:
    """A compiled regex searched only where the text holds one of its required
    literals (see `_required_literals`), worked out from the pattern itself on
    first use. For gates asked of every unit of every file, most of which hold
    none: a few substring tests cost less than a search."""

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex
        self._literals: tuple[str, ...] | bool | None = False  # False: not worked out yet
        self._also: tuple[str, ...] = ()

    def may_match(self, lowered: str) -> bool:
        """Whether the text whose gate text is `lowered` holds a required literal
        (and the literals also required with it)."""
        literals = self._literals
        if literals is False:
            literals = self._literals = _required_literals(self.regex.pattern)
            self._also = _also_required(self.regex.pattern, literals)
        return literals is None or (any(
            _DIGIT_RE.search(lowered) if lit == _DIGIT else lit in lowered
            for lit in literals) and _holds_all(lowered, self._also))  # type: ignore[union-attr]

    def search(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        if not self.may_match(_gate_text(text) if lowered is None else lowered):
            return None
        return self.regex.search(text)


def _literal_scan(literals) -> re.Pattern[str] | None:
    """One case-sensitive pattern that tells whether lowered text holds any of
    `literals`. Only whether, not which: it is spelled as a trie of the
    literals ("a(?:2-ultragpu|3-highgpu)"), since the regex engine tries an
    alternation's branches one by one at every position of the text, and a
    trie's branches differ in their first character, which fails fast. A
    literal that starts with another is left out: the shorter one is found
    wherever the longer is."""
    if not literals:
        return None
    trie: dict[str, dict] = {}
    for lit in sorted(literals, key=lambda lit: (len(lit), lit)):  # shorter first
        if lit == _DIGIT:
            continue
        node = trie
        for char in lit:
            if node.get("") is not None:
                break  # a literal that starts with this one is already in
            node = node.setdefault(char, {})
        else:
            if node.get("") is None:
                node.clear()
                node[""] = {}  # a literal ends here: nothing after it is needed

    def spell(node: dict[str, dict]) -> str:
        if "" in node:
            return ""
        if len(node) == 1:  # a run of single characters: no group needed
            [(char, child)] = node.items()
            return (char if char.isalnum() else re.escape(char)) + spell(child)
        return "(?:" + "|".join((char if char.isalnum() else re.escape(char)) + spell(child)
                                for char, child in sorted(node.items())) + ")"

    spelled = spell(trie) if trie else ""
    if _DIGIT in literals:
        spelled = _DIGIT + ("|" + spelled if spelled else "")
    return re.compile(spelled)


def _mention_scan(kinds: list[_Kind]) -> re.Pattern[str] | None:
    """The literals one of which any token of `kinds` needs: for each kind, its
    gate's when the gate always needs one, else its own branches'. None when
    some kind has a branch with no literal (then nothing can be skipped)."""
    needed: set[str] = set()
    for kind in kinds:
        gate = kind.gate.alternation if kind.gate is not None else None
        alternation = gate if gate is not None and not gate.always else kind.alternation
        if alternation is None or alternation.always:
            return None
        for _, literals, also in alternation.parts:  # (each has literals: none is `always`)
            # A branch that also needs a literal of its own is looked for by the
            # rarer of the two: "[x×]\d" by its digit, not by every "x" of the prose.
            rarest = max(also, key=_rarity, default=None)
            if rarest is not None and _rarity(rarest) > max(map(_rarity, literals)):
                needed.add(rarest)
            else:
                needed.update(literals)
    return _literal_scan(needed)


def _rarity(literal: str) -> tuple[int, int]:
    """How seldom prose holds `literal`, roughly: a digit less often than a
    letter, a common word as often as one, a longer run less often."""
    if literal == _DIGIT:
        return (1, 0)
    return (0, 0) if literal in _COMMON else (2 if len(literal) > 1 else 0, len(literal))


class _Kind:
    """One kind of token: an alternation with one named group per value."""

    def __init__(self, kind: str, choices: list[tuple[Any, list[str]]],
                 gate: str | None = None) -> None:
        self.kind = kind
        # A cheap regex any match must also match (numbers for widths, durations).
        self.gate = _Gated(_split_top(gate)[0], bounded=False) if gate else None  # type: ignore[index]
        self.values: list[Any] = []
        parts = []
        for value, patterns in choices:
            for pattern in sorted(patterns, key=len, reverse=True):
                parts.append(_part(f"(?P<v{len(self.values)}>{_bounded(pattern)})", pattern))
                self.values.append(value)
        self.alternation = _Alternation(parts) if parts else None

    def _regex(self, text: str, lowered: str | None) -> re.Pattern[str] | None:
        if self.alternation is None:
            return None
        lowered = _gate_text(text) if lowered is None else lowered
        if self.gate is not None and self.gate.search(text, lowered) is None:
            return None
        return self.alternation.regex_for(lowered)

    def find(self, text: str, lowered: str | None = None) -> list[Token]:
        regex = self._regex(text, lowered)
        if regex is None:
            return []
        out = []
        for m in regex.finditer(text):
            value = self.values[int(m.lastgroup[1:])]  # type: ignore[index]
            if callable(value):
                value = value(m.group(0))
                if value is None:
                    continue
            out.append(Token(self.kind, value, m.start(), m.end()))
        return out

    def search(self, text: str, lowered: str | None = None) -> bool:
        regex = self._regex(text, lowered)
        return regex is not None and regex.search(text) is not None


_SPACES = str.maketrans("\n\t", "  ")


def _one_line(text: str) -> str:
    """A line break or tab inside a sentence is a space ("four\nGPUs"); offsets
    stay the same, so tokens point into the original text."""
    return text.translate(_SPACES)


def _number_words(table: dict[str, float]) -> str:
    """An alternation of the number words, longest first; compounds of two
    words of the table ("twenty-one", "thirty six") are folded under their
    first word ("twenty(?:[- ](?:one|…))?"), so the alternation stays short."""
    tails: dict[str, list[str]] = {}
    for word in table:
        head, sep, tail = word.partition("-") if "-" in word else word.partition(" ")
        if sep and head in table and tail in table and not head.startswith(("a", "one")):
            tails.setdefault(head, []).append(tail)
    parts = []
    for word in table:
        head, sep, tail = word.partition("-") if "-" in word else word.partition(" ")
        if sep and head in tails and tail in tails[head]:
            continue  # folded under its head
        if word in tails:
            # (ties by text: the pattern is spelled the same on every run, so the
            # regex cache keeps it)
            units = "|".join(sorted(map(re.escape, set(tails[word])),
                                    key=lambda u: (-len(u), u)))
            parts.append((len(word) + 100, rf"{re.escape(word)}(?:[- ](?:{units}))?"))
        else:
            parts.append((len(word), re.escape(word)))
    return "|".join(p for _, p in sorted(parts, key=lambda x: (-x[0], x[1])))


class Lexicon:
    def __init__(self, config: LadderConfig, data: dict[str, Any]) -> None:
        self.config = config
        data = {**data, "durations": {**data["durations"],
                                      "numbers": spelled_numbers(data["durations"])}}
        self.data = data
        self.critic_rules: dict[str, str] = {}  # name -> severity, in the critic lexicon
        self._critic: Lexicon | None = None
        self._cue_unions: dict[str, re.Pattern[str] | None] = {}
        self._tags: dict[tuple[str, bool], tuple[Token, ...]] = {}
        self._kinds = self._build(config, data)
        self._entity_kinds = [k for k in self._kinds
                              if k.kind in ENTITY_KINDS and k.alternation]
        self._mentions = _mention_scan(self._entity_kinds)
        self.ladder_context = _union(data["ladder_context"])
        self.procedural = _union(data["procedural"])
        # number words that may stand for a width ("then six, then four")
        self.width_numbers = {w.lower(): int(v) for w, v in data["widths"]["numbers"].items()}
        # number words a length may be written with ("twelve", "a half")
        self.duration_numbers = {w.lower(): float(v)
                                 for w, v in data["durations"]["numbers"].items()}

    # ---- building ----------------------------------------------------------------

    def _build(self, config: LadderConfig, data: dict[str, Any]) -> list[_Kind]:
        kinds = [
            _Kind("backend", [(name, pats) for name, pats in data["backends"].items()]),
            _Kind("lane", [(name, [re.escape(name), re.escape(name.replace("-", " ")),
                                   # "the preempt lane", "the gpu partition"
                                   rf"(?:the\s+)?{re.escape(lane.partition)}\s+"
                                   r"(?:lane|partition|queue)s?(?![\s_-]*(?:size|count|"
                                   r"profile|mode)\b)",
                                   # "the preempt lane" for campus-preempt
                                   rf"{re.escape(name.rsplit('-', 1)[-1])}\s+(?:lane|queue)",
                                   # "The campus cluster has two lanes. The preempt one …"
                                   # (by partition: "the A100 one" is a GPU family's)
                                   rf"(?<=the\s){re.escape(lane.partition)}\s+one\b",
                                   # "partition `preempt`", "`-p gpu`", "--partition=gpu"
                                   rf"(?:partition\s+|(?<![\w-])-p\s*|--partition[= ])"
                                   rf"[`'\"]?{re.escape(lane.partition)}(?![\w-])"])
                           for name, lane in config.slurm_lanes.items()]),
            _Kind("family", self._families(config, data)),
            _Kind("model", [(m, [f"(?-i:{re.escape(m)})", f"(?-i:{re.escape(m.replace('_', ' '))})",
                                 *data["provisioning"].get(m, [])])
                            for m in PROVISIONING_MODELS]),
            # Every width pattern holds a multiplier sign, "GPU", "way", "wide" or "width".
            _Kind("width", self._widths(data, max(w for f in config.families.values()
                                                  for w in f.widths)),
                  r"\d\s?[x×]|[x×]\d|gpu|\bway\b|wide|width|node|box|\dg(?![\w-])"),
            _Kind("intent", [(name, _intent_words(name)) for name in config.intents]),
            # RunPod's GPU ids ("NVIDIA H100 80GB HBM3", "the A100 PCIe"): the longest
            # match wins, so the H100 inside a pod id is no GCP family
            _Kind("podtype", [(gpu, _pod_words(gpu)) for gpu in config.runpod_gpu_types],
                  "|".join(sorted({re.escape(_pod_chip(gpu).lower())
                                   for gpu in config.runpod_gpu_types})) or None),
            # Every duration has a digit right before its unit, or a spelled-out unit.
            _Kind("duration", self._durations(data),
                  r"\d\s*-?\s*[hdwm]|hour|day|week|month|min|fortnight"),
            _Kind("gpuhours", [(lambda s: _first_number(s, data), [
                # ("1.0 gpu_hours": an amount written with the §9 field's name)
                rf"(?:{_NUMBER}|{_number_words(data['durations']['numbers'])})\s*gpu[-_ ]?"
                r"h(?:ours?|rs?)?"]),
                # "half a GPU-hour", "a quarter of a GPU hour", "three quarters of a GPU-hour"
                (0.5, [r"half\s+(?:of\s+)?an?\s+gpu[- ]?h(?:our|r)"]),
                (0.25, [r"(?:a\s+|one[- ])?quarter\s+(?:of\s+)?an?\s+gpu[- ]?h(?:our|r)"]),
                (0.75, [r"three[- ]quarters?\s+(?:of\s+)?an?\s+gpu[- ]?h(?:our|r)"]),
                # a config-like key read as words: "widening threshold gpu hours: 0.5"
                (lambda s: float(re.findall(_NUMBER, s)[-1]), [
                    # ("| GPU-hours | ≥ 0.5 |" in a table, "gpu_hours is at least 2.0")
                    r"gpu[-_ ]?hours?`?\s*(?:\|\s*)?(?:[:=≥>]|>=|\s(?:is|are|of\s+at\s+least|"
                    r"(?:is\s+|are\s+)?at\s+least|(?:is\s+|are\s+)?at\s+or\s+above|"
                    r"exceeds?|passes|reaches|(?:is\s+)?(?:strictly\s+)?(?:above|over|greater\s+than|"
                    r"more\s+than))"
                    r"\s)\s*"
                    rf"{_NUMBER}(?!\w|\.\d)",
                    # the critic's setting as a config line: "widen_threshold = 0.5"
                    rf"widen(?:ing)?[-_ ]threshold`?\s*[:=]\s*{_NUMBER}(?!\w|\.\d)"]),
                # "30 GPU-minutes" is half a GPU-hour
                (lambda s: (_first_number(s, data) or 0) / 60 or None, [
                    rf"(?:{_NUMBER}|{_number_words(data['durations']['numbers'])})\s*gpu[- ]?"
                    r"min(?:utes?|s)?"])]),
        ]
        cues = data["cues"]
        for cue in ("neg", "history", "may", "only", "before", "after", "then", "first", "last",
                    "second", "short", "long", "under", "over", "question"):
            key = {"neg": "negation", "may": "modality"}.get(cue, cue)
            kinds.append(_Kind(cue, [(cue, cues[key])]))
        return kinds

    def with_critic(self, critic_rules: dict[str, str]) -> Lexicon:
        """This lexicon plus the critic's words: rule names (from `critics.rules`),
        the kinds of plan they judge, verdicts and launchers. Built only for the
        critic's guidance, so other files never import the critic."""
        if self._critic is None:
            data = self.data["critic"]
            extra = [
                _Kind("rule", [(name, [re.escape(name), *data["plan_kinds"].get(name, [])])
                               for name in critic_rules]),
                _Kind("launcher", [(k, v) for k, v in data["launchers"].items()]),
                *(_Kind(v, [(v, data[v])]) for v in ("revise", "warn", "approve")),
            ]
            critic = object.__new__(Lexicon)
            critic.__dict__.update(self.__dict__)
            critic._kinds = [*self._kinds, *extra]
            critic.critic_rules = critic_rules
            critic._entity_kinds = [*self._entity_kinds, *(k for k in extra[:2] if k.alternation)]
            critic._mentions = _mention_scan(critic._entity_kinds)
            critic._cue_unions = {}
            critic._tags = {}  # its kinds are more: its own memo
            self._critic = critic
        return self._critic

    @staticmethod
    def _families(config: LadderConfig, data: dict[str, Any]) -> list[tuple[Any, list[str]]]:
        choices: list[tuple[Any, list[str]]] = []
        for name, family in config.families.items():
            before, _, after = family.machine_type_template.partition("{width}")
            machine = (rf"{re.escape(before)}(\d+){re.escape(after)}")

            def with_width(text: str, pattern: str = machine, fam: str = name) -> Any:
                m = re.search(pattern, text, re.I)
                return (fam, int(m.group(1))) if m else (fam, None)

            choices.append((with_width, [machine]))
            wild = rf"{re.escape(before)}(?:\*|\{{\w*\}}|N|X|n)(?:{re.escape(after)})?"
            bare = re.escape(before.rstrip("-_"))
            # "the A3 highgpu machines": the machine series written as words
            spaced = r"[\s_-]+".join(re.escape(part) for part in re.split(r"[-_]+",
                                                                         before.strip("-_")))
            words = [wild, bare, re.escape(name)]
            series = re.split(r"[-_]", before, maxsplit=1)[0]
            if series and series != before.rstrip("-_"):
                # "a2 SPOT, a3 SPOT, a2 FLEX": the series alone, right before a model
                words.append(rf"(?<![\w-]){re.escape(series)}(?=\s+(?:spot|flex|standard|"
                             r"on-demand|on-dem|od|dws|preemptible)\b)")
                # "A3 machines have no spot", "the a2 boxes", "a3s are spot/flex only"
                words.append(rf"(?<![\w-]){re.escape(series)}(?=\s+(?:machines?|vms?|boxes|"
                             r"nodes?|rungs?|instances?|shapes?)\b)")
                words.append(rf"(?<![\w-]){re.escape(series)}s(?![\w-])")
            if spaced != bare:
                words.append(spaced + r"(?=\s+(?:machines?|vms?|boxes|nodes?|family|shapes?|"
                                      r"types?|series|rungs?)\b)")
            gpu_model = re.search(r"[A-Z]\d{2,4}[A-Za-z]?", family.gpu)
            if gpu_model:
                words += [p.replace("{gpu}", re.escape(gpu_model.group(0)))
                          for p in data["family_words"]]
            choices.append(((name, None), words))
        return choices

    @staticmethod
    def _widths(data: dict[str, Any], widest: int) -> list[tuple[Any, list[str]]]:
        words = data["widths"]["numbers"]
        n = rf"\d{{1,3}}|{_number_words(words)}"

        def value(text: str) -> int | None:
            m = re.search(rf"(?<![\w.])({n})(?![\w.])|(?<=[x×])(\d+)|(\d+)(?=[x×-]|g(?![\w-]))",
                          text, re.I)
            if not m:
                return None
            word = next(g for g in m.groups() if g)
            width = int(word) if word.isdigit() else int(words.get(word.lower(), 0)) or None
            # far past the widest rung it is no GPU width: "hidden width 4096", "run
            # it on 256 GPUs", "heads of width 128" (16× stays a width, a wrong one)
            return None if width is not None and width > 4 * widest else width

        # "a full node" is the widest width the config has
        return [(value, [p.replace("{n}", n) for p in data["widths"]["patterns"]]),
                (widest, data["widths"].get("widest", []))]

    @staticmethod
    def _durations(data: dict[str, Any]) -> list[tuple[Any, list[str]]]:
        d = data["durations"]
        units = {"hours": 1.0, "days": 24.0, "weeks": 168.0, "months": 720.0,
                 "minutes": 1 / 60}
        unit_re = {u: "|".join(sorted(map(re.escape, d[u]), key=len, reverse=True))
                   for u in units}
        words = _number_words(d["numbers"])
        choices: list[tuple[Any, list[str]]] = []
        for unit, factor in units.items():
            def value(text: str, factor: float = factor) -> float | None:
                n = _first_number(text, data)
                return None if n is None else n * factor

            # "4h", "4 h", "four hours", "a week"; a number word needs a space or
            # hyphen before its unit, so "and" is never "an d(ay)".
            spelled = "|".join(u for u in d[unit] if len(u) > 1) or unit_re[unit]
            choices.append((value, [rf"{_NUMBER}\s*(?:-\s*)?(?:{unit_re[unit]})(?![\w-])",
                                    rf"(?:{words})(?:\s+|\s*-\s*)(?:(?:full|whole)\s+)?"
                                    rf"(?:{spelled})(?![\w-])",
                                    # "half a day", "half an hour"
                                    rf"half\s+an?\s+(?:{spelled})(?![\w-])",
                                    # a config-like key read as words: "threshold hours: 8",
                                    # "`short_threshold_hours` is 8"
                                    rf"(?<=\s)(?:{spelled})`?\s*(?:[:=]|\s(?:is|are)\s)\s*"
                                    rf"{_NUMBER}(?!\w|\.\d)",
                                    # the dispatch flag: "--hours 10", "--hours=2.5"
                                    rf"(?<=--)(?:{spelled})(?:=|\s+){_NUMBER}(?!\w|\.\d)"]))
        # a key changed in a changelog: "`short_threshold_hours` raised from 4 to 5"
        # states today's value, the one after "to"
        def last_number(text: str) -> float:
            return float(re.findall(_NUMBER, text)[-1])

        choices.append((last_number, [
            rf"(?<=\s)(?:{unit_re['hours']})`?\s+(?:was\s+|is\s+|has\s+been\s+)?"
            rf"(?:raised|lowered|bumped|increased|decreased|changed|moved|set|cut|dropped)\s+"
            rf"(?:from\s+{_NUMBER}\s*(?:{unit_re['hours']})?\s+)?to\s+{_NUMBER}(?!\w|\.\d)"]))
        # "sub-hour jobs": under one hour (the comparator reads the prefix)
        choices.append((1.0, [r"sub[- ]hour(?![\w-])"]))
        # "a fortnight", "a quarter of a day"
        choices.append((336.0, [r"(?:a\s+)?fortnight(?:[- ]long)?(?![\w-])"]))
        choices.append((6.0, [r"(?:a\s+)?quarter\s+of\s+a\s+day(?![\w-])"]))

        def hours_and_minutes(text: str) -> float | None:
            h, m = re.findall(r"\d+(?:\.\d+)?", text)[:2]
            return float(h) + float(m) / 60

        # "2 h 40 min", "3 hours and 30 minutes": one duration, not two (first, since
        # the regex takes the first alternative that matches)
        choices.insert(0, (hours_and_minutes, [
            rf"{_NUMBER}\s*(?:{unit_re['hours']})\s*(?:and\s+)?{_NUMBER}\s*"
            rf"(?:{unit_re['minutes']})(?![\w-])"]))
        return choices

    # ---- tagging ---------------------------------------------------------------------

    def critic_cues(self, key: str) -> re.Pattern[str] | None:
        """The union of the critic's cue words under `key` (parallel_words,
        serial_words), compiled once per lexicon."""
        if key not in self._cue_unions:
            patterns = self.data["critic"].get(key, [])
            self._cue_unions[key] = re.compile("|".join(f"(?:{p})" for p in patterns),
                                               re.I) if patterns else None
        return self._cue_unions[key]

    def mentions_anything(self, text: str) -> bool:
        text = _one_line(text)  # as tag() reads it
        lowered = _gate_text(text)
        if self._mentions is not None and not self._mentions.search(lowered):
            return False  # one scan: most prose holds no entity's literal at all
        return any(kind.search(text, lowered) for kind in self._entity_kinds)

    def forget(self) -> None:
        """Drop the answers kept for the document just read (see `tag`)."""
        self._tags.clear()
        self.ladder_context.forget()
        self.procedural.forget()

    def tag(self, text: str, cues_alone: bool = False) -> list[Token]:
        """Tokens of `text`, non-overlapping, longest first; entities win ties.
        Cue words are looked for only where an entity is (a sentence without
        one claims nothing), unless `cues_alone` (a heading's verdict).

        Kept per document: a section's heading, a table's header and a list's
        lead-in are tagged again for every sentence under them. The engine
        calls `forget` between documents, so the memo costs one document's
        texts and a file is timed by its own work."""
        key = (text, cues_alone)
        kept = self._tags.get(key)
        if kept is None:
            kept = self._tags[key] = tuple(self._tag(text, cues_alone))
        return list(kept)

    def _tag(self, text: str, cues_alone: bool) -> list[Token]:
        found: list[Token] = []
        text = _one_line(text)
        lowered = _gate_text(text)
        for kind in self._kinds:
            if kind.kind in ENTITY_KINDS:
                found.extend(kind.find(text, lowered))
        if found or cues_alone:
            for kind in self._kinds:
                if kind.kind not in ENTITY_KINDS:
                    found.extend(kind.find(text, lowered))
        found.sort(key=lambda t: (t.start, -(t.end - t.start), not t.entity))
        out: list[Token] = []
        end = -1
        for token in found:
            if token.start >= end:
                out.append(token)
                end = token.end
        return out


class _Gated:
    """A union of patterns searched only for the branches whose required
    literals the text holds (see `_Alternation`)."""

    def __init__(self, patterns: list[str], bounded: bool = True) -> None:
        self.alternation = _Alternation([_part(f"(?:{_bounded(p) if bounded else p})", p)
                                         for p in patterns])

    def search(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        regex = self.alternation.regex_for(_gate_text(text) if lowered is None else lowered)
        return None if regex is None else regex.search(text)


class _KeptGated(_Gated):
    """A gate asked about the same texts again and again while one document is
    read (a section's heading for each of its sentences; a sentence by the
    engine, then by its readers): answers kept until `forget`."""

    def __init__(self, patterns: list[str]) -> None:
        super().__init__(patterns)
        self._kept: dict[str, re.Match[str] | None] = {}

    def search(self, text: str, lowered: str | None = None) -> re.Match[str] | None:
        if text not in self._kept:
            self._kept[text] = super().search(text, lowered)
        return self._kept[text]

    def forget(self) -> None:
        self._kept.clear()


def _union(patterns: list[str]) -> _KeptGated:
    return _KeptGated(patterns)


def _pod_chip(gpu: str) -> str:
    """The chip a RunPod GPU id names ("A100" in "NVIDIA A100-SXM4-80GB")."""
    words = [w for w in re.split(r"[\s-]+", gpu) if w.lower() != "nvidia"]
    return words[0] if words else gpu


def _pod_words(gpu: str) -> list[str]:
    """A RunPod GPU id as written in full ("NVIDIA A100-SXM4-80GB") and short
    ("A100 SXM4", "A100 80GB PCIe", "H100 HBM3")."""
    words = re.split(r"[\s-]+", gpu)
    if words and words[0].lower() == "nvidia":
        words = words[1:]
    if not words:
        return [re.escape(gpu)]
    sep = r"[\s-]+"
    full = rf"(?<![\w-])(?:nvidia{sep})?" + sep.join(map(re.escape, words)) + r"(?![\w-])"
    out = [full]
    chip, rest = words[0], words[1:]
    memory = [w for w in rest if re.fullmatch(r"\d+\s*gb", w, re.I)]
    for word in rest:
        if word not in memory:  # "A100 PCIe", "A100 80GB PCIe", "A100 SXM"
            mem = rf"(?:{sep}{re.escape(memory[0])})?" if memory else ""
            stem = re.escape(word.rstrip("0123456789")) + r"\d?" if word[-1].isdigit() else \
                re.escape(word)
            out.append(rf"(?<![\w-])(?:nvidia{sep})?{re.escape(chip)}{mem}{sep}{stem}(?![\w-])")
    return out


def _intent_words(name: str) -> list[str]:
    """'eval-70b' is also 'the 70B eval' and 'eval 70b': an intent named as a
    task and a model size, in either order."""
    words = [re.escape(name)]
    parts = name.split("-")
    if len(parts) == 2 and all(re.fullmatch(r"[a-z0-9]+", p) for p in parts):
        a, b = map(re.escape, parts)
        words += [rf"{b}[\s-]+{a}s?", rf"{a}\s+{b}"]
    return words


def spelled_numbers(durations: dict[str, Any]) -> dict[str, float]:
    """The lexicon's number words plus every compound of a tens word and a
    unit word ("twenty-one", "thirty six"): all numbers up to ninety-nine."""
    table = {str(k).lower(): float(v) for k, v in durations["numbers"].items()}
    for ten in durations.get("tens", []):
        for unit in durations.get("units", []):
            if ten in table and unit in table:
                for joint in ("-", " "):
                    table[f"{ten}{joint}{unit}"] = table[ten] + table[unit]
    return table


_FIRST_WORDS: dict[int, tuple[dict[str, float], dict[str, float], re.Pattern[str]]] = {}


def _first_number(text: str, data: dict[str, Any]) -> float | None:
    m = re.search(_NUMBER, text)
    if m:
        return float(m.group(0))
    numbers = data["durations"]["numbers"]
    kept = _FIRST_WORDS.get(id(data))
    if kept is None or kept[0] is not numbers:
        words = {**{str(k).lower(): float(v) for k, v in data["widths"]["numbers"].items()},
                 **numbers}
        # the longest spelling first, so "twenty-one" is not "twenty" and "a
        # hundred" is not "a"
        pattern = re.compile(r"(?<![\w-])(?:" + "|".join(
            re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")(?!\w)", re.I)
        kept = _FIRST_WORDS[id(data)] = (numbers, words, pattern)
    m = kept[2].search(text)
    return kept[1][m.group(0).lower()] if m else None


def load_data(path: Path = PACKAGED) -> dict[str, Any]:
    from router import yamlsafe

    if path == PACKAGED:  # our own file: the fast C loader, no line tracking needed
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(PACKAGED.read_text(encoding="utf-8"), Loader=loader)
    try:
        located = yamlsafe.load_file(path, "lexicon")
    except ValueError as exc:
        raise LexiconError(str(exc)) from None
    if not isinstance(located.data, dict):
        raise LexiconError(f"{path}: expected a mapping")
    return located.data


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """A workspace lexicon adds patterns to the packaged one, key by key."""
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        elif isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = [*out[key], *value]
        else:
            out[key] = value
    return out


def build(config: LadderConfig, extra: Path | None = None) -> Lexicon:
    data = load_data()
    if extra is not None:
        data = merge(data, load_data(extra))
    try:
        return Lexicon(config, data)
    except (re.error, KeyError, TypeError, AttributeError) as exc:
        raise LexiconError(f"lexicon: bad entry: {exc}") from None
