"""The pure planner: (request, config) -> rungs. No I/O, no clouds.

Rung order for a width-N request of H hours (H is the wall-clock at width N):

1. GCP, widest first: widths N, N/2, ... down to the intent's minimum m. The
   length at width w is H * (N / w). Widths are powers of two, so N / w is a
   power of two and the product is exact: `plan(N, H)` and the tail request
   `plan(m, H * N / m)` see bit-identical lengths.
2. At one width, provisioning models are ordered by that length: short jobs
   (below the threshold) lead with SPOT, long ones with FLEX_START. Families
   interleave inside each model (A100 SPOT, H100 SPOT, A100 FLEX_START, ...):
   the model carries the preemption risk that the job length makes matter,
   while the families are interchangeable for the intent.
3. A FLEX_START rung only where the length fits the maximum run duration;
   a family never offers a model it does not list (a3-highgpu: no STANDARD).
4. Then the SLURM lanes, then RunPod, all at width m.
"""

from __future__ import annotations

from dataclasses import dataclass

from router.config import ALLOWED_WIDTHS, MAX_HOURS, LadderConfig, brief, name_problem

# Short jobs grab the cheapest fast capacity; a long job on SPOT risks losing
# hours to a preemption, so it leads with FLEX_START and keeps SPOT for last.
SHORT_ORDER = ("SPOT", "FLEX_START", "STANDARD")
LONG_ORDER = ("FLEX_START", "STANDARD", "SPOT")


class RequestError(ValueError):
    """A dispatch request the ladder cannot serve (bad width, intent, hours)."""


@dataclass(frozen=True)
class Request:
    intent: str
    width: int
    hours: float


@dataclass(frozen=True)
class Rung:
    backend: str  # "gcp" | "slurm" | "runpod"
    width: int
    hours: float  # expected wall-clock at this rung's width
    machine_type: str | None = None
    provisioning: str | None = None
    zones: tuple[str, ...] = ()
    family: str | None = None
    quota_metric: str | None = None
    lane: str | None = None
    gpu_type: str | None = None

    @property
    def target(self) -> str:
        return self.machine_type or self.lane or self.gpu_type or ""

    def to_json(self) -> dict[str, object]:
        # Each backend's rungs carry only the fields that name their target
        # (GCP: machine type, provisioning, zones; SLURM: lane; RunPod: GPU type).
        out: dict[str, object] = {"backend": self.backend}
        out.update((key, value) for key, value in (
            ("machine_type", self.machine_type), ("provisioning", self.provisioning),
            ("lane", self.lane), ("gpu_type", self.gpu_type)) if value is not None)
        out["width"] = self.width
        if self.zones:
            out["zones"] = list(self.zones)
        out["hours"] = self.hours
        return out


def _nearest(name: str, known: list[str]) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    return matches[0] if matches else None


def validate(request: Request, config: LadderConfig) -> None:
    """Raise RequestError with one clear sentence if the request is unservable."""
    problem = name_problem(request.intent, "intent")
    if problem:  # checked first: the messages below echo the name
        raise RequestError(problem)
    if request.intent not in config.intents:
        known = sorted(config.intents)
        hint = _nearest(request.intent, known)
        suggestion = f"; did you mean {hint!r}?" if hint else ""
        raise RequestError(f"unknown intent {request.intent!r}{suggestion} "
                           f"(known: {', '.join(known)})")
    if isinstance(request.width, bool) or request.width not in ALLOWED_WIDTHS:
        raise RequestError(f"width {brief(request.width)} is not allowed: allowed widths are "
                           f"{', '.join(map(str, ALLOWED_WIDTHS))}")
    minimum = config.intents[request.intent].min_width
    if request.width < minimum:
        raise RequestError(f"width {request.width} is below intent {request.intent!r}'s "
                           f"minimum width {minimum}")
    hours = request.hours
    # Compared, never converted (float(10**400) raises; nan fails the test). The
    # cap keeps every derived length (x8 at most) finite.
    if isinstance(hours, bool) or not isinstance(hours, int | float) or \
            not 0 < hours <= MAX_HOURS:
        raise RequestError(f"hours must be a finite number > 0 and at most {MAX_HOURS:g}, "
                           f"got {brief(hours)}")


def length_at(request: Request, width: int) -> float:
    """Expected wall-clock at `width`: the same work spread over fewer GPUs."""
    return request.hours * (request.width / width)


def is_short(hours: float, config: LadderConfig) -> bool:
    return hours < config.short_threshold_hours


def _gcp_rungs_at(width: int, hours: float, intent_families: tuple[str, ...],
                  config: LadderConfig) -> list[Rung]:
    order = SHORT_ORDER if is_short(hours, config) else LONG_ORDER
    rungs = []
    for model in order:
        if model == "FLEX_START" and hours > config.flex_start_max_run_hours:
            continue
        for name in intent_families:
            family = config.families[name]
            if width not in family.widths or model not in family.provisioning:
                continue
            rungs.append(Rung(backend="gcp", width=width, hours=hours,
                              machine_type=family.machine_type(width), provisioning=model,
                              zones=family.zones, family=name,
                              quota_metric=family.quota[model]))
    return rungs


def plan(request: Request, config: LadderConfig) -> tuple[Rung, ...]:
    """The full ordered ladder for `request`. Raises RequestError."""
    validate(request, config)
    intent = config.intents[request.intent]
    rungs: list[Rung] = []
    width = request.width
    while width >= intent.min_width:
        rungs.extend(_gcp_rungs_at(width, length_at(request, width), intent.families, config))
        width //= 2
    floor_width = intent.min_width
    floor_hours = length_at(request, floor_width)
    for lane_name in intent.slurm_lanes:
        lane = config.slurm_lanes[lane_name]
        if lane.max_width >= floor_width:
            rungs.append(Rung(backend="slurm", width=floor_width, hours=floor_hours,
                              lane=lane_name))
    for gpu_type in intent.runpod_gpu_types:
        rungs.append(Rung(backend="runpod", width=floor_width, hours=floor_hours,
                          gpu_type=gpu_type))
    return tuple(rungs)


# Why a narrow rung sits where it does; GCP rungs are explained by width and length.
NARROW_WHY = {"slurm": "GCP exhausted at every width: SLURM lanes next",
              "runpod": "last resort, real dollars: only after GCP and SLURM miss"}


def explain(rung: Rung, request: Request, config: LadderConfig) -> str:
    """Why this rung sits where it does, in a few words (for the text table)."""
    if rung.backend in NARROW_WHY:
        return NARROW_WHY[rung.backend]
    if rung.width == request.width:
        where = f"requested width {rung.width}"
    else:
        where = f"degraded {request.width}→{rung.width}"
    short = is_short(rung.hours, config)
    comparison = "<" if short else "≥"
    order = SHORT_ORDER if short else LONG_ORDER
    kind = "short" if short else "long"
    return (f"{where}; {rung.hours:g} h {comparison} {config.short_threshold_hours:g} h: "
            f"{kind}, {'/'.join(order)}")
