"""The claim engine over one document: read every ladder sentence once, judge
each proposition against the fact model, and keep the result on the document
for every rule that needs it (ladder-drift, critic-drift, unverified-claim,
stale-claim's de-duplication, and --explain).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace

from lint import reading
from lint.document import ARCHIVE_HEADING, Document, Unit
from lint.facts import Facts
from lint.lexicon import Lexicon, Prefiltered, Token, _gate_text
from lint.propositions import Prop, Verdict, judge
from lint.reading.cues import COND, EVERY_FAMILY, EVERY_INTENT
from lint.reading.lengths import heading_class

_ORDINAL = re.compile(r"^\W*(?:(first(?:ly)?|to\s+start|start\s+with)|(second(?:ly)?|third(?:ly)?|"
                      r"fourth|then|next|after\s+that|afterwards|if\s+that\s+(?:misses|fails)|"
                      r"failing\s+that)|(finally|last(?:ly)?|as\s+a\s+last\s+resort))\b", re.I)
# Ladder sentences that name no entity token: "widths are 1, 2, 4, 6 and 8",
# "the wide rungs are opt-in".
_WIDTH_LIST = re.compile(r"(?:\b|_)widths?\b[^.]{0,40}?\d+\s*(?:,|→|->)\s*\d+|"
                         r"\bwid(?:e|est)\s+(?:gcp\s+)?(?:rungs?|machines?|boxes)\b", re.I)
_WIDTH_LIST_GATE = Prefiltered(_WIDTH_LIST)
_EVERY_FAMILY_GATE = Prefiltered(EVERY_FAMILY)
_EVERY_INTENT_GATE = Prefiltered(EVERY_INTENT)
_ORDER_LEAD = re.compile(r"(?:\border\b|\bsequence\b|\bin\s+turn\b|\bdown\s+(?:this|the)\s+"
                         r"list\b|\b(?:walks?|tries|visits?)\s+them\b|\bone\s+by\s+one\b|"
                         r"\bpriority\b)[^:\n]{0,60}:\s*$", re.I)
# "The first model is X", "Lane two is Y", "Step 3: …": an ordinal anywhere in a
# short sentence, with its rank (0 first, 1 middle, 2 last)
_ORDINAL_NOUN = re.compile(r"\bthe\s+(first|second|third|fourth|next|last|final)\s+"
                           r"(?:\w+\s+){0,2}?(?:is|are|one\s+is)\b|"
                           r"^\W*(?:lane|step|stage|rung|tier|option|choice)\s+(one|1|two|2|three|3|"
                           r"four|4)\b", re.I)


# a list item that is a case with its verdict, not a rung
_CASE_ITEM = re.compile(r"(?:→|->|=>|:)\s*[`*_]*(?:APPROVE|REVISE|no\s+[\w-]+\s+finding)\b")
# an item that opens with a command to type: "`sinfo -p gpu,preempt` to see …"
_COMMAND_ITEM = re.compile(r"[\s*_]*`[a-z][\w.-]*\s+[^`]*?(?<!\w)--?[a-z]")
# a fragment that opens with its predicate: "offered on both families", "only on A100"
_PREDICATE_FIRST = re.compile(r"\W*(?:(?:only|also|never|not)\s+)?(?:offered|available|allowed|"
                              r"used|runs?|supported|on|for)\b", re.I)
# a key about widths with a list of two numbers or more as its value
_WIDTHS_SETTING = re.compile(r"(?:\b|_)widths[\"'`]?\s*[:=]\s*[\[(]?\s*\d{1,2}\s*,\s*\d{1,2}",
                             re.I)


def _names_two(lexicon: Lexicon, line: str) -> bool:
    """A data line whose value names two or more ladder entities."""
    value = line.split(":", 1)[-1] if ":" in line else line.split("=", 1)[-1]
    return lexicon.mentions_anything(value) and sum(t.entity for t in lexicon.tag(value)) >= 2


def _states_setting(lexicon: Lexicon, unit: Unit) -> bool:
    """A data line read as a setting: its value names two ladder entities
    ("long: FLEX_START -> SPOT"), or its key and context name one and its value
    is a number ("flex start: max hours: 336", "FLEX_START: max 24 h")."""
    if _PLAN_PHASE.match(unit.text):
        return False  # a §9 phase's `width: 6` is the plan's, checked by plan-block
    if _WIDTHS_SETTING.search(unit.raw or unit.text):
        return True  # "auto_widths": [4, 2, 1]: a list of widths under a widths key
    if not lexicon.mentions_anything(unit.raw or unit.text) and \
            not lexicon.mentions_anything(unit.text):
        return False  # most other lines of a YAML block name no ladder entity at all
    if _names_two(lexicon, unit.raw or unit.text):
        return True
    tokens = lexicon.tag(unit.text)
    if unit.lead and sum(t.entity for t in tokens) >= 2:
        return True  # its parent names one: "H100 (a3-highgpu):" over "└─ STANDARD"
    if any(t.kind == "rule" for t in tokens) and any(t.kind in _VERDICT_KINDS for t in tokens):
        return True  # a critic's verdict map: "unreadable-launch:  APPROVE + warning"
    value = unit.text.rpartition(":" if ":" in unit.text else "=")[2]
    return bool(re.search(r"\d", value)) and any(t.entity for t in tokens)


def _models_of(r: Reading) -> frozenset[str]:
    """The provisioning models a reading's sentence names."""
    return frozenset(t.term[1] for t in reading.terms(r.sentence) if t.term[0] == "model")


def _ordinal_of(text: str) -> int | None:
    m = _ORDINAL.match(text)
    if m:
        return 0 if m.group(1) else (1 if m.group(2) else 2)
    m = _ORDINAL_NOUN.search(text)
    if m is None:
        return None
    word = (m.group(1) or m.group(2)).lower()
    if word in ("first", "one", "1"):
        return 0
    return 2 if word in ("last", "final") else 1


_KEY_ITEM = re.compile(r"^\W*\w+(?:\s+\w+)?\s*[`*_]*\s*[:=]")


def _sequenced(items: list[tuple[Unit, list[Reading]]]) -> bool:
    """A bullet list whose every item after the first opens with a step word
    ("- try spot first", "- then on-demand", "- then DWS"): it is in order."""
    firsts = {}
    for unit, _ in items:
        firsts.setdefault(unit.item, unit.text)
    texts = list(firsts.values())
    ranks = [_ORDINAL.match(t) and not _KEY_ITEM.match(t) and _ordinal_of(t) for t in texts[1:]]
    # (at least one "then": "- first: gcp" / "- last: runpod" are keys, not steps)
    return len(texts) >= 2 and all(r in (1, 2) for r in ranks) and 1 in ranks


_EVERYTHING_ELSE = re.compile(r"^\W*(?:and\s+)?(?:everything|anything|any\s+job|every\s+job|"
                              r"all)\s+(?:else|other\s+jobs?|longer|shorter)\b|^\W*the\s+rest\b",
                              re.I)
# "X; that is no longer true" retracts X; "…; it is no longer the final rung" says more
_RETRACTS = re.compile(r"^\W*(?:that|this|which|it)\b[^.]{0,30}\b(?:no\s+longer\s+(?:true|"
                       r"the\s+case|holds?|applies|accurate|correct|right|valid)\b|"
                       r"no\s+longer\W*$|"
                       r"not\s+the\s+case|"
                       r"wrong|incorrect|outdated|changed|retired|obsolete|false|a\s+mistake|"
                       r"(?:is|are|'s)\s+(?:long\s+|now\s+)?gone)|"
                       r"^[^.]{0,60}\b(?:reversed|overturned|undid|superseded|retired)\s+"
                       r"(?:it|that|this)\b", re.I)
_ORDER_HEADER = re.compile(r"^\s*(?:#|no\.?|step|order|rank|priority|rung|position|try|tier)\s*$",
                           re.I)
_KEY_HEADER = re.compile(r"\b(?:backends?|rungs?|lanes?|stages?|stops?|where|targets?|"
                         r"partitions?|machines?|families|family|widths?|steps?\s+name)\b", re.I)
_ORDINALS = (("first", "1st", "lead", "leads", "primary", "start"), ("second", "2nd", "middle",
             "then", "next"), ("third", "3rd"), ("last", "final", "finally", "fallback"))
# a models cell's list, then what it leaves out: "spot / flex (no od, ever)"
_DENIED_IN_CELL = re.compile(r"(?:[(,;—–]|\bbut\b)\s*(?:but\s+)?(?:no|not|never|without|except)\b",
                             re.I)
_YES = re.compile(r"^\s*(?:✅|✓|✔|yes|y|allowed|ok|supported|on)\b|^\s*(?:✅|✓|✔)", re.I)
_NO = re.compile(r"^\s*(?:❌|✗|✘|×|no|n|never|not\s+allowed|forbidden|unsupported|off|—|-|–)"
                 r"(?:\W|$)", re.I)


@dataclass
class Reading:
    unit: Unit
    sentence: reading.Sentence
    props: list[Prop] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    suppressed_by_stale: bool = False
    # a value of a YAML config snippet, not prose: True, or the line with the
    # config's own value
    snippet: bool | str = False

    @property
    def text(self) -> str:
        return self.unit.text[self.sentence.start:self.sentence.end]

    def drifts(self) -> list[tuple[Prop, Verdict]]:
        return [(p, v) for p, v in zip(self.props, self.verdicts, strict=True)
                if v.holds is False]


@dataclass
class Engine:
    lexicon: Lexicon
    facts: Facts

    def analyze(self, doc: Document, skip_lines: set[int], critic: bool = False
                ) -> list[Reading]:
        key = ("readings", critic, frozenset(skip_lines))
        if key not in doc.cache:
            doc.cache[key] = self._analyze(doc, skip_lines, critic)
        return doc.cache[key]

    def _analyze(self, doc: Document, skip_lines: set[int], critic: bool) -> list[Reading]:
        from lint.document import corrected_quote_lines

        # a quote the text around it corrects ("> GCP → RunPod", "That's backwards: …")
        skip_lines = skip_lines | corrected_quote_lines(doc)
        lexicon = self.lexicon.with_critic(_critic_rules(self.facts)) if critic else self.lexicon
        lexicon.forget()
        self._models_named: tuple[int, tuple[str, ...]] = (0, ())  # (list, models its item named)
        readings: list[Reading] = []
        by_list: dict[int, list[tuple[Unit, list[Reading]]]] = {}
        by_table: dict[int, list[tuple[Unit, list[Reading]]]] = {}
        previous: list[Reading] = []
        lead_in_context = False
        ordered_lists: set[int] = set()  # bullet lists a lead-in says are in order
        order_pending = False
        family_of_list: dict[int, str] = {}  # "- a2-ultragpu" over "  - SPOT ✅"
        nested_lists: dict[int, list[int]] = {}  # a list of families → their model lists
        parent: Unit | None = None
        parent_request: tuple[float, int] | None = None  # a lead-in's worked job
        list_request: dict[int, tuple[float, int]] = {}
        list_lead: dict[int, str] = {}
        fence_lead = ""
        question_job: tuple[float, int] | None = None  # the job a "Q:" paragraph stated
        table_header = ""
        section_heading = ""  # "### campus-preempt" over "- waits up to …"
        subjects: dict[str, str | None] = {}

        def subject_of(text: str) -> str | None:
            if text not in subjects:
                subjects[text] = _lone_subject(lexicon, text)
            return subjects[text]

        units = doc.units
        # a fence's one command, by the lines a paragraph right after it starts on:
        # "this runs four shards side by side" points back at it (critic prompts)
        fence_commands = _fence_commands(doc) if critic else {}
        snippets = self._snippets(doc, skip_lines)
        taken = {r.unit.line for r in snippets}
        # (a data line is kept when it and its comment name two ladder entities: the
        # comment itself is read as its own line)
        data = [u for u in doc.data_lines if _states_setting(lexicon, u) and
                u.line not in taken]
        data += [u for u in doc.comment_lines if u.command or lexicon.mentions_anything(u.text)]
        if data:
            # "long: FLEX_START -> SPOT -> STANDARD" in a plain fence states a setting
            units = sorted([*units, *data], key=lambda u: u.line)
        for unit in units:
            if not unit.data:
                fence_lead = unit.text if not unit.list_id and not unit.table_id and \
                    unit.text.rstrip(" *_").endswith(":") else ""
            new_list = bool(unit.list_id) and unit.list_id not in by_list
            if new_list and order_pending:
                ordered_lists.add(unit.list_id)
            if new_list and parent is not None and parent.list_id and \
                    parent.list_id != unit.list_id:
                family = _lone_family(lexicon, parent.text)
                # only under a config machine type or in ladder context: "- H100" over
                # "  - Spot ✅" in a cost guide is not our ladder
                if family and (self.facts.names_machine_type(parent.text) or
                               lexicon.ladder_context.search(unit.heading)):
                    family_of_list[unit.list_id] = family
                    nested_lists.setdefault(parent.list_id, []).append(unit.list_id)
            if new_list and parent is not None and not parent.list_id and (
                    parent.text.rstrip(" *_").endswith((":", "?")) or parent.command or (
                        parent.kind == "paragraph" and parent.line == unit.line - 1 and
                        _TITLE_LEAD.match(parent.text))):
                # "GPU types it asks for:" or a title line ("DWS / flex-start facts")
                # right over "- …"
                list_lead[unit.list_id] = parent.text
            elif new_list and parent is not None and parent.list_id and \
                    parent.list_id != unit.list_id:
                list_lead[unit.list_id] = parent.text  # "- capture-7b" over "  - RunPod: …"
            if unit.kind == "heading":
                section_heading = unit.text  # its subject is found only if a unit is read
            parent = unit
            if unit.kind != "heading":
                # "Backends, in the order dispatch walks them:" orders the list below it
                order_pending = bool(_ORDER_LEAD.search(unit.text)) or (
                    order_pending and unit.list_id in ordered_lists)
                if new_list:
                    by_list[unit.list_id] = []
            if unit.line in skip_lines or (unit.kind == "heading" and not critic and
                                           not unit.text.rstrip().endswith("?")):
                continue  # a heading is context; a question heading is answered below it
            lowered = _gate_text(unit.text)  # for the gates' literal tests, made once
            if not unit.command and not lexicon.mentions_anything(unit.text) and \
                    not _ORDINAL.match(unit.text) and \
                    not unit.header and not _WIDTH_LIST_GATE.search(unit.text, lowered) and \
                    not (critic and (_AXIS_WORDS.search(unit.text) or
                                     _VERDICTS_NAMED.search(unit.text) or
                                     _VERDICT_ON_LAUNCH.search(unit.raw or unit.text))) and \
                    not reading.KEY_WORDS.search(unit.text) and \
                    not (unit.table_id and not unit.header and re.search(r"\d", unit.text) and
                         _WIDTHS_HEADER.search(table_header)) and \
                    not (critic and unit.table_id and not unit.header and
                         "parallel" in table_header.lower()) and \
                    not _ANSWERED_GATE.search(unit.text, lowered) and \
                    not _EVERY_FAMILY_GATE.search(unit.text, lowered) and \
                    not _EVERY_INTENT_GATE.search(unit.text, lowered) \
                    and not reading.about_scaling(unit.text, lowered) and \
                    not reading.bare_width_list(unit.text, unit.heading):
                if unit.list_id == 0 and unit.table_id == 0:
                    lead_in_context = bool(lexicon.ladder_context.search(unit.text))
                previous = []
                continue
            if unit.table_id and unit.header:
                table_header = unit.text
                if lexicon.ladder_context.search(unit.text):
                    # "| Requested | Chain on capacity misses |": the header puts the
                    # rows below it in ladder context
                    lead_in_context = True
            if new_list and parent_request is not None:
                # "Worked example, a 1 h job at 4×:" over "- 2×: 2 h, short, SPOT lead."
                list_request[unit.list_id] = parent_request
            # "Intent minimums as the router sees them:" over a fence of settings leads
            # its lines as a lead-in leads a list
            lead = list_lead.get(unit.list_id, "") or (fence_lead if unit.data else "")
            # "Q: My LoRA job asks for 2 GPUs for 1.5 h. …?" over "A: It drops to one
            # GPU …. At one GPU it is treated as long …": the answer goes on about
            # the job its question stated
            answer_job = question_job if _ANSWER_LINE.match(unit.text) else None
            question_job = self._stated_job(unit.text) if _QUESTION_LINE.match(unit.text) \
                else None
            unit_readings = self._read_unit(unit, lexicon, lead_in_context, critic,
                                            table_header if unit.table_id else "",
                                            list_request.get(unit.list_id) or answer_job, lead,
                                            None if unit.list_id in family_of_list else
                                            (lead and subject_of(lead)) or
                                            (None if unit.table_id or not section_heading else
                                             subject_of(section_heading)),
                                            fence_commands.get(unit.line, ""))
            # ("- `eval-70b`, `--gpu-count 8 --hours 10`" over "  - width 2: 40 h": an
            # item's job is its nested list's)
            parent_request = self._last_request if unit.list_id or (
                unit.text.rstrip(" *_").endswith(":") or unit.command) else None
            if unit.table_id and unit.header and _column_names(unit.text):
                # "| width | length | short/long | leads with | flex-start offered |"
                # names columns: the rows below state the claims
                for r in unit_readings:
                    r.props.clear()
            if unit.table_id and not unit.header and table_header:
                _negate_dont_column(unit, unit_readings, table_header)
                if unit_readings and not any(r.props for r in unit_readings):
                    unit_readings[0].props += self._lead_row(unit, table_header, lexicon)
                    unit_readings[0].props += self._min_width_row(unit, table_header)
                setting = self._setting_row(unit, table_header, lexicon) if unit_readings \
                    else []
                setting = setting or (self._condition_row(unit, table_header, lexicon)
                                      if unit_readings else [])
                if setting:  # the row says what its key is set to, and nothing else
                    unit_readings[0].props[:] = setting
                    for extra in unit_readings[1:]:
                        extra.props.clear()
                if unit_readings:
                    unit_readings[0].props += self._request_row(unit, table_header, lexicon)
            if unit.list_id and _PROHIBITING_LEAD.match(list_lead.get(unit.list_id, "")):
                # "Do not:" over "- assume preemptible capacity is H100-only; …"
                _negate_prohibited(unit_readings, unit.text, 0, len(unit.text))
            if unit.list_id and unit_readings and lead.rstrip(" *_`").endswith("?"):
                _branch_order(unit, unit_readings[0], lead, lexicon)
                for extra in unit_readings[1:]:
                    extra.props = [p for p in extra.props
                                   if not (p.kind == "order" and p.args[0][0] == "model")] \
                        if _BRANCH.match(unit.text) else extra.props
            if unit.list_id in family_of_list and unit_readings:
                self._model_mark(unit, unit_readings[0], family_of_list[unit.list_id])
            if unit.data and unit_readings:
                _listed_models(unit, unit_readings[0], lexicon, self.facts)
            if unit.kind == "heading":
                previous = unit_readings
                continue
            self._answers(previous, unit_readings, lexicon)
            readings.extend(unit_readings)
            previous = unit_readings
            if unit.list_id:
                by_list.setdefault(unit.list_id, []).append((unit, unit_readings))
            elif unit.table_id:
                by_table.setdefault(unit.table_id, []).append((unit, unit_readings))
            else:
                lead_in_context = any(r.sentence.context for r in unit_readings)
        for list_id, items in by_list.items():
            lead = list_lead.get(list_id, "")
            intents = {t.value for t in lexicon.tag(lead) if t.kind == "intent"}
            classes = {t.kind for t in lexicon.tag(lead, cues_alone=True)
                       if t.kind in ("short", "long")}
            self._ordered_list(items, list_id in ordered_lists,
                               intents.pop() if len(intents) == 1 and subject_of(lead) else None,
                               classes.pop() if len(classes) == 1 else
                               heading_class(items[0][0].heading) if items else None, lead)
        for outer, children in nested_lists.items():
            items = by_list.get(outer, [])
            if items and (items[0][0].ordered or outer in ordered_lists):
                classes = {t.kind for t in lexicon.tag(list_lead.get(outer, ""), cues_alone=True)
                           if t.kind in ("short", "long")}
                self._family_major(children, by_list, family_of_list,
                                   classes.pop() if len(classes) == 1 else
                                   heading_class(items[0][0].heading))
        for rows in by_table.values():
            self._table(rows, lexicon)
        readings += snippets
        readings.sort(key=lambda r: r.unit.line)
        for r in readings:
            r.verdicts = [judge(p, self.facts) for p in r.props]
        return readings

    def _snippets(self, doc: Document, skip_lines: set[int]) -> list[Reading]:
        """YAML fences that restate the ladder config, value by value."""
        from lint import config_snippet

        by_line: dict[int, list] = {}
        aliases = self.lexicon.data.get("config_keys") or {}
        for token in doc.tokens:
            language = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() \
                else ""
            if token.type != "fence" or not token.map or (
                    language not in config_snippet.YAML_FENCES and
                    language not in config_snippet.ASSIGNMENT_FENCES):
                continue
            for claim in config_snippet.read(token.content, token.map[0] + 2, doc.lines,
                                             self.facts, language, aliases):
                if claim.line not in skip_lines:
                    by_line.setdefault(claim.line, []).append(claim)
        out = []
        for line, claims in sorted(by_line.items()):
            text = claims[0].text
            # one line, one reading: its fix puts the config's value in every wrong place
            fixed = text
            for claim in sorted(claims, key=lambda c: -c.prop.start):
                if claim.fix and judge(claim.prop, self.facts).holds is False:
                    fixed = fixed[:claim.prop.start] + claim.fix + fixed[claim.prop.end:]
            unit = Unit("paragraph", line, text, "", text, (0,))
            sentence = reading.Sentence(0, len(text), text, [], context=True)
            out.append(Reading(unit, sentence, [c.prop for c in claims],
                               snippet=fixed if fixed != text else True))
        return out

    # ---- one unit -------------------------------------------------------------------------

    def _read_unit(self, unit: Unit, lexicon: Lexicon, lead_in: bool, critic: bool,
                   table_header: str = "", carried: tuple[float, int] | None = None,
                   list_lead: str = "", subject: str | None = None,
                   fence_before: str = "") -> list[Reading]:
        """The readings of one unit; `carried` is a worked job its list's lead-in
        states, `fence_before` the one command of a code block right above it.
        The last worked job it states is left in `_last_request`."""
        out: list[Reading] = []
        # (a fence's line under "Rough picture of an 8x dispatch:" is in its context too)
        unit_context = lead_in and (unit.list_id != 0 or unit.table_id != 0 or unit.data)
        previous_terms: list[reading.TermTok] = []
        previous_class: str | None = None
        previous_model: reading.TermTok | None = None
        # "**a2-ultragpu** — the A100 family. SPOT and FLEX_START only; it never runs
        # on-demand.": a glossary entry's term is the subject of its definition
        # ("**Glossary: short job.** A job whose length … is under 4 h": a class's entry)
        entry = _GLOSSARY.match(unit.raw or "") or _CLASS_TITLE.match(unit.raw or "")
        term = entry["term"].strip("`") if entry else None
        self._last_request = None
        job_intent: str | None = None  # the intent of a worked job a sentence stated
        if self._models_named[0] != unit.list_id or not unit.list_id:
            self._models_named = (unit.list_id, ())
        rejected_title = _rejected_title(unit)
        for start, end in reading.split_sentences(unit.text):
            sentence = reading.tag_sentence(lexicon, unit.text, start, end)
            if out and unit.text[out[-1].sentence.end:start].startswith(";") and \
                    _PAST_ONLY.search(sentence.text) and \
                    not _PRESENT_TENSE.search(sentence.text) and (
                        out[-1].sentence.history or any(
                            t.kind == "history" for t in lexicon.tag(
                                out[-1].sentence.text, cues_alone=True))):
                # "the v0 router (2023) had no widths; every dispatch got one GPU and it
                # asked for preemptible capacity first": the history note goes on
                sentence.history = True
            if _PAST_ONLY.search(sentence.text) and not _PRESENT_TENSE.search(sentence.text) \
                    and not _PRESENT_VERB.search(sentence.text) and (
                        ARCHIVE_HEADING.search(unit.heading) or (
                        out and out[-1].sentence.history and
                        _POINTS_BACK.match(sentence.text))):
                # "### History" over "In the v0 prototype …", then "That prototype also
                # tried RunPod ahead of the campus lanes": past tense under a history
                # heading, or going on about the history note before it
                sentence.history = True
            if rejected_title and not out and sentence.text.strip() == rejected_title:
                # "## Non-goals" over "**An opt-in flag for 8-GPU machines.** …": the
                # bold title names an option that was turned down, not today's ladder
                sentence.history = True
            sentence.context = unit_context or reading.in_context(
                lexicon, sentence.text, unit.heading) or any(
                r.sentence.context for r in out) or sum(
                t.kind == "family" and t.value[1] is not None for t in sentence.tokens) >= 2
            # two of the config's machine types ("a3-highgpu-8g before a2-ultragpu-8g")
            # name rungs of this ladder, whatever the section is about
            reader = reading.Reader(sentence, unit.text, lexicon, unit.heading, self.facts)
            reader.carried = carried
            reader.table_header = table_header
            reader.list_lead = list_lead
            reader.fence_before = fence_before
            reader.previous_terms = previous_terms
            reader.previous_class, reader.previous_model = previous_class, previous_model
            reader.lead_defined = bool(term and _LEAD_TERM.fullmatch(term)) or bool(
                out and not out[-1].sentence.props and _defines_lead(out[-1].sentence))
            if unit.list_id:  # the models an item before in the same list named
                reader.models_before = self._models_named[1]
            sentence.props = reader.read()
            intents = {t.value for t in sentence.tokens if t.kind == "intent"}
            if job_intent and not intents and any(
                    p.kind == "order" and p.args[0][0] == "width" for p in sentence.props):
                # "eval-70b on 8 GPUs for 2 h." then "The router degrades 8 → 4 → 2 → 1":
                # the chain is that job's, and its intent may stop it sooner
                sentence.props += [p for p in self._with_intent(job_intent, sentence, lexicon,
                                                                unit.heading)
                                   if p.kind == "reach"]
            if intents:
                job_intent = intents.pop() if reader.request and len(intents) == 1 else None
            named = tuple(dict.fromkeys(t.term[1] for t in reader.terms if t.term[0] == "model"))
            if named:
                self._models_named = (unit.list_id, named)
            # (a sentence that only restates the job's lengths, "At 2x that's 3 h and at
            # 1x it's 6 h.", passes it on to the next)
            carried = reader.request or carried if unit.list_id or (
                carried and _RESTATES_JOB.match(sentence.text) and
                any(t.kind == "duration" for t in sentence.tokens)) else reader.request
            self._last_request = reader.request or self._last_request
            previous_terms = [t for t in reader.terms if reading.orderable(t.term)]
            models = [t for t in reader.terms if t.term[0] == "model"]
            previous_model = models[-1] if models else None
            previous_class = reader.length_class(models[-1].start) if models else None
            if critic:
                from lint import critic_reading

                sentence.props += critic_reading.read(reader, unit)
            # ("**STANDARD**: on-demand VMs; offered on both a2-ultragpu and
            # a3-highgpu": a model's families are its objects, not subjects)
            model_fragment = bool(term) and self._model_term_fragment(term, sentence, lexicon)
            if not sentence.props and sentence.context and not sentence.history and \
                    not sentence.question:
                # "campus-preempt rarely has a queue, so the router asks it first"
                sentence.props += self._object_pronoun(sentence, unit, lexicon)
            if critic and out and not sentence.props and not sentence.history and \
                    not sentence.question:
                # "My eval loads the model with `device_map=auto`. … the critic treats
                # it as parallel work": the launch the sentences before named
                sentence.props += self._launch_pronoun(out, sentence, unit, lexicon)
            if out and not sentence.props and (sentence.context or critic or model_fragment) and \
                    not sentence.history and not sentence.question:
                sentence.props += self._pronoun_subject(out[-1].sentence, sentence, unit,
                                                        lexicon, term)
                elided = self._elided_subject(out[-1].sentence, sentence, unit)
                if elided and not sentence.props:
                    # "`campus-preempt`, partition `preempt`; waits up to 30 min."
                    sentence.props += self._with_subject(elided, sentence, unit, lexicon)
                if term and not sentence.props and (not any(
                        t.kind in ("backend", "lane", "family", "intent") for t in sentence.tokens)
                        or model_fragment):
                    sentence.props += self._with_subject(term, sentence, unit, lexicon)
            # (a heading or parent item that names a lane, family or intent puts its
            # items in ladder context)
            if subject and not term and not sentence.history and not sentence.question and \
                    (_VERB_FIRST.match(sentence.text) or (
                        not sentence.props and not _OWN_SUBJECT.match(sentence.text) and
                        not any(t.kind in _SUBJECT_NAMES for t in sentence.tokens))):
                # "### campus-preempt" over "- waits up to 120 min, and is tried after
                # campus-a100": the section's one name is the subject its items leave out
                read = self._with_subject(subject, sentence, unit, lexicon)
                if read:
                    sentence.props = read
            elif subject and not term and sentence.props and unit.list_id and \
                    not sentence.history and not sentence.question and \
                    not _OWN_SUBJECT.match(sentence.text) and \
                    not any(t.kind == "intent" for t in sentence.tokens) and \
                    any(t.kind == "intent" for t in lexicon.tag(subject)):
                # "- **eval-70b**" over "  - 8× request walks 8× → 4× → 2× → 1×": the
                # chain is that intent's, which may end before the ladder's does
                read = self._with_subject(subject, sentence, unit, lexicon)
                if len(read) > len(sentence.props):
                    sentence.props = read
            if out and _EVERYTHING_ELSE.match(sentence.text):
                # "Jobs shorter than three hours are short; everything else is long":
                # the subset before is the whole class, so it states the threshold
                for p in list(out[-1].props):
                    if p.kind == "subset" and not p.negated and (p.args[0], p.args[2]) in (
                            ("under", "short"), ("over", "long")):
                        out[-1].props.append(Prop("threshold", (p.args[1],), False, p.start,
                                                  p.end, "length threshold", p.fix_spans))
            if out and _RETRACTS.match(sentence.text):
                # "X; that is no longer the case." makes X history
                out[-1].sentence.history = True
                out[-1].props.clear()
            out.append(Reading(unit, sentence, list(sentence.props)))
        self._ordinals(out)
        return out

    @staticmethod
    def _model_term_fragment(term: str, sentence: reading.Sentence, lexicon: Lexicon) -> bool:
        """A glossary term that is a provisioning model, over a fragment that names
        families but no model and opens with its predicate ("offered on …")."""
        return any(t.kind == "model" for t in lexicon.tag(term)) and \
            not any(t.kind == "model" for t in sentence.tokens) and \
            bool(_PREDICATE_FIRST.match(sentence.text))

    def _with_intent(self, intent: str, sentence: reading.Sentence, lexicon: Lexicon,
                     heading: str) -> list[Prop]:
        """The sentence read as said of `intent`, its spans kept on the sentence."""
        body = sentence.text.lstrip()
        prefix = f"{intent}: "
        shift = sentence.start + len(sentence.text) - len(body) - len(prefix)
        return _moved([p for p in self._read_text(prefix + body, lexicon, heading)
                       if p.start >= len(prefix)], lambda offset: offset + shift)

    def _with_subject(self, term: str, sentence: reading.Sentence, unit: Unit,
                      lexicon: Lexicon) -> list[Prop]:
        """A definition's fragment read with its glossary term as subject
        ("SPOT and FLEX_START only" under "**a2-ultragpu** —")."""
        at = sentence.start + len(sentence.text) - len(sentence.text.lstrip())
        # a verdict the fragment leaves to its heading ("Widen it and shard." under
        # "## Warn") is not one the fragment states
        # ("offered on both families" reads as "STANDARD, offered on both families")
        joint = ", " if _PREDICATE_FIRST.match(sentence.text) else ": "
        return _placed([p for p in self._read_text(f"{term}{joint}{sentence.text.strip()}",
                                                   lexicon, unit.heading)
                        if p.kind != "verdict" or _VERDICT_WORD.search(sentence.text)],
                       at, sentence.end)

    def _lead_row(self, unit: Unit, header: str, lexicon: Lexicon) -> list[Prop]:
        """'| job length at that width | lead model |' over '| 4 h or more | STANDARD |':
        the row read as 'Jobs 4 h or more at that width lead with STANDARD.'"""
        names = [c.strip().lower() for c in header.split(" | ")]
        length = next((i for i, c in enumerate(names) if _LENGTH_COLUMN.search(c)), None)
        lead = next((i for i, c in enumerate(names) if _LEAD_COLUMN.search(c) and i != length),
                    None)
        cells = unit.cells
        if length is None or lead is None or len(cells) != len(names):
            return []
        span = _SYMBOL.sub(lambda m: _SYMBOL_WORDS[m.group(0)], cells[length].strip())
        if not re.search(r"\d", span):
            return []
        at = _cell_start(unit, lead)
        text = f"Jobs {span} at that width lead with {cells[lead].strip()}."
        return _placed(self._read_text(text, lexicon, unit.heading), at,
                       at + len(cells[lead]))

    def _min_width_row(self, unit: Unit, header: str) -> list[Prop]:
        """'| intent | narrowest width |' over '| lora-7b | 2 |': that intent's
        minimum width."""
        names = [c.strip(" *_`").lower() for c in header.split(" | ")]
        intent = next((i for i, c in enumerate(names) if _INTENT_COLUMN.search(c)), None)
        floor = next((i for i, c in enumerate(names) if _MIN_WIDTH_COLUMN.search(c)), None)
        cells = unit.cells
        if intent is None or floor is None or len(cells) != len(names):
            return []
        name = cells[intent].strip(" *_`")
        number = _CELL_NUMBER.match(cells[floor])
        if name not in self.facts.intents or number is None:
            return []
        at = _cell_start(unit, floor) + number.start(1)
        end = at + len(number.group(1))
        return [Prop("min-width", (name, int(number.group(1))), False, at, end,
                     "minimum width", ((at, end, ""),))]

    def _setting_row(self, unit: Unit, header: str, lexicon: Lexicon) -> list[Prop]:
        """'| setting | value |' over '| `flex_start_max_run_hours` | 336 |': the row
        read as the setting line 'flex_start_max_run_hours : 336', its spans and
        fixes put back on the row's cells."""
        names = [c.strip().lower() for c in header.split(" | ")]
        value = next((i for i, c in enumerate(names) if _VALUE_COLUMN.search(c)), None)
        cells = unit.cells
        if value is None or value == 0 or len(cells) != len(names) or not cells[0].strip():
            return []
        joint = len(cells[0]) + 3  # where the value starts in the line read
        shift = _cell_start(unit, value) - joint

        def back(offset: int) -> int:
            return offset if offset < joint else offset + shift

        # (a claim read from "hours : 3" is the value's: its column is the value cell's)
        props = [replace(p, start=p.start if p.end <= joint else max(p.start, joint))
                 for p in self._read_text(f"{cells[0]} : {cells[value]}", lexicon, unit.heading)]
        return _moved(props, back)

    def _condition_row(self, unit: Unit, header: str, lexicon: Lexicon) -> list[Prop]:
        """'| if … | then the router … |' over '| campus-a100 missed | goes to RunPod |':
        the row read as 'If campus-a100 missed, the router goes to RunPod.', its
        spans put back on the row's cells."""
        names = [c.strip(" *_`").lower() for c in header.split(" | ")]
        cells = unit.cells
        if len(names) != 2 or len(cells) != 2 or not _IF_COLUMN.match(names[0]) or \
                not _THEN_COLUMN.match(names[1]) or not all(c.strip() for c in cells):
            return []
        condition, action = (c.strip() for c in cells)
        subject = "" if _ACTION_SUBJECT.match(action) else "the router "
        text = f"If {condition}, {subject}{action}."
        at_action = 3 + len(condition) + 2 + len(subject)
        starts = (_cell_start(unit, 0) + len(cells[0]) - len(cells[0].lstrip()),
                  _cell_start(unit, 1) + len(cells[1]) - len(cells[1].lstrip()))

        def back(offset: int) -> int:
            if offset >= at_action:
                return starts[1] + min(offset - at_action, len(action))
            return starts[0] + min(max(offset - 3, 0), len(condition))

        return _moved(self._read_text(text, lexicon, unit.heading), back)

    def _request_row(self, unit: Unit, header: str, lexicon: Lexicon) -> list[Prop]:
        """'| requested | widths tried, in order |' over '| 4x | 8x, 4x, 2x, 1x |': the
        row read as 'A 4x request tries 8x, 4x, 2x, 1x.'"""
        names = [c.strip().lower() for c in header.split(" | ")]
        request = next((i for i, c in enumerate(names) if _REQUEST_COLUMN.search(c)), None)
        chain = next((i for i, c in enumerate(names) if _CHAIN_COLUMN.search(c) and
                      i != request), None)
        cells = unit.cells
        if request is None or chain is None or len(cells) != len(names) or \
                not re.fullmatch(r"\W*\d+\s*[x×]?\W*", cells[request].strip()):
            return []
        at = _cell_start(unit, chain)
        asked = cells[request].strip(" `*_")
        asked += "" if asked[-1:] in "x×" else "×"
        text = f"A {asked} request tries {cells[chain].strip()}."
        props = [p for p in self._read_text(text, lexicon, unit.heading)
                 if p.kind in ("request-first", "direction")]
        # the cell's widths in the order given: an order or a skip along the
        # ladder's chain holds for any request (its walk is the tail of the
        # widest one), and a width must be one of the ladder's
        text = f"On capacity misses, GCP widths are tried in this order: {cells[chain].strip()}."
        props += [p for p in self._read_text(text, lexicon, unit.heading)
                  if p.kind in ("order", "skip", "width")]
        return _placed(props, at,
                       at + len(cells[chain]))

    @staticmethod
    def _elided_subject(previous: reading.Sentence, sentence: reading.Sentence,
                        unit: Unit) -> str | None:
        """The subject a clause after a semicolon leaves out: the first ladder name
        of the clause before, when this one opens with its verb ("… `preempt`;
        waits up to 30 min")."""
        if unit.text[previous.end:previous.end + 1] != ";":  # (a sentence ends before it)
            return None
        if not _VERB_FIRST.match(sentence.text):
            return None
        named = [t for t in previous.tokens if t.kind in ("backend", "lane", "family", "intent")]
        return unit.text[named[0].start:named[0].end] if named else None

    def _pronoun_subject(self, previous: reading.Sentence, sentence: reading.Sentence,
                         unit: Unit, lexicon: Lexicon, term: str | None = None) -> list[Prop]:
        """'RunPod used to be the last resort. Now it sits between GCP and the
        campus lanes.': a sentence whose subject is 'it' or 'they' is about the
        first ladder name of the sentence before, history or not (in a glossary
        entry, about its term)."""
        m = _PRONOUN_SUBJECT.match(sentence.text)
        if not m:
            return []  # most sentences: nothing to resolve, nothing else to compute
        named = [t for t in previous.tokens if t.kind in _SUBJECT_KINDS and t.kind != "width"]
        condition = _LEADING_CONDITION.match(previous.text)
        if condition:
            # "A: Only after GCP and the SLURM lanes are exhausted. It is the final
            # backend": a condition names what comes before the subject, not it
            named = [t for t in named if t.start >= previous.start + condition.end()]
        # "that only happens when GCP and both lanes came up empty. it's last": nor is
        # a name inside a condition that the sentence ends in (a leading "If you see a
        # RunPod pod, …" does hold the topic: the conjunction must follow words)
        named = [t for t in named if not _OPEN_CONDITION.search(
            unit.text[previous.start:t.start])]
        phrase = _HISTORY_SUBJECT.match(previous.text)
        job_class = _CLASS_SUBJECT.match(previous.text)
        if term:
            subject = term
        elif job_class and (not named or named[0].start >= previous.start + job_class.end()):
            # "A long job leads with FLEX_START. If DWS has nothing, it then tries spot
            # …": the job, so its class stays with it
            subject = job_class["np"]
        elif phrase and (_LADDER_NOUN.search(phrase["np"]) or any(
                t.start < previous.start + phrase.end("np") for t in named)):
            # "The flex-start cap used to be 7 days; it was cut to 24 hours": the
            # whole subject, so the cap stays a cap
            subject = phrase["np"]
        elif named and (request := _WIDTH_REQUEST.match(previous.text)) and \
                named[0].start < previous.start + request.end("np"):
            # "A 4x lora-7b request degrades 4x → 2x → 1x. It is not retried at 8x":
            # the request, width and all, not its intent alone
            subject = f"the {request['np']}"
        elif named:
            subject = unit.text[named[0].start:named[0].end]
        elif request := _WIDTH_REQUEST.search(previous.text):
            # "A width-4 request tries 4× first. On a miss it drops straight to 1×."
            subject = f"the {request['np']}"
        else:
            return []
        if m["pronoun"].lower() == "its":  # "Its rungs ask for …" reads "RunPod's rungs …"
            subject += "'s"
        rest = _LATER_PRONOUN.sub(subject, sentence.text[m.end("be" if m["be"] else "pronoun"):])
        if m["be"]:  # "it's dead last" reads "RunPod is dead last"
            rest = (" is" if m["be"][1:] == "s" else " are") + rest
        text = sentence.text[:m.start("pronoun")] + subject + rest
        return _placed(self._read_text(text, lexicon, unit.heading),
                       sentence.start + m.start("pronoun"), sentence.end)

    def _ordinals(self, readings: list[Reading]) -> None:
        """'First, GCP. Then the SLURM lanes. Last, RunPod.' and 'Lane one is X.
        Lane two is Y.' chain across sentences; 'The first model is FLEX_START.
        The second is SPOT.' chains the models of a length class."""
        chain: list[tuple[Reading, reading.TermTok]] = []
        models: list[tuple[Reading, reading.TermTok]] = []

        def flush() -> None:
            if len(chain) >= 2:
                self._chain_props(chain, adjacent=True)
            if len(models) >= 2:
                self._model_chain(models)
            chain.clear()
            models.clear()

        for r in readings:
            rank = _ordinal_of(r.sentence.text)
            all_terms = reading.terms(r.sentence)
            terms = [t for t in all_terms if reading.orderable(t.term)]
            named = [t for t in all_terms if t.term[0] == "model"]
            if rank is None or not (terms or named) or r.sentence.history or \
                    r.sentence.question or r.sentence.procedural or any(
                        t.kind in ("duration", "gpuhours") and
                        (not terms or t.end <= terms[0].start) for t in r.sentence.tokens):
                # ("First, 24 h at 8x is 192 GPU-hours. Next, at 1x …" are the steps of
                # a worked example, not rungs in order)
                flush()
                continue
            if rank == 0 and (chain or models):
                flush()
            if terms:
                chain.append((r, terms[0]))
            else:
                models.append((r, named[-1]))
        flush()

    def _model_chain(self, models: list[tuple[Reading, reading.TermTok]]) -> None:
        first = models[0][0]
        text = " ".join(r.sentence.text for r, _ in models) + " " + first.unit.heading
        kinds = {k for k in ("short", "long") if re.search(rf"\b{k}\b", text, re.I)}
        if len(kinds) != 1:
            return
        names = tuple(dict.fromkeys(t.term[1] for _, t in models))
        last, term = models[-1]
        last.props.append(Prop("class-order", (kinds.pop(), names), False, term.start,
                               term.end, "length-aware lead"))

    def _chain_props(self, chain: list[tuple[Reading, reading.TermTok]],
                     adjacent: bool = False, kind: str | None = None,
                     tails: list[reading.TermTok] | None = None) -> None:
        """Order between consecutive items; `adjacent` items (rows of a rung
        table, steps of a numbered list) also claim nothing lies between them.
        Two rungs that each name a family and a model are ordered within one
        width, for the length class `kind` (or for both, when none is named)."""
        for i, ((ra, a), (rb, b)) in enumerate(itertools.pairwise(chain)):
            # an item that chains its own terms ends on its last: what is next to the
            # item after it
            last = tails[i] if tails else a
            if a.term[0] == b.term[0] == "rung" and a.term[1][0] and a.term[1][2] and \
                    b.term[1][0] and b.term[1][2] and a.term[1][2] != b.term[1][2]:
                # "1. A100 SPOT  2. A100 FLEX_START  3. H100 SPOT": the rungs of one width
                rb.props.append(Prop("rung-order", (kind, a.term, b.term), False, b.start,
                                     b.end, "family order"))
                continue
            if a.term[0] in ("family", "rung") and b.term[0] in ("family", "rung"):
                models_a, models_b = _models_of(ra), _models_of(rb)
                if models_a and models_b and models_a != models_b:
                    # rows 'a3-highgpu-8g | SPOT' then 'a2-ultragpu-8g | FLEX_START': the
                    # model changed, so the rows order models, not families
                    continue
            if a.term != b.term and not any(p.kind == "order" and p.args == (a.term, b.term)
                                            for p in rb.props):
                rb.props.append(Prop("order", (a.term, b.term), False, b.start, b.end, "order"))
                if adjacent and (a.term[0] != "width" or b.term[0] == "width") and \
                        last.term != b.term:
                    # a row headed by a width may hold the whole GCP chain
                    # ('| 1 | GCP (8× → 4× → 2× → 1×) |'): not 8× straight to SLURM
                    rb.props.append(Prop("skip", (last.term, b.term), False, b.start, b.end,
                                         "order"))

    # ---- structure ----------------------------------------------------------------------------

    def _family_major(self, children: list[int], by_list: dict, family_of_list: dict[int, str],
                      kind: str | None) -> None:
        """'Try order at one width:' over '- a100-80gb' / '  - SPOT' / '  - FLEX_START' /
        '- h100-80gb' / '  - SPOT': the models under each family, family by family,
        are the rungs of one width in that order."""
        heads: list[tuple[Reading, reading.TermTok]] = []
        for child in children:
            family = family_of_list[child]
            for unit, unit_readings in by_list.get(child, []):
                r = unit_readings[0] if unit_readings else None
                model = next((t for t in r.sentence.tokens if t.kind == "model"), None) \
                    if r is not None else None
                if model is None or unit.text[:model.start].strip(" -*`") or \
                        any(t.kind == "neg" for t in r.sentence.tokens):
                    continue  # "- no STANDARD" is not a rung
                heads.append((r, reading.TermTok(("rung", (family, None, model.value)),
                                                 model.start, model.end)))
        if len({t.term[1][0] for _, t in heads}) >= 2:
            self._chain_props(heads, kind=kind)

    @staticmethod
    def _model_mark(unit: Unit, r: Reading, family: str) -> None:
        """'  - FLEX_START ❌' under '- a2-ultragpu': whether the family allows it."""
        model = next((t for t in r.sentence.tokens if t.kind == "model"), None)
        if model is None or unit.text[:model.start].strip(" -*`"):
            return
        mark = unit.text[model.end:].strip(" :-–—`*")
        yes, no = bool(_YES.match(mark)), bool(_NO.match(mark))
        if yes != no:
            r.props.append(Prop("permits", (family, model.value), no, model.start, model.end,
                                "provisioning"))
            return
        if r.props or r.sentence.history or r.sentence.question:
            return
        # "- `h100-80gb`" over "  - SPOT" / "  - STANDARD, except for short jobs": an
        # item that opens with the family's models lists ones it offers ("- no
        # STANDARD" or "- STANDARD: never" ones it does not)
        denied = any(t.kind == "neg" for t in r.sentence.tokens)
        seen: set[str] = set()
        for t in r.sentence.tokens:
            if t.kind == "model" and t.value not in seen:
                seen.add(t.value)
                r.props.append(Prop("permits", (family, t.value), denied, t.start, t.end,
                                    "provisioning"))

    def _ordered_list(self, items: list[tuple[Unit, list[Reading]]], led: bool = False,
                      intent: str | None = None, kind: str | None = None,
                      lead: str = "") -> None:
        """A numbered list whose items name rungs or backends states their order;
        so does a bullet list that its lead-in says is in order. Under a lead-in
        that names one intent ("eval-70b walk:"), each width it lists is one
        that intent runs at."""
        if not items or not (items[0][0].ordered or led or _sequenced(items)):
            return
        if self._model_list(items, kind):
            return
        heads: list[tuple[Reading, reading.TermTok]] = []
        tails: list[reading.TermTok] = []  # "5. `campus-a100`, then `campus-preempt`."
        seen_items = set()
        for unit, unit_readings in items:
            if unit.item in seen_items or not unit_readings:
                continue
            seen_items.add(unit.item)
            r = unit_readings[0]
            if r.sentence.history or r.sentence.question or r.sentence.procedural:
                continue  # "1. Profile on 1 GPU first" is a step of a procedure
            if _CASE_ITEM.search(unit.text):
                continue  # "2. Width 8, `python run.py` → REVISE": a case, not a rung
            if _COMMAND_ITEM.match(unit.raw or ""):
                continue  # "2. `sbatch --gres=gpu:a100:2 job.slurm`": a step to type
            terms = [t for t in reading.terms(r.sentence) if reading.orderable(t.term)]
            if not terms or terms[0].start - r.sentence.start > 40:
                continue
            heads.append((r, terms[0]))
            tails.append(terms[-1] if _CHAINED.search(
                r.sentence.text[terms[0].end - r.sentence.start:]) else terms[0])
        if self._family_blocks(heads, lead, kind):
            return
        # A list of rungs, not a list of tips that happen to name two entities.
        if len(heads) < 2 or len(heads) < 0.6 * len(seen_items) or \
                not any(r.sentence.context for r, _ in heads):
            return
        self._chain_props(heads, adjacent=True, kind=kind, tails=tails)
        if intent is not None:
            for r, t in heads:
                if t.term[0] == "width" and not any(p.kind == "reach" for p in r.props):
                    r.props.append(Prop("reach", (intent, t.term[1]), False, t.start, t.end,
                                        "minimum width"))

    def _family_blocks(self, heads: list[tuple[Reading, reading.TermTok]], lead: str,
                       kind: str | None) -> bool:
        """'At each width:' over '- all A100 rungs (SPOT, FLEX_START, STANDARD) first'
        / '- then H100 rungs': one family's rungs at a width all before the other's."""
        from lint.reading.order import FAMILY_BLOCK, WITHIN_WIDTH
        from lint.reading.sentence import family_of

        if len(heads) != 2 or not all(t.term[0] in ("family", "rung") for _, t in heads):
            return False
        (r1, a), (r2, b) = heads
        fa, fb = family_of(a.term), family_of(b.term)
        sentences = (r1.sentence, r2.sentence)
        # (an item names a block by "all A100 rungs" or by listing the family's models)
        if fa == fb or not (WITHIN_WIDTH.search(lead) or
                            any(WITHIN_WIDTH.search(x.text) for x in sentences)) or \
                not any(FAMILY_BLOCK.search(x.text) or
                        sum(t.kind == "model" for t in x.tokens) >= 2 for x in sentences):
            return False
        r1.props[:] = [p for p in r1.props if p.kind not in ("order", "skip", "first")]
        r1.props.append(Prop("family-block", (kind, fa, fb), False, a.start, a.end,
                             "family order"))
        return True

    def _model_list(self, items: list[tuple[Unit, list[Reading]]],
                    lead_class: str | None = None) -> bool:
        """'### Provisioning order for a long job' over '1. FLEX_START 2. SPOT
        3. STANDARD': a numbered list of models is that class's order; so is one
        under a lead-in that names the class ("Short job, per width:")."""
        kind = heading_class(items[0][0].heading)
        if kind is None and lead_class is not None and not any(
                t.term[0] in ("family", "rung") for _, rs in items for r in rs[:1]
                for t in reading.terms(r.sentence)):
            kind = lead_class  # models alone: not "a3-highgpu-4g, SPOT" rungs
        if kind is None or len(items) < 2:
            return False
        models: list[tuple[Reading, reading.TermTok]] = []
        for _unit, unit_readings in items:
            r = unit_readings[0] if unit_readings else None
            named = [t for t in reading.terms(r.sentence) if t.term[0] == "model"] if r else []
            if not named or r.sentence.history or r.sentence.procedural:
                return False
            models.append((r, named[0]))
        names = tuple(dict.fromkeys(t.term[1] for _, t in models))
        last, term = models[-1]
        last.props.append(Prop("class-order", (kind, names), False, term.start, term.end,
                               "length-aware lead"))
        return True

    def _table(self, rows: list[tuple[Unit, list[Reading]]], lexicon: Lexicon) -> None:
        header = next((u for u, _ in rows if u.header), None)
        body = [(u, rs) for u, rs in rows if not u.header and u.cells]
        if header is None or not body:
            return
        self._read_columns(header, body, lexicon)
        self._worked_table(header, body, lexicon)
        self._ordinal_columns(header, body, lexicon)
        if not any(r.sentence.context for _, rs in rows for r in rs) and \
                not self.lexicon.ladder_context.search(header.heading):
            return
        rank = self._rank_column(header, body)
        if rank is None:
            return
        key = self._key_column(header, body, rank)
        ranked = []
        for unit, unit_readings in body:
            number = re.match(r"\s*(\d+)", unit.cells[rank]) if rank < len(unit.cells) else None
            if number is None or key >= len(unit.cells):
                continue
            lo = _cell_start(unit, key)
            hi = lo + len(unit.cells[key])
            head = next(((r, term) for r in unit_readings for term in reading.terms(r.sentence)
                         if reading.orderable(term.term) and lo <= term.start < hi), None)
            if head is not None:
                ranked.append((int(number.group(1)), head))
        ranked.sort(key=lambda item: item[0])
        if len(ranked) >= 2:
            self._chain_props([head for _, head in ranked], adjacent=True)

    @staticmethod
    def _rank_column(header: Unit, body: list[tuple[Unit, list[Reading]]]) -> int | None:
        """The column that ranks the rows: headed 'order', 'step', '#', … or
        holding the numbers 1..n, in any position and any row order."""
        for index, cell in enumerate(header.cells):
            if _ORDER_HEADER.match(cell):
                return index
        for index in range(len(header.cells)):
            cells = [u.cells[index].strip().rstrip(".)") for u, _ in body if index < len(u.cells)]
            if len(cells) == len(body) and \
                    sorted(cells) == [str(i) for i in range(1, len(cells) + 1)]:
                return index
        return None

    def _key_column(self, header: Unit, body: list[tuple[Unit, list[Reading]]],
                    rank: int) -> int:
        """The column that names what is ranked: headed 'backend', 'rung', … or
        else the first other column."""
        def names_all(index: int) -> bool:
            return all(index < len(u.cells) and any(
                reading.orderable((t.kind, t.value)) for t in self.lexicon.tag(u.cells[index]))
                for u, _ in body)

        columns = [i for i in range(len(header.cells)) if i != rank]
        full = [i for i in columns if names_all(i)] or columns
        return next((i for i in full if _KEY_HEADER.search(header.cells[i])), full[0])

    def _ordinal_columns(self, header: Unit, body: list[tuple[Unit, list[Reading]]],
                         lexicon: Lexicon) -> None:
        """'| Last | Middle | First | Length class |': columns headed by position
        order the models of each row, whatever order the columns are in."""
        ranks = {i: _ordinal_rank(cell) for i, cell in enumerate(header.cells)}
        ranks = {i: r for i, r in ranks.items() if r is not None}
        if len(ranks) < 2 or sorted(ranks) == sorted(ranks, key=ranks.__getitem__):
            return  # the columns already read left to right in their order
        for unit, unit_readings in body:
            if not unit_readings:
                continue
            cls = next((t.kind for r in unit_readings for t in r.sentence.tokens
                        if t.kind in ("short", "long")), None)
            models = []
            for index in sorted(ranks, key=ranks.__getitem__):
                if index < len(unit.cells):
                    models += [tk.value for tk in lexicon.tag(unit.cells[index])
                               if tk.kind == "model"][:1]
            if cls is None or len(models) < 2:
                continue
            for r in unit_readings:  # the row read left to right is not what it says
                r.props[:] = [p for p in r.props if p.kind not in ("class-order", "class-last",
                                                                   "lead")]
            first = min(ranks, key=ranks.__getitem__)
            lo = _cell_start(unit, first)
            unit_readings[0].props.append(Prop("class-order", (cls, tuple(models)), False, lo,
                                               lo + len(unit.cells[first]),
                                               "length-aware lead"))

    def _read_columns(self, header: Unit, body, lexicon: Lexicon) -> None:
        """Yes/no columns: a model per column (which family allows it), 'in the
        auto ladder' (per width), 'parallel?' (per launcher); and a 'minimum
        width' column (per intent)."""
        roles: dict[int, tuple[str, object]] = {}
        for index, cell in enumerate(header.cells):
            tokens = lexicon.tag(cell)
            models = [t for t in tokens if t.kind == "model"]
            if len({t.value for t in models}) == 1:  # "DWS flex-start" names one model twice
                roles[index] = ("model", models[0].value)
            elif re.search(r"\bauto", cell, re.I):
                roles[index] = ("auto", None)
            elif re.search(r"\bparallel", cell, re.I):
                roles[index] = ("parallel", None)
            elif re.search(r"\bmin(?:imum)?\b.*\bwidth|\bfloor\b", cell, re.I):
                roles[index] = ("min-width", None)
            elif re.search(r"\bprovisioning|\bmodels?\b|\ballowed\b|\bcapacity\s+types?", cell,
                           re.I):
                roles[index] = ("models", None)
            elif re.search(r"\bmax|\blimit|run\s+duration|\bcap\b", cell, re.I):
                roles[index] = ("max-run", None)
        # The row key (family, width, intent, launcher) is the first column with no
        # role, wherever it sits: '| FLEX_START | Family | SPOT |', '| Auto? | Width |'.
        key = min(set(range(len(header.cells))) - set(roles), default=0)
        roles.pop(key, None)
        if not (any(r.sentence.context for _, rs in body for r in rs) or
                self.lexicon.ladder_context.search(header.heading) or any(
                    t.kind == "family" and t.value[1] is not None
                    for u, _ in body if key < len(u.cells) for t in lexicon.tag(u.cells[key]))):
            # "| H100 | ✅ Found |" in a billing audit is not a permission table
            roles = {i: r for i, r in roles.items() if r[0] not in ("model", "models")}
        if not roles:
            return
        for unit, unit_readings in body:
            if not unit_readings or not unit.cells:
                continue
            r = unit_readings[0]
            first = unit.cells[key] if key < len(unit.cells) else unit.cells[0]
            row_tokens = lexicon.tag(first)
            for index, (role, value) in roles.items():
                if index >= len(unit.cells):
                    continue
                cell, start = unit.cells[index], _cell_start(unit, index)
                yes, no = bool(_YES.match(cell)), bool(_NO.match(cell))
                span = (start, start + max(1, len(cell.strip())))
                if role == "model" and (yes or no):
                    fam = next((t for t in row_tokens if t.kind == "family"), None)
                    hours = None if fam or value != self.facts.flex_model else \
                        _row_length(header, unit, lexicon)
                    if fam:
                        r.props.append(Prop("permits", (fam.value[0], value), no, *span,
                                            "provisioning"))
                    elif hours:
                        # '| 1× | 16 h | long | yes |' under 'FLEX_START offered?'
                        r.props.append(Prop("flex-for", (hours,), no, *span,
                                            "FLEX_START maximum run"))
                elif role == "auto" and (yes or no):
                    width = next((t for t in row_tokens if t.kind in ("width", "family")), None)
                    w = width.value if width and width.kind == "width" else \
                        (width.value[1] if width else None)
                    if w:
                        r.props.append(Prop("in-auto", (w,), no, *span, "the auto ladder"))
                elif role == "parallel" and (yes or no):
                    launcher = next((t for t in lexicon.tag(first) if t.kind == "launcher"),
                                    None)
                    if launcher:
                        from lint.critic_reading import written

                        r.props.append(Prop("parallel", (launcher.value, written(first, launcher)),
                                            no, *span, "parallel work"))
                    else:
                        kind = _launch_kind(first, self.facts.widest)
                        if kind:  # "| `python run.py` | ✅ |": the critic's reading of it
                            r.props.append(Prop("parallel", (kind, f"`{first.strip()}`"), no,
                                                *span, "parallel work"))
                elif role == "models":
                    fam = next((t for t in row_tokens if t.kind == "family"), None)
                    named = [t for t in lexicon.tag(cell) if t.kind == "model"]
                    denied = _DENIED_IN_CELL.search(cell)
                    if denied and named and named[0].start < denied.start():
                        # "spot / flex (no od, ever)": the set is what comes before
                        named = [t for t in named if t.start < denied.start()]
                        cell = cell[:denied.start()]
                    models = list(dict.fromkeys(t.value for t in named))
                    if fam and models:
                        negated = bool(re.search(r"\bnot\b|\bnever\b|n't", cell, re.I))
                        r.props.append(Prop("only", (fam.value[0], tuple(models)), negated,
                                            *span, "provisioning"))
                elif role == "max-run":
                    model = next((t for t in row_tokens if t.kind == "model"), None)
                    hours = next((t for t in lexicon.tag(cell) if t.kind == "duration"), None)
                    if model and hours and model.value == self.facts.flex_model:
                        r.props.append(Prop("flex-max", (hours.value,), False, *span,
                                            "FLEX_START maximum run"))
                elif role == "min-width":
                    intent = next((t for t in row_tokens if t.kind == "intent"), None)
                    number = re.search(r"\d+", cell)
                    if intent and number:
                        r.props.append(Prop("min-width", (intent.value, int(number.group(0))),
                                            False, *span, "minimum width",
                                            ((span[0], span[1], ""),)))

    def _worked_table(self, header: Unit, body, lexicon: Lexicon) -> None:
        """'| Width | Length | Short/long | Lead |' with a row per width: a worked
        example whose widest row is the request; each other row's length must
        be H·N/w, and each row's class and lead what the ladder gives there."""
        cols = {"width": None, "length": None, "class": None, "lead": None, "offers": None}
        offered = None  # the model an "| FLEX_START offered? |" column answers for
        for index, cell in enumerate(header.cells):
            name = cell.strip().lower()
            if cols["width"] is None and re.search(r"\bwidth\b|\bgpus?\b|\bat\b", name):
                cols["width"] = index
            elif cols["length"] is None and re.search(r"\blength|\bhours?\b|\bruns?\b|\bwall|"
                                                       r"\bduration|\btime\b", name):
                cols["length"] = index
            elif cols["class"] is None and re.search(r"\bshort\b|\blong\b|\bclass\b", name):
                cols["class"] = index
            elif cols["lead"] is None and re.search(r"\blead|\bfirst\b|\bstarts?\b", name):
                cols["lead"] = index
            elif cols["offers"] is None and len(
                    models := {t.value for t in lexicon.tag(cell) if t.kind == "model"}) == 1:
                cols["offers"], offered = index, models.pop()
        if cols["width"] is None or cols["length"] is None:
            return
        if cols["class"] is None and cols["lead"] is None and cols["offers"] is None and not (
                self.lexicon.ladder_context.search(header.heading) or
                self.lexicon.ladder_context.search(header.text)):
            return  # "| GPUs | time |" in a benchmark is measured, not derived
        rows = []
        for unit, readings in body:
            if not readings or max(cols["width"], cols["length"]) >= len(unit.cells):
                continue
            width = next((t.value for t in lexicon.tag(unit.cells[cols["width"]])
                          if t.kind == "width"), None) or _bare_width_cell(
                unit.cells[cols["width"]], self.facts)
            length = next((t for t in lexicon.tag(unit.cells[cols["length"]])
                           if t.kind == "duration"), None) or _hours_cell(
                unit.cells[cols["length"]], header.cells[cols["length"]])
            others = [c for i, c in enumerate(unit.cells)
                      if i not in (cols["width"], cols["length"])]
            if any(t.kind in ("width", "duration") for c in others for t in lexicon.tag(c)):
                return  # '| Lands at | Requested | …': each row has its own request
            if width and length:
                rows.append((unit, readings[0], width, length))
        if len(rows) < 2 or len({w for _, _, w, _ in rows}) != len(rows):
            return
        _, _, n, anchor = max(rows, key=lambda row: row[2])
        hours = anchor.value
        for unit, r, w, length in rows:
            start = _cell_start(unit, cols["length"])
            at = start + length.start
            if w != n:
                r.props.append(Prop("consequence", (hours, n, w, "length", length.value), False,
                                    at, start + length.end, "derived length",
                                    ((at, start + length.end, "h"),)))
            for role in ("class", "lead", "offers"):
                index = cols[role]
                if index is None or index >= len(unit.cells):
                    continue
                cell, cell_at = unit.cells[index], _cell_start(unit, index)
                if role == "offers":
                    answer = _YES_NO.fullmatch(cell.strip(" *_`"))
                    if answer:
                        r.props.append(Prop("consequence", (hours, n, w, "offers", offered),
                                            answer.group("no") is not None, cell_at,
                                            cell_at + max(1, len(cell.strip())),
                                            "derived length"))
                    continue
                if role == "class":
                    word = re.search(r"\b(short|long)\b", cell, re.I)
                    value = word.group(1).lower() if word else None
                else:
                    value = next((t.value for t in lexicon.tag(cell) if t.kind == "model"), None)
                if value:
                    r.props.append(Prop("consequence", (hours, n, w, role, value), False,
                                        cell_at, cell_at + max(1, len(cell.strip())),
                                        "derived length"))

    def _answers(self, previous: list[Reading], current: list[Reading], lexicon: Lexicon
                 ) -> None:
        """A question's answer carries the claim: 'Which backend goes first?
        RunPod.' reads as 'RunPod goes first'; 'Does RunPod come before SLURM?
        No.' as its negation. The question alone claims nothing."""
        pairs = list(zip(previous[-1:], current[:1], strict=False))
        pairs += [(current[i - 1], current[i]) for i in range(1, len(current))]
        for q, a in pairs:
            if not q.sentence.question or a.sentence.question or a.sentence.history:
                continue
            if q.unit.table_id and any(t.kind == "model" for t in q.sentence.tokens):
                continue  # '| FLEX_START offered? |' heads a column read by _read_columns
            if any(p.kind == "class-order" for p in a.props) and _BRANCH.match(a.unit.text):
                continue  # a decision tree's branch, read by _branch_order
            body = q.unit.text[q.sentence.start:q.sentence.end]
            # "Onboarding FAQ\nQ: What's …": a title line run into the question
            body = re.sub(r"^[^\n]*\n(?=\W*q(?:uestion)?\s*[:.])", "", body, flags=re.I)
            body = re.sub(r"^\W*(?:q(?:uestion)?\s*[:.]\s*)?", "", body, flags=re.I)
            body = body.rstrip(" ?*_")
            answer = a.unit.text[a.sentence.start:a.sentence.end]
            answer = re.sub(r"^\W*(?:a|answer)\s*[:.)]\W*", "", answer, flags=re.I)
            m = re.match(r"\W*(yes|no|correct|right|wrong|nope)\b", answer, re.I)
            word = m.group(1).lower() if m else ""
            rest = answer[m.end():] if m else answer
            if word in ("no", "nope", "wrong") and re.match(r"\s*(?:→|->|=>)", rest):
                rest = ""  # "no → staying narrow is fine": the other branch's outcome
            # ("| lora-7b min width? | 2 |": a Q | A table's answer cell)
            rest = rest.strip(" ,.;:—-*|")
            props: list[Prop] = []
            only = word in ("no", "nope") and re.match(
                r"(?:only|just)\s+(?:for|with|on|when|if|at|in)\b", rest, re.I)
            if only:
                # "Isn't spot always tried first? No, only for short jobs.": the "no"
                # denies the "always"; the rest says where it holds
                cond = COND.match(body)
                asked = body[cond.end():] if cond else body
                stated = _ALWAYS.sub("", _ASKING_AUX.sub("", asked, count=1))
                props = [p for p in self._read_text(f"{stated} {rest}", lexicon,
                                                    a.unit.heading)]
                rest = ""
            elif word:
                flip = word in ("no", "nope", "wrong")
                # "If a 30 h job at 8× degrades to 1×, does it get FLEX_START? No.": the
                # answer is about the main question, not its condition
                cond = COND.match(body)
                asked = body[cond.end():] if cond else body
                props = [Prop(p.kind, p.args, p.negated != flip, 0, 0, p.topic)
                         for p in _asked(self._read_text(asked, lexicon, a.unit.heading), asked)]
            pronoun = re.match(r"(?:it|they|that|this)(?:'s|'re|\s+is|\s+are)\b", rest, re.I)
            if word and rest and pronoun:
                # "Is 8x opt-in? No, it's the top of the ladder": the answer is a
                # clause of its own about the question's subject
                named = [t for t in reading.tag_sentence(lexicon, body, 0, len(body)).tokens
                         if t.kind in _SUBJECT_KINDS]
                if named:
                    subject = body[named[0].start:named[0].end]
                    props += self._read_text(f"{subject} is{rest[pronoun.end():]}", lexicon,
                                             a.unit.heading)
                rest = ""
            if rest and not re.match(r"\W*(?:why\b|how\s+(?:do|can|should|would|could)\s+"
                                     r"(?:i|we|you)\b)", body, re.I):
                # the answer completes the question ("Which backend is first? GCP."),
                # but the answer to a "why" gives a reason and stands alone, and so
                # does one to "how do I …?", a procedure
                alone = {(p.kind, p.args) for p in self._read_text(body, lexicon, a.unit.heading)}
                joined = f"{body} {rest}"
                when = re.match(r"\W*(?:when|where|at\s+what\s+point)\s+(?:does|do|is|are|will|"
                                r"should|can|would)\s+", body, re.I)
                if when:
                    # "When does the paid cloud get used? Whenever GCP has missed."
                    joined = f"{body[when.end():]} {rest}"
                how_long = re.match(r"\W*how\s+long\s+(?:at\s+most\s+)?(?=(?:can|may|could|"
                                    r"is\s+\S+\s+allowed)\b)", body, re.I)
                if how_long:
                    # "How long can a FLEX_START VM live? 48 hours." asks for a maximum
                    joined = f"{body[how_long.end():]} at most {rest}"
                completed = _completed(body, rest)
                if completed:  # the statement itself: what it reads is claimed
                    alone, joined = set(), completed
                # "My fine-tune is 30 h at 8x. Which rung does it try first?": the job
                # the question's text stated goes on into its answer
                job = self._stated_job(q.unit.text[:q.sentence.end])
                props += [p for p in self._read_text(joined, lexicon, a.unit.heading, job)
                          if (p.kind, p.args) not in alone]
            # the answer's first character, not the line break before it
            said = a.unit.text[a.sentence.start:a.sentence.end]
            start = a.sentence.start + len(said) - len(said.lstrip(" \t\n*_"))
            a.props += _placed(props, start, a.sentence.end)

    def _stated_job(self, text: str) -> tuple[float, int] | None:
        """The last job (hours, width) a question's text states ("30 h at 8x",
        "8 GPUs × 25 h"), at a width the ladder has."""
        from lint.reading.lengths import job_stated

        job = job_stated(text)
        return job if job and job[1] in self.facts.widths else None

    def _launch_pronoun(self, before: list[Reading], sentence: reading.Sentence, unit: Unit,
                        lexicon: Lexicon) -> list[Prop]:
        """'… so the critic treats it as parallel work': 'it' is the one launch the
        nearest sentence before that names one named."""
        m = _TREATS_IT.search(sentence.text)
        if not m:
            return []
        for r in reversed(before):
            named = {unit.text[t.start:t.end] for t in r.sentence.tokens if t.kind == "launcher"}
            if len(named) > 1:
                return []
            if named:
                [launch] = named
                text = sentence.text[:m.start("pronoun")] + launch + \
                    sentence.text[m.end("pronoun"):]
                return _placed(self._read_text(text, lexicon, unit.heading),
                               sentence.start + m.start("pronoun"), sentence.end)
        return []

    def _object_pronoun(self, sentence: reading.Sentence, unit: Unit,
                        lexicon: Lexicon) -> list[Prop]:
        """'X rarely has a queue, so the router asks it first': 'it' right before
        an ordinal is the one ladder name the sentence gave before it."""
        m = _OBJECT_PRONOUN.search(sentence.text)
        if not m:
            return []  # most sentences: nothing to resolve
        at = sentence.start + m.start("pronoun")
        named = {t.term: t for t in reading.terms(sentence)
                 if reading.orderable(t.term) and t.end <= at}
        if len(named) != 1:
            return []
        [term] = named.values()
        text = sentence.text[:m.start("pronoun")] + unit.text[term.start:term.end] + \
            sentence.text[m.end("pronoun"):]
        return _placed(self._read_text(text, lexicon, unit.heading), at, sentence.end)

    def _read_text(self, text: str, lexicon: Lexicon, heading: str,
                   carried: tuple[float, int] | None = None) -> list[Prop]:
        sentence = reading.tag_sentence(lexicon, text, 0, len(text))
        sentence.question = sentence.history = False
        sentence.context = True
        reader = reading.Reader(sentence, text, lexicon, heading, self.facts)
        reader.carried = carried
        props = reader.read()
        if lexicon.critic_rules:
            from lint import critic_reading

            props += critic_reading.read(reader, Unit("paragraph", 1, text, heading))
        return props


# "the critic treats it as parallel work", "counts that as one process"
_TREATS_IT = re.compile(r"\b(?:treats?|treated|counts?|counted|reads?|sees?|regards?|considers?)\s+"
                        r"(?P<pronoun>it|that|this|them)\s+as\b", re.I)
# a yes/no question's auxiliary ("Isn't spot …", "Does dispatch …") and the
# universal a "No, only for …" answer denies
_ASKING_AUX = re.compile(r"^\W*(?:is|are|does|do|isn['’]t|aren['’]t|doesn['’]t|don['’]t|"
                         r"is\s+not|does\s+not)\s+", re.I)
_ALWAYS = re.compile(r"\b(?:always|every\s+time|in\s+every\s+case|for\s+every\s+job|"
                     r"regardless\s+of\s+(?:the\s+)?length)\b\s*", re.I)
# "**Q: Which backend does dispatch try first?**": a question with no ladder
# name is still answered below it, when it asks about an order
_ANSWERED_QUESTION = re.compile(
    r"\b(?:first|last|before|after|when|which|where|what|how)\b[^\n]*\?[*_\s]*$", re.I)
_ANSWERED_GATE = Prefiltered(_ANSWERED_QUESTION)

# A wh-question whose subject the answer names: "Which family goes first at 4×
# SPOT? The H100 one." reads "The H100 one goes first at 4× SPOT".
# The words before the verb are the subject's, so an auxiliary among them, or
# one followed by a subject of its own ("What widths can I ask for?"), is an
# object question and has no such slot.
_AUX = r"(?:is|are|was|were|does|do|did|will|would|should|can|could|must|may|might|has|have)"
_WH_SUBJECT = re.compile(
    rf"\W*(?:which|what)\s+(?:(?:one|kind|type)\s+of\s+)?(?:(?!{_AUX}\b)\w+[\s-]){{0,3}}?"
    r"(?=(?:goes|go|comes?|runs?|gets?|leads?|wins?|starts?|happens)\b|"
    rf"{_AUX}\s+(?!(?:i|you|we|it|they|he|she|the|a|an|my|our|your|this|that|these|those)\b))",
    re.I)
# "What does a long run lead with? Spot, then …" reads "a long run lead with Spot, then …"
_WH_OBJECT = re.compile(
    rf"\W*(?:what|which)(?P<noun>(?:\s+(?!{_AUX}\b)\w+){{0,3}}?)\s+{_AUX}\s+(?P<clause>.+)$",
    re.I)
# "Where is the line between short and long? Half a day." reads "the line … is half a day"
_WH_COPULA = re.compile(r"\W*(?:where|what|which)\s+(?:is|are)\s+(?P<np>.+)$", re.I)
# "How narrow can eval-70b go? One GPU." reads "eval-70b can go down to one GPU"
_HOW_NARROW = re.compile(
    r"\W*how\s+(?:narrow|low|far(?:\s+down)?|small)\s+(?P<aux>can|does|do|will|may|could)"
    r"\s+(?P<subj>.+?)\s+(?P<verb>go|degrade|drop|fall|get|shrink|narrow)\b(?P<tail>.*)$", re.I)
_HOW_LONG = re.compile(r"\W*how\s+long\s+(?:does|do|will|should|can|may|would)\s+(?P<subj>.+?)\s+"
                       r"(?P<verb>wait|run|live|last|stay|queue|sit|keep)\b(?P<tail>.*)$", re.I)
_HOW_MANY = re.compile(r"\W*how\s+many\s+(?P<noun>gpus?|workers?|processes|ranks|shards?)\s+"
                       r"(?:does|do|will|would|can)\s+(?P<subj>.+?)\s+"
                       r"(?P<verb>keep|use|fill|occupy|start|run|launch)\b(?P<tail>.*)$", re.I)
# "What's the longest a flex-start VM can run? Fourteen days."
_LONGEST = re.compile(r"\W*what(?:['’]s|\s+is)\s+the\s+(?:longest|maximum|max|most)\s+"
                      r"(?:(?:time|run|job|duration|runtime|length)\s+)?(?P<subj>.+?)\s+"
                      r"(?:can|will|may|would|could|is\s+allowed\s+to)\s+"
                      r"(?P<verb>run|take|hold|last|keep|accept|go)\b(?P<tail>.*)$", re.I)
# "A100 or H100 first? H100: it is faster." reads "H100 first"
_ALTERNATIVES = re.compile(r"(?P<x>[\w.-]+)\s+or\s+(?P<y>[\w.-]+)", re.I)
# where an elliptical answer's phrase ends: "The H100 one; A100s follow."
_ANSWER_PHRASE_END = re.compile(r"\s*(?:[;:,.(!]|\s[—–-]\s|\s+(?:because|since|as|so)\b)")


# "| ✅ Do | ❌ Don't |": a header cell whose column lists what not to do
_DONT_HEADER = re.compile(r"^\W*(?:❌|🚫|⛔|don['’]?t|do\s+not|never|avoid|wrong|bad|incorrect|"
                          r"anti-?patterns?|not\s+this)\b|^\W*[❌🚫⛔]", re.I)


def _negate_dont_column(unit: Unit, readings: list[Reading], header: str) -> None:
    """A claim in a "Don't" column states the opposite of what the text holds:
    "| Assume RunPod is tried before the campus cluster |" under "❌ Don't"."""
    cells = header.split(" | ")
    dont = {i for i, cell in enumerate(cells) if _DONT_HEADER.search(cell.strip())}
    if not dont or len(dont) == len(cells):
        return
    for i in dont:
        if i < len(unit.cells):
            start = _cell_start(unit, i)
            _negate_prohibited(readings, unit.text, start, start + len(unit.cells[i]))


def _negate_prohibited(readings: list[Reading], text: str, start: int, end: int) -> None:
    """Flip the claims of a prohibited statement, text[start:end] (a "Don't" cell,
    an item under "Do not:"): its first clause only, since "…; there is none" or
    "…: H100 is FLEX_START-only" after it is the writer's own reason, and not when
    it says its own negation ("Don't expect a 10 h job to lead with SPOT")."""
    body = text[start:end]
    if _OWN_NEGATION.match(body):
        return
    cut = re.search(r";|:\s|\s[—–]\s|\.\s", body)
    stop = start + (cut.start() if cut else len(body))
    for r in readings:
        inside = [p for p in r.props if start <= p.start < stop]
        # "X is H100-only" is read as "H100 allows X, A100 does not": its negation
        # says neither, so both halves go
        exclusive = {p.args[1] for p in inside if p.kind == "permits" and any(
            q.kind == "permits" and q.args[1] == p.args[1] and q.negated != p.negated
            for q in inside)}
        r.props = [replace(p, negated=not p.negated) if p in inside else p for p in r.props
                   if not (p in inside and p.kind == "permits" and p.args[1] in exclusive)]


# a prohibited statement that words its own negation
_OWN_NEGATION = re.compile(r"[\s*_`❌🚫⛔✗✘]*(?:don['’]?t|do\s+not|never|avoid|no\b|not\b|"
                           r"stop\b|nobody|none\b)", re.I)
# "Do not:", "❌ Never:", "Avoid the following:": a list of prohibited statements
# (or a title that is the word alone: "DON'T" over its list)
_PROHIBITING_LEAD = re.compile(r"^\W*(?:❌|🚫|⛔)?\s*(?:don['’]?t|do\s+not|never|avoid|"
                               r"(?:things\s+)?not\s+to\s+do|anti-?patterns?|what\s+not\s+to)"
                               r"\b(?:[^.:]{0,40}:|[\s*_!#]*)\s*$", re.I)


def _hours_cell(cell: str, header: str):
    """'| 1.5 |' under '| Hours there |': a bare number in a column of hours."""
    m = re.fullmatch(r"\s*(\d{1,4}(?:\.\d{1,2})?)\s*", cell)
    if m is None or not re.search(r"\bhours?\b|\bhrs?\b|\(h\)|\bin\s+h\b", header, re.I):
        return None
    return Token("duration", float(m.group(1)), m.start(1), m.end(1))


def _asked(props: list[Prop], question: str) -> list[Prop]:
    """What a yes/no question asks, not what it presupposes: "Can the ladder jump
    from 8× straight to 2×?" asks about the skip, not whether 8× comes before 2×;
    "Does an 8× capture-7b job get an 8-GPU pod?" presupposes the job."""
    skips = {p.args for p in props if p.kind == "skip"}
    premise = _PREMISE_JOB.search(question)
    return [p for p in props if not (p.kind == "order" and p.args in skips) and
            not (premise and p.kind in ("min-width", "reach"))]


# "an 8× capture-7b job": a request the question is about, not a claim of its range
_PREMISE_JOB = re.compile(r"\b(?:an?|the|my|your)\s+(?:\d+\s*[×x]|\d+[- ]gpu|width[- ]\d+)\s+"
                          r"`?[\w.-]+`?\s+(?:job|request|run|phase)s?\b", re.I)


def _completed(question: str, answer: str) -> str | None:
    """The statement a question and its elliptical answer make together: the
    answer's first phrase put where the question asks. None when the question
    has no such slot or the answer is no short phrase."""
    phrase = _ANSWER_PHRASE_END.split(answer, maxsplit=1)[0].strip(" *_")
    if not phrase or len(phrase.split()) > 8:
        return None
    longest = _LONGEST.match(question)
    if longest:
        return f"{longest['subj']} runs at most {phrase}{longest['tail']}"
    many = _HOW_MANY.match(question)
    if many:  # "How many GPUs does `… --tp 2 --dp 2` keep busy? Two: …"
        verb = many["verb"] + ("es" if many["verb"].endswith("sh") else "s")
        return f"{many['subj']} {verb} {phrase} {many['noun']}{many['tail']}"
    long = _HOW_LONG.match(question)
    if long:  # "How long does the router wait on campus-a100? About two hours."
        return f"{long['subj']} {long['verb']}s up to {phrase}{long['tail']}"
    how = _HOW_NARROW.match(question)
    if how:
        return f"{how['subj']} {how['aux']} {how['verb']} down to {phrase}{how['tail']}"
    copula = _WH_COPULA.match(question)
    if copula and not re.match(r"\W*(?:which|what)\s+(?:is|are)\s+(?:the\s+)?\w+\s+"
                                r"(?:that|which|who)\b", question, re.I):
        return f"{copula['np']} is {phrase}"
    subject = _WH_SUBJECT.match(question)
    if subject:
        return f"{phrase} {question[subject.end():]}"
    obj = _WH_OBJECT.match(question)
    ordinal = re.search(r"\b(?:first|last|next|second)\b", obj["clause"], re.I) if obj else None
    if obj and ordinal and len(phrase.split()) <= 3:
        # "Which family does the router try first at 4× spot? H100." reads "the router
        # try H100 first at 4× spot": the answer is the object the ordinal places
        clause = obj["clause"]
        return f"{clause[:ordinal.start()]}{phrase} {clause[ordinal.start():]}"
    if obj:  # the whole answer: an object may be a chain
        return f"{obj['noun']} {obj['clause']} {answer}".strip()  # "widths I ask for 1, 2"
    head = phrase.split()[-1].lower() if phrase.split() else ""
    for alt in _ALTERNATIVES.finditer(question):
        if head in (alt["x"].lower(), alt["y"].lower()) or \
                phrase.lower() in (alt["x"].lower(), alt["y"].lower()):
            return question[:alt.start()] + phrase + question[alt.end():]
    return None


# "Now it sits between …", "Today they come last": a sentence led by a pronoun subject
_PRONOUN_SUBJECT = re.compile(
    r"^\W*(?:(?:now|today|currently|these\s+days|instead|but|and|so|then)\b,?\s+)?"
    r"(?:(?:since|after|once|when|if|on)\s+[^,;:]{1,60}?,?\s+(?=(?:it|they)\s))?"
    r"(?P<pronoun>it|they|its(?=\s+(?:rungs?|pods?|lanes?|requests?|jobs?|gpus?)\b))"
    r"(?P<be>['’]s|['’]re)?\s+"
    r"(?!(?:(?:is|are|was|were|'s)\s+)?(?:also\s+)?(?:not\s+)?"
    r"(?:the\s+)?(?:job|jobs|case|same|reason|because|why|how|fine|ok|okay|true|worth|"
    r"important|easy|hard|possible|best|on\s+purpose)\b)", re.I)

_VERDICT_WORD = re.compile(r"\b(?:revise\w*|warn\w*|approv\w*|block\w*|reject\w*|verdict|"
                           r"advisory|fails?|passes)\b", re.I)
# A glossary entry: "**Long job** — …", "**a2-ultragpu**: …"
_RESTATES_JOB = re.compile(r"\W*(?:(?:so|and|then)\s+)?(?:at\s+\S+\s+)?(?:that['’]s|that\s+is|"
                           r"it['’]s|it\s+is|it\s+runs|that\s+job|the\s+job|this\s+job)\b",
                           re.I)
# a clause after a history note's semicolon that is told in the past, and only there
_PAST_ONLY = re.compile(r"\b(?:was|were|had|got|went|asked|used|tried|did|ran|sent|took|"
                        r"[a-z]{3,}ed)\b", re.I)
# (or a change that leads to today: "…; it was cut to 24 hours", "has since been")
_PRESENT_TENSE = re.compile(r"\b(?:is|are|isn['’]t|aren['’]t|today|now|currently|these\s+days|"
                            r"nowadays|still|since|has|have|(?:was|were)\s+(?:\w+\s+)?(?:cut|"
                            r"lowered|raised|changed|moved|bumped|increased|decreased|reduced|"
                            r"extended|shortened|set|swapped|reordered|replaced|dropped|updated|"
                            r"flipped|switched)|(?:fixed|corrected|amended|rewritten|reworded|"
                            r"changed|updated)\s+(?:it\s+)?to)\b", re.I)
# a section of turned-down options: its bold titles name what was not done
_REJECTED_SECTION = re.compile(
    r"\b(?:non-?goals?|alternatives?|rejected|out\s+of\s+scope|not\s+(?:doing|planned)|"
    r"won['’]t\s+do|discarded|dropped\s+ideas?|ideas?\s+we\s+dropped)\b", re.I)
_BOLD_TITLE = re.compile(r"\s*(\*\*|__)(?P<title>[^*_\n]{3,120}?)\1")


def _rejected_title(unit: Unit) -> str | None:
    """The bold title that opens a unit under a section of turned-down options."""
    if not _REJECTED_SECTION.search(unit.heading):
        return None
    m = _BOLD_TITLE.match(unit.raw or "")
    return m["title"].strip() if m else None


_CLASS_TITLE = re.compile(r"\s*(\*\*|__)(?:glossary\s*:\s*)?"
                          r"(?P<term>(?:short|long)\s+(?:jobs?|runs?|phases?))\.?\1", re.I)
# a glossary term that names the model tried first: "lead", "leading model"
_LEAD_TERM = re.compile(r"(?:the\s+)?(?:lead(?:ing)?(?:\s+(?:model|rung))?|first\s+(?:model|rung))",
                        re.I)


def _defines_lead(sentence) -> bool:
    """'The provisioning model tried first at a width.': a sentence that says
    what a lead is, naming no model."""
    return bool(_FIRST_DEFINED.search(sentence.text)) and not any(
        t.kind == "model" for t in sentence.tokens)


_FIRST_DEFINED = re.compile(r"\b(?:tried|attempted|used|picked|requested|asked\s+for)\s+first\b|"
                            r"\bfirst\s+(?:model|choice|rung)\b|\bleads?\s+with\b", re.I)


_GLOSSARY = re.compile(r"^\s*\*\*(?P<term>[^*\n]{1,40}?)\*\*\s*(?:—|–|-{1,2}|:)\s+")
# "…, and today it sits at five hours": the same subject again, after a joint
_LATER_PRONOUN = re.compile(r"(?<=,\s)(?:(?:and|but|so)\s+)?(?:(?:today|now)\s+)?\bit\b"
                            r"(?=\s+(?:is|sits|was|has|goes|comes|runs|leads|stays|becomes|moved|"
                            r"stands)\b)", re.I)
# The subject of a sentence: the words before its verb ("The flex-start cap used to …")
# a condition still open where a name stands: "… only happens when GCP and …"
_OPEN_CONDITION = re.compile(r"(?<=\w\s)(?:when|whenever|once|if|after|until|unless)\b[^,;:]*$",
                             re.I)
# a minimum-width table's columns, and its width cells ("2", "`2×`", "2 GPUs")
_INTENT_COLUMN = re.compile(r"\A(?:intent|intents|workload|job\s+type)\Z")
_MIN_WIDTH_COLUMN = re.compile(r"\b(?:min(?:imum)?|narrowest|smallest|lowest|floor)\b[^|]*"
                               r"\bwidth\b|\bmin[_ ]width\b|\A(?:width\s+)?floor\Z")
_CELL_NUMBER = re.compile(r"\s*[`*_]*(\d{1,2})[`*_]*\s*(?:[×x]|gpus?)?\s*\Z", re.I)
# a length-lead table's columns, and the comparison signs its length cells use
_LENGTH_COLUMN = re.compile(r"\b(?:length|duration|hours|runtime|run\s+time|wall[- ]?clock)\b")
# "| requested | widths walked on GCP |": rows of bare numbers are widths
_WIDTHS_HEADER = re.compile(r"\bwidths?\b", re.I)
# a table cell that answers yes or no ("| ✅ |", "| no |")
_YES_NO = re.compile(r"(?P<yes>✅|✔️?|✓|yes|y|offered|allowed)|(?P<no>❌|✗|✘|no|n|none|—|-)",
                     re.I)
# A paragraph that is only a title: a few words, no sentence or clause mark
_TITLE_LEAD = re.compile(r"[*_\s]*[^\s.!?;:,][^.!?;:,]{0,58}[*_\s]*$")
# a decision table: "| if … | then the router … |", "| when | what happens |"
_IF_COLUMN = re.compile(r"(?:if|when|whenever|once|condition|situation|trigger|event|case)\b")
_THEN_COLUMN = re.compile(r"(?:then|action|what\s+happens|(?:the\s+)?router\s+(?:does|will)|"
                          r"next(?:\s+step)?|result|outcome|behaviou?r)\b")
_ACTION_SUBJECT = re.compile(r"(?:the\s+)?(?:router|dispatch\w*|job|request|it|we|you)\b", re.I)
_VALUE_COLUMN = re.compile(r"^[*_`]*(?:values?|default|current(?:\s+value)?|today|set\s+to)[*_`]*$")
_REQUEST_COLUMN = re.compile(r"\b(?:request(?:ed)?|asked?\s+for|width\s+asked)\b")
_CHAIN_COLUMN = re.compile(r"\b(?:tried|tries|order|chain|walk|walks|walked|sequence|fallbacks?|"
                           r"ladder)\b")
_LEAD_COLUMN = re.compile(r"\b(?:lead|leads|first|led\s+by)\b")
_SYMBOL_WORDS = {"<": "under ", "≤": "at most ", "<=": "at most ", ">": "over ",
                 "≥": "of at least ", ">=": "of at least "}
_SYMBOL = re.compile(r"<=|>=|[<>≤≥]")
# a clause that opens with its verb: "waits up to 30 min", "takes up to 4 GPUs"
_VERB_FIRST = re.compile(r"\s*(?:then\s+)?(?:waits?|takes?|holds?|allows?|asks?|runs?|tries|"
                         r"gets?|uses?|leads?|starts?|caps?|accepts?|queues?|is|are|has|have)\b")
# "a width-4 request", "an 8× job": a request named by its width
_WIDTH_REQUEST = re.compile(r"\b(?:an?|the)\s+(?P<np>(?:width[- ]\d+|\d+\s*[×x]|\d+[- ]gpu)\s+"
                            r"(?:[\w.-]+\s+)?(?:request|job|phase|run)s?)\b", re.I)
_LEADING_CONDITION = re.compile(
    r"^\W*(?:a:\s*)?(?:only\s+|not\s+until\s+)?(?:after|once|when|if|until|unless)\b"
    r"[^,;:]*$", re.I)
# an object pronoun right before an ordinal: "… so the router asks it first"
_OBJECT_PRONOUN = re.compile(r"\b(?P<pronoun>it|them)\s+(?:first|last|next)\b", re.I)
# a sentence whose subject is a class of job: "A long job (4 h or more) leads with …"
_CLASS_SUBJECT = re.compile(r"^\W*(?P<np>(?:an?\s+|the\s+|every\s+|any\s+)?(?:short|long)\s+"
                            r"(?:jobs?|runs?|phases?|requests?))\b", re.I)
# ("It stayed second: the router tries `campus-a100` before `campus-preempt`" says
# what the router does today)
_PRESENT_VERB = re.compile(r"\b(?:tries|goes|comes|runs|leads|walks|uses|gets|falls|moves|"
                           r"starts|sends|asks|waits|degrades|drops|stays|remains)\b", re.I)
_QUESTION_LINE = re.compile(r"\W*(?:\*\*)?q\s*[:.]", re.I)
_ANSWER_LINE = re.compile(r"\W*(?:\*\*)?a\s*[:.]", re.I)
_POINTS_BACK = re.compile(r"\W*(?:that|this|those|these|it|they|the\s+same)\b", re.I)
_HISTORY_SUBJECT = re.compile(
    r"^\W*(?P<np>(?:[^\s,;:]+\s+){0,5}?[^\s,;:]+?)\s+(?:used\s+to|was|were|had|is|are|"
    r"originally|previously|once|at\s+first|started\s+out)\b", re.I)
_LADDER_NOUN = re.compile(r"\b(?:cap|limit|maximum|ceiling|threshold|cut-?off|line|ladder|"
                          r"router|famil(?:y|ies)|lanes?|rungs?|verdict|widths?)\b", re.I)

# what a question can be about, for "No, it's …" answers
_SUBJECT_KINDS = frozenset({"backend", "lane", "family", "width", "model", "intent"})

# the critic's verdicts listed or counted ("Verdicts: APPROVE, REVISE, REJECT")
_VERDICTS_NAMED = re.compile(r"\bverdicts\b|\bverdicts?\s*:", re.I)
# "The critic REVISEs `bash run.sh` at any width", "REVISEs any launch that only calls
# a script": a verdict given to a launch (in the raw text, backticks kept)
_VERDICT_ON_LAUNCH = re.compile(r"(?-i:\b(?:APPROVE|REVISE)[DdSs]?\b)[^\n]*(?:`|\blaunch)|"
                                r"(?:`|\blaunch)[^\n]*(?-i:\b(?:APPROVE|REVISE)[DdSs]?\b)", re.I)

# needlessly-narrow described by its condition rather than named
_AXIS_WORDS = re.compile(r"\bshardable\s+axis", re.I)


def _launch_kind(cell: str, width: int) -> str | None:
    """'parallel' or 'serial': how the critic reads a launch written whole in a
    cell, at `width`; None when the cell is no launch it can read."""
    from lint.critic_reading import _is_launch

    text = cell.strip().strip("`")
    if not text or not _is_launch(text):
        return None
    from critics.launch import analyze

    found = analyze(text, width)
    if found.unreadable or found.syntax_error:
        return None
    return "parallel" if found.parallel else "serial"


def _column_names(header: str) -> bool:
    """A header row of three or more short cells without numbers: column names."""
    cells = [c.strip(" *_`") for c in header.split("|")]
    cells = [c for c in cells if c]
    return len(cells) >= 3 and all(len(c.split()) <= 4 and not re.search(r"\d", c)
                                   for c in cells)


def _bare_width_cell(cell: str, facts: Facts) -> int | None:
    """'| 4 |' in a width column: a bare count is the width, when the ladder has it."""
    m = re.fullmatch(r"\s*[*_`]*(\d{1,2})\s*[×x]?[*_`]*\s*", cell)
    return int(m.group(1)) if m and int(m.group(1)) in facts.widths else None


def _moved(props: list[Prop], where) -> list[Prop]:
    """Propositions read from a rewritten text, each offset (spans and fixes) put
    back where `where` says it stands in the unit's own text."""
    return [replace(p, start=where(p.start), end=where(p.end),
                    fix_spans=tuple((where(a), where(b), r) for a, b, r in p.fix_spans))
            for p in props]


def _placed(props: list[Prop], start: int, end: int) -> list[Prop]:
    """Propositions read from a rewritten text ("The H100 one goes first", "H100
    also has on-demand rungs"), placed on the span of the text they stand for."""
    return [Prop(p.kind, p.args, p.negated, start, end, p.topic) for p in props]


def _critic_rules(facts: Facts) -> dict[str, str]:
    from lint.propositions import facts_critic

    return facts_critic(facts)


def build(config, lexicon_path=None) -> Engine:
    from lint import lexicon

    return Engine(lexicon.build(config, lexicon_path), Facts(config))


def _row_length(header: Unit, row: Unit, lexicon: Lexicon) -> float | None:
    """A row's job length: the duration in its 'length' column, else its only one."""
    found = [[t.value for t in lexicon.tag(cell) if t.kind == "duration"] for cell in row.cells]
    for cell, values in zip(header.cells, found, strict=False):
        if values and re.search(r"\blength|\bruns?\b|\bwall", cell, re.I):
            return values[0]
    every = [v for values in found for v in values]
    return every[0] if len(every) == 1 else None


def _cell_start(unit: Unit, index: int) -> int:
    """Offset of a table cell in the row's text (cells joined by ' | ')."""
    return sum(len(cell) + 3 for cell in unit.cells[:index])


def _ordinal_rank(cell: str) -> int | None:
    words = re.findall(r"[a-z0-9]+", cell.lower())
    if not words or len(words) > 3:
        return None
    for rank, names in enumerate(_ORDINALS):
        if words[0] in names or (len(words) > 1 and words[-1] in names and
                                 words[0] in ("1", "2", "3", "the")):
            return rank
    return None


_SUBJECT_NAMES = ("backend", "lane", "family", "intent", "rule")
# a sentence that opens with a subject of its own ("The 7B intents have …")
_OWN_SUBJECT = re.compile(r"\W*(?:the|a|an|all|every|each|both|our|this|these|those|its?|they|"
                          r"we|you|no|any|other)\b", re.I)


_VERDICT_KINDS = ("revise", "warn", "approve")  # the critic lexicon's verdict words
_PLAN_PHASE = re.compile(r"\s*phases\s*:")
# a settings line that lists a family's provisioning models: "provisioning = SPOT, FLEX_START"
_MODELS_SETTING = re.compile(r"\b(?:provisioning(?:[\s_-]models?)?|models?|allowed)\s*[:=]\s*"
                             r"(?P<value>[^#;]*?)\s*(?:[#;].*)?$", re.I)


_LIST_JOINTS = re.compile(r"[\s,/`'\"\[\]()|+]|\band\b|\bor\b", re.I)


def _listed_models(unit: Unit, r: Reading, lexicon: Lexicon, facts: Facts) -> None:
    """'[family.a100-80gb]' over 'provisioning = SPOT, FLEX_START': a setting
    lists all the models the family offers, so one it leaves out is one the
    family does not offer (the line is read as each listed model permitted)."""
    m = _MODELS_SETTING.search(unit.text)
    if m is None or m.start("value") < unit.lead:
        return
    value = m["value"]
    models = [t for t in lexicon.tag(value) if t.kind == "model"]
    rest = value
    for t in reversed(models):  # (tokens come in text order)
        rest = rest[:t.start] + rest[t.end:]
    if _LIST_JOINTS.sub("", rest):
        return  # the value is more than a list of models
    permits = [p for p in r.props if p.kind == "permits" and not p.negated]
    families = {p.args[0] for p in permits}
    listed = {t.value for t in models}
    # (one model is a record's rung, as in `"provisioning": "SPOT",` of an event)
    if len(families) != 1 or len(listed) < 2 or listed != {p.args[1] for p in permits}:
        return
    family = families.pop()
    start, end = m.start("value"), m.end("value")
    for model in facts.model_names:
        if model not in listed:
            r.props.append(Prop("permits", (family, model), True, start, end, "provisioning"))


def _lone_subject(lexicon: Lexicon, text: str) -> str | None:
    """The one lane, family, intent or critic rule a short heading or parent item
    is about ('### campus-preempt', '- capture-7b', '### lora-7b on RunPod'), as
    written."""
    if len(text.split()) > 5 or len(text) > 60:
        return None
    tokens = lexicon.tag(text)
    names = [t for t in tokens if t.kind in ("lane", "family", "intent", "rule")]
    if not names and all(t.kind == "model" for t in tokens if t.entity) and \
            len({t.value for t in tokens if t.entity}) == 1:
        # "DWS / flex-start facts" over "- max run duration: 72 h": a model alone
        names = [t for t in tokens if t.entity]
    elif any(t.kind in ("model", "duration", "gpuhours", "podtype") for t in tokens):
        return None  # "### eval-70b, 1 h at 8x" is a worked job, "- a2 SPOT" a rung
    if len({(t.kind, t.value[0] if t.kind == "family" else t.value) for t in names}) != 1:
        return None
    return text[names[0].start:names[0].end]


_BRANCH = re.compile(r"\W*(?:(?P<yes>yes|y|true)|(?P<no>no|n|false))\b[*_`]*\s*"
                     r"(?:→|->|=>|:|—|–|-|,)", re.I)


# an item that chains its own terms: "`campus-a100`, then `campus-preempt`"
_CHAINED = re.compile(r"\bthen\b|→|->|=>|⟶|\bfollowed\s+by\b", re.I)


def _branch_order(unit: Unit, r: Reading, lead: str, lexicon: Lexicon) -> None:
    """'Is the job short at this width?' over '- yes → SPOT, then FLEX_START, …' and
    '- no → …': each branch's chain of models is one length class's order."""
    branch = _BRANCH.match(unit.text)
    if branch is None or r.sentence.history:
        return
    classes = {t.kind for t in lexicon.tag(lead, cues_alone=True) if t.kind in ("short", "long")}
    models = [t for t in reading.terms(r.sentence) if t.term[0] == "model"]
    if len(classes) != 1 or len(models) < 2 or any(
            t.kind == "neg" and t.start >= r.sentence.start + branch.end()
            for t in r.sentence.tokens):
        return
    asked = classes.pop()
    kind = asked if branch["yes"] else ("long" if asked == "short" else "short")
    names = tuple(dict.fromkeys(t.term[1] for t in models))
    r.props = [p for p in r.props if not (p.kind == "order" and p.args[0][0] == "model")]
    r.props.append(Prop("class-order", (kind, names), False, models[0].start, models[-1].end,
                        "length-aware lead"))


def _lone_family(lexicon: Lexicon, text: str) -> str | None:
    """The family a list item names and nothing else ('a2-ultragpu (A100 80GB):')."""
    tokens = lexicon.tag(text)
    families = {t.value[0] for t in tokens if t.kind == "family"}
    if len(families) != 1 or any(t.kind in ("model", "backend", "lane") for t in tokens):
        return None
    return families.pop()


def _fence_commands(doc) -> dict[int, str]:
    """The one command of each code block that holds a single launch, keyed by
    the lines a paragraph right after it may start on (directly below the
    fence, or after one blank line). Comments and continuation backslashes
    are dropped."""
    from lint.critic_reading import _is_launch

    out: dict[int, str] = {}
    for token in doc.tokens:
        if token.type not in ("fence", "code_block") or not token.map:
            continue
        lines = [line for line in map(str.strip, token.content.split("\n"))
                 if line and not line.startswith("#")]
        command = " ".join(line.rstrip("\\").strip() for line in lines)
        # (one command: every line but its last goes on after a backslash)
        if sum(not line.endswith("\\") for line in lines) != 1 or not _is_launch(command):
            continue
        end = token.map[1]  # 0-based line after the block: 1-based, its last line
        out[end + 1] = out[end + 2] = command
    return out
