"""Order claims: chains, before/after, conditionals, "only after", positions,
preference, "between", first/last."""

from __future__ import annotations

import itertools
import re

from lint.lexicon import Token
from lint.propositions import Term
from lint.reading.base import ReaderBase
from lint.reading.cues import (
    ADJACENT,
    ARROW,
    CHAIN_DENIED,
    CLAUSE_JOINT,
    COND,
    FILLER,
    IN_ORDER,
    KEY_ORDER,
    REGARDLESS,
    STRONG_THEN,
    WIDTH_TOPIC,
)
from lint.reading.sentence import TermTok, family_of, orderable

# "Before an 8× eval, run a smoke test at 1×": a step to do first, not a rung order
_STEP_FIRST = re.compile(r"\W*(?:before|after)\b[^,;]{1,80},\s*(?:please\s+)?(?:run|rerun|do|check|"
                         r"make|try|launch|test|verify|ensure|start|open|ssh|build|install|set|"
                         r"export|write|read|commit|push|grab|get|submit|clear|warm|profile|"
                         r"benchmark|copy|upload|download|sync)\b", re.I)

# A clause whose subject is a pronoun: "…, and it is never tried ahead of …"
_PRONOUN_SUBJECT = re.compile(r"\W*(?:and\s+|but\s+|so\s+)?"
                              r"(?P<pronoun>it|they|this\s+one|that\s+one)\b", re.I)
# What makes a term a clause's subject: its own verb right after it.
_OWN_PREDICATE = re.compile(r"[\s*_`]*(?:lanes?|rungs?|cluster|pods?)?\s*(?:only|comes?|"
                            r"(?:is|are|have|has)(?!\s+(?:all\s+)?(?:exhausted|full|dry|out|busy|"
                            r"unavailable|sold|gone|taken|empty|missed|failed|been))|"
                            r"goes|go|gets?|sits?|follows?|runs?|takes?|waits?|stays?|must|should|"
                            r"will|can|may|never|isn[’']t|aren[’']t|doesn[’']t|does\s+not|"
                            r"won[’']t|can[’']t|cannot)\b", re.I)

# the verb of an inverted clause, between its object and its subject
_COMES = re.compile(r"[\s*_`]*(?:rungs?|lanes?|widths?|attempts?|boxes|machines|vms)?[\s*_`]*"
                    r"(?:(?:then|next)\s+)?(?:comes?|follows?)\s+(?:the\s+)?[\s*_`]*", re.I)
_OPENS_CLAUSE = re.compile(r"[\s*_`,]*(?:so|and|but|then|thus|hence)\b[\s,]*", re.I)
# every wording of _NOT_TRIED and _NEVER_USES holds one of these
_NOT_TRIED_CUE = re.compile(r"\bnever\b|\bnot\b|n[’']t\b|\bno\s+longer\b|\bskips\b", re.I)
_ONLY_BEFORE_CUE = re.compile(r"\bonly\s+$", re.I)
# "preferred over every other backend except the SLURM lanes": what follows an
# exception is outside the cue's objects
_EXCEPT = re.compile(r"\b(?:except|excluding|other\s+than|apart\s+from|aside\s+from|save\s+for|"
                     r"but\s+not)\b", re.I)
_EVERY = re.compile(r"\b(?:every|all(?:\s+of)?(?:\s+the|\s+its)?|each)\s+[`*_]*$", re.I)
_WALKS_LIST = re.compile(r"\b(?:walks|walked|steps\s+through|goes\s+through|works\s+through)"
                         r"(?:\s+(?:these|the\s+rungs|rungs))?\s*(?:in\s+order\s*)?:?\s*[`*_]*$",
                         re.I)
_BACK_POINTER = re.compile(r"\s*(?:both(?:\s+of\s+them)?|they(?:\s+both|\s+all)?|these|those|"
                           r"all\s+of\s+them|either|that|it)\s*(?:have|has)?\s*", re.I)
_BETWEEN_END = re.compile(r"[;:]|\s[—–]\s|,\s+(?:(?:and|but|so|yet)\s+(?:it|they|this|that|"
                          r"the\s+router)|which|because|since|while)\b", re.I)
_CLAUSE_STOP = re.compile(r"[:;]")
_CONDITIONED = re.compile(r"\b(?:unless|until|if|when|once|before|after|first|last|for|except|"
                          r"below|above|while|without|only|instead)\b", re.I)
# what scopes a width left off the walk to the requests it is left off for
_REQUEST_SCOPE = re.compile(r"\s+(?:on\s+(?:gcp|google\s+cloud)|for\s+(?:an?|any|every|the)\s+"
                            r"(?:[\w×-]+\s+){0,2}?(?:requests?|jobs?|dispatch(?:es)?)"
                            r"(?:\s+(?:that\s+)?(?:started|starts|starting|asked|asks|asking)\s+"
                            r"(?:at|for)\s+[\w×-]+(?:\s+gpus?)?)?)\b", re.I)
_CONSEQUENCE = re.compile(r",\s+(?:so|because|since|hence|thus)\b", re.I)


# "checks RunPod as soon as the widest GCP rung misses", "right after GCP's widest
# rungs miss", "a capacity miss on the 2× rungs is enough to send it to RunPod"
_RIGHT_AFTER = re.compile(r"\b(?:right|immediately|straight|directly)\s+after\b|"
                          r"\bas\s+soon\s+as\b|\bthe\s+moment\b", re.I)
_MISSES = re.compile(r"\b(?:miss(?:es|ed)?|fails?|failed|(?:is|are)\s+(?:full|busy|gone|dry|empty)|"
                     r"runs?\s+(?:out|dry)|comes?\s+(?:back\s+)?(?:empty|up\s+empty|"
                     r"back\s+with\s+nothing)|(?:is|are)\s+sold\s+out|stocks?\s+out)\b", re.I)
_MISS_ON = re.compile(r"\bmiss(?:es)?\s+(?:on|at)\s+(?P<what>[^,;.]{1,40}?)\s+(?:is\s+enough\s+to|"
                      r"will|sends?|moves?|pushes?|bumps?)\b", re.I)
# a verb of trying between "first" and what is tried
_TRYING_VERB = re.compile(r"\s*(?:tries|try|checks?|hits?|works?\s+through|walks?(?:\s+through)?|"
                          r"goes\s+(?:to|through)|sends?\s+(?:\w+\s+)?to|asks|looks\s+at|uses?|"
                          r"submits?\s+to|attempts?|queues?\s+on|lands?\s+on)\s+(?:the\s+|all\s+|"
                          r"both\s+|every\s+|its\s+)?(?:two\s+|three\s+)?(?:[\w-]+\s+)?", re.I)


# "after half an hour", "before 30 min", "after a few minutes": a time
# a cue that opens a clause with its own subject: "before they can be reimbursed"
_NEXT_IS = re.compile(r"\bnext\s+(?:try|step|stop|rung|attempt|width|choice)\s+(?:is|will\s+be)\b",
                      re.I)
_MISS_WORDS = re.compile(r"\bno\b|\bnot\s+(?:free|available)|\bfull\b|\bmiss|\bsold\s+out|"
                         r"\bout\s+of\s+capacity|\bunavailable\b", re.I)
# multipliers of something played: a fractional one ("1.5x") is never a GPU width
_PLAYBACK = re.compile(r"(?<![\w.])\d+\.\d+\s*[x×](?!\w)|\b(?:playback|scrub(?:bing|s)?|"
                       r"video|recording|watch(?:es|ing)?\s+(?:it|them|this|that|the\s+\w+)\s+at)\b",
                       re.I)
# a chain of multipliers the sentence says is something else than GPU widths
_NOT_WIDTHS = re.compile(r"[^.;:]{0,30}?\b(?:is|are|was|were)\s+(?:the\s+|a\s+|our\s+)?"
                         r"(?:[\w-]+\s+){0,3}?(?:multipliers?|factors?|batch[- ]sizes?|"
                         r"learning[- ]rates?|speeds?|zoom|scal(?:e|es|ing)|ratios?|"
                         r"speed-?ups?|replicas?|seeds?)\b", re.I)
_CUE_CLAUSE = re.compile(r"\s+(?:they|it|we|you|he|she|i|one|someone)\s+"
                         r"[a-z']+\b", re.I)
_TIME_AFTER = re.compile(r"\s+(?:(?:about|roughly|around|only|just)\s+)?(?:an?\s+|half\s+an?\s+|"
                         r"\d+(?:\.\d+)?\s*|a\s+few\s+|(?:one|two|three|five|ten|thirty)\s+)"
                         r"(?:hours?|h\b|hrs?|minutes?|mins?|seconds?|days?|weeks?)|"
                         # "campus-a100 after its 30 minutes, campus-preempt after its 120"
                         r"\s+(?:its|their|the)\s+(?:\w+\s+)?\d+(?:\.\d+)?\b(?!\s*[×x]|-?\s*gpu)",
                         re.I)
# "X and Y", "X, Y", "X or Y" as one group
_JOINED = re.compile(r"[\s`*_]*(?:,|and|or|&|/|plus)[\s`*_]*(?:the\s+)?[\s`*_]*", re.I)


# the order named by its kind: "families are tried family-major at each width"
# (as a verb's manner: "family-major order" alone is the name of one, as in a table)
FAMILY_MAJOR = re.compile(r"(?:\b(?:is|are|goes|go|tried|walked|walks?|runs?|ordered|"
                          r"sorted|works?|happens?)\s+(?:\w+\s+)?|[:=—–]\s*[*_`]*)"
                          r"family[- ](?:major|first)\b"
                          r"(?![- ]minor)", re.I)
# "at that width", "within a width", "per width": one width's rungs
WITHIN_WIDTH = re.compile(r"\b(?:at|within|inside|in|on)\s+(?:that|one|each|a|the\s+same|a\s+given|"
                          r"any)\s+width\b|\bper\s+width\b", re.I)
# "every A100 rung", "all of the H100 rungs", "one family at a time"
FAMILY_BLOCK = re.compile(r"\b(?:all|every|each)\s+(?:of\s+the\s+|the\s+)?(?:\S+\s+){0,2}?"
                          r"(?:rungs?|options?)\b|\bone\s+family\s+(?:at\s+a\s+time|completely|"
                          r"fully|entirely)\b|\b(?:exhausts?|finish(?:es)?|works?\s+through)\s+"
                          r"(?:one|each|a|the\s+first)\s+family\b|"
                          r"\bfamily\s+by\s+family\b|" + FAMILY_MAJOR.pattern, re.I)


def _model_rungs(a: Term, b: Term) -> bool:
    """Two rungs that each name a family and a model, and differ in the model."""
    return a[0] == b[0] == "rung" and bool(a[1][0] and a[1][2] and b[1][0] and b[1][2]) and \
        a[1][2] != b[1][2]


# a claim said of every request width: "whatever width was requested"
_ANY_REQUEST = re.compile(rf"\b{REGARDLESS}\s+"
                          r"(?:(?:the|which|what)\s+)?(?:width|size|gpu\s+count|number\s+of\s+gpus)"
                          r"(?:\s+(?:was|is|you|it|they|the\s+\w+))?(?:\s+(?:was\s+|were\s+)?"
                          r"(?:requested|asked(?:\s+for)?|ask(?:ed)?\s+for|wanted))?\b", re.I)

# between a backend and "first" in "… and both SLURM lanes come first"
_COME_FIRST = re.compile(r"[`*_)]*\s*(?:[\w-]+\s+)?(?:(?:comes?|go(?:es)?|are\s+tried|is\s+tried)"
                         r"\s*)?", re.I)

class OrderReading(ReaderBase):
    # -- order: chains --

    def read_chains(self) -> None:
        ts = [t for t in self.terms if orderable(t.term) or t.term[0] == "model"]
        # "slurm:campus-a100", "SLURM/campus-preempt": a lane written with its
        # backend as a prefix is the lane
        merged: list[TermTok] = []
        for t in ts:
            if t.term[0] == "lane" and merged and merged[-1].term[0] == "backend" and \
                    re.fullmatch(r"`?[:/]`?", self.text(merged[-1].end, t.start)):
                t = TermTok(t.term, merged.pop().start, t.end)
            merged.append(t)
        ts = merged
        gcp = self.facts.backends[0]
        # "then the SLURM lanes at 2 GPUs, then RunPod at 2 GPUs": a width after a lane
        # or a later backend is what that rung asks for, not a GCP rung of the chain
        ts = [t for i, t in enumerate(ts) if not (
            i and t.term[0] == "width" and ts[i - 1].term[0] in ("lane", "backend") and
            ts[i - 1].term != ("backend", gcp) and
            re.fullmatch(r"\s+(?:at|with|on|asking\s+for)\s+(?:a\s+)?",
                         self.text(ts[i - 1].end, t.start), re.I))]
        if len(ts) < 2:
            return
        groups = self._paren_groups()
        run: list[TermTok] = [ts[0]]
        strong = [False]
        # ("a short job walks a3 SPOT, a2 SPOT, a3 FLEX_START, …": a walk's list is
        # in the order walked)
        keyed = bool(KEY_ORDER.search(self.text(self.s.start, ts[0].start)) or
                     IN_ORDER.search(self.s.text) or (
                         len(ts) >= 3 and _WALKS_LIST.search(self.text(self.s.start,
                                                                       ts[0].start))))
        for t in ts[1:]:
            gap = self.text(run[-1].end, t.start)
            link = self._link(gap) if groups(run[-1].start) == groups(t.start) else None
            if link is None:
                self._emit_chain(run, strong, keyed)
                run, strong = [t], [False]
                keyed = bool(KEY_ORDER.search(self.text(self.s.start, t.start)) or
                             IN_ORDER.search(self.s.text))
                continue
            run.append(t)
            strong.append(link)
        self._emit_chain(run, strong, keyed)

    def _paren_groups(self):
        """A function from an offset to the bracketed aside it sits in (0: none):
        '(SLURM, width 1)' annotates the term before it and joins no chain."""
        spans = [(self.s.start + m.start(), self.s.start + m.end())
                 for m in re.finditer(r"\([^()]*\)", self.s.text)]

        def group(offset: int) -> int:
            return next((i + 1 for i, (a, b) in enumerate(spans) if a <= offset < b), 0)

        return group

    def _link(self, gap: str) -> bool | None:
        """True: an explicit order link; False: a list separator; None: not linked."""
        # a closed aside annotates the term before it: "campus-preempt (partition
        # preempt), then campus-a100" links the two lanes
        gap = re.sub(r"\s*\([^()]*\)", "", gap)
        if re.search(r"\b(?:before|after|not|never|no|but|unless|except|instead|rather|beside|"
                     r"besides|alongside|plus|vs|versus|than|while|whereas|because|for|when|"
                     r"if|with)\b|n't|[.;!?]|\s\|\s", gap, re.I):
            return None
        has_then = bool(STRONG_THEN.search(gap)) or bool(
            re.fullmatch(r"\s+to\s+|\s+(?:\w+\s+){0,3}to\s+", gap) and
            re.search(r"\b(?:narrow|degrade|drop|fall|send|move|step|shrink|retr)", self.s.text,
                      re.I))
        if FILLER.sub("", gap).strip():
            return None
        if has_then:
            return True
        return False if re.search(r"[,/]|\band\b|\bor\b", gap) else None

    def _emit_chain(self, run: list[TermTok], strong: list[bool], keyed: bool) -> None:
        if not keyed and len(run) >= 3 and all(t.term[0] == "width" for t in run) and \
                WIDTH_TOPIC.search(self.s.text):
            keyed = True  # "the width goes 1×, 2×, 4×, 8×" lists the steps in order
        keyed = keyed and not any(strong)
        if len(run) < 2 or not (any(strong) or keyed):
            return
        if not self.s.context and not (
                ARROW.search(self.text(run[0].start, run[-1].end)) and
                all(t.term[0] in ("backend", "lane") for t in run)):
            return
        if all(t.term[0] == "width" for t in run) and not self._own_width_context() and \
                not all(re.search(r"gpu|box|node|machine|shape|\dg\b", self.text(t.start, t.end),
                                  re.I) or (
                    i > 0 and re.fullmatch(r"\w+", self.text(t.start, t.end)))
                        for i, t in enumerate(run)):
            # "speed 1x -> 2x -> 4x" under a routing heading is still a video player;
            # "eight GPUs, then six GPUs" is about GPUs whatever the sentence says
            return
        if all(t.term[0] == "width" for t in run) and _PLAYBACK.search(self.unit_text) and \
                not any(re.search(r"gpu|box|node|machine|\dg\b", self.text(t.start, t.end), re.I)
                        for t in run):
            return  # "watch it at 1.5x, then 2x … Scrubbing at 4x → 8x": playback speeds
        if sum(t.term[0] == "width" for t in run) >= 2 and _NOT_WIDTHS.match(
                self.unit_text, run[-1].end, self.s.end):
            return  # "the 4x → 2x → 1x column is the batch-size multiplier we swept"
        if self.procedural:
            return
        models = [t for t in run if t.term[0] == "model"]
        if models and len(models) == len(run):
            return self._emit_model_chain(run)
        items = [t for t in run if orderable(t.term)]
        # "there are no 8× → 2× jumps", "never GCP → RunPod": a negated chain denies
        # the steps it names, and claims no order of its own
        negated = self.negated_before(run[0].start) or bool(
            CHAIN_DENIED.match(self.unit_text, run[-1].end))  # "8× → 2× never happens"
        if not negated:
            for t in items:
                if t.term[0] == "rung" and t.term[1][0] and t.term[1][2]:
                    # "a2 flex → a3 flex → a2 od → a3 od": a walk through a rung says
                    # the family offers its model
                    self.add("permits", (t.term[1][0], t.term[1][2]), t.start, t.end,
                             topic="provisioning")
        for i in range(1, len(items)):
            a, b = items[i - 1], items[i]
            if a.term == b.term:
                continue
            if not negated and _model_rungs(a.term, b.term):
                # "a2 SPOT → a2 STANDARD → a3 SPOT": the rungs of one width, in the
                # order of the job's length class (or of both, when none is named)
                kind = self.length_class(a.start) or (self.previous_class if self.continues
                                                      else None)
                self.add("rung-order", (kind, a.term, b.term), a.start, b.end,
                         topic="family order")
                continue
            if not negated:
                self.add("order", (a.term, b.term), a.start, b.end, topic="order")
            link_text = self.text(a.end, b.start)
            if re.fullmatch(r"\s*(?:gpus?\s+)?to\s+", link_text, re.I) and re.search(
                    r"\b(?:straight|directly|right)\s+from\s+$",
                    self.unit_text[max(self.s.start, a.start - 24):a.start], re.I):
                link_text = " straight to "  # "dropped straight from eight GPUs to one"
            if (ADJACENT.search(link_text) or (keyed and re.search(r",|\band\b", link_text))) and \
                    not re.search(r"down\s+to|on\s+capacity", link_text, re.I):
                self.add("skip", (a.term, b.term), a.start, b.end, negated, topic="order")

    def _emit_model_chain(self, run: list[TermTok]) -> None:
        kind = self.length_class(run[0].start) or (self.previous_class if self.continues
                                                   else None)
        models = tuple(t.term[1] for t in run)
        before = self.previous_model
        if kind and self.continues and before is not None and before.term[1] not in models and \
                run[0] is next(t for t in self.terms if t.term[0] == "model"):
            models = (before.term[1], *models)  # "…FLEX_START; after that SPOT, then …"
        if kind:
            self.add("class-order", (kind, models), run[0].start, run[-1].end,
                     topic="length-aware order")
        else:
            for a, b in itertools.pairwise(run):
                if a.term != b.term:
                    self.add("order", (a.term, b.term), a.start, b.end, topic="order")

    # -- order: what comes next on a miss --

    def read_next_on_miss(self) -> None:
        """'The router checks RunPod as soon as the widest GCP rung misses': the
        backend named comes straight after what missed."""
        if self.procedural or not self.s.context:
            return
        text = self.s.text
        window = None
        m = _RIGHT_AFTER.search(text)
        if m:
            miss = _MISSES.search(text, m.end(), min(len(text), m.end() + 70))
            if miss:
                window = (m.start(), m.end(), miss.start())
        if window is None:
            on = _MISS_ON.search(text)
            if on:
                window = (on.start(), on.start("what"), on.end("what"))
        if window is None:
            self._next_width_on_miss()
            return
        cue, lo, hi = (self.s.start + x for x in window)
        inside = [t for t in self.terms if lo <= t.start < hi and orderable(t.term)]
        if re.search(r"\bwidest\b", self.text(lo, hi), re.I):
            missed = TermTok(("width", self.facts.widest), lo, hi)
        else:
            missed = next((t for t in inside if t.term[0] == "width"), None) or \
                next((t for t in inside if t.term[0] == "backend"), None)
        nxt = [t for t in self.terms if (t.end <= cue or t.start >= hi) and
               t.term[0] in ("backend", "lane") and t.term != (missed.term if missed else None)]
        if missed is None or not nxt:
            return
        b = nxt[0]
        self.add("skip", (missed.term, b.term), min(missed.start, b.start),
                 max(missed.end, b.end), self.negated_before(b.start), topic="order")

    def _next_width_on_miss(self) -> None:
        """'If no 8-GPU machine is free, the router's next try is width 2': the
        width named next comes straight after the one that missed."""
        cond = COND.match(self.s.text)
        nxt = _NEXT_IS.search(self.s.text, cond.end()) if cond else None
        if nxt is None or not _MISS_WORDS.search(self.s.text, 0, cond.end()):
            return
        widths = [t for t in self.terms if t.term[0] == "width"]
        missed = next((t for t in widths if t.end <= self.s.start + cond.end()), None)
        after = next((t for t in widths if t.start >= self.s.start + nxt.end()), None)
        if missed is None or after is None or missed.term == after.term or \
                after.start - (self.s.start + nxt.end()) > 12:
            return
        self.add("skip", (missed.term, after.term), missed.start, after.end,
                 self.negated_before(after.start), topic="width chain")

    # -- order: before / after --

    def _inverted(self, cue: Token, ords: list[TermTok]) -> bool:
        """Whether the cue's clause is inverted, its subject after the verb:
        "after its 2x rungs come the SLURM lanes"."""
        later = [t for t in ords if t.start >= cue.end]
        return len(later) >= 2 and bool(_COMES.fullmatch(self.text(later[0].end, later[1].start)))

    def read_before_after(self) -> None:
        # "only after X does it reach Y" is read_only_after's
        cues = [t for t in self.tokens if t.kind in ("before", "after") and not (
            self.unit_text[t.start:t.end].lower() == "after" and
            _ONLY_BEFORE_CUE.search(self.unit_text[:t.start])) and not _TIME_AFTER.match(
            self.unit_text, t.end)]  # "gives up after half an hour": a time, not a rung
        self._between()
        if self.s.context and not self.procedural:
            self._prefer()
            self._fallback_for()
        if not cues or self.procedural or not self.s.context or _STEP_FIRST.match(self.s.text):
            return
        kind = self.length_class(cues[0].start)
        ords = [t for t in self.terms if orderable(t.term) or
                (kind and t.term[0] == "model")]
        # "the 1× GCP rungs": a width written on a backend qualifies it
        ords = [t for i, t in enumerate(ords) if not (
            t.term[0] == "width" and i + 1 < len(ords) and ords[i + 1].term[0] == "backend"
            and not self.text(t.end, ords[i + 1].start).strip())]
        if len(ords) < 2:
            return
        first_cue = cues[0]
        floor = self.clause_start(first_cue.start)
        subjects = [t for t in ords if floor <= t.start and t.end <= first_cue.start]
        inverted = not subjects and floor > self.s.start and \
            not self.text(floor, first_cue.start).strip(" *_`") and self._inverted(first_cue, ords)
        if not subjects and not inverted and \
                not _OPENS_CLAUSE.fullmatch(self.text(floor, first_cue.start)):
            # (", so after the 2× rungs miss it goes on to …" opens its clause with the
            # cue: what came before the joint is not its subject)
            subjects = [t for t in ords if t.end <= first_cue.start]
        # "The pods (A100 or H100 depending on the intent) are the final rung, after
        # GCP": a term in a closed aside qualifies the subject, it is not one
        subjects = [t for t in subjects if (aside := self.aside_of(t.start)) is None or
                    aside[1] > first_cue.start] or \
            subjects
        pronoun = _PRONOUN_SUBJECT.match(self.text(self.s.start, first_cue.start)) \
            if not subjects and self.previous_terms else None
        if pronoun:
            # "RunPod costs real money. It comes after the campus-a100 lane but ahead of
            # campus-preempt": "it" is the sentence before's first orderable name
            before = [t for t in self.previous_terms if orderable(t.term)]
            if before:
                # (placed on the pronoun, which a finding's column then points at)
                subjects = [TermTok(before[0].term, self.s.start + pronoun.start("pronoun"),
                                    self.s.start + pronoun.end("pronoun"))]
                floor = self.s.start
        if not subjects:
            # "Once GCP runs out, the paid cloud is preferred over the campus cluster":
            # a leading cue, then the cues after it read on their own
            self._leading_cue(first_cue, ords)
            cues = [c for c in cues[1:] if self.clause_start(c.start) > first_cue.start]
            if not cues:
                return
            first_cue = cues[0]
            floor = self.clause_start(first_cue.start)
            subjects = [t for t in ords if floor <= t.start and t.end <= first_cue.start]
            if not subjects:
                return
        subject = subjects[-1]
        if subject.start < floor and _PRONOUN_SUBJECT.match(self.text(floor, first_cue.start)):
            # "campus-preempt never takes more than 4 GPUs, and it is never tried
            # ahead of campus-a100": the pronoun is the term of the object's kind,
            # the first one named ("RunPod is not a fallback between GCP widths, and
            # it never jumps ahead of the lanes": the subject, not the one in between)
            after = next((t for t in ords if t.start >= first_cue.end), None)
            subject = next((t for t in subjects
                            if after is not None and t.term[0] == after.term[0]), subject)
        named: list[TermTok] = [subject]
        for i, cue in enumerate(cues):
            stop = cues[i + 1].start if i + 1 < len(cues) else self.s.end
            if i + 1 < len(cues):
                # "…before RunPod, and GCP comes before both": the next cue's clause
                # names its own subject, which is not an object of this cue
                next_floor = self.clause_start(cues[i + 1].start)
                if next_floor > cue.end and any(next_floor <= t.start < stop for t in ords):
                    stop = next_floor
            stop = self._own_clause_end(cue.end, stop, ords)
            if _CUE_CLAUSE.match(self.unit_text, cue.end):
                # "…need the project code before they can be reimbursed, while GCP
                # usage …": the cue opens a clause of its own, which ends at its comma
                comma = self.unit_text.find(",", cue.end, stop)
                stop = comma if comma >= 0 else stop
            objects = [t for t in ords if cue.end <= t.start < stop and
                       not _EXCEPT.search(self.text(cue.end, t.start))]
            if not objects and re.match(r"\W*(?:both|all\s+(?:of\s+them|three|two)|them\s+all)\b",
                                        self.s.text[cue.end - self.s.start:], re.I):
                objects = list(named)  # "GCP comes before both": the ones named before
            named += [t for t in objects if t.term not in {n.term for n in named}]
            if not objects:
                continue
            # "Never use RunPod first: it is the last rung, after GCP": with the
            # subject outside the cue's clause, only that clause's negation counts
            since = self.clause_start(subject.start) if subject.start >= floor else floor
            cue_floor = self.clause_start(cue.start)
            if i and cue_floor > max(floor, subject.end):
                # "Never put SLURM ahead of GCP: the cluster is reached only once
                # GCP has missed": a later cue in its own clause has its own
                # subject (if it names one) and its own polarity
                subject = next((t for t in reversed(ords)
                                if cue_floor <= t.start and t.end <= cue.start), subject)
                since = cue_floor
            negated = self.negated_before(cue.start, since=since)
            if negated and _EVERY.search(self.unit_text, max(self.s.start, subject.start - 16),
                                         subject.start):
                # "doesn't try every A100 rung before any H100 rung": denies that all of
                # one come first, not that one comes before the other
                continue
            # "…the 1× rungs next, and only after those the campus lanes": the cue
            # and its pronoun come first, so what follows is on the cue's far side
            pronoun = re.match(r"\s*(?:those|these|that|this|them|it)\b[\s,]*"
                               r"(?:(?:then|come|comes)\s+|"
                               r"the\s+(?:router|dispatch(?:er)?|job|request|walk)\s+"
                               r"(?:is\s+|will\s+)?\w+\s+(?:(?:on|to|at)\s+)?)?",
                               self.s.text[cue.end - self.s.start:], re.I)
            fronted = bool(pronoun) and self.clause_start(cue.start) > subject.end and \
                objects[0].start <= cue.end + pronoun.end()
            tight = re.search(r"\b(?:right|immediately|directly|straight|just)\s*$",
                              self.unit_text[max(self.s.start, cue.start - 14):cue.start], re.I)
            for obj in objects:
                if obj.term == subject.term:
                    continue
                if subject.term[0] == obj.term[0] == "width" and FILLER.sub(
                        "", self.text(cue.end, objects[0].start)).strip():
                    # "oversamples 2× before the nonlinearity and 4× for …": the cue's
                    # object is something else; the widths are not ordered
                    break
                a, b = (subject, obj) if (cue.kind == "before") != fronted else (obj, subject)
                self._order(a.term, b.term, subject.start, obj.end, negated, kind)
                if tight and a.term[0] == b.term[0] == "model" and kind:
                    # "for long jobs, spot comes right after flex-start"
                    self.add("class-next", (kind, a.term[1], b.term[1]), subject.start,
                             obj.end, negated, topic="length-aware order")
                elif tight and (a.term[0] == b.term[0] or (
                        a.term[0] == "lane" and b.term[0] == "backend")):
                    # ("RunPod right after campus-a100" skips the lanes after it)
                    self.add("skip", (a.term, b.term), subject.start, obj.end, negated,
                             topic="order")

    _EXHAUSTED = (r"miss(?:es|ed)?|(?:is|are)\s+(?:exhausted|dry|full|out|busy|unavailable|"
                  r"sold\s+out|gone|taken|saturated|at\s+capacity|stocked\s+out)|"
                  r"(?:is|are)(?:\s+not|n[’']t)\s+(?:there|available|free|in\s+stock)|"
                  r"(?:has|have)\s+no\s+(?:[\w×-]+\s+)?(?:capacity|room|gpus|pods|slots|machines|"
                  r"nodes?)|waited\b[^,;:]{0,30}?\b(?:with\s+no|without)\s+(?:a\s+)?(?:free\s+)?"
                  r"(?:nodes?|slots?|gpus?|capacity|allocation|start)|"
                  r"(?:has|have)\s+nothing|comes?\s+up\s+(?:empty|dry)|"
                  r"(?:doesn['’]t|does\s+not|don['’]t|do\s+not)\s+have\s+(?:\w+\s+)?(?:capacity|"
                  r"room|gpus|machines)|"
                  r"(?:fails?|runs?\s+out|ran\s+out)|(?:is|are)\s+out\s+of\s+capacity|stock\s*out|"
                  r"(?:has|have)\s+(?:declined|refused|rejected)|declines?|times?\s+out|"
                  r"timed\s+out")

    # "A 4× request that misses never tries 2×": the miss in a relative clause
    _RELATIVE_MISS = re.compile(
        r"\W*(?:an?|the|every|each|any)\s+[^,;:.]{0,40}?\b(?:request|job|phase|run)s?\s+"
        r"(?:that|which)\s+(?:miss(?:es|ed)?|(?:can't|cannot|doesn't|does\s+not)\s+(?:get|find)"
        r"\s+(?:capacity|gpus|a\s+machine))\b(?:\s+(?:at|on)\s+[^\s,;:.]+(?:\s+[^\s,;:.]+)?)?",
        re.I)

    def read_conditional(self) -> None:
        """'If GCP has no capacity, go to RunPod' and 'RunPod is the fallback
        when GCP is out of capacity': B is what comes right after A."""
        if self.procedural:
            return
        # "For `lora-7b`, once the 2× rungs miss the router moves on to …": a scope
        # may open the sentence, and the main clause may follow without a comma
        # ("TL;DR: if GCP has nothing, …": a short label may open it, or two: "A: It
        # shouldn't happen: when 4x has no capacity …")
        lead = re.match(rf"\W*(?:[A-Za-z][\w;.'’ -]{{0,23}}:\s+){{0,2}}"
                        rf"(?:for\s+[^,;:]{{1,40}},\s*)?"
                        rf"(?:if|when|whenever|once|after|"
                        rf"as\s+soon\s+as)\b([^,;:]*?)\b(?:{self._EXHAUSTED})\b(?:[^,;:]*[,;:]|"
                        rf"(?=\s+(?:the\s+(?:router|dispatch\w*|walk|request|job)|it|we|"
                        rf"dispatch)\s+(?:moves?|goes|go|falls?|drops?|jumps?|heads?|"
                        rf"sends?|tries|is\s+sent|takes|grabs|picks|uses|switches)\b))",
                        self.s.text, re.I) or \
            self._RELATIVE_MISS.match(self.s.text)
        if lead:
            cut = self.s.start + lead.end()
            cond = [t for t in self.terms if orderable(t.term) and t.start < cut]
            if not cond and lead.re.groups and lead.group(1) and \
                    _BACK_POINTER.fullmatch(lead.group(1)):
                # "… tries the 8-GPU and the 4-GPU shapes; if both miss, it moves on to
                # the campus cluster": what missed is what the sentence before named last
                # (the shapes it tried, not the backend they are on)
                before = [t for t in self.previous_terms if orderable(t.term)]
                cond = ([t for t in before if t.term[0] in ("width", "family", "rung")] or
                        before)[-1:]
            main = [t for t in self.terms if orderable(t.term) and t.start >= cut]
            rest = self.text(cut, self.s.end)
        else:
            # "once GCP has missed and campus is full": every condition joined on
            tail = re.search(rf"\b(?:if|when|whenever|once|as\s+soon\s+as)\b([^,;:]*?)\b"
                             rf"(?:{self._EXHAUSTED})\b(?:,?\s+(?:and|or)\s+[^,;:]*?\b"
                             rf"(?:{self._EXHAUSTED})\b)*", self.s.text, re.I)
            if not tail or tail.start() == 0 or re.search(r"\bonly\s*$",
                                                          self.s.text[:tail.start()], re.I):
                return
            cut = self.s.start + tail.start()
            main = [t for t in self.terms if orderable(t.term) and t.start < cut]
            if main and main[-1].term[0] == "width" and re.search(
                    r"\d+\s*[×x]?\s*(?:,\s*|,?\s*or\s+)$", self.text(self.s.start, main[-1].start)):
                return  # "may land on 4, 2 or 1 GPUs when 8× misses": where it may end up
            main = main[:1]
            cond = [t for t in self.terms if orderable(t.term) and
                    cut <= t.start < self.s.start + tail.end()]
            rest = self.text(self.s.start, cut)
        if not cond or not main:
            return
        if re.search(r"\b(?:also|too|as\s+well|still|eventually|finally|later)\b", rest, re.I):
            return
        a, b = cond[-1], main[0]
        if lead:
            # "…, an 8-GPU request goes straight to a2-ultragpu-1g": the destination
            # is what follows the verb of moving, not the request's own width
            dest = re.search(r"\b(?:goes|go|falls?|drops?|moves?|jumps?|steps?|retries|"
                             r"tries|lands?|degrades?|takes|grabs|picks|uses|switches)\b"
                             r"(?:(?:\s+[\w×]+){0,3}?\s+(?:to|on|at)\b)?",
                             rest, re.I)
            after = [t for t in main if dest and t.start >= cut + dest.end()]
            if after:
                b = after[0]
        # (a main clause before its condition, "Don't expect RunPod … when GCP misses",
        # is negated from its own start; one after it, from the condition's end)
        negated = self.negated_before(b.start) if b.start < cut else \
            self.negated_before(b.start, since=cut)
        # "when 8× misses, it never goes straight to 1×" denies the step, not the order
        # ("don't expect RunPod as a fallback when GCP misses" denies that it comes
        # next, not that it comes after)
        tight = negated and (b.start < cut or re.search(
            r"\b(?:straight|directly|immediately)\b", self.text(min(b.start, cut), b.start),
            re.I))
        wa, wb = self._term_width(a), self._term_width(b)
        if {a.term[0], b.term[0]} & {"family", "rung"} and wa and wb and wa != wb and \
                {a.term[0], b.term[0]} <= {"width", "family", "rung"}:
            # machine types name their widths: the width chain is what is claimed
            ta, tb = ("width", wa), ("width", wb)
            if not tight:
                self.add("order", (ta, tb), b.start, b.end, negated, topic="width chain")
            self.add("skip", (ta, tb), b.start, b.end, negated, topic="width chain")
            return
        if a.term[0] == b.term[0] == "width" and a.term != b.term:
            if not tight:
                self.add("order", (a.term, b.term), b.start, b.end, negated, topic="width chain")
            self.add("skip", (a.term, b.term), b.start, b.end, negated, topic="width chain")
        if {a.term[0], b.term[0]} <= {"backend", "lane", "width", "family"} and \
                b.term[0] not in ("width", "family") and a.term != b.term:
            if not tight:
                self.add("order", (a.term, b.term), b.start, b.end, negated, topic="order")
            # "as soon as the 1× rungs miss, RunPod": GCP straight to RunPod
            stage = ("backend", "gcp") if a.term[0] in ("width", "family") else a.term
            if stage[0] == b.term[0] == "backend" and stage != b.term:
                self.add("skip", (stage, b.term), b.start, b.end, negated, topic="order")
            if a.term[0] in ("width", "lane") and b.term[0] in ("backend", "lane"):
                # "once the 4× rungs have missed, dispatch drops to SLURM": 2× and 1×
                # skipped; "when campus-a100 misses, the router goes to RunPod" skips
                # the lanes after it
                self.add("skip", (a.term, b.term), b.start, b.end, negated, topic="order")

    def read_only_after(self) -> None:
        """'RunPod only after GCP is exhausted': everything before it is named."""
        m = re.search(r"\b(?:only\s+(?:(?!and\b|but\b|then\b)\w+\s+){0,2}?(?:after\b|"
                      r"(?:when|once|if)\b(?=[^.;]*(?:\b(?:exhausted|"
                      r"miss|misses|missed|dry|fail|fails|failed|full|busy|unavailable|empty|gone|"
                      r"taken|saturated|out\s+of\s+capacity|run\s+out|none|nothing|declined|"
                      r"refused|rejected|turned\s+(?:it\s+)?down|timed\s+out)\b|"
                      r"\bno\s+\w+|n't|\bnot\s+(?:free|available))))|"
                      # "campus-a100 is not tried until campus-preempt has waited": the
                      # same as "only after"
                      r"(?:(?:is|are)\s+(?:not|never)|isn[’']t|aren[’']t)\s+(?:even\s+)?"
                      r"(?:tried|used|touched|reached|considered|attempted|queried)\s+until\b)",
                      self.s.text, re.I)
        if not m or self.procedural or not self.s.context:
            return
        at = self.s.start + m.start()
        if re.match(r"\W*(?:that|this|those|these|then)\b"
                    r"(?!\s+(?:lane|backend|family|partition)\b)", self.s.text[m.end():], re.I):
            # "…, then RunPod, and only after that campus-a100": what follows comes after
            before = [t for t in self.terms if orderable(t.term) and t.end <= at]
            after = [t for t in self.terms if orderable(t.term) and t.start > at]
            if before and after and before[-1].term != after[0].term:
                self.add("order", (before[-1].term, after[0].term), after[0].start,
                         after[0].end, self.negated_before(at), topic="order")
            return
        backends = [t for t in self.terms if t.term[0] == "backend" and t.end <= at]
        lanes = [t for t in self.terms if t.term[0] == "lane" and t.end <= at]
        reached = next((t for t in self.terms if t.term[0] in ("backend", "lane") and
                        at < t.start and t.end <= self.s.start + m.end()), None)
        if reached is not None:
            # "the router only reaches RunPod once both lanes have missed": what the
            # verb reaches is the subject, whatever the clause before named
            backends, lanes = ([reached], []) if reached.term[0] == "backend" else ([], [reached])
            at = self.s.start + m.end()
        subjects = backends
        if not subjects and lanes:
            # "| SLURM (campus-a100, campus-preempt) | only after RunPod … |": the
            # lanes stand for their backend
            subjects = [TermTok(("backend", "slurm"), lanes[0].start, lanes[-1].end)]
        cell_end = self.s.text.find(" | ", at - self.s.start)
        stop = self.s.start + cell_end if cell_end >= 0 else self.s.end
        # "…, and RunPod only after that": the next clause has its own subject
        stop = self._own_clause_end(self.s.start + m.end(), stop,
                                    [t for t in self.terms if orderable(t.term)])
        inverted = re.search(r"\b(?:does|do|did|will|would|should|is|are|may|can)\s+"
                             r"(?:it|they|we|the\s+(?:job|router|dispatch|walk)|dispatch)\b",
                             self.s.text[m.end():stop - self.s.start], re.I)
        if inverted:
            # "only when both lanes are full does it go to the paid cloud": the
            # subject follows the inversion, and the condition names what precedes it
            aux = self.s.start + m.end() + inverted.start()
            subjects = [t for t in self.terms if t.term[0] == "backend" and t.start > aux][:1]
            lane = next((t for t in self.terms if t.term[0] == "lane" and t.start > aux), None)
            if lane is not None and (not subjects or lane.start < subjects[0].start):
                # "only if RunPod has nothing does the job queue on campus-a100": a
                # lane stands for its backend
                subjects = [TermTok(("backend", "slurm"), lane.start, lane.end)]
            stop = aux
        named = [t for t in self.terms if orderable(t.term) and at < t.start < stop]
        if not subjects or not named:
            return
        if lanes and all(t.term[0] == "lane" for t in named) and \
                (not backends or lanes[-1].start > backends[-1].start):
            # ("On the campus cluster, campus-a100 … only after …": the lane nearest
            # the cue is its subject)
            # "| campus-a100 | only after campus-preempt misses |": lane after lane
            for t in named:
                if t.term != lanes[-1].term:
                    self.add("order", (t.term, lanes[-1].term), lanes[-1].start,
                             lanes[-1].end, self.negated_before(at), topic="order")
            return
        x = subjects[-1]
        stages = {"gcp" if t.term[0] in ("width", "family", "rung") else
                  "slurm" if t.term[0] == "lane" else t.term[1] for t in named} - {x.term[1]}
        if not stages:
            return
        if re.search(r"\bevery(?:thing)?\s+else\b|\ball\s+(?:other|else)\b", self.s.text, re.I):
            return
        negated = self.negated_before(at)
        self.add("preceded-by", (x.term[1], tuple(sorted(stages))), x.start, x.end, negated,
                 topic="order")
        for stage in sorted(stages):
            self.add("order", (("backend", stage), x.term), x.start, x.end, negated,
                     topic="order")

    # "campus-preempt is never on the ladder", "RunPod is not used at all"
    _NOT_TRIED = re.compile(
        r"[\s`*_]*(?:lanes?|rungs?|partition|cluster|backend)?[\s`*_]*(?:(?:is|are)\s+"
        r"(?:never|not|no\s+longer)|(?:isn|aren)[’']t)\s+(?:(?:ever|even|actually)\s+)?(?:tried|used|"
        r"(?:on|in|part\s+of)\s+the\s+(?:auto(?:matic)?[\s-]|default\s+)?(?:ladder|walk|"
        r"fallback\s+chain)|an?\s+(?:gcp\s+)?rung)"
        r"\b(?:\s+at\s+all|\s+anymore|\s+any\s+more|\s+automatically|\s+by\s+default)?"
        r"\s*(?:[.;,:—–]|$)", re.I)
    # "the router never uses campus-preempt", "the ladder skips campus-preempt entirely"
    _NEVER_USES = re.compile(
        r"(?:the\s+)?(?:router|ladder|dispatch|walk)\s+(?:never|doesn't|does\s+not|won't|"
        r"will\s+not)\s+(?:uses?|tries|try|touch(?:es)?|reach(?:es)?|"
        # "the router never falls through to paid cloud"
        r"falls?\s+(?:through|back)\s+to|goes?\s+(?:on\s+)?to|gets?\s+to|moves?\s+on\s+to|"
        r"spills?\s+(?:over\s+)?(?:in)?to)\s+(?:the\s+)?[\s`*_]*$|"
        r"(?:the\s+)?(?:router|ladder|dispatch|walk)\s+(?:always\s+)?skips\s+(?:the\s+)?"
        r"[\s`*_]*$", re.I)

    def read_never_tried(self) -> None:
        """A rung the text takes off the ladder altogether. Conditions, orders
        and intents make it a different claim, read elsewhere or not at all."""
        if not self.s.context or self.procedural or not _NOT_TRIED_CUE.search(self.s.text):
            return  # (both shapes need one of these words)
        if any(t.kind in ("intent", "model", "length") for t in self.tokens):
            return
        ords = [t for t in self.terms if orderable(t.term)]
        for t in ords:
            clause_end = _CLAUSE_STOP.search(self.s.text, t.end - self.s.start)
            clause = self.text(self.clause_start(t.start),
                               self.s.start + clause_end.start() if clause_end else self.s.end)
            rest = self.text(t.end, self.s.end)
            if t.term[0] == "width":
                # "A single GPU is never tried on GCP for a request that started at
                # eight": a width left out of every wide request's walk
                clause, rest = _REQUEST_SCOPE.sub("", clause), _REQUEST_SCOPE.sub("", rest)
            if _CONDITIONED.search(clause):
                continue  # "never tried unless GCP misses", "never first": another claim
            after = self._NOT_TRIED.match(rest)
            before = self._NEVER_USES.search(self.text(self.clause_start(t.start), t.start))
            # "the router never uses campus-preempt (at all)": nothing after the term
            alone = before and re.match(r"[\s`*_]*(?:lanes?|rungs?)?\s*(?:entirely|altogether|"
                                        r"completely|at\s+all|anymore|any\s+more)?\s*[.;,]?\s*$",
                                        self.text(t.end, self.s.end), re.I)
            if t.term[0] == "width" and not after:
                continue  # "the ladder skips 2×" is the width reader's
            if after or alone:
                self.add("tried", (t.term,), t.start, t.end, True, topic="order")

    # "fires at GCP and SLURM in parallel", "picks whichever looks faster",
    # "by current queue depth": an order decided at run time, which the ladder's is not
    _DYNAMIC = re.compile(
        r"\b(?:in\s+parallel|simultaneously|concurrently|at\s+the\s+same\s+time|"
        r"whichever\s+(?:\w+\s+){0,2}?(?:faster|quicker|shorter|cheaper|sooner|first|free|"
        r"less\s+busy|emptier)|"
        r"(?:picks?|chooses?|decides?|selects?)\s+(?:between|among)\b|"
        r"by\s+(?:the\s+)?(?:current\s+|live\s+)?(?:queue\s+(?:depth|length)|wait\s+time|load|"
        r"price)|(?:picks?|chooses?)\s+the\s+(?:quicker|faster|cheaper|shorter|less\s+busy)\b)",
        re.I)

    def read_dynamic(self) -> None:
        """'The router picks between campus-a100 and campus-preempt by queue depth':
        the text makes the order a run-time choice; the ladder fixes it."""
        if not self.s.context or self.procedural:
            return
        m = self._DYNAMIC.search(self.s.text)
        if not m:
            return
        if re.match(r"in\s|sim|conc|at\s", m.group(0), re.I) and not re.search(
                r"\b(?:tr(?:y|ies|ied)|fires?|submits?|sends?|quer(?:y|ies)|races?|"
                r"polls?|ask(?:s|ed)?|requests?|requested)\b[^,;:.]*$", self.s.text[:m.start()],
                re.I):
            # "GCP and SLURM jobs can run at the same time": two jobs, not one walk;
            # "every backend is checked before the first attempt, concurrently": a check
            return
        at = self.s.start + m.start()
        stages = [t for t in self.terms if t.term[0] in ("backend", "lane")]
        names = list(dict.fromkeys(t.term for t in stages))
        if len(names) < 2 or len({t[0] for t in names}) != 1:
            return
        self.add("dynamic", tuple(names), stages[0].start, stages[-1].end,
                 self.negated_before(at), topic="order")

    # "exhausts every A100 rung, at all widths, before it tries an H100", "H100 only
    # after the A100 family has been tried at every width": one family across all
    # widths before the other
    _ALL_WIDTHS = re.compile(
        r"\bexhaust\w*\b|\b(?:tried|walked|used|gone\s+through|covered)\s+(?:\w+\s+){0,2}?"
        r"(?:at|across|on)\s+(?:all|every)\s+(?:the\s+)?widths?\b|,?\s+at\s+all\s+widths\b|"
        r"\ball\s+(?:the\s+|of\s+the\s+)?\S+\s+rungs?\s+(?:come|go|are\s+tried|first)\b",
        re.I)

    def read_family_major(self) -> None:
        """One family walked at every width before another: the ladder tries every
        family at one width before it narrows."""
        if not self.s.context or self.procedural:
            return
        fams = [t for t in self.terms if t.term[0] in ("family", "rung")]
        names = list(dict.fromkeys(family_of(t.term) for t in fams))
        if len(names) != 2:
            return
        scope = self._ALL_WIDTHS.search(self.s.text)
        if scope is None or re.search(r"\b(?:first|before|ahead)\s*$",
                                      self.s.text[:scope.start()], re.I) or \
                re.search(r"\b(?:first|second|last)\b", scope.group(0), re.I):
            return  # "A100 is tried first at every width": per width, which is right
        at = self.s.start + scope.start()
        # the family the scope is written on is the one walked first
        first = min(fams, key=lambda t: abs(t.start - at))
        other = next(t for t in fams if family_of(t.term) != family_of(first.term))
        self.add("family-major", (family_of(first.term), family_of(other.term)),
                 min(first.start, other.start), max(first.end, other.end),
                 self.negated_before(at), topic="family order")

    # "tries spot at 8, 4, 2 and 1 GPUs before flex-start", "exhausts SPOT across every
    # width before FLEX_START": one provisioning model at every width before another
    _MODEL_ACROSS = re.compile(
        r"[\s`*_]*(?:rungs?|vms?|capacity|instances?)?\s*(?:\([^)]{0,30}\)\s*)?,?\s*"
        r"(?:(?:is|are|gets?|being)\s+)?(?:(?:tried|used|walked|attempted|requested)\s+)?(?:"
        r"(?:at|on|across|over|through)\s+(?:(?:all|every|each)\s+(?:of\s+the\s+|the\s+)?"
        r"(?:gcp\s+)?widths?|all\s+(?:the\s+)?(?:gcp\s+)?widths?|"
        r"(?:\d+\s*[×x]?\s*(?:gpus?\s*)?(?:,\s*(?:and\s+|or\s+|then\s+)?|and\s+|or\s+|then\s+|"
        r"→\s*|->\s*|/\s*)){1,}\d+\s*[×x]?(?:\s*gpus?)?)|all\s+the\s+way\s+down"
        r"(?:\s+to\s+\d+\s*[×x]?(?:\s*gpus?)?)?)", re.I)
    _EXHAUSTS = re.compile(r"\bexhausts?\s+(?:\w+\s+){0,2}$|"
                           r"\b(?:all|every)\s+(?:of\s+the\s+|the\s+)?[`*_]*$", re.I)
    _ANY_WIDTH_AFTER = re.compile(r"[\s`*_]*(?:rungs?\s+)?(?:at\s+any\s+width|anywhere|at\s+all)\b",
                                  re.I)
    _MAJOR_WORD = re.compile(r"\b(?:provisioning|model|tier|spot)[- ]major\b", re.I)

    def read_model_major(self) -> None:
        """'The router tries spot at 8, 4, 2 and 1 GPUs before it considers flex-start
        at any width': one provisioning model walked at every width before the next.
        The ladder is width-major: every model the job's length allows at one width,
        then the next width."""
        if not self.s.context or self.procedural:
            return
        models = [t for t in self.terms if t.term[0] == "model"]
        if len({t.term for t in models}) < 2:
            return
        word = self._MAJOR_WORD.search(self.s.text)
        if word:
            # "the walk is provisioning-major: spot, then flex-start, then on-demand"
            after = [t for t in models if t.start >= self.s.start + word.end()]
            if len(after) >= 2 and after[0].term != after[1].term:
                at = self.s.start + word.start()
                self.add("model-major", (after[0].term[1], after[1].term[1]), at,
                         self.s.start + word.end(), self.negated_before(at),
                         topic="width-major walk")
            return
        for a, b in itertools.pairwise(models):
            if a.term == b.term:
                continue
            between = self.text(a.end, b.start)
            if not re.search(r"\b(?:before|ahead\s+of|then|first|prior\s+to|only\s+after|"
                             r"moves?\s+on\s+to|falls?\s+back\s+to)\b", between, re.I):
                continue
            if re.search(r"\bafter\b(?!\s+that)", between, re.I) and \
                    not re.search(r"\bbefore\b", between, re.I):
                continue  # "flex-start only after spot …": read below as it is written
            across = self._MODEL_ACROSS.match(self.unit_text, a.end, b.start)
            # the scope must be on the first model (before the order word) and strong:
            # a list of widths, every width with "exhausts", or "at any width" on the
            # second ("at every width, spot before flex-start" is per width: true)
            strong_scope = across and (
                re.search(r"\d", across.group(0)) or "way down" in across.group(0).lower() or
                re.search(r"\bacross\b", across.group(0), re.I) or
                self._EXHAUSTS.search(self.text(self.clause_start(a.start), a.start)) or
                self._ANY_WIDTH_AFTER.match(self.unit_text, b.end, self.s.end))
            if not strong_scope:
                continue
            self.add("model-major", (a.term[1], b.term[1]), a.start, b.end,
                     self.negated_before(a.start), topic="width-major walk")
            return

    def read_family_block(self) -> None:
        """'Within a width it walks every A100 rung before it moves on to the H100
        rungs': one family's rungs at a width all before the other's."""
        if not self.s.context or self.procedural:
            return
        scope = WITHIN_WIDTH.search(self.s.text)
        block = FAMILY_BLOCK.search(self.s.text)
        if scope is None or block is None:
            return
        fams = [t for t in self.terms if t.term[0] in ("family", "rung")]
        names = list(dict.fromkeys(family_of(t.term) for t in fams))
        major = FAMILY_MAJOR.search(self.s.text)
        if not names and major and len(self.facts.families_in_order()) >= 2:
            # "tried family-major at each width": every rung of the first family
            # before the next family's
            first_family, second = self.facts.families_in_order()[:2]
            at = self.s.start + major.start()
            self.add("family-block", (self.length_class(at), first_family, second), at,
                     self.s.start + major.end(), self.negated_before(at), topic="family order")
            return
        if len(names) != 2:
            return
        first = fams[0]
        other = next(t for t in fams if family_of(t.term) != family_of(first.term))
        between = self.text(first.end, other.start)
        # ("… every A100 option, and only after that the H100 rungs" keeps the order)
        if re.search(r"\bafter\b(?!\s+(?:that|this|it|them|those|these)\b)", between, re.I) and \
                not re.search(r"\bbefore\b", between, re.I):
            first, other = other, first  # "every H100 rung comes after the A100 ones"
        kind = self.length_class(first.start)
        self.add("family-block", (kind, family_of(first.term), family_of(other.term)),
                 min(first.start, other.start), max(first.end, other.end),
                 self.negated_before(min(first.start, other.start, self.s.start + block.start())),
                 topic="family order")

    def read_after_that(self) -> None:
        """'A miss on the 1× rungs sends the request to RunPod. The SLURM lanes come
        after that.': 'that' is the last stage the sentence before named."""
        if not self.s.context or self.procedural or not self.previous_terms:
            return
        there = re.match(r"\W*(?:from\s+there|after\s+that|next)\W+(?:\w+\s+){0,2}?(?:goes|go|"
                         r"falls?\s+(?:back\s+)?|drops?|moves?|jumps?|heads?|is\s+sent)\s+"
                         r"(?P<tight>(?:straight|directly|right)\s+)?to\b", self.s.text, re.I)
        if there:
            # "…after the 1× rungs have missed. From there it goes straight to RunPod"
            anchor = self.previous_terms[-1]
            targets = [t for t in self.terms if orderable(t.term) and
                       t.start >= self.s.start + there.end()][:1]
            for target in targets:
                if target.term != anchor.term:
                    negated = self.negated_before(target.start)
                    self.add("order", (anchor.term, target.term), target.start, target.end,
                             negated, topic="order")
                    if there.group("tight"):
                        self.add("skip", (anchor.term, target.term), target.start, target.end,
                                 negated, topic="order")
            return
        m = re.search(r"\b(?:after|following|behind)\s+(?:that|this|it|them|those)\b",
                      self.s.text, re.I)
        if m is None or not re.match(r"\W*$", self.s.text[m.end():]):
            return
        at = self.s.start + m.start()
        subjects = [t for t in self.terms if orderable(t.term) and t.end <= at]
        anchor = self.previous_terms[-1]
        clause = self.clause_start(at)
        earlier = [t for t in subjects if t.end <= clause]
        if earlier:
            # "GCP had no capacity, both SLURM lanes hit their limits, and RunPod is what
            # the ladder falls to after that": "that" is the clause before, not the
            # sentence before
            anchor = earlier[-1]
            subjects = [t for t in subjects if t.start >= clause]
        negated = self.negated_before(at)
        for subject in subjects:
            if subject.term != anchor.term:
                self.add("order", (anchor.term, subject.term), subject.start, subject.end,
                         negated, topic="order")

    def read_position(self) -> None:
        """'RunPod is the second stop', 'campus-preempt: tried second'."""
        if not self.s.context or self.procedural:
            return
        named = re.search(r"\bthe\s+(first|second|third|last)\s+(lane|partition|queue|backend|"
                          r"stop|tier|one|choice|option|place)\b(?:\s+(?!is\b|are\b)[\w-]+){1,5}?"
                          r"\s+(?:is|are)\s+", self.s.text, re.I)
        if named:
            # "The first lane dispatch submits to is campus-preempt"
            at = self.s.start + named.end()
            x = next((t for t in self.terms if t.term[0] in ("backend", "lane") and
                      at <= t.start <= at + 2), None)
            if x is not None:
                word, lane = named.group(1).lower(), x.term[0] == "lane"
                negated = self.negated_before(at)
                if word in ("first", "last"):
                    kind = f"{word}-lane" if lane else word
                    self.add(kind, (x.term,), x.start, x.end, negated, topic="order")
                else:
                    n = {"second": 2, "third": 3}[word]
                    self.add("position-lane" if lane else "position", (x.term[1], n), x.start,
                             x.end, negated, topic="order")
                return
        for m in re.finditer(r"\b(second|third|fourth)\s+(?:choice|option|stop|rung|tier|"
                             r"backend|step|fallback|place|priority)|(?<=\|\s)(second|third|"
                             r"fourth|2nd|3rd|4th)\b|\b(?:tried|used|comes|goes|placed|ranked|"
                             r"listed)\s+(second|third|fourth)\b", self.s.text, re.I):
            at = self.s.start + m.start()
            aside = re.search(r"([\w`*-]+)[`*_]*\s*\(\s*(?:the\s+|its\s+)?$",
                              self.text(self.s.start, at))
            if aside and not any(t.term[0] in ("backend", "lane") and
                                 t.end == self.s.start + aside.end(1) for t in self.terms):
                continue  # "that is lora-7b (second choice)": the aside ranks the word before it
            floor = self.clause_start(at)
            ords = [t for t in self.terms if t.term[0] in ("backend", "lane")]
            # The subject: the term before the cue in its clause, else in the
            # sentence ("campus-preempt: tried second"), else just after it.
            before = [t for t in ords if floor <= t.start < at] or \
                [t for t in ords if t.start < at]
            after = [t for t in ords if at <= t.start < at + 40]
            x = before[-1] if before else (after[0] if after else None)
            if x is None:
                return
            word = (m.group(1) or m.group(2) or m.group(3)).lower()
            n = {"second": 2, "third": 3, "fourth": 4, "2nd": 2, "3rd": 3, "4th": 4}[word]
            kind = "position-lane" if x.term[0] == "lane" else "position"
            self.add(kind, (x.term[1], n), x.start, x.end, self.negated_before(at),
                     topic="order")
            return

    def _own_clause_end(self, start: int, stop: int, ords: list[TermTok]) -> int:
        """Where a cue's objects end: at a clause joint followed by a term with
        its own predicate (", and RunPod only after that", ", but the SLURM lanes
        come later"): that term is the next clause's subject, not an object."""
        colon = _CLAUSE_STOP.search(self.s.text, start - self.s.start, stop - self.s.start)
        if colon and any(start <= t.start < self.s.start + colon.start() for t in ords):
            # "after the narrowest GCP rungs and before RunPod: campus-a100 first": the
            # colon ends the cue's objects (a colon right after the cue lists them)
            stop = self.s.start + colon.start()
        for joint in CLAUSE_JOINT.finditer(self.s.text, start - self.s.start,
                                           stop - self.s.start):
            if _CONSEQUENCE.match(joint.group(0)):
                # ", so a job that lands on campus-a100 has missed on GCP": a result
                # or a reason is a clause of its own, whatever its subject
                return self.s.start + joint.start()
            at = self.s.start + joint.end()
            term = next((t for t in ords if at <= t.start < stop), None)
            if term is None or self.text(at, term.start).strip(" \n\t*_`").lower() not in (
                    "", "the", "then", "then the"):
                continue
            if _OWN_PREDICATE.match(self.text(term.end, stop)):
                return self.s.start + joint.start()
        return stop

    def _order(self, a: tuple, b: tuple, start: int, end: int, negated: bool,
               kind: str | None) -> None:
        if a[0] == "model" and b[0] == "model":
            if kind:
                self.add("class-order", (kind, (a[1], b[1])), start, end, negated,
                         topic="length-aware order")
            return
        if a[0] == "model" or b[0] == "model":
            return
        if a[0] == b[0] == "family" and any(
                p.kind == "family-major" and set(p.args) == {a[1][0], b[1][0]}
                for p in self.props):
            return  # "does not exhaust every A100 option before an H100": walked, not ordered
        self.add("order", (a, b), start, end, negated, topic="order")

    def _prefer(self) -> None:
        """'The router prefers RunPod over the campus cluster'."""
        m = re.search(r"\bprefer(?:s|red)?\b", self.s.text, re.I)
        if not m:
            return
        at = self.s.start + m.end()
        over = re.search(r"\b(?:over|to|ahead\s+of|rather\s+than)\b", self.s.text[m.end():], re.I)
        named = re.match(r"\s+(?:family|one|choice|backend|lane|option|type|shape)\b",
                         self.s.text[m.end():], re.I)
        if named and re.search(r"\b(?:is|are)\s+(?:now\s+|still\s+)?the\s+(?:most\s+)?$",
                               self.s.text[:m.start()], re.I):
            # "H100 is the preferred family": that one first
            subject = [t for t in self.terms if orderable(t.term) and
                       t.end <= self.s.start + m.start() and
                       t.start >= self.clause_start(self.s.start + m.start())][:1]
            if subject:
                t = subject[0]
                self.add("first", (t.term,), t.start, t.end, self.negated_before(t.start),
                         topic="order")
                return
        if not over:
            first = [t for t in self.terms if orderable(t.term) and t.start >= at][:1]
            if first and first[0].term[0] == "lane":  # "within SLURM, prefer campus-preempt"
                self.add("first-lane", (first[0].term,), first[0].start, first[0].end,
                         self.negated_before(at), topic="order")
            return
        cut = at + over.start()
        ords = [t for t in self.terms if orderable(t.term)]
        xs = [t for t in ords if at <= t.start < cut]
        ys = [t for t in ords if t.start >= cut + len(over.group(0)) and
              not _EXCEPT.search(self.text(cut, t.start))]
        if xs and ys and xs[0].term != ys[0].term:
            self.add("order", (xs[0].term, ys[0].term), xs[0].start, ys[0].end,
                     self.negated_before(at), topic="order")

    def _fallback_for(self) -> None:
        """'campus-a100 is the fallback for campus-preempt': Y comes before X."""
        m = re.search(r"\b(?:is|as|are)\s+(?:the|a|its|their)\s+(?:\w+\s+)?(?:fallback|backup|"
                      r"overflow)\s+(?:for|to|of|after|behind)\b", self.s.text, re.I)
        if not m:
            return
        at = self.s.start + m.start()
        end = self.s.start + m.end()
        ords = [t for t in self.terms if orderable(t.term)]
        xs = [t for t in ords if t.end <= at]
        ys = [t for t in ords if t.start >= end]
        if xs and ys and xs[-1].term != ys[0].term:
            # "the fallback for one GCP stock-out": what comes right after a single
            # miss there, not merely somewhere after it
            kind = "skip" if re.fullmatch(r"\s*(?:one|a|any|a\s+single|the\s+first|every)\s+",
                                          self.text(end, ys[0].start), re.I) else "order"
            self.add(kind, (ys[0].term, xs[-1].term), xs[-1].start, ys[0].end,
                     self.negated_before(end), topic="order")

    def _between(self) -> None:
        """'RunPod sits between the GCP rungs and the SLURM lanes'."""
        m = re.search(r"\bbetween\b", self.s.text, re.I)
        if not m or not self.s.context:
            return
        at = self.s.start + m.start()
        ords = [t for t in self.terms if orderable(t.term)]
        subject = [t for t in ords if t.end <= at]
        # (the two ends sit in the clause: "between GCP widths, and it never …" names
        # one; an aside inside it, "between GCP (every width) and SLURM", does not end it)
        cut = _BETWEEN_END.search(self.s.text, m.end())
        end = self.s.start + (cut.start() if cut else len(self.s.text))
        objects = [t for t in ords if at < t.start < end][:2]
        if not subject or len(objects) != 2:
            return
        lead = self.text(self.s.start + m.end(), objects[0].start)
        if len(lead) > 25 or re.search(r"[,(:;]", lead):
            return  # "tries every width in between, halving each time (8 → 4 …)": no pair
        x = subject[-1]
        negated = self.negated_before(at)
        if negated:
            return  # "not between A and B" denies the pair, neither half of it
        for a, b in ((objects[0], x), (x, objects[1])):
            if a.term != b.term:
                self.add("order", (a.term, b.term), x.start, x.end, negated, topic="order")

    def _leading_cue(self, cue: Token, ords: list[TermTok]) -> None:
        """'After the 1× GCP rungs come the SLURM lanes'; 'Before RunPod, try SLURM'."""
        if re.search(r"\b(?:pods?|cloud|cluster|lanes?|machines?|nodes?|VMs?|instances?|"
                     r"jobs?|requests?)\b", self.text(self.clause_start(cue.start), cue.start),
                     re.I):
            return  # "Do not expect a pod before …": the cue has a subject, unrecognised
        rest = self.text(cue.end, self.s.end)
        split = re.search(r"[,:]|\b(?:come|comes|is|are|go|goes|try|tries|tried|use|uses|fall|"
                          r"falls|route|routes|dispatch|dispatches|the\s+router)\b", rest, re.I)
        if not split:
            return
        cut = cue.end + split.start()
        objects = [t for t in ords if t.start < cut]
        subjects = [t for t in ords if t.start >= cut]
        negated = self.negated_before(cut + (split.end() - split.start()) + 40)
        if not objects or not subjects:
            return
        subject = subjects[0]
        cues = [t for t in self.tokens if t.kind in ("before", "after") and
                cue.start <= t.start < cut]
        for obj in objects:
            if obj.term == subject.term:
                continue
            # "After the GCP rungs and before RunPod: campus-a100": each object
            # takes the cue it follows
            kind = next((c.kind for c in reversed(cues) if c.end <= obj.start), cue.kind)
            a, b = (subject, obj) if kind == "before" else (obj, subject)
            self.add("order", (a.term, b.term), obj.start, subject.end, negated, topic="order")

    # -- order: first / last --

    def read_first_last(self) -> None:
        if self.procedural:
            return
        for cue in self.tokens:
            if cue.kind not in ("first", "last"):
                continue
            word = self.unit_text[cue.start:cue.end].lower()
            if self.length_class(cue.start) and self._nearest_model(cue):
                continue  # "short jobs lead with SPOT": the length reader's
            if word in ("first", "last") and self._modifies_other_noun(cue):
                continue  # "the first Tuesday of each month": an ordinal of something else
            if (word == "first" or re.match(r"lead(?:s|ing)?\b", word)) and any(
                    t.term[0] == "model" and t.end <= cue.start and
                    not self.text(t.end, cue.start).strip(" \n\t*_`") for t in self.terms):
                # "a 90-minute run at 1× tries spot first": the model is first;
                # "FLEX_START leads only at the 1x rungs": the model leads, there
                continue
            pods = self.kinds("podtype")
            if any(-4 < cue.start - p.end <= 3 or 0 <= p.start - cue.end <= 3 for p in pods):
                continue  # "asks for `NVIDIA A100-SXM4-80GB` first": a pod type is first
            target = self._attach(cue, word)
            if target is None or not (self.s.context or word.startswith(("lead", "last resort"))):
                continue
            if target.start > cue.start and re.match(r"\s+(?:it|them|that|this|those|these)\b",
                                                     self.unit_text[cue.end:target.start]):
                continue  # "… lead with it, then the H100 rung": the pronoun is first
            if target.start > cue.start and any(
                    t.kind in ("first", "second", "last") and t is not cue and
                    0 <= t.start - target.end <= 3 for t in self.tokens):
                continue  # "Credits first, the campus cluster second": it has its own
            if pods and target.term[0] == "family":
                continue  # "asks RunPod for H100 first: NVIDIA H100 80GB HBM3, …": a pod's chip
            if target.term[0] == "width" and not self._own_width_context() and not re.search(
                    r"\b(?:gpus?|box(?:es)?|nodes?|rungs?|machines?|vms?)\b", self.s.text, re.I):
                continue  # "watch them at 1x first, then 1.5x": a playback speed
            negated = self.negated_before(min(cue.start, target.start) if
                                          target.start > cue.start else cue.start)
            if cue.kind == "first" and re.match(r"first\b", word) and \
                    self._ordinal_first(cue):
                continue
            if target.start > cue.start and self._one_of_many(cue, target):
                # "campus-a100 is the last SLURM lane", "the first GCP rung is 4×":
                # the ordinal places the member the sentence names, if it names one
                target = self._member(cue, target)
                if target is None:
                    continue
                negated = self.negated_before(cue.start)
            if self._first_of_pair(cue, target) or self._first_of_named(cue, target):
                continue
            group = self._coordinated(target, cue)
            if group:
                # "tries the SLURM lanes and RunPod first, and only asks GCP when both
                # are full": each member before what the sentence names outside it
                for other in self.terms:
                    if other.term[0] == target.term[0] and all(
                            other.term != g.term for g in group) and cue.kind == "first":
                        for member in group:
                            self.add("order", (member.term, other.term), member.start,
                                     member.end, negated, topic="order")
                continue
            request = self._width_of_request(cue, target)
            if request is not None:
                # "A width-8 request starts at 4×": where that request starts
                self.add("request-first", (request, target.term[1]), target.start, target.end,
                         negated, topic="width chain")
                continue
            if target.term[0] == "family" and self._pod_clause(target, cue):
                continue  # "RunPod's list for eval-70b starts with an H100": a pod's chip
            kind = cue.kind
            if target.term[0] == "lane" and not re.search(
                    r"resort|\b(?:overall|whole\s+ladder|entire\s+ladder|of\s+all|everything)\b",
                    self.s.text, re.I):
                kind += "-lane"  # "campus-preempt last": last of the SLURM lanes
            self.add(kind, (target.term,), target.start, target.end, negated, topic="order")

    def _pod_clause(self, target: TermTok, cue: Token) -> bool:
        """Whether the clause that holds a family and its cue is about RunPod (its
        GPU types name chips such as the H100, not GCP machine families)."""
        lo = self.clause_start(min(target.start, cue.start))
        hi = self.clause_end(max(target.end, cue.end))
        return bool(re.search(r"\brun\s*pod\b|\bpods?\b", self.unit_text[lo:hi], re.I))

    def _coordinated(self, target: TermTok, cue: Token) -> list[TermTok]:
        """'tries a2-ultragpu-8g and a3-highgpu-8g first', 'the 2x and 1x GCP rungs come
        first': a group is first, before what the sentence names next; no member is
        first of the ladder."""
        if target.start >= cue.start:
            return []
        group = [target]
        for other in reversed(self.terms):
            if other.end <= group[-1].start and other.term[0] == target.term[0] and \
                    other.term != group[-1].term and _JOINED.fullmatch(
                        self.text(other.end, group[-1].start)):
                group.append(other)
        return group if len(group) > 1 else []

    def _width_of_request(self, cue: Token, target: TermTok) -> int | None:
        """The width of the request a width 'first' is said of: "A width-8
        request starts at 4×", "an 8× job begins at 4×"."""
        if target.term[0] != "width" or target.start < cue.end:
            return None
        for t in self.terms:
            if t.term[0] == "width" and t.end <= cue.start and t.term != target.term and \
                    re.match(r"[\s`*_]*(?:[\w-]+\s+)?(?:request|job|phase|run)s?\b",
                             self.text(t.end, cue.start), re.I):
                return t.term[1]
        if _ANY_REQUEST.search(self.s.text) and target.term[1] != self.facts.narrowest:
            # "starts on the 8-GPU machines, whatever width was requested": so does
            # the narrowest request
            return self.facts.narrowest
        return None

    def _first_of_named(self, cue: Token, target: TermTok) -> bool:
        """'Don't expect RunPod as a quick fallback: every other GCP rung and both
        SLURM lanes come first': after a colon, 'first' places its clause's members
        before the backend the clause before it named, not first of the ladder."""
        if cue.kind != "first" or target.term[0] != "backend" or target.start > cue.start:
            return False
        colon = self.unit_text.rfind(":", self.s.start, target.start)
        if colon < 0:
            return False
        before = [t for t in self.terms if t.end <= colon and t.term[0] == "backend"]
        inside = [t for t in self.terms if colon < t.start < cue.start and
                  t.term[0] in ("backend", "lane")]
        named = {t.term for t in inside}
        others = [t for t in before if t.term not in named]
        if not others or not _COME_FIRST.fullmatch(self.text(target.end, cue.start)):
            return False
        negated = self.negated_before(cue.start, since=colon + 1)
        for member in inside:
            for other in others:
                self.add("order", (member.term, other.term), member.start, member.end,
                         negated, topic="order")
        return True

    def _first_of_pair(self, cue: Token, target: TermTok) -> bool:
        """'Never plan on RunPod showing up ahead of SLURM: the campus lanes always
        come first': after a clause that compares two backends, 'first' places
        one of the pair against the other, not on the whole ladder."""
        if cue.kind != "first" or target.term[0] != "backend":
            return False
        floor = self.clause_start(cue.start)
        compared = any(t.kind in ("before", "after") and t.end <= floor for t in self.tokens)
        backends = {t.term for t in self.terms if t.term[0] == "backend"}
        # "preferred over every other backend except the SLURM lanes, which go first"
        everything = re.search(r"\b(?:every|all|any)\s+(?:the\s+)?(?:other\s+)?(?:backends?|"
                               r"rungs?|options?)\b|\bexcept\b", self.s.text, re.I)
        return compared and not everything and len(backends) == 2 and target.term in backends

    # "first"/"last" as an adjective on a noun of time or of a document: an
    # ordinal of something else, not a rung's position.
    OTHER_ORDINALS = re.compile(
        r"(?:time|times|day|days|week|weekend|month|year|hour|minute|night|morning|"
        r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|login|line|lines|"
        r"thing|things|page|section|paragraph|commit|message|entry|few|couple|half|"
        r"quarter|sprint|release|epoch|checkpoint|batch|token|tokens|row|column|"
        r"argument|item|element|occurrence|call|boot|startup)\b", re.I)

    def _one_of_many(self, cue: Token, target: TermTok) -> bool:
        """'the first SLURM lane', 'the last GCP rung': the ordinal picks one of
        the backend's own lanes or rungs; it says nothing of the backend's place."""
        if target.term[0] in ("width", "family") and not self.text(
                cue.end, target.start).strip(" \n\t*_`") and re.match(
                r"[\s`*_]*(?:gcp\s+|[\w-]+\s+)?(?:rung|option|attempt)\b(?!s)",
                self.text(target.end, target.end + 20), re.I) and re.search(
                r"\bthe\s+$", self.text(max(self.s.start, cue.start - 5), cue.start), re.I):
            # "only after the last width-1 GCP rung misses": one rung of that width
            return True
        if target.term[0] != "backend" or self.text(cue.end, target.start).strip(" \n\t*_`"):
            return False
        written = self.text(target.start, target.end) + self.text(target.end, target.end + 12)
        # ("SPOT as the last GCP option at that width", "the last GCP rungs are the
        # single-GPU ones"; "the SLURM lanes" names the backend itself)
        # ("spot = last gcp pick at that width", "spot is the last GCP try": one of its picks)
        if re.search(r"\b(?:(?:lane|partition|queue|pod)\b(?!s)|(?:rung|width|machine|"
                     r"node|option|choice|attempt|shape|box|pick|step|stop)(?:e?s)?\b|"
                     r"tr(?:y|ies)\b)",
                     written, re.I):
            return True
        # "spot capacity is the last GCP model tried there": one of its provisioning
        # models, the one named before it
        return bool(re.match(r"\W*(?:provisioning\s+)?(?:model|tier|vm)s?\b",
                             self.text(target.end, target.end + 20), re.I)) and any(
            t.term[0] == "model" and t.end <= cue.start for t in self.terms)

    def _member(self, cue: Token, group: TermTok) -> TermTok | None:
        """The lane, width or family named as 'the first/last <backend> lane/rung'."""
        members = [t for t in self.terms if orderable(t.term) and t.term[0] != "backend"]
        before = [t for t in members if t.end <= cue.start]
        if before and re.fullmatch(r"[\s`*_]*(?:(?:is|are)\s+(?:the|its)|[=:]\s*(?:the)?)\s*",
                                   self.text(before[-1].end, cue.start), re.I):
            return before[-1]
        after = [t for t in members if t.start >= group.end]
        if after and re.fullmatch(r"[\s`*_]*(?:\w+\s+)?(?:is|are|:|=)\s*(?:the\s+)?[\s`*_]*",
                                  self.text(group.end, after[0].start), re.I):
            return after[0]
        return None

    def _modifies_other_noun(self, cue: Token) -> bool:
        """'first'/'last' used as an adjective: "the first Tuesday of each
        month", "the last log line"."""
        m = re.match(r"[ \t]+([A-Za-z][\w-]*)", self.unit_text[cue.end:cue.end + 40])
        return bool(m and self.OTHER_ORDINALS.fullmatch(m.group(1)))

    def _ordinal_first(self, cue: Token) -> bool:
        """'First, …' opening a sentence is ordinal prose, read with its siblings;
        it still claims 'first' unless it reads 'at first' or 'first of all'."""
        after = self.unit_text[cue.end:cue.end + 8].lower()
        before = self.unit_text[max(0, cue.start - 4):cue.start].lower()
        return after.startswith(" of all") or before.endswith("at ")

    def _attach(self, cue: Token, word: str) -> TermTok | None:
        ords = [t for t in self.terms if orderable(t.term)]
        if not ords:
            return None
        verbish = re.match(r"(?:lead|start|begin|open|end)", word)
        after = [t for t in ords if t.start >= cue.end]
        before = [t for t in ords if t.end <= cue.start]
        if verbish:
            nxt = [t for t in self.terms if t.start >= cue.end]
            subject = [t for t in self.terms if t.end <= cue.start][-1:]
            if nxt and nxt[0].term[0] == "width" and subject and \
                    subject[0].term[0] == "model" and re.fullmatch(
                    r"\s*(?:at|on)\s+(?:the\s+)?", self.text(cue.end, nxt[0].start), re.I):
                nxt = []  # "spot leads at 1x": where the model leads, not what leads
            if nxt and orderable(nxt[0].term) and len(self.text(cue.end, nxt[0].start)) <= 20:
                return nxt[0]
            # "the H100 family (a3-highgpu) leads each width": the subject leads
            if before and re.fullmatch(r"[\s)]*(?:(?:box|boxes|family|machines?|shapes?|rungs?|"
                                       r"nodes?|vms?)\s*)?", self.text(before[-1].end, cue.start),
                                       re.I) and \
                    not (nxt and len(self.text(cue.end, nxt[0].start)) <= 20):
                return before[-1]
            return None
        best = None
        if before and re.search(r"\b(?:miss(?:ed|es)?|fail(?:ed|s)?|exhausted|filled|"
                                r"ran\s+(?:dry|out)|run\s+(?:dry|out)|"
                                r"(?:are|were|is|was)\s+(?:full|busy|empty|gone))\s*$",
                                self.text(before[-1].end, cue.start), re.I):
            return None  # "every GCP width missed first": beforehand, not a position
        if before:
            # ("the gpu partition (waits up to 30 min, up to 8 GPUs) comes first": an
            # aside between them is not a clause break)
            gap = self.text(before[-1].end, cue.start)
            bare = re.sub(r"\s*\([^()]*\)", "", gap)
            if re.search(r"[:;—–]\s*(?:it|this|that)(?:\s+is|['’]s)\s+(?:the\s+|a\s+)?$", gap,
                         re.I):
                # "Never treat RunPod as the fallback for one GCP stock-out: it is the
                # last rung": the pronoun is the sentence's subject, not the nearest term
                return ords[0] if ords[0] is not before[-1] else None
            if (len(gap) <= 40 and not re.search(r"[,;]|\b(?:and|then|before|after)\b", gap)) \
                    or re.fullmatch(r"\s*(?:is|are|as|comes?|goes|stays?|remains?)?\s*"
                                    r"(?:the|a|an)?\s*", gap, re.I) \
                    or re.fullmatch(r"[`*_\s]*(?:[\w-]+\s+)?(?:comes?|goes|is\s+tried|"
                                    r"are\s+tried)\s*", bare, re.I) \
                    or re.fullmatch(r"\s*,?\s*(?:which|that)\s+(?:always\s+|still\s+)?"
                                    r"(?:is|are|gets?|goes|go|comes?)\s+(?:always\s+)?"
                                    r"(?:tried|used|walked|picked|attempted)?\s*",
                                    gap, re.I) \
                    or (re.fullmatch(r"\s*,\s*(?:the|its)\s*", gap) and re.match(
                        r"\s+(?:rung|choice|option|stop|backend|fallback|pick)\b",
                        self.unit_text[cue.end:cue.end + 12], re.I)):
                # "GCP, which is tried first"; "RunPod, the first rung the router tries"
                best = before[-1]
        if after:
            gap = self.text(cue.end, after[0].start)
            if re.fullmatch(r"\s*(?:rung|choice|option|stop|backend|lane|fallback|resort)?"
                            r"\s*(?:is|are|:|,|—|-)?\s*(?:the|a|always)?\s*", gap, re.I) and \
                    (best is None or (len(gap) < len(self.text(best.end, cue.start)) and
                                      not re.search(r"[,:—-]", gap))):
                # "GCP at every width first, the lanes next": the comma ends the
                # claim on GCP; "first: GCP" attaches forward only with nothing before
                best = after[0]
            elif best is None and _TRYING_VERB.fullmatch(gap):
                # "the router first works through the two campus SLURM lanes"
                best = after[0]
        return best

    def _nearest_model(self, cue: Token) -> bool:
        return any(t.term[0] in ("model", "rung") and abs(t.start - cue.end) < 30
                   for t in self.terms)
