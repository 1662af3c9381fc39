"""Facts about one SLURM lane (its partition, widest allocation and wait) and
about how the GCP families are named (machine types and GPU models).

Every value is checked against the loaded config: a lane's `partition`,
`max_width` and `max_wait_minutes`, a family's `machine_type` template and
`gpu`. Nothing here names a lane, partition or machine type.
"""

from __future__ import annotations

import itertools
import re

from lint.reading.base import ReaderBase, group_of_intents
from lint.reading.cues import REGARDLESS
from lint.reading.sentence import TermTok

# "partition `gpu`", "--partition=gpu", "-p gpu", "(partition: gpu)"
_PARTITION = re.compile(r"(?:\bpartition\b\s*(?:is\s+|=\s*|:\s*)?|--partition[=\s]\s*|"
                        r"(?<![\w-])-p\s+)[`'\"]?(?P<name>[A-Za-z][\w-]*(?:\.[\w-]+)*)[`'\"]?"
                        # a name ends its phrase: "partition gpu, up to 8 GPUs"
                        r"(?=\s*(?:[,;:.)|]|$|\band\b|\bwith\b|—|–))", re.I)
# "lives on the `a100` partition", "submits to the gpu partition"
_PARTITION_AFTER = re.compile(r"\b(?:on|in|to|into|at)\s+(?:the\s+)?[`'\"]?(?P<name>[A-Za-z][\w-]*)"
                              r"[`'\"]?\s+partition\b", re.I)
# words that follow "partition" in prose without naming one ("the preempt partition if")
_NOT_A_NAME = re.compile(r"(?:if|and|or|is|are|can|could|first|second|third|last|next|then|"
                         r"jobs?|the|a|an|when|"
                         r"where|which|that|there|here|for|of|to|on|in|at|by|too|only|"
                         r"entirely|instead|itself|name|names|list|limits?|queues?|nodes?|"
                         r"usage|quotas?|time|times|state|status|accounts?|flags?|wait|waits|"
                         r"same|other|default|right|wrong|busy|shared|correct|given|new|old|"
                         r"slurm|campus|cluster|its|their|that|this)",
                         re.I)
# "up to 8 GPUs", "max 8 GPUs", "capped at four GPUs", "a full 8-GPU allocation",
# "max width 8", "at most 4 GPUs", "≤ 8 GPUs"
_MAX_WIDTH = re.compile(
    r"(?:\bup\s+to|\bmax(?:imum)?(?:\s+width)?(?:\s+of)?|\bcapped\s+at|\bat\s+most|≤|<=|"
    r"\blimited\s+to|\bno\s+more\s+than|\b(?:tops?|max(?:es)?|caps?)\s+out\s+at|"
    r"\bcan\s+take\s+(?:a\s+)?"
    r"(?:full\s+)?|\bwidest\s+(?:allocation\s+)?(?:is\s+)?)\s*[:=]?\s*(?P<n>\d{1,3}|"
    r"one|two|four|eight|sixteen|three|six)(?:\s*[×x])?(?:[\s-]*(?:gpus?|gpu\s+allocation|"
    r"way)\b|(?=\s*[,;.)]|\s*$)|\s+wide\b)", re.I)
# a sentence that starts with its verb: "Waits up to …", "Takes up to 8 GPUs"
_ELIDED_SUBJECT = re.compile(r"\W{0,3}(?:waits|takes|holds|allows|accepts|gives|submits|runs|"
                             r"queues|sits|times\s+out)\b", re.I)
# "waits 30 min", "30 min max wait", "gives it 30 minutes", "wait up to two hours"
_WAIT_CUE = re.compile(r"\bwait(?:s|ing)?\b|\bgives?\s+it\b|\bbefore\s+(?:moving|falling|"
                       r"giving|it\s+moves|the\s+router\s+moves)|\bqueue(?:s|d)?\s+for\b|"
                       r"\btime-?out\b|\bpatience\b|"
                       # "gives up after 30 minutes in the queue", "times out after an hour"
                       r"\b(?:gives?|giving)\s+up\s+after\b|\btimes?\s+out\s+after\b", re.I)
# "both SLURM lanes", "each campus lane", "all the SLURM lanes"
_EVERY_LANE = re.compile(r"\b(?:both|each|every|all(?:\s+the)?)\s+(?:of\s+the\s+)?"
                         r"(?:slurm\s+|campus\s+)?lanes?\b", re.I)
_TYPICAL_WAIT = re.compile(r"\b(?:mean|average|avg|median|typical(?:ly)?|usual(?:ly)?|"
                           r"expected|p\d\d|observed|simulated)\b[\w\s-]{0,20}$", re.I)
_OBJECT_CUE = re.compile(r"\b(?:after|before|to|from|than|over|behind|ahead\s+of)\s*[`*_]*"
                         r"(?:the\s+)?[`*_]*$", re.I)
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "eight": 8,
                 "sixteen": 16}
# A GCP accelerator machine type written out: "a2-highgpu-8g", "a3-megagpu-{n}g"
_MACHINE = re.compile(r"(?<![\w-])(?P<prefix>[a-z]\d+-[a-z]+gpu)"
                      r"(?:-(?:\d+g|\{\w*\}g|\*|[nNxXw]g?))?(?![\w-])", re.I)
# "NVIDIA A100 40GB", "A100 40 GB"
_GPU_MEMORY = re.compile(r"(?<![\w-])(?P<model>[A-Z]\d{2,4})[\s-]*(?P<gb>\d{2,3})\s*GB\b", re.I)


# what the rungs after GCP are said to ask for: "ask for 8 GPUs", "request the wide width"
_TAIL_ASK = re.compile(r"\b(?:ask(?:s|ed|ing)?\s+for|request(?:s|ed|ing)?|submit(?:s|ted)?\s+"
                       r"(?:with|for|at)|allocat(?:es?|ed|ing)|get(?:s)?|run(?:s)?\s+at|"
                       r"is\s+submitted\s+(?:with|for|at)|"
                       # "is queued on the campus cluster at the width you asked for"
                       r"(?:queued|scheduled|placed|lands?|landed|ran|running)\s+"
                       r"(?:[\w-]+\s+){0,5}?(?:at|with(?:\s+all)?))\b",
                       re.I)
# the request's own width named without a number
_AS_REQUESTED = re.compile(r"^\W{0,3}(?:the\s+|its\s+|their\s+)?(?:same\s+|full\s+|original\s+)?"
                           r"(?:wide|requested|full|original|same|whole)\s+(?:width|gpu\s+count|"
                           r"number\s+of\s+gpus)|^\W{0,3}(?:as\s+many\s+gpus\s+as|the\s+same\s+"
                           r"(?:number\s+of\s+)?gpus\s+as)|"
                           r"^\W{0,3}the\s+(?:width|gpu\s+count|number\s+of\s+gpus)\s+(?:you|it|they|"
                           r"the\s+(?:job|user|request|plan|phase))\s+(?:asked\s+for|requested|wanted|"
                           r"(?:was|were)\s+(?:requested|dispatched)\s+(?:at|with))", re.I)
_NO_OBJECT = re.compile(r"\s*(?:[;.]|,\s*(?:so|and|but|which|while|because|then)\b)", re.I)
_AS_MINIMUM = re.compile(r"^\W{0,3}(?:the\s+|its\s+|their\s+)?(?:intent'?s\s+)?"
                         r"min(?:imum)?\s+width", re.I)


# A RunPod GPU id written out: "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 4090"
_NVIDIA_ID = re.compile(r"\bNVIDIA(?:[ -](?:[A-Z]*\d[\w-]*|GeForce|RTX|Tesla|Quadro|PCIe|SXM\d*|"
                        r"HBM\d*e?|NVL|Ada|Ti|Super|Hopper|Blackwell)(?![\w-]))+", re.I)
_RUNPOD_TYPES_CUE = re.compile(r"\bgpu[\s_-]*(?:types?|ids?)\b|\bfallback|\basks?\s+"
                               r"for\b|\brequests?\b|\btries\b|\bin\s+order\b", re.I)


# A count in words or digits, as _count reads it
_COUNT = r"(?P<n>a\s+single|single|only\s+one|one|two|three|four|five|[1-9])"
# "There is a single SLURM lane", "the two campus lanes", "three SLURM lanes"
_LANE_COUNT = re.compile(rf"\b{_COUNT}\s+"
                         r"(?:(?:campus|slurm|campus\s+slurm)\s+)(?:lanes?|partitions?)\b"
                         r"(?!\s*(?:per|each|at\s+a\s+time))", re.I)


# "Only two backends are in the ladder today", "the router knows three backends"
_BACKEND_COUNT = re.compile(rf"\b(?P<only>only\s+)?{_COUNT}\s+(?:compute\s+)?backends?\b"
                            r"(?!\s*(?:per|each|at\s+a\s+time|of\s+its\s+own))", re.I)


def _count(m: re.Match[str]) -> int:
    """The number a _COUNT group names."""
    word = re.sub(r"^(?:only|a)\s+", "", m["n"].lower())
    return int(word) if word.isdigit() else {"single": 1, "five": 5}.get(word) or \
        _WORD_NUMBERS[word]


# the counted backends are the router's: "The ledger has two backends" (its stores) is not
_HAS_COUNT = re.compile(r"\b(?:(?:router|ladder|dispatch\w*|walk|planner|we)\s+(?:only\s+)?"
                        r"(?:has|have|knows?|uses?|walks?|supports?|tries)|there\s+(?:are|is))\s+"
                        r"(?:only\s+|just\s+|exactly\s+)?$", re.I)
_ARE_ON_LADDER = re.compile(r"\s*(?:are|is)\s+(?:in|on|part\s+of)\s+(?:the\s+)?(?:ladder|router|"
                            r"walk)\b", re.I)


_POD_WORD = re.compile(r"\bpods?\b|\brunpod\b", re.I)
_POD_THEN = re.compile(r"[`*_\s]*(?:first\b)?[`*_\s]*(?:\(?\s*(?:,|;)?\s*(?:and\s+)?(?:then|next|"
                       r"second(?:ly)?|after\s+that|followed\s+by|before)\b|→|->|>|,\s*then\b)"
                       r"[\s:]*(?:(?:an?|the)\s+)?[`*_\s]*", re.I)
_POD_AFTER = re.compile(r"[`*_\s]*(?:,\s*)?(?:only\s+)?after\s+(?:an?\s+|the\s+)?[`*_\s]*", re.I)
_POD_LIST = re.compile(r"[`*_\s]*(?:,|and)\s*(?:(?:an?|the)\s+)?[`*_\s]*", re.I)
_POD_ORDER_CUE = re.compile(r"\bin\s+(?:this\s+)?order\b|\border\b|\bfirst\b|→|\bin\s+turn\b",
                            re.I)
_POD_FIRST_BEFORE = re.compile(r"\b(?:first|starts?\s+with|begins?\s+with|leads?\s+with|"
                               r"tries|asks\s+(?:runpod\s+)?for)\s*[:=]?\s*(?:(?:an?|the)\s+)?"
                               r"[`*_]*$", re.I)
_POD_FIRST_AFTER = re.compile(r"[`*_]*\s*(?:\(\s*)?(?:first|is\s+first|comes\s+first|goes\s+first|"
                              r"leads)\b", re.I)


_CELL_NOTE = re.compile(r"\s*\([^()]*\)\s*$")


# every intent, as a quantifier: "whatever the intent", "regardless of intent"
_ANY_INTENT = re.compile(rf"\b{REGARDLESS}\s+"
                         r"(?:(?:the|which|what)\s+)?intents?\b|\b(?:for\s+)?(?:every|each|all|"
                         r"any)\s+(?:of\s+the\s+)?intents?\b", re.I)

class LaneReading(ReaderBase):
    # -- how many SLURM lanes the ladder has ------------------------------------------

    def read_lane_count(self) -> None:
        if self.procedural or not self.s.context or not self.facts.lanes():
            return
        m = _LANE_COUNT.search(self.s.text)
        if not m:
            return
        at = self.s.start + m.start("n")
        self.add("lane-count", (_count(m),), at, self.s.start + m.end(), self.negated_before(at),
                 topic="SLURM lanes")

    def read_backend_count(self) -> None:
        """'Only two backends are in the ladder today: GCP and RunPod'."""
        if self.procedural or not self.s.context:
            return
        m = _BACKEND_COUNT.search(self.s.text)
        if not m:
            return
        before = self.s.text[max(0, m.start() - 30):m.start()]
        after = self.s.text[m.end():m.end() + 40]
        # a count of the ladder's backends, not of some of them ("two backends need a
        # VPN", "the one backend that bills real dollars")
        if not (m["only"] or m["n"].lower().startswith("only") or _HAS_COUNT.search(before) or
                _ARE_ON_LADDER.match(after)) or re.match(r"\s*(?:that|which|who|where)\b",
                                                          after, re.I):
            return
        at = self.s.start + m.start("only" if m["only"] else "n")
        self.add("backend-count", (_count(m),), at, self.s.start + m.end(), self.negated_before(at),
                 topic="order")

    # -- which GPU types the RunPod rungs ask for ----------------------------------------

    def read_runpod_types(self) -> None:
        """'RunPod GPU types: NVIDIA A100 80GB PCIe, …, NVIDIA H100 PCIe': a RunPod
        GPU id the config's runpod.gpu_types does not list."""
        known = {g.lower() for g in self.facts.config.runpod_gpu_types}
        runpod = ("backend", self.facts.backends[-1])
        # a list item under "RunPod … GPU types it may ask for:" is one of them
        in_lead = bool(self.list_lead) and any(
            (t.kind, t.value) == runpod for t in self.lexicon.tag(self.list_lead))
        if not known or self.procedural or not (in_lead or any(
                t.term == runpod for t in self.terms)) or \
                not _RUNPOD_TYPES_CUE.search(f"{self.s.text} {self.table_header} "
                                             f"{self.list_lead if in_lead else ''}"):
            return
        for m in _NVIDIA_ID.finditer(self.s.text):
            if m.group(0).lower() in known:
                continue
            at = self.s.start + m.start()
            self.add("runpod-gpu-type", (m.group(0),), at, self.s.start + m.end(),
                     self.negated_before(at), topic="RunPod GPU types")


    # -- the order of an intent's RunPod GPU types ----------------------------------------

    def read_pod_order(self) -> None:
        """'eval-70b asks RunPod for an H100 80GB HBM3 first, then an A100-SXM4-80GB',
        '- first: NVIDIA A100 80GB PCIe' under '### lora-7b on RunPod': the order of
        the GPU types an intent's RunPod rungs ask for."""
        pods = self.kinds("podtype")
        if not pods or self.procedural:
            return
        around = f"{self.list_lead} {self.table_header} {self.heading}"
        runpod = ("backend", self.facts.backends[-1])
        if not (any(t.term == runpod for t in self.terms) or _POD_WORD.search(self.s.text) or
                any((t.kind, t.value) == runpod for t in self.lexicon.tag(around)) or
                _POD_WORD.search(around)):
            return
        intents = {t.value for t in self.kinds("intent")}
        if not intents:
            for where in (self.list_lead, self.table_header, self.heading):
                intents = {t.value for t in self.lexicon.tag(where) if t.kind == "intent"}
                if intents:
                    break
        if len(intents) != 1:
            return  # the intents differ in their pod order: one must be named
        intent = intents.pop()
        for first, second in itertools.pairwise(pods):
            gap = self.text(first.end, second.start)
            if first.value == second.value or len(gap) > 40:
                continue
            if _POD_AFTER.fullmatch(gap):
                first, second = second, first
            elif not (_POD_THEN.fullmatch(gap) or (_POD_LIST.fullmatch(gap) and
                                                   _POD_ORDER_CUE.search(self.s.text + around))):
                continue
            spans = sorted(((first.start, first.end, ""), (second.start, second.end, "")))
            self.add("pod-order", (intent, first.value, second.value), spans[0][0], spans[1][1],
                     self.negated_before(first.start), topic="RunPod GPU types",
                     fix=tuple(spans))
            return
        pod = pods[0]
        before = self.unit_text[max(self.s.start, pod.start - 30):pod.start]
        after = self.unit_text[pod.end:min(self.s.end, pod.end + 14)]
        if _POD_FIRST_BEFORE.search(before) or _POD_FIRST_AFTER.match(after):
            self.add("pod-first", (intent, pod.value), pod.start, pod.end,
                     self.negated_before(pod.start), topic="RunPod GPU types",
                     fix=((pod.start, pod.end, ""),))

    # -- the width the rungs after GCP ask for ------------------------------------------

    def read_tail_width(self) -> None:
        """'SLURM and RunPod rungs ask for the wide width', 'when it reaches the
        SLURM lanes it asks for a single GPU': the rungs after GCP ask for the
        intent's own width, whatever the request's (the planner decides which)."""
        if not self.s.context or self.procedural:
            return
        tail = [t for t in self.terms if t.term[0] == "lane" or (
            t.term[0] == "backend" and t.term[1] != self.facts.backends[0])]
        if not tail:
            return
        for cue in _TAIL_ASK.finditer(self.s.text):
            at = self.s.start + cue.end()
            if not any(t.end <= at for t in tail) or self.text(
                    self.clause_start(at), at).count(",") > 2:
                continue
            rest = self.text(at, min(self.s.end, at + 60))
            intents = [t for t in self.tokens if t.kind == "intent"]
            intent = intents[0].value if intents else None
            if _AS_MINIMUM.match(rest) or _NO_OBJECT.match(rest):
                # "ask for the minimum width" says what the planner does; "the width
                # you requested, so …" has no object: a new clause follows
                continue
            if _AS_REQUESTED.match(rest):
                self.add("tail-width", (intent, "requested"), at, at + len(rest.split(",")[0]),
                         self.negated_before(at), topic="width after GCP")
                return
            width = next((t for t in self.terms if at <= t.start <= at + 15 and
                          self._term_width(t) is not None and t.term[0] == "width"), None)
            if width is None or re.match(r"\s*(?:gpus?\s+)?(?:per|each|a)\b",
                                         self.unit_text[width.end:width.end + 12], re.I):
                continue
            # the intent named right after the width, else the nearest before it
            # ("so eval-70b asks for 2 GPUs there and lora-7b asks for 1")
            before = [t.value for t in intents if t.end <= width.start]
            named = self._intents_after(width.end) or (before[-1] if before else None)
            if named is None and len({t.value for t in intents}) > 1:
                continue  # "one GPU …, two for eval-70b": whose width is not said
            if named is None and intent is None and _ANY_INTENT.search(self.s.text):
                # "always asks for one GPU, whatever the intent": said of each of them
                for name in self.facts.intents:
                    self.add("tail-width", (name, self._term_width(width)), width.start,
                             width.end, self.negated_before(width.start),
                             topic="width after GCP")
                return
            self.add("tail-width", (named or intent, self._term_width(width)), width.start,
                     width.end, self.negated_before(width.start), topic="width after GCP")
            return

    def _intents_after(self, position: int) -> str | None:
        """The intent a width is said of right after it, up to the clause's end:
        "one GPU for `eval-70b`", "one GPU for the 7b intents" (a group whose
        members share a minimum width stands for any of them)."""
        m = re.match(r"\s*(?:gpus?\s+)?for\s+([^,;:.]*)", self.unit_text[position:self.s.end],
                     re.I)
        if m is None:
            return None
        segment = m.group(1)
        lo, hi = position + m.start(1), position + m.end(1)
        named = {t.value for t in self.tokens if t.kind == "intent" and lo <= t.start < hi}
        return self.floor_stand_in(named or group_of_intents(segment, self.facts.intents))


    # -- one lane's partition, widest allocation and wait ------------------------------------

    def read_lane_facts(self) -> None:
        if self.procedural and not self.table_header:
            return
        lanes = [t for t in self.terms if t.term[0] == "lane"]
        floor = self.s.start
        every = _EVERY_LANE.search(self.s.text) if not self.table_header else None
        if every:
            at, end = self.s.start + every.start(), self.s.start + every.end()
            clause_end = self.clause_end(end) if lanes else self.s.end
            if not lanes or lanes[0].start >= clause_end:
                # "Both SLURM lanes give up after 30 minutes[: campus-a100 first, …]":
                # each lane's own fact, in the clause the quantifier opens
                for name in self.facts.lanes():
                    self._lane_text(TermTok(("lane", name), at, end), self.s.start,
                                    clause_end)
                floor = clause_end
        if not lanes:
            return
        if self.table_header and "|" in self.s.text:
            self._lane_row(lanes[0])
            return
        # Each lane the sentence is about owns its text up to the next one ("campus-a100
        # first (30 min max wait), then campus-preempt (60 min …)"); a lane that is an
        # order's object ("tried after campus-a100", "moving on to campus-preempt")
        # owns nothing
        # …; an object followed by its own relative clause owns that ("moves on to
        # campus-preempt, which waits up to 120 minutes")
        owners = [t for t in lanes if not _OBJECT_CUE.search(
            self.text(max(self.s.start, t.start - 30), t.start)) or
            re.match(r"[`*_]*\s*,\s*(?:which|that|where)\b", self.unit_text[t.end:t.end + 12],
                     re.I)]
        before = [t for t in self.previous_terms if t.term[0] == "lane"]
        if not owners and len({t.term for t in before}) == 1 and _ELIDED_SUBJECT.match(
                self.s.text):
            # "`campus-a100`: Partition gpu. Waits up to 30 min before the router moves
            # on to campus-preempt": the verb's subject is the lane the sentence before
            # was about; the lane named is the order's object
            owners = [TermTok(before[0].term, self.s.start, self.s.start)]
            lanes = owners
        owners = owners or lanes[:1]
        for i, lane in enumerate(owners):
            start = floor if i == 0 else lane.start
            end = owners[i + 1].start if i + 1 < len(owners) else self.s.end
            self._lane_text(lane, start, end)

    def _lane_text(self, lane: TermTok, start: int, end: int) -> None:
        text = self.text(start, end)
        name = lane.term[1]
        negated = self.negated_before(end)
        part = _PARTITION.search(text)
        if part and _NOT_A_NAME.fullmatch(part.group("name")):
            part = None
        after = None if part else _PARTITION_AFTER.search(text)
        if after and (_NOT_A_NAME.fullmatch(after.group("name")) or
                      self.unit_text[lane.start:lane.end].strip("`").lower() != name.lower()):
            after = None  # "keep them off the GPU partitions": no lane named, no fact
        if part or after:
            m = part or after
            at = start + m.start("name")
            # "Do not pass --exclusive on the preempt partition": the negation is the
            # verb's; only one right before "on the X partition" denies it
            denied = negated if part else bool(re.search(
                r"\b(?:not|never)\s+(?:\w+\s+)?$|n't\s+(?:\w+\s+)?$", text[:m.start()], re.I))
            self.add("lane-partition", (name, m.group("name")), at,
                     at + len(m.group("name")), denied, topic="SLURM lanes")
        width = _MAX_WIDTH.search(text)
        if width and not re.search(r"\bwait", text[width.start():width.end()], re.I):
            at = start + width.start("n")
            self.add("lane-max-width", (name, _number(width.group("n"))), at,
                     at + len(width.group("n")), negated, topic="SLURM lanes")
        self._lane_wait(lane, start, end)

    def _lane_wait(self, lane: TermTok, start: int, end: int) -> None:
        name = lane.term[1]
        cue = _WAIT_CUE.search(self.text(start, end))
        if cue is None or _TYPICAL_WAIT.search(self.text(max(start, start + cue.start() - 30),
                                                         start + cue.start())):
            return  # "a mean queue wait of 90 min" is what a queue does, not the lane's limit
        at = start + cue.start()
        durations = [d for d in self.tokens if d.kind == "duration" and start <= d.start < end]
        # the duration nearest the cue, on either side ("waits 30 min", "30 min max wait"),
        # unless one is the lane's own modifier ("the two-hour preempt lane")
        own = [d for d in durations if d.end <= lane.start and
               not self.text(d.end, lane.start).strip(" \n\t`*_")]
        near = own[-1:] or sorted(durations, key=lambda d: abs(d.start - at))[:1]
        for d in near:
            if abs(d.start - at) > 40 and d not in own:
                continue
            self.add("lane-wait", (name, round(d.value * 60, 3)), d.start, d.end,
                     self.negated_before(d.start), topic="SLURM lanes")

    def _lane_row(self, lane: TermTok) -> None:
        """'| campus-a100 | gpu | 8 | 60 min |' under '| Lane | Partition | Max width |
        Max wait |': each column the header names."""
        header = [c.strip().lower() for c in self.table_header.strip().strip("|").split("|")]
        row_text = self.s.text
        cells = []
        pos = 0
        body = row_text.strip()
        offset = self.s.start + row_text.find(body)
        for cell in body.strip("|").split("|"):
            at = body.find(cell, pos)
            cells.append((cell, offset + at))
            pos = at + len(cell)
        if len(cells) != len(header):
            return
        name = lane.term[1]
        for title, (cell, at) in zip(header, cells, strict=True):
            value = cell.strip(" `*_")
            if not value:
                continue
            here = at + cell.find(value)
            # "8 (same nodes as gpu)": a note on the value, after it
            value = _CELL_NOTE.sub("", value).strip(" `*_") or value
            if re.fullmatch(r"partition", title):
                if re.fullmatch(r"[A-Za-z][\w.-]*", value):
                    self.add("lane-partition", (name, value), here, here + len(value),
                             topic="SLURM lanes")
            elif re.search(r"\bmax(?:imum)?\b.*\b(?:width|gpus?)\b|\bgpus?\b", title):
                n = re.fullmatch(r"(\d{1,3})\s*(?:[×x]|gpus?)?", value, re.I)
                if n:
                    self.add("lane-max-width", (name, int(n.group(1))), here,
                             here + len(n.group(1)), topic="SLURM lanes")
            elif re.search(r"\bwait\b", title):
                d = next((t for t in self.tokens if t.kind == "duration" and
                          here <= t.start < here + len(value)), None)
                if d is not None:
                    self.add("lane-wait", (name, round(d.value * 60, 3)), d.start, d.end,
                             topic="SLURM lanes")

    # -- how the families are named -----------------------------------------------------

    def read_family_names(self) -> None:
        """A machine type the config does not use ('a2-highgpu-{w}g' for the A100
        family), or a family's GPU with another memory size ('A100 40GB')."""
        if not self.s.context or self.procedural:
            return
        known = self.facts.machine_type_prefixes
        for m in _MACHINE.finditer(self.s.text):
            prefix = m.group("prefix").lower()
            if prefix in known:
                continue
            at = self.s.start + m.start()
            self.add("machine-type", (m.group(0),), at, self.s.start + m.end(),
                     self.negated_before(at), topic="GPU families")
        families = {name.lower() for name in self.facts.config.families}
        for m in _GPU_MEMORY.finditer(self.s.text):
            if m.group(0).lower() in families:
                continue  # "h100-80gb" is the family's own name
            at = self.s.start + m.start()
            self.add("gpu-memory", (m.group("model").upper(), int(m.group("gb"))), at,
                     self.s.start + m.end(), self.negated_before(at), topic="GPU families")


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _WORD_NUMBERS[text.lower()]
