"""The reader's state and the helpers every proposition family uses: clauses,
negation, conditions."""

from __future__ import annotations

import re
from collections.abc import Iterable

from lint.facts import Facts
from lint.lexicon import Lexicon, Token
from lint.propositions import Prop
from lint.reading.cues import CLAUSE_JOINT, COND, STRONG_CONTEXT
from lint.reading.sentence import Sentence, TermTok, terms

# A negation that describes the capacity miss itself ("that can't get capacity",
# "when it doesn't find GPUs"): the condition of the claim, not its polarity.
_MISS_CONDITION = re.compile(r"\s+(?:\w+\s+){0,2}?(?:get|find|obtain|secure|land)\s+"
                             r"(?:any\s+|enough\s+|a\s+)?(?:capacity|gpus?|slot|machines?|"
                             r"room)\b|"
                             # "if the 8-GPU boxes aren't there/available, …": a miss
                             r"\s+(?:there|available|free|in\s+stock|to\s+be\s+had)\b\s*[,;]|"
                             # "if DWS can't deliver, …": a provider that has nothing
                             r"\s+(?:deliver|provide|supply|serve|allocate|schedule)\b"
                             r"(?:\s+(?:it|them|one|any|capacity|the\s+\w+))?\s*[,;]?", re.I)


# "without it, …", "without `--allow-8x` the ladder …": a condition, not a negation
_WITHOUT_CONDITION = re.compile(r"\s+(?:(?:it|that|this|them|one)\b\s*,?|[`'\"]?--?[a-z][\w-]*)",
                                re.I)
# (a miss of what the sentence before named goes on from it: "If flex-start has
# nothing, the router tries spot next")
_CONTINUES = re.compile(r"\W*(?:after\s+(?:that|this|it)|then|next|failing\s+that|"
                        r"(?:if|when|once)\s+(?:that|it|(?:the\s+)?[\w-]+(?:\s+rungs?)?)\s+"
                        r"(?:misses|fails|has\s+nothing|has\s+no\s+capacity|is\s+(?:full|dry|out|"
                        r"unavailable|sold\s+out|exhausted)|comes\s+up\s+(?:empty|dry))|"
                        r"otherwise)\b", re.I)


# A dash between spaces (or a line break) joins two clauses
_DASH = re.compile(r"\s[—–]\s")


_CAPACITY = re.compile(r"(?:\bup\s+to|\bat\s+most|\bmax(?:imum)?(?:\s+(?:width|of))?|"
                       r"\bcapped\s+at|\blimited\s+to|\bno\s+more\s+than|\b(?:tops?|max(?:es)?|caps?)\s+out\s+at|≤|<=)"
                       r"\s*[:=]?\s*$", re.I)


# "…and leads with on-demand A100", "… and its first GCP rung is …": a new predicate
# after "and", past a "no" that only quantified a noun before it
_NEW_PREDICATE = re.compile(r"\b(?:and|so)\s+(?:then\s+|simply\s+|just\s+|always\s+)?"
                            r"(?:(?:its|their|the)\s+(?:[\w-]+\s+){1,3}?(?:is|are)\b|(?:leads?|go(?:es)?|went|"
                            r"starts?|started|falls?|fell|moves?|moved|opens?|uses?|used|tries|"
                            r"tried|try|gets?|got|asks?|asked|requests?|requested|sends?|sent|"
                            r"runs?|ran|picks?|picked|lands?|landed)\b)", re.I)
# "…admits 4 GPUs at most"
# "No job starts on SLURM": "no" quantifying the clause's subject denies its predicate
# Entities an aside's negation may deny on its own: "long (4 h is not below 4 h)"
_ASIDE_OWN = ("duration", "gpuhours")
# "the 7b intents", "every 7B intent": a group of intents by a part of their names
_INTENT_GROUP = re.compile(r"\b(?:the|every|each|all(?:\s+the)?|both)\s+([\w.]+)\s+intents?\b",
                           re.I)
_NO_SUBJECT = re.compile(r"\s+(?:\w+\s+)?(?:jobs?|requests?|phases?|runs?|dispatch(?:es)?)\s+"
                         r"(?:ever\s+)?(?:starts?|begins?|opens?|leads?|goes|lands?|is|are|gets?|"
                         r"skips?|uses?|tries|reaches|runs)\b", re.I)
# (and a miss that opens the sentence: "After each GCP width misses, the router …")
_REASON = re.compile(r"^\W*(?:since|because|as|given\s+that|now\s+that|"
                     r"after(?=[^,:;]*\bmiss(?:es|ed)?\b))\b[^,:;]*,", re.I)
# "with no …", "and no …" in a subject, and the predicate that follows that noun
_WITH_NO = re.compile(r"\b(?:with|and|having)\s+$", re.I)
_PREDICATE_AFTER = re.compile(r"\s+(?:[\w-]+\s+){1,4}?(?:gets?|is|are|counts?\s+as|passes|"
                              r"stays?|remains?|earns?|draws?|receives?)\b", re.I)
# "it is not the case that …", "it isn't true that …": a negation of a whole clause
_NOT_THE_CASE = re.compile(r"\s+(?:the\s+case|true|so)\s+that\b", re.I)
_CAPACITY_AFTER = re.compile(r"\s*(?:gpus?\s+)?(?:at\s+most|max(?:imum)?|tops)\b", re.I)


_ASIDE = re.compile(r"\([^()]*\)")
_WHOLE_ASIDE = re.compile(r"\s*\(([^()]*)\)[\s.]*")
_REMARK = re.compile(r"(?::|\s[—–])\s[^:—–]*$")
_CONTRAST_REMARK = re.compile(r"[:\s—–]*(?:but|though|although|yet|however)\b", re.I)
# words of speed and price, which name a reason in a remark rather than a procedure
_COMPARISON = re.compile(r"\b(?:faster|slower|cheaper|pric(?:e|es|ing)|costs?|savings?|discount|"
                         r"throughput|speedup|improvement)\b", re.I)
_PURPOSE = re.compile(
    r"\b(?:so\s+that|so\s+as\s+to|because|since\s+(?:they|it|that|(?:the\s+)?[\w-]+\s+"
    r"(?:is|are)))\b.*|"
    # "… first so the eval finishes faster": the result wanted, not a procedure
    r"\bso\s+(?:the\s+\w+|it|they|you|jobs?|runs?)\s+(?:finish|run|complete|end|start)\w*\b.*|"
    r",\s*since\b.*", re.I | re.S)
_CLAUSE_OR_PRICE = re.compile(
    r",\s*which\s[^,;:]*|"
    r"[,;—–]\s*(?:and\s+)?at\s+(?:full|list|the\s+full|normal|regular)\s+(?:price|cost|rate)s?\b",
    re.I | re.S)


# "we are not going through the router at all: deploy … to RunPod first": work
# done by hand names the router only to set it aside
_COMMAND_LINE = re.compile(r"\bbackend-router\s+[\w-]+(?:\s+--?[\w-]+(?:[ =](?!-)[^\s,;]+)?)*")
_BYPASS = re.compile(r"\b(?:not\s+(?:going|go)\s+through|bypass(?:es|ing)?|outside(?:\s+of)?|"
                     r"without(?:\s+using)?|around)\s+(?:the\s+)?"
                     r"(?:(?:backend[- ])?router|dispatch|ladder)\b", re.I)


def group_of_intents(text: str, intents: tuple[str, ...]) -> set[str]:
    """The intents `text` names as a group by a part of their names ("the 7b
    intents": every intent whose name has the part "7b")."""
    found: set[str] = set()
    for m in _INTENT_GROUP.finditer(text):
        part = m.group(1).lower()
        found |= {name for name in intents if part in name.lower().split("-")}
    return found


# "no X … without Y": Y always comes with X
_NO_WITHOUT = re.compile(r"\b(?:no|nothing|none|never)\b[^,;:.]*\bwithout\b[^,;:.]*$", re.I)
# what "except" leaves out: the name right after it ("everything except on-demand")
# (the reading sits at that name, or at the end of its clause)
_EXCEPTED = re.compile(r"\s*(?:for\s+)?(?:the\s+|an?\s+)?[`*_(]*(?:[\w./{}-]+[`*_)]*"
                       r"(?:\s+[\w./{}-]+[`*_)]*)?\s*[.,;:!)]*\s*)?", re.I)

class ReaderBase:
    """One sentence being read, with the unit text for spans, the lexicon and the
    facts; the proposition families are mixins on top of this."""

    def __init__(self, sentence: Sentence, unit_text: str, lexicon: Lexicon,
                 heading: str, facts: Facts) -> None:
        self.s = sentence
        self.facts = facts
        self.unit_text = unit_text
        self.lexicon = lexicon
        self.heading = heading
        self.table_header = ""  # a table row's header row, which names its columns
        self.list_lead = ""  # a list item's lead-in ("GPU types it may ask for:")
        self.fence_before = ""  # the one command of a code block right above the unit
        self.tokens = sentence.tokens
        self.terms = terms(sentence)
        if any(t.term[0] == "lane" for t in self.terms):
            # "campus-preempt takes at most four GPUs": a lane's capacity, not a rung
            self.terms = [t for t in self.terms if t.term[0] != "width" or not (_CAPACITY.search(
                unit_text[max(sentence.start, t.start - 24):t.start]) or _CAPACITY_AFTER.match(
                unit_text, t.end))]
        self.props: list[Prop] = []
        # a bracketed aside ("(campus-preempt would just kill them)") is not a procedure
        # nor is a purpose or reason ("…, so that jobs stop waiting in the queue"),
        # a relative clause about a noun ("the campus cluster, which costs nothing")
        # or a note on price ("…, at full price")
        # nor a trailing remark that names nothing on the ladder ("…are tried
        # before the A100s: faster cards, same price class")
        body = sentence.text
        remark = _REMARK.search(body)
        if remark and not any(t.entity and t.start >= sentence.start + remark.start()
                              for t in self.tokens) and (not lexicon.procedural.search(
                _COMPARISON.sub(" ", remark.group(0))) or _CONTRAST_REMARK.match(remark.group(0))):
            # (a remark that gives a procedure, "…quota: first open IAM & Admin", stays;
            # one set against the claim, "— but nobody had set a budget alert", is apart)
            body = body[:remark.start()]
        # (a sentence wholly in brackets is read inside them: "(If you see a RunPod
        # charge, look at the campus queue first.)")
        whole = _WHOLE_ASIDE.fullmatch(body)
        bare = _CLAUSE_OR_PRICE.sub(" ", _PURPOSE.sub(" ", _ASIDE.sub(
            " ", whole.group(1) if whole else body)))
        # (a command line, "point `backend-router dispatch --dry-run` at it", names the
        # router as a tool the procedure runs; it puts the sentence in no ladder context)
        self.procedural = bool(lexicon.procedural.search(bare)) and (
            not STRONG_CONTEXT.search(_COMMAND_LINE.sub(" ", sentence.text)) or
            bool(_BYPASS.search(sentence.text)))
        sentence.procedural = self.procedural
        # A worked example's job (hours, requested width), read here or carried
        # from the sentence before ("A 1 h job at 8×: …; at 2× (4 h) short")
        self.request: tuple[float, int] | None = None
        self.carried: tuple[float, int] | None = None
        # the orderable terms of the sentence before, in the same unit ("… come after that")
        self.previous_terms: list[TermTok] = []
        # "Long jobs lead with FLEX_START; after that the router tries SPOT, and only
        # then STANDARD": a continuation goes on with the sentence before's length
        # class and its last provisioning model
        self.continues = bool(_CONTINUES.match(sentence.text))
        self.previous_class: str | None = None
        # the provisioning models the item before named ("- A100: SPOT, FLEX_START,
        # STANDARD" over "- H100: the same three")
        self.models_before: tuple[str, ...] = ()
        self.previous_model: TermTok | None = None
        # the sentence before (or the entry's term) defines the model tried first
        # without naming one: "`lead`: The model tried first at a width. STANDARD
        # for a short job, FLEX_START for a long one." names each class's lead
        self.lead_defined = False

    # -- helpers --

    def text(self, start: int, end: int) -> str:
        return self.s.text[start - self.s.start:end - self.s.start]

    def aside_of(self, position: int) -> tuple[int, int] | None:
        """The closed bracketed aside of the sentence that holds `position`."""
        opened = self.unit_text.rfind("(", self.s.start, position)
        if opened < 0 or self.unit_text.rfind(")", opened, position) >= 0:
            return None
        close = self.unit_text.find(")", position, self.s.end)
        return (opened, close) if close >= 0 else None

    def intents_in_view(self) -> set[str]:
        """The intents the sentence names, else the one the unit named before it."""
        return {t.value for t in self.tokens if t.kind == "intent"} or self._intents_before()

    def _intents_before(self) -> set[str]:
        """The one intent the unit names before this sentence, as a set (empty
        where it names none or several)."""
        before = self.unit_text[:self.s.start].lower()
        named = {name for name in self.facts.intents
                 if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", before)}
        return named if len(named) == 1 else set()

    def floor_stand_in(self, intents: Iterable[str]) -> str | None:
        """One of `intents` standing for them all where they share a minimum width
        (each walk ends at the same width), else None."""
        named = set(intents)
        return min(named) if len({self.facts.min_width(i) for i in named}) == 1 else None

    def intent_group(self) -> set[str]:
        """The intents the sentence names as a group by a part of their names:
        "the 7b intents", "every 7b intent", "all eval intents"."""
        return group_of_intents(self.s.text, self.facts.intents)

    def kinds(self, kind: str) -> list[Token]:
        return [t for t in self.tokens if t.kind == kind]

    def clause_start(self, position: int) -> int:
        """Start of the clause that holds `position`: after the last ':', ';' or
        dash before it, and after a leading 'if …,' condition."""
        floor = self._main_start()
        reason = _REASON.match(self.s.text)
        if reason and position >= self.s.start + reason.end():
            # "Since 4 h is not above the cutoff, the 1× rungs lead with SPOT": the
            # reason's negation is its own (it still reads inside the reason)
            floor = max(floor, self.s.start + reason.end())
        head = self.s.text[:max(0, position - self.s.start)]
        dash = max((m.start() for m in _DASH.finditer(head)), default=-1)
        cut = max(head.rfind(":"), head.rfind(";"), dash, head.rfind(" | "))
        # an aside that has closed ("Regular (on-demand) VMs are …") ends no clause
        joint = [j for j in CLAUSE_JOINT.finditer(head)
                 if not (j.group(0).endswith("(") and ")" in head[j.end():])]
        if joint:
            cut = max(cut, joint[-1].start())
        return max(floor, self.s.start + cut + 1) if cut >= 0 else floor

    def negated_before(self, position: int, since: int | None = None) -> bool:
        """A negation in the clause before `position` (or since `since`)."""
        floor = self.clause_start(position) if since is None else since
        negations = [t for t in self.tokens if t.kind == "neg" and floor <= t.start < position]
        if not negations or _NO_WITHOUT.search(self.unit_text, floor, position):
            # (most readings have no negation in their clause: nothing more to weigh)
            # "No job reaches the campus cluster without GCP having been tried first":
            # the two negations cancel for what follows "without"
            return False
        inside = self.aside_of(position) if "(" in self.s.text else None
        for t in negations:
            if inside is not None and t.start < inside[0] and since is None:
                # "never on 3 (widths are 1, 2, 4 and 8 only)": a bracket opened
                # after the negation states its own fact
                continue
            aside = self.aside_of(t.start)
            # (the reading is at `position`, or ends at `since`)
            if aside is not None and not any(
                    aside[0] < at <= aside[1] for at in (position, since) if at) and not any(
                    o.entity and o.kind not in _ASIDE_OWN and t.end <= o.start < aside[1]
                    for o in self.tokens):
                # "long (4 h is not below the threshold), FLEX_START leads": an
                # aside's negation of no ladder name (a length is the aside's own
                # arithmetic) is the aside's own ("H100 (never on-demand)" still negates)
                continue
            word = self.unit_text[t.start:t.end].lower()
            if word == "no":
                if _NO_SUBJECT.match(self.unit_text, t.end) and \
                        not self.unit_text[floor:t.start].strip(" \n\t*_`"):
                    return True  # "No job starts on SLURM": the subject's quantifier
                if not self._no_negates(t) or _NEW_PREDICATE.search(
                        self.unit_text[t.end:position]):
                    continue  # "…gets no FLEX_START rung and leads with STANDARD": its noun
                if _WITH_NO.search(self.unit_text, floor, t.start) and _PREDICATE_AFTER.match(
                        self.unit_text[t.end:position]):
                    # "a phase with 0.5 GPU-hours and no shardable axis gets APPROVE":
                    # "no" is inside the subject; the predicate after it is not denied
                    continue
            if word in ("without", "skip", "avoid") and t.start > floor + 40:
                continue
            if word == "except" and not _EXCEPTED.fullmatch(self.unit_text, t.end, position):
                # "All of them except eval-70b can run at width 1": only what
                # follows "except" is left out, not the rest of the clause
                continue
            if word == "without" and _WITHOUT_CONDITION.match(self.unit_text, t.end):
                continue  # "without it, the first rung is 4×": a condition
            if _MISS_CONDITION.match(self.unit_text, t.end):
                continue  # "a request that can't get capacity is …": the miss, not polarity
            # ("It's not the case that a long job can never land on on-demand":
            # the two negations cancel)
            return not (_NOT_THE_CASE.match(self.unit_text, t.end) and any(
                o.kind == "neg" and t.end < o.start < position for o in self.tokens))
        return False

    def clause_end(self, position: int) -> int:
        """End of the clause that holds `position`: the next ':', ';', dash or
        clause joint (", so", ", and", …) after it, else the sentence's end."""
        rest = self.s.text[max(0, position - self.s.start):]
        cuts = [m.start() for m in (re.search(r"[:;]", rest), _DASH.search(rest),
                                    CLAUSE_JOINT.search(rest)) if m is not None]
        return position + min(cuts) if cuts else self.s.end

    def negated_in_clause(self, start: int, end: int) -> bool:
        """A negation before `start` in its clause, or after `end` up to the
        clause's end ("is not past 168 h"); a later clause's negation ("…, so
        its 1× rungs get no FLEX_START") is that clause's own."""
        return self.negated_before(start) or self.negated_before(self.clause_end(end), since=end)

    def _no_negates(self, t: Token) -> bool:
        after = self.unit_text[t.end:t.end + 30].lower()
        if re.match(r"\s*[,.;:!—–-]", after):
            return False  # "No, it's the top of the ladder": an answer, not a negation
        # ("no GCP capacity", "no 8-GPU machines": what is missing, not a denial)
        return not re.match(r"\s+(?:(?:[\w×-]+\s+){0,2}(?:capacity|quota|slots?)\b|gpus?|"
                            r"machines?|free|room|luck|one|jobs?|lane|later|sharding|wait)", after)

    def _main_start(self) -> int:
        m = COND.match(self.s.text)
        return self.s.start + (m.end() if m else 0)

    def add(self, kind: str, args: tuple, start: int, end: int, negated: bool = False,
            topic: str = "", fix: tuple = ()) -> None:
        if kind == "consequence" and args[2] > args[1] and not re.search(
                rf"\b(?:at|on)\s+(?:width\s+)?{args[2]}\s*(?:[x×]|gpus?\b|(?!\S))",
                self.s.text, re.I):
            # the router never widens: "width 2 means 12 h" after "the 8g and 4g
            # rungs miss" is not that job at 4× ("a 24 h job at 1x is 3 h at 8x" is)
            return
        if kind == "skip" and len(args) == 2 and args[0][0] == "width" and \
                args[1][0] in ("backend", "lane"):
            # "for lora-7b, once the 2× rungs miss it moves on to SLURM": where a
            # width's walk ends depends on the intent the sentence names
            intent = next((t.value for t in self.tokens if t.kind == "intent"), None) or \
                next(iter(self._intents_before()), None)
            args = (*args, intent) if intent else args
        if kind == "last" and len(args) == 1 and args[0][0] == "width":
            # "eval-70b … Its next and last GCP width is 2x": the last width of the
            # named intent's walk; "for every 7b intent the walk ends at 1×": of
            # intents that all end at the same width
            stand_in = self.floor_stand_in(self.intents_in_view() or self.intent_group())
            if stand_in:
                args = (*args, stand_in)
        if kind == "first" and len(args) == 1 and args[0][0] in ("family", "width"):
            # "Expected first rung: a2-ultragpu-1g on SPOT" under a 1-GPU job: first
            # at the width that job asks for, not on the whole ladder
            job = self.request or self.carried
            width = args[0][1] if args[0][0] == "width" else args[0][1][1]
            if job is not None and width == job[1]:
                args = (*args, job[1])
        self.props.append(Prop(kind, args, negated, start, end, topic, fix))
