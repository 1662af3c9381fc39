"""The ladder config: load, validate strictly, and expose as frozen data.

Every fact the ladder uses lives in the YAML file (the packaged `ladder.yaml`
or a user's `--ladder FILE`). Validation errors name the file, the line and the
key, because the person fixing them is looking at the YAML, not at Python.
"""

from __future__ import annotations

import os
import string as _string
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from router import yamlsafe

PACKAGED_LADDER = Path(__file__).with_name("ladder.yaml")
ALLOWED_WIDTHS = (1, 2, 4, 8)
PROVISIONING_MODELS = ("SPOT", "FLEX_START", "STANDARD")

# Longest wall-clock (or total GPU-hours) a request or a §9 phase may name:
# ~114 years. Bounding it keeps every length the planner derives (x8 at most)
# finite, so JSON output never carries Infinity.
MAX_HOURS = 1_000_000.0
MAX_NAME_CHARS = 200
MAX_STRING_CHARS = 4096
# Control characters (NUL, newline, ESC...), invisible format characters (bidi
# overrides), undecodable bytes (surrogates from argv) and line/paragraph
# separators: none belongs in a name, and each can forge or split a message line.
_NOT_TEXT = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Upper bound of each number in the config (every one must also be > 0).
_LIMITS: dict[str, float] = {
    "short_threshold_hours": 10_000, "flex_start_max_run_hours": 10_000,
    "gcp_attempt_cap_per_day": 1_000_000, "max_wait_minutes": 1_000_000,
    "boot_disk_gb": 65_536,  # Compute Engine's largest persistent disk
    "flex_start_margin_hours": 10_000, "request_timeout_seconds": 86_400,
    "operation_timeout_seconds": 604_800,
}


def text_problem(value: str) -> str | None:
    """Why `value` is not plain one-line text, or None."""
    for char in value:
        category = unicodedata.category(char)
        if category == "Cs":  # how Python carries a byte that is not UTF-8 (argv, paths)
            return "is not valid UTF-8 text"
        if category in _NOT_TEXT:
            return f"contains a control character ({char!r})"
    return None


def name_problem(value: object, what: str = "name") -> str | None:
    """Why `value` is not a usable intent/family/lane/phase name, or None."""
    if not isinstance(value, str) or not value.strip():
        return f"{what} must be a non-empty string"
    if len(value) > MAX_NAME_CHARS:
        return f"{what} is longer than {MAX_NAME_CHARS} characters"
    problem = text_problem(value)
    return f"{what} {brief(value)} {problem}" if problem else None


def brief(value: object, limit: int = 60) -> str:
    """repr(value), cut short: an error message echoes input, but one line of it."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def shown_path(path: str) -> str:
    """A file name for a message; escaped if it would break the one line."""
    return repr(path)[1:-1] if text_problem(path) else path


class ConfigError(ValueError):
    """A ladder config that does not load or does not fit the schema."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = f"{shown_path(path)}:{line}" if line else shown_path(path)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Family:
    name: str
    gpu: str
    machine_type_template: str
    widths: tuple[int, ...]
    provisioning: tuple[str, ...]
    zones: tuple[str, ...]
    quota: dict[str, str]

    def machine_type(self, width: int) -> str:
        return self.machine_type_template.format(width=width)


@dataclass(frozen=True)
class SlurmLane:
    name: str
    partition: str
    gres_type: str
    account: str | None
    max_width: int
    max_wait_minutes: float


@dataclass(frozen=True)
class Intent:
    name: str
    families: tuple[str, ...]
    min_width: int
    slurm_lanes: tuple[str, ...]
    runpod_gpu_types: tuple[str, ...]


@dataclass(frozen=True)
class GcpSettings:
    boot_image: str = ("projects/deeplearning-platform-release/global/images/family/"
                       "common-cu124-debian-11-py310")
    network: str = "global/networks/default"
    boot_disk_gb: int = 200
    flex_start_margin_hours: float = 1.0
    request_timeout_seconds: float = 30.0
    operation_timeout_seconds: float = 600.0


@dataclass(frozen=True)
class LadderConfig:
    source: str
    short_threshold_hours: float
    flex_start_max_run_hours: float
    gcp_attempt_cap_per_day: int
    ledger: str | None  # an SQLite path or a postgresql:// URL; None: the state dir
    families: dict[str, Family]
    slurm_lanes: dict[str, SlurmLane]
    runpod_cloud_type: str
    runpod_gpu_types: tuple[str, ...]
    intents: dict[str, Intent]
    gcp: GcpSettings = GcpSettings()
    ledger_day_timezone: str = "UTC"  # where the per-day cap's day begins and ends

    @property
    def ledger_path(self) -> str | None:
        """The old name of `ledger`."""
        return self.ledger


class _Reader:
    """Typed access to a located document, raising ConfigError with lines."""

    def __init__(self, source: str, located: yamlsafe.Located) -> None:
        self.source = source
        self.located = located

    def fail(self, path: tuple[Any, ...], message: str) -> ConfigError:
        return ConfigError(self.source, self.located.line_of(path), message)

    def key_name(self, path: tuple[Any, ...]) -> str:
        # Keys are input too: a control character or a megabyte of key stays out.
        parts = (str(p) if isinstance(p, int) or (len(str(p)) <= MAX_NAME_CHARS
                                                   and not text_problem(str(p)))
                 else brief(p, 40) for p in path)
        return ".".join(parts) or "<document>"

    def mapping(self, value: Any, path: tuple[Any, ...], required: set[str],
                optional: set[str] = frozenset()) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"{self.key_name(path)}: expected a mapping")
        for key in value:
            if key not in required and key not in optional:
                allowed = ", ".join(sorted(required | set(optional)))
                raise self.fail((*path, key),
                                f"{self.key_name((*path, key))}: unknown key (allowed: {allowed})")
        for key in sorted(required):
            if key not in value:
                raise self.fail(path, f"{self.key_name((*path, key))}: required key is missing")
        return value

    def string(self, value: Any, path: tuple[Any, ...]) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"{self.key_name(path)}: expected a non-empty string")
        if len(value) > MAX_STRING_CHARS:
            raise self.fail(path, f"{self.key_name(path)}: longer than {MAX_STRING_CHARS} "
                                  "characters")
        problem = text_problem(value)
        if problem:
            raise self.fail(path, f"{self.key_name(path)}: {brief(value)} {problem}")
        return value

    def name(self, value: Any, path: tuple[Any, ...], what: str) -> str:
        """An intent, family or lane name (a mapping key, or a reference to one)."""
        problem = name_problem(value, what)
        if problem:
            raise self.fail(path, f"{self.key_name(path)}: {problem}")
        return str(value)

    def names(self, value: Any, path: tuple[Any, ...], what: str) -> tuple[str, ...]:
        items = self.strings(value, path)
        return tuple(self.name(v, (*path, i), what) for i, v in enumerate(items))

    def strings(self, value: Any, path: tuple[Any, ...], *, unique: bool = True) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(path, f"{self.key_name(path)}: expected a non-empty list of strings")
        items = tuple(self.string(v, (*path, i)) for i, v in enumerate(value))
        if unique and len(set(items)) != len(items):
            raise self.fail(path, f"{self.key_name(path)}: entries must be unique")
        return items

    def number(self, value: Any, path: tuple[Any, ...], *, integer: bool = False) -> float:
        maximum = _LIMITS[path[-1]]
        ok = isinstance(value, int) if integer else isinstance(value, int | float)
        # Compared, never converted: float(10**400) raises, and nan fails both tests.
        if isinstance(value, bool) or not ok or not 0 < value <= maximum:
            kind = "a positive integer" if integer else "a positive number"
            raise self.fail(path, f"{self.key_name(path)}: expected {kind} up to {maximum:g}, "
                                  f"got {brief(value)}")
        return value

    def width(self, value: Any, path: tuple[Any, ...]) -> int:
        if isinstance(value, bool) or value not in ALLOWED_WIDTHS:
            allowed = ", ".join(map(str, ALLOWED_WIDTHS))
            raise self.fail(path, f"{self.key_name(path)}: width must be one of {allowed}, "
                                  f"got {brief(value)}")
        return int(value)


def _families(r: _Reader, raw: Any) -> dict[str, Family]:
    if not isinstance(raw, dict) or not raw:
        raise r.fail(("families",), "families: expected a non-empty mapping")
    families = {}
    for name, body in raw.items():
        p = ("families", name)
        r.name(name, p, "family name")
        r.mapping(body, p, {"gpu", "machine_type", "widths", "provisioning", "zones", "quota"})
        template = r.string(body["machine_type"], (*p, "machine_type"))
        if "{width}" not in template:
            raise r.fail((*p, "machine_type"),
                         f"{r.key_name((*p, 'machine_type'))}: template must contain {{width}}")
        _check_template(r, template, (*p, "machine_type"))
        widths_raw = body["widths"]
        if not isinstance(widths_raw, list) or not widths_raw:
            raise r.fail((*p, "widths"), f"{r.key_name((*p, 'widths'))}: expected a list")
        widths = tuple(sorted({r.width(w, (*p, "widths", i)) for i, w in enumerate(widths_raw)}))
        provisioning = r.strings(body["provisioning"], (*p, "provisioning"))
        for i, model in enumerate(provisioning):
            if model not in PROVISIONING_MODELS:
                raise r.fail((*p, "provisioning", i),
                             f"{r.key_name((*p, 'provisioning'))}: unknown provisioning model "
                             f"{model!r} (allowed: {', '.join(PROVISIONING_MODELS)})")
        zones = r.strings(body["zones"], (*p, "zones"))
        quota_raw = r.mapping(body["quota"], (*p, "quota"), set(provisioning))
        quota = {m: r.string(quota_raw[m], (*p, "quota", m)) for m in provisioning}
        families[name] = Family(name=str(name), gpu=r.string(body["gpu"], (*p, "gpu")),
                                machine_type_template=template, widths=widths,
                                provisioning=provisioning, zones=zones, quota=quota)
    return families


def _check_template(r: _Reader, template: str, path: tuple[Any, ...]) -> None:
    # str.format runs at plan time: any other field ({x}, {0}, {width.real}) is a
    # KeyError there, and a format spec ({width:>999999999}) a memory bomb.
    try:
        fields = [(f, spec, conv) for _, f, spec, conv in _string.Formatter().parse(template)
                  if f is not None]
    except ValueError as exc:
        raise r.fail(path, f"{r.key_name(path)}: bad template: {exc}") from None
    if any(f != "width" or spec or conv for f, spec, conv in fields):
        raise r.fail(path, f"{r.key_name(path)}: the template's only placeholder may be "
                           "{width}")


def _lanes(r: _Reader, raw: Any) -> dict[str, SlurmLane]:
    if not isinstance(raw, list):
        raise r.fail(("slurm_lanes",), "slurm_lanes: expected a list (it may be empty)")
    lanes: dict[str, SlurmLane] = {}
    for i, body in enumerate(raw):
        p = ("slurm_lanes", i)
        r.mapping(body, p, {"name", "partition", "gres_type", "max_width", "max_wait_minutes"},
                  {"account"})
        name = r.name(body["name"], (*p, "name"), "lane name")
        if name in lanes:
            raise r.fail((*p, "name"), f"slurm_lanes: duplicate lane name {name!r}")
        account = body.get("account")
        lanes[name] = SlurmLane(
            name=name,
            partition=r.string(body["partition"], (*p, "partition")),
            gres_type=r.string(body["gres_type"], (*p, "gres_type")),
            account=None if account is None else r.string(account, (*p, "account")),
            max_width=r.width(body["max_width"], (*p, "max_width")),
            max_wait_minutes=r.number(body["max_wait_minutes"], (*p, "max_wait_minutes")),
        )
    return lanes


def _intents(r: _Reader, raw: Any, families: dict[str, Family], lanes: dict[str, SlurmLane],
             runpod_types: tuple[str, ...]) -> dict[str, Intent]:
    if not isinstance(raw, dict) or not raw:
        raise r.fail(("intents",), "intents: expected a non-empty mapping")
    intents = {}
    for name, body in raw.items():
        p = ("intents", name)
        r.name(name, p, "intent name")
        r.mapping(body, p, {"families", "min_width", "runpod_gpu_types"}, {"slurm_lanes"})
        fams = r.names(body["families"], (*p, "families"), "family name")
        for i, fam in enumerate(fams):
            if fam not in families:
                raise r.fail((*p, "families", i),
                             f"{r.key_name((*p, 'families'))}: unknown family {fam!r}")
        min_width = r.width(body["min_width"], (*p, "min_width"))
        if not any(min_width in families[f].widths for f in fams):
            raise r.fail((*p, "min_width"),
                         f"{r.key_name((*p, 'min_width'))}: no family offers width {min_width}")
        lane_names = (r.names(body["slurm_lanes"], (*p, "slurm_lanes"), "lane name")
                      if "slurm_lanes" in body else tuple(lanes))
        for i, lane in enumerate(lane_names):
            if lane not in lanes:
                raise r.fail((*p, "slurm_lanes", i),
                             f"{r.key_name((*p, 'slurm_lanes'))}: unknown lane {lane!r}")
        gpu_types = r.strings(body["runpod_gpu_types"], (*p, "runpod_gpu_types"))
        for i, gpu in enumerate(gpu_types):
            if gpu not in runpod_types:
                raise r.fail((*p, "runpod_gpu_types", i),
                             f"{r.key_name((*p, 'runpod_gpu_types'))}: {gpu!r} is not in "
                             "runpod.gpu_types")
        intents[str(name)] = Intent(name=str(name), families=fams, min_width=min_width,
                                    slurm_lanes=lane_names, runpod_gpu_types=gpu_types)
    return intents


def parse(text: str, source: str) -> LadderConfig:
    """Validate ladder YAML text; `source` names it in error messages."""
    try:
        located = yamlsafe.load(text)
    except yamlsafe.YamlError as exc:
        raise ConfigError(source, exc.line, exc.message) from None
    r = _Reader(source, located)
    top = r.mapping(located.data, (), {
        "version", "short_threshold_hours", "flex_start_max_run_hours", "gcp_attempt_cap_per_day",
        "families", "slurm_lanes", "runpod", "intents"},
        {"ledger", "ledger_path", "ledger_day_timezone", "gcp"})
    if top["version"] != 1:
        raise r.fail(("version",), "version: unsupported ladder config version "
                                   f"{brief(top['version'])} (expected 1)")
    runpod = r.mapping(top["runpod"], ("runpod",), {"cloud_type", "gpu_types"})
    cloud_type = r.string(runpod["cloud_type"], ("runpod", "cloud_type"))
    if cloud_type not in ("SECURE", "COMMUNITY", "ALL"):
        raise r.fail(("runpod", "cloud_type"),
                     "runpod.cloud_type: expected SECURE, COMMUNITY or ALL")
    runpod_types = r.strings(runpod["gpu_types"], ("runpod", "gpu_types"))
    families = _families(r, top["families"])
    lanes = _lanes(r, top["slurm_lanes"])
    ledger = _ledger(r, top)
    day_timezone = _day_timezone(r, top)
    gcp = GcpSettings()
    if "gcp" in top:
        raw = r.mapping(top["gcp"], ("gcp",), set(), set(GcpSettings.__dataclass_fields__))
        values = {}
        for key, value in raw.items():
            if key in ("boot_image", "network"):
                values[key] = r.string(value, ("gcp", key))
            else:
                values[key] = r.number(value, ("gcp", key), integer=key == "boot_disk_gb")
        gcp = GcpSettings(**values)
    return LadderConfig(
        source=source,
        short_threshold_hours=r.number(top["short_threshold_hours"], ("short_threshold_hours",)),
        flex_start_max_run_hours=r.number(top["flex_start_max_run_hours"],
                                          ("flex_start_max_run_hours",)),
        gcp_attempt_cap_per_day=int(r.number(top["gcp_attempt_cap_per_day"],
                                             ("gcp_attempt_cap_per_day",), integer=True)),
        ledger=ledger,
        families=families,
        slurm_lanes=lanes,
        runpod_cloud_type=cloud_type,
        runpod_gpu_types=runpod_types,
        intents=_intents(r, top["intents"], families, lanes, runpod_types),
        gcp=gcp,
        ledger_day_timezone=day_timezone,
    )


def _ledger(r: _Reader, top: dict[str, Any]) -> str | None:
    """`ledger` (or its old name `ledger_path`): a path, or a postgresql://
    URL without a password (that comes from PGPASSWORD or ~/.pgpass: a
    config file is committed and shared)."""
    if "ledger" in top and "ledger_path" in top:
        raise r.fail(("ledger_path",), "ledger_path: the old name of `ledger`: give only one")
    key = "ledger" if "ledger" in top else "ledger_path"
    if top.get(key) is None:
        return None
    value = r.string(top[key], (key,))
    if "://" not in value:
        return value
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(value)
        query = parse_qsl(parts.query)
        password = parts.password
    except ValueError:
        raise r.fail((key,), f"{key}: not a URL: {brief(value)}") from None
    if parts.scheme not in ("postgresql", "postgres"):
        raise r.fail((key,), f"{key}: unsupported URL scheme {brief(parts.scheme)}: use a "
                             "path (SQLite) or postgresql://HOST/DB")
    if password is not None or any(k == "password" for k, _ in query):
        raise r.fail((key,), f"{key}: the URL holds a password: remove it, and give it in "
                             "PGPASSWORD or ~/.pgpass (docs/ledger.md)")
    return value


def _day_timezone(r: _Reader, top: dict[str, Any]) -> str:
    if "ledger_day_timezone" not in top:
        return "UTC"
    value = r.string(top["ledger_day_timezone"], ("ledger_day_timezone",))
    if value == "UTC":
        return value  # always known; the lint loads this config on every commit
    from zoneinfo import ZoneInfo

    try:
        ZoneInfo(value)
    except (ValueError, OSError, KeyError):
        raise r.fail(("ledger_day_timezone",), "ledger_day_timezone: unknown time zone "
                     f"{brief(value)} (an IANA name such as UTC or Europe/Berlin)") from None
    return value


def load(path: str | os.PathLike[str] | None = None) -> LadderConfig:
    """Load the ladder config at `path`, or the packaged one."""
    from router import textfile

    file = Path(path) if path is not None else PACKAGED_LADDER
    source = str(path) if path is not None else str(PACKAGED_LADDER)
    try:
        text = textfile.read(file, yamlsafe.DEFAULT_MAX_BYTES, "ladder config")
    except textfile.TextFileError as exc:
        raise ConfigError(source, exc.line, exc.message) from None
    return parse(text, source)
