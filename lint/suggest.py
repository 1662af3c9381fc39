"""Corrected sentences for wrong claims, checked by the engine that found them.

A claim carried by one value ("lead with FLEX_START", "under 6 h") is fixed
in place: the value is replaced in the writer's own sentence. Otherwise the
fix is a canonical sentence rendered from the fact model. Either way the
suggestion is re-read before it is offered: a suggestion the lint would flag
is never printed.
"""

from __future__ import annotations

import itertools
import re

from lint.facts import Facts
from lint.propositions import Prop, Verdict, a_or_an, family_lead, judge


def canonical(p: Prop, facts: Facts) -> str:
    kind = p.kind
    if kind in ("preceded-by", "position", "backend-count"):
        labels = [facts.backend_label(b) for b in facts.backends]
        return f"The ladder walks {' → '.join(labels)} (GCP widths {facts.width_label()})."
    if kind in ("first-lane", "last-lane", "position-lane", "lane-count"):
        return f"The SLURM lanes are tried in order: {' → '.join(facts.lanes())}."
    if kind in ("family-max", "width-families"):
        return "; ".join(f"`{facts.family_label(f.name)}` runs at widths "
                         f"{', '.join(map(str, f.widths))}"
                         for f in facts.config.families.values()) + "."
    if kind == "family-widths":
        family = facts.config.families[p.args[0]]
        return f"`{facts.family_label(family.name)}` runs at widths " \
            f"{', '.join(map(str, family.widths))}."
    if kind == "first" and len(p.args) == 2:  # first for a job that asks for that width
        first = facts.families_in_order()[0]
        return f"For a {p.args[1]}× job, `{facts.family_label(first)}` goes first."
    if kind == "first" and p.args[0][0] == "rung":
        first = facts.families_in_order()[0]
        return (f"At each width `{facts.family_label(first)}` goes first: on "
                f"{facts.short_order[0]} for a short job, on {facts.long_order[0]} for a long "
                "one.")
    if kind == "last" and len(p.args) == 2:  # the last width of one intent's walk
        return f"For `{p.args[1]}`, GCP widths go down to {facts.min_width(p.args[1])}×."
    if kind in ("order", "first", "last", "skip", "tried", "dynamic"):
        kinds = {a[0] for a in p.args}
        if kinds <= {"lane"}:
            return f"The SLURM lanes are tried in order: {' → '.join(facts.lanes())}."
        if kinds == {"lane", "backend"}:
            labels = [facts.backend_label(b) for b in facts.backends]
            return (f"The SLURM lanes are tried in order ({' → '.join(facts.lanes())}), and "
                    f"the ladder walks {' → '.join(labels)}.")
        if kinds <= {"width"}:
            return f"GCP widths degrade {facts.width_label()} on capacity misses."
        if kinds <= {"family", "rung"} and (
                (kind == "order" and p.args[0][1][0] != p.args[1][1][0]) or
                (kind == "first" and family_lead(p.args, facts))):
            labels = [f"`{facts.family_label(f)}`" for f in facts.families_in_order()]
            return f"At one width, {' rungs come before '.join(labels)} rungs."
        labels = [facts.backend_label(b) for b in facts.backends]
        return f"The ladder walks {' → '.join(labels)} (GCP widths {facts.width_label()})."
    if kind in ("lane-partition", "lane-max-width", "lane-wait"):
        lane = facts.config.slurm_lanes[p.args[0]]
        return (f"`{lane.name}`: partition `{lane.partition}`, up to {lane.max_width} GPUs, "
                f"waits {lane.max_wait_minutes:g} min.")
    if kind in ("machine-type", "gpu-memory"):
        return "The GCP families are " + ", ".join(
            f"`{f.machine_type_template}` ({f.gpu})"
            for f in facts.config.families.values()) + "."
    if kind == "family-block":
        families = " then ".join(f"`{facts.family_label(f)}`" for f in facts.families_in_order())
        return (f"At one width the rungs go model by model: {' → '.join(facts.short_order)} "
                f"for a short job, each on {families} where offered.")
    if kind == "model-major":
        return (f"The router walks width by width ({facts.width_label()}): at each width it "
                f"tries every provisioning model the job's length allows "
                f"({' → '.join(facts.short_order)} for a short job), then narrows.")
    if kind == "family-major":
        labels = [f"`{facts.family_label(f)}`" for f in facts.families_in_order()]
        return (f"At each width, {' rungs come before '.join(labels)} rungs; then the next "
                f"width.")
    if kind in ("permits", "only"):
        family = p.args[0]
        allowed = facts.provisioning(family)
        return f"`{facts.family_label(family)}` is {'/'.join(allowed)}-only."
    if kind in ("lead", "class-order", "class-next", "class-last", "class-offers"):
        cls = p.args[0]
        return f"{cls.capitalize()} jobs: {' → '.join(facts.class_order(cls))}."
    if kind == "lead-at":
        return (f"Short jobs (under {facts.threshold:g} h at their width): "
                f"{' → '.join(facts.short_order)}.")
    if kind in ("threshold", "subset", "threshold-unit"):
        return f"A job is short below {facts.threshold:g} h at its width."
    if kind in ("flex-max", "flex-for"):
        return (f"FLEX_START runs at most {facts.flex_max:g} h "
                f"({facts.flex_max / 24:g} days).")
    if kind == "runpod-gpu-type":
        return "RunPod GPU types: " + ", ".join(
            f"`{t}`" for t in facts.config.runpod_gpu_types) + "."
    if kind == "tail-width":
        return "The SLURM and RunPod rungs ask for the intent's minimum width."
    if kind in ("min-width", "reach"):
        intent = p.args[0]
        return f"{intent} has minimum width {facts.min_width(intent)}×."
    if kind in ("width", "direction"):
        return f"GCP widths degrade {facts.width_label()} on capacity misses."
    if kind == "request-first":
        chain = tuple(w for w in facts.width_chain() if w <= p.args[0])
        return f"A width-{p.args[0]} request walks {facts.width_label(chain)} on GCP."
    if kind in ("in-auto", "max-width"):
        return f"The {facts.widest}× rungs are part of the auto ladder."
    if kind == "consequence":
        hours, width, at = p.args[:3]
        length = hours * width / at
        models = facts.models_at(length, at if at in facts.widths else None)
        cls = "short" if facts.is_short(length) else "long"
        job = a_or_an(f"{hours:g} h").capitalize()
        return (f"{job} job at {width}× runs {length:g} h at {at}×, so it is {cls} there and "
                f"leads with {models[0]}.")
    if kind == "verdict":
        from lint.propositions import facts_critic

        rule = p.args[0]
        if facts_critic(facts).get(rule) == "error":
            return f"{rule}: the critic REVISEs the plan."
        return f"{rule}: a warning only; the verdict does not change."
    if kind == "verdict-set":
        from critics.rules import VERDICTS

        return f"The critic's verdicts are {' and '.join(VERDICTS)}."
    if kind in ("narrow-width", "axis-min"):
        from critics.rules import MIN_SHARDS_TO_WIDEN

        return (f"needlessly-narrow judges width-1 phases whose shardable axis has at least "
                f"{MIN_SHARDS_TO_WIDEN} shards.")
    if kind == "narrow-any":
        from critics.rules import DEFAULT_WIDEN_THRESHOLD, MIN_SHARDS_TO_WIDEN

        return (f"needlessly-narrow needs both a shardable axis of at least "
                f"{MIN_SHARDS_TO_WIDEN} shards and at least {DEFAULT_WIDEN_THRESHOLD:g} "
                f"GPU-hour of work.")
    if kind in ("critic-threshold", "narrow-at"):
        from critics.rules import DEFAULT_WIDEN_THRESHOLD

        return f"needlessly-narrow needs at least {DEFAULT_WIDEN_THRESHOLD:g} GPU-hour of work."
    if kind == "parallel":
        if p.args[0] == "parallel":
            return "The critic counts torchrun, accelerate, deepspeed, xargs -P and " \
                   "--num-shards launches as parallel work."
        if p.args[0] == "single":
            return f"`{p.args[1]}` is one process, not parallel work."
        if p.args[0] == "serial":
            return "A loop that does not background its workers with & is not parallel work."
        return "Model splitting (device_map=auto) is not parallel work."
    return ""


def suggestion(engine, sentence: str, p: Prop, verdict: Verdict, offset: int,
               critic: bool) -> str:
    """A corrected sentence the engine reads as true. `offset` is where the
    sentence starts in the unit text (fix spans are unit offsets)."""
    candidates = []
    if verdict.fix:
        text = sentence
        for start, end, value in sorted(verdict.fix, reverse=True):
            s, e = start - offset, end - offset
            if 0 <= s <= e <= len(text) and value:
                text = text[:s] + value + text[e:]
        if text != sentence:
            # one line: the sentence may have run across lines of its paragraph
            text = " ".join(text.split())
            # a number put in place agrees with its noun: "at least 2 GPUs", "1 GPU"
            text = re.sub(r"\b(1)\s+GPUs\b", r"\1 GPU", text)
            text = re.sub(r"\b([02-9]|\d{2,})\s+GPU\b(?!-)", r"\1 GPUs", text)
            candidates.append(text)
    candidates.append(canonical(p, engine.facts))
    for candidate in candidates:
        if candidate and not _contrasts_itself(engine, candidate) and \
                reads_true(engine, candidate, critic):
            return candidate
    return ""


def data_suggestion(engine, unit, verdict: Verdict, critic: bool) -> str:
    """The fix of a fence's `key: value` line, in the line's own form: the
    verdict's values put in place in the file's text (the engine read a spoken
    form of it, `flex start: max hours: 336`, of the same length past its
    context). Empty when there is no such fix or it does not read true."""
    raw, spoken = unit.raw, unit.text
    for start, end, value in sorted(verdict.fix, reverse=True):
        if not (unit.lead <= start <= end <= len(spoken)) or not value:
            return ""
        raw = raw[:start] + value + raw[end:]
        spoken = spoken[:start] + value + spoken[end:]
    if raw == unit.raw or not reads_true(engine, spoken, critic):
        return ""
    return line_fix(engine, raw[unit.lead:].strip(), critic)


def line_fix(engine, line: str, critic: bool) -> str:
    """A fence line's fix without its comment when the comment states the same
    wrong thing (`widths: [1, 2, 4, 8]   # 16x only on a3-highgpu`)."""
    comment = re.search(r"\s+#+\s*(.*)$", line)
    if comment and comment.group(1) and not (_reads_true_as_prose(engine, comment.group(1),
                                                                  critic) and
                                             _reads_true_as_prose(engine, line, critic)):
        return line[:comment.start()]
    return line


def _reads_true_as_prose(engine, text: str, critic: bool) -> bool:
    """The whole engine's reading of `text` as a one-line document (a comment can
    state a width or a list the sentence reader alone does not judge)."""
    from lint.document import parse

    doc = parse("comment.md", text + "\n")
    return not any(r.drifts() for r in engine.analyze(doc, set(), critic))


def _contrasts_itself(engine, text: str) -> bool:
    """'leads with FLEX_START, not flex-start': a fix that names one model on both
    sides of a contrast says nothing a person can use."""
    models = [t for t in engine.lexicon.tag(text) if t.kind == "model"]
    return any(a.value == b.value and _CONTRAST.fullmatch(text[a.end:b.start])
               for a, b in itertools.pairwise(models))


_CONTRAST = re.compile(r"[\s()\w-]*,\s*(?:and\s+|but\s+)?(?:not|never)\s+", re.I)


def reads_true(engine, text: str, critic: bool) -> bool:
    from lint import reading

    lexicon = engine.lexicon
    if critic:
        from lint.propositions import facts_critic

        lexicon = lexicon.with_critic(facts_critic(engine.facts))
    sentence = reading.tag_sentence(lexicon, text, 0, len(text))
    sentence.context = True
    reader = reading.Reader(sentence, text, lexicon, "", engine.facts)
    props = reader.read()
    if critic:
        from lint import critic_reading
        from lint.document import Unit

        props += critic_reading.read(reader, Unit("paragraph", 1, text, ""))
    return all(judge(q, engine.facts).holds is not False for q in props)
