"""Width claims: an intent's minimum width, the degradation direction, widths
that are not ladder widths, and the wide rungs in the auto ladder."""

from __future__ import annotations

import functools
import itertools
import re

from lint.lexicon import Token
from lint.reading.base import ReaderBase
from lint.reading.cues import (
    ARROW,
    AUTO,
    CHAIN_DENIED,
    EVERY_INTENT,
    EXPLICIT,
    MIN_CUE,
    REACH_CUE,
    WIDTH_TOPIC,
)
from lint.reading.sentence import TermTok, family_of

_WIDTH_CELL = re.compile(r"(?:^|\|)\s*((?:\d{1,2}\s*[×x]?\s*(?:,|→|->)\s*)+\d{1,2}\s*[×x]?)"
                         r"\s*(?=\||$)")
_INTENT_CHAIN = re.compile(r"[`*_]*(?:'s)?\s+(?:(?:width\s+)?(?:chain|ladder|walk|widths)\s*"
                           r"(?:is|are|goes|runs|:)|(?:walks|degrades|goes|steps\s+down)\b)", re.I)
# A sentence that is only a list of widths: "1, 2, 4, 8 and 16 GPUs."
_BARE_LIST = re.compile(r"^\W*((?:\d+\s*[×x]?\s*(?:,|and|or|/)?\s*){3,})(?:GPUs?|×)?\W*$",
                        re.I)


def _bare_list(text: str, heading: str) -> re.Match[str] | None:
    """Text that is only a list of numbers, under a heading about widths."""
    if not re.search(r"\bwidths?\b", heading, re.I):
        return None
    return _BARE_LIST.match(text)


def bare_width_list(text: str, heading: str) -> bool:
    """A unit that is only a list of numbers under a heading about widths."""
    return _bare_list(text, heading) is not None

_WORDS = {"one": 1, "two": 2, "four": 4, "eight": 8}
_DIGIT = re.compile(r"\d")
_EXCEPT_INTENT = re.compile(r"(?P<n>\d)\b\s*,?\s*(?:except|but|other\s+than|save\s+for)\s+"
                            r"(?:for\s+)?[`*_]*(?P<intent>[\w.-]+)[`*_]*\s*\(\s*(?P<m>\d)\s*\)",
                            re.I)
# "allowed widths are 1, 2, 4, 6 and 8", "`width`: must be one of 1, 2, 4, 6, 8"
_LISTED = re.compile(r"(?:\b|_)widths?(?:\s+(?:chain|ladder|order|sequence|list))?(?:\s*:)?"
                     r"(?:\s+(?!\d+\b)[^\s:.,;=]+){0,7}?\s*"
                     r"(?:\([^)]{0,30}\)\s*)?(?:are|is|:|=|include|of|for|from|among)\s*"
                     r"[\[{(]?"
                     r"((?:\d+(?!\d)\s*[×x]?\s*(?:,|(?:,\s*)?and(?:\s+then)?|(?:,\s*)?then|or|/)?"
                     r"\s*){2,})"
                     r"(?!\s*(?:h|hrs?|hours?|min\w*|days?|gpu-?h\w*)\b)", re.I)
@functools.lru_cache(maxsize=4)
def _spelled(words: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(sorted(words, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b(?!-|\s+of\b)", re.I)


# what follows the minimum-width cue is an example of it, not its value
_EXAMPLE_AFTER = re.compile(r"[:;]|(?:,|\s[—–-]|—|–)\s+(?:so|e\.g\.|for\s+example|"
                            r"for\s+instance|say)\b|"
                            r"\b(?:for\s+example|for\s+instance|e\.g\.)", re.I)
_INSTEAD_OF = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+[`*_]*$", re.I)
# a width's own denial: "1× is never tried", "a single GPU isn't used"
_NOT_TRIED_AFTER = re.compile(r"[\s`*_]*(?:(?:is|are)\s+(?:never|not)|(?:isn|aren)[’']t)\s+"
                              r"(?:ever\s+)?(?:tried|used|attempted|requested)\b", re.I)
# what joins the items of a list: "(capture-7b, eval-7b and lora-7b)" less its names
_LIST_JOINTS = re.compile(r"(?:[\s,`*_/]|\b(?:and|or)\b)*", re.I)
# a count written for the intent right after it: "(1, or 2 for eval-70b)"
_COUNT_FOR = re.compile(r"(?<![\w.])(\d)\s*[x×]?\s+(?:GPUs?\s+)?for\s+(?:the\s+)?[`*_]*$", re.I)
# "…, same as eval-7b's", "the same as for lora-7b"
_SAME_AS = re.compile(r"\b(?:the\s+)?same\s+as\s+(?:for\s+|with\s+)?[`*_]*(?P<intent>[a-z][\w.-]*?)"
                      r"[`*_]*(?:['’]s)?(?![\w.-])", re.I)
# "on fewer than two GPUs", "below 2×": the widths under the one named
_FEWER_THAN = re.compile(r"\b(?:(?:fewer|less|lower|narrower)\s+than|below|under)\s+$", re.I)
_REJECTED = re.compile(r"\b(?:is|are|gets?|will\s+be|would\s+be)\s+(?:rejected|refused|"
                       r"invalid|an\s+error|not\s+(?:allowed|valid|accepted)|"
                       r"(?:a\s+)?(?:bad|invalid|malformed)\s+(?:input|request|plan))\b|"
                       r"\bfails?\s+(?:validation|to\s+validate)\b|\berrors?\s+out\b", re.I)
# "opt-in needed: none"
_OPT_IN_NONE = re.compile(r"opt[- ]in(?:\s+(?:needed|required|flag))?\s*[:=]\s*(?:none|no|false|"
                          r"not\s+needed|nothing)\b", re.I)
_NO_NEED = re.compile(r"\b(?:without\s+(?:\w+\s+){0,2}(?:having|needing)\s+to|no\s+need\s+to|"
                     r"needn['’]t|(?:do|does)(?:\s+not|n['’]t)\s+(?:have|need)\s+to|"
                     r"(?:never|nobody|no\s+one)\s+(?:has|have|needs?)\s+to)\s+(?:\w+\s+)?$",
                     re.I)
# an intent's own chain: "The eval-70b ladder is 8 → 4 → 2 → 1"
_INTENT_CHAIN_OWNER = re.compile(r"\b(?:ladder|chain|walk(?:s|ed)?|widths?|degrad\w*|goes|go|"
                                 r"runs|steps?\s+down|falls?\s+back|narrows?)\b"
                                 # ("degrades like any other intent: 8 → 4 → 2 → 1")
                                 r"(?:\s+like\s+(?:any|every|each|all)\s+(?:other\s+)?"
                                 r"(?:intents?|ones?))?"
                                 r"[^.;:]{0,12}?(?:\bis|\bare|:|=)?\s*$", re.I)
# a bare count right after a minimum cue: "bottoms out at two", "stops at 2"
# (a count of something else, "at least 2 shards", "1 GPU-hour", is no width)
_BARE_AFTER_CUE = re.compile(r"\s*(?:at|of|is|:|=|to)?\s*(\d|[a-z]+)\b(?![.,]\d)"
                             r"(?=\s*(?:[,;.:)]|$|\s(?:for|on|and|or|but|in|at|when|if|with|"
                             r"never|not)\b))", re.I)
_MIN_WIDTHS_LEAD = re.compile(r"\bmin(?:imum)?[\s_-]*widths?\b|\bintent\s+(?:minimums|floors)\b",
                              re.I)
# "- eval-70b: 2", "capture-7b : 1, eval-7b : 1" under such a lead-in
_MIN_ITEM = re.compile(r"(?:^|,)\W*([\w.-]+)\W*\s*[:=—–-]+\s*(\d)\b(?![.,]\d)")


# a lead-in over the steps of one request's walk
_WALK_LEAD = re.compile(r"\b(?:what\s+happens|walk(?:s|ed)?|steps?|tries|tried|order|"
                        r"fall\s*back|fallbacks?|sequence|ladder|capacity\s+is\s+tight|"
                        r"on\s+(?:a\s+)?(?:capacity\s+)?miss(?:es)?)\b", re.I)


def _heading_intents(reader: ReaderBase) -> list[Token]:
    """The intent a section is about, by its heading ("## eval-70b"), placed at
    the sentence's start."""
    named = {t.value for t in reader.lexicon.tag(reader.heading) if t.kind == "intent"}
    return [Token("intent", name, reader.s.start, reader.s.start) for name in sorted(named)]


_AUTO_VERB = (r"\b(?:in|part\s+of|on|includ\w*|contains?|covers?|walks?|reach(?:es|ed)?|tries|"
              r"tried|uses?|used|asks?\s+for|requests?)\b")


_DENIED_AFTER = re.compile(
    r"[`*_)]*\s*(?:is|are|would\s+be)\s+(?:invalid|not\s+(?:a\s+)?(?:valid|allowed|supported|"
    r"an?\s+(?:option|width))|unsupported|not\s+on\s+the\s+ladder|rejected)\b|"
    r"[`*_)]*\s*(?:isn['’]t|aren['’]t|doesn['’]t|don['’]t)\s+(?:a\s+)?(?:valid|allowed|supported|"
    r"exist|an?\s+(?:option|width))\b", re.I)


# "drops straight to", "falls back directly to" (not "goes right down to 1×": all the
# way down, through every width)
# ("drops from the requested width straight to width 1": from any request)
_STRAIGHT_DROP = re.compile(r"\b(?:drops?|dropping|falls?(?:\s+back)?|falling(?:\s+back)?|goes|"
                            r"going|jumps?|jumping|moves?|moving|steps?\s+down|degrades?|"
                            r"shrinks?|narrows?|retries|retrying|tries)(?P<req>\s+from\s+(?:the\s+|"
                            r"your\s+|its\s+)?(?:requested|asked[- ]for|original)\s+width)?\s+"
                            r"(?:straight|directly|right|immediately)\s+(?:back\s+)?to\s+", re.I)

# "the intent's min width", "its minimum width", "the narrowest width"
_MIN_TARGET = re.compile(r"(?:the\s+)?(?:(?:intent|job|phase)'?s\s+|its\s+)?(?:min(?:imum)?|"
                         r"narrowest|smallest|lowest)\s+(?:allowed\s+)?width\b", re.I)

# "H100 nodes top out at 4x": the widest machine a family has
_TOPS_OUT = re.compile(r"[\s`*_]*(?:(?:nodes?|machines?|boxes|vms?|rungs?|shapes?|family)\s+)?"
                       r"(?:only\s+)?(?:tops?\s+out|maxes\s+out|caps?\s+out|goes\s+up|go\s+up|"
                       r"(?:is|are)\s+(?:limited|capped))\s+(?:at|to)\s+(?:an?\s+)?", re.I)
# "the 8x rungs are A100-only"
_RUNGS_ARE = re.compile(r"[\s`*_]*(?:gpu\s+)?(?:rungs?|machines?|boxes|shapes?|vms?|nodes?)\s+"
                        r"(?:are|is)\s+(?:only\s+)?(?:on\s+)?(?:the\s+)?[`*_]*", re.I)
_ONLY_AFTER = re.compile(r"[`*_]*(?:[- ]only\b|\s+alone\b)", re.I)


# what makes a width a request: "4× request", "4x lora-7b job", "4-GPU dispatch"
_REQUEST_AFTER = re.compile(r"[`*_]*\s*(?:-?\s*gpus?\s+)?(?:[\w.-]+\s+)?(?:requests?|jobs?|"
                            r"dispatch(?:es)?|runs?)\b", re.I)

# a request named by a part of its intents' names: "a 7B request", "any eval job"
_GROUP_REQUEST = re.compile(r"\b(?:an?|any|every|each|all)\s+(?P<which>[\w.]+)\s+"
                            r"(?:requests?|jobs?|runs?|dispatch(?:es)?|phases?)\b", re.I)

class WidthReading(ReaderBase):
    # -- minimum width of an intent ------------------------------------------------------------

    def _every_intent(self) -> list[Token]:
        """'All four intents can run on a single GPU': each intent of the config."""
        every = EVERY_INTENT.search(self.s.text)
        names = self.facts.intents
        if not every:
            # "A 7B request never goes below two GPUs": the intents with that part
            # of a name (a part no intent has, "a 4x request", names none)
            group = _GROUP_REQUEST.search(self.s.text)
            if group is None:
                return []
            part = group["which"].lower()
            at, end = self.s.start + group.start(), self.s.start + group.end()
            return [Token("intent", name, at, end) for name in names
                    if part in name.lower().split("-")]
        at, end = self.s.start + every.start(), self.s.start + every.end()
        which = (every["which"] or "").lower()
        # "every 7B intent", "all eval intents": the intents whose name has that part
        named = [n for n in names if which in n.lower().split("-")]
        return [Token("intent", name, at, end) for name in named or names]

    def _floor(self) -> None:
        """'For an 8× request the router never goes below 2× on GCP': a floor for
        any request, where no intent is named."""
        if not self.s.context or self.procedural:
            return
        m = re.search(r"\b(?:never|not|n't|no\s+further|no\s+lower)\s+(?:\w+\s+){0,3}?"
                      r"(?:below|under|narrower\s+than|lower\s+than|past)\s+", self.s.text, re.I)
        # "the GCP width walk stops at 2×" is a floor too
        low = self.s.text.lower()
        stops = None
        if "stop" in low or "end" in low or "bottom" in low or "halt" in low:
            # "the GCP width walk stops at 2×", "GCP halves the width on each capacity
            # miss and stops at 2×"
            stops = re.search(r"\b(?:width\s+)?(?:walk|chain|ladder|degradation|narrowing)\s+"
                              r"(?:now\s+)?(?:stops|ends|bottoms\s+out|halts)\s+at\s+",
                              self.s.text, re.I) or re.search(
                r"\b(?:halv\w*|narrow\w*|degrad\w*)\b[^.;:]{0,60}?\b(?:and|then)\s+"
                r"(?:stops|ends|bottoms\s+out|halts)\s+at\s+", self.s.text, re.I)
        m = m or stops
        if m is None:
            return
        subject = self.s.text[:m.end() if m is stops else m.start()]
        if re.search(r"\b(?:it|them|this\s+one|that\s+one)\b", m.group(0), re.I):
            return  # "The router never degrades it below 2×": the floor of what "it" is
        if not re.search(r"\b(?:router|dispatch\w*|ladder|requests?|jobs?|walk|chain|"
                         r"degradation|gcp|widths?)\b", subject, re.I) or re.search(
                r"\b(?:it|its|they|their|this|that|\d+\s*b|70b|7b|evals?|lora|capture|intents?|"
                r"models?)\b", subject, re.I):
            # "The 70b eval is not going under two GPUs", "Its minimum width is 2, so
            # the GCP walk stops at 2×": an intent's floor
            return
        after = [t for t in self.terms if t.start == self.s.start + m.end() and
                 self._term_width(t) is not None]
        if after:
            w = after[0]
            # the fix keeps how the width is written ("2×", "two GPUs")
            self.add("floor", (self._term_width(w),), w.start, w.end, topic="minimum width",
                     fix=((w.start, w.end, self.text(w.start, w.end)),))

    def read_same_as(self) -> None:
        """'eval-70b's floor is 2 GPUs, same as eval-7b's': the other intent's
        minimum is the one just stated."""
        if "same" not in self.s.text.lower():
            return
        for m in _SAME_AS.finditer(self.s.text):
            other = m.group("intent").lower()
            at = self.s.start + m.start()
            stated = [p for p in self.props if p.kind in ("min-width", "reach") and
                      p.end <= at and p.args[0] != other]
            if other not in self.facts.intents or not stated or any(
                    p.args[0] == other for p in self.props):
                continue
            p = stated[-1]
            start = self.s.start + m.start("intent")
            self.add(p.kind, (other, *p.args[1:]), start, start + len(m.group("intent")),
                     p.negated, topic=p.topic)

    def read_walk_step(self) -> None:
        """'What happens to an eval-70b dispatch at width 4:' over '3. GCP at 1 GPU.':
        a step of one intent's walk says the walk reaches that width."""
        if not self.list_lead or not _WALK_LEAD.search(self.list_lead) or self.procedural:
            return
        named = {t.value for t in self.lexicon.tag(self.list_lead) if t.kind == "intent"}
        if len(named) != 1 or self.kinds("intent"):
            return
        intent = named.pop()
        widths = [t for t in self.terms if t.term[0] in ("width", "family", "rung") and
                  self._term_width(t) is not None]
        others = [t for t in self.terms if t.term[0] not in ("width", "family", "rung") and
                  not (t.term[0] == "backend" and t.term[1] == "gcp")]
        # (a step that is a GCP shape alone: "GCP at 1 GPU", "1×", "`a2-ultragpu-1g`")
        if len(widths) != 1 or others or self.negated_before(widths[0].start):
            return
        w = widths[0]
        self.add("reach", (intent, self._term_width(w)), w.start, w.end, topic="minimum width")

    def read_min_width(self) -> None:
        if self._min_with_exception():
            return
        named, every = self.kinds("intent"), self._every_intent()
        if named and not every:
            # "You have access to four intents. All of them except `eval-70b` can run
            # at width 1": everything but the intents the exception names
            others = re.search(r"\ball\s+(?:of\s+them|the\s+(?:others|rest))\s+(?:except|but|"
                               r"other\s+than|apart\s+from|save\s+for)\b", self.s.text, re.I)
            if others:
                at = self.s.start + others.start()
                every = [Token("intent", name, at, self.s.start + others.end())
                         for name in self.facts.intents]
        if every and named and re.search(r"\b(?:except|but\s+not|other\s+than|apart\s+from|"
                                         r"besides|save\s+for)\b", self.s.text, re.I):
            # "all intents except eval-70b can run on one GPU": the others can
            excluded = {t.value for t in named}
            intents = [t for t in every if t.value not in excluded]
        else:
            intents = named or every
        if self.list_lead and _MIN_WIDTHS_LEAD.search(self.list_lead):
            # "Intents and their minimum widths:" over "- eval-70b: 1"
            # (a fence's line may hold several: {"capture-7b": 1, "lora-7b": 2})
            items = [m for m in _MIN_ITEM.finditer(self.s.text)
                     if m.group(1).lower() in self.facts.intents]
            if items and _MIN_ITEM.match(self.s.text):
                for item in items:
                    at = self.s.start + item.start(2)
                    self.add("min-width", (item.group(1).lower(), int(item.group(2))), at,
                             at + 1, topic="minimum width", fix=((at, at + 1, ""),))
                return
        if not intents and not self.kinds("intent") and len(_heading_intents(self)) == 1 and \
                ARROW.search(self.s.text):
            # "## eval-70b" over "On GCP an 8× request still goes 8× → 4× → 2× → 1×"
            intents = _heading_intents(self)
        if not intents:
            self._floor()
            return
        # ("stops one width earlier (2x instead of 1x)": the width set aside is not one)
        widths = [t for t in self.terms if self._term_width(t) is not None and
                  not _INSTEAD_OF.search(self.unit_text, max(self.s.start, t.start - 16), t.start)]
        # a cue in an aside ("the width-1 (or minimum-width) ladder") claims nothing
        cue = next((m for m in MIN_CUE.finditer(self.s.text)
                    if not re.search(r"\([^)]*$", self.s.text[:m.start()])), None)
        if cue and len({t.value for t in named}) >= 2 and intents is named and \
                self._per_intent(named):
            return
        if not widths and not cue:
            return
        all_widths = widths
        # a width said of intents with different floors has no one right number to mend
        # ("lora-7b and eval-70b stop at two")
        mends = self.floor_stand_in(t.value for t in intents) is not None
        for it in intents:
            # "one GPU for the 7b intents and two for eval-70b": a width written
            # for something else is not this intent's
            widths = [w for w in all_widths if not self._width_for_other(w, it)]
            if all_widths and not widths:
                continue
            near = sorted(widths, key=lambda w: abs(w.start - it.start))[:1]
            text = self.s.text
            if not near and not cue:
                continue
            window = max(self.s.start, it.start - 24)
            own = _COUNT_FOR.search(self.text(window, it.start))
            aside = self.aside_of(it.start) if own and "(" in self.s.text else None
            if cue and own and aside and aside[0] < window + own.start() and \
                    it.start > self.s.start + cue.end():
                # "down to the intent's minimum (1, or 2 for eval-70b)": the count
                # written for the intent is its own
                at = window + own.start(1)
                self.add("min-width", (it.value, int(own.group(1))), at, at + 1,
                         self.negated_before(at), topic="minimum width",
                         fix=((at, at + 1, ""),))
                continue
            if cue and not widths:
                # "minimum width is 2", "minimum width raised to 4" (today's value)
                bare = re.search(r"(?:\bis|:|=|\bof|^|\bto)\s*(\d)\b(?![.,]\d)", text[cue.end():])
                if bare:
                    at = self.s.start + cue.end() + bare.start(1)
                    self.add("min-width", (it.value, int(bare.group(1))), at, at + 1,
                             self.negated_before(at), topic="minimum width",
                             fix=((at, at + 1, ""),))
                elif (word := _BARE_AFTER_CUE.match(text, cue.end())) and \
                        word.group(1).lower() in self.lexicon.width_numbers:
                    # "eval-70b stops at two", "lora-7b and eval-70b stop at two": a
                    # spelled count right after the cue
                    at, end = self.s.start + word.start(1), self.s.start + word.end(1)
                    self.add("min-width", (it.value,
                                           self.lexicon.width_numbers[word.group(1).lower()]),
                             at, end, self.negated_before(at), topic="minimum width",
                             fix=((at, end, ""),) if mends else ())
                    continue
                return
            if cue and it.start > self.s.start + cue.end() and _EXAMPLE_AFTER.search(
                    self.text(self.s.start + cue.end(), it.start)):
                # "…submits at the intent's minimum width: an eval-70b dispatch at 8x
                # lands on SLURM with 2 GPUs" ("…, so an eight-GPU capture-7b request
                # lands as a one-GPU job"): the example after the cue is its own
                continue
            if cue:
                after = [w for w in widths if w.start >= self.s.start + cue.end()]
                before = [w for w in widths if w.end <= self.s.start + cue.start()]
                # "degrades to 2× (its floor)": with none after it, the cue names
                # the width just before it
                w = after[0] if after else before[-1] if before else near[0]
                bare = _BARE_AFTER_CUE.match(text, cue.end())
                word = bare and bare.group(1).lower()
                value = word and (int(word) if word.isdigit() else
                                  self.lexicon.width_numbers.get(word))
                if value and it.start < self.s.start + cue.start() and \
                        self.clause_start(self.s.start + cue.start()) <= it.start and \
                        not any(t.start <= self.s.start + bare.start(1) < t.end for t in widths):
                    # "eval-70b bottoms out at two: an eight-GPU request …": the
                    # count right after the cue, not the next width term
                    at = self.s.start + bare.start(1)
                    w = TermTok(("width", value), at, self.s.start + bare.end(1))
                width = self._term_width(w)
                negated = self.negated_before(w.start) and not re.search(
                    r"\bnever\s+(?:\w+\s+){0,2}below|\bnot\s+below|no\s+(?:narrower|further|"
                    r"lower)", text, re.I)
                if re.search(r"\bbelow\b|\bnarrower\s+than\b|\blower\s+than\b", text, re.I) and \
                        not re.search(r"\b(?:min(?:imum)?|floor|at\s+least)\b", text, re.I):
                    # "never degrades below 2×": the minimum is 2
                    self.add("min-width", (it.value, width), w.start, w.end, False,
                             topic="minimum width", fix=(self._number_span(w),)
                             if mends else ())
                else:
                    self.add("min-width", (it.value, width), w.start, w.end, negated,
                             topic="minimum width", fix=(self._number_span(w),)
                             if mends else ())
            elif (reach := REACH_CUE.search(text)) and (
                    intents is named or self.s.start + reach.start() > it.start):
                # a quantifier comes before its verb: "every intent can run at 1×",
                # not "a width-1 request …, and the ladder of every intent is pinned"
                denied = next((t for t in widths if t.end <= it.start and
                               _NOT_TRIED_AFTER.match(self.unit_text, t.end)), None)
                if denied is not None:
                    # "A single GPU is never tried for an eval-70b request": the width
                    # the sentence denies, not the request's
                    self.add("reach", (it.value, self._term_width(denied)), denied.start,
                             denied.end, True, topic="minimum width")
                    continue
                later = [t for t in widths if t.start > it.start] or near
                opened = self.unit_text.rfind("(", self.s.start, it.start)
                if opened > self.unit_text.rfind(")", self.s.start, it.start):
                    # "… then 1 (stopping at 2 for eval-70b), and …": an intent in an
                    # aside reaches only the widths the aside names
                    close = self.unit_text.find(")", it.end, self.s.end)
                    later = [t for t in widths if opened < t.start < (
                        close if close >= 0 else self.s.end)]
                    if not later:
                        continue
                w = min(later, key=lambda t: self._term_width(t) or 99)
                # "a 1-GPU eval-70b request is rejected": the request cannot run
                rejected = bool(_REJECTED.search(self.text(max(w.end, it.end),
                                                           self.clause_end(max(w.end, it.end)))))
                width = self._term_width(w)
                if width and _FEWER_THAN.search(self.text(max(self.s.start, w.start - 24),
                                                          w.start)):
                    # "run on fewer than two GPUs": the next width down
                    width = max((n for n in self.facts.widths if n < width), default=None)
                    if width is None:
                        continue
                negated = self.negated_before(w.start)
                if negated and width and self._narrower_request(width, w.start):
                    # "A 4x lora-7b request … is not retried at 8x": what is denied is
                    # widening a request, not the intent's reaching 8× at all
                    continue
                self.add("reach", (it.value, width), w.start, w.end, negated != rejected,
                         topic="minimum width")
            elif intents is named and _INTENT_CHAIN.match(self.text(it.end, self.s.end)):
                # "The eval-70b chain is 8× → 4× → 2× → 1×": it reaches the last width
                later = [t for t in widths if t.start > it.start]
                if len(later) >= 2 and ARROW.search(self.text(later[0].end, later[1].start)):
                    w = later[-1]
                    self.add("reach", (it.value, self._term_width(w)), w.start, w.end,
                             self.negated_before(w.start), topic="minimum width")
            if intents is named:
                return  # one named intent per sentence; a quantifier names them all

    def _narrower_request(self, width: int, before: int) -> bool:
        """A request narrower than `width` named before `before`, in this
        sentence or the one before it ("A 4× lora-7b request …")."""
        earlier = [t for t in (*self.previous_terms, *self.terms)
                   if t.term[0] == "width" and t.start < before and
                   isinstance(t.term[1], int) and t.term[1] < width]
        return any(_REQUEST_AFTER.match(self.unit_text, t.end) for t in earlier)

    def _number_span(self, w: TermTok) -> tuple[int, int, str]:
        """Where the number of a width term is ("width is 1" → "1"): the fix puts
        the config's number there and keeps the writer's words and unit."""
        m = re.search(r"\d+|\b(?:" + "|".join(_WORDS) + r")\b", self.unit_text[w.start:w.end],
                      re.I)
        return (w.start + m.start(), w.start + m.end(), "") if m else (w.start, w.end, "")

    def _width_for_other(self, w: TermTok, it: Token) -> bool:
        m = re.match(r"[\s`*_]*(?:gpus?\s+)?for\s+(?:the\s+|an?\s+)?`?([\w.-]+)",
                     self.unit_text[w.end:w.end + 40], re.I)
        return bool(m) and m.group(1).lower() != self.unit_text[it.start:it.end].strip("`").lower()

    def _per_intent(self, named: list[Token]) -> bool:
        """'Minimum widths: capture-7b 1, …, eval-70b 4', 'eval-70b never goes below
        two GPUs, and lora-7b never below four': each intent with the width written
        after it, up to the next intent."""
        found = []
        # an intent named again ("eval-70b bottoms out at two: an eight-GPU eval-70b
        # request …") goes on with its first mention's segment
        firsts = [it for i, it in enumerate(named)
                  if all(other.value != it.value for other in named[:i])]
        for i, it in enumerate(firsts):
            stop = firsts[i + 1].start if i + 1 < len(firsts) else self.s.end
            # the intent's width is in its own clause, and inside its aside if it
            # stands in one ("(1, or 2 for eval-70b), … — so a 4-GPU lora-7b …")
            aside = self.aside_of(it.start) if "(" in self.s.text else None
            if aside is None:
                stop = min(stop, self.clause_end(it.end))
            elif _LIST_JOINTS.fullmatch(self._without_intents(aside[0] + 1, aside[1])):
                # "The 7B intents (capture-7b, eval-7b, lora-7b) can shrink to one
                # GPU": an aside that lists the intents names the subject
                stop = min(stop, self.clause_end(aside[1]))
            else:
                stop = min(stop, self.clause_end(it.end), aside[1])
            seg = self.text(it.end, stop)
            cue = MIN_CUE.search(seg)
            bare = cue and _BARE_AFTER_CUE.match(seg, cue.end())
            word = bare and bare.group(1).lower()
            value = word and (int(word) if word.isdigit() else
                              self.lexicon.width_numbers.get(word))
            w = next((t for t in self.terms if it.end <= t.start < stop and
                      self._term_width(t) is not None), None)
            if value and (w is None or w.start > it.end + bare.start(1)):
                at = it.end + bare.start(1)
                found.append((it, value, at, at + len(word)))
                continue
            if w is not None:
                found.append((it, self._term_width(w), w.start, w.end))
                continue
            n = re.match(r"[\s`*_]*(?:[:=(]\s*|(?:never\s+)?(?:goes\s+)?(?:below|under)\s+)?"
                         r"(\d{1,2}|one|two|four|eight)\b", seg, re.I)
            if n:
                at = it.end + n.start(1)
                found.append((it, _WORDS.get(n.group(1).lower()) or int(n.group(1)), at,
                              at + len(n.group(1))))
        if len(found) < 2:
            return False
        for it, width, start, end in found:
            self.add("min-width", (it.value, width), start, end, False, topic="minimum width",
                     fix=((start, end, ""),))
        return True

    def _without_intents(self, start: int, end: int) -> str:
        """The unit's text from `start` to `end` with the intents it names cut out."""
        out, at = [], start
        for t in sorted(self.kinds("intent"), key=lambda t: t.start):
            if start <= t.start and t.end <= end:
                out.append(self.unit_text[at:t.start])
                at = t.end
        return "".join(out) + self.unit_text[at:end]

    def _min_with_exception(self) -> bool:
        """'min width: 1, except `eval-70b` (2)': one width for every intent but the
        one named, which has its own in brackets."""
        m = _EXCEPT_INTENT.search(self.s.text)
        if m is None or m["intent"].lower() not in self.facts.intents or \
                not MIN_CUE.search(self.s.text[:m.start()]):
            return False
        excepted = m["intent"].lower()
        for intent, group in [(i, "n") for i in self.facts.intents if i != excepted] + \
                [(excepted, "m")]:
            at = self.s.start + m.start(group)
            self.add("min-width", (intent, int(m[group])), at, at + 1, topic="minimum width",
                     fix=((at, at + 1, ""),))
        return True

    def read_direction(self) -> None:
        """'On a miss the router doubles the width': the ladder only narrows."""
        if not self.s.context or self.procedural:
            return
        m = re.search(r"\b(?:doubles?|widens?|grows?|increases?|raises?|bumps?\s+up|steps?\s+up)"
                      r"\s+(?:the\s+)?(?:width|gpu\s+count)\b|\b(?:retries|tries|moves?\s+"
                      # "retries one size wider"
                      r"(?:up\s+)?to)\s+(?:a\s+|(?:one|a)\s+(?:size|step|notch)\s+)?"
                      r"(?:wider|bigger|larger)\b|\bever\s+widen|"
                      # "starts every request at 1x and grows toward the requested width"
                      # "the router looks one size up, at a 4-GPU machine", "sizes up"
                      r"\b(?:looks?|goes|tries|moves?|steps?)\s+(?:one\s+|a\s+)?(?:size|step|"
                      r"notch)\s+up\b|\bsizes?\s+up\b|\bupsiz\w*|"
                      # "the router bumps you up a width", "goes up one size"
                      r"\bup\s+(?:a|one)\s+(?:width|size|notch|gpu\s+count)\b|"
                      # "will bump you up to a 4× machine", "promotes the job to 8 GPUs"
                      r"\b(?:bump(?:s|ed)?|upgrad(?:es?|ed)|promot(?:es?|ed))\s+(?:you|it|them|"
                      r"the\s+(?:job|request|phase|run))\s+(?:up\s+)?to\s+(?=(?:an?\s+)?"
                      r"(?:\d|two|four|eight|wider|bigger|larger))|"
                      # "may also try a wider shape than you asked for"
                      r"\b(?:tries?|try|picks?|uses?|lands?\s+on|gives?\s+you)\s+(?:a\s+)?"
                      r"(?:wider|bigger|larger)\s+(?:shape|machine|box|width|rung|vm)s?\s+than\b|"
                      # "widen to 4x and retry"
                      r"\bwiden(?:s|ing)?\s+(?:it\s+|the\s+(?:job|request)\s+)?to\s+(?=\d)|"
                      r"\b(?:grows?|climbs?|works?\s+(?:its\s+way\s+)?up|scales?\s+up|widens?)\s+"
                      r"(?:back\s+)?(?:up\s+)?(?:toward|towards|to)\s+(?:the\s+)?(?:requested|full|"
                      r"wide|widest|target)",
                      self.s.text, re.I)
        if m:
            at = self.s.start + m.start()
            self.add("direction", ("up",), at, self.s.start + m.end(),
                     self.negated_before(at), topic="width chain")
            return
        m = re.search(r"\bone\s+gpu\s+at\s+a\s+time\b|\bby\s+one\s+gpu\b|"
                      r"\b(?:drops?|shrinks?|decrements?|steps?\s+down)\s+by\s+(?:one|1)\b",
                      self.s.text, re.I)
        if m:  # "width drops one GPU at a time (8, 7, 6, …)": widths halve
            at = self.s.start + m.start()
            self.add("direction", ("by-one",), at, self.s.start + m.end(),
                     self.negated_before(at), topic="width chain")
            return
        m = re.search(r"\b(?:degrades?|narrows|halves|drops?\s+(?:to\s+)?(?:a\s+)?narrower|"
                      r"narrow(?:s|ed)?\s+(?:a|the|its|any)\s+(?:request|width|job)|"
                      # "does not narrow on GCP at all"
                      r"narrow(?=\s+(?:on\s+GCP\s+)?at\s+all\b))\b"
                      # "never degrades it below 2×" is a floor
                      r"(?!(?:\s+(?:it|them|the\s+(?:job|request)))?\s+(?:below|under|past|"
                      r"further\s+than|lower\s+than))", self.s.text, re.I)
        if m and re.search(r"\b(?:never|not|n't|no\s+longer|cannot)\s+(?:\w+\s+)?$",
                           self.s.text[:m.start()], re.I) and not self.kinds("intent"):
            # "the router never narrows a request": it does, on every capacity miss
            at = self.s.start + m.start()
            self.add("direction", ("down",), at, self.s.start + m.end(), True,
                     topic="width chain")
            return
        self._widened_request()

    def _widened_request(self) -> None:
        """'a 4× request that misses is retried at 8×': a miss never widens."""
        widths = [t for t in self.terms if t.term[0] == "width"]
        if len(widths) < 2:
            return
        # the request: "a 4× request", "a job that asked for 4 GPUs", "if 2x is full"
        request = next((w for w in widths if re.match(
            r"\s*(?:-?\s*gpu\s+)?(?:[\w.-]+\s+)?(?:requests?|reqs?|jobs?|dispatch(?:es)?|"
            r"phases?)\b", self.unit_text[w.end:w.end + 30], re.I) or re.search(
            r"\bask(?:s|ed|ing)?\s+for\s+(?:width\s+)?$",
            self.unit_text[max(self.s.start, w.start - 20):w.start], re.I) or re.match(
            r"[`*_]*\s+(?:(?:rungs?|boxes|machines?|shapes?)\s+)?(?:is|are)\s+(?:full|out|busy|"
            r"gone|unavailable|dry|exhausted|empty)\b|"
            # "if the 4x rungs miss"
            r"\s+(?:(?:rungs?|boxes|machines?|shapes?)\s+)?miss(?:es|ed)?\b",
            self.unit_text[w.end:w.end + 20], re.I)), None)
        if request is None:
            return
        for w in widths:
            if w.start > request.end and w.term[1] > request.term[1] and re.search(
                    r"\b(?:retried|retries|tries|try|goes|moves|falls|next|then|up|checks?|"
                    r"bump(?:s|ed)?|takes?|upgrad(?:es?|ed)|escalat(?:es?|ed)|first|lands?|"
                    # "a 4x request can be widened to 8x", "gets promoted to 8x"
                    r"widen(?:s|ed)?|promot(?:es?|ed)|rais(?:es?|ed)|grows?|grown)\b[^,;]*$",
                    self.text(request.end, w.start), re.I):
                self.add("direction", ("up",), w.start, w.end, self.negated_before(w.start),
                         topic="width chain")
                return

    def _straight_drop(self) -> None:
        """'If no 8-GPU machine is free, the router drops straight to a single GPU':
        the width named goes straight to the width after the verb, with none
        between."""
        m = _STRAIGHT_DROP.search(self.s.text)
        if m is None or any(t.term[0] == "lane" or (t.term[0] == "backend" and
                                                      t.term[1] != self.facts.backends[0])
                            for t in self.terms):
            return  # "on SLURM it goes straight to 1 GPU": the lanes run at the minimum width
        at = self.s.start + m.end()
        to = next((t for t in self.terms if t.term[0] == "width" and t.start >= at and
                   self.text(at, t.start).strip(" \n\t`*_").lower() in ("", "a", "the")), None)
        if to is None and _MIN_TARGET.match(self.s.text, m.end()):
            # "drops straight to the intent's min width": the narrowest it may run at
            intents = [t.term[1] for t in self.terms if t.term[0] == "intent"]
            to = TermTok(("width", self.facts.min_width(intents[0]) if len(intents) == 1
                          else self.facts.narrowest), at, at + 1)
        before = [t for t in self.terms if t.term[0] == "width" and
                  t.end <= self.s.start + m.start()]
        source = before[-1] if before else next(
            (t for t in reversed(self.previous_terms) if t.term[0] == "width"), None)
        if m.group("req"):  # the widest request shows the widths skipped
            source = TermTok(("width", self.facts.widest), at, at)
        if to is None or source is None or source.term == to.term:
            return
        self.add("skip", (source.term, to.term), to.start, to.end,
                 self.negated_before(self.s.start + m.start()), topic="width chain")

    def read_family_widths(self) -> None:
        """'H100 nodes top out at 4x', 'the 8x rungs are A100-only': the widths a
        family's machines come in."""
        if not self.s.context or self.procedural:
            return
        fams = [t for t in self.terms if t.term[0] == "family" and t.term[1][1] is None]
        widths = [t for t in self.terms if t.term[0] == "width"]
        if not fams or not widths:
            return
        for f in fams:
            w = next((w for w in widths if w.start > f.end and
                      _TOPS_OUT.fullmatch(self.text(f.end, w.start))), None)
            if w is not None:
                self.add("family-max", (family_of(f.term), w.term[1]), w.start, w.end,
                         self.negated_before(w.start), topic="family widths")
        for w in widths:
            f = next((f for f in fams if f.start > w.end and
                      _RUNGS_ARE.fullmatch(self.text(w.end, f.start)) and
                      _ONLY_AFTER.match(self.unit_text, f.end)), None)
            if f is not None:
                self.add("width-families", (w.term[1], (family_of(f.term),)), f.start, f.end,
                         self.negated_before(f.start), topic="family widths")

    def read_skipped_width(self) -> None:
        """'the router skips the 4-GPU machines': every width on the chain is walked."""
        self._straight_drop()
        # present tense only: "that skipped 4×" reports an old chain
        # "degrades 8× to 2× in one step, skipping 4×": a participle after the walk
        for m in re.finditer(r"(?:\b(?:router|dispatch|ladder|walk|it|which)\s+(?:\w+\s+)?"
                             r"skip(?:s|ping)?|(?<=[×x]),?\s+(?:\w+\s+){0,4}?(?:,\s*)?skipping|"
                             r"(?:in\s+one\s+step|directly|straight),\s+skipping)"
                             r"\s+(?:over\s+)?(?:the\s+)?", self.s.text, re.I):
            at = self.s.start + m.end()
            w = next((t for t in self.terms if t.term[0] == "width" and t.start == at), None)
            if w is not None and w.term[1] in self.facts.widths:
                self.add("width", (w.term[1],), w.start, w.end,
                         not self.negated_before(self.s.start + m.end()), topic="width chain")

    # -- widths that are not ladder widths ---------------------------------------------------

    def _own_width_context(self) -> bool:
        """The sentence itself is about the ladder's widths."""
        return any(WIDTH_TOPIC.search(text) or self.lexicon.ladder_context.search(text)
                   for text in (self.s.text, self.table_header) if text)

    def _width_cells(self) -> None:
        """'| 2× | 2, 4, 1 |' under '| request | widths tried |': a cell that lists
        widths lists them in the order they are tried."""
        for cell in _WIDTH_CELL.finditer(self.s.text):
            base = self.s.start + cell.start(1)
            numbers = list(re.finditer(r"\d+", cell.group(1)))
            for a, b in itertools.pairwise(numbers):
                ta, tb = ("width", int(a.group(0))), ("width", int(b.group(0)))
                self.add("order", (ta, tb), base + a.start(), base + b.end(), topic="width chain")
                self.add("skip", (ta, tb), base + a.start(), base + b.end(), topic="width chain")
            for m in numbers:
                if int(m.group(0)) not in self.facts.widths:
                    self.add("width", (int(m.group(0)),), base + m.start(), base + m.end(),
                             topic="width chain")
            intents = {t.value for t in self.kinds("intent") if t.end <= base}
            if len(numbers) > 1 and len(intents) == 1:
                # "| eval-70b x8 | 8, 4, 2, 1 |": the row's intent is walked down to
                # the last width its cell lists
                last = numbers[-1]
                self.add("reach", (intents.pop(), int(last.group(0))), base + last.start(),
                         base + last.end(), topic="minimum width")

    def _spelled_as_digits(self) -> str:
        """The sentence with each spelled width ("eight, four and then one") written as
        its digits, padded so that offsets stay where they were."""
        words = self.lexicon.width_numbers

        def digits(m: re.Match[str]) -> str:
            value = str(words[m.group(0).lower()])
            return value + " " * (len(m.group(0)) - len(value))

        return _spelled(tuple(words)).sub(digits, self.s.text)

    def read_widths(self) -> None:
        """'retried at 3×', 'up to 16×', 'allowed widths are 1, 2, 4, 6 and 8'."""
        if not _DIGIT.search(self.s.text) and not any(
                self._term_width(t) is not None for t in self.terms):
            return  # every shape below needs a number or a width
        bare = _bare_list(self.s.text, self.heading)
        # "capture-7b goes 8 → 4 → 2 → 1": an intent's walk drawn with arrows
        intent_walks = bool(self.kinds("intent")) and bool(_INTENT_CHAIN_OWNER.search(
            self.s.text, 0, next((m.start() for m in ARROW.finditer(self.s.text)), 0)))
        if self.procedural or not (bare or intent_walks or self._own_width_context()):
            return
        # "widths you can put in a §9 phase: 1, 2, 4, 8 and 16" too
        # ("`width`: must be one of 1, 2, 4, 6, 8": a field's key, then its rule)
        listed = _LISTED.search(self._spelled_as_digits()) if "width" in self.s.text.lower() \
            else None
        if not listed and bare:
            listed = bare  # "### Allowed widths" over "1, 2, 4, 8 and 16 GPUs."
        if not listed and re.search(r"\bwidths?\b", self.table_header, re.I):
            self._width_cells()
        if listed:
            base = self.s.start + listed.start(1)
            numbers = list(re.finditer(r"\d+", listed.group(1)))
            for m in numbers:
                self.add("width", (int(m.group(0)),), base + m.start(), base + m.end(),
                         self.negated_before(base + m.start()), topic="width chain")
            values = [int(m.group(0)) for m in numbers]
            auto = AUTO.search(self.text(self.s.start, base))
            if auto and values and not EXPLICIT.search(self.text(self.s.start, base)):
                # "auto widths: 4, 2, 1": the widest the auto ladder walks
                widest = max(numbers, key=lambda m: int(m.group(0)))
                self.add("max-width", (int(widest.group(0)),), base + widest.start(),
                         base + widest.end(), self.negated_before(base + widest.start()),
                         topic="the auto ladder")
            if len(values) >= 3 and values == sorted(values, reverse=True) and re.search(
                    r"fallback|chain|order|sequence|ladder|from|tried|walked|\bthen\b|→|->",
                    listed.group(0), re.I):
                # "fallback widths (from 8x): 8, 4, 1" lists the steps in order
                for a, b in itertools.pairwise(numbers):
                    ta, tb = ("width", int(a.group(0))), ("width", int(b.group(0)))
                    self.add("skip", (ta, tb), base + a.start(), base + b.end(),
                             topic="width chain")
        if (intent_walks or re.search(r"\bwidths?\b|\bgpus?\b|\bladder\b|\bchain\b|\bdegrad\w*|"
                                      r"(?<![\w.])\d{1,2}\s*[x×](?!\w)",
                                      self.s.text, re.I)) and not listed:
            # "8x ladder: 8 -> 2 -> 1", "eval-70b walks 8 → 4 → 2 → 1"
            # (a number with a unit is a length: "width 1 → 3 h")
            numbers = list(re.finditer(r"(?<![\w.])(\d{1,2})(?![\w×x]|\.\d|\s*(?:h|hrs?|hours?|"
                                       r"min\w*|days?|d|wks?|weeks?|gpu-?h\w*|%)(?!\w))",
                                       self.s.text, re.I))
            last = None
            for a, b in itertools.pairwise(numbers):
                gap = self.s.text[a.end():b.start()]
                if re.fullmatch(r"\s*(?:→|->|=>|,\s*then|then)\s*", gap):
                    ta = ("width", int(a.group(1)))
                    tb = ("width", int(b.group(1)))
                    start, end = self.s.start + a.start(), self.s.start + b.end()
                    # "(8 → 2 does not happen)" denies the step it draws
                    denied = bool(CHAIN_DENIED.match(self.s.text, b.end()))
                    if not denied:
                        self.add("order", (ta, tb), start, end, topic="width chain")
                    self.add("skip", (ta, tb), start, end, denied, topic="width chain")
                    last = b
                    for t, at in ((ta, a), (tb, b)):
                        if t[1] not in self.facts.widths:
                            self.add("width", (t[1],), self.s.start + at.start(),
                                     self.s.start + at.end(), topic="width chain")
            intents = {t.value for t in self.kinds("intent")}
            if last is not None and len(intents) == 1 and \
                    self.kinds("intent")[0].start < self.s.start + numbers[0].start() and \
                    _INTENT_CHAIN_OWNER.search(
                    self.text(self.s.start, self.s.start + numbers[0].start())):
                # "The eval-70b ladder is 8 → 4 → 2 → 1": that intent reaches the last
                at = self.s.start + last.start()
                self.add("reach", (intents.pop(), int(last.group(1))), at, at + len(last.group(1)),
                         self.negated_before(at), topic="minimum width")
        gpu_topic = re.search(r"\bgpus?\b|\bwidths?\b|\brungs?\b|\bnodes?\b|\bmachines?\b|"
                              r"\bbox(?:es)?\b|\bvms?\b|\bgcp\b|\bdegrad|\bshard|\bnarrow|"
                              r"\bwide\b|\bladder\b|\brequest|\bretr(?:y|ies|ied)\b|\brouter\b|"
                              r"\bdispatch|\bchain\b|\bmiss|\bask(?:s|ed|ing)?\s+for\b",
                              f"{self.s.text} {self.heading}",
                              re.I)
        tried = {(p.start, p.end) for p in self.props if p.kind == "tried"}
        for t in self.terms:
            w = self._term_width(t)
            if (t.start, t.end) in tried:
                continue  # "the 8× rungs are not on the ladder" says so itself
            if gpu_topic is None and t.term[0] == "width":
                break  # "we tried 8×, 12×, 20×" compression ratios: nothing says GPUs
            if w is not None and w not in self.facts.widths and (
                    t.term[0] != "width" or
                    re.search(r"[×x]|[- ]way\b|[- ]wide\b|\bwidth\b", self.text(t.start, t.end),
                              re.I)) and \
                    not re.match(r"\s+(?:axis|axes|shards?|splits?|sweeps?|grids?|fan[- ]?outs?|"
                                 r"data|tensor|pipeline|parallel\w*)\b",
                                 self.unit_text[t.end:t.end + 20], re.I):
                # "a 600-way axis" sizes the work, not a GPU width
                # ("a width of 6 is invalid", "6× isn't a width we have" deny it after it)
                self.add("width", (w,), t.start, t.end, self.negated_before(t.start) or bool(
                    _DENIED_AFTER.match(self.unit_text, t.end)), topic="width chain")

    # -- 8× in the auto ladder -------------------------------------------------------------------

    def read_auto(self) -> None:
        widths = [t for t in self.terms if self._term_width(t) is not None]
        if not widths:
            wide = re.search(r"\b(?:the\s+)?wid(?:e|est)\s+(?:gcp\s+)?(?:rungs?|machines?|boxes|"
                             r"widths?)\b", self.s.text, re.I)
            if not wide:
                return
            at = self.s.start + wide.start()
            widths = [TermTok(("width", self.facts.widest), at, self.s.start + wide.end())]
        text = self.s.text
        auto = AUTO.search(text)
        if auto and not self.s.context and not re.search(r"\bauto(?:matic)?[- ]?(?:ladder|walk)\b",
                                                          auto.group(0), re.I):
            auto = None  # "code will automatically switch to gradient accumulation"
        explicit = EXPLICIT.search(text)
        if not (auto or re.search(r"\brungs?\b|\bmachines?\b|\bbox(?:es)?\b|\bwidths?\b|"
                                  r"\b(?:from|by)\s+the\s+router\b|"
                                  r"\bshapes?\b|\bladder\b", text + " " + self.heading, re.I) or
                (explicit and self.s.context and  # not "by hand", "manually"
                 re.search(r"explicit|reserved|opt|\bsets?\b", explicit.group(0), re.I))):
            return
        explicit = explicit or (auto and re.search(
            r"\b(?:never|(?:does\s+not|doesn['’]t|will\s+not|won['’]t)(?:\s+ever)?)\s+"
            r"(?:reach(?:es|ed)?|tr(?:y|ies|ied)|uses?|used|walks?|walked|picks?|picked|"
            r"selects?|selected|chooses?|chose)\b|\bskips?\b|\boutside\b", text, re.I))
        if not (explicit or auto):
            return
        top = re.search(r"\b(?:tops?\s+out|maxes\s+out|caps?\s+out|caps|(?:is\s+)?capped|stops?|"
                        r"peaks?|starts?|begins?)\s+at\b|\b(?:is\s+)?limited\s+to\b|"
                        r"\b(?:widest|largest|maximum|max)\s+(?:width\s+|rung\s+|shape\s+|"
                        r"machines?\s+)?(?:is|of)\b|"
                        # "the auto ladder goes up to 4×", "auto: max width: 4"
                        r"\b(?:goes|reaches|climbs|runs)\s+up\s+to\b|"
                        r"\b(?:max|maximum)[\s_-]*(?:width|rung|gpus?)?\s*[:=]|"
                        r"\bonly\s+(?:the\s+)?(?=\S*\s*(?:\d|\*))", text, re.I)
        if top and auto:
            after = [w for w in widths if w.start >= self.s.start + top.start()]
            if after:
                w = after[0]
                self.add("max-width", (self._term_width(w),), w.start, w.end,
                         self.negated_before(w.start), topic="the auto ladder")
                return
        w = widths[0]
        width = self._term_width(w)
        if explicit:
            at = self.s.start + explicit.start()
            # "…aren't in the default walk, the router only hits them if you pin 8":
            # only a negation in the explicit cue's own comma clause denies it
            comma = max(self.text(self.s.start, at).rfind(","), -1)
            since = self.s.start + comma + 1 if comma >= 0 else None
            # "… first without anyone having to opt in": no opt-in is needed
            needless = _NO_NEED.search(self.text(self.s.start, at)) or \
                _OPT_IN_NONE.match(self.s.text, explicit.start())
            self.add("in-auto", (width,), w.start, w.end,
                     not (needless or self.negated_before(at, since=since)),
                     topic="the auto ladder")
        elif auto:
            verb = re.search(_AUTO_VERB, text, re.I)
            # ("leaves 8-GPU rungs out": the object may sit inside the verb)
            out = re.search(r"\b(?:exclud(?:ed|es?|ing)|outside|out\s+of|left\s+out|"
                            r"leaves?\s+(?:\S+\s+){0,3}?out\b|"
                            r"omit\w*|removed(?:\s+from)?|dropped\s+from|taken\s+out\s+of|"
                            r"pulled\s+from)\b", text, re.I)
            if out and re.match(r"\s+(?:nothing|none|no\b)", text[out.end():], re.I):
                out = None  # "the auto ladder excludes nothing": it includes every width
            if verb or out:
                # "the auto ladder never includes 8×": the negation sits before the verb;
                # "If you see 8× in an automatic run, …: the auto-ladder never includes
                # 8×": the mention and verb nearest before the width say it
                last = list(AUTO.finditer(text))[-1]
                w = next((t for t in widths if t.start >= self.s.start + last.end()), w)
                width = self._term_width(w)
                rel = w.start - self.s.start
                autos = [m for m in AUTO.finditer(text) if m.end() <= rel]
                verbs = [m for m in re.finditer(_AUTO_VERB, text, re.I) if m.end() <= rel]
                end = max(autos[-1].end() if autos else auto.end(),
                          verbs[-1].end() if verbs else (verb.end() if verb else 0))
                self.add("in-auto", (width,), w.start, w.end,
                         self.negated_before(self.s.start + end) or bool(out),
                         topic="the auto ladder")
