"""The lexicon: every name the loaded ladder config defines, and the other ways
people write them (lint/lexicon.yaml), compiled once per run into a tagger.

`Lexicon.tag(text)` returns the entity and cue tokens of a clause, longest
match first, with offsets into the text. Entity names are never written here:
backends come from the planner's rungs, lanes, families, machine types, GPUs,
provisioning models, widths and intents from the config, critic rule names
from `critics.rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lint.workspace import LexiconError  # defined where the CLI can afford it
from router.config import PROVISIONING_MODELS, LadderConfig

PACKAGED = Path(__file__).with_name("lexicon.yaml")
ENTITY_KINDS = ("backend", "lane", "family", "model", "width", "intent", "duration",
                "gpuhours", "rule", "launcher")
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


def _required_literal(pattern: str) -> str | None:
    """The longest literal run every match of `pattern` must contain,
    lowercased; None when there is none of two or more characters, or the
    pattern is too intricate to tell cheaply. Used to skip a kind's regex on
    text that cannot match it: a substring test costs far less than a
    case-insensitive alternation with lookarounds, and this reads the pattern
    as a string (no regex parse) so building the gates stays cheap."""
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
    rest = re.sub(r"[a-zA-Z0-9]\?|\S\*", " ", rest)  # optional characters
    rest = rest.replace("+", "")
    if "|" in rest or "(" in rest or ")" in rest:
        return None
    runs = [run.lower() for run in re.split(r"\\[sSbBwWdD]|[^\w-]|\\", rest) if len(run) >= 2]
    # The longest run, but a common word ("start" in flex-start) gates nothing.
    rare = [run for run in runs if run not in _COMMON]
    return max(rare or runs, key=len) if runs else None


class _Kind:
    """One kind of token: an alternation with one named group per value."""

    def __init__(self, kind: str, choices: list[tuple[Any, list[str]]],
                 gate: str | None = None) -> None:
        self.kind = kind
        # A cheap regex any match must also match (numbers for widths, durations).
        self.gate = re.compile(gate, re.I) if gate else None
        self._source = ""
        self.values: list[Any] = []
        parts = []
        literals: set[str] | None = set()
        for value, patterns in choices:
            for pattern in sorted(patterns, key=len, reverse=True):
                parts.append(f"(?P<v{len(self.values)}>{_bounded(pattern)})")
                self.values.append(value)
                literal = _required_literal(pattern)
                if literal is None or literals is None:
                    literals = None
                else:
                    literals.add(literal)
        self._source = "|".join(parts)
        self._regex: re.Pattern[str] | None = None
        # Substrings one of which any match contains; None: no cheap gate.
        self.literals = tuple(sorted(literals)) if literals else None

    @property
    def regex(self) -> re.Pattern[str] | None:
        """Compiled on first use: most kinds are never needed by most files."""
        if self._regex is None and self._source:
            self._regex = re.compile(self._source, re.I)
        return self._regex

    def find(self, text: str, lowered: str | None = None) -> list[Token]:
        if self.regex is None:
            return []
        if not self.possible(text, lowered):
            return []
        out = []
        for m in self.regex.finditer(text):
            value = self.values[int(m.lastgroup[1:])]  # type: ignore[index]
            if callable(value):
                value = value(m.group(0))
                if value is None:
                    continue
            out.append(Token(self.kind, value, m.start(), m.end()))
        return out


    def possible(self, text: str, lowered: str | None = None) -> bool:
        """False when the gate proves no match can exist."""
        if self.literals is not None:
            lowered = text.lower() if lowered is None else lowered
            return any(lit in lowered for lit in self.literals)
        if self.gate is not None:
            return self.gate.search(text) is not None
        return True

    def search(self, text: str, lowered: str | None = None) -> bool:
        return self.regex is not None and self.possible(text, lowered) and \
            self.regex.search(text) is not None


_SPACES = str.maketrans("\n\t", "  ")


def _one_line(text: str) -> str:
    """A line break or tab inside a sentence is a space ("four\nGPUs"); offsets
    stay the same, so tokens point into the original text."""
    return text.translate(_SPACES)


def _number_words(table: dict[str, float]) -> str:
    return "|".join(sorted((re.escape(w) for w in table), key=len, reverse=True))


class Lexicon:
    def __init__(self, config: LadderConfig, data: dict[str, Any]) -> None:
        self.config = config
        self.data = data
        self.critic_rules: dict[str, str] = {}  # name -> severity, in the critic lexicon
        self._critic: Lexicon | None = None
        self._cue_unions: dict[str, re.Pattern[str] | None] = {}
        self._kinds = self._build(config, data)
        self._entity_kinds = [k for k in self._kinds if k.kind in ENTITY_KINDS and k.regex]
        self.ladder_context = _union(data["ladder_context"])
        self.procedural = _union(data["procedural"])
        # number words that may stand for a width ("then six, then four")
        self.width_numbers = {w.lower(): int(v) for w, v in data["widths"]["numbers"].items()}

    # ---- building ----------------------------------------------------------------

    def _build(self, config: LadderConfig, data: dict[str, Any]) -> list[_Kind]:
        kinds = [
            _Kind("backend", [(name, pats) for name, pats in data["backends"].items()]),
            _Kind("lane", [(name, [re.escape(name), re.escape(name.replace("-", " ")),
                                   # "the preempt lane", "the gpu partition"
                                   rf"(?:the\s+)?{re.escape(lane.partition)}\s+"
                                   r"(?:lane|partition|queue)s?",
                                   # "the preempt lane" for campus-preempt
                                   rf"{re.escape(name.rsplit('-', 1)[-1])}\s+(?:lane|queue)"])
                           for name, lane in config.slurm_lanes.items()]),
            _Kind("family", self._families(config, data)),
            _Kind("model", [(m, [f"(?-i:{re.escape(m)})", f"(?-i:{re.escape(m.replace('_', ' '))})",
                                 *data["provisioning"].get(m, [])])
                            for m in PROVISIONING_MODELS]),
            # Every width pattern holds a multiplier sign, "GPU", "way", "wide" or "width".
            _Kind("width", self._widths(data, max(w for f in config.families.values()
                                                  for w in f.widths)),
                  r"\d\s?[x×]|[x×]\d|gpu|\bway\b|wide|width|node|box|\dg\s"),
            _Kind("intent", [(name, _intent_words(name)) for name in config.intents]),
            # Every duration has a digit right before its unit, or a spelled-out unit.
            _Kind("duration", self._durations(data),
                  r"\d\s*-?\s*[hdwm]|hour|day|week|month|min|fortnight"),
            _Kind("gpuhours", [(lambda s: _first_number(s, data), [
                rf"(?:{_NUMBER}|{_number_words(data['durations']['numbers'])})\s*gpu[- ]?"
                r"h(?:ours?|rs?)?"]),
                # "half a GPU-hour", "a quarter of a GPU hour"
                (0.5, [r"half\s+(?:of\s+)?an?\s+gpu[- ]?h(?:our|r)"]),
                (0.25, [r"(?:a\s+)?quarter\s+(?:of\s+)?an?\s+gpu[- ]?h(?:our|r)"]),
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
            critic._entity_kinds = [*self._entity_kinds, *extra[:2]]
            critic._cue_unions = {}
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
            words = [wild, bare, re.escape(name)]
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
            m = re.search(rf"(?<![\w.])({n})(?![\w.])|(?<=[x×])(\d+)|(\d+)(?=[x×-]|g\s)", text,
                          re.I)
            if not m:
                return None
            word = next(g for g in m.groups() if g)
            return int(word) if word.isdigit() else int(words.get(word.lower(), 0)) or None

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
                                    rf"{_NUMBER}(?!\w|\.\d)"]))
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
        lowered = text.lower()
        return any(kind.search(text, lowered) for kind in self._entity_kinds)

    def tag(self, text: str, cues_alone: bool = False) -> list[Token]:
        """Tokens of `text`, non-overlapping, longest first; entities win ties.
        Cue words are looked for only where an entity is (a sentence without
        one claims nothing), unless `cues_alone` (a heading's verdict)."""
        found: list[Token] = []
        text = _one_line(text)
        lowered = text.lower()
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
    """A union of patterns searched only when the text holds one of their
    required literals (see `_required_literal`)."""

    def __init__(self, patterns: list[str]) -> None:
        self.regex = re.compile("|".join(_bounded(p) for p in patterns), re.I)
        literals = [_required_literal(p) for p in patterns]
        self.literals = None if None in literals else tuple(set(literals))

    def search(self, text: str) -> re.Match[str] | None:
        if self.literals is not None:
            lowered = text.lower()
            if not any(lit in lowered for lit in self.literals):
                return None
        return self.regex.search(text)


def _union(patterns: list[str]) -> _Gated:
    return _Gated(patterns)


def _intent_words(name: str) -> list[str]:
    """'eval-70b' is also 'the 70B eval' and 'eval 70b': an intent named as a
    task and a model size, in either order."""
    words = [re.escape(name)]
    parts = name.split("-")
    if len(parts) == 2 and all(re.fullmatch(r"[a-z0-9]+", p) for p in parts):
        a, b = map(re.escape, parts)
        words += [rf"{b}[\s-]+{a}s?", rf"{a}\s+{b}"]
    return words


def _first_number(text: str, data: dict[str, Any]) -> float | None:
    m = re.search(_NUMBER, text)
    if m:
        return float(m.group(0))
    words = {**data["durations"]["numbers"], **data["widths"]["numbers"]}
    for word in re.findall(r"[a-z-]+", text.lower()):
        for candidate in (word, *word.split("-")):
            if candidate in words:
                return float(words[candidate])
    return None


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
