"""The capacity model `simulate` runs on: what each rung's backend would
answer, as processes in time.

- GCP, per (zone, machine type, provisioning model): an alternating
  in-stock / out-of-stock process (exponential spells with the given means),
  the per-insert latency, and a per-hour preemption rate (SPOT);
- SLURM, per lane: the queue wait (exponential, mean in minutes), the share
  of attempts whose controller cannot be reached, and a preemption rate;
- RunPod, per GPU type: the share of creates that find capacity, and the
  create latency.

A rung the model says nothing about is reported as such ("no information")
and treated as having no capacity: the model never invents numbers for it.

File format (YAML; every number bounded, errors as `file:line: message`):

    version: 1
    other_gcp_dispatches_per_day: 0      # optional: the per-day cap's other users
    gcp:                                 # later entries override earlier ones
      - machine_types: [a2-ultragpu-8g]
        provisioning: [SPOT, FLEX_START, STANDARD]
        zones: all                       # or a list of zones
        mean_hours_in_stock: 0.25
        mean_hours_out_of_stock: 8
        preemptions_per_hour: 0.1        # optional, default 0
        insert_latency_seconds: 20       # optional, default 15
    slurm:
      campus-a100:
        mean_queue_wait_minutes: 45
        mean_queue_wait_minutes_by_width: {8: 240}   # optional: wider jobs wait longer
        unavailable_share: 0
    runpod:
      NVIDIA A100 80GB PCIe: {available_share: 0.9, create_latency_seconds: 40}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from router import yamlsafe
from router.config import (
    ALLOWED_WIDTHS,
    PROVISIONING_MODELS,
    LadderConfig,
    brief,
    shown_path,
    text_problem,
)

MAX_HOURS = 1_000_000.0
MIN_MEAN_HOURS = 1e-6  # a spell shorter than 3.6 ms is not a stock process (0 means never)
MAX_RATE = 1_000_000.0  # events per hour
MAX_LATENCY_S = 86_400.0
MAX_WAIT_MINUTES = 1_000_000.0
MAX_DISPATCHES = 1_000_000
DEFAULT_INSERT_LATENCY_S = 15.0
DEFAULT_SUBMIT_LATENCY_S = 1.0
DEFAULT_CREATE_LATENCY_S = 30.0


class ModelError(ValueError):
    """A capacity model that does not load or does not fit the ladders."""


@dataclass(frozen=True)
class Stock:
    """One GCP (zone, machine type, provisioning)'s availability process."""

    mean_hours_in: float
    mean_hours_out: float
    preemptions_per_hour: float = 0.0
    insert_latency_seconds: float = DEFAULT_INSERT_LATENCY_S
    samples: int | None = None  # attempts it was estimated from (None: written by hand)

    @property
    def in_stock_share(self) -> float:
        return self.mean_hours_in / (self.mean_hours_in + self.mean_hours_out)


@dataclass(frozen=True)
class Lane:
    mean_queue_wait_minutes: float
    unavailable_share: float = 0.0
    preemptions_per_hour: float = 0.0
    submit_latency_seconds: float = DEFAULT_SUBMIT_LATENCY_S
    samples: int | None = None
    # A wider job waits longer for its nodes: per-width means override the mean.
    wait_minutes_by_width: dict[int, float] = field(default_factory=dict)

    def mean_wait(self, width: int) -> float:
        return self.wait_minutes_by_width.get(width, self.mean_queue_wait_minutes)


@dataclass(frozen=True)
class Pods:
    available_share: float
    create_latency_seconds: float = DEFAULT_CREATE_LATENCY_S
    preemptions_per_hour: float = 0.0
    samples: int | None = None


@dataclass(frozen=True)
class GcpEntry:
    machine_types: tuple[str, ...]
    provisioning: tuple[str, ...]
    zones: tuple[str, ...] | None  # None: every zone
    stock: Stock
    line: int | None = None


@dataclass
class CapacityModel:
    source: str
    gcp: list[GcpEntry] = field(default_factory=list)
    slurm: dict[str, Lane] = field(default_factory=dict)
    runpod: dict[str, Pods] = field(default_factory=dict)
    other_gcp_dispatches_per_day: int = 0
    notes: list[str] = field(default_factory=list)  # what an estimate assumed
    lines: dict[tuple[str, str], int] = field(default_factory=dict)  # (section, name) -> line
    _cache: dict[tuple[str, str, str], Stock | None] = field(default_factory=dict)

    def stock(self, zone: str, machine_type: str, provisioning: str) -> Stock | None:
        """The process for this key (the last entry that matches), or None."""
        key = (zone, machine_type, provisioning)
        if key not in self._cache:
            found = None
            for entry in self.gcp:
                if machine_type in entry.machine_types and provisioning in entry.provisioning \
                        and (entry.zones is None or zone in entry.zones):
                    found = entry.stock
            self._cache[key] = found
        return self._cache[key]

    def estimates(self) -> list[dict[str, Any]]:
        """Every entry, with its sample count (None: written by hand)."""
        out: list[dict[str, Any]] = []
        for entry in self.gcp:
            for machine_type in entry.machine_types:
                for provisioning in entry.provisioning:
                    for zone in entry.zones or (None,):
                        out.append({"backend": "gcp", "zone": zone,
                                    "machine_type": machine_type, "provisioning": provisioning,
                                    "in_stock_share": round(entry.stock.in_stock_share, 4),
                                    "insert_latency_seconds": entry.stock.insert_latency_seconds,
                                    "samples": entry.stock.samples})
        for name, lane in self.slurm.items():
            out.append({"backend": "slurm", "lane": name,
                        "mean_queue_wait_minutes": round(lane.mean_queue_wait_minutes, 2),
                        "unavailable_share": round(lane.unavailable_share, 4),
                        "samples": lane.samples})
        for name, pods in self.runpod.items():
            out.append({"backend": "runpod", "gpu_type": name,
                        "available_share": round(pods.available_share, 4),
                        "samples": pods.samples})
        return out

    def check_against(self, configs: list[LadderConfig]) -> None:
        """Every name in the model must be a rung of at least one policy's
        ladder: a typo would otherwise silently read as "no information"."""
        machine_types = {f.machine_type(w) for c in configs for f in c.families.values()
                         for w in f.widths}
        zones = {z for c in configs for f in c.families.values() for z in f.zones}
        lanes = {lane for c in configs for lane in c.slurm_lanes}
        gpus = {g for c in configs for g in c.runpod_gpu_types}
        for entry in self.gcp:
            for name in entry.machine_types:
                if name not in machine_types:
                    raise self._unknown(entry.line, "machine type", name, machine_types)
            for name in entry.zones or ():
                if name not in zones:
                    raise self._unknown(entry.line, "zone", name, zones)
        for name in self.slurm:
            if name not in lanes:
                raise self._unknown(self.lines.get(("slurm", name)), "SLURM lane", name, lanes)
        for name in self.runpod:
            if name not in gpus:
                raise self._unknown(self.lines.get(("runpod", name)), "RunPod GPU type", name,
                                    gpus)

    def _unknown(self, line: int | None, what: str, name: str, known: set[str]) -> ModelError:
        import difflib

        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        where = f"{shown_path(self.source)}:{line}" if line else shown_path(self.source)
        return ModelError(f"{where}: unknown {what} {brief(name)}: no policy's ladder has "
                          f"it{hint}")


# ---- loading a model file -----------------------------------------------------------------

class _Reader:
    def __init__(self, source: str, located: yamlsafe.Located) -> None:
        self.source = source
        self.located = located

    def fail(self, path: tuple[Any, ...], message: str) -> ModelError:
        line = self.located.line_of(path)
        where = f"{shown_path(self.source)}:{line}" if line else shown_path(self.source)
        return ModelError(f"{where}: {message}")

    def key(self, path: tuple[Any, ...]) -> str:
        return ".".join(str(p) if len(str(p)) <= 60 and not text_problem(str(p))
                        else brief(p, 40) for p in path) or "<document>"

    def mapping(self, value: Any, path: tuple[Any, ...], allowed: set[str],
                required: set[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"{self.key(path)}: expected a mapping")
        for key in value:
            if key not in allowed:
                raise self.fail((*path, key), f"{self.key((*path, key))}: unknown key "
                                              f"(allowed: {', '.join(sorted(allowed))})")
        for key in sorted(required):
            if key not in value:
                raise self.fail(path, f"{self.key((*path, key))}: required key is missing")
        return value

    def number(self, value: Any, path: tuple[Any, ...], maximum: float) -> float:
        # Compared, never converted: float(10**400) raises, and nan fails the test.
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not 0 <= value <= maximum:
            raise self.fail(path, f"{self.key(path)}: expected a number within 0..{maximum:g}, "
                                  f"got {brief(value)}")
        return float(value)

    def names(self, value: Any, path: tuple[Any, ...]) -> tuple[str, ...]:
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(v, str) and v.strip() and not text_problem(v)
                                and len(v) <= 200 for v in items):
            raise self.fail(path, f"{self.key(path)}: expected a name or a non-empty list of "
                                  "names")
        return tuple(items)


def parse(text: str, source: str) -> CapacityModel:
    try:
        located = yamlsafe.load(text)
    except yamlsafe.YamlError as exc:
        raise ModelError(f"{shown_path(source)}:{exc.line}: {exc.message}") from None
    r = _Reader(source, located)
    top = r.mapping(located.data, (), {"version", "other_gcp_dispatches_per_day", "gcp", "slurm",
                                       "runpod"}, {"version"})
    if top["version"] != 1:
        raise r.fail(("version",), f"version: unsupported capacity model version "
                                   f"{brief(top['version'])} (expected 1)")
    model = CapacityModel(source)
    others = top.get("other_gcp_dispatches_per_day", 0)
    if isinstance(others, bool) or not isinstance(others, int) \
            or not 0 <= others <= MAX_DISPATCHES:
        raise r.fail(("other_gcp_dispatches_per_day",),
                     f"other_gcp_dispatches_per_day: expected an integer within "
                     f"0..{MAX_DISPATCHES}, got {brief(others)}")
    model.other_gcp_dispatches_per_day = others
    _gcp(r, top.get("gcp", []), model)
    _slurm(r, top.get("slurm", {}), model)
    _runpod(r, top.get("runpod", {}), model)
    return model


def _gcp(r: _Reader, raw: Any, model: CapacityModel) -> None:
    if not isinstance(raw, list):
        raise r.fail(("gcp",), "gcp: expected a list of entries")
    for i, body in enumerate(raw):
        p = ("gcp", i)
        r.mapping(body, p, {"machine_types", "provisioning", "zones", "mean_hours_in_stock",
                            "mean_hours_out_of_stock", "preemptions_per_hour",
                            "insert_latency_seconds"},
                  {"machine_types", "provisioning", "zones", "mean_hours_in_stock",
                   "mean_hours_out_of_stock"})
        models = r.names(body["provisioning"], (*p, "provisioning"))
        for model_name in models:
            if model_name not in PROVISIONING_MODELS:
                raise r.fail((*p, "provisioning"),
                             f"{r.key((*p, 'provisioning'))}: unknown provisioning model "
                             f"{brief(model_name)} (allowed: {', '.join(PROVISIONING_MODELS)})")
        zones = None if body["zones"] == "all" else r.names(body["zones"], (*p, "zones"))
        stock_in = r.number(body["mean_hours_in_stock"], (*p, "mean_hours_in_stock"), MAX_HOURS)
        stock_out = r.number(body["mean_hours_out_of_stock"], (*p, "mean_hours_out_of_stock"),
                             MAX_HOURS)
        for key, value in (("mean_hours_in_stock", stock_in),
                           ("mean_hours_out_of_stock", stock_out)):
            if 0 < value < MIN_MEAN_HOURS:
                raise r.fail((*p, key), f"{r.key((*p, key))}: expected 0 or at least "
                                        f"{MIN_MEAN_HOURS:g} hours, got {value!r}")
        if stock_in == 0 and stock_out == 0:
            raise r.fail(p, f"{r.key(p)}: mean_hours_in_stock and mean_hours_out_of_stock "
                            "cannot both be 0")
        stock = Stock(stock_in, stock_out,
                      r.number(body.get("preemptions_per_hour", 0),
                               (*p, "preemptions_per_hour"), MAX_RATE),
                      r.number(body.get("insert_latency_seconds", DEFAULT_INSERT_LATENCY_S),
                               (*p, "insert_latency_seconds"), MAX_LATENCY_S))
        model.gcp.append(GcpEntry(r.names(body["machine_types"], (*p, "machine_types")), models,
                                  zones, stock, r.located.line_of(p)))


def _share(r: _Reader, value: Any, path: tuple[Any, ...]) -> float:
    return r.number(value, path, 1.0)


def _slurm(r: _Reader, raw: Any, model: CapacityModel) -> None:
    if not isinstance(raw, dict):
        raise r.fail(("slurm",), "slurm: expected a mapping of lane name to its queue")
    for name, body in raw.items():
        p = ("slurm", name)
        r.names(name, p)
        r.mapping(body, p, {"mean_queue_wait_minutes", "unavailable_share",
                            "preemptions_per_hour", "submit_latency_seconds",
                            "mean_queue_wait_minutes_by_width"},
                  {"mean_queue_wait_minutes"})
        by_width = body.get("mean_queue_wait_minutes_by_width", {})
        q = (*p, "mean_queue_wait_minutes_by_width")
        if not isinstance(by_width, dict):
            raise r.fail(q, f"{r.key(q)}: expected a mapping of width to minutes")
        waits = {}
        for width, minutes in by_width.items():
            if isinstance(width, bool) or width not in ALLOWED_WIDTHS:
                raise r.fail((*q, width), f"{r.key(q)}: width must be one of "
                                          f"{', '.join(map(str, ALLOWED_WIDTHS))}, got "
                                          f"{brief(width)}")
            waits[int(width)] = r.number(minutes, (*q, width), MAX_WAIT_MINUTES)
        model.slurm[name] = Lane(
            r.number(body["mean_queue_wait_minutes"], (*p, "mean_queue_wait_minutes"),
                     MAX_WAIT_MINUTES),
            _share(r, body.get("unavailable_share", 0), (*p, "unavailable_share")),
            r.number(body.get("preemptions_per_hour", 0), (*p, "preemptions_per_hour"),
                     MAX_RATE),
            r.number(body.get("submit_latency_seconds", DEFAULT_SUBMIT_LATENCY_S),
                     (*p, "submit_latency_seconds"), MAX_LATENCY_S),
            wait_minutes_by_width=waits)
        model.lines[("slurm", name)] = r.located.line_of(p) or 0


def _runpod(r: _Reader, raw: Any, model: CapacityModel) -> None:
    if not isinstance(raw, dict):
        raise r.fail(("runpod",), "runpod: expected a mapping of GPU type to its availability")
    for name, body in raw.items():
        p = ("runpod", name)
        r.names(name, p)
        r.mapping(body, p, {"available_share", "create_latency_seconds", "preemptions_per_hour"},
                  {"available_share"})
        model.runpod[name] = Pods(
            _share(r, body["available_share"], (*p, "available_share")),
            r.number(body.get("create_latency_seconds", DEFAULT_CREATE_LATENCY_S),
                     (*p, "create_latency_seconds"), MAX_LATENCY_S),
            r.number(body.get("preemptions_per_hour", 0), (*p, "preemptions_per_hour"),
                     MAX_RATE))
        model.lines[("runpod", name)] = r.located.line_of(p) or 0


def load(path: str) -> CapacityModel:
    from router import textfile

    try:
        text = textfile.read(path, yamlsafe.DEFAULT_MAX_BYTES, "capacity model")
    except textfile.TextFileError as exc:
        where = f"{shown_path(path)}:{exc.line}" if exc.line else shown_path(path)
        raise ModelError(f"{where}: {exc.message}") from None
    return parse(text, path)
