"""Ladder claims in prose: find them, and compare each with the ladder config.

A claim is a statement a reader would act on: an order of backends, a width
degradation chain, the provisioning models a machine type allows, or which
model short and long jobs lead with. Each checker returns `Drift`s, one per
contradiction, with what the config expects and what the text says. A
statement that agrees with the config yields nothing, and text that names no
ladder entity (WebGPU, "8x faster") is never a claim.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from router.config import LadderConfig
from router.planner import LONG_ORDER, SHORT_ORDER

BACKEND_RANK = {"gcp": 0, "slurm": 1, "runpod": 2}
BACKEND_LABEL = {"gcp": "GCP", "slurm": "SLURM", "runpod": "RunPod"}
EXPECTED_ORDER = "GCP → SLURM → RunPod"

_BACKEND = re.compile(r"\b(?:(GCP|Google Cloud|Compute Engine)|(SLURM)|(RunPod))\b", re.I)
_MODEL = re.compile(r"\b(?:(SPOT)|(FLEX[_ -]?START|flex-start)|(STANDARD|on-demand|on demand))\b",
                    re.I)
_MODEL_NAMES = ("SPOT", "FLEX_START", "STANDARD")
_WIDTH = re.compile(r"(?<![\w.])([1-9]\d?)\s?[×x](?![\w])|\ba[23]-(?:ultragpu|highgpu)-(\d+)g\b")
_MACHINE = re.compile(r"\b(a[23]-(?:ultragpu|highgpu))(?:-(?:\d+g|\*|\{\w+\}g|Ng|\{N\}g))?\b")
# Text allowed between two links of a chain, once filler words are removed.
_FILLER = re.compile(
    r"\b(?:the|a|an|and|or|lanes?|rungs?|machines?|on|capacity|misses|miss|at|width|widths|"
    r"finally|last|only|next|down|to|gpu|gpus|backends?|one|come|comes|is|are|tried|try|first)\b"
    r"|[,;:]", re.I)
_ARROWS = re.compile(r"\s*(?:→|->|=>|⟶|⇒|(?<=\s)>(?=\s))\s*")


@dataclass(frozen=True)
class Drift:
    offset: int  # character offset of the claim in the unit text
    message: str


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    value: str | int


def normalize(text: str) -> str:
    """Arrows to '→' (same length where possible is not needed: we keep offsets by
    replacing within a copy only for link tests)."""
    return _ARROWS.sub(" → ", text)


def _backends(text: str) -> list[Mention]:
    out = []
    for m in _BACKEND.finditer(text):
        name = "gcp" if m.group(1) else "slurm" if m.group(2) else "runpod"
        out.append(Mention(m.start(), m.end(), name))
    return out


def _models(text: str) -> list[Mention]:
    return [Mention(m.start(), m.end(), _MODEL_NAMES[next(i for i in range(3) if m.group(i + 1))])
            for m in _MODEL.finditer(text)]


def _widths(text: str) -> list[Mention]:
    return [Mention(m.start(), m.end(), int(m.group(1) or m.group(2)))
            for m in _WIDTH.finditer(text)]


def _link(between: str) -> str | None:
    """'arrow', 'then' or 'comma' when `between` only joins two chain items."""
    has_arrow = "→" in between or bool(_ARROWS.search(between))
    rest = _ARROWS.sub(" ", between)
    has_then = bool(re.search(r"\bthen\b", rest, re.I))
    rest = re.sub(r"\bthen\b", " ", rest, flags=re.I)
    rest = _FILLER.sub(" ", rest).strip()
    if rest:
        return None
    if has_arrow:
        return "arrow"
    if has_then:
        return "then"
    return "comma"


def chains(text: str, mentions: list[Mention]) -> Iterator[list[Mention]]:
    """Runs of mentions joined by arrows / 'then' (commas count only inside a
    run that has at least one arrow or 'then': a bare list is not an order)."""
    run: list[Mention] = []
    ordered = False
    for mention in mentions:
        if run:
            link = _link(text[run[-1].end:mention.start])
            if link is not None:
                run.append(mention)
                ordered = ordered or link != "comma"
                continue
            if len(run) >= 2 and ordered:
                yield run
        run, ordered = [mention], False
    if len(run) >= 2 and ordered:
        yield run


def _clauses(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    for m in re.finditer(r"(?<!\d)\.(?!\d)(?=\s|$)|;|\n\n|:\s*$", text):
        yield start, text[start:m.start()]
        start = m.end()
    yield start, text[start:]


# ---- backend order -----------------------------------------------------------

def _order_drift(first: Mention, second: Mention, how: str) -> Drift | None:
    """`first` is claimed to come before `second`."""
    if BACKEND_RANK[str(first.value)] > BACKEND_RANK[str(second.value)]:
        return Drift(first.start, f"backend order: expected {EXPECTED_ORDER}, found "
                                  f"{BACKEND_LABEL[str(first.value)]} {how} "
                                  f"{BACKEND_LABEL[str(second.value)]}")
    return None


def backend_order(text: str) -> list[Drift]:
    drifts: list[Drift] = []
    for offset, clause in _clauses(text):
        found = _backends(clause)
        if not found:
            continue
        shifted = [Mention(m.start + offset, m.end + offset, m.value) for m in found]
        for run in chains(text, shifted):
            for a, b in itertools.pairwise(run):
                if a.value != b.value and (d := _order_drift(a, b, "before")):
                    drifts.append(d)
        lowered = clause.lower()
        for kw in re.finditer(r"\b(before|after|ahead of|prior to)\b", lowered):
            left = [m for m in shifted if m.end <= kw.start() + offset]
            right = [m for m in shifted if m.start >= kw.end() + offset]
            if not right:
                continue
            is_after = kw.group(1) == "after"
            if left:
                subject = left[-1]
                gap = lowered[subject.end - offset:kw.start()]  # clause-relative
                if re.search(r"\b(never|not|no)\b|n't", gap):
                    continue  # "RunPod is never tried before GCP": agrees, not a claim
                for other in right:
                    if other.value == subject.value:
                        continue
                    d = (_order_drift(other, subject, "after") if is_after
                         else _order_drift(subject, other, "before"))
                    if d:
                        drifts.append(d)
            elif is_after:
                # "After the 1× GCP rungs come the SLURM lanes": the first backend
                # after the keyword precedes the ones after a 'come'/'comes'.
                verb = re.search(r"\b(come|comes|is|are|go|goes|try|tries)\b",
                                 lowered[kw.end():])
                if verb:
                    cut = kw.end() + verb.start() + offset
                    before_set = [m for m in right if m.end <= cut]
                    after_set = [m for m in right if m.start >= cut]
                    for a in before_set:
                        for b in after_set:
                            if a.value != b.value and (d := _order_drift(a, b, "before")):
                                drifts.append(d)
        for first in re.finditer(r"\b(?:lanes?\s+|rungs?\s+)?(?:first|leads?)\b", lowered):
            near = [m for m in found if m.end <= first.start() and first.start() - m.end <= 2]
            if near and near[-1].value != "gcp" and \
                    not re.search(r"\b(not|never)\b", lowered[:first.start()]):
                drifts.append(Drift(near[-1].start + offset,
                                    f"backend order: expected GCP first, found "
                                    f"{BACKEND_LABEL[str(near[-1].value)]} first"))
        for last in re.finditer(r"\b(?:the\s+)?last\s+(?:rung|resort|fallback|backend|lane)\b",
                                lowered):
            near = [m for m in found if m.end <= last.start() and
                    last.start() - m.end <= 40] or \
                   [m for m in found if m.start >= last.end() and m.start - last.end() <= 20]
            if near:
                subject = near[-1] if near[0].end <= last.start() else near[0]
                if subject.value != "runpod" and \
                        not re.search(r"\bnot\b", lowered[max(0, last.start() - 12):last.start()]):
                    drifts.append(Drift(subject.start + offset,
                                        f"backend order: expected RunPod as the last rung, found "
                                        f"{BACKEND_LABEL[str(subject.value)]}"))
    return _dedupe(drifts)


# ---- width degradation ---------------------------------------------------------

def width_chain(text: str, config: LadderConfig) -> list[Drift]:
    drifts = []
    for run in chains(text, _widths(text)):
        widths = [int(m.value) for m in run]
        halving = all(b * 2 == a for a, b in itertools.pairwise(widths))
        if not halving:
            expected = " → ".join(f"{w}×" for w in _halvings(max(widths)))
            drifts.append(Drift(run[0].start,
                                f"width degradation: expected {expected}, found "
                                f"{' → '.join(f'{w}×' for w in widths)}"))
    return drifts


def _halvings(start: int) -> list[int]:
    out = [start]
    while out[-1] > 1:
        out.append(out[-1] // 2)
    return out


# ---- provisioning per machine type --------------------------------------------------

def _family_for(prefix: str, config: LadderConfig) -> str | None:
    for name, family in config.families.items():
        if family.machine_type_template.split("{", 1)[0].rstrip("-") == prefix:
            return name
    return None


def _models_in(text: str) -> list[str]:
    return [str(m.value) for m in _models(text)]


def provisioning(text: str, config: LadderConfig) -> list[Drift]:
    drifts = []
    for machine in _MACHINE.finditer(text):
        family_name = _family_for(machine.group(1), config)
        if family_name is None:
            continue
        allowed = config.families[family_name].provisioning
        tail = text[machine.end():machine.end() + 80]
        only = re.match(r"[^.;\n]{0,40}?((?:[\w -]+?)(?:\s*(?:/|,|and|or)\s*[\w -]+?)*)[- ]only\b",
                        tail, re.I)
        if only:
            claimed = _models_in(only.group(1))
            if claimed and set(claimed) != set(allowed):
                drifts.append(Drift(machine.start(),
                                    f"provisioning for {machine.group(0)}: expected "
                                    f"{'/'.join(allowed)}, found {'/'.join(claimed)}-only"))
            continue
        never = re.match(r"[^.;\n]{0,40}?\b(?:never|not|no)\s+([\w -]+)", tail, re.I)
        if never:
            banned = _models_in(never.group(1))[:1]
            clash = [m for m in banned if m in allowed]
            if clash:
                drifts.append(Drift(machine.start(),
                                    f"provisioning for {machine.group(0)}: expected "
                                    f"{'/'.join(allowed)} allowed, found 'never {clash[0]}'"))
    return drifts


# ---- length-aware lead ---------------------------------------------------------------

_LENGTH = re.compile(r"\b(short|long)(?:er)?(?:[- ](?:running|lived))?\s+"
                     r"(?:jobs?|runs?|phases?|work|workloads?)\b", re.I)


_REVERSE_HEAD = re.compile(r"\b(SPOT|FLEX[_ -]?START|flex-start|STANDARD|on-demand)[- ]lead(?:s)?"
                           r"\s+(?:for|on)\b", re.I)
_REVERSE_LEAD = re.compile(_REVERSE_HEAD.pattern + r"\s+(short|long)", re.I)


def length_lead(text: str, config: LadderConfig) -> list[Drift]:
    drifts: list[Drift] = []
    expected = {"short": SHORT_ORDER, "long": LONG_ORDER}
    for subject in _LENGTH.finditer(text):
        kind = subject.group(1).lower()
        following = re.search(r"\b(short|long)\b", text[subject.end():])
        stop = subject.end() + following.start() if following else len(text)
        clause_end = re.search(r"(?<!\d)\.(?!\d)(?=\s|$)|;", text[subject.end():stop])
        end = subject.end() + clause_end.start() if clause_end else stop
        segment = text[subject.end():end]
        reverse = _REVERSE_HEAD.search(segment)  # "…, flex-start lead for long": not ours
        if reverse:
            segment = segment[:reverse.start()]
        models = _models(segment)
        if models and re.search(r"\blead|\bfirst\b|\bstart|→|->|\bthen\b|:", segment, re.I):
            claimed = [str(m.value) for m in models]
            order = expected[kind]
            known = [m for m in claimed if m in order]
            relative = sorted(known, key=order.index)
            if known and ((known[0] != order[0] and len(known) == 1) or known != relative):
                drifts.append(Drift(subject.start(),
                                    f"length-aware lead: expected {kind} jobs "
                                    f"{' → '.join(order)}, found {' → '.join(claimed)}"))
        threshold = re.search(r"\b(?:under|below|less than|<)\s*(\d+(?:\.\d+)?)\s*(?:h\b|hours?)",
                              segment, re.I)
        if kind == "short" and threshold and \
                float(threshold.group(1)) != config.short_threshold_hours:
            drifts.append(Drift(subject.start(),
                                f"length threshold: expected short below "
                                f"{config.short_threshold_hours:g} h, found "
                                f"{threshold.group(1)} h"))
    for m in _REVERSE_LEAD.finditer(text):
        model = _models_in(m.group(1))[0]
        kind = m.group(2).lower()
        if model != expected[kind][0]:
            drifts.append(Drift(m.start(), f"length-aware lead: expected {kind} jobs to lead "
                                           f"with {expected[kind][0]}, found {model}"))
    return drifts


def _dedupe(drifts: list[Drift]) -> list[Drift]:
    seen: set[tuple[int, str]] = set()
    out = []
    for d in drifts:
        key = (d.offset, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def check_text(text: str, config: LadderConfig) -> list[Drift]:
    """Every contradiction between `text` and the ladder config."""
    if not (_BACKEND.search(text) or _WIDTH.search(text) or _MODEL.search(text)):
        return []
    return _dedupe(backend_order(text) + width_chain(text, config) +
                   provisioning(text, config) + length_lead(text, config))
