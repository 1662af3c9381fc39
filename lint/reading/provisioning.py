"""Provisioning claims: which models a family or machine type allows, forbids
or is limited to."""

from __future__ import annotations

import itertools
import re

from lint.reading.base import ReaderBase
from lint.reading.cues import EVERY_FAMILY, PAST, PERMISSION, PRICE, STRONG_THEN
from lint.reading.sentence import TermTok, family_of

# "the same three", "the same models", "the same set": what the item before listed
# ("likewise" is left out: "H100 is likewise tried at every width" says nothing of models)
_THE_SAME = re.compile(r"\b(?:the\s+)?same\s+(?:two|three|four|\d|ones|models|options|set|list|"
                       r"provisioning(?:\s+models)?|capacity\s+types)\b|\bditto\b", re.I)
_SAME_AS_BEFORE = re.compile(r"\bsame\s+(?:\w+\s+){0,3}?as\s+(?:the\s+|an?\s+)?[`*_]*$", re.I)
_DENIED_TAIL = re.compile(r"(?:[,;—–(]|\s-\s|\band\b|\bbut\b)\s*(?:but\s+)?(?:never|not|no)\b",
                          re.I)
# "Only the A100 family has STANDARD", "an A100 rung is the only place STANDARD
# can appear": the model is the family's alone
_ONLY_BEFORE = re.compile(r"\bonly\s+(?:the\s+|an?\s+)?\W{0,2}$", re.I)
_HAS_AFTER = re.compile(r"^\W{0,2}\s*(?:family|families|machines?|rungs?|nodes?|shapes?|"
                        r"types?)?\s*(?:also\s+)?(?:has|have|offers?|gets?|allows?|supports?|adds?|"
                        r"can\s+(?:also\s+)?(?:use|run\s+on|be|fall\s+back\s+to|get)|"
                        r"is\s+allowed|are\s+allowed)\b|"
                        # "Only A100 rungs are STANDARD": the model right after the verb
                        r"^\W{0,2}\s*(?:(?:family|families|machines?|rungs?|nodes?|shapes?|"
                        r"types?|ones?|vms?)\s+)?(?:is|are)(?:\s+(?:ever|tried|used|offered|requested|launched|"
                        r"run|available))?(?:\s+(?:at|as|with|on|in))?\s*[`*_]*$", re.I)
_THE_ONLY_AFTER = re.compile(r"^[^.;]{0,40}?\b(?:is|are)\s+the\s+only\s+(?:place|family|"
                             r"one|shape|rung|machine\s+type|kind|option)s?\b", re.I)

_MAY_BE = re.compile(r"\b(?:can|may|could|might|cannot|can't|is\s+allowed\s+to|never)\s+"
                     r"(?:also\s+)?be\b(?!\s+(?:tried|used|picked|walked|reached)\b)", re.I)
_THE_ONLY_BEFORE = re.compile(r"\bthe\s+only\s+\W{0,2}$", re.I)
_LIVES_ON = re.compile(r"\W{0,2}\s*(?:(?:[\w-]+\s+){0,2}?"  # "(on-demand) GCP rungs are"
                       r"(?:rungs?|machines?|vms?|capacity|options?|shapes?|gpus?))?"
                       # "… rung at any width is the A100 one", "… rungs on GCP are A100 rungs"
                       r"(?:\s*(?:at|on|in|for)\s+(?:(?:any|every|each|all|one|an?|the|this|"
                       r"our)\s+)?[\w-]+)?\s*"
                       # "the only on-demand GPUs the router ever asks GCP for are A100s"
                       r"(?:(?:that|which)\s+)?(?:the\s+router\s+[^,;.]{0,40}?\s+)?"
                       r"(?:are|is|live|lives|sit|sits|exist|exists|appear|appears)\s+"
                       r"(?:(?:on|in|for|with)\b|(?:the\s+)?(?=\S|$))", re.I)


_QUOTA_AFTER = re.compile(r"[\s*_`]*(?:[\w-]+\s+){0,2}?quotas?\b", re.I)
_LEFT_OVER = re.compile(r"\b(?:is|are)\s+(?:all\s+)?(?:that\s+)?(?:left|remaining)\b|"
                        r"\bremains?\b|\bleft\s+over\b", re.I)


# a condition on a length past a limit, in front: "above it:", "past 168 h,", "beyond
# the cap, …"
_PAST_LIMIT = re.compile(r"\W*(?:[\w-]+:?\s+){0,3}?(?:above|over|past|beyond|longer\s+than|"
                         r"more\s+than|exceeding)\s+(?:it|that|this|the\s+(?:limit|cap|maximum|max|ceiling)|"
                         r"\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|days?)|a\s+week)\b"
                         # "Past a week at a given width there is no flex-start rung"
                         r"(?:\s+(?:at|on)\s+(?:a|any|that|the|each)\s+(?:given\s+)?width)?"
                         r"(?:\s*[:,—–-]|\s+there\s+(?:is|are)\s+no\b)", re.I)
_ONLY_OFFERS = re.compile(r"\bonly\s+(?:ever\s+)?(?:offers?|has|have|allows?|gives?|provides?|"
                          r"supports?|uses?|tries?|gets?|hands?\s+out)\s+(?:you\s+)?"
                          r"(?:an?\s+|the\s+)?[`*_]*$", re.I)
# what joins those models to the family: "… on-demand (VMs) for the A100 family"
_FOR_FAMILY = re.compile(r"\W*(?:vms?\s+|rungs?\s+|capacity\s+)?(?:for|on|with|to|in)\b", re.I)
# two families joined only by an order word: "A100 before H100", "A100 → H100"
_FAMILY_ORDER_JOINT = re.compile(r"\W*(?:(?:boxes|machines|rungs|vms|nodes|family|"
                                 r"families|gpus|s)\s+)?(?:(?:comes?|goes|is\s+tried|are\s+"
                                 r"tried|always\s+)\s*)*(?:before|ahead\s+of|then|->|→|>|over)"
                                 r"\W*(?:the\s+)?", re.I)

# "STANDARD on both families", "spot across every family"
_ON_BOTH = re.compile(r"[`*_]*\s+(?:rungs?\s+)?(?:on|for|across|in|from)\s+(?:both|each|every|all)"
                      r"\s+(?:(?:the|gpu|two)\s+)?famil(?:y|ies)\b", re.I)
_AND_JOINT = re.compile(r"[\s,`*_]*(?:and|or|,)[\s`*_]*(?:the\s+)?")



# what a line of a walk holds besides its rung: numbering, markup, a width
_RUNG_LINE_REST = re.compile(r"[\s\d.)#*_`>|→-]*(?:\(?\s*(?:at\s+)?\d\s*[x×]?\s*\)?[\s.*_`-]*)?")


def _model_of(t: TermTok) -> str:
    """The model a model term or a rung term names."""
    return t.term[1] if t.term[0] == "model" else t.term[1][2]

# a model denied past a length: "no flex-start past 168 h", "never DWS over a week"
_PAST_A_LENGTH = re.compile(rf"[`*_)]*\s*(?:rungs?\s+)?{PAST}\s+(?:\d|a\s+week|seven\s+days|"
                            r"the\s+(?:limit|cap|max))", re.I)

class ProvisioningReading(ReaderBase):
    # -- provisioning per family --

    def _ladder_model_name(self, model: TermTok) -> bool:
        """A model written as the config names it ("FLEX_START"), or by a name only
        GCP's ladder uses (DWS, flex-start): "H100 is FLEX_START only" is about this
        ladder wherever it is written; "on-demand H100s" in a cost guide is not."""
        written = self.unit_text[model.start:model.end].strip("`*_ ")
        return written in self.facts.model_names or bool(re.fullmatch(
            r"dws|dynamic\s+workload\s+scheduler|flex[-_ ]?start", written, re.I))

    def read_provisioning(self) -> None:
        if _PAST_LIMIT.match(self.s.text):
            return  # "above it: no FLEX_START rung at that width": a length's, not a family's
        self._model_on_both()
        # "If you were hoping for on-demand H100s: sorry, …": the condition names
        # what the reader wished for, not what the ladder allows
        main = self._main_start()
        fams = [t for t in self.terms if t.term[0] in ("family", "rung") and
                (t.term[0] == "family" or t.term[1][0]) and t.start >= main and
                not _QUOTA_AFTER.match(self.unit_text, t.end)]
        if len(fams) > 1:
            # "a3-highgpu gets the same three models as the a2 boxes: …": the family
            # compared with is the subject's yardstick; the models are the subject's
            fams = [fams[0], *[t for t in fams[1:] if not _SAME_AS_BEFORE.search(
                self.text(max(self.s.start, t.start - 40), t.start))]]
        # "the regular H100 quota", "the preemptible GPU quota": a quota's name, not a model
        models = [t for t in self.terms if t.term[0] == "model" and t.start >= main and
                  not _QUOTA_AFTER.match(self.unit_text, t.end)]
        if not fams and not self.procedural and (self.s.context or re.search(
                r"\b(?:gpu|gcp)\s+famil", self.s.text, re.I)):
            # "both GPU families" is the ladder's own word for them
            every_model = re.search(r"\ball\s+(?:three|the|\d+)?\s*(?:provisioning\s+)?"
                                    r"(?:models|capacity\s+types|tiers)\b", self.s.text, re.I)
            if every_model:
                # "both families offer all three provisioning models" (names them all,
                # whatever list follows it)
                at = self.s.start + every_model.start()
                models = [TermTok(("model", name), at, self.s.start + every_model.end())
                          for name in self.facts.model_names]
            if models:
                self._every_family(models)
                return
        if fams and not models and self.models_before:
            same = _THE_SAME.search(self.s.text, fams[-1].end - self.s.start)
            if same:
                # "- H100 (a3-highgpu-{N}g): the same three": the models the item before named
                at, end = self.s.start + same.start(), self.s.start + same.end()
                models = [TermTok(("model", name), at, end) for name in self.models_before]
        if not fams or (not models and not any(t.term[0] == "rung" for t in fams)):
            return
        if (self.length_class(self.s.start) and not _MAY_BE.search(self.s.text)) or \
                (self.kinds("first") and not self.kinds("only")):
            # "long jobs on the A100 family lead with FLEX_START" is a lead; "for the
            # H100 family that model can be STANDARD whenever the job is long" is not
            return
        if _LEFT_OVER.search(self.s.text) and re.search(r"\bonly\b", self.s.text, re.I):
            return  # "past the maximum, on H100 only SPOT is left": what a condition leaves
        if PRICE.search(self.s.text):
            return  # "H100: $2.25 spot vs $7.50 on-demand" is a price list, not a policy
        if self._model_only_on_family(fams, models):
            return
        if not self.s.context and not any(self._machine_type(t) for t in fams) and \
                not self.facts.names_machine_type(self.heading) and \
                not any(self._ladder_model_name(t) for t in models):
            # "use on-demand H100 for critical paths" in a cost guide is not our ladder;
            # under "## H100 (a3-highgpu)" it is
            return
        colon = self.s.text.find(":")
        if len(models) == 1 and colon >= 0 and models[0].end <= self.s.start + colon < \
                fams[0].start and all(t.term[0] == "family" for t in fams) and \
                not self.negated_before(self.s.end, since=self.s.start) and \
                self._machine_type_context():
            # "2. on-demand: A100, then H100": the model's rungs, one per family
            for fam_tok in fams:
                self.add("permits", (family_of(fam_tok.term), models[0].term[1]),
                         fam_tok.start, fam_tok.end, topic="provisioning")
            return
        if not PERMISSION.search(self.s.text) and any(
                _FAMILY_ORDER_JOINT.fullmatch(self.text(a.end, b.start))
                for a, b in itertools.pairwise(fams)):
            # "FLEX_START -> STANDARD -> SPOT (A100 before H100 within each)": the
            # families are ordered against each other, not given models
            return
        permission = PERMISSION.search(self.s.text) or re.search(r"[:=|]", self.s.text) or \
            re.search(r"[-/]only\b|\bonly\b", self.s.text, re.I) or self._bare_rung(fams, models)
        if not permission:
            return
        segments = self._segments([t.start for t in fams])
        # "the width-1 rungs are just a2-ultragpu-1g STANDARD, then a2-ultragpu-1g
        # SPOT": a walk of rungs; "just" counts the walk's rungs and makes no model
        # a family's only one
        rung_walk = sum(t.term[0] == "rung" and bool(t.term[1][2]) for t in fams) >= 2 and any(
            STRONG_THEN.search(self.text(a.end, b.start)) for a, b in itertools.pairwise(fams))
        carried: list[str] = []
        coordinated = re.search(r"\b(?:both|either|all|each)\b", self.s.text, re.I)
        for i in range(len(fams) - 2, -1, -1):
            if coordinated and self.s.start + coordinated.end() <= fams[0].start and \
                    _AND_JOINT.fullmatch(self.text(fams[i].end, fams[i + 1].start)):
                # "Both a2-ultragpu and a3-highgpu are spot/flex-start only": one
                # predicate for both families
                segments[i] = segments[i + 1]
        floor = self.s.start
        for fam_tok, (seg_start, seg_end) in zip(fams, segments, strict=False):
            family = family_of(fam_tok.term)
            # "… only: the router never asks for an on-demand H100": the next claim
            # starts at the clause break, with the model written before its family
            seg_start = max(floor, min(seg_start, self.clause_start(fam_tok.start)))
            first_model = next((t for t in models if seg_start <= t.start < seg_end), None)
            if first_model is not None:
                # "is not SPOT-only: it allows SPOT, FLEX_START and STANDARD": the claim
                # ends at the clause break after its first model
                cut = re.search(r"[:;]", self.text(first_model.end, seg_end))
                if cut and first_model.end + cut.start() < fam_tok.start:
                    # "It is never STANDARD: there is no on-demand H100 rung": the family's
                    # claim is the clause it stands in, after the break
                    seg_start = first_model.end + cut.end()
                    first_model = next((t for t in models if seg_start <= t.start < seg_end),
                                       None)
                    cut = None
                if cut:
                    seg_end = first_model.end + cut.start()
                    floor = seg_end + 1
            seg_models = [t for t in models if seg_start <= t.start < seg_end]
            names = list(dict.fromkeys(t.term[1] for t in seg_models))
            if fam_tok.term[0] == "rung" and fam_tok.term[1][2]:
                names = [fam_tok.term[1][2], *[n for n in names if n != fam_tok.term[1][2]]]
            seg_text = self.text(seg_start, seg_end)
            # ("only one of them is on-demand" counts rungs; it makes no model the only one)
            # ("reached STANDARD only because both flex-start rungs missed" is a reason)
            only = re.search(r"(?:(?<![\w])only|\bjust)\b(?!\s+(?:one|a\s+single|two|because|after|"
                             r"once|then|since|if|when)\b)|"
                             r"\bexclusively\b|\bsolely\b", seg_text, re.I)
            # (a rung names its model: "on-demand A100" is STANDARD on a100-80gb)
            members = sorted([*seg_models, *([fam_tok] if fam_tok.term[0] == "rung" and
                                             fam_tok.term[1][2] else [])], key=lambda t: t.start)
            if only and (rung_walk or any(STRONG_THEN.search(self.text(a.end, b.start))
                                          for a, b in itertools.pairwise(members))):
                continue  # "just on-demand A100, then spot": the rungs in turn, not a set
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
            if only and seg_models and seg_models[0].start > fam_tok.end and \
                    self._exclusive_cue(fam_tok, seg_models[0], seg_start):
                self._exclusive(family, seg_models, fam_tok, negated)
                continue
            between = self.text(seg_models[-1].end, fam_tok.start) if seg_models else ""
            if only and seg_models and seg_models[-1].end <= fam_tok.start and (re.fullmatch(
                    # "Regular on-demand VMs come only from the A100 family"
                    r"[\s,]*(?:(?:vms?|instances?|capacity|rungs?)\s+)?(?:is\s+|are\s+)?"
                    r"(?:(?:offered|available|tried|allowed|comes?|exists?|provided)\s+)?"
                    r"(?:for\s+|on\s+)?only\s+(?:(?:from|on|in|with)\s+)?(?:the\s+|an?\s+)?"
                    r"[`*_]*", between, re.I) or
                    self._offers_only(seg_start, seg_models, fam_tok) or (
                    # "…, and the only STANDARD rung at any width is the A100 one"
                    _THE_ONLY_BEFORE.search(self.text(self.clause_start(seg_models[0].start),
                                                      seg_models[0].start)) and
                    _LIVES_ON.match(between))):
                # "so at STANDARD only the A100 is tried": the model is the family's alone
                self._exclusive(family, seg_models, fam_tok, negated)
                continue
            # ("`a2-ultragpu-1g` STANDARD (no flex-start …)": the rung's model is the first
            # of the list)
            split = self._denied_tail(members)
            if split and only and only.start() + seg_start < split:
                # "DWS/flex-start ONLY — no spot, no on-demand": the set, then what it
                # leaves out
                allowed = list(dict.fromkeys(_model_of(t) for t in members if t.start < split))
                self.add("only", (family, tuple(allowed)), fam_tok.start, fam_tok.end,
                         self.negated_before(split, since=seg_start), topic="provisioning")
                for t in members:
                    if t.start > split:
                        self.add("permits", (family, _model_of(t)), fam_tok.start, fam_tok.end,
                                 True, topic="provisioning")
                continue
            if split and not only:
                # "spot or flex-start, never regular VMs": allowed, then denied
                for t in members:
                    if t.start > split and _PAST_A_LENGTH.match(self.unit_text, t.end):
                        continue  # "(no flex-start past 168 h)": the maximum run, not the family
                    self.add("permits", (family, _model_of(t)), fam_tok.start, fam_tok.end,
                             t.start > split, topic="provisioning")
                continue
            if only or (table_row and len(names) > 1 and not negated):
                self.add("only", (family, tuple(names)), fam_tok.start, fam_tok.end, negated,
                         topic="provisioning")
            else:
                for name in names:
                    self.add("permits", (family, name), fam_tok.start, fam_tok.end, negated,
                             topic="provisioning")

    def _machine_type_context(self) -> bool:
        """The sentence is about this ladder's rungs: in a routing context, or
        under a heading or lead-in that names a rung or a walk."""
        return self.s.context or bool(re.search(r"\brungs?\b|\bladder\b|\bwalk\b",
                                                f"{self.heading} {self.list_lead}", re.I))

    def _bare_rung(self, fams: list[TermTok], models: list[TermTok]) -> bool:
        """Whether the sentence is nothing but one machine type and its model
        ("3. `a3-highgpu-8g` STANDARD"): a line of a walk, which lists a rung
        the router tries, so the family offers that model."""
        rung_model = fams[0].term[0] == "rung" and fams[0].term[1][2] if fams else None
        if len(fams) != 1 or len(models) != (0 if rung_model else 1) or \
                not self._machine_type(fams[0]):
            return False
        rest = self.s.text
        for t in sorted((*fams, *models), key=lambda t: t.start, reverse=True):
            rest = rest[:t.start - self.s.start] + " " + rest[t.end - self.s.start:]
        return bool(_RUNG_LINE_REST.fullmatch(rest))

    def _denied_tail(self, models: list[TermTok]) -> int | None:
        """Where a list of models turns from allowed to denied (", never X",
        ", but not X", "; no X"), when it does."""
        for before, after in itertools.pairwise(models):
            gap = self.text(before.end, after.start)
            m = _DENIED_TAIL.search(gap)
            if m:
                return before.end + m.start()
        return None

    def _model_on_both(self) -> None:
        """'…, then STANDARD on both families (a2 first), then spot': a rung of
        that model on each family, wherever the sentence names them."""
        if not self.s.context or self.procedural:
            return
        for t in self.terms:
            if t.term[0] == "model" and _ON_BOTH.match(self.unit_text, t.end):
                for family in self.facts.families_in_order():
                    self.add("permits", (family, t.term[1]), t.start, t.end,
                             self.negated_before(t.start), topic="provisioning")

    def _every_family(self, models: list[TermTok]) -> None:
        """'On-demand is allowed on both families': a permission for each one."""
        every = EVERY_FAMILY.search(self.s.text)
        if not every or not PERMISSION.search(self.s.text):
            return
        at = self.s.start + every.start()
        clause = self.clause_start(at)
        if self.length_class(self.s.start) and any(
                t.kind in ("short", "long") and self.clause_start(t.start) == clause
                for t in self.tokens):
            return  # "long jobs on both families lead with FLEX_START": a lead, not a permission
        negated = self.negated_before(at)
        # the models in its clause: "SPOT is allowed on both families", "both
        # families can be requested on-demand"
        # "… can run on-demand if spot and DWS capacity are both gone": the
        # condition's models are not permitted by it
        cond = re.search(r"\b(?:if|when|once|unless|whenever)\b", self.text(at, self.s.end), re.I)
        stop = at + cond.start() if cond else self.s.end
        for name in dict.fromkeys(t.term[1] for t in models if t.start < stop and
                                  self.clause_start(self._outside_aside(t.start)) == clause):
            for family in self.facts.families_in_order():
                self.add("permits", (family, name), self.s.start + every.start(),
                         self.s.start + every.end(), negated, topic="provisioning")

    def _outside_aside(self, at: int) -> int:
        """Where the bracketed aside holding `at` opens ("Regular (on-demand) VMs"
        names its model in one), else `at`."""
        m = re.search(r"\([^()]*$", self.text(self.s.start, at))
        return self.s.start + m.start() if m else at

    def _machine_type(self, t: TermTok) -> bool:
        """Written as one of the config's machine types ('a3-highgpu-8g')."""
        return self.facts.names_machine_type(self.unit_text[t.start:t.end])

    def _model_only_on_family(self, fams: list[TermTok], models: list[TermTok]) -> bool:
        """'Regular VMs are an option for the A100 family only', 'SPOT only on
        a3-highgpu': the model is allowed there and nowhere else."""
        fam = fams[0]
        # "STANDARD rungs only ever use a2 machines: the A100 family offers all
        # three, …": the clause of the first family is its own statement
        stop = re.search(r"[:;]\s", self.text(fam.end, self.s.end))
        if stop:
            fams = [t for t in fams if t.start < fam.end + stop.start()]
            models = [m for m in models if m.start < fam.end + stop.start()]
        # "the A100 family (`a2-ultragpu`)" names one family twice
        if len({family_of(t.term) for t in fams}) != 1 or not models:
            return False
        if models[0].start > fam.start:
            if not self._exclusive_cue(fam, models[0], self.clause_start(fam.start)):
                return False
        else:
            # the models named before the family ("…, so a STANDARD rung always means
            # an A100" after it restates them)
            models = [m for m in models if m.end <= fam.start]
            if fam.term[0] == "rung" and fam.term[1][2]:
                # "…, then STANDARD (A100 only), then SPOT": the aside is its own model's
                models = [TermTok(("model", fam.term[1][2]), fam.start, fam.start)]
            near = self.text(models[-1].end, fam.end + 30)
            # "The only on-demand rungs are on a2-ultragpu machine types"
            the_only = _THE_ONLY_BEFORE.search(self.text(self.clause_start(models[0].start),
                                                         models[0].start)) and \
                _LIVES_ON.match(self.text(models[-1].end, fam.start))
            # "the router only offers on-demand for the A100 family", "at STANDARD
            # only the A100 is tried"
            offers_only = self._offers_only(self.clause_start(models[0].start), models, fam) \
                or re.fullmatch(r"[\s,]*only\s+(?:the\s+|an?\s+)?[`*_]*",
                             self.text(models[-1].end, fam.start), re.I)
            if not the_only and not offers_only and not re.search(
                    r"\bonly\s+(?:(?:exists?|lives?|appears?|available|offered|allowed)\s+)?"
                    r"(?:on|for|with|in|to)\b|"
                    # "on-demand rungs only ever use a2-ultragpu machines"
                    r"\bonly\s+(?:ever\s+)?(?:uses?|runs?\s+on|lands?\s+on|maps?\s+to)\b|"
                    # "STANDARD means on-demand, and only the A100 family offers it"
                    r"\bonly\s+(?:the\s+)?(?:\S+\s+){0,3}?(?:offers?|has|have|allows?|"
                    r"supports?|provides?|takes?|gets?)\s+(?:it|them|that|those|this)\b|^[^.;]{0,60}?"
                    + re.escape(self.text(fam.start, fam.end))
                    + r"\W+(?:\w+\s+){0,2}only\b", near, re.I):
                return False
        self._exclusive(family_of(fam.term), models, fam, self.negated_before(fam.start))
        return True

    def _offers_only(self, since: int, models: list[TermTok], fam: TermTok) -> bool:
        """'the router only offers on-demand for the A100 family': "only offers"
        before the models, and the family right after them."""
        return bool(_ONLY_OFFERS.search(self.text(since, models[0].start)) and
                    _FOR_FAMILY.match(self.text(models[-1].end, fam.start)))

    def _exclusive_cue(self, fam: TermTok, model: TermTok, clause: int) -> bool:
        """'Only the A100 family has STANDARD', 'an A100 rung is the only place
        STANDARD can appear': the family, then the model that is its alone."""
        between = self.text(fam.end, model.start)
        return bool((_ONLY_BEFORE.search(self.text(clause, fam.start))
                     and _HAS_AFTER.search(between)) or _THE_ONLY_AFTER.search(between))

    def _exclusive(self, family: str, models: list[TermTok], fam: TermTok,
                   negated: bool) -> None:
        """Each model is allowed on this family and on no other."""
        # "STANDARD (on-demand)" names one model twice
        for m in {m.term[1]: m for m in reversed(models)}.values():
            self.add("permits", (family, m.term[1]), fam.start, fam.end, negated,
                     topic="provisioning")
            for other in self.facts.families_in_order():
                if other != family:
                    self.add("permits", (other, m.term[1]), fam.start, fam.end, not negated,
                             topic="provisioning")

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
