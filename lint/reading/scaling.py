"""How a job's length follows its width: the law behind every degraded rung.

The ladder keeps a job's GPU-hours when it narrows, so its wall-clock at a
degraded width w is H × N / w, and its length class is decided again at each
width. People restate that law, and get it wrong in a few recurring ways:

- the length does not change ("a 2 h job at 8× is a 2 h job at every width");
- the class is decided once, at the requested width, and kept;
- length moves with the width ("halving the width halves the wall-clock",
  "H × w / N").

Each is read as one `scaling` proposition naming which law the text states;
the fact model says whether it holds (none of them does on this router)."""

from __future__ import annotations

import re

from lint.lexicon import Prefiltered
from lint.reading.base import ReaderBase

# What the sentence must be about: a width that changes.
_WIDTH_CHANGE = re.compile(r"\bwidths?\b|\bdegrad\w*|\bnarrow\w*|\bGPUs?\b|\d\s*[×x]\b|"
                           r"\bfewer\s+GPUs\b|\bhalv\w*", re.I)
# A length, but not GPU-hours (those are kept: "GPU-hours don't change" is true).
_LENGTH = r"(?<![-\w])(?:(?:the\s+|a\s+|its\s+|the\s+job'?s\s+|a\s+job'?s\s+)?" \
          r"(?:length|wall[- ]?clock(?:\s+time)?|run[- ]?time|duration|hours\s+it\s+runs))\b"
_CHANGE_VERB = r"(?:change|changes|vary|varies|depend\s+on|depends\s+on|grow|grows|move|moves)"
_NOT = r"(?:does\s+not|doesn'?t|do\s+not|don'?t|won'?t|will\s+not|never|cannot|can'?t)"

# "Length doesn't change when the width degrades"
_LENGTH_NOT_CHANGING = re.compile(rf"{_LENGTH}[^.;:]{{0,40}}?\b{_NOT}\s+{_CHANGE_VERB}\b", re.I)
# "the wall-clock stays the same", "length is unchanged"
_LENGTH_SAME = re.compile(rf"{_LENGTH}[^.;:]{{0,30}}?\b(?:stays?|remains?|is|keeps?)\s+"
                          r"(?P<neg>not\s+|never\s+)?(?:the\s+same|unchanged|constant|fixed|"
                          r"identical)\b", re.I)
# "the router keeps your wall-clock and runs the job on fewer GPUs", "keeps the
# same hours"
# ("it reuses that same hours figure")
_KEEPS_LENGTH = re.compile(r"\b(?P<neg>(?:does\s+not|doesn['’]t|never)\s+(?:keeps?|reuses?)|"
                           r"keeps?|reuses?)\s+"
                           r"(?:your|the|its|that|a\s+job['’]s|the\s+job['’]s)\s+(?:same\s+)?"
                           r"(?:wall[- ]?clock(?:\s+time)?|run[- ]?time|duration|length|hours)\b"
                           r"(?!\s+(?:budget|limit|cap))", re.I)
# "a 3 h job stays a 3 h job", "a 2 h job at 8× is a 2 h job at every width"
# ("a 2 h request is a 2 h (short, spot-first) job at every width it tries")
_SAME_JOB = re.compile(r"\b(?P<n>\d+(?:\.\d+)?)\s*-?\s*h(?:ours?|rs?)?\s+"
                       r"(?:job|run|phase|request|dispatch)\b"
                       r"[^.;:]{0,40}?\b(?:stays|remains|is\s+still|is)\s+(?P<neg>not\s+)?"
                       r"an?\s+(?P=n)\s*-?\s*h(?:ours?|rs?)?\s+(?:\([^)]{0,40}\)\s+)?"
                       r"(?:job|run|phase)\b", re.I)
_CLASS = r"(?:length[- ]class|(?:the\s+|its\s+|a\s+job'?s\s+)?class(?:ification)?|" \
         r"short(?:\s*/\s*|\s+or\s+|\s+vs\.?\s+)long(?:\s+(?:call|label|decision|verdict))?|" \
         r"(?:the\s+)?(?:short|long)\s+label)"
# "the class is decided once", "fixed at the requested width", "kept as it degrades"
_CLASS_FIXED = re.compile(
    rf"\b{_CLASS}\b[^.;:]{{0,50}}?\b(?P<neg>(?:is\s+)?not\s+|never\s+)?(?:is\s+|gets\s+|are\s+)?"
    r"(?:decided|set|fixed|computed|determined|judged|chosen|made|locked(?:\s+in)?|frozen)\s+"
    r"(?:once|up\s*front|at\s+(?:the\s+)?(?:requested|original|first|starting|asked)"
    r"(?:[- ]for)?\s+width|at\s+request\s+time|when\s+(?:it\s+is|the\s+job\s+is)\s+"
    r"(?:requested|submitted))", re.I)
_CLASS_KEPT = re.compile(
    rf"\b{_CLASS}\b[^.;:]{{0,40}}?\b(?P<neg>(?:is\s+)?not\s+|never\s+)?(?:is\s+)?"
    r"(?:kept|carried(?:\s+over)?|stays?|remains?|sticks?|preserved|unchanged)\b"
    r"[^.;:]{0,50}?\b(?:degrad\w*|narrow\w*|width|fall\w*\s+back)", re.I)
# "picks the lead once, and keeps it at every narrower width", "the cap is checked
# once, against the length at the requested width", "narrower widths inherit that
# decision": one decision for every width, whatever it decides
_DECIDED_ONCE = re.compile(
    r"\b(?:picks?|picked|chooses?|chosen|decides?|decided|works?\s+out|checks?|checked|"
    r"computes?|computed|evaluates?|evaluated|sets?|looks?\s+at|measured|measures?|"
    r"classified|classifies|determined|judged)\b[^.;:]{0,60}?\bonce\b|"
    r"\b(?:keeps?|keeping|kept|reuses?|reusing|reused)\s+(?:(?:it|that|this|the\s+same|that\s+same)"
    r"\s+)?(?:lead(?:\s+model)?\s+|class\s+|decision\s+)?(?:at|for|on)\s+every\s+(?:narrower|"
    r"degraded|lower|smaller)\s+(?:width|rung)|"
    r"\b(?:narrower|degraded|lower)\s+widths\s+inherit\b", re.I)
# "checked against the job's length at the width you originally requested": the
# class, the lead or the cap judged at the request only
_AT_REQUEST = re.compile(
    r"\b(?:measured|checked|judged|computed|decided|classified|compared|evaluated|based|"
    r"looked\s+up)\b(?P<gap>[^.;:]{0,50}?)\bat\s+the\s+(?:width\s+(?:you|it\s+was|they\s+were|"
    r"the\s+job\s+was)\s+(?:originally\s+|first\s+)?(?:requested|asked\s+for|submitted\s+at)|"
    r"(?:requested|original|asked[- ]for|submitted)\s+width)\b(?P<after>[^.;:]{0,30})", re.I)
# "the router doesn't recompute it when it narrows", "treated as short at every width
# it degrades to"
_NOT_RECOMPUTED = re.compile(
    rf"\b{_NOT}\s+re-?(?:compute|check|evaluate|classif(?:y|ies)|measure|decide|judge)\w*\b"
    r"[^.;:]{0,40}?\b(?:narrow\w*|degrad\w*|width|fall\w*\s+back)|"
    r"\btreated\s+as\s+(?:short|long)\s+at\s+every\s+(?:narrower\s+)?width\b", re.I)
# "any degraded width is treated as the long-job case": a class by narrowing, not by
# the length there ("at every narrower width it is long" is one job's)
_DEGRADED_LONG = re.compile(
    r"\b(?:any|every|each|all)\s+(?:degraded|narrower|fallback|lower)\s+(?:widths?|rungs?|jobs?|"
    r"runs?)\s+(?:(?P<neg>is\s+not\s+|are\s+not\s+|never\s+)|is\s+|are\s+|counts?\s+|gets?\s+)"
    r"(?:always\s+)?"
    r"(?:treated\s+|classed\s+|classified\s+)?(?:as\s+)?(?:the\s+|a\s+)?long\b(?![- ]?(?:er|est))|"
    r"\b(?:degraded|narrowed)\s+(?:jobs?|runs?|requests?)\s+(?:are|count\s+as|get\s+treated\s+as)\s+"
    r"(?:always\s+)?(?:as\s+)?long\b", re.I)
_AT_REQUEST_WORDS = re.compile(r"request|original|asked|submitted")
_RE_VERB = re.compile(r"\bre-?(?:comput|check|evaluat|classif|measur|decid|judg)")
# what makes "at the requested width" one of several ("…, and again at each width")
_ALSO_LATER = re.compile(r"\b(?:each|every|per|again)\b|\b(?:not|rather\s+than|instead\s+of)\s+"
                         r"(?:\w+\s+){0,2}?(?:once|at)\b", re.I)
_CLASS_NOT_CHANGING = re.compile(
    rf"\b{_NOT}\s+(?:change|affect|alter|touch)\s+(?:the\s+|its\s+|a\s+job'?s\s+)?"
    r"(?:length[- ]class|class(?:ification)?|short\s*/\s*long)\b", re.I)
# "keeps using the requested hours H for the short/long decision", "classifies the
# job by its requested hours": the class judged on the request's length alone
_REQUESTED_HOURS = re.compile(
    r"\b(?:keeps?\s+using|uses?|used|reuses?|applies|appl(?:y|ied)|goes\s+by|"
    r"classif(?:y|ies|ied)\s+(?:\w+\s+){0,3}?by|bases?\s+(?:\w+\s+){0,3}?on)\s+"
    r"(?:the\s+|its\s+)?(?:requested|original|asked[- ]for|submitted)\s+(?:hours|length|"
    r"duration|wall[- ]?clock)(?:\s+H\b)?(?![^.;:]{0,40}\b(?:only\s+)?at\s+the\s+"
    r"requested\s+width)", re.I)
# "halving the width halves the wall-clock", "doubling the GPUs doubles the runtime"
_HALVING = re.compile(r"\b(?P<a>halv\w*|doubl\w*|cutting\s+the\s+width\s+in\s+half)\s+"
                      r"(?:the\s+)?(?:width|GPU\s+count|number\s+of\s+GPUs|GPUs)\b[^.;:]{0,30}?\b"
                      r"(?P<b>halves|doubles|cuts\s+in\s+half|shrinks|grows|stretches|"
                      r"lengthens|shortens)\s+(?:the\s+|its\s+)?(?:length|wall[- ]?clock|"
                      r"run[- ]?time|duration|time)", re.I)
# "H × w / N": length proportional to the new width
_FORMULA = re.compile(r"\bH\s*[×x*·]\s*(?P<num>[wN])\s*/\s*(?P<den>[wN])\b")
# "decided at every width", "recomputed per width": the true law, not the claim
_RECOUNTED = re.compile(r"\b(?:each|every|per|at\s+every|again|re-?(?:decided|computed|"
                        r"checked|evaluated))\b", re.I)


# The gate before a unit is read at all: a length or class word near a width word.
_TOPIC = re.compile(r"\b(?:length|wall[- ]?clock|run[- ]?time|duration|class|h\s+job|"
                    r"hours?\s+job|requested\s+hours)\b", re.I)


_TOPIC_GATE = Prefiltered(_TOPIC)
_WIDTH_CHANGE_GATE = Prefiltered(_WIDTH_CHANGE)


def about_scaling(text: str, lowered: str | None = None) -> bool:
    """Whether a unit may state how length follows width (cheap: two scans,
    each only where its words are; `lowered` is the text's gate text)."""
    return bool(_TOPIC_GATE.search(text, lowered)) and \
        bool(_WIDTH_CHANGE_GATE.search(text, lowered))


# (", not wall-clock," contrasts a noun; it denies nothing)
_NEGATION_TEXT = re.compile(r"(?<![,;(]\s)\b(?:not|never|no\s+longer|cannot)\b|n[’']t\b", re.I)


class ScalingReading(ReaderBase):
    def _negated(self, position: int) -> bool:
        """A negation before `position` in its clause. A sentence that names no
        ladder entity has no cue tokens ("The threshold is not checked only at the
        width you requested."), so its clause is looked at as text."""
        if any(t.entity for t in self.tokens):
            return self.negated_before(position)
        return bool(_NEGATION_TEXT.search(self.text(self.clause_start(position), position)))

    def read_scaling(self) -> None:
        text = self.s.text
        if not _WIDTH_CHANGE.search(text) and not _WIDTH_CHANGE.search(self.heading):
            return
        if not (self.s.context or re.search(r"\bjobs?\b|\bruns?\b|\bphases?\b", text, re.I)):
            return
        self._length_fixed(text)
        self._class_fixed(text)
        self._direction(text)
        m = _DEGRADED_LONG.search(text)
        if m:
            start, end = self._at(m)
            self.add("scaling", ("degraded-long",), start, end,
                     bool(m.group("neg")) or self._negated(start),
                     topic="length class at a degraded width")

    def _at(self, match: re.Match) -> tuple[int, int]:
        return self.s.start + match.start(), self.s.start + match.end()

    def _length_fixed(self, text: str) -> None:
        m = _LENGTH_NOT_CHANGING.search(text)
        if m:
            start, end = self._at(m)
            # "It is not true that length doesn't change" is rare; a negation
            # before the subject in the same clause flips it
            self.add("scaling", ("length-fixed",), start, end, self._negated(start),
                     topic="length at a degraded width")
            return
        for pattern in (_LENGTH_SAME, _SAME_JOB, _KEEPS_LENGTH):
            m = pattern.search(text)
            if m:
                start, end = self._at(m)
                negated = bool(m.group("neg") and not m.group("neg").lower().startswith(
                    "keep")) or self._negated(start)
                self.add("scaling", ("length-fixed",), start, end, negated,
                         topic="length at a degraded width")
                return

    def _add_class_fixed(self, m: re.Match[str], negated: bool | None = None) -> None:
        """The class decided once: the claim at `m`, its polarity from the clause
        unless given."""
        start, end = self._at(m)
        self.add("scaling", ("class-fixed",), start, end,
                 self._negated(start) if negated is None else negated,
                 topic="length class at a degraded width")

    def _class_fixed(self, text: str) -> None:
        for pattern in (_CLASS_FIXED, _CLASS_KEPT):
            m = pattern.search(text)
            if m and not _RECOUNTED.search(m.group(0)):
                self._add_class_fixed(m, bool(m.group("neg")) or
                                      self._negated(self.s.start + m.start()))
                return
        m = _CLASS_NOT_CHANGING.search(text) or _REQUESTED_HOURS.search(text)
        if m:
            self._add_class_fixed(m)
            return
        low = text.lower()
        # the literals each pattern needs, looked for before the patterns are run
        m = _AT_REQUEST.search(text) if _AT_REQUEST_WORDS.search(low) else None
        if m and (_ALSO_LATER.search(m.group("gap") + " at") or re.match(
                r"\W*(?:and|or)\s+(?:again|at\s+(?:each|every))", m.group("after"), re.I)):
            m = None
        if m is None and ("treated" in low or _RE_VERB.search(low)):
            m = _NOT_RECOMPUTED.search(text)
        if m:
            self._add_class_fixed(m)
            return
        m = _DECIDED_ONCE.search(text) if "once" in low or "every" in low or "inherit" in low \
            else None
        if m and not re.search(r"\b(?:not|rather\s+than|instead\s+of|than|every|each|per)\s+"
                               r"(?:\w+\s+){0,2}once\b", m.group(0), re.I) and \
                re.search(r"\b(?:requested|original|wide|first)\s+width\b|\bkeeps?\b|\binherit",
                          text, re.I):
            self._add_class_fixed(m)

    def _direction(self, text: str) -> None:
        m = _HALVING.search(text)
        if m:
            halves_width = m.group("a").lower().startswith(("halv", "cut"))
            length_down = m.group("b").lower().startswith(("halv", "cut", "shr", "shor"))
            start, end = self._at(m)
            # "halving the width doubles it" states the inverse law: the claim, denied
            inverse = halves_width != length_down
            self.add("scaling", ("same-direction",), start, end,
                     negated=inverse != self._negated(start),
                     topic="length at a degraded width")
            return
        m = _FORMULA.search(text)
        if m and m.group("num") != m.group("den"):
            start, end = self._at(m)
            self.add("scaling", ("same-direction",), start, end,
                     negated=m.group("num") == "N", topic="length at a degraded width")
