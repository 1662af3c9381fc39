"""Propositions read from prose, and their check against the fact model.

A proposition is one thing a sentence asserts about the ladder: an order, a
permission, a lead model, a threshold. It carries its polarity (a negated
"never X before Y" is true when X never precedes Y) and the span of the text
it was read from. `judge` checks it against `Facts` and returns a Verdict:
true, false with what the ladder says instead, or None when the facts do not
decide it (a claim about SPOT versus FLEX_START with no job length).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lint.facts import Facts

# Orderable terms are (kind, value): ("backend", "gcp"), ("lane", "campus-a100"),
# ("family", ("a100-80gb", 8)), ("width", 8), ("model", "SPOT").
Term = tuple[str, Any]


@dataclass(frozen=True)
class Prop:
    kind: str  # order | first | last | chain | skip | permits | only | lead | class-order |
    #            class-next | class-last | threshold | subset | flex-max | min-width | reach |
    #            in-auto | lead-at | consequence | verdict | critic-threshold | parallel |
    #            phase-verdict | launch-verdict
    args: tuple[Any, ...]
    negated: bool = False
    start: int = 0  # span in the unit text, for the finding's column
    end: int = 0
    topic: str = ""  # the message's lead: "backend order", "width chain", ...
    fix_spans: tuple[tuple[int, int, str], ...] = field(default=(), compare=False)

    def describe(self) -> str:
        if self.kind == "tried":  # "campus-preempt is not on the ladder" words its own negation
            return _DESCRIBE[self.kind](self)
        if self.kind == "permits" and self.negated:  # "a100-80gb does not allow STANDARD"
            return f"{self.args[0]} does not allow {self.args[1]}"
        if self.kind == "flex-for" and self.negated:  # "a 168 h job gets no FLEX_START rung"
            return _DESCRIBE[self.kind](self).replace(" gets a FLEX_START", " gets no FLEX_START")
        return ("not " if self.negated else "") + _DESCRIBE[self.kind](self)


@dataclass(frozen=True)
class Verdict:
    holds: bool | None  # None: the facts do not decide it
    expected: str = ""  # what the ladder says, for the message
    fix: tuple[tuple[int, int, str], ...] = ()  # replacements that make the text true


def _gpu_hours(hours: float) -> str:
    return f"{hours:g} GPU-hour{'' if hours == 1 else 's'}"


def _hours_label(hours: float) -> str:
    if hours == float("inf"):
        return "no limit"
    return f"{hours:g} h ({hours / 24:g} days)" if hours >= 48 and hours % 24 == 0 else \
        f"{hours:g} h"


def a_or_an(label: str) -> str:
    """'an 8 h', 'an 11 h', 'an 18 h', 'a 2 h': the article a reader would say."""
    spoken_vowel = re.match(r"(?:8|11|18|80|800)(?!\d)", label) is not None
    return f"{'an' if spoken_vowel else 'a'} {label}"


def _term(term: Term) -> str:
    kind, value = term
    if kind == "backend":
        return Facts.backend_label(value)
    if kind == "width":
        return f"{value}×"
    if kind == "family":
        name, width = value
        return f"{name}" + (f" {width}×" if width else "")
    if kind == "rung":
        return " ".join(part if isinstance(part, str) else f"{part}×"
                        for part in value if part is not None)
    return str(value)


def _every_before_any(p: Prop) -> str:
    """A family or a provisioning model walked at every width before another."""
    return f"every {p.args[0]} rung, at all widths, before any {p.args[1]}"


_DESCRIBE = {
    "order": lambda p: f"{_term(p.args[0])} before {_term(p.args[1])}",
    "first": lambda p: f"{_term(p.args[0])} first",
    "dynamic": lambda p: f"{' and '.join(_term(t) for t in p.args)} are ordered at run time",
    "lane-partition": lambda p: f"{p.args[0]} submits to partition {p.args[1]}",
    "lane-max-width": lambda p: f"{p.args[0]} takes up to {p.args[1]} GPUs",
    "lane-wait": lambda p: f"{p.args[0]} waits {p.args[1]:g} min",
    "machine-type": lambda p: f"{p.args[0]} is a machine type on the ladder",
    "gpu-memory": lambda p: f"the ladder's {p.args[0]} has {p.args[1]} GB",
    "runpod-gpu-type": lambda p: f"RunPod asks for {p.args[0]}",
    "pod-order": lambda p: f"{p.args[0]} asks RunPod for {p.args[1]} before {p.args[2]}",
    "pod-first": lambda p: f"{p.args[0]} asks RunPod for {p.args[1]} first",
    "lane-count": lambda p: f"the ladder has {p.args[0]} SLURM lane{'s' if p.args[0] != 1 else ''}",
    "backend-count": lambda p: f"the ladder has {p.args[0]} backend{'s' if p.args[0] != 1 else ''}",
    "family-major": _every_before_any,
    "model-major": _every_before_any,
    "family-block": lambda p: (f"{'for ' + p.args[0] + ' jobs ' if p.args[0] else ''}every "
                               f"{p.args[1]} rung at a width before any {p.args[2]} rung"),
    "family-widths": lambda p: f"{p.args[0]} has widths {', '.join(map(str, p.args[1]))}",
    "family-max": lambda p: f"{p.args[0]} goes up to {p.args[1]}×",
    "width-families": lambda p: f"the {p.args[0]}× rungs are {'/'.join(p.args[1])}-only",
    "tried": lambda p: f"{_term(p.args[0])} is {'not ' if p.negated else ''}on the ladder",
    "first-lane": lambda p: f"{_term(p.args[0])} first of the SLURM lanes",
    "last-lane": lambda p: f"{_term(p.args[0])} last of the SLURM lanes",
    "last": lambda p: f"{_term(p.args[0])} last",
    "skip": lambda p: f"{_term(p.args[0])} straight to {_term(p.args[1])}" +
    "".join(f" for {i}" for i in p.args[2:]),
    "preceded-by": lambda p: f"{Facts.backend_label(p.args[0])} only after "
                             f"{' and '.join(Facts.backend_label(b) for b in p.args[1])}",
    "position-lane": lambda p: f"{p.args[0]} is SLURM lane number {p.args[1]}",
    "position": lambda p: f"{Facts.backend_label(p.args[0])} in position {p.args[1]}",
    "permits": lambda p: f"{p.args[0]} allows {p.args[1]}",
    "only": lambda p: f"{p.args[0]} is {'/'.join(p.args[1])}-only",
    "lead": lambda p: f"{p.args[0]} jobs lead with {p.args[1]}",
    "class-order": lambda p: f"{p.args[0]} jobs {' → '.join(p.args[1])}",
    "class-next": lambda p: f"{p.args[0]} jobs {p.args[1]} straight to {p.args[2]}",
    "class-last": lambda p: f"{p.args[0]} jobs end with {p.args[1]}",
    "class-offers": lambda p: f"{p.args[0]} jobs may use {p.args[1]}",
    "threshold": lambda p: f"short means under {p.args[0]:g} h",
    "threshold-unit": lambda p: "the length class is counted in GPU-hours",
    "subset": lambda p: f"jobs {p.args[0]} {p.args[1]:g} h are {p.args[2]}",
    "flex-max": lambda p: "FLEX_START has no maximum run" if p.args[0] == float("inf") else
                f"FLEX_START runs at most {_hours_label(p.args[0])}",
    "flex-for": lambda p: (f"a job longer than {_hours_label(p.args[0])} gets a FLEX_START rung"
                           if p.args[1:] == ("over",) else
                           f"{a_or_an(_hours_label(p.args[0]))} job gets a FLEX_START rung"),
    "min-width": lambda p: f"{p.args[0]} has minimum width {p.args[1]}",
    "tail-width": lambda p: ("the rungs after GCP ask for "
                             + ("the requested width" if p.args[1] == "requested"
                                else f"{p.args[1]} GPU" + ("s" if p.args[1] != 1 else ""))
                             + (f" for {p.args[0]}" if p.args[0] else "")),
    "reach": lambda p: f"{p.args[0]} can run at {p.args[1]}×",
    "floor": lambda p: f"no request goes below {p.args[0]}×",
    "in-auto": lambda p: f"{p.args[0]}× rungs are in the auto ladder",
    "request-first": lambda p: f"a width-{p.args[0]} request starts at {p.args[1]}×",
    "width": lambda p: f"{a_or_an(str(p.args[0]))}× width",
    "direction": lambda p: {"up": "a miss widens the request",
                            "down": "a miss narrows the request",
                            "by-one": "widths drop one GPU at a time"}[p.args[0]],
    "max-width": lambda p: f"the auto ladder goes up to {p.args[0]}×",
    "lead-at": lambda p: f"a job {p.args[0]} {p.args[1]:g} h leads with {p.args[2]}",
    "consequence": lambda p: f"{a_or_an(f'{p.args[0]:g} h')} job at {p.args[1]}× run at "
                             f"{p.args[2]}× {p.args[3]} {p.args[4]}",
    "scaling": lambda p: {"length-fixed": "a job's length stays the same at every width",
                          "class-fixed": "the length class is decided once, at the requested width",
                          "degraded-long": "every degraded width is treated as long",
                          "same-direction": "a job's length moves with its width"}[p.args[0]],
    "verdict": lambda p: f"the critic's verdict on {p.args[0]} is {p.args[1]}",
    "verdict-set": lambda p: (f"the critic has {p.args[0]} verdicts" if isinstance(p.args[0], int)
                              else f"the critic's verdicts are {', '.join(p.args)}"),
    "critic-threshold": lambda p: f"needlessly-narrow from {p.args[0]:g} GPU-hours",
    "narrow-at": lambda p: (f"a phase of {'under ' if p.args[1:] else ''}{p.args[0]:g} "
                           "GPU-hours is needlessly narrow"),
    "parallel": lambda p: f"{p.args[-1]} is parallel work",  # as written, else its class
    "busy": lambda p: f"{p.args[0]} keeps {p.args[1]} GPU{'s' if p.args[1] != 1 else ''} busy",
    "launch-verdict": lambda p: (f"{p.args[4]} fires on `{p.args[1]}` at width {p.args[0]}"
                                 if p.args[4] else f"the critic answers {p.args[3]} for "
                                 f"`{p.args[1]}` at width {p.args[0]}"),
    "phase-verdict": lambda p: (f"a width-1 phase of {_gpu_hours(p.args[0])} with an axis of "
                                f"{p.args[1]} gets {p.args[2]}"),
    "rung-order": lambda p: (f"{'for ' + p.args[0] + ' jobs ' if p.args[0] else ''}"
                             f"{_term(p.args[1])} before {_term(p.args[2])} at one width"),
    "narrow-any": lambda p: "needlessly-narrow fires on either condition (axis or work)",
    "narrow-width": lambda p: f"needlessly-narrow fires at width {p.args[0]}",
    "axis-min": lambda p: f"needlessly-narrow needs {p.args[0]} shards",
}


# ---- ordering ------------------------------------------------------------------------------

def _stage(term: Term) -> str | None:
    kind, value = term
    if kind == "backend":
        return value
    if kind == "lane":
        return "slurm"
    if kind in ("family", "width", "rung"):
        return "gcp"
    return None


def _width(term: Term) -> int | None:
    kind, value = term
    if kind == "width":
        return value
    if kind in ("family", "rung"):
        return value[1]
    return None


def precedes(a: Term, b: Term, facts: Facts) -> bool | None:
    """Does the ladder try a before b? None when it depends or is unknown."""
    sa, sb = _stage(a), _stage(b)
    if a[0] == "model" and b[0] == "model":
        return facts.model_rank(a[1], b[1]) if a[1] != b[1] else None
    if sa is None or sb is None:
        return None
    if sa != sb:
        if sa not in facts.backends or sb not in facts.backends:
            return None
        return facts.backends.index(sa) < facts.backends.index(sb)
    if sa == "gcp":
        wa, wb = _width(a), _width(b)
        if wa and wb and wa != wb:
            return wa > wb
        fa, fb = _family_name(a), _family_name(b)
        if fa and fb and fa != fb and _model_name(a) == _model_name(b):
            # one width, one model (or none named): the family order decides
            return facts.family_rank(fa, fb)
        return None
    if a[0] == "lane" and b[0] == "lane" and a[1] != b[1]:
        return facts.lane_rank(a[1], b[1])
    return None


def _family_name(term: Term) -> str | None:
    return term[1][0] if term[0] in ("family", "rung") else None


def _model_name(term: Term) -> str | None:
    return term[1][2] if term[0] == "rung" else None


def _first_of(term: Term, facts: Facts) -> bool | None:
    kind, value = term
    if kind == "backend":
        return value == facts.backends[0]
    if kind == "lane":
        lanes = facts.lanes()
        return value == lanes[0] if lanes else None
    if kind == "width":
        return True if value == facts.widest else (False if value == facts.narrowest else None)
    if kind == "family":
        name, width = value
        if width is not None and width == facts.narrowest and width != facts.widest:
            return False
        order = facts.families_in_order()
        return name == order[0] if width in (None, facts.widest) else None
    if kind == "rung" and value[0] and value[2]:
        # "H100 spot goes first": at any width a job starts at, the first rung is
        # the first family's, on a model some length class leads with
        name, _, model = value
        leads = {facts.class_order(c)[0] for c in ("short", "long")}
        first_family = facts.families_in_order()[0]
        if model not in leads or (name != first_family and
                                  model in facts.provisioning(first_family)):
            return False
    return None


def _last_of(term: Term, facts: Facts) -> bool | None:
    kind, value = term
    if kind == "backend":
        return value == facts.backends[-1]
    if kind == "lane":
        lanes = facts.lanes()
        return value == lanes[-1] if lanes else None
    if kind in ("width", "family"):
        return False  # a GCP rung is never the last: SLURM and RunPod come after
    return None


def family_lead(terms: tuple[Term, ...], facts: Facts) -> bool:
    """One family named as the first at a width ("H100 goes first at 4×"): what
    it is wrong about is the family order, not the backends."""
    return len(terms) == 1 and terms[0][0] == "family" and \
        terms[0][1][1] in (None, facts.widest)


def _order_expected(facts: Facts, *terms: Term) -> str:
    kinds = {t[0] for t in terms}
    if kinds <= {"lane"}:
        return "SLURM lanes " + " → ".join(facts.lanes())
    if kinds <= {"width"}:
        return "widths " + facts.width_label()
    if kinds <= {"family", "rung"} and len({t[1][1] for t in terms}) == 1 and \
            (len({t[1][0] for t in terms}) > 1 or family_lead(terms, facts)):
        return "at one width " + " before ".join(facts.family_label(f)
                                                  for f in facts.families_in_order())
    if kinds == {"rung"} and len(terms) == 1:
        families = " before ".join(facts.family_label(f) for f in facts.families_in_order())
        return (f"at one width {families}; short jobs lead with {facts.short_order[0]}, long "
                f"jobs with {facts.long_order[0]}")
    if kinds <= {"model"}:
        return (f"short jobs {' → '.join(facts.short_order)}; "
                f"long jobs {' → '.join(facts.long_order)}")
    return facts.backend_chain() + f" (GCP widths {facts.width_label()})"


# ---- the judge ------------------------------------------------------------------------------

def judge(p: Prop, facts: Facts) -> Verdict:
    holds, expected, fix = _JUDGES[p.kind](p, facts)
    if holds is None:
        return Verdict(None, expected)
    if p.negated:
        holds = not holds
        fix = ()
    return Verdict(holds, expected, () if holds else fix)


def _order(p: Prop, facts: Facts):
    a, b = p.args
    if a[0] == b[0] == "width" and not {a[1], b[1]} <= set(facts.width_chain()):
        # "eight GPUs, then six": the ladder has no rung at a width it does not list
        return False, _order_expected(facts, a, b), ()
    return precedes(a, b, facts), _order_expected(facts, a, b), ()


def _skip(p: Prop, facts: Facts):
    a, b = p.args[:2]  # the text goes straight from a to b (for an intent, if named)
    intents = p.args[2:] or None
    if a[0] == b[0] == "width":
        chain = facts.width_chain()
        if a[1] in chain and b[1] in chain and chain.index(b[1]) - chain.index(a[1]) > 1:
            return False, "widths " + facts.width_label(), ()
        return None, "", ()
    if a[0] == "width" and b[0] in ("backend", "lane"):
        # "once the 8× and 4× rungs have missed, dispatch drops to the SLURM lanes":
        # a miss at a width every intent can go below moves to the next width first
        target = "slurm" if b[0] == "lane" else b[1]
        if a[1] not in facts.width_chain() or target not in facts.backends or target == "gcp":
            return None, "", ()
        floors = {facts.min_width(i) for i in (intents or facts.intents)
                  if i in facts.intents}
        if not floors:
            return None, "", ()
        expected = f"widths {facts.width_label()}, then {facts.backend_chain()}"
        if all(a[1] > floor for floor in floors):
            return False, expected, ()
        # what the planner puts right after the last rung at that width, per intent
        nexts = set()
        for intent in (intents or facts.intents):
            if intent not in facts.intents:
                continue
            rungs = facts.plan(intent, facts.widest, 0.01)
            last = max((i for i, r in enumerate(rungs) if r.backend == "gcp" and
                        r.width == a[1]), default=None)
            if last is not None and last + 1 < len(rungs):
                nexts.add(rungs[last + 1].backend)
        if nexts and target not in nexts:
            return False, expected, ()  # "a miss on the 2× rungs sends it to RunPod"
        if a[1] == min(facts.width_chain()):
            # from the narrowest width the walk leaves GCP for the next backend
            after_gcp = facts.backends[facts.backends.index("gcp") + 1:][:1]
            return target in after_gcp, expected, ()
        return None, "", ()
    if a[0] == b[0] == "family" and a[1][0] == b[1][0] and a[1][1] and b[1][1]:
        return _skip(Prop("skip", (("width", a[1][1]), ("width", b[1][1]))), facts)
    if a[0] == b[0] == "backend" and a[1] in facts.backends and b[1] in facts.backends:
        gap = facts.backends.index(b[1]) - facts.backends.index(a[1])
        return (False if gap > 1 else None), facts.backend_chain(), ()
    if a[0] == "lane" and b[0] == "backend" and b[1] != "slurm":
        # "campus-a100 first, then RunPod": another lane comes between
        lanes = facts.lanes()
        if a[1] in lanes and a[1] != lanes[-1]:
            return False, f"SLURM lanes {' → '.join(lanes)}, then " \
                f"{facts.backend_label(facts.backends[-1])}", ()
    return None, "", ()


def _preceded_by(p: Prop, facts: Facts):
    backend, named = p.args
    if backend not in facts.backends:
        return None, "", ()
    # "only after the SLURM lanes" is right (GCP comes before them anyway);
    # "only after GCP" skips SLURM: the stage just before must be named.
    index = facts.backends.index(backend)
    before = set(facts.backends[:index])
    holds = set(named) <= before and (index == 0 or facts.backends[index - 1] in named)
    return holds, facts.backend_chain(), ()


def _lane_position(p: Prop, facts: Facts):
    lane, n = p.args
    lanes = facts.lanes()
    if lane not in lanes:
        return None, "", ()
    return lanes.index(lane) == n - 1, f"SLURM lanes {' → '.join(lanes)}", ()


def _position(p: Prop, facts: Facts):
    backend, n = p.args
    if backend not in facts.backends:
        return None, "", ()
    return facts.backends.index(backend) == n - 1, facts.backend_chain(), ()


def _dynamic(p: Prop, facts: Facts):
    """The ladder's order is data, planned before the walk: never a race or a
    run-time pick between stages."""
    return False, _order_expected(facts, *p.args), ()


def _lane_fact(p: Prop, facts: Facts):
    """One lane's partition, widest allocation or wait, from its config entry."""
    lane = facts.config.slurm_lanes.get(p.args[0])
    if lane is None:
        return None, "", ()
    said = f"{lane.name}: partition {lane.partition}, up to {lane.max_width} GPUs, " \
        f"waits {lane.max_wait_minutes:g} min"
    if p.kind == "lane-partition":
        return p.args[1].lower() == lane.partition.lower(), said, _replace(p, lane.partition)
    if p.kind == "lane-max-width":
        return p.args[1] == lane.max_width, said, _replace(p, str(lane.max_width))
    return abs(p.args[1] - lane.max_wait_minutes) < 1e-6, said, \
        _replace(p, f"{lane.max_wait_minutes:g} min")


def _machine_type(p: Prop, facts: Facts):
    """A machine type no family of the config uses."""
    return False, facts.family_names_label(), ()


def _gpu_memory(p: Prop, facts: Facts):
    model, gb = p.args
    sizes = facts.gpu_memory(model)
    if not sizes:
        return None, "", ()
    return gb in sizes, facts.family_names_label(), ()


def _family_major(p: Prop, facts: Facts):
    """The planner tries every family at one width before it narrows."""
    order = " before ".join(facts.family_label(f) for f in facts.families_in_order())
    return len(facts.width_chain()) < 2, f"at one width {order}, width by width " \
        f"({facts.width_label()})", ()


def _model_major(p: Prop, facts: Facts):
    """One provisioning model at every width before another: the ladder walks
    width by width, every model the job's length allows at one width first."""
    return len(facts.width_chain()) < 2, f"width by width ({facts.width_label()}), " \
        f"every provisioning model at one width before the next width", ()


def _family_block(p: Prop, facts: Facts):
    """At one width, every rung of one family before any of the other's: the
    ladder goes model by model, so only when the families share no model."""
    kind, a, b = p.args

    def before(order: tuple[tuple[str, str], ...]) -> bool | None:
        ia = [i for i, (f, _) in enumerate(order) if f == a]
        ib = [i for i, (f, _) in enumerate(order) if f == b]
        return max(ia) < min(ib) if ia and ib else None

    holds, label = _in_each_class(kind, facts, None, before)
    return holds, ("at one width, model by model: " + label) if label else "", ()


def _family_widths(p: Prop, facts: Facts):
    family = facts.config.families.get(p.args[0])
    if family is None:
        return None, "", ()
    return set(p.args[1]) == set(family.widths), _widths_of(facts, family), ()


def _family_max(p: Prop, facts: Facts):
    family = facts.config.families.get(p.args[0])
    if family is None:
        return None, "", ()
    return max(family.widths) == p.args[1], _widths_of(facts, family), ()


def _widths_of(facts: Facts, family) -> str:
    return f"{facts.family_label(family.name)} has widths {', '.join(map(str, family.widths))}"


def _width_families(p: Prop, facts: Facts):
    width = p.args[0]
    offering = [f.name for f in facts.config.families.values() if width in f.widths]
    labels = ", ".join(facts.family_label(f) for f in offering) or "no family"
    return set(offering) == set(p.args[1]), f"the {width}× rungs are on {labels}", ()


def _tried(p: Prop, facts: Facts):
    """'campus-preempt is never on the ladder': is the term a rung at all?"""
    kind, value = p.args[0]
    if kind == "backend":
        holds = value in facts.backends
    elif kind == "lane":
        holds = value in facts.lanes()
    elif kind == "width":
        holds = value in facts.width_chain()
    elif kind == "family" and value[1] is None:
        holds = value[0] in facts.families_in_order()
    else:
        return None, "", ()
    return holds, _order_expected(facts, p.args[0]), ()


def _first(p: Prop, facts: Facts):
    if len(p.args) == 2:  # first for a job that asks for that width
        kind, value = p.args[0]
        if kind == "width":
            return True, "", ()
        first = facts.families_in_order()[0]
        return value[0] == first, f"for a {p.args[1]}× job {facts.family_label(first)} goes " \
            "first", ()
    return _first_of(p.args[0], facts), _order_expected(facts, p.args[0]), ()


def _lane_end(p: Prop, facts: Facts):
    lanes = facts.lanes()
    if not lanes:
        return None, "", ()
    edge = lanes[0] if p.kind == "first-lane" else lanes[-1]
    return p.args[0][1] == edge, f"SLURM lanes {' → '.join(lanes)}", ()


def _last(p: Prop, facts: Facts):
    if len(p.args) == 2:  # the last width of one intent's walk: its minimum
        floor = facts.min_width(p.args[1])
        return p.args[0][1] == floor, f"{p.args[1]} goes down to {floor}× on GCP", ()
    return _last_of(p.args[0], facts), _order_expected(facts, p.args[0]), ()


def _permits(p: Prop, facts: Facts):
    family, model = p.args
    allowed = facts.provisioning(family)
    return model in allowed, f"{facts.family_label(family)} is {'/'.join(allowed)}", ()


def _only(p: Prop, facts: Facts):
    family, models = p.args
    allowed = facts.provisioning(family)
    return set(models) == set(allowed), \
        f"{facts.family_label(family)} allows {'/'.join(allowed)}", ()


def _lead(p: Prop, facts: Facts):
    kind, model = p.args
    order = facts.class_order(kind)
    return order[0] == model, f"{kind} jobs lead with {order[0]} ({' → '.join(order)})", \
        _replace(p, order[0])


def _class_order(p: Prop, facts: Facts):
    kind, models = p.args
    order = facts.class_order(kind)
    known = [m for m in models if m in order]
    if len(known) < 2:
        return None, "", ()
    holds = known == sorted(known, key=order.index)
    return holds, f"{kind} jobs {' → '.join(order)}", ()


def _class_next(p: Prop, facts: Facts):
    kind, first, then = p.args  # "for long jobs, SPOT comes right after FLEX_START"
    order = facts.class_order(kind)
    if first not in order or then not in order:
        return None, "", ()
    return order.index(then) == order.index(first) + 1, f"{kind} jobs {' → '.join(order)}", ()


def _class_last(p: Prop, facts: Facts):
    kind, model = p.args
    order = facts.class_order(kind)
    return order[-1] == model, f"{kind} jobs {' → '.join(order)}", _replace(p, order[-1])


def _class_offers(p: Prop, facts: Facts):
    kind, model = p.args
    order = facts.class_order(kind)
    return model in order, f"{kind} jobs {' → '.join(order)}", ()


def _threshold(p: Prop, facts: Facts):
    value = p.args[0]
    return value == facts.threshold, \
        f"a job is short below {facts.threshold:g} h at its width", \
        _replace(p, _hours(facts.threshold, p))


def _subset(p: Prop, facts: Facts):
    relation, value, kind = p.args  # ("under", 2.0, "short")
    t = facts.threshold
    if relation == "at":
        return facts.is_short(value) == (kind == "short"), \
            f"{a_or_an(f'{value:g} h')} job is {'short' if facts.is_short(value) else 'long'}", ()
    if kind == "short":
        holds = value <= t if relation == "under" else False
    else:
        holds = value >= t if relation == "over" else False
    return holds, f"short below {t:g} h, long from {t:g} h", ()


def _threshold_unit(p: Prop, facts: Facts):
    return False, f"short and long are wall-clock at the width: short below " \
                  f"{facts.threshold:g} h", ()


def _flex_max(p: Prop, facts: Facts):
    value = p.args[0]
    return value == facts.flex_max, _flex_fits(facts), _durations(facts.flex_max, p)


def _flex_for(p: Prop, facts: Facts):
    if p.args[1:] == ("over",):  # "a job longer than 168 h still gets FLEX_START"
        return p.args[0] < facts.flex_max, _flex_fits(facts), ()
    return p.args[0] <= facts.flex_max, _flex_fits(facts), ()


def _flex_fits(facts: Facts) -> str:
    return f"FLEX_START only where the job fits {facts.flex_max:g} h ({facts.flex_max / 24:g} days)"


def _min_width(p: Prop, facts: Facts):
    intent, width = p.args
    m = facts.min_width(intent)
    return m == width, f"{intent} has minimum width {m}", _replace(p, str(m))


def _lane_count(p: Prop, facts: Facts):
    lanes = facts.lanes()
    return p.args[0] == len(lanes), f"SLURM lanes {' → '.join(lanes)}", ()


def _backend_count(p: Prop, facts: Facts):
    return p.args[0] == len(facts.backends), \
        f"{len(facts.backends)} backends: {facts.backend_chain()}", ()


def _runpod_gpu_type(p: Prop, facts: Facts):
    types = facts.config.runpod_gpu_types
    return p.args[0].lower() in {t.lower() for t in types}, \
        "RunPod GPU types " + ", ".join(types), ()


def _pod_types(intent: str, facts: Facts) -> tuple[tuple[str, ...], str]:
    types = facts.config.intents[intent].runpod_gpu_types
    return types, f"{intent} asks RunPod for {' → '.join(types)}"


def _pod_order(p: Prop, facts: Facts):
    intent, first, second = p.args
    types, expected = _pod_types(intent, facts)
    if first not in types or second not in types:
        return False, expected, ()
    fix = tuple((start, end, gpu) for (start, end, _), gpu in
                zip(p.fix_spans, types, strict=False))
    return types.index(first) < types.index(second), expected, fix


def _pod_first(p: Prop, facts: Facts):
    intent, first = p.args
    types, expected = _pod_types(intent, facts)
    return bool(types) and types[0] == first, expected, \
        tuple((start, end, types[0]) for start, end, _ in p.fix_spans[:1] if types)


def _verdict_set(p: Prop, facts: Facts):
    from critics.rules import VERDICTS

    expected = "the critic answers " + " or ".join(VERDICTS)
    if isinstance(p.args[0], int):
        return p.args[0] == len(VERDICTS), expected, ()
    return set(p.args) <= set(VERDICTS), expected, ()


def _tail_width(p: Prop, facts: Facts):
    """The SLURM and RunPod rungs ask for the intent's minimum width: for an
    intent named, exactly its tail width; for none, any intent's."""
    intent, width = p.args
    intents = [intent] if intent else list(facts.intents)
    tails = {facts.tail_width(i) for i in intents} - {None}
    expected = "the SLURM and RunPod rungs ask for the intent's minimum width (" + ", ".join(
        f"{i}: {facts.tail_width(i)}" for i in intents) + ")"
    if width == "requested":
        # true only if no intent could be asked wider than its tail width
        return (False if facts.widest > max(tails, default=facts.widest) else None), expected, ()
    if not tails:
        return None, expected, ()
    return width in tails, expected, _replace(p, str(min(tails)) if len(tails) == 1 else "")


def _reach(p: Prop, facts: Facts):
    intent, width = p.args
    m = facts.min_width(intent)
    return width >= m, f"{intent} degrades no further than {m}×", ()


def _floor(p: Prop, facts: Facts):
    # the narrowest width any intent reaches; an intent with a higher floor
    # stops earlier, which the text did not say
    lowest = min(facts.min_width(i) for i in facts.intents)
    written = [(s, e, re.sub(r"\d+", str(lowest), text, count=1)) for s, e, text in p.fix_spans
               if re.search(r"\d", text)]
    return p.args[0] == lowest, f"GCP widths go down to {lowest}× ({facts.width_label()})", \
        tuple(written)


def _in_auto(p: Prop, facts: Facts):
    width = p.args[0]
    return facts.in_auto_ladder(width), \
        f"the auto ladder walks {facts.width_label()} on GCP", ()


def _request_first(p: Prop, facts: Facts):
    """'A width-8 request starts at 4×': the first GCP rung the planner plans
    for a request of that width (any intent that allows it)."""
    request, start = p.args
    if request not in facts.widths:
        return None, "", ()
    firsts = {rungs[0].width for intent in facts.intents if facts.min_width(intent) <= request
              for rungs in [facts.plan(intent, request, 0.01)] if rungs}
    if not firsts:
        return None, "", ()
    chain = facts.width_label(tuple(w for w in facts.width_chain() if w <= max(firsts)))
    return start in firsts, f"a width-{request} request starts at {max(firsts)}× ({chain})", \
        ((p.start, p.end, f"{max(firsts)}×"),)


def _width_valid(p: Prop, facts: Facts):
    return p.args[0] in facts.widths, f"widths {facts.width_label()}", ()


def _direction(p: Prop, facts: Facts):
    return p.args[0] == "down", f"capacity misses only narrow: {facts.width_label()}", ()


def _max_width(p: Prop, facts: Facts):
    return p.args[0] == facts.widest, \
        f"the auto ladder starts at {facts.widest}× ({facts.width_label()})", ()


def _lead_at(p: Prop, facts: Facts):
    relation, hours, model = p.args  # a job under/over/of `hours` leads with `model`
    if relation == "under":
        samples = [hours * 0.99, hours / 2]
    elif relation == "over":
        samples = [hours * 1.01, hours * 2]
    else:
        samples = [hours]
    leads = {facts.models_at(h)[0] for h in samples if h > 0}
    return (model in leads and len(leads) == 1), \
        "; ".join(f"{a_or_an(f'{h:g} h')} job leads with {facts.models_at(h)[0]}"
                  for h in samples), ()


def _consequence(p: Prop, facts: Facts):
    hours, width, at, what, value = p.args  # "class"|"lead"|"length"|"flex"
    length = hours * width / at
    models = facts.models_at(length, at if at in facts.widths else None)
    kind = "short" if facts.is_short(length) else "long"
    summary = f"at {at}× it runs {length:g} h: {kind}, {' → '.join(models)}"
    if what == "class":
        return value == kind, summary, ()
    if what == "lead":
        return bool(models) and models[0] == value, summary, ()
    if what == "length":
        return abs(value - length) < 1e-6, summary, _replace(p, _hours(length, p))
    if what == "offers":
        return value in models, summary, ()
    if what == "under":
        return length < value, summary, ()
    if what == "over":
        return length >= value, summary, ()
    return None, "", ()


def _scaling(p: Prop, facts: Facts):
    # The router keeps a job's GPU-hours when it narrows and classes each width
    # by the length there; none of the laws a `scaling` reading names holds.
    return False, f"a job keeps its GPU-hours: H h at N× runs H × N / w h at w×, and is " \
                  f"short or long again at each width (short below {facts.threshold:g} h)", ()


def _verdict(p: Prop, facts: Facts):
    rule, verdict = p.args
    severity = facts_critic(facts).get(rule)
    if severity is None:
        return None, "", ()
    truth = "REVISE" if severity == "error" else "WARN"
    # A warning leaves the verdict alone, so "approved" is true of it too.
    holds = verdict == truth or (verdict == "APPROVE" and truth == "WARN")
    return holds, f"the critic {'REVISEs' if truth == 'REVISE' else 'only warns'} on {rule}", ()


def _narrow_at(p: Prop, facts: Facts):
    from critics.rules import DEFAULT_WIDEN_THRESHOLD

    if p.args[1:] == ("under",):
        # "a phase under V GPU-hours is (not) narrow": every such phase is below the
        # threshold only when V is at most the threshold
        return p.args[0] > DEFAULT_WIDEN_THRESHOLD, _narrow_needs(), ()
    return p.args[0] >= DEFAULT_WIDEN_THRESHOLD, _narrow_needs(), ()


def _narrow_needs() -> str:
    from critics.rules import DEFAULT_WIDEN_THRESHOLD

    return f"needlessly-narrow needs at least {DEFAULT_WIDEN_THRESHOLD:g} GPU-hour"


def _critic_threshold(p: Prop, facts: Facts):
    from critics.rules import DEFAULT_WIDEN_THRESHOLD

    value = p.args[0]
    words = f"{DEFAULT_WIDEN_THRESHOLD:g} GPU-hour{'' if DEFAULT_WIDEN_THRESHOLD == 1 else 's'}"
    # a span marked "number" is a config value ("…_gpu_hours: 0.5"): the number alone
    return value == DEFAULT_WIDEN_THRESHOLD, _narrow_needs(), tuple(
        (s, e, f"{DEFAULT_WIDEN_THRESHOLD:g}" if hint == "number" else words)
        for s, e, hint in p.fix_spans)


def _narrow_any(p: Prop, facts: Facts):
    from critics.rules import MIN_SHARDS_TO_WIDEN

    return False, f"{_narrow_needs()} and a shardable axis of at least " \
        f"{MIN_SHARDS_TO_WIDEN} shards, both", ()


def _narrow_width(p: Prop, facts: Facts):
    return p.args[0] == 1, "needlessly-narrow judges width-1 phases only", ()


def _axis_min(p: Prop, facts: Facts):
    from critics.rules import MIN_SHARDS_TO_WIDEN

    return p.args[0] == MIN_SHARDS_TO_WIDEN, \
        f"needlessly-narrow needs a shardable axis of at least {MIN_SHARDS_TO_WIDEN} shards", \
        _replace(p, str(MIN_SHARDS_TO_WIDEN))


def _parallel(p: Prop, facts: Facts):
    kind = p.args[0]
    holds = kind == "parallel"
    return holds, ("the critic counts it as parallel work" if holds else
                   "the critic does not count a loop without & as parallel work"
                   if kind == "serial" else
                   f"the critic reads `{p.args[1]}` as one process" if kind == "single" else
                   "the critic does not count model splitting or an unbackgrounded loop as "
                   "parallel work"), ()


def _rung_order(p: Prop, facts: Facts):
    """'a2-ultragpu SPOT, then a2-ultragpu FLEX_START, then a3-highgpu SPOT' at one
    width: model-major, family-minor, in the order of the job's length class (or
    of both classes, when the text names none)."""
    kind, a, b = p.args
    ra, rb = (a[1][0], a[1][2]), (b[1][0], b[1][2])

    def before(order: tuple[tuple[str, str], ...]) -> bool | None:
        return order.index(ra) < order.index(rb) if ra in order and rb in order else None

    holds, label = _in_each_class(kind, facts, a[1][1] or b[1][1] or None, before)
    return holds, ("at one width, " + label) if label else "", ()


def _in_each_class(kind: str | None, facts: Facts, width: int | None, before
                   ) -> tuple[bool | None, str]:
    """`before` asked of the rung order at one width for the job's length class, or
    for both classes when the text names none: whether it holds (None when the
    classes disagree or a rung is not there) and the orders, for the message."""
    seen, label = set(), []
    for k in ((kind,) if kind else ("short", "long")):
        order = facts.rungs_at(k, width)
        answer = before(order)
        if answer is None:
            return None, ""
        seen.add(answer)
        label.append(f"{k} jobs " + " → ".join(f"{_family_short(facts, f)} {m}"
                                                for f, m in order))
    return (seen.pop() if len(seen) == 1 else None), "; ".join(label)


def _family_short(facts: Facts, family: str) -> str:
    """'a2-ultragpu' for the family whose machine type is 'a2-ultragpu-{N}g'."""
    template = facts.config.families[family].machine_type_template
    return template.split("{", 1)[0].rstrip("-") or family


def _critic_findings(facts: Facts, width: int, gpu_hours: float, launch: str,
                     axis: int | None = None) -> list[Any] | None:
    """The critic's own rules run on the phase a text describes (None when no
    intent of the ladder runs at that width)."""
    from critics.launch import analyze
    from critics.rules import RULES, Context
    from router.section9 import Phase, ShardableAxis

    intent = next((i for i in facts.intents if facts.min_width(i) <= width), None)
    if intent is None:
        return None
    phase = Phase("example", intent, width, gpu_hours, launch,
                  ShardableAxis("items", axis) if axis else None, 1)
    ctx = Context(phase, analyze(launch, width), facts.config)
    return [f for rule in RULES for f in rule.check(ctx)]


def _critic_verdict(findings: list[Any]) -> str:
    from critics.rules import VERDICTS

    approve, revise = VERDICTS
    return revise if any(f.severity == "error" for f in findings) else approve


def _phase_verdict(p: Prop, facts: Facts):
    """The critic's own rules run on the width-1 phase the text describes."""
    hours, axis, verdict = p.args
    findings = _critic_findings(facts, 1, hours, "python run.py", axis)
    if findings is None:
        return None, "", ()
    given = _critic_verdict(findings)
    return verdict == given, (f"the critic answers {given} for a width-1 phase of "
                              f"{_gpu_hours(hours)} with an axis of {axis}"), _replace(p, given)


def _launch_verdict(p: Prop, facts: Facts):
    """The critic's own rules run on the phase the text describes: its width and
    launch (and GPU-hours, when given; else an hour per GPU)."""
    width, launch, hours, verdict, fires = p.args
    findings = None if width not in facts.widths else _critic_findings(
        facts, width, hours if hours is not None else float(width), launch)
    if findings is None:
        return None, "", ()
    if fires:  # a rule said to fire on it ("is flagged oversubscribed")
        fired = sorted({f.rule for f in findings})
        return fires in fired, (f"the critic's rules on `{launch}` at width {width}: "
                                f"{', '.join(fired) or 'none fire'}"), ()
    given = _critic_verdict(findings)
    errors = sorted({f.rule for f in findings if f.severity == "error"})
    why = f" ({', '.join(errors)})" if errors else ""
    return verdict == given, (f"the critic answers {given}{why} for `{launch}` at width "
                              f"{width}"), _replace(p, given)


def _busy(p: Prop, facts: Facts):
    """The critic's own launch reader counts the GPUs a launch's sizes keep busy
    (tensor × pipeline × data parallel)."""
    from critics.launch import analyze

    if len(p.args) == 3:  # a whole launch, at the width the text gives it (if any)
        command, claimed, width = p.args
        launch = analyze(command, width)
        if launch.gpus is None or launch.unreadable:
            return None, "", ()
        return claimed == launch.gpus, f"the critic counts `{command}` as {launch.gpus} " \
            f"busy GPU{'s' if launch.gpus != 1 else ''}", _replace(p, str(launch.gpus))
    command, claimed = p.args
    launch = analyze(f"serve {command}")
    if launch.gpus is None or launch.unreadable:
        return None, "", ()
    return claimed == launch.gpus, (
        f"the critic counts {command} as {launch.gpus} busy GPUs (tensor × pipeline × data "
        "parallel sizes)"), _replace(p, str(launch.gpus))


def facts_critic(facts: Facts) -> dict[str, str]:
    cached = getattr(facts, "_critic_rules", None)
    if cached is None:
        from critics.rules import RULES

        cached = {rule.name: rule.severity for rule in RULES}
        facts._critic_rules = cached  # type: ignore[attr-defined]
    return cached


def _replace(p: Prop, text: str) -> tuple[tuple[int, int, str], ...]:
    """The proposition's own fix spans, filled with `text`."""
    return tuple((s, e, text) for s, e, _ in p.fix_spans)


def _hours(value: float, p: Prop) -> str:
    return _in_unit(value, p.fix_spans[0][2] if p.fix_spans else "h")


def _in_unit(value: float, unit: str) -> str:
    """`value` hours as the text wrote its length: "7 days", "7-day", "168 h", or a
    bare number for a config value ("short_threshold_hours = 4")."""
    if unit == "number":
        return f"{value:g}"
    if unit in ("days", "day-adjective") and value % 24 == 0:
        return f"{value / 24:g}-day" if unit == "day-adjective" else f"{value / 24:g} days"
    if unit == "weeks" and value % 168 == 0:
        return f"{value / 168:g} week{'' if value == 168 else 's'}"
    return f"{value:g} h"


def _durations(value: float, p: Prop) -> tuple[tuple[int, int, str], ...]:
    """Each of the proposition's lengths replaced by `value`, each in its own unit."""
    return tuple((s, e, _in_unit(value, unit)) for s, e, unit in p.fix_spans)


_JUDGES = {
    "position-lane": _lane_position,
    "direction": _direction,
    "first-lane": _lane_end, "last-lane": _lane_end,
    "order": _order, "skip": _skip, "preceded-by": _preceded_by, "position": _position,
    "first": _first, "tried": _tried, "dynamic": _dynamic, "family-major": _family_major,
    "model-major": _model_major,
    "family-block": _family_block,
    "family-widths": _family_widths, "family-max": _family_max,
    "width-families": _width_families,
    "lane-partition": _lane_fact, "lane-max-width": _lane_fact, "lane-wait": _lane_fact,
    "machine-type": _machine_type, "gpu-memory": _gpu_memory, "last": _last, "permits": _permits,
    "only": _only, "lead": _lead,
    "class-order": _class_order, "class-next": _class_next, "class-last": _class_last,
    "class-offers": _class_offers,
    "threshold": _threshold, "threshold-unit": _threshold_unit, "subset": _subset,
    "flex-max": _flex_max, "flex-for": _flex_for, "min-width": _min_width, "reach": _reach,
    "tail-width": _tail_width, "runpod-gpu-type": _runpod_gpu_type,
    "pod-order": _pod_order, "pod-first": _pod_first,
    "verdict-set": _verdict_set, "lane-count": _lane_count, "backend-count": _backend_count,
    "floor": _floor,
    "in-auto": _in_auto, "request-first": _request_first,
    "lead-at": _lead_at, "consequence": _consequence, "scaling": _scaling, "width": _width_valid,
    "max-width": _max_width, "verdict": _verdict, "critic-threshold": _critic_threshold,
    "narrow-at": _narrow_at,
    "parallel": _parallel, "busy": _busy, "rung-order": _rung_order,
    "phase-verdict": _phase_verdict, "launch-verdict": _launch_verdict,
    "narrow-width": _narrow_width, "narrow-any": _narrow_any,
    "axis-min": _axis_min,
}
