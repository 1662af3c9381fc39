"""Reading the critic's guidance: which verdict a kind of plan gets, the
widening threshold, and what counts as parallel work.

The verdict stated in the sentence wins; the section heading ("REVISE when",
"Warn") decides only for a sentence that names a rule and states no verdict.
"""

from __future__ import annotations

import itertools
import re

from lint.document import Unit
from lint.lexicon import Token
from lint.propositions import Prop
from lint.reading import Reader

_VERDICTS = {"revise": "REVISE", "warn": "WARN", "approve": "APPROVE"}
_THRESHOLD_CUE = re.compile(r"at\s+least|>=|≥|\bfrom\b|\bor\s+more\b|\bthreshold|\bminimum|"
                            r"\bunder\b|\bbelow\b|\bmore\s+than\b|\bover\b|\band\s+up\b", re.I)
_FLAG_SET = re.compile(r"\b(?:lower|rais|set|pass|chang|us|bump|drop)\w*\s+(?:it\s+|the\s+flag\s+)?"
                       r"(?:to\s+|with\s+)?[`*_]*--widen[-_]threshold[\s=]+\d", re.I)
_THRESHOLD_FLAG = re.compile(r"--widen[-_]threshold[\s=]+(\d+(?:\.\d+)?)\b", re.I)
_SPREAD = re.compile(r"\s+(?:\d|the\s+(?:\w+\s+)?(?:prompts|shards|items|files|rows|samples))")
# cues that name the threshold only before the amount ("widen phases above 5 GPU-hours";
# not "2 GPU-hours, well above the 1.0 threshold")
_THRESHOLD_BEFORE = re.compile(r"\b(?:above|exceeds?|passes|reaches|(?:less|fewer|cheaper|shorter|"
                               r"smaller)\s+than)\s+$", re.I)
_NO_THRESHOLD = re.compile(r"no\s+matter\s+how\s+(?:little|small|short)|regardless\s+of\s+"
                           r"(?:the\s+)?(?:work|size|gpu[- ]hours|length)|however\s+(?:little|"
                           r"small)|any\s+amount\s+of\s+work|"
                           # "any shardable axis at width 1 should be widened": every such
                           # phase, whatever its work
                           r"\b(?:any|every|each|all)\s+(?:width[- ]1\s+)?(?:phases?\s+(?:with|"
                           r"that\s+(?:has|have|declares?))\s+(?:an?\s+)?)?shardable\s+ax[ie]s\b"
                           r"[^.;]{0,40}?\b(?:should|must|is\s+to|are\s+to|gets?|will)\s+(?:be\s+|get\s+)?"
                           r"widened", re.I)
_TURNS = re.compile(r"\b(?:turn|change|flip|move|upgrade|escalate|downgrade|convert|promot|demot|"
                    r"rais)\w*\b[^.;]{0,60}\b(?:into|to)\s+(?:the\s+)?\W{0,2}$", re.I)
# "… at width 1 is below …", "a 0.5 GPU-hour eval on one GPU with 4 shards is below …"
_COMPARED = re.compile(r"(?:\s+(?:at|on|of|in)\s+[^,;.]{1,25}?|\s+[^,;.:]{1,50}?(?=\s+is\s))?"
                       r"\W{0,3}(?:(?:is|are|sits?|falls?)\s+)?(?:well\s+|just\s+)?"
                       r"(below|under|above|over|past)\s+(?:the\s+(?:widening\s+)?(?:[\d.]+[\s-]*"
                       r"(?:gpu[- ]hours?\s+)?)?(?:widen(?:ing)?\s+)?(?:threshold|bar|cutoff|line|"
                       r"mark)\b|"
                       # "0.5 GPU-hours at width 1 is under it": the threshold just named
                       # ("over that same axis" spreads the work over it)
                       r"(?:it|that|this)(?=\s*(?:[,;.:)]|$|\s+(?:so|and|but|which|too)\b))|"
                       # "6 GPU-hours (well over 1)"
                       r"[\d.]+\s*\))", re.I)
_OTHER_CONDITION = re.compile(r"\bno\s+(?:declared\s+)?(?:shardable[\s_]+)?(?:axis|shards?)\b|"
                              r"\bunshardable\b|\bnothing\s+(?:splits|shards)\b|"
                              r"\bwithout\s+(?:a\s+|an\s+)?(?:declared\s+)?(?:shardable[\s_]+)?"
                              r"axis\b|"
                              # "the rule needs a declared axis …; without one, …"
                              r"\bwithout\s+one\b|"
                              r"\bnot\s+shardable|"
                              # a phase already wider than one GPU is not narrow
                              r"\b(?:an?|any|every|each|the)\s+width[- ](?:[2-9]|\d{2})\s+"
                              r"phases?\b", re.I)
_UNLIKE = re.compile(r"^\W*(?:unlike|in\s+contrast\s+to|as\s+opposed\s+to|compared\s+"
                     r"(?:to|with))\b[^,;:]*[,;:]", re.I)
# "count / treat / consider X as parallel work": the verb frames the claim,
# and a negation on the verb ("never count X as …") denies it
_COUNT_AS = re.compile(r"\b(?:count|treat|consider|regard|call|classify|class)\w*\s+(?:\S+\s+){0,6}"
                       r"\S*$", re.I)
_NEGATED_VERB = re.compile(r"\b(?:never|not|don't|do\s+not|doesn't|does\s+not|no\s+longer)\s+"
                           r"(?:\w+\s+)?(?:count|treat|consider|regard|call|classify|class)\w*\b",
                           re.I)
# a list of rules and the verb that gives them a verdict: "…, X and Y are warnings"
_PREDICATE_VERDICT = re.compile(r"[^:;.]*?\b(?:are|is|get|gets|stay|stays|remain|remains|"
                                r"count\s+as|counts\s+as)\s+(?:only\s+|just\s+|merely\s+)?"
                                r"(?:an?\s+)?", re.I)
_ONE_PHASE = re.compile(r"\W*(?:an?|one|this|that|the\s+same)\s+(?:[\w.-]+\s+){0,5}?(?:phase|plan|"
                        r"job|run|launch)\b", re.I)
# "…; at 0.9 GPU-hours staying narrow is fine": a case given by its amount
_AT_AMOUNT = re.compile(r"(?:^|[;:,]\s*)\W*at\s+$", re.I)
_AXIS_OPTIONAL = re.compile(r"\b(?:whether\s+or\s+not|with\s+or\s+without|regardless\s+of\s+"
                            r"whether|even\s+without|no\s+matter\s+whether)\b[^.;]{0,40}?"
                            r"\bshardable\s+axis|\bshardable\s+axis\s+(?:or\s+not|is\s+not\s+"
                            r"(?:needed|required))\b|\bwithout\s+(?:needing|requiring)\s+a\s+"
                            r"shardable\s+axis", re.I)
# ("Not only torchrun … but also shell fan-out" adds to the list; it limits nothing)
_ONLY_BEFORE = re.compile(r"(?<!not\s)\bonly\s+(?:the\s+|a\s+)?\W{0,2}$|"
                          r"\bonly\s+(?:counts?|reads?|"
                          r"recogni[sz]es?|sees?|accepts?)\s+(?:(?:process\s+)?launchers?\s+)?"
                          r"(?:like\s+|such\s+as\s+)?(?:the\s+)?\W{0,2}$", re.I)
_PLAIN_PATTERN = re.compile(r"[\w-]+(?:\\s\+[\w-]+)*")
_NARROW_PHASE = (r"(?:width[- ](?:1|one)|single[- ]gpu|one[- ]gpu|narrow|1[- ]gpu)\s+"
                 r"(?:phases?|plans?|jobs?)")
_NEVER_NARROW = re.compile(
    rf"\bnever\s+(?:objects?\s+to|flags?|revises?|complains?\s+about|touches)\s+(?:an?\s+|any\s+)?"
    rf"{_NARROW_PHASE}|\b{_NARROW_PHASE}\s+(?:are|is|get|gets)\s+always\s+"
    r"(?:approved|fine|accepted|APPROVEd?)\b", re.I)
_NO_BRANCH = re.compile(r"(?:^|[:?])[\W_]*?\bno\s*(?:→|->|=>|:|—)", re.I)
_ANAPHOR = re.compile(r"\s*(?:that|this|the|such\s+an?)\s+(?:note|finding|flag|warning|"
                     r"rule|check|one)\b|\s*it\s+(?:is|only|just|never|does|doesn['’]t)\b",
                     re.I)
_CONTRAST_JOINT = re.compile(r",?\s+(?:while|whereas|but)\b|;", re.I)
# a rule's name opening a definition: "unsharded-wide — …", "unsharded-wide: …"
_DEFINES = re.compile(r"[`*_]*\s*(?:[—–:(]|-{1,2}\s|\s*$)")
_NARROW = re.compile(r"\bnarrow|\bwiden|\bthreshold|\bwidth\s*1\b|\bsingle\s+gpu", re.I)


def _heading_verdict(reader: Reader, heading: str) -> str | None:
    found = [t for t in reader.lexicon.tag(heading, cues_alone=True) if t.kind in _VERDICTS]
    kinds = {t.kind for t in found}
    if len(kinds) == 1:
        return _VERDICTS[found[0].kind]
    if "warn" in kinds and "revise" not in kinds:
        return "WARN"
    return None


def read(reader: Reader, unit: Unit) -> list[Prop]:
    s = reader.s
    if s.history or s.question:
        return []
    props: list[Prop] = []
    heading_props: list[Prop] = []
    rules = [t for t in s.tokens if t.kind == "rule"]
    all_verdicts = [t for t in s.tokens if t.kind in _VERDICTS]
    # "X makes a REVISE, while Y leaves the verdict as it is": a contrast joint
    # gives each side its own verdict; a side that states none is not read
    # ("…gets an unsharded-wide note, but that note is only advisory": a side that
    # opens with a pointer back to the rule goes on about it)
    joints = [s.start + m.start() for m in _CONTRAST_JOINT.finditer(s.text)
              if not _ANAPHOR.match(s.text, m.end())]
    for rule in rules:
        verdicts = all_verdicts
        colon = s.text.rfind(":", 0, rule.start - s.start)
        if colon >= 0 and all(v.start < s.start + colon for v in all_verdicts) and \
                _FIRES_AFTER.match(s.text, rule.end - s.start):
            # "… is APPROVEd: at width 1 nothing can idle, so unreadable-launch does not
            # fire": the reason after the colon says whether the rule fires, not its verdict
            continue
        if joints:
            low = max([j for j in joints if j <= rule.start], default=s.start)
            high = min([j for j in joints if j > rule.start], default=s.end)
            verdicts = [v for v in all_verdicts if low <= v.start < high]
            if not verdicts and all_verdicts:
                continue
        if verdicts:
            # the verdict cue of this rule's clause: the nearest one after it, else before
            after = [v for v in verdicts if v.start >= rule.end]
            cue = after[0] if after else verdicts[-1]
            if len({v.kind for v in verdicts}) > 1 and len(rules) > 1:
                # the verdict the rules' own verb gives them, else the nearest: "It does
                # not REVISE on advisories: hardcoded-width, … are warnings" warns
                said = [v for v in after if _PREDICATE_VERDICT.fullmatch(
                    reader.unit_text[rule.end:v.start])]
                cue = said[0] if said else min(verdicts, key=lambda v: abs(v.start - rule.start))
            target = next((v for v in verdicts if _TURNS.search(
                reader.text(reader.s.start, v.start))), None)
            if target is not None:
                cue = target  # "never turns APPROVE into REVISE": the verdict it would become
            since = max(reader.clause_start(cue.start), rule.end if cue.start > rule.end and
                        target is None else 0)
            arrow = list(re.finditer(r"→|->|=>", reader.text(reader.s.start, cue.start)))
            if arrow:  # "… isn't parallel work → REVISE": the verdict is the arrow's own
                since = max(since, reader.s.start + arrow[-1].end())
            # "it is not parallel work and a wide phase launched that way is REVISEd":
            # a new subject after "and" starts the verdict's own clause
            subject = list(_NEW_SUBJECT.finditer(reader.text(since, cue.start)))
            if subject:
                since += subject[-1].start()
            unless = _UNLESS.match(reader.unit_text, cue.end)
            if (unless and (any(t.kind == "gpuhours" and t.start >= unless.end() for t in
                                s.tokens) or re.search(r"\bthreshold\b", reader.text(
                                    unless.end(), s.end), re.I))) or any(
                    t.kind == "gpuhours" and min(rule.end, cue.end) <= t.start <
                    max(rule.start, cue.start) and not _CUE_INSIDE.search(
                        reader.unit_text[t.start:t.end]) for t in s.tokens):
                # "… is fine unless it's at or above 1.0 GPU-hour", "a width-1 phase
                # at 0.6 GPU-h is fine": the verdict on one case of the plan, which
                # the amount or the exception decides; the threshold is read below
                continue
            amount = _CASE_HOURS.search(s.text)
            if _CASE_WIDTH.search(s.text) and amount and not _CUE_INSIDE.search(
                    s.text[max(0, amount.start() - 14):amount.end()]) and \
                    not _THRESHOLD_CUE.search(s.text[amount.end():amount.end() + 12]):
                # "width 1, same axis, gpu_hours 0.8 → staying narrow is fine": one
                # phase's case, which its numbers decide (see _phase_case)
                continue
            if any(t.kind == "gpuhours" and re.search(
                    r"\b(?:below|under|less\s+than|fewer\s+than)\s+(?:the\s+)?$",
                    reader.unit_text[max(s.start, t.start - 18):t.start], re.I)
                   for t in s.tokens) or _BELOW_THE_THRESHOLD.search(
                    reader.text(min(rule.end, cue.end), max(rule.start, cue.start))):
                # "Below 1.0 GPU-hour a narrow phase is fine", "needlessly-narrow: below
                # threshold: narrow is fine": the case below the threshold, which the
                # threshold reading checks
                continue
            negated = reader.negated_before(cue.start, since=since)
            if negated and (_ONE_PHASE.match(s.text) or _A_WIDTH_PHASE.search(s.text)):
                # ("Do not REVISE a width-1 phase just because its launch is `bash
                # run.sh`": that case's verdict)
                # "A width-1 phase of 0.5 GPU-hours is not REVISEd as needlessly-narrow":
                # one phase that misses the rule's condition, not the rule's verdict
                continue
            props.append(Prop("verdict", (rule.value, _VERDICTS[cue.kind]), negated,
                              rule.start, rule.end, "critic verdict"))
        else:
            # A list's lead-in is nearer than the heading: "Send the plan back
            # (REVISE) when any of these shows up:" classifies its items, and "Severity
            # words:" leaves them to say their own verdicts
            lead = reader.list_lead if unit.list_id else ""
            verdict = _heading_verdict(reader, lead or unit.heading)
            if lead and any(t.kind == "neg" for t in reader.lexicon.tag(lead, cues_alone=True)):
                verdict = None  # "NEVER answer REVISE just because:" classifies nothing
            # Outside a list, the heading classifies a definition that opens with the
            # rule's own name ("needlessly-narrow — width 1 although …"); "One process
            # behind four GPUs is not parallel work" describes a plan and
            # "needlessly-narrow fires when all of these hold:" its condition, whatever
            # heading they sit under.
            # A fence line's parent key ("needlessly-narrow:" over "width: 1") is
            # context, not a definition.
            if verdict and rule.start >= unit.lead and (unit.list_id or (len(rules) == 1 and
                            re.match(r"\W*$", reader.text(s.start, rule.start)) and
                            _DEFINES.match(reader.unit_text, rule.end) and
                            written(reader.unit_text, rule).lower() == rule.value)) and \
                    not re.search(r"(?:→|->|=>)\s*(?:no\s+|not\s+(?:an?\s+)?|an?\s+)?[`*_]*$",
                                  reader.text(s.start, rule.start)):
                # ("…leaves half the GPUs idle → under-saturated" names an example's
                # outcome, not the rule the section classifies)
                heading_props.append(Prop("verdict", (rule.value, verdict), False, rule.start,
                                          rule.end, "critic verdict"))
        if len(rules) > 1 and len({v.kind for v in verdicts}) > 1:
            break  # several rules, several verdicts: only the first pairing is safe
    amounts = [t for t in s.tokens if t.kind == "gpuhours"]
    # (a length on one GPU is an amount too, but the threshold only where a cue says so)
    # (and only where no other condition decides the case: "a two-hour single-GPU
    # eval with no shardable axis stays narrow" says nothing of the amount)
    lengths = [] if amounts or _OTHER_CONDITION.search(s.text) else _one_gpu_lengths(reader)
    amounts = amounts or lengths
    if re.search(r"\bexamples?\b", reader.table_header, re.I):
        amounts = []  # "| needlessly-narrow | REVISE | width 1, 8 GPU-hours |": an example
    cued = [t for t in amounts if _THRESHOLD_CUE.search(
        reader.unit_text[max(s.start, t.start - 14):t.start]) or any(
            # ("1 GPU-hour over 600 prompts": spread over them, not above it)
            not (m.group(0).lower() == "over" and _SPREAD.match(reader.unit_text, t.end + m.end()))
            for m in _THRESHOLD_CUE.finditer(reader.unit_text[t.end:t.end + 12]))
        or _OF_WORK_OR_MORE.match(reader.unit_text, t.end)
        or _THRESHOLD_BEFORE.search(reader.unit_text[max(s.start, t.start - 14):t.start])
        # "gpu_hours is at least 2.0", "| GPU-hours | ≥ 0.5 |": the cue inside the amount
        or _CUE_INSIDE.search(reader.unit_text[t.start:t.end])]
    if len(amounts) > 1:
        amounts = cued
    if _case_line(reader.unit_text[s.start:s.end]) is not None or _FLAG_SET.search(s.text) or \
            _other_threshold_set(s.text):
        # "width 1, `gpu_hours: 6`, axis of size 1 is APPROVE": a case, judged whole
        # (see _phase_case); "Lowering it to `--widen-threshold 0.5` turns a 0.5
        # GPU-hour phase …": amounts under another threshold than the default
        amounts = []
    for gh in amounts[:1]:
        compared = _COMPARED.match(reader.unit_text[gh.end:s.end])
        if compared:
            # "0.5 GPU-hours: below the threshold": an example, not the threshold
            props.append(Prop("narrow-at", (gh.value,), compared.group(1).lower() in (
                "below", "under"), gh.start, gh.end, "widening threshold"))
            continue
        example = re.search(r"(?:\b(?:is|are|be|gets?|counts?\s+as|triggers?|trips?|sets?\s+off)"
                            r"(?:n't|\s+not)?\s+|"
                            r"(?:→|->|=>|:)\s*)(?:\w+\s+){0,2}?"
                            r"(?:needlessly[- ]narrow|flagged|revised?\b|a\s+revise\b)",
                            reader.unit_text[gh.end:s.end], re.I)
        approved = _APPROVED.search(reader.unit_text[gh.end:s.end])
        if approved and example and approved.start() < example.start():
            example = None  # "… at exactly 1.0 GPU-hour is fine: needlessly-narrow needs …"
        exactly = re.search(r"\bexactly\s+$",
                            reader.unit_text[max(s.start, gh.start - 12):gh.start], re.I)
        # "Same phase at 0.9 GPU-hours → fine": an arrow to the approval, with no
        # other condition in the sentence that could be what lets it through
        arrowed = approved is not None and approved.group(0).lstrip().startswith(
            ("→", "->", "=>")) and not _OTHER_CONDITIONS_NAMED.search(s.text)
        opening = reader.text(reader.clause_start(gh.start), gh.start)
        if approved and not example and (exactly or arrowed or (
                # ("…is fine: 0.5 GPU-hours over 600 prefixes is APPROVEd", "…: a 0.5
                # GPU-hour width-1 phase is APPROVEd": the amount opens its clause, a
                # case's subject)
                not cued and (_ONE_PHASE.match(opening) or
                              re.fullmatch(r"[\s*_`]*(?:(?:an?|one|the|this|that)\s+)?", opening,
                                           re.I))) or
                _AT_AMOUNT.search(opening)):
            # ("Exactly 1.0 GPU-hour passes": the edge case, an example too)
            # "a width-1 phase with a 2-way axis and 1.0 GPU-hours is approved": an
            # example the rule lets through ("… with no shardable axis is approved"
            # fails another condition and says nothing of the amount)
            if not _OTHER_CONDITION.search(s.text):
                props.append(Prop("narrow-at", (gh.value,), not reader.negated_before(
                    gh.end + approved.end()), gh.start, gh.end, "widening threshold"))
            continue
        if example and not cued:
            # "a width-1 phase of 0.5 GPU-hours is not needlessly narrow": an example
            negated = reader.negated_before(gh.end + example.end()) or bool(_DOES_NOT_FIRE.match(
                reader.unit_text, gh.end + example.end()))
            # "… has less than 1 GPU-hour of work, … no needlessly-narrow finding": a bound
            under = ("under",) if _LESS_THAN.search(
                reader.unit_text[max(s.start, gh.start - 16):gh.start]) else ()
            if not (negated and _OTHER_CONDITION.search(s.text)):
                # (a phase "with no shardable axis" is not narrow whatever its size)
                props.append(Prop("narrow-at", (gh.value, *under), negated, gh.start, gh.end,
                                  "widening threshold"))
            continue
        # Without the rule named, an amount is the threshold only where a cue says
        # so: "6 GPU-hours at width 1 is a 6 h job" is arithmetic, not a threshold.
        if gh in lengths and gh not in cued:
            continue
        if any(r.value == _narrow_rule(reader) for r in rules) or (
                (_NARROW.search(s.text) or _NARROW.search(unit.heading) or
                 _NARROW.search(reader.list_lead if unit.list_id else "") or
                 _NARROW.search(reader.table_header))
                and (gh in cued or re.search(r"\bthreshold|\bnarrow", s.text, re.I))):
            span: tuple[int, int, str] = (gh.start, gh.end, "")
            value = re.search(r"(?:[:=≥]|>=|\bleast|\bis|\bare)\s*(\d+(?:\.\d+)?)$",
                              reader.unit_text[gh.start:gh.end])
            if value:  # "widening_threshold_gpu_hours: 0.5": mend the number alone
                span = (gh.start + value.start(1), gh.start + value.end(1), "number")
            negated = reader.negated_before(gh.start)
            below = _BELOW.search(reader.unit_text[max(s.start, gh.start - 20):gh.start]) and \
                not re.match(r"\W*(?:widen(?:ing)?\s+)?threshold", reader.unit_text[gh.end:])
            fires_after = _FIRES.search(reader.text(gh.end, _clause_end(reader, gh.end)))
            if below and _FIRES.search(reader.text(reader.clause_start(gh.start), gh.start)):
                # "Do not flag needlessly-narrow below one GPU-hour" puts the threshold
                # at one; "flag it below one GPU-hour" says it fires under it
                negated = not negated
            elif below and fires_after and not reader.negated_before(gh.start):
                # "Below 1.0 GPU-hour the critic still flags needlessly-narrow (as a
                # warning)" fires under it; "… the critic does not flag it" does not
                at = gh.end + fires_after.start()
                # ("… is too cheap to widen" does not fire either)
                negated = not (reader.negated_before(at, since=gh.end) or re.search(
                    r"\btoo\s+\w+\s+(?:to|for)\s+(?:\w+\s+)?$", reader.unit_text[gh.end:at], re.I))
            props.append(Prop("critic-threshold", (gh.value,), negated, gh.start, gh.end,
                              "widening threshold", (span,)))
            if not negated and _STRICTLY_ABOVE.search(
                    reader.unit_text[max(s.start, gh.start - 40):gh.end]):
                # "fires only strictly above 1.0 GPU-hour", "only fires *above* 1.0
                # GPU-hour", "has to be above 1": the amount itself is let through
                props.append(Prop("narrow-at", (gh.value,), True, gh.start, gh.end,
                                  "widening threshold"))
    if rules and any(r.value == _narrow_rule(reader) for r in rules) and \
            _NO_THRESHOLD.search(s.text):
        props.append(Prop("critic-threshold", (0.0,), False, rules[0].start, rules[0].end,
                          "widening threshold"))
    narrow = [r for r in rules if r.value == _narrow_rule(reader)]
    # ("if either condition fails, width 1 stands": each is needed, which is right)
    either = None if _EITHER_FAILS.search(s.text) else _EITHER_CONDITION.search(s.text)
    lead = reader.list_lead if unit.list_id else ""
    if either and (narrow or _NARROW.search(f"{s.text} {unit.heading} {lead}")):
        # "…if it declares an axis of 2 or more, *or* if it has 1 GPU-hour": the rule
        # needs both conditions, not either
        at = s.start + either.start()
        props.append(Prop("narrow-any", (), reader.negated_before(at), at,
                          s.start + either.end(), "widening threshold"))
    if narrow:
        props += _narrow_conditions(reader, narrow[0])
    elif not rules and re.search(r"\bshardable\s+axis", s.text, re.I) and \
            re.search(r"\bwiden|\bnarrow|\bREVISE", f"{s.text} {unit.heading}", re.I):
        # "The shardable axis needs at least 8 shards before the critic asks you to
        # widen": needlessly-narrow's condition, the rule described, not named
        from types import SimpleNamespace

        props += _narrow_conditions(reader, SimpleNamespace(end=s.start))
    props += _verdict_set(reader)
    launchers = [t for t in s.tokens if t.kind == "launcher"]
    unlike = _UNLIKE.match(s.text)
    if unlike:
        # "Unlike device_map=auto, accelerate launch is parallel work": the claim is
        # about what follows the contrast
        launchers = [t for t in launchers if t.start >= s.start + unlike.end()]
    if len(launchers) > 1 and launchers[1].value == "serial" and \
            not reader.text(launchers[0].end, launchers[1].start).strip():
        # "a CUDA_VISIBLE_DEVICES loop without &": the qualifier decides the class
        launchers = [launchers[1], *launchers[2:]]
    split = next((b for a, b in itertools.pairwise(launchers) if b.value == "model-split" and
                  a.value == "parallel" and (_IS_A.fullmatch(reader.text(a.end, b.start)) or (
                      # "`vllm … --tensor-parallel-size 4` only splits one model over …"
                      reader.unit_text[b.start:b.end].lower().startswith("split") and
                      _SPLITS.fullmatch(reader.text(a.end, b.start))))), None)
    if split is not None:
        # "`--tensor-parallel-size` is model splitting": the launcher before the
        # predicate is claimed not to be parallel work
        subject = launchers[launchers.index(split) - 1]
        props.append(Prop("parallel", (subject.value, written(reader.unit_text, subject)),
                          not reader.negated_before(split.start, since=subject.end),
                          subject.start, subject.end, "parallel work"))
        launchers = []
    if launchers:
        launcher = launchers[0]
        even = next((t for t in launchers[1:] if t.value == "serial" and
                     _EVEN_WITHOUT.search(reader.text(launcher.end, t.end))), None)
        if even is not None and launcher.value != "serial":
            # "a CUDA_VISIBLE_DEVICES loop counts as parallel even without &": the
            # claim is about the loop without it
            claimed = (even.value, f"{written(reader.unit_text, launcher)} "
                                   f"{written(reader.unit_text, even)}")
        else:
            claimed = (launcher.value, written(reader.unit_text, launcher))
        serial = _first_match(reader, "serial_words", launcher.end)
        cue = _parallel_claim(reader, launcher.end)
        unsharded = [r for r in rules if reader.lexicon.critic_rules.get(r.value) == "error"
                     and _judges_serial(r.value)]
        if serial >= 0 and (cue < 0 or serial <= cue):
            # "vLLM TP is a single server process": claims it is not parallel
            # "accelerate and deepspeed are not: the critic reads them as one
            # process": only the serial cue's own clause can negate it
            since = max(launcher.end, reader.clause_start(serial))
            # "GNU parallel is not recognized and is treated like a single process":
            # the serial cue's own predicate carries its polarity
            own = [m.end() for m in _OWN_PREDICATE.finditer(reader.unit_text, since, serial)]
            since = max([since, *own])
            props.append(Prop("parallel", claimed, not reader.negated_before(
                serial, since=since), launcher.start, launcher.end, "parallel work"))
        elif cue >= 0:
            # "X is not parallel" or, cue first, "does not run in parallel: X, Y"
            negated = reader.negated_before(cue, since=launcher.end) if cue > launcher.end \
                else reader.negated_before(cue + 1, since=reader._main_start())
            if cue < launcher.start and _BUT_NOT.search(reader.unit_text, cue,
                                                        launcher.start):
                negated = True  # "Two things that look parallel but are not: X, and Y"
            if cue > launcher.end and _LOOKS.search(reader.text(launcher.end, cue)) and \
                    _BUT_ISNT.match(reader.unit_text, cue):
                negated = True  # "device_map=auto looks parallel but isn't"
            if cue > launcher.end and _COUNT_AS.search(reader.text(s.start, launcher.start)):
                # "NEVER count GNU parallel as parallel work", "Don't treat X as …"
                negated = negated != bool(_NEGATED_VERB.search(
                    reader.text(s.start, launcher.start)))
            props.append(Prop("parallel", claimed, negated, launcher.start,
                              launcher.end, "parallel work"))
            if cue < launcher.start and re.fullmatch(r"(?:counts?\s+as\s+)?\w*\s*"
                                                      r"(?:work|launch\w*|launchers)?\s*"
                                                      r"[:=—-]\s*", reader.unit_text[
                                                          cue:launcher.start], re.I):
                # "Parallel: torchrun, accelerate launch, deepspeed, device_map=auto": a
                # key and the launchers it lists
                props += [Prop("parallel", (t.value, written(reader.unit_text, t)), negated,
                               t.start, t.end, "parallel work") for t in launchers[1:]]
            if not negated and _ONLY_BEFORE.search(reader.text(reader._main_start(),
                                                                launcher.start)):
                props += _only_these(reader, [t for t in launchers if t.start < cue])
        elif _ONLY_BEFORE.search(reader.text(reader._main_start(), launcher.start)) and \
                re.search(r"\bonly\s+(?:counts?|recogni[sz]es?)\b", s.text, re.I) and \
                not reader.negated_before(launcher.start):
            # "it only counts launchers like torchrun / accelerate / deepspeed": the
            # launchers it counts, and no others
            props += _only_these(reader, launchers)
        elif unsharded and any(v.kind == "revise" for v in all_verdicts):
            # "a plan launched with torchrun is REVISEd as unsharded-wide"
            props.append(Prop("parallel", claimed, True, launcher.start,
                              launcher.end, "parallel work"))
        elif unit.list_id and (lead := _PARALLEL_LEAD.search(reader.list_lead)) and \
                launcher.start - s.start < 40:
            # "Counts as parallel work:" over "- `device_map=auto` spreading one model":
            # the lead-in classifies each item that opens with a launch
            lead_negated = bool(re.search(r"\b(?:not|never|n['’]t|no)\b",
                                          reader.list_lead[:lead.end()], re.I))
            props.append(Prop("parallel", claimed, lead_negated, launcher.start,
                              launcher.end, "parallel work"))
    busy = _busy_count(reader, unit)
    counted = [p.args[0] for p in busy if len(p.args) == 3 and _counted_by_critic(p)]
    if counted:
        # "`torchrun` without `--nproc_per_node`: one process": the count the text
        # gives that whole launch is its claim, not a claim about its launcher
        spans = [(s.start + m.start(), s.start + m.end()) for launch in counted
                 for m in re.finditer(re.escape(launch), reader.unit_text[s.start:s.end])]
        # ("…, and a bare `srun python x.py` is one task, so it isn't parallel work":
        # a parallel cue after the counted launch is said of it, not of a launcher
        # named earlier)
        after = [(lo, hi) for lo, hi in spans if _parallel_claim(reader, hi) >= hi]
        props = [p for p in props if p.kind != "parallel" or
                 (not any(lo <= p.start < hi for lo, hi in spans) and
                 not any(p.start < lo for lo, _ in after))]
    props += busy
    props += _phase_case(reader)
    if not props:
        props += _launch_case(reader, unit)
    elif all(p.kind == "verdict" for p in props) and (
            _WIDTH_SCOPE.search(s.text) or _ANY_WIDTH.search(s.text) or
            _THAT_PHASE.search(s.text) or (
            _CASE_WIDTH.search(s.text) and not any(t.kind == "gpuhours" for t in s.tokens) and
            all(p.args[0] != _narrow_rule(reader) for p in props))):
        # "`bash run.sh` is REVISE (`unreadable-launch`) at every width, width 1
        # included", "width 1 + `launch: ./train.sh` → REVISE `unreadable-launch`": the
        # rule's verdict, and the verdict on that launch at that width (a rule that
        # weighs GPU-hours and an axis is not judged on a launch alone)
        props += _launch_case(reader, unit)
    # (qualified, "… a width-1 phase without a shardable axis", it can be right)
    # ("… whatever its shardable_axis and gpu_hours say" is no qualification)
    qualified = re.search(r"\baxis|\bshard|\bgpu[- _]?h|\bbelow\b|\bunder\b|\bless\s+than|"
                          r"\bunless\b|\bexcept\b|\bsmall\b|\bcheap\b", s.text, re.I) and \
        not re.search(r"\b(?:whatever|regardless|no\s+matter)\b", s.text, re.I)
    never = None if rules or qualified else _NEVER_NARROW.search(s.text)
    if never:
        # "The critic never objects to a width-1 phase", "narrow phases are always
        # approved": needlessly-narrow would never fire at width 1
        at = s.start + never.start()
        props.append(Prop("narrow-width", (1,), True, at, s.start + never.end(),
                          "widening threshold"))
    if not props:
        # "needlessly-narrow doesn't fire at width 2" under a Warn heading states
        # when the rule fires, not how severe it is
        props = heading_props
    if _NO_BRANCH.search(s.text):
        # "└── no → staying narrow is fine": the branch where the rule's condition
        # fails; its verdict is not the rule's
        props = [p for p in props if p.kind != "verdict"]
    if any(p.kind == "narrow-at" and p.negated for p in props) or _BELOW_IT.search(s.text):
        # "at 0.9 GPU-hours staying narrow is fine": the approval is that case's, a
        # phase the rule lets through, not the rule's verdict
        props = [p for p in props if not (p.kind == "verdict" and p.args[1] == "APPROVE")]
    return _pinned_launches(reader, unit, props)


_PINNED = re.compile(r"\bCUDA_VISIBLE_DEVICES=\d+(?![,\d])")


def _pinned_launches(reader: Reader, unit: Unit, props: list[Prop]) -> list[Prop]:
    """A parallel launcher written inside a whole launch the critic reads as one
    process ("`CUDA_VISIBLE_DEVICES=0 deepspeed train.py` is a single process") is
    that launch, not its launcher family."""
    if not any(p.kind == "parallel" and p.args[0] == "parallel" for p in props) or \
            not _PINNED.search(unit.raw or ""):
        return props  # (most sentences: the launch reader is not even imported)
    from critics.launch import analyze

    said = reader.unit_text[reader.s.start:reader.s.end]
    single = []
    for span in _launches_in(unit, said):
        # (pinned to one device, and one process even on the widest phase)
        if _PINNED.search(span):
            launch = analyze(span, max(reader.facts.widths))
            if launch.gpus == 1 and not launch.unreadable:
                at = reader.s.start + said.index(span)
                single.append((at, at + len(span), span))
    if not single:
        return props
    out = []
    for p in props:
        inside = next((span for a, b, span in single if a <= p.start < b), None)
        if p.kind == "parallel" and p.args[0] == "parallel" and inside is not None:
            p = Prop("parallel", ("single", inside), p.negated, p.start, p.end, p.topic)
        out.append(p)
    return out


_MORE_WIDTHS = re.compile(r"\s*(?:,\s*)?(?:or|and|/)\s*(\d{1,2})\b(?!\s*(?:gpu|h\b|hours?|%|x|×))",
                          re.I)
_OWN_PREDICATE = re.compile(r"\b(?:and|but)\s+(?:is|are|gets?|will\s+be)\b", re.I)
_EVEN_WITHOUT = re.compile(r"\b(?:even|also|still)\s+without\b[^.;]*$", re.I)
_APPROVED = re.compile(r"\b(?:is|are|gets?)\s+(?:\w+\s+)?(?:approved|accepted|fine|"
                       r"let\s+through|waved\s+through|an?\s+approve|left\s+alone|"
                       r"not\s+flagged|ignored)\b|\bpasses\b|"
                       # "… may stay at width 1", "… stays narrow"
                       r"\b(?:(?:may|can|is\s+allowed\s+to|are\s+allowed\s+to|gets?\s+to)\s+"
                       r"(?:\w+\s+)?stay|stays)\s+(?:narrow|(?:at|on)\s+(?:width[- ]1|one\s+gpu|"
                       r"a\s+single\s+gpu|1\s*(?:gpu|×|x)))\b|"
                       # the verdict's own word: "… gets APPROVE", "… w/ an axis → APPROVE"
                       r"(?:\bgets?\s+|(?:→|->|=>)\s*)[`*_]*(?-i:APPROVE)\b|"
                       # "… 0.9 GPU-hours → fine, leave it narrow": an arrow to the verdict
                       r"^\W{0,3}\s*(?:→|->|=>)\s*(?:(?:fine|ok(?:ay)?|approved?|no\s+finding|"
                       r"passes|leave\s+it|stays?\s+narrow)\b)", re.I)
# "four GPU-hours of work or more"
_OF_WORK_OR_MORE = re.compile(r"\s+of\s+(?:\w+\s+)?work\s+or\s+(?:more|above)\b", re.I)
_FIRES = re.compile(r"\b(?:flag|fire|trigger|revise|report|apply|raise|widen)\w*\b", re.I)
# "0.9 GPU-hours: needlessly-narrow does not fire"
_DOES_NOT_FIRE = re.compile(r"[`*_]*\s+(?:does\s+not|doesn[’']t|won[’']t|will\s+not|never|"
                            r"must\s+not)\s+(?:fire|trigger|apply|flag|trip)\b", re.I)
_LESS_THAN = re.compile(r"\b(?:less|fewer)\s+than\s+(?:an?\s+)?$|\b(?:under|below)\s+$|<\s*$", re.I)
_BELOW = re.compile(r"\b(?:below|under|less\s+than|short\s+of)\s+(?:the\s+)?(?:an?\s+)?$", re.I)
# a threshold's cue inside its amount: "gpu_hours at or above 0.5", "≥ 0.5"
_CUE_INSIDE = re.compile(r"at\s+least|at\s+or\s+above|≥|>=", re.I)
_UNLESS = re.compile(r"[\s`*_]*(?:[\w-]+\s+){0,3}?(?:unless|except\s+(?:when|if|where)|until)\b",
                     re.I)
_NEW_SUBJECT = re.compile(r"\b(?:and|but)\s+(?:a|an|the|every|each|any|such)\s+", re.I)


# A width-1 phase written as a case: "width 1, 0.75 GPU-hours, axis 4: APPROVE", or a
# table row under "| width | gpu_hours | axis size | verdict |"
_CASE_WIDTH = re.compile(r"\bwidth[\s:=-]*(\d{1,2})\b", re.I)
_CASE_HOURS = re.compile(r"(?:\bgpu[_ -]?hours\s*[:=]?\s*(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*"
                         r"gpu[- ]?h(?:ours?|rs?)?\b)", re.I)
# ("axis size ≥ 2": a phase with the smallest such axis)
_CASE_AXIS = re.compile(r"\baxis(?:\s+of)?(?:\s+size)?\s*[:=]?\s*(?:≥|>=|(?:of\s+)?at\s+least)?\s*"
                        r"(\d{1,4})\b|\bsize\s*[:=]\s*(\d{1,4})\b", re.I)
# (the word only, without the "d" of "REVISEd": the part a fix replaces)
_CASE_VERDICT = re.compile(r"\b(?-i:(APPROVE|REVISE))(?=[dDsS]?\b)|\b(passes|is\s+approved|"
                           r"is\s+fine|(?:is|gets)\s+flagged|is\s+sent\s+back|"
                           # "call it unsharded-wide": the rule named after it fires
                           r"(?:call|mark|flag|label|tag)\s+it(?:\s+as)?(?=\s+[`*_]*[a-z]+-[a-z]))\b",
                           re.I)
# a verdict in words that names the rule that fires
_FIRES_WORDS = re.compile(r"flagged|\b(?:call|mark|flag|label|tag)\s+it\b", re.I)


def _phase_case(reader: Reader) -> list[Prop]:
    """A width-1 phase's numbers and the verdict the text gives it, checked by
    running the critic's own rules on that phase."""
    s = reader.s
    raw = reader.unit_text[s.start:s.end]
    values = _case_cells(reader, raw) if reader.table_header and "|" in raw else \
        _case_line(raw)
    if values is None:
        return []
    width, hours, axis, verdict = values
    if width != 1:
        return []  # a wide phase's verdict depends on its launch, which a case omits
    at = s.start + verdict.start()
    end = s.start + verdict.end()
    if verdict.group(1) is None:
        # "… passes", "… gets flagged": the verdict in words, with nothing to mend
        return [Prop("phase-verdict", (hours, axis, _said(verdict)), False, at, end,
                     "widening threshold")]
    return [Prop("phase-verdict", (hours, axis, verdict.group(1)), False, at, end,
                 "widening threshold", ((at, end, ""),))]


def _any_width_stands_for(reader: Reader, verdict: re.Match[str]) -> int:
    """The width a verdict given "at any width" is checked at: "`bash run.sh` … is
    APPROVEd at any width" at the widest one too; "REVISEs it whatever the width" at
    width 1 too."""
    widths = reader.facts.widths
    return max(widths) if _said(verdict) == "APPROVE" else min(widths)


def _said(verdict: re.Match[str]) -> str:
    """The verdict a `_CASE_VERDICT` match gives: its word, or the one its
    wording means ("is flagged", "is sent back": REVISE; "passes": APPROVE)."""
    return verdict.group(1) or ("REVISE" if re.search(r"\bsent\b", verdict.group(2), re.I) or
                                _FIRES_WORDS.search(verdict.group(2)) else "APPROVE")


# A launch written as code: the command of a phase ("`bash run.sh`", "`torchrun
# --nproc_per_node={width} train.py`"), not a flag or a rule's name
_CODE_SPAN = re.compile(r"`([^`\n]{3,300})`")
# a program that is no launcher family but runs a phase: an interpreter, a shell
# loop or fan-out, a script by its path, a task runner's target (`make eval`)
_SHELL_HEAD = re.compile(r"(?:python|pypy)[\d.]*|for|while|xargs|parallel|make|just|\./\S+|"
                         r"\S+\.(?:sh|py)")
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")


def _is_launch(span: str) -> bool:
    """A code span that is a phase's command: its program (after any `VAR=value`)
    starts one of the critic's launcher families (`critics/launchers.yaml`:
    torchrun, accelerate, bash, srun, …) or is an interpreter, a shell loop or
    fan-out, or a script. A flag (`--num-shards`) or a setting
    (`device_map=auto`) is not."""
    from critics.launchers import packaged

    words = span.split()
    while words and _ENV_ASSIGNMENT.fullmatch(words[0]):
        words = words[1:]
    if not words or words[0].startswith("-"):
        return False
    return packaged().head(words) is not None or bool(_SHELL_HEAD.fullmatch(words[0]))


# "unreadable-launch does not fire", "… never fires here", "is not raised"
_FIRES_AFTER = re.compile(r"[`*_]*\s+(?:(?:does|do|will|would)(?:\s+not|n['’]t)\s+|never\s+|"
                          r"(?:is|are)(?:\s+not|n['’]t)\s+|only\s+|also\s+|still\s+)?"
                          r"(?:fires?|fired|raised|triggers?|triggered|applies|apply)\b", re.I)
# "Verdict: APPROVE.", "Expected: REVISE", "→ APPROVE": a verdict on a line of its own
_VERDICT_LINE = re.compile(r"[\s*_>#-]*(?:(?:verdict|expected(?:\s+verdict)?|result|outcome|"
                           r"answer)\s*[:=—–-]|→|->)\s*[*_`]*(?:APPROVE|REVISE)\b", re.I)
# an imperative verdict that opens the sentence, and the phase it is given to
# (a short label and the critic as subject may come first: "**wei** 14:55 — the
# critic APPROVEs a width-4 phase that runs …")
_VERDICT_FIRST = re.compile(r"[\s*_`>#-]*(?:[^\n—–`]{1,30}?(?:—|–|:)\s+)?(?:\d+[.)]\s*)?"
                            # "yep, unreadable-launch REVISEs any launch …": an answer's
                            # word, and a rule as the subject
                            r"(?:(?:yes|yep|yeah|yup|no|nope|sure|correct)\b[,.!:]?\s+)?"
                            r"(?:[`*_]*[a-z]+(?:-[a-z]+)+[`*_]*\s+)?"
                            r"(?:(?:the\s+)?(?:efficiency[- ])?critic\s+(?:will\s+|would\s+|"
                            r"should\s+|must\s+)?)?[*_`]*(?:APPROVE|REVISE)[*_`]*$", re.I)
_PHASE_AFTER = re.compile(r"[sS]?[*_`]*\s+(?:a|an|any|every|each|the)\s+(?:[\w-]+\s+){0,3}?"
                          r"(?:phases?|plans?|launch(?:es)?)\b", re.I)
# "at width 1", "even at width 1", "width 1 included": the width a verdict is given at
_WIDTH_SCOPE = re.compile(r"\b(?:at|on|for|in)\s+(?:(?:every|any|each)\s+width,?\s+(?:even\s+|"
                          r"including\s+)?|even\s+)?(?:an?\s+)?width[\s:=-]*\d{1,2}\b|\bwidth[\s:=-]*"
                          r"\d{1,2}\s+(?:included|too|as\s+well)\b|"
                          r"\b(?:including|even)\s+(?:at\s+)?width[\s:=-]*\d{1,2}\b", re.I)
_ANY_WIDTH = re.compile(r"\b(?:at|on|for)\s+(?:any|every|each|all)\s+widths?\b|\bwhatever\s+the\s+"
                        r"width\b|\bregardless\s+of\s+(?:the\s+)?width\b", re.I)
_LAUNCH_KEY = re.compile(r"^\s*launch\s*:\s*", re.I)
_SPLITS = re.compile(r"[\w-]*[`*_\s]*(?:[\d{}\w]+[`*_\s]*)?(?:only\s+|just\s+|simply\s+|"
                     r"really\s+|merely\s+)?(?:(?:does|do)(?:n['’]t|\s+not)\s+)?", re.I)
# "X is model splitting", "X counts as model splitting", "X = just model splitting"
_IS_A = re.compile(r"[\w-]*[`*_\s]*(?:\w+\s+)?(?:is|are|counts?\s+as|means|=|—)\s+"
                   r"(?:just\s+|only\s+|really\s+|simply\s+|not\s+|never\s+)?"
                   r"(?:a\s+(?:form\s+of\s+)?)?[`*_]*",
                   re.I)
# "a launch that only calls a script", "any launch that just runs a shell script"
_ANY_SCRIPT = re.compile(r"\b(?:a|any|every|each)\s+launch\s+that\s+(?:only|just)\s+(?:calls|runs)"
                         r"\s+(?:a\s+)?(?:shell\s+|bash\s+|wrapper\s+)?script\b", re.I)
# the launch that stands for every script-only one (the critic's own example)
_SCRIPT_PROBE = "bash run.sh"
# "as long as `run.sh` itself calls ", "if the script runs ": a script's contents
_SCRIPT_BODY = re.compile(r"\b(?:as\s+long\s+as|provided(?:\s+that)?|if|when|so\s+long\s+as)\s+"
                          r"(?:the\s+)?`?[\w./-]*(?:script|\.sh|\.slurm)`?\s+(?:itself\s+)?"
                          r"(?:calls|runs|invokes|contains|starts|launches|wraps|execs?)\s+`?$",
                          re.I)
# what makes a case more than a launch at a width: its other conditions
# ("It fills all eight GPUs, but …" states a fact; "unless the rest fills it" is one)
_CASE_CONDITIONED = re.compile(r"\baxis|\bshardable|\bunless\b|\bexcept\b|\bif\s+the\s+rest\b|"
                               r"\b(?:if|when|as\s+long\s+as|provided)\b[^.;]{0,40}\bfills?\b",
                               re.I)
# "that phase gets REVISE", "the critic returns REVISE for this phase"
_THAT_PHASE = re.compile(r"\b(?:that|this|the\s+same)\s+(?:phase|plan|launch)\b|"
                         # "… launch `make eval`. The critic gives it the benefit of the
                         # doubt and APPROVEs": "it" is the phase the sentence before gave
                         r"\b(?:gives?|answers?|marks?|approves?|revises?|flags?|sends?)\s+it\b|"
                         r"\bit\s+(?:gets?|is|was)\s+(?:APPROVEd|REVISEd|approved|revised|"
                         r"flagged|fine)\b|\bit\s+(?:passes|fails)\b", re.I)


# a length on one GPU: "a 45-minute single-GPU run", "two hours on one GPU"
_ON_ONE_GPU = re.compile(r"[\s-]*(?:[\w-]+\s+)?(?:single[- ]gpu|one[- ]gpu|1[- ]gpu)\b|"
                         r"\s+(?:\w+\s+)?(?:on|at)\s+(?:a\s+single|one|1)\s+gpu\b|"
                         r"\s+(?:\w+\s+)?at\s+width[- ]1\b", re.I)


def _one_gpu_lengths(reader: Reader) -> list[Token]:
    """A sentence's job lengths on one GPU, as amounts of GPU-hours ("a 45-minute
    single-GPU run" is 0.75 GPU-hours), where it writes no amount itself."""
    out = []
    for t in reader.s.tokens:
        if t.kind == "duration" and isinstance(t.value, (int, float)) and \
                _ON_ONE_GPU.match(reader.unit_text, t.end):
            out.append(Token("gpuhours", float(t.value), t.start, t.end))
    return out


def _launch_case(reader: Reader, unit: Unit) -> list[Prop]:
    """A phase's width and launch and the verdict the text gives it ("if the
    launch is `bash run.sh` at width 8, APPROVE it"), checked by running the
    critic's own rules on that phase."""
    s = reader.s
    raw = reader.unit_text[s.start:s.end]
    if reader.table_header and "|" in raw:
        return _launch_row(reader, raw)
    lead = 0
    if _VERDICT_LINE.match(raw):
        # "Example: width 4, launch `…`" over "Verdict: APPROVE.": the line before
        # is the phase this verdict is given to
        before = reader.unit_text[:s.start].rstrip()
        line = before[before.rfind("\n") + 1:]
        if line and _CASE_WIDTH.search(line):
            lead = s.start - (len(before) - len(line))
            raw = reader.unit_text[s.start - lead:s.end]
    elif _THAT_PHASE.search(raw) and not _CASE_WIDTH.search(raw):
        # "Phase: width 1, launch `bash run.sh`." then "…, so that phase gets REVISE":
        # the sentence before gives the phase the verdict points back at
        from lint.reading import split_sentences

        before = [start for start, end in split_sentences(reader.unit_text) if end <= s.start]
        if before and _CASE_WIDTH.search(reader.unit_text, before[-1], s.start):
            lead = s.start - before[-1]
            raw = reader.unit_text[before[-1]:s.end]
    base = s.start - lead
    widths = {int(m.group(1)) for m in _CASE_WIDTH.finditer(raw)}
    lead_width = _CASE_WIDTH.search(reader.list_lead) if unit.list_id and not widths else None
    if lead_width:
        # "Checklist for serving phases (width 8):" over "- `vllm serve … --tp 4`: …,
        # so APPROVE": the lead-in gives every item's phase its width
        widths = {int(lead_width.group(1))}
    every_width = _ANY_WIDTH.search(raw) if not widths else None
    verdict = _CASE_VERDICT.search(raw, lead)
    if every_width and verdict is not None:
        widths = {_any_width_stands_for(reader, verdict)}
    if len(widths) != 1 or verdict is None or _CASE_CONDITIONED.search(raw):
        return []
    # ("`launch: bash run.sh`", '`launch: "./train.sh"`': a §9 field, its value the launch)
    spans = [_LAUNCH_KEY.sub("", m.group(1)).strip("\"'")
             for m in _CODE_SPAN.finditer(unit.raw or "")]
    spans = [span for span in spans if span and span in raw and _is_launch(span)]
    script = _ANY_SCRIPT.search(raw) if not spans else None
    if script:
        # "any launch that only calls a script": the critic's own example of one
        # stands for them all, written where the text names the kind
        # (in as many characters, so offsets into the text do not move)
        raw = raw[:script.start()] + _SCRIPT_PROBE.ljust(script.end() - script.start()) + \
            raw[script.end():]
        spans = [_SCRIPT_PROBE]
    # ("… is APPROVEd as long as `run.sh` itself calls `torchrun …`": what the script
    # runs inside is no launch of the phase's; the critic does not read the script)
    spans = [span for span in spans if not _SCRIPT_BODY.search(raw[:raw.index(span)])]
    # ("`bash run.sh` … `run.sh` is committed": the script a launch names is that launch)
    spans = [span for span in spans if not any(span != o and span in o for o in spans)]
    if len(set(spans)) > 1 and any(
            all(m.start() < raw.index(span) < m.end() for span in spans)
            for m in re.finditer(r"\([^()]*\)", raw)):
        # "only calls a script (`bash scripts/run.sh`, `./train.sh`, `sbatch job.slurm`)":
        # examples of one kind in an aside; the first stands for them all
        spans = spans[:1]
    if len(set(spans)) != 1 and not (every_width and spans):
        return []  # (every launch a rule at any width names is judged by the first)
    launch = spans[0]
    # where the phase's width is written: "at any width" may follow the verdict it
    # scopes, so it sets no bound
    width_at = _CASE_WIDTH.search(raw)
    width_end = width_at.end() if width_at and not every_width else 0
    launch_at = raw.index(launch)
    launch_end = launch_at + len(launch)
    later = _CASE_VERDICT.search(raw, launch_end)
    if later is not None and verdict.start() < launch_at and \
            ":" in raw[verdict.end():launch_at]:
        # "Don't REVISE a plan just because its launch calls a script: `bash run.sh` is
        # APPROVEd at any width": the verdict the case after the colon is given
        verdict = later
        if every_width:
            widths = {_any_width_stands_for(reader, verdict)}
    if verdict.start() < max(width_end, launch_end) and not (
            _VERDICT_FIRST.match(raw, 0, verdict.end()) and (
                _PHASE_AFTER.match(raw, verdict.end()) or
                # "The critic REVISEs `bash run.sh` at width 2": the launch right after
                re.match(r"[sS]?[*_`]*\s+" + re.escape(launch), raw[verdict.end():]))) and not (
            launch_end <= verdict.start() and _WIDTH_SCOPE.search(raw, verdict.end())):
        # the verdict follows the phase it judges; "APPROVE a width-4 phase whose
        # launch is …" gives it first, and "`bash run.sh` is REVISE at every width,
        # width 1 included" scopes the width after it
        return []
    hours = _CASE_HOURS.search(raw)
    at, end = base + verdict.start(), base + verdict.end()
    said = _said(verdict)
    named = [t.value for t in s.tokens if t.kind == "rule" and t.start > at]
    # "is flagged oversubscribed": that rule fires, maybe only as a warning
    fires = named[0] if not verdict.group(1) and _FIRES_WORDS.search(verdict.group(2)) \
        and named else None
    negated = reader.negated_before(at)
    # (a verdict in words, "is fine", or a denied one has no word to mend)
    fix = ((at, end, ""),) if verdict.group(1) and not negated else ()
    return [Prop("launch-verdict", (widths.pop(), launch,
                                    float(hours.group(1) or hours.group(2)) if hours else None,
                                    said, fires), negated, at, end, "critic verdict", fix)]


# A number alone in a table cell, maybe in code or bold
_CELL_NUMBER = re.compile(r"\s*[`*_]*(\d+(?:\.\d+)?)[`*_]*\s*$")
# What a case table's header names each column (the first kind a name matches)
_HOURS_COLUMN = re.compile(r"gpu[_ -]?hours?|gpu[- ]?h\b")
_VERDICT_COLUMN = re.compile(r"verdict|expected|result|outcome")
_CASE_COLUMNS = (("width", re.compile(r"\Awidth\Z")), ("hours", _HOURS_COLUMN),
                 ("axis", re.compile(r"\baxis\b|\bshards?\b")), ("verdict", _VERDICT_COLUMN))
_LAUNCH_COLUMNS = (("width", re.compile(r"\A(?:width|gpus|gpu\s+count)\Z")),
                   ("launch", re.compile(r"\A(?:launch|command|cmd|launch\s+command)\Z")),
                   ("hours", _HOURS_COLUMN), ("verdict", _VERDICT_COLUMN))


def _row_columns(reader: Reader, raw: str, kinds: tuple[tuple[str, re.Pattern[str]], ...]
                 ) -> tuple[list[str], dict[str, int]] | None:
    """A table row's cells and, per kind of column its header names, the column
    that holds it; None when the row does not fit the header."""
    names = [c.strip(" `*_").lower() for c in reader.table_header.strip().strip("|").split("|")]
    cells = raw.strip().strip("|").split("|")
    if len(cells) != len(names):
        return None
    column: dict[str, int] = {}
    for i, name in enumerate(names):
        kind = next((k for k, pattern in kinds if pattern.search(name)), None)
        if kind is not None:
            column[kind] = i
    return cells, column


def _launch_row(reader: Reader, raw: str) -> list[Prop]:
    """'| eval | 4 | python eval.py --all-checkpoints | APPROVE |' under a header
    with width, launch and verdict columns: that launch at that width."""
    row = _row_columns(reader, raw, _LAUNCH_COLUMNS)
    if row is None:
        return []
    cells, column = row
    if not {"width", "launch", "verdict"} <= column.keys():
        return []
    width = re.fullmatch(r"\s*[`*_]*(\d{1,2})[`*_]*\s*", cells[column["width"]])
    launch = cells[column["launch"]].strip().strip("`").strip()
    said = _CASE_VERDICT.search(cells[column["verdict"]])
    hours = _CELL_NUMBER.match(cells[column["hours"]]) if "hours" in column else None
    if not (width and launch and said and _is_launch(launch)):
        return []
    offset = sum(len(c) + 1 for c in cells[:column["verdict"]]) + raw.find(cells[0])
    verdict = _CASE_VERDICT.search(raw, max(offset, 0))
    if verdict is None:
        return []
    at, end = reader.s.start + verdict.start(), reader.s.start + verdict.end()
    fix = ((at, end, ""),) if verdict.group(1) else ()
    return [Prop("launch-verdict", (int(width.group(1)), launch,
                                    float(hours.group(1)) if hours else None, _said(verdict),
                                    None), False, at, end, "critic verdict", fix)]


# "below the default widening threshold of 1.0 GPU-hour": the threshold, not an amount
_NAMES_THRESHOLD = re.compile(r"\bthreshold\s*(?:\(|of|at|is|=|:)?\s*(?:about\s+)?$", re.I)


def _case_line(raw: str) -> tuple[int, float, int, re.Match[str]] | None:
    width = _CASE_WIDTH.search(raw)
    hours = next((m for m in _CASE_HOURS.finditer(raw)
                  if not _NAMES_THRESHOLD.search(raw, 0, m.start())), None)
    axis, verdict = _CASE_AXIS.search(raw), _CASE_VERDICT.search(raw)
    if not (width and hours and axis and verdict) or verdict.start() < max(
            width.end(), hours.end(), axis.end()):
        return None  # the verdict follows the phase it judges
    return (int(width.group(1)), float(hours.group(1) or hours.group(2)),
            int(axis.group(1) or axis.group(2)), verdict)


def _case_cells(reader: Reader, raw: str) -> tuple[int, float, int, re.Match[str]] | None:
    row = _row_columns(reader, raw, _CASE_COLUMNS)
    if row is None:
        return None
    cells, column = row
    number = _CELL_NUMBER
    # "| gpu_hours (width 1, shardable axis of 8) | verdict |": the header fixes the
    # values no column holds
    fixed = {}
    header = reader.table_header
    if "width" not in column and (m := _CASE_WIDTH.search(header)):
        fixed["width"] = number.match(m.group(1))
    if "axis" not in column and (m := _CASE_AXIS.search(header)):
        fixed["axis"] = number.match(m.group(1) or m.group(2))
    if len(column) + len(fixed) != 4 or "verdict" not in column or "hours" not in column:
        return None
    if _CASE_VERDICT.search(cells[column["verdict"]]) is None:
        return None
    width, hours, axis = (fixed[k] if k in fixed else number.match(cells[column[k]])
                          for k in ("width", "hours", "axis"))
    offset = raw.find(cells[column["verdict"]]) if raw.count(cells[column["verdict"]]) else -1
    verdict = _CASE_VERDICT.search(raw, offset) if offset >= 0 else None
    if not (width and hours and axis and verdict) or "." in axis.group(1) or \
            "." in width.group(1):
        return None
    return int(width.group(1)), float(hours.group(1)), int(axis.group(1)), verdict


# A launch's parallel sizes as flags ("--tensor-parallel-size 2 --data-parallel-size 2"),
# and a count of the GPUs it is said to keep busy
_SIZE_FLAG = re.compile(r"(?<![\w-])(?:--(?:tensor|pipeline|data)[-_]parallel[-_]size|"
                        r"--(?:tp|pp|dp)(?:[-_]size)?|-(?:tp|pp|dp))(?:=|\s+)\d{1,4}\b", re.I)
_COUNT = r"(\d{1,4}|two|three|four|five|six|eight|ten|sixteen)"
_BUSY = re.compile(rf"\b(?:keeps?|keeping|kept)\s+(?:only\s+|just\s+|all\s+)?{_COUNT}\s+"
                   r"(?:of\s+(?:the|its)\s+\w+\s+)?gpus?"
                   # "keeps all four GPUs of a width-4 machine busy"
                   r"(?:\s+of\s+(?:an?|the|its)\s+[\w-]+\s+(?:machine|phase|node|box|vm))?\s+busy\b|"
                   rf"\b(?:is|are|counts?\s+as|means|makes)\s+(?:only\s+|just\s+)?{_COUNT}\s+"
                   r"(?:busy\s+)?gpus?\b|"
                   rf"(?<![\w-]){_COUNT}\s+busy\s+gpus?\b|"
                   # "the launch fills all four GPUs"
                   rf"\b(?:fills?|filling|occupies|uses)\s+(?:all\s+)?{_COUNT}\s+(?:of\s+the\s+)?"
                   r"gpus?\b|"
                   # "makes it a four-GPU job"
                   rf"\bmakes?\s+(?:it|this|that)\s+an?\s+{_COUNT}[- ]gpu\s+(?:job|run|launch|"
                   r"process|workload)\b|"
                   # "treat it as 4-way parallel", "is 4-way parallel work"
                   rf"\b(?:as|is|are|counts?\s+as)\s+(?:an?\s+)?{_COUNT}[- ]way\s+parallel\b|"
                   # "`torchrun train.py`: one process", "spawns 4 processes" (not
                   # "one process per GPU": that counts the GPUs)
                   rf"(?:^|[:—–]\s*(?:[^,.;:`]{{1,20}},\s*)?|"
                   r"\b(?:runs?|starts?|spawns?|launch(?:es)?|is|in)\s+"
                   rf"(?:only\s+|just\s+)?)(one|a\s+single|{_COUNT[1:-1]})\s+(?:worker\s+)?"
                   r"(?:process(?:es)?|tasks?)\b(?!\s+(?:per|for\s+each|each|on\s+each)\b)", re.I)


def _busy_count(reader: Reader, unit: Unit) -> list[Prop]:
    """'vLLM with --tensor-parallel-size 2 --data-parallel-size 2 keeps 2 GPUs
    busy': the count the critic's own launch reader gives those sizes; and a
    whole launch in backticks given a count ("`CUDA_VISIBLE_DEVICES=0 deepspeed
    train.py` … fills all four GPUs")."""
    s = reader.s
    raw = reader.unit_text[s.start:s.end]
    flags = list(_SIZE_FLAG.finditer(raw))
    if not flags:
        return _launch_count(reader, unit, raw) or _counted_item(reader, raw)
    busy = next((m for m in _BUSY.finditer(raw) if m.start() > flags[-1].start()), None)
    counted = _busy_number(busy)
    if busy is None or counted is None:
        return []
    group, count = counted
    command = " ".join(m.group(0) for m in flags)
    at, end = s.start + busy.start(group), s.start + busy.end(group)
    negated = reader.negated_before(at, since=s.start + flags[-1].end())
    return [Prop("busy", (command, count), negated, at, end, "parallel work", ((at, end, ""),))]


def _other_threshold_set(text: str) -> bool:
    """Whether a command in the sentence sets the widening threshold to another
    value than the critic's default ("`efficiency-critic --widen-threshold 2
    plans/` asks phases to widen only from 2 GPU-hours up"): its amounts are
    under that threshold."""
    if "threshold" not in text.lower():
        return False
    from critics.rules import DEFAULT_WIDEN_THRESHOLD

    return any(float(m.group(1)) != DEFAULT_WIDEN_THRESHOLD
               for m in _THRESHOLD_FLAG.finditer(text))


def _counted_by_critic(busy: Prop) -> bool:
    """Whether the critic's launch reader gives the whole launch of a `busy`
    proposition a count (so the proposition is judged, not left undecided)."""
    from critics.launch import analyze

    launch = analyze(busy.args[0], busy.args[2])
    return launch.gpus is not None and not launch.unreadable


def _launches_in(unit: Unit, text: str) -> list[str]:
    """The unit's code spans that are whole launches and are written in `text`."""
    spans = [m.group(1) for m in _CODE_SPAN.finditer(unit.raw or "")
             if m.group(1) in text and _is_launch(m.group(1))]
    # (a shorter launch found only inside a longer one is written in another sentence:
    # "`python gen.py --num-shards {width}` fills …. Add a shard id (`python gen.py
    # --num-shards {width} --shard-id 0`) …")
    return [span for span in spans if text.count(span) > sum(
        text.count(longer) for longer in set(spans) if span in longer and longer != span)]


def _busy_number(busy: re.Match[str] | None) -> tuple[int, int] | None:
    """The group of a `_BUSY` match that holds its count, and the count."""
    if busy is None:
        return None
    group = next(i for i in range(1, busy.re.groups + 1) if busy.group(i))
    word = " ".join(busy.group(group).lower().split())
    count = int(word) if word.isdigit() else _NUMBER_WORDS.get(word)
    return None if count is None else (group, count)


def _launch_count(reader: Reader, unit: Unit, raw: str) -> list[Prop]:
    """A whole launch in backticks and the count of busy GPUs the text gives it,
    at the width the sentence names (if any)."""
    busy = next(iter(_BUSY.finditer(raw)), None)
    if busy is not None and _HOLDS_ONE_MODEL.search(raw) and \
            re.match(r"fill|occup|use", busy.group(0), re.I):
        return []  # "… fills all four GPUs with one model": memory, not busy work
    if busy is None:
        return _fills_the_width(reader, unit, raw)
    spans = [span for span in _launches_in(unit, raw) if raw.index(span) < busy.start()]
    counted = _busy_number(busy)
    if len(set(spans)) > 1:
        # "…, `srun --ntasks=1 torchrun …` counts as 8, and a bare `srun python x.py`
        # is one task": the launch the count follows right after
        at, nearest = max((raw.rindex(span, 0, busy.start()), span) for span in spans)
        gap = raw[at + len(nearest):busy.start()]
        spans = [nearest] if re.fullmatch(r"[\s`*_)]*(?:\w+\s*){0,2}", gap) else spans
    found = _launch_before(reader, unit, raw, spans)
    if found is None or counted is None:
        return []
    launch, since = found
    group, count = counted
    width = _CASE_WIDTH.search(raw)
    at, end = reader.s.start + busy.start(group), reader.s.start + busy.end(group)
    if raw[:busy.start(group)].lower().endswith("all "):
        at -= 4  # ("fills all four GPUs" is mended to "fills 1 GPU")
    if group == busy.re.groups:  # a count of processes
        if _MAY_RUN.search(raw, 0, busy.start()):
            return []  # "(it can silently run one process)": what it may do
        # "not parallel work: one process": the count itself is not denied
        negated = bool(re.search(r"\b(?:not|never)\s+(?:just\s+|only\s+)?$",
                                 raw[:busy.start(group)], re.I))
    else:
        negated = reader.negated_before(at, since=since)
    return [Prop("busy", (launch, count, int(width.group(1)) if width else None), negated,
                 at, end, "parallel work", ((at, end, ""),))]


def _launch_before(reader: Reader, unit: Unit, raw: str, spans: list[str]
                   ) -> tuple[str, int | None] | None:
    """The launch a claim in `raw` is about, and where the claim's clause may
    start looking for a negation: the one launch `spans` names before the claim
    (its clause starts after it), else the launch of the code block right above
    (see `_pointed_launch`; its claim's own clause)."""
    if len(set(spans)) == 1:
        return spans[0], reader.s.start + raw.index(spans[0]) + len(spans[0])
    pointed = "" if spans else _pointed_launch(reader, unit, raw)
    return (pointed, None) if pointed else None


# every GPU of the phase busy, with no count written: "fills the machine", "one
# process per visible GPU"
_FILLS_ALL = re.compile(r"\b(?:fills?|filling|saturates?)\s+(?:up\s+)?"
                        r"(?:the\s+(?:whole\s+|entire\s+)?(?:machine|node|box|vm|allocation)|"
                        r"(?:all|every)\s+(?:of\s+)?(?:the\s+|its\s+)?gpus?|"
                        r"whatever\s+width\b|(?:any|every)\s+width\b|"
                        # "fills a width-4 phase"
                        r"(?:an?|the|its)\s+width[- ]\d{1,2}\s+(?:phase|machine|node))\b|"
                        r"\bkeeps?\s+(?:an?|the|its)\s+width[- ]\d{1,2}\s+(?:phase|machine|node)\s+"
                        r"(?:fully\s+)?busy\b|"
                        # "one process per visible GPU": as many as the machine has
                        r"\bone\s+(?:worker\s+)?process\s+(?:per|for\s+each|on\s+each)\s+"
                        r"(?:visible|available)\s+gpu\b", re.I)


_ANY_WIDTH_FILLED = re.compile(r"\b(?:whatever|any|every|each)\s+width\b", re.I)


# GPUs filled by one model split over them: their memory, not parallel work
_HOLDS_ONE_MODEL = re.compile(r"\b(?:one|a\s+single|the\s+same|the)\s+model\b|\bmodel\s+"
                              r"(?:is\s+)?(?:split|spread|sharded)|\bspread(?:s|ing)?\s+(?:the\s+|one\s+)?"
                              r"(?:model|weights|layers)\b", re.I)
# a sentence that points back at the code block above it: "this runs …", "Reviewer
# note: the loop above …", "That command fills …"
_POINTER = re.compile(r"[\s*_]*(?:[A-Z][\w ]{0,24}:\s+)?(?:(?:count|treat|call|read|mark)\s+)?"
                      r"(?:this|that|it|the\s+(?:loop|command|"
                      r"launch|line|script|snippet|invocation|one)(?:\s+above)?|"
                      r"(?:this|that)\s+(?:loop|command|launch|line|script|snippet|invocation))\b",
                      re.I)


def _pointed_launch(reader: Reader, unit: Unit, raw: str) -> str:
    """The launch of the code block right above, when the sentence opens its
    paragraph by pointing back at it and writes no launch of its own."""
    if not reader.fence_before or reader.s.start != 0 or _CODE_SPAN.search(raw) or not (
            _POINTER.match(raw) or re.match(r"[a-z]", raw)):
        # (a paragraph that starts in lower case goes on with the sentence the block
        # interrupted: "a launch that exposes all the devices, e.g. [block] keeps a
        # width-4 phase busy")
        return ""
    return reader.fence_before


def _fills_the_width(reader: Reader, unit: Unit, raw: str) -> list[Prop]:
    """'`torchrun train.py` … on a width-4 phase it already fills the machine':
    the launch said to keep every GPU of the width the sentence names busy."""
    fills = _FILLS_ALL.search(raw)
    if fills is None or _MAY_RUN.search(raw, 0, fills.start()) or re.search(
            r"\bcount(?:s|ed)?\b", raw, re.I) or _HOLDS_ONE_MODEL.search(raw):
        # ("… spreads over all four GPUs, so the critic counts it as one": the text
        # sets what the GPUs hold against the count)
        return []
    width = _CASE_WIDTH.search(raw)
    # "… fills whatever width the phase declares": every width, so the widest too
    count = int(width.group(1)) if width else max(reader.facts.widths) \
        if _ANY_WIDTH_FILLED.search(raw, fills.start()) else None
    if count is None:
        return []
    found = _launch_before(reader, unit, raw, [
        span for span in _launches_in(unit, raw) if raw.index(span) < fills.start()])
    if found is None:
        return []
    launch, since = found
    at, end = reader.s.start + fills.start(), reader.s.start + fills.end()
    # (no mend: the text names no count to change)
    return [Prop("busy", (launch, count, count), reader.negated_before(at, since=since), at, end,
                 "parallel work")]


# a modal before a count of processes: "it can silently run one process"
_MAY_RUN = re.compile(r"\b(?:can|could|may|might)\s+(?:\w+\s+){0,2}$", re.I)
_MAPS_TO = re.compile(r"\s*(?:→|->|=>|:)\s*(\d{1,2})\b(?!\s*(?:h\b|hours?|gpu[- ]?h|%|x\b|×))",
                      re.I)


def _counted_item(reader: Reader, raw: str) -> list[Prop]:
    """'Counting busy GPUs:' over '- `device_map="auto"` over 4 GPUs → 4': a count
    of more than one GPU says the launch is parallel work, one says it is not."""
    if not re.search(r"\bbusy\b", f"{reader.list_lead} {reader.table_header}", re.I):
        return []
    s = reader.s
    launcher = next((t for t in s.tokens if t.kind == "launcher"), None)
    if launcher is None:
        return []
    count = next((m for m in _MAPS_TO.finditer(raw, launcher.end - s.start)), None)
    if count is None:
        return []
    return [Prop("parallel", (launcher.value, written(reader.unit_text, launcher)),
                 int(count.group(1)) <= 1, launcher.start, launcher.end, "parallel work")]


def _clause_end(reader: Reader, start: int) -> int:
    """Where the clause that runs on from `start` ends (a comma, semicolon or
    colon, or the sentence's end)."""
    m = re.search(r"[,;:]", reader.unit_text[start:reader.s.end])
    return start + m.start() if m else reader.s.end


def written(text: str, token) -> str:
    """A launcher as the text writes it ('accelerate launch'), for messages."""
    return " ".join(text[token.start:token.end].split()).strip("`*_ ")


def _narrow_rule(reader: Reader) -> str:
    # The rule that the widening threshold belongs to: the one whose summary says so.
    from critics.rules import RULES

    for rule in RULES:
        if "widen" in rule.summary or "narrow" in rule.name:
            return rule.name
    return ""


def _judges_serial(rule: str) -> bool:
    """The deny rule about launches that do not run in parallel (by its summary)."""
    from critics.rules import RULES

    return any(r.name == rule and "parallel" in r.summary and "fewer" not in r.summary
               for r in RULES)


def _cue_offsets(reader: Reader, key: str, skip_launchers: bool) -> list[int]:
    """Unit offsets of the critic's `key` cue words in the sentence; a cue
    inside a launcher's own name ("--tensor-parallel-size") can be skipped."""
    regex = reader.lexicon.critic_cues(key)
    if regex is None:
        return []
    spans = [(t.start, t.end) for t in reader.s.tokens if t.kind == "launcher"] \
        if skip_launchers else []
    found = (reader.s.start + f.start() for f in regex.finditer(reader.s.text))
    return [at for at in found if not any(a <= at < b for a, b in spans)]


_PARALLEL_LEAD = re.compile(r"(?:\bcounts?\s+as|\bcounted\s+as|\btreated\s+as|\bread\s+as|"
                            r"\bare|\bis|^\W*)\s*(?:\w+\s+)?parallel(?:\s+work)?\s*(?:\([^)]*\))?"
                            r"(?:\s+(?:for|to|by)\s+the\s+critic)?\s*:\s*$", re.I)
# "a width-1 phase below it is fine", "… with no shardable axis is fine": a case the
# rule lets through
_BELOW_IT = re.compile(r"\b(?:below|under|less\s+than)\s+(?:it|that|the\s+(?:threshold|bar|line|"
                       r"cut-?off))\b[^.;]{0,90}?\b(?:is|are)\s+(?:\w+\s+)?(?:fine|ok(?:ay)?|"
                       r"approved)\b", re.I)
_RATHER_THAN = re.compile(r"\b(?:rather\s+than|instead\s+of)\b[^,;.:]*$", re.I)
_OTHER_CONDITIONS_NAMED = re.compile(r"\baxis|\bshard|\bwidth|\bno\b|\bnot\b", re.I)
_BELOW_THE_THRESHOLD = re.compile(r"\b(?:below|under|beneath|less\s+than)[\s_-]+(?:the\s+|its\s+)?"
                                  r"(?:widen(?:ing)?[\s_-]+)?threshold\b", re.I)
_A_WIDTH_PHASE = re.compile(r"\b(?:an?|any|the|that|this)\s+width[- ]\d{1,2}\s+phases?\b", re.I)
# "looks parallel but isn't": the appearance, then its denial
_LOOKS = re.compile(r"\b(?:looks?|seems?|appears?|sounds?)\b(?:\s+like)?", re.I)
# ("but isn't" is "is" + "n't")
_BUT_ISNT = re.compile(r"[\w-]*(?:\s+(?:work|enough))?\W{0,3}\s*but\s+(?:it\s+|they\s+)?"
                       r"(?:is|are|does|do)\s*(?:not|n['’]t)\b", re.I)
_BUT_NOT = re.compile(r"\bbut\s+(?:\w+\s+){0,2}?(?:is|are|does|do)\s*(?:not|n['’]t)\b", re.I)


def _first_match(reader: Reader, key: str, after: int) -> int:
    later = [at for at in _cue_offsets(reader, key, False) if at >= after]
    return later[0] if later else -1


def _parallel_claim(reader: Reader, after: int = 0) -> int:
    """Offset of the 'is parallel work' cue in the sentence (the first one
    after `after`, else the last before it), or -1."""
    # ("… splits one model rather than running work in parallel": what it is not)
    found = [f for f in _cue_offsets(reader, "parallel_words", True)
             if not _RATHER_THAN.search(reader.text(max(reader.s.start, f - 60), f))]
    later = [f for f in found if f >= after]
    return later[0] if later else (found[-1] if found else -1)


# The axis and the work joined by "or": either condition would be enough
_OR = r"\bor\b(?!\s+(?:more|less|larger|greater|bigger|higher|above|below|fewer|up|so|not)\b)"
_EITHER_CONDITION = re.compile(
    rf"\beither\b[^.;]{{0,80}}?\b(?:axis|shards?)\b[^.;]{{0,60}}?{_OR}[^.;]{{0,60}}?gpu[- ]?h|"
    rf"\beither\b[^.;]{{0,80}}?gpu[- ]?h[^.;]{{0,60}}?{_OR}[^.;]{{0,60}}?\b(?:axis|shards?)\b|"
    rf"\b(?:axis|shards?)\b[^.;]{{0,60}}?[,*_\s]{_OR}[*_]*\s+(?:if\s+)?[^.;]{{0,40}}?gpu[- ]?h|"
    rf"\bgpu[- ]?h[^.;]{{0,60}}?[,*_\s]{_OR}[*_]*\s+(?:if\s+)?[^.;]{{0,40}}?\b(?:axis|shards?)\b|"
    r"\beither\s+(?:condition|one)\s+(?:is\s+enough|suffices|will\s+do)", re.I)
_EITHER_FAILS = re.compile(r"\b(?:either|any|one)\s+(?:of\s+the\s+)?(?:conditions?|one|"
                           r"of\s+them)\s+(?:fails|is\s+(?:missing|not\s+met|false)|does\s*n[o'’]t\s+hold)",
                           re.I)
_NUMBER_WORDS = {"one": 1, "a single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "eight": 8, "ten": 10, "sixteen": 16}
# a threshold written as exclusive: the amount it names is let through
_STRICTLY_ABOVE = re.compile(
    r"(?:\bstrictly\s+(?:above|over|greater\s+than|more\s+than)|"
    # ("is only worth widening once it's *over* 1.0 GPU-hour")
    r"\bonly\s+(?:[\w'’-]+\s+){0,5}?(?:strictly\s+)?[*_`]*"
    r"(?:above|over|more\s+than|greater\s+than|exceed(?:s|ing)?)[*_`]*|"
    r"\b(?:has|have|needs?)\s+to\s+(?:be|go|get)\s+(?:strictly\s+)?(?:above|over|past|beyond)|"
    r"\bneeds?\s+(?:strictly\s+)?more\s+than)[\s*_`]*(?:the\s+)?(?:\d|$)", re.I)
_MINIMUM_CUE = re.compile(r"\bat\s+least\b|or\s+more|>=|≥|\+", re.I)
_N = r"(\d+|two|three|four|five|six|eight|ten|sixteen)\b"
# (not past an arrow: "… a shardable axis → REVISE (needs >=1 to trip)" bounds the
# amount of work)
_AXIS = re.compile(rf"(?:axis|shards?)(?:(?!→|->|=>)\D){{0,40}}?(?:at\s+least|>=|≥|of\s+size|"
                   rf"size\s*[:=]?)\s*{_N}"
                   # ("an axis and at least 1.0 GPU-hours" is the work's amount)
                   r"(?![.\d]*\s*(?:gpu|h\b|hours?\b))|"
                   rf"{_N}\s*\+?\s*(?:or\s+more\s+)?(?:shards?|items|entries|elements|prompts|"
                   r"values)\b(?:\s+or\s+more)?|"
                   rf"size\s*(?:of\s*)?{_N}\s*(?:or\s+more|\+)|"
                   # "more than two shards": a strict bound, one more is the minimum
                   # ("evals over 6 prompts" spreads the work over them)
                   rf"(?:more\s+than|greater\s+than)\s*[*_`]*{_N}[*_`]*\s*"
                   r"(?:shards?|pieces|items|entries|elements|prompts|values)\b", re.I)


# "a width-2 phase … is (also) REVISEd as": the phase's width, then the verdict on it
_WIDTH_PHASE_REVISED = re.compile(r"\b(?:an?|any|every|each)\s+width[- ](\d{1,2})\s+phases?\b"
                                  r"[^.;:]*?\b(?:is|are|gets?)\s+(?:also\s+|still\s+)?"
                                  r"(?:REVISEd|revised|flagged|caught)\s+(?:as|by|for)\s+[`*_]*$",
                                  re.I)


def _axis_minimum(text: str) -> re.Match[str] | None:
    """The axis size written as a minimum ("an axis of at least 2"), before one
    written as a case ("when the axis has size 1 — … at least 2")."""
    found = list(_AXIS.finditer(text))
    return next((m for m in found if _MINIMUM_CUE.search(m.group(0))), found[0] if found else None)


def _narrow_conditions(reader: Reader, rule) -> list[Prop]:
    """needlessly-narrow's other conditions: width 1, and an axis of at least
    MIN_SHARDS_TO_WIDEN shards."""
    from lint.reading import terms

    s = reader.s
    out = []
    text = reader.unit_text[rule.end:s.end]
    if re.search(r"\b(?:fires?|applies|flags?|triggers?|REVISEs?|catches)\b", s.text, re.I):
        # ("REVISE (needlessly-narrow): 6.0 h → 0.8 h at width 8": a width past an
        # arrow is where the phase would go, not where the rule fires)
        # ("…, suggestion width 2": the width the critic proposes, not where it fires)
        widths = [t for t in terms(s) if t.term[0] == "width" and t.start > rule.end and
                  not re.search(r"→|->|=>|\bsuggest\w*\s+(?:\w+\s+)?$|\bwiden\w*\s+to\s+$",
                                reader.text(rule.end, t.start), re.I)]
        listed = widths[:1]
        for prev, t in itertools.pairwise(widths):
            # "fires at width 1 or 2": each width of the list
            if not re.fullmatch(r"\s*(?:,|/|or|and|,\s*or|,\s*and)\s*(?:at\s+)?(?:width\s+)?",
                                reader.text(prev.end, t.start), re.I):
                break
            listed.append(t)
        spans = [(t.term[1], t.start, t.end) for t in listed]
        if listed:
            # "width 1 or 2": a bare number after "width N" is a width too
            more = _MORE_WIDTHS.match(reader.unit_text, listed[-1].end, s.end)
            if more:
                start = more.start(1)
                spans.append((int(more.group(1)), start, start + len(more.group(1))))
        for width, start, end in spans:
            out.append(Prop("narrow-width", (width,), reader.negated_before(listed[0].start),
                            start, end, "widening threshold"))
    named_at = getattr(rule, "start", None)  # (a rule described, not named, has no place)
    subject = None if out or named_at is None else _WIDTH_PHASE_REVISED.search(
        reader.text(s.start, named_at))
    if subject:
        # "a width-2 phase over an 8-way axis … is also REVISEd as needlessly-narrow":
        # the rule fires at that width
        start = s.start + subject.start(1)
        out.append(Prop("narrow-width", (int(subject.group(1)),), reader.negated_before(
            s.start + subject.end()), start, start + len(subject.group(1)),
            "widening threshold"))
    optional = _AXIS_OPTIONAL.search(text)
    if optional:
        # "… whether or not it declares a shardable axis": no axis needed at all
        start = rule.end + optional.start()
        out.append(Prop("axis-min", (0,), False, start, rule.end + optional.end(),
                        "widening threshold"))
        return out
    base = rule.end
    m = _axis_minimum(text)
    if m is None and rule.end > s.start:
        # "The shardable axis needs 4 or more shards before needlessly-narrow
        # applies": the condition is the sentence's subject
        base = s.start
        text = reader.text(s.start, rule.start)
        m = _axis_minimum(text)
    # ("any declared axis, even one with size: 1, …": the smallest size that counts)
    if m and (m.group(4) or re.search(r"\bonly\b|\bat\s+least\b|or\s+more|>=|≥|\bfrom\b|"
                                      r"\bneeds?\b|\brequires?\b|\beven\s+(?:one|an?\s+(?:shardable\s+)?"
                                      r"axis)\s+(?:with|of)\s+(?:size|length)\b", text, re.I)):
        group = next(i for i in (1, 2, 3, 4) if m.group(i))
        start = base + m.start(group)
        value = m.group(group)
        number = int(value) if value.isdigit() else _NUMBER_WORDS[value.lower()]
        out.append(Prop("axis-min", (number + (group == 4),), False, start,
                        start + len(m.group(group)), "widening threshold",
                        ((start, start + len(m.group(group)), ""),)))
    return out


# "Verdicts: APPROVE, REVISE, REJECT", "The critic has three verdicts: …"
_VERDICT_LIST = re.compile(r"\bverdicts?\b[^.;]{0,30}?(?:[:=—–]|\bare\b|\binclude\b)\s*"
                           r"(?P<names>`?(?-i:(?!VERDICT)[A-Z]{4,})`?(?:\s*(?:,|/|\||\band\b|"
                           r"\bor\b)\s*`?(?-i:(?!VERDICT)[A-Z]{4,})`?)+)", re.I)
_VERDICT_COUNT = re.compile(r"\b(?P<n>one|two|three|four|five|[1-5])\s+"
                            r"(?:possible\s+|different\s+)?verdicts\b", re.I)


def _verdict_set(reader: Reader) -> list[Prop]:
    """The critic's verdicts, listed or counted: 'Verdicts: APPROVE, REVISE,
    REJECT' names one the critic never gives."""
    s = reader.s
    listed = _VERDICT_LIST.search(s.text)
    if listed:
        names = tuple(dict.fromkeys(re.findall(r"[A-Z]{4,}", listed["names"])))
        at = s.start + listed.start("names")
        return [Prop("verdict-set", names, reader.negated_before(at), at,
                     s.start + listed.end("names"), "critic verdict")]
    counted = _VERDICT_COUNT.search(s.text)
    if counted:
        word = counted["n"].lower()
        n = int(word) if word.isdigit() else _NUMBER_WORDS.get(word, 0)
        at = s.start + counted.start("n")
        return [Prop("verdict-set", (n,), reader.negated_before(at), at,
                     s.start + counted.end("n"), "critic verdict")]
    return []


def _only_these(reader: Reader, named: list) -> list[Prop]:
    """'Only torchrun and deepspeed count as parallel': every other launcher the
    critic counts is denied; the first one the lexicon lists is the claim."""
    written_names = [written(reader.unit_text, t) for t in named if t.value == "parallel"]
    if not written_names:
        return []
    listed = reader.text(named[0].start, reader.s.end)
    for pattern in reader.lexicon.data["critic"]["launchers"].get("parallel", []):
        if not _PLAIN_PATTERN.fullmatch(pattern):
            continue  # a name, not a pattern, is what a message can show
        other = pattern.replace("\\s+", " ")
        # ("torchrun / accelerate / deepspeed": "accelerate" names `accelerate launch`)
        if any(re.fullmatch(pattern, name, re.I) for name in written_names) or re.search(
                rf"(?<![\w-]){re.escape(other.split()[0])}(?![\w-])", listed, re.I):
            continue
        return [Prop("parallel", ("parallel", other), True, named[0].start, named[-1].end,
                     "parallel work")]
    return []
