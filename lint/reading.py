"""Reading ladder prose into propositions.

A unit of prose is split into sentences; each sentence is tagged by the
lexicon, its tokens are grouped into terms ("the 1× GCP rungs" is one term),
and small readers look for the shapes people use: chains, before/after,
first/last, "X-only", "lead with", thresholds, worked examples. Structure is
read too: a numbered list or an ordered table of rungs states an order, and
ordinal sentences ("First … Then … Last …") chain across a paragraph.

Polarity, modality and time are decided per sentence: a negation before the
predicate flips it, "may"/"can" still claim possibility, and a history note
("the old guide said …") or a quoted wrong statement is not a claim at all.
An order reading ("X first", "X then Y") counts only in ladder context, and
not in procedural prose ("deploy the worker to RunPod first").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lint.facts import Facts
from lint.lexicon import Lexicon, Token
from lint.propositions import Prop

ORDERABLE = ("backend", "lane", "family", "width", "rung")
MAX_SENTENCE = 600  # characters
_SENTENCE_END = re.compile(r"(?<![.\d][a-z])(?<!e\.g)(?<!i\.e)(?<!etc)(?<!\d)[.!?](?=\s|$)"
                           r"|\?(?=\S)|;\s|\n(?=\s*(?:[-*+]|\d+[.)])\s)")
_QUOTED = re.compile(r"\"[^\"]{2,240}\"|“[^”]{2,240}”|«[^»]{2,240}»")
_ARROW = re.compile(r"→|->|=>|⟶|⇒|➜|➔|»|(?<=\s)>(?=\s)")
_STRONG_THEN = re.compile(r"\bthen\b|\bnext\b|followed\s+by|→|->|=>|⟶|⇒|➜|➔|»|(?<=\s)>(?=\s)"
                          r"|(?:straight|directly|immediately)\s+(?:back\s+)?to|"
                          r"\bfall(?:s|ing)?\s+(?:straight\s+)?back\s+to|\bdrops?\s+to|"
                          r"\bdegrades?\s+to|\bretries\s+at|\bsteps?\s+down\s+to", re.I)
_ADJACENT = re.compile(r"→|->|=>|⟶|⇒|➜|➔|\bthen\b|\bnext\b|straight|directly|immediately|"
                       r"\bfalls?\s+back\s+to|\bretries\s+at", re.I)
_FILLER = re.compile(
    r"\b(?:the|a|an|and|or|lanes?|rungs?|machines?|vms?|on|capacity|misses|miss|at|widths?|"
    r"finally|only|down|to|gpus?|backends?|one|comes?|is|are|tried|try|tries|first|last|"
    r"boxes|nodes?|instances?|pools?|cloud|cluster|provisioning|models?|jobs?|then|next|"
    r"after|that|fall(?:s)?|back|falling|degrades?|drops?|from|with|of|in|order|resort|"
    r"followed|by|straight|directly|it|if|still|dry|full|goes|go|move|moves|over|"
    r"preempt|lane|queue|as|s|own|family|families|rung|types?|\d+|gpu|requests?|"
    r"narrower|wider|smaller|router|dispatch(?:er)?|we|job|jobs|sends?|moves?|"
    r"steps?|retries|retry|tries|falls|[a-z]\))\b"
    r"|[,:()/\[\]→>\-–—=⟶⇒➜➔»+&|]|\s", re.I)
_PRICE = re.compile(r"\$\s?\d|\d\s?(?:usd|eur)\b|/h(?:ou)?r\b|per\s+hour\b", re.I)
_PERMISSION = re.compile(r"\b(?:allow\w*|permit\w*|support\w*|offer\w*|available|never|no|not|"
                         r"n't|cannot|can|may|might|only|use[sd]?|using|run[s]?|gets?|takes?|"
                         r"come[s]?|launch\w*|provision\w*|tried|tries|eligible|forbidden|"
                         r"excluded|includ\w*|is|are)\b|n't\b|❌|✅", re.I)
_CLAUSE_JOINT = re.compile(r",\s+(?:so|but|and\s+so|which|because|since|yet|while|whereas|"
                           r"and\s+then|hence|thus)\b|\s\((?=[^)]*\))", re.I)
_COND = re.compile(r"^\s*(?:if|when|whenever|unless|once|where|while)\b[^,]*,", re.I)
_KEY_ORDER = re.compile(r"\b(?:order|sequence|ladder|priority|priorities|fallbacks?|failover|"
                        r"chain|rungs|preference|walk|path|families|lanes|widths|backends)"
                        r"\s*(?:is|are)?\s*[:=]\s*$", re.I)
_IN_ORDER = re.compile(r"\bin\s+(?:this|that|the\s+following|config)?\s*order\b|"
                       r"\bin\s+order\b|\bordered\b|\bone\s+after\s+the\s+other\b", re.I)
_STRONG_CONTEXT = re.compile(
    r"\b(?:rout(?:e|es|er|ing)|dispatch\w*|fall\s*back|fallbacks?|failover|rungs?|ladder|"
    r"capacity|stockouts?|backend-router|exhausted|misses)\b", re.I)
# Length classes and widths are ladder facts only where the text is about the
# ladder: a provisioning model, a lead, rungs, the router. "Short (<24h): the
# gpu-short QoS" and "15x H100 nodes" are about something else.
_LENGTH_TOPIC = re.compile(r"\b(?:lead(?:s|ing)?|rungs?|ladder|rout(?:e|er|ing)|dispatch\w*|"
                           r"degrad\w*|backends?|provisioning|spot|flex[_ -]?start|"
                           r"(?-i:STANDARD)|on[- ]demand|"
                           r"preemptible|dws|threshold|cut-?off|length\s+class(?:es)?|wall-?clock|"
                           r"counts?\s+as\s+(?:a\s+)?(?:short|long)|"
                           r"(?:short|long)\s+(?:jobs?|runs?|phases?)\s+(?:are|is|means?)|"
                           r"short\s*(?:vs\.?|versus|/|and|or)\s*long|long\s*(?:vs\.?|/)\s*short)\b",
                           re.I)
_WIDTH_TOPIC = re.compile(r"\bwidths?\b|\bdegrad\w*|\bnarrow\w*|\brungs?\b|\bfalls?\s+back|"
                          r"\bladder\b|\bre-?shard\w*|\bhalv\w*", re.I)
_CLASS_WORDS = re.compile(r"\b(?:jobs?|runs?|phases?|work(?:loads?)?|tasks?|ones|dispatch(?:es)?|"
                          r"requests?)\b", re.I)
_MAX_CUE = re.compile(r"\b(?:max(?:imum)?|at\s+most|up\s+to|limit(?:ed)?|cap(?:ped)?|fits?|"
                      r"no\s+longer\s+than|longer\s+than|beyond|exceed\w*|run\s+duration|"
                      r"capped|ceiling|within|over|more\s+than|under|below|past|only\s+(?:where|"
                      r"for|when|if))\b", re.I)
_MIN_CUE = re.compile(r"\b(?:min(?:imum)?|at\s+least|never\s+(?:\w+\s+){0,2}below|not\s+below|"
                      r"floor|no\s+(?:narrower|further|lower)\s+than|never\s+(?:narrower|"
                      r"lower)|stops?\s+at|bottoms?\s+out)\b", re.I)
_REACH_CUE = re.compile(r"\b(?:degrades?\s+(?:down\s+)?to|down\s+to|run\s+(?:at|on)|runs?\s+at|"
                        r"retried\s+(?:at|on)|falls?\s+(?:back\s+)?to|"
                        r"asks?\s+for|requests?|lands?\s+on|tries|try|uses?|gets?|"
                        r"drops?\s+to|goes\s+(?:down\s+)?to|all\s+the\s+way|as\s+narrow\s+as|"
                        r"fall\s+back\s+to|can\s+(?:\w+\s+){0,2}at|reaches?)\b", re.I)
_AUTO = re.compile(r"\bauto(?:matic(?:ally)?)?[- ]?(?:ladder|dispatch|routing|walk)?\b|"
                   r"\bby\s+default\b|\bwithout\s+(?:an?\s+)?explicit\b|\bon\s+its\s+own\b|"
                   r"\bby\s+itself\b|\bdefault\s+ladder\b", re.I)
_EXPLICIT = re.compile(r"\bexplicit(?:ly)?[- ](?:intent|opt[- ]in|request|only|flag)|"
                       r"\bopt[- ]in\b|\bmanual(?:ly)?\b|\bby\s+hand\b|\bhand[- ]picked\b|"
                       r"\bon\s+request\b|\breserved\s+for\b|\bskips?\b[^.;]*\bunless\b|"
                       r"\bonly\s+(?:when|if)\s+(?:\w+\s+){0,4}(?:asks?|requests?|explicit)", re.I)


@dataclass
class Sentence:
    start: int  # offsets in the unit's text
    end: int
    text: str  # the unit text of this sentence, quotes blanked (same length)
    tokens: list[Token]  # offsets in the unit's text
    context: bool = False  # about routing (itself or its section)
    history: bool = False
    question: bool = False
    props: list[Prop] = field(default_factory=list)


# ---- sentences and tokens --------------------------------------------------------------------

def split_sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end() if text[m.start()] in ".!?" else m.start()
        if text[start:end].strip():
            yield start, end
        start = m.end()
    if text[start:].strip():
        yield start, len(text)


def _blank_quotes(text: str) -> str:
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def tag_sentence(lexicon: Lexicon, text: str, start: int, end: int) -> Sentence:
    body = _blank_quotes(text[start:end])
    tokens = [Token(t.kind, t.value, t.start + start, t.end + start) for t in lexicon.tag(body)]
    sentence = Sentence(start, end, body, tokens)
    sentence.history = any(t.kind == "history" for t in tokens)
    sentence.question = body.rstrip().endswith("?") or bool(
        re.match(r"\s*(?:\*\*)?q\s*[:.]", body, re.I))
    return sentence


# ---- terms: one orderable thing, maybe written with several tokens ------------------------

@dataclass
class TermTok:
    term: tuple  # (kind, value)
    start: int
    end: int


def _gap(text: str, a_end: int, b_start: int, base: int) -> str:
    return text[a_end - base:b_start - base]


def terms(sentence: Sentence) -> list[TermTok]:
    """Orderable and model tokens merged into terms: '1× GCP rungs' is the GCP
    width 1; 'a2-ultragpu-8g (8×)' is one machine type; 'STANDARD (on-demand)'
    is one model."""
    out: list[TermTok] = []
    base = sentence.start
    for tok in sentence.tokens:
        if tok.kind not in ("backend", "lane", "family", "width", "model"):
            continue
        if tok.kind == "width" and _multiplier(sentence.text, tok.start - base, tok.end - base):
            continue  # "10× faster", "2-5x improvement": a factor, not a width
        term = (tok.kind, tok.value)
        if tok.kind == "family":
            term = ("family", tok.value)
        if out:
            prev = out[-1]
            gap = _gap(sentence.text, prev.end, tok.start, base)
            tight = not gap.strip(" (/`*") or gap.strip() in ("(", "/", "-")
            merged = _merge(prev.term, term) if tight else None
            if merged is not None:
                end = tok.end
                if "(" in gap and sentence.text[end - base:end - base + 1] == ")":
                    end += 1  # "STANDARD (on-demand)" is one term, brackets and all
                out[-1] = TermTok(merged, prev.start, end)
                continue
        out.append(TermTok(term, tok.start, tok.end))
    return out


_FACTOR_AFTER = re.compile(r"\s*(?:\w+\s+)?(?:faster|slower|speed\w*|more|less|fewer|cheaper|"
                           r"pricier|"
                           r"improvement|compression|reduction|better|worse|larger|smaller|bigger|"
                           r"higher|lower|vs\.?|versus|increase|decrease|throughput|savings|cost|"
                           r"the\s+(?:cost|price|speed|throughput)|as\s+(?:fast|much|many)|zoom|"
                           r"magnif\w*|over\s+(?:baseline|grid))\b", re.I)
_FACTOR_BEFORE = re.compile(r"(?:\d\s*[-–]\s*|\bby\s+|~|≈|\babout\s+|\bnearly\s+)$", re.I)


def _multiplier(text: str, start: int, end: int) -> bool:
    return bool(_FACTOR_AFTER.match(text[end:end + 30]) or
                _FACTOR_BEFORE.search(text[max(0, start - 10):start]))


def _merge(a: tuple, b: tuple) -> tuple | None:
    if a == b:
        return a
    ka, kb = a[0], b[0]
    pair = {ka, kb}
    if pair == {"width", "backend"}:
        w, bk = (a, b) if ka == "width" else (b, a)
        return w if bk[1] == "gcp" else None
    if pair == {"width", "family"}:
        w, f = (a, b) if ka == "width" else (b, a)
        if f[1][1] in (None, w[1]):
            return ("family", (f[1][0], w[1]))
        return None
    if pair == {"family", "backend"}:
        f, bk = (a, b) if ka == "family" else (b, a)
        return f if bk[1] == "gcp" else None
    if pair == {"lane", "backend"}:
        lane, bk = (a, b) if ka == "lane" else (b, a)
        return lane if bk[1] == "slurm" else None
    if pair == {"family", "model"}:
        f, m = (a, b) if ka == "family" else (b, a)
        return ("rung", (f[1][0], f[1][1], m[1]))
    if pair == {"width", "model"}:
        w, m = (a, b) if ka == "width" else (b, a)
        return ("rung", (None, w[1], m[1]))
    if ka == "rung" and kb in ("family", "width", "model"):
        fam, width, model = a[1]
        if kb == "family" and fam is None:
            return ("rung", (b[1][0], width or b[1][1], model))
        if kb == "width" and width is None:
            return ("rung", (fam, b[1], model))
        if kb == "model" and model == b[1]:
            return a
    return None


def _family(term: tuple) -> str:
    return term[1][0]


def orderable(term: tuple) -> bool:
    return term[0] in ORDERABLE


# ---- the readers -------------------------------------------------------------------------------

class Reader:
    """Reads one sentence, with the unit text for spans and the lexicon."""

    def __init__(self, sentence: Sentence, unit_text: str, lexicon: Lexicon,
                 heading: str, facts: Facts) -> None:
        self.s = sentence
        self.facts = facts
        self.unit_text = unit_text
        self.lexicon = lexicon
        self.heading = heading
        self.tokens = sentence.tokens
        self.terms = terms(sentence)
        self.props: list[Prop] = []
        self.procedural = bool(lexicon.procedural.search(sentence.text)) and \
            not _STRONG_CONTEXT.search(sentence.text)

    # -- helpers --

    def text(self, start: int, end: int) -> str:
        return self.s.text[start - self.s.start:end - self.s.start]

    def kinds(self, kind: str) -> list[Token]:
        return [t for t in self.tokens if t.kind == kind]

    def clause_start(self, position: int) -> int:
        """Start of the clause that holds `position`: after the last ':', ';' or
        dash before it, and after a leading 'if …,' condition."""
        floor = self._main_start()
        head = self.s.text[:max(0, position - self.s.start)]
        cut = max(head.rfind(":"), head.rfind(";"), head.rfind(" — "), head.rfind(" – "),
                  head.rfind(" | "))
        joint = list(_CLAUSE_JOINT.finditer(head))
        if joint:
            cut = max(cut, joint[-1].start())
        return max(floor, self.s.start + cut + 1) if cut >= 0 else floor

    def negated_before(self, position: int, since: int | None = None) -> bool:
        """A negation in the clause before `position` (or since `since`)."""
        floor = self.clause_start(position) if since is None else since
        for t in self.tokens:
            if t.kind == "neg" and floor <= t.start < position:
                word = self.unit_text[t.start:t.end].lower()
                if word == "no" and not self._no_negates(t):
                    continue
                if word in ("without", "skip", "avoid") and t.start > floor + 40:
                    continue
                return True
        return False

    def _no_negates(self, t: Token) -> bool:
        after = self.unit_text[t.end:t.end + 30].lower()
        return not re.match(r"\s+(?:capacity|quota|gpus?|machines?|free|spot\s+capacity|"
                            r"room|luck|one|jobs?|lane|later|sharding|wait)", after)

    def _main_start(self) -> int:
        m = _COND.match(self.s.text)
        return self.s.start + (m.end() if m else 0)

    def add(self, kind: str, args: tuple, start: int, end: int, negated: bool = False,
            topic: str = "", fix: tuple = ()) -> None:
        self.props.append(Prop(kind, args, negated, start, end, topic, fix))

    # -- run --

    def read(self) -> list[Prop]:
        if self.s.history or self.s.question or self.s.end - self.s.start > MAX_SENTENCE:
            return []  # an unpunctuated transcript is not a sentence anyone can act on
        self.read_chains()
        self.read_conditional()
        self.read_only_after()
        self.read_position()
        self.read_before_after()
        self.read_first_last()
        self.read_provisioning()
        self.read_lengths()
        self.read_flex_max()
        self.read_min_width()
        self.read_auto()
        self.read_widths()
        self.read_direction()
        return self.props

    # -- order: chains --

    def read_chains(self) -> None:
        ts = [t for t in self.terms if orderable(t.term) or t.term[0] == "model"]
        if len(ts) < 2:
            return
        groups = self._paren_groups()
        run: list[TermTok] = [ts[0]]
        strong = [False]
        keyed = bool(_KEY_ORDER.search(self.text(self.s.start, ts[0].start)) or
                     _IN_ORDER.search(self.s.text))
        for t in ts[1:]:
            gap = self.text(run[-1].end, t.start)
            link = self._link(gap) if groups(run[-1].start) == groups(t.start) else None
            if link is None:
                self._emit_chain(run, strong, keyed)
                run, strong = [t], [False]
                keyed = bool(_KEY_ORDER.search(self.text(self.s.start, t.start)) or
                             _IN_ORDER.search(self.s.text))
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
        if re.search(r"\b(?:before|after|not|never|no|but|unless|except|instead|rather|beside|"
                     r"besides|alongside|plus|vs|versus|than|while|whereas|because|for|when|"
                     r"if)\b|n't|[.;!?]|\s\|\s", gap, re.I):
            return None
        has_then = bool(_STRONG_THEN.search(gap)) or bool(
            re.fullmatch(r"\s+to\s+|\s+(?:\w+\s+){0,3}to\s+", gap) and
            re.search(r"\b(?:narrow|degrade|drop|fall|send|move|step|shrink|retr)", self.s.text,
                      re.I))
        if _FILLER.sub("", gap).strip():
            return None
        if has_then:
            return True
        return False if re.search(r"[,/]|\band\b|\bor\b", gap) else None

    def _emit_chain(self, run: list[TermTok], strong: list[bool], keyed: bool) -> None:
        if not keyed and len(run) >= 3 and all(t.term[0] == "width" for t in run) and \
                _WIDTH_TOPIC.search(self.s.text):
            keyed = True  # "the width goes 1×, 2×, 4×, 8×" lists the steps in order
        keyed = keyed and not any(strong)
        if len(run) < 2 or not (any(strong) or keyed):
            return
        if not self.s.context and not (
                _ARROW.search(self.text(run[0].start, run[-1].end)) and
                all(t.term[0] in ("backend", "lane") for t in run)):
            return
        if all(t.term[0] == "width" for t in run) and not self._own_width_context():
            return  # "speed 1x -> 2x -> 4x" under a routing heading is still a video player
        if self.procedural:
            return
        models = [t for t in run if t.term[0] == "model"]
        if models and len(models) == len(run):
            return self._emit_model_chain(run)
        items = [t for t in run if orderable(t.term)]
        for i in range(1, len(items)):
            a, b = items[i - 1], items[i]
            if a.term == b.term:
                continue
            self.add("order", (a.term, b.term), a.start, b.end, topic="order")
            link_text = self.text(a.end, b.start)
            if (_ADJACENT.search(link_text) or (keyed and "," in link_text)) and \
                    not re.search(r"down\s+to|on\s+capacity", link_text, re.I):
                self.add("skip", (a.term, b.term), a.start, b.end, topic="order")

    def _emit_model_chain(self, run: list[TermTok]) -> None:
        kind = self.length_class(run[0].start)
        models = tuple(t.term[1] for t in run)
        if kind:
            self.add("class-order", (kind, models), run[0].start, run[-1].end,
                     topic="length-aware order")
        else:
            for a, b in itertools.pairwise(run):
                if a.term != b.term:
                    self.add("order", (a.term, b.term), a.start, b.end, topic="order")

    # -- order: before / after --

    def read_before_after(self) -> None:
        cues = [t for t in self.tokens if t.kind in ("before", "after")]
        self._between()
        if self.s.context and not self.procedural:
            self._prefer()
            self._fallback_for()
        if not cues or self.procedural or not self.s.context:
            return
        kind = self.length_class(cues[0].start)
        ords = [t for t in self.terms if orderable(t.term) or
                (kind and t.term[0] == "model")]
        if len(ords) < 2:
            return
        first_cue = cues[0]
        floor = self.clause_start(first_cue.start)
        subjects = [t for t in ords if floor <= t.start and t.end <= first_cue.start] or \
            [t for t in ords if t.end <= first_cue.start]
        if not subjects:
            self._leading_cue(first_cue, ords)
            return
        subject = subjects[-1]
        for i, cue in enumerate(cues):
            stop = cues[i + 1].start if i + 1 < len(cues) else self.s.end
            objects = [t for t in ords if cue.end <= t.start < stop]
            if not objects:
                continue
            negated = self.negated_before(cue.start, since=self.clause_start(subject.start))
            tight = re.search(r"\b(?:right|immediately|directly|straight|just)\s*$",
                              self.unit_text[max(self.s.start, cue.start - 14):cue.start], re.I)
            for obj in objects:
                if obj.term == subject.term:
                    continue
                a, b = (subject, obj) if cue.kind == "before" else (obj, subject)
                self._order(a.term, b.term, subject.start, obj.end, negated, kind)
                if tight and a.term[0] == b.term[0]:
                    self.add("skip", (a.term, b.term), subject.start, obj.end, negated,
                             topic="order")

    _EXHAUSTED = (r"miss(?:es|ed)?|(?:is|are)\s+(?:exhausted|dry|full|out|busy|unavailable)|"
                  r"(?:has|have)\s+no\s+(?:capacity|room|gpus|pods|slots|machines)|"
                  r"(?:fails?|run\s+out)|(?:is|are)\s+out\s+of\s+capacity|stock\s*out")

    def read_conditional(self) -> None:
        """'If GCP has no capacity, go to RunPod' and 'RunPod is the fallback
        when GCP is out of capacity': B is what comes right after A."""
        if self.procedural:
            return
        lead = re.match(rf"\W*(?:if|when|whenever|once|after|as\s+soon\s+as)\b([^,;:]*?)\b"
                        rf"(?:{self._EXHAUSTED})\b[^,;:]*[,;:]", self.s.text, re.I)
        if lead:
            cut = self.s.start + lead.end()
            cond = [t for t in self.terms if orderable(t.term) and t.start < cut]
            main = [t for t in self.terms if orderable(t.term) and t.start >= cut]
            rest = self.text(cut, self.s.end)
        else:
            tail = re.search(rf"\b(?:if|when|whenever|once|as\s+soon\s+as)\b([^,;:]*?)\b"
                             rf"(?:{self._EXHAUSTED})\b", self.s.text, re.I)
            if not tail or tail.start() == 0 or re.search(r"\bonly\s*$",
                                                          self.s.text[:tail.start()], re.I):
                return
            cut = self.s.start + tail.start()
            main = [t for t in self.terms if orderable(t.term) and t.start < cut][:1]
            cond = [t for t in self.terms if orderable(t.term) and
                    cut <= t.start < self.s.start + tail.end()]
            rest = self.text(self.s.start, cut)
        if not cond or not main:
            return
        if re.search(r"\b(?:also|too|as\s+well|still|eventually|finally|later)\b", rest, re.I):
            return
        a, b = cond[-1], main[0]
        negated = self.negated_before(b.start, since=min(b.start, cut))
        if a.term[0] == b.term[0] == "width" and a.term != b.term:
            self.add("order", (a.term, b.term), b.start, b.end, negated, topic="width chain")
            self.add("skip", (a.term, b.term), b.start, b.end, negated, topic="width chain")
        if {a.term[0], b.term[0]} <= {"backend", "lane", "width", "family"} and \
                b.term[0] not in ("width", "family") and a.term != b.term:
            self.add("order", (a.term, b.term), b.start, b.end, negated, topic="order")
            # "as soon as the 1× rungs miss, RunPod": GCP straight to RunPod
            stage = ("backend", "gcp") if a.term[0] in ("width", "family") else a.term
            if stage[0] == b.term[0] == "backend" and stage != b.term:
                self.add("skip", (stage, b.term), b.start, b.end, negated, topic="order")

    def read_only_after(self) -> None:
        """'RunPod only after GCP is exhausted': everything before it is named."""
        m = re.search(r"\bonly\s+after\b|\bonly\s+(?:when|once|if)\b(?=[^.;]*\b(?:exhausted|"
                      r"miss|misses|missed|dry|fail|fails|failed|full|busy|unavailable|"
                      r"out\s+of\s+capacity|run\s+out|no\s+(?:capacity|pods|room|gpus|slots))\b)",
                      self.s.text, re.I)
        if not m or self.procedural or not self.s.context:
            return
        at = self.s.start + m.start()
        if re.match(r"\W*(?:that|this|those|these|then)\b", self.s.text[m.end():], re.I):
            # "…, then RunPod, and only after that campus-a100": what follows comes after
            before = [t for t in self.terms if orderable(t.term) and t.end <= at]
            after = [t for t in self.terms if orderable(t.term) and t.start > at]
            if before and after and before[-1].term != after[0].term:
                self.add("order", (before[-1].term, after[0].term), after[0].start,
                         after[0].end, self.negated_before(at), topic="order")
            return
        subjects = [t for t in self.terms if t.term[0] == "backend" and t.end <= at]
        cell_end = self.s.text.find(" | ", at - self.s.start)
        stop = self.s.start + cell_end if cell_end >= 0 else self.s.end
        named = [t for t in self.terms if orderable(t.term) and at < t.start < stop]
        if not subjects or not named:
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

    def read_position(self) -> None:
        """'RunPod is the second stop', 'campus-preempt: tried second'."""
        if not self.s.context or self.procedural:
            return
        for m in re.finditer(r"\b(second|third|fourth)\s+(?:choice|option|stop|rung|tier|"
                             r"backend|step|fallback|place|priority)|(?<=\|\s)(second|third|"
                             r"fourth|2nd|3rd|4th)\b|\b(?:tried|used|comes|goes|placed|ranked|"
                             r"listed)\s+(second|third|fourth)\b", self.s.text, re.I):
            at = self.s.start + m.start()
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

    def _order(self, a: tuple, b: tuple, start: int, end: int, negated: bool,
               kind: str | None) -> None:
        if a[0] == "model" and b[0] == "model":
            if kind:
                self.add("class-order", (kind, (a[1], b[1])), start, end, negated,
                         topic="length-aware order")
            return
        if a[0] == "model" or b[0] == "model":
            return
        self.add("order", (a, b), start, end, negated, topic="order")

    def _prefer(self) -> None:
        """'The router prefers RunPod over the campus cluster'."""
        m = re.search(r"\bprefer(?:s|red)?\b", self.s.text, re.I)
        if not m:
            return
        at = self.s.start + m.end()
        over = re.search(r"\b(?:over|to|ahead\s+of|rather\s+than)\b", self.s.text[m.end():], re.I)
        if not over:
            first = [t for t in self.terms if orderable(t.term) and t.start >= at][:1]
            if first and first[0].term[0] == "lane":  # "within SLURM, prefer campus-preempt"
                self.add("first-lane", (first[0].term,), first[0].start, first[0].end,
                         self.negated_before(at), topic="order")
            return
        cut = at + over.start()
        ords = [t for t in self.terms if orderable(t.term)]
        xs = [t for t in ords if at <= t.start < cut]
        ys = [t for t in ords if t.start >= cut + len(over.group(0))]
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
            self.add("order", (ys[0].term, xs[-1].term), xs[-1].start, ys[0].end,
                     self.negated_before(end), topic="order")

    def _between(self) -> None:
        """'RunPod sits between the GCP rungs and the SLURM lanes'."""
        m = re.search(r"\bbetween\b", self.s.text, re.I)
        if not m or not self.s.context:
            return
        at = self.s.start + m.start()
        ords = [t for t in self.terms if orderable(t.term)]
        subject = [t for t in ords if t.end <= at]
        objects = [t for t in ords if t.start > at][:2]
        if not subject or len(objects) != 2:
            return
        x = subject[-1]
        negated = self.negated_before(at)
        for a, b in ((objects[0], x), (x, objects[1])):
            if a.term != b.term:
                self.add("order", (a.term, b.term), x.start, x.end, negated, topic="order")

    def _leading_cue(self, cue: Token, ords: list[TermTok]) -> None:
        """'After the 1× GCP rungs come the SLURM lanes'; 'Before RunPod, try SLURM'."""
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
        for obj in objects:
            if obj.term == subject.term:
                continue
            a, b = (subject, obj) if cue.kind == "before" else (obj, subject)
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
            target = self._attach(cue, word)
            if target is None or not (self.s.context or word.startswith(("lead", "last resort"))):
                continue
            negated = self.negated_before(min(cue.start, target.start) if
                                          target.start > cue.start else cue.start)
            if cue.kind == "first" and re.match(r"first\b", word) and \
                    self._ordinal_first(cue):
                continue
            kind = cue.kind
            if target.term[0] == "lane" and not re.search(
                    r"resort|\b(?:overall|whole\s+ladder|entire\s+ladder|of\s+all|everything)\b",
                    self.s.text, re.I):
                kind += "-lane"  # "campus-preempt last": last of the SLURM lanes
            self.add(kind, (target.term,), target.start, target.end, negated, topic="order")

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
            if not nxt or not orderable(nxt[0].term):
                return None
            gap = self.text(cue.end, nxt[0].start)
            return nxt[0] if len(gap) <= 20 else None
        best = None
        if before:
            gap = self.text(before[-1].end, cue.start)
            if (len(gap) <= 40 and not re.search(r"[,;]|\b(?:and|then|before|after)\b", gap)) \
                    or re.fullmatch(r"\s*(?:is|are|as|comes?|goes|stays?|remains?)?\s*"
                                    r"(?:the|a|an)?\s*", gap, re.I):
                best = before[-1]
        if after:
            gap = self.text(cue.end, after[0].start)
            if re.fullmatch(r"\s*(?:rung|choice|option|stop|backend|lane|fallback|resort)?"
                            r"\s*(?:is|are|:|,|—|-)?\s*(?:the|a|always)?\s*", gap, re.I) and \
                    (best is None or len(gap) < len(self.text(best.end, cue.start))):
                best = after[0]
        return best

    def _nearest_model(self, cue: Token) -> bool:
        return any(t.term[0] in ("model", "rung") and abs(t.start - cue.end) < 30
                   for t in self.terms)

    # -- provisioning per family --

    def read_provisioning(self) -> None:
        fams = [t for t in self.terms if t.term[0] in ("family", "rung") and
                (t.term[0] == "family" or t.term[1][0])]
        models = [t for t in self.terms if t.term[0] == "model"]
        if not fams or (not models and not any(t.term[0] == "rung" for t in fams)):
            return
        if self.length_class(self.s.start) or (self.kinds("first") and not self.kinds("only")):
            return
        if _PRICE.search(self.s.text):
            return  # "H100: $2.25 spot vs $7.50 on-demand" is a price list, not a policy
        if self._model_only_on_family(fams, models):
            return
        if not self.s.context and not any(self._machine_type(t) for t in fams):
            return  # "use on-demand H100 for critical paths" in a cost guide is not our ladder
        permission = _PERMISSION.search(self.s.text) or re.search(r"[:=|]", self.s.text) or \
            re.search(r"[-/]only\b|\bonly\b", self.s.text, re.I)
        if not permission:
            return
        segments = self._segments([t.start for t in fams])
        carried: list[str] = []
        coordinated = re.search(r"\b(?:both|either|all|each)\b", self.s.text, re.I)
        for fam_tok, (seg_start, seg_end) in zip(fams, segments, strict=False):
            family = _family(fam_tok.term)
            seg_models = [t for t in models if seg_start <= t.start < seg_end]
            names = list(dict.fromkeys(t.term[1] for t in seg_models))
            if fam_tok.term[0] == "rung" and fam_tok.term[1][2]:
                names = [fam_tok.term[1][2], *[n for n in names if n != fam_tok.term[1][2]]]
            seg_text = self.text(seg_start, seg_end)
            only = re.search(r"(?<![\w])only\b|\bexclusively\b|\bsolely\b|\bjust\b", seg_text, re.I)
            if not names and (coordinated or re.search(
                    r"\b(?:does|do|is|are)\s*(?:not|n't)\b|n't\b|\btoo\b|\balso\b|as\s+well",
                    seg_text, re.I)):
                names = carried
            if not names:
                continue
            carried = names
            negated = self.negated_before(seg_end, since=max(seg_start,
                                                             self.clause_start(fam_tok.start)))
            table_row = "|" in seg_text
            if only or (table_row and len(names) > 1 and not negated):
                self.add("only", (family, tuple(names)), fam_tok.start, fam_tok.end, negated,
                         topic="provisioning")
            else:
                for name in names:
                    self.add("permits", (family, name), fam_tok.start, fam_tok.end, negated,
                             topic="provisioning")

    def _machine_type(self, t: TermTok) -> bool:
        """Written as one of the config's machine types ('a3-highgpu-8g'), which
        names our ladder's family, not a GPU in general."""
        mention = self.unit_text[t.start:t.end].lower()
        return any(f.machine_type_template.split("{", 1)[0].rstrip("-").lower() in mention
                   for f in self.facts.config.families.values())

    def _model_only_on_family(self, fams: list[TermTok], models: list[TermTok]) -> bool:
        """'Regular VMs are an option for the A100 family only', 'SPOT only on
        a3-highgpu': the model is allowed there and nowhere else."""
        fam = fams[0]
        if len(fams) != 1 or not models or models[0].start > fam.start:
            return False
        near = self.text(models[-1].end, fam.end + 30)
        if not re.search(r"\bonly\s+(?:on|for|with|in|to)\b|^[^.;]{0,60}?"
                         + re.escape(self.text(fam.start, fam.end)) + r"\W+(?:\w+\s+){0,2}only\b",
                         near, re.I):
            return False
        family = _family(fam.term)
        negated = self.negated_before(fam.start)
        for m in models:
            self.add("permits", (family, m.term[1]), fam.start, fam.end, negated,
                     topic="provisioning")
            for other in self.facts.families_in_order():
                if other != family:
                    self.add("permits", (other, m.term[1]), fam.start, fam.end, not negated,
                             topic="provisioning")
        return True

    def _segments(self, starts: list[int]) -> list[tuple[int, int]]:
        """Split the sentence between families at clause joints."""
        out = []
        for i, start in enumerate(starts):
            seg_start = start
            if i == 0:
                seg_start = self.s.start
            else:
                joint = list(re.finditer(r",|\bbut\b|\bwhile\b|\bwhereas\b|\band\b|—|\|", self.text(
                    starts[i - 1], start)))
                seg_start = starts[i - 1] + joint[-1].start() if joint else start
                if out:
                    out[-1] = (out[-1][0], seg_start)
            out.append((seg_start, self.s.end))
        return out

    # -- length classes, thresholds, leads ---------------------------------------------------------

    def length_class(self, near: int) -> str | None:
        """'short' or 'long' when the sentence is about a length class."""
        classes = [t for t in self.tokens if t.kind in ("short", "long")]
        if not classes:
            return None
        scored = sorted(classes, key=lambda t: abs(t.start - near))
        for t in scored:
            tail = self.unit_text[t.end:t.end + 25]
            if _CLASS_WORDS.match(tail.strip(" -*`")) or re.match(r"\s*[:(|]", tail) or \
                    re.search(r"\b(?:is|are|counts?\s+as|as|considered|classed\s+as|be|means?)\s*$",
                              self.unit_text[max(0, t.start - 25):t.start], re.I) or \
                    re.match(r"\s*(?:=|means|means\s+|:)", tail) or \
                    (re.search(r"\|\s*$", self.unit_text[max(0, t.start - 4):t.start]) and
                     re.match(r"\s*(?:\||$)", tail)):  # a table cell that is just the class
                return t.kind
        return None

    def read_lengths(self) -> None:
        if not (_LENGTH_TOPIC.search(self.s.text) or _LENGTH_TOPIC.search(self.heading)):
            return
        models = [t for t in self.terms if t.term[0] in ("model", "rung")]
        durations = self.kinds("duration")
        classes = [t for t in self.tokens if t.kind in ("short", "long")]
        if durations and self._worked_example(durations, models, classes):
            return
        if classes:
            self._read_threshold(classes, durations)
            gh = re.search(r"\d+(?:\.\d+)?\s*gpu[- ]?h(?:ours?|rs?)?\b", self.s.text, re.I)
            if gh and not durations and self.length_class(self.s.start + gh.start()):
                at = self.s.start + gh.start()
                self.add("threshold-unit", ("GPU-hours",), at, at + len(gh.group(0)),
                         self.negated_before(at), topic="length threshold")
        if not models:
            return
        segments = self._class_segments(classes)
        for kind, seg_start, seg_end, anchor in segments:
            seg_models = [t for t in models if seg_start <= t.start < seg_end]
            if not seg_models or kind is None:
                continue
            self._read_lead(kind, anchor, seg_models, seg_start, seg_end)
        if not classes and durations:
            self._read_lead_at(durations, models)

    def _class_segments(self, classes: list[Token]):
        """Each class word owns the text up to the next class word; a model
        before the first class word ('SPOT leads short jobs') belongs to it."""
        classes = [c for c in classes if self.length_class(c.start) == c.kind or
                   _CLASS_WORDS.match(self.unit_text[c.end:c.end + 20].strip(" -*`"))]
        if not classes:
            return []
        out = []
        for i, c in enumerate(classes):
            start = self.s.start if i == 0 else c.start
            if i:
                joint = list(re.finditer(r"[,;]|\band\b|\bwhile\b|\bwhereas\b|\bbut\b",
                                         self.text(classes[i - 1].end, c.start)))
                if joint:
                    start = classes[i - 1].end + joint[-1].start()
                    out[-1] = (out[-1][0], out[-1][1], start, out[-1][3])
            out.append((c.kind, start, self.s.end, c))
        return out

    def _read_lead(self, kind: str, anchor: Token, models: list[TermTok], start: int,
                   end: int) -> None:
        seg = self.text(start, end)
        names = [t.term[1] if t.term[0] == "model" else t.term[1][2] for t in models]
        names = [n for n in names if n]
        if not names:
            return
        firsts = [t for t in self.tokens if t.kind == "first" and start <= t.start < end]
        lasts = [t for t in self.tokens if t.kind == "last" and start <= t.start < end]
        has_chain = len(names) > 1 and bool(_STRONG_THEN.search(seg) or re.search(r"[,|]", seg))
        negated = self.negated_before(end, since=start)
        if not self.s.context and not firsts and not lasts:
            return  # "| Multi-day training | Spot |" in a cost guide is advice, not our ladder
        if has_chain and not firsts and not lasts:
            self.add("class-order", (kind, tuple(dict.fromkeys(names))), models[0].start,
                     models[-1].end, negated, topic="length-aware lead")
            return
        if has_chain and firsts and _STRONG_THEN.search(seg):
            self.add("class-order", (kind, tuple(dict.fromkeys(names))), models[0].start,
                     models[-1].end, negated, topic="length-aware lead")
            return
        if lasts:
            cue = lasts[0]
            model = min(models, key=lambda t: abs(t.start - cue.start))
            name = model.term[1] if model.term[0] == "model" else model.term[1][2]
            self.add("class-last", (kind, name), model.start, model.end, negated,
                     topic="length-aware lead", fix=((model.start, model.end, ""),))
            return
        model = models[0]
        name = model.term[1] if model.term[0] == "model" else model.term[1][2]
        if firsts or re.search(r"[:=→]|\|", seg):
            self.add("lead", (kind, name), model.start, model.end, negated,
                     topic="length-aware lead", fix=((model.start, model.end, ""),))
        elif re.search(r"\b(?:use|uses|used|get|gets|take|takes|try|tries|tried|land|lands|"
                       r"run|runs|go|goes|see|sees|offered|allowed|eligible)\b", seg, re.I):
            # "long jobs never try SPOT": which models a length class is offered
            self.add("class-offers", (kind, name), model.start, model.end, negated,
                     topic="length-aware lead")

    def _read_threshold(self, classes: list[Token], durations: list[Token]) -> None:
        cut_word = re.search(r"\b(?:threshold|cut-?off|boundary|split|line|dividing)\b",
                             self.s.text, re.I)
        classes = [c for c in classes if cut_word or self.length_class(c.start) == c.kind]
        if not classes:
            return
        for d in durations:
            cmp = self._comparator(d)
            cls = min(classes, key=lambda c: abs(c.start - d.start))
            if abs(cls.start - d.start) > 60:
                continue
            word = cut_word
            near_word = bool(word) and abs(self.s.start + word.start() - d.start) <= 16
            defining = near_word or (cls.start < d.start and not word)
            negated = self.negated_before(max(d.start, cls.start))
            fix = ((d.start, d.end, self._unit_of(d)),)
            if cmp is None:
                if near_word:
                    self.add("threshold", (d.value,), d.start, d.end, negated,
                             topic="length threshold", fix=fix)
                elif cls.start > d.start:  # "a job of exactly 4 h counts as short"
                    self.add("subset", ("at", d.value, cls.kind), d.start, d.end, negated,
                             topic="length threshold")
                continue
            relation, inclusive = cmp
            if defining:
                value = d.value
                if inclusive and relation == "under":  # "4 h or less count as short"
                    self.add("subset", ("at", value, "short" if cls.kind == "short" else "long"),
                             d.start, d.end, negated, topic="length threshold")
                    continue
                if (relation == "under") == (cls.kind == "short"):
                    self.add("threshold", (value,), d.start, d.end, negated,
                             topic="length threshold", fix=fix)
            else:
                if inclusive and relation == "under":
                    relation, value = "under", d.value + 1e-9
                    self.add("subset", (relation, value, cls.kind), d.start, d.end, negated,
                             topic="length threshold")
                    continue
                self.add("subset", (relation, d.value, cls.kind), d.start, d.end, negated,
                         topic="length threshold")

    def _unit_of(self, d: Token) -> str:
        text = self.unit_text[d.start:d.end].lower()
        return "days" if re.search(r"day|\bd\b", text) else "h"

    def _comparator(self, d: Token) -> tuple[str, bool] | None:
        before = [t for t in self.tokens if t.kind in ("under", "over", "after") and
                  t.end <= d.start and d.start - t.end <= 12]
        after = [t for t in self.tokens if t.kind in ("under", "over") and
                 t.start >= d.end and t.start - d.end <= 4 and
                 re.match(r"or\s|and\s+(?:up|over|above|less|under)|\+",
                          self.unit_text[t.start:t.end + 8].lower())]
        if before:
            word = self.unit_text[before[-1].start:before[-1].end].lower()
            inclusive = word in ("at most", "up to", "<=", "≤", "no more than", "no longer than",
                                 "within", "at least", ">=", "≥")
            return ("over" if before[-1].kind == "after" else before[-1].kind), inclusive
        if after:
            word = self.unit_text[after[0].start:after[0].end].lower()
            # "4 h or less" / "4 h or more"
            return ("under" if "less" in word or "shorter" in word else after[0].kind), True
        tail = self.unit_text[d.end:d.end + 12].lower()
        if re.match(r"\s*or\s+(?:less|under|shorter|fewer)", tail):
            return "under", True
        if re.match(r"\s*or\s+(?:more|longer|over)|\s*\+", tail):
            return "over", True
        return None

    def _read_lead_at(self, durations: list[Token], models: list[TermTok]) -> None:
        firsts = self.kinds("first")
        if not firsts:
            return
        for d in durations:
            cmp = self._comparator(d)
            relation = cmp[0] if cmp else "of"
            model = next((m for m in models if m.start > firsts[0].start), models[0])
            name = model.term[1] if model.term[0] == "model" else model.term[1][2]
            if name:
                self.add("lead-at", (relation, d.value, name), model.start, model.end,
                         self.negated_before(model.start), topic="length-aware lead")
            return

    def _worked_example(self, durations: list[Token], models: list[TermTok],
                        classes: list[Token]) -> bool:
        """'a 3 h job at 8× that degrades to 2× still counts as short'."""
        widths = [t for t in self.terms if t.term[0] in ("width", "family", "rung") and
                  self._term_width(t) is not None]
        if not widths or not re.search(r"\b(?:jobs?|runs?|phases?|requests?|dispatch(?:es)?|"
                                       r"work(?:loads?)?|tasks?)\b", self.s.text, re.I):
            return False
        d = durations[0]
        if self._comparator(d) is not None and not re.search(r"\bjob\b", self.s.text, re.I):
            return False
        later = [w for w in widths if w.start > d.start]
        if not later:
            return False
        width0 = self._term_width(later[0])
        at = self._term_width(later[-1])
        if width0 is None or at is None:
            return False
        read = False
        negated = self.negated_before(self.s.end)
        for c in classes:
            if c.start > d.start:
                self.add("consequence", (d.value, width0, at, "class", c.kind), c.start, c.end,
                         negated, topic="derived length")
                read = True
        tail_models = [m for m in models if m.start > d.start]
        if tail_models:
            cue = next((t for t in self.tokens if t.kind == "first" and t.start > d.start), None)
            led = [m for m in tail_models if cue and m.start > cue.start]
            m = led[0] if led else tail_models[-1]
            name = m.term[1] if m.term[0] == "model" else m.term[1][2]
            lead = bool(led)
            if name and lead:
                self.add("consequence", (d.value, width0, at, "lead", name), m.start, m.end,
                         self.negated_before(m.start), topic="derived length")
                read = True
            elif name and (re.search(r"\b(?:offered|available|allowed|eligible|gets?|keeps?|"
                                     r"has|have)\b", self.s.text, re.I) or
                           self.negated_before(m.start)):
                self.add("consequence", (d.value, width0, at, "offers", name), m.start,
                         m.end, self.negated_before(m.start), topic="derived length")
                read = True
        for d2 in durations[1:]:
            if d2.start > later[0].start:
                cmp = self._comparator(d2)
                if cmp is not None:
                    if not any(c.start > d.start for c in classes):
                        self.add("consequence", (d.value, width0, at, cmp[0], d2.value),
                                 d2.start, d2.end, negated, topic="derived length")
                        read = True
                    continue
                if re.search(r"\b(?:flex|limit|max|threshold|cut)", self.unit_text[
                        d2.end:d2.end + 25], re.I):
                    continue
                self.add("consequence", (d.value, width0, at, "length", d2.value), d2.start,
                         d2.end, self.negated_before(d2.start), topic="derived length",
                         fix=((d2.start, d2.end, self._unit_of(d2)),))
                read = True
                break
        return read

    @staticmethod
    def _term_width(t: TermTok) -> int | None:
        kind, value = t.term
        if kind == "width":
            return value
        if kind == "family":
            return value[1]
        if kind == "rung":
            return value[1]
        return None

    # -- FLEX_START maximum duration ------------------------------------------------------

    def read_flex_max(self) -> None:
        flex = self.facts.flex_model
        if flex is None:
            return
        fl = [t for t in self.terms if t.term == ("model", flex)]
        durations = self.kinds("duration")
        unlimited = re.search(r"\bno\s+(?:maximum|max|limit|cap|ceiling)\b|\bunlimited\b|"
                              r"\bas\s+long\s+as\s+(?:it|they|needed|the\s+job)|\bindefinitely\b",
                              self.s.text, re.I)
        if fl and unlimited and not durations:
            at = self.s.start + unlimited.start()
            self.add("flex-max", (float("inf"),), at, self.s.start + unlimited.end(),
                     topic="FLEX_START maximum run")
            return
        if not fl or not durations or not _MAX_CUE.search(self.s.text):
            return
        if self.length_class(fl[0].start) and not re.search(
                r"\b(?:max(?:imum)?|at\s+most|run\s+duration|limit|cap)\b", self.s.text, re.I):
            return
        best = None
        for d in durations:
            if any(t.kind in ("short", "long") and abs(t.start - d.start) < 20
                   for t in self.tokens):
                continue
            before = self.unit_text[max(self.s.start, d.start - 60):d.start].lower()
            after = self.unit_text[d.end:min(self.s.end, d.end + 14)].lower()
            near_after = re.search(r"max|limit|cap|ceiling|run\s+duration|at\s+most", after)
            cue = list(re.finditer(r"max|limit|cap|fits?|run\s+duration|up\s+to|beyond|"
                                   r"(?:stopped|terminated|killed|deleted|reclaimed|ended)\s+after|"
                                   r"longer\s+than|past|ceiling|at\s+most|within|over|"
                                   r"more\s+than|under|below", before))
            if not (near_after or cue or self._comparator(d)):
                continue
            if d.value < 24 and not re.search(r"max|limit|cap|run\s+duration|at\s+most|"
                                              r"stopped|terminated", before + after):
                continue
            distance = 0 if near_after else (len(before) - cue[-1].end() if cue else 30)
            if best is None or distance < best[0]:
                best = (distance, d, before)
        if best is None:
            return
        _, d, window = best
        cmp = self._comparator(d)
        over = bool(cmp and cmp[0] == "over") or bool(
            re.search(r"(?:longer\s+than|beyond|past|over|more\s+than|exceed\w*)\s*$", window))
        negated = self.negated_before(d.start) and \
            not re.search(r"\bno(?:t)?\s+(?:longer|more)\s+than\b", window)
        if over:
            if not negated:
                return  # "FLEX_START for jobs over 2 days": not a statement of the maximum
            negated = False  # "never offered past two days": the maximum is two days
        self.add("flex-max", (d.value,), d.start, d.end, negated,
                 topic="FLEX_START maximum run", fix=((d.start, d.end, self._unit_of(d)),))

    # -- minimum width of an intent ------------------------------------------------------------

    def read_min_width(self) -> None:
        intents = self.kinds("intent")
        if not intents:
            return
        widths = [t for t in self.terms if self._term_width(t) is not None]
        if not widths and not _MIN_CUE.search(self.s.text):
            return
        for it in intents:
            near = sorted(widths, key=lambda w: abs(w.start - it.start))[:1]
            text = self.s.text
            cue = _MIN_CUE.search(text)
            if not near and not cue:
                continue
            if cue and not widths:
                bare = re.search(r"(?:\bis|:|=|\bof)\s*(\d)\b(?![.,]\d)", text[cue.end():])
                if bare:
                    at = self.s.start + cue.end() + bare.start(1)
                    self.add("min-width", (it.value, int(bare.group(1))), at, at + 1,
                             self.negated_before(at), topic="minimum width",
                             fix=((at, at + 1, ""),))
                return
            if cue:
                after = [w for w in widths if w.start >= self.s.start + cue.end()]
                w = after[0] if after else near[0]
                width = self._term_width(w)
                negated = self.negated_before(w.start) and not re.search(
                    r"\bnever\s+(?:\w+\s+){0,2}below|\bnot\s+below|no\s+(?:narrower|further|"
                    r"lower)", text, re.I)
                if re.search(r"\bbelow\b|\bnarrower\s+than\b|\blower\s+than\b", text, re.I) and \
                        not re.search(r"\b(?:min(?:imum)?|floor|at\s+least)\b", text, re.I):
                    # "never degrades below 2×": the minimum is 2
                    self.add("min-width", (it.value, width), w.start, w.end, False,
                             topic="minimum width", fix=((w.start, w.end, ""),))
                else:
                    self.add("min-width", (it.value, width), w.start, w.end, negated,
                             topic="minimum width", fix=((w.start, w.end, ""),))
            elif _REACH_CUE.search(text):
                later = [t for t in widths if t.start > it.start] or near
                w = min(later, key=lambda t: self._term_width(t) or 99)
                self.add("reach", (it.value, self._term_width(w)), w.start, w.end,
                         self.negated_before(w.start), topic="minimum width")
            return

    def read_direction(self) -> None:
        """'On a miss the router doubles the width': the ladder only narrows."""
        if not self.s.context or self.procedural:
            return
        m = re.search(r"\b(?:doubles?|widens?|grows?|increases?|raises?|bumps?\s+up|steps?\s+up)"
                      r"\s+(?:the\s+)?(?:width|gpu\s+count)\b|\b(?:retries|tries|moves?\s+"
                      r"(?:up\s+)?to)\s+(?:a\s+)?(?:wider|bigger|larger)\b|\bever\s+widen",
                      self.s.text, re.I)
        if m:
            at = self.s.start + m.start()
            self.add("direction", ("up",), at, self.s.start + m.end(),
                     self.negated_before(at), topic="width chain")

    # -- widths that are not ladder widths ---------------------------------------------------

    def _own_width_context(self) -> bool:
        """The sentence itself is about the ladder's widths."""
        return bool(_WIDTH_TOPIC.search(self.s.text) or
                    self.lexicon.ladder_context.search(self.s.text))

    def read_widths(self) -> None:
        """'retried at 3×', 'up to 16×', 'allowed widths are 1, 2, 4, 6 and 8'."""
        if self.procedural or not self._own_width_context():
            return
        listed = re.search(r"\bwidths?(?:\s+(?:chain|ladder|order|sequence|list))?\s*"
                           r"(?:are|is|:|=|include|of)\s*\[?((?:\d+\s*[×x]?\s*"
                           r"(?:,|and|or|/)?\s*){2,})", self.s.text, re.I)
        if listed:
            base = self.s.start + listed.start(1)
            for m in re.finditer(r"\d+", listed.group(1)):
                self.add("width", (int(m.group(0)),), base + m.start(), base + m.end(),
                         self.negated_before(base + m.start()), topic="width chain")
        if re.search(r"\bwidths?\b|\bgpus?\b", self.s.text, re.I) and not listed:
            numbers = list(re.finditer(r"(?<![\w.])(\d{1,2})(?![\w×x]|\.\d)", self.s.text))
            for a, b in itertools.pairwise(numbers):
                gap = self.s.text[a.end():b.start()]
                if re.fullmatch(r"\s*(?:→|->|=>|,\s*then|then)\s*", gap):
                    ta = ("width", int(a.group(1)))
                    tb = ("width", int(b.group(1)))
                    start, end = self.s.start + a.start(), self.s.start + b.end()
                    self.add("order", (ta, tb), start, end, topic="width chain")
                    self.add("skip", (ta, tb), start, end, topic="width chain")
                    for t, at in ((ta, a), (tb, b)):
                        if t[1] not in self.facts.widths:
                            self.add("width", (t[1],), self.s.start + at.start(),
                                     self.s.start + at.end(), topic="width chain")
        for t in self.terms:
            w = self._term_width(t)
            if w is not None and w not in self.facts.widths and (
                    t.term[0] != "width" or re.search(r"[×x]", self.text(t.start, t.end))):
                self.add("width", (w,), t.start, t.end, self.negated_before(t.start),
                         topic="width chain")

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
        auto = _AUTO.search(text)
        if not (auto or re.search(r"\brungs?\b|\bmachines?\b|\bbox(?:es)?\b|\bwidths?\b|"
                                  r"\bladder\b", text + " " + self.heading, re.I)):
            return
        explicit = _EXPLICIT.search(text) or (auto and re.search(
            r"\bnever\s+(?:reached|tried|used|walked|picked)\b|\bskips?\b|\boutside\b", text, re.I))
        if not (explicit or auto):
            return
        top = re.search(r"\b(?:tops?\s+out|maxes\s+out|caps?\s+out|stops?|peaks?|starts?|"
                        r"begins?)\s+at\b|"
                        r"\b(?:widest|largest|maximum|max)\s+(?:width\s+)?(?:is|of)\b|"
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
            self.add("in-auto", (width,), w.start, w.end, not self.negated_before(at),
                     topic="the auto ladder")
        elif auto and re.search(r"\b(?:in|part\s+of|on|included|walks?|reach(?:es|ed)?|"
                                r"tries|tried)\b", text, re.I):
            self.add("in-auto", (width,), w.start, w.end,
                     self.negated_before(self.s.start + auto.end()) or
                     bool(re.search(r"\b(?:excluded|outside|out\s+of)\b", text, re.I)),
                     topic="the auto ladder")

# ---- context --------------------------------------------------------------------------------

def in_context(lexicon: Lexicon, text: str, heading: str) -> bool:
    return bool(lexicon.ladder_context.search(text) or lexicon.ladder_context.search(heading))
