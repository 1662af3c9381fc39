"""Launcher families as data: which commands start work on several GPUs, and
how many processes each says it runs.

The packaged families live in `critics/launchers.yaml` (its header and
docs/critic.md describe the format). A workspace adds or replaces families
with its own file, named by the `launchers` key of `[tool.workflow-lint]`;
families with the same `name` replace the packaged ones, new ones are tried
first. Files are loaded with the project's bounded YAML loader and validated
with one `file:line: message` error (LauncherError).

`Families.recognise(words, env)` answers for one simple command: the family
that recognised it, its stated count (None: every GPU it can see), the device
ids it pins by its own flags, and whether CUDA_VISIBLE_DEVICES caps it. The
device arithmetic (pins ∩ count, ids past the width) is the walk's, in
critics/launch.py.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

PACKAGED = Path(__file__).with_name("launchers.yaml")
ALL = "all"
# Counts past this are read as OVER, "more than MAX_COUNT" (critics/launch.py).
MAX_COUNT = 4096
OVER = MAX_COUNT + 1
# A wrapper's inner command starts within this many words of the wrapper
# (srun's and mpirun's options); further in is an argument, not a command.
MAX_WRAPPER_OPTIONS = 64
MAX_WRAP_DEPTH = 4
MAX_FAMILIES = 256
MAX_NAMES = 256  # names, flags or sources in one list
_PYTHON = re.compile(r"(?:python|pypy)[\d.]*")
_KEYS = {"name", "match", "count", "per_node", "default", "per", "machines", "devices",
         "include", "exclude", "pinned_by_env", "wraps", "work"}
_MATCH_KEYS = {"commands", "modules", "subcommands", "flags", "settings", "env", "unless"}
_FLAG = re.compile(r"-{1,2}[A-Za-z0-9][\w.-]*")
_WORD = re.compile(r"[A-Za-z0-9_.*?\[\]-]+")


class LauncherError(ValueError):
    """A launchers file that cannot be used: `path:line: message`."""


# ---- sources -----------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """Where a count may be written: a flag, a `key=` argument, a key inside a
    flag's `k=v,k=v` value, or an environment variable."""

    kind: str  # "flag" | "arg" | "inner" | "env"
    name: str
    key: str = ""

    @staticmethod
    def parse(text: str) -> Source | None:
        if text.startswith("$") and text[1:].isidentifier():
            return Source("env", text[1:])
        if text.endswith("=") and _WORD.fullmatch(text[:-1]) and not text.startswith("-"):
            return Source("arg", text[:-1])
        flag, _, key = text.partition(" ")
        if _FLAG.fullmatch(flag) and (not key or key.isidentifier()):
            return Source("inner", flag, key) if key else Source("flag", flag)
        return None

    def __str__(self) -> str:
        return {"env": f"${self.name}", "arg": f"{self.name}=",
                "inner": f"{self.name} {self.key}"}.get(self.kind, self.name)


class Words:
    """One command's words, indexed once: flag values, `key=value` arguments."""

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self.values: dict[str, str] = {}  # flag -> its last value ('' if none follows)
        self.present: set[str] = set()
        self.args: dict[str, str] = {}  # key -> value of a `key=value` word
        for i, word in enumerate(words):
            if word.startswith("-"):
                name, eq, value = word.partition("=")
                self.present.add(name)
                if eq:
                    self.values[name] = value
                elif i + 1 < len(words):
                    self.values[name] = words[i + 1]
                if len(word) > 2 and word[1] != "-" and word[2:].isascii() and \
                        word[2:].isdigit():
                    self.values[word[:2]] = word[2:]  # -n8, -N2
                    self.present.add(word[:2])
            elif "=" in word:
                key, _, value = word.partition("=")
                self.args[key] = value

    def has(self, flag: str) -> bool:
        return flag in self.present

    def value(self, source: Source, env: dict[str, str]) -> str | None:
        if source.kind == "flag":
            return self.values.get(source.name)
        if source.kind == "arg":
            return self.args.get(source.name)
        if source.kind == "env":
            return env.get(source.name)
        packed = self.values.get(source.name)
        if packed is None:
            return None
        found = None
        for part in packed.split(","):
            key, eq, value = part.partition("=")
            if eq and key.strip() == source.key:
                found = value.strip()
        return found


Factor = tuple[Source, ...]


@dataclass(frozen=True)
class Count:
    """A product of factors, or a sum of named parts of which colocated ones
    (a `shared` flag present) count once."""

    factors: tuple[Factor, ...] = ()
    parts: tuple[tuple[str, tuple[Factor, ...]], ...] = ()
    shared: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class Family:
    name: str
    commands: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    subcommands: tuple[tuple[str, ...], ...] = ()
    flags: tuple[str, ...] = ()
    settings: re.Pattern[str] | None = None
    env: tuple[tuple[str, str], ...] = ()
    unless: tuple[str, ...] = ()
    count: Count = field(default_factory=Count)
    per_node: tuple[Factor, ...] = ()
    default: int | None = 1  # None: every GPU it can see
    total: bool = False
    machines: Factor = ()
    devices: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    pinned_by_env: bool = True
    wraps: str = ""  # "" | "multiply" | "replace"
    split: bool = False
    opaque: bool = False  # runs a script the critic cannot see into

    @property
    def has_head(self) -> bool:
        return bool(self.commands or self.modules)


@dataclass
class Found:
    """What one command's launcher family says about it."""

    name: str
    count: int | None  # processes per node; None: every GPU it can see
    devices: list[str] | None = None  # ids its own flags pin (--include, --gpus 0,1)
    exclude: list[str] = field(default_factory=list)
    pinned_by_env: bool = True
    split: bool = False
    opaque: str | None = None  # the script it runs, when the critic cannot see into it


# Reads a count's text (after variable expansion) the way critics/launch.py
# does: an int, None for "the launcher decides", raising for a malformed one.
CountReader = Callable[[str | None, int | None, str], int | None]


@dataclass(frozen=True)
class Families:
    families: tuple[Family, ...]

    def __post_init__(self) -> None:
        # Indexes built once: exact command names to (order, family), and one
        # compiled pattern per family for glob names and module names.
        exact: dict[str, list[tuple[int, Family]]] = {}
        globs: list[tuple[int, re.Pattern[str], Family]] = []
        modules: list[tuple[re.Pattern[str], Family]] = []
        for order, fam in enumerate(self.families):
            for name in fam.commands:
                if not _is_glob(name):
                    exact.setdefault(name, []).append((order, fam))
            wild = [fnmatch.translate(n) for n in fam.commands if _is_glob(n)]
            if wild:
                globs.append((order, re.compile("|".join(wild)), fam))
            if fam.modules:
                modules.append((re.compile("|".join(fnmatch.translate(m)
                                                    for m in fam.modules)), fam))
        object.__setattr__(self, "_exact", exact)
        object.__setattr__(self, "_globs", globs)
        object.__setattr__(self, "_modules", modules)
        object.__setattr__(self, "count_literal", _count_literal(self.families))

    def split(self, words: list[str]) -> bool:
        """Does the command spread one model over the GPUs (device_map=auto)?"""
        joined = None
        for fam in self.families:
            if fam.split and fam.settings is not None:
                joined = joined if joined is not None else \
                    " ".join(words).lower().replace("-", "_")
                if fam.settings.search(joined):
                    return True
        return False

    def head(self, prog: list[str]) -> Family | None:
        """The family whose command or module starts `prog`."""
        if not prog:
            return None
        base = prog[0].rsplit("/", 1)[-1]
        candidates = list(self._exact.get(base, ()))  # type: ignore[attr-defined]
        candidates += [(order, fam) for order, pattern, fam in self._globs  # type: ignore[attr-defined]
                       if pattern.match(base)]
        # In file order: a workspace's own families come first.
        for _, fam in sorted(candidates, key=lambda item: item[0]):
            if _subcommand_ok(fam, prog[1:3]):
                return fam
        if _PYTHON.fullmatch(base) and "-m" in prog[1:-1]:
            at = prog.index("-m")
            module = prog[at + 1]
            for pattern, fam in self._modules:  # type: ignore[attr-defined]
                if pattern.match(module) and _subcommand_ok(fam, prog[at + 2:at + 4]):
                    return fam
        return None

    def recognise(self, prog: list[str], env: dict[str, str], read: CountReader,
                  expand: Callable[[str], str | None], depth: int = 0) -> Found | None:
        """The launcher family of a command (wrappers such as env and nohup
        already dropped), or None when no family fans it out."""
        fam = self.head(prog)
        index = Words(prog)
        if fam is None:
            fam = next((f for f in self.families if not f.split and f.flags and
                        any(index.has(flag) for flag in f.flags)), None)
        if fam is None or fam.split:
            return None
        if any(env.get(name) != value for name, value in fam.env) or \
                any(index.has(flag) for flag in fam.unless):
            return None
        if fam.opaque:
            return Found(fam.name, 1, opaque=" ".join(prog[:2])[:80])
        inner = None
        if fam.wraps and depth < MAX_WRAP_DEPTH:
            start = _inner_start(self, prog)
            if start is not None:
                inner = self.recognise(prog[start:], env, read, expand, depth + 1)
                index = Words(prog[:start])
        found = self._count(fam, index, env, read, expand)
        if inner is not None:
            # multiply: the inner launch runs once per task (srun --ntasks-per-node=1
            # torchrun --nproc_per_node=8 is 8); replace: the inner launch decides.
            if inner.opaque is not None and fam.wraps == "multiply" and \
                    found.count is not None and found.count >= 2:
                return found  # tasks that each run a script: parallel all the same
            if fam.wraps == "multiply" and inner.count is not None:
                tasks = found.count if found.count is not None else 1
                inner.count = min(tasks * inner.count, OVER)
            return inner
        return found

    def _count(self, fam: Family, index: Words, env: dict[str, str],
               read: CountReader, expand: Callable[[str], str | None]) -> Found:
        def text(flag: str) -> str | None:
            value = index.values.get(flag)
            return None if value is None else expand(value)

        devices = None
        for flag in fam.devices:
            value = text(flag)
            if value is not None and value.lower() != ALL:
                devices = _ids(value)
        for flag in fam.include:
            value = text(flag)
            if value is not None:
                devices = _host_ids(value)
        exclude: list[str] = []
        for flag in fam.exclude:
            value = text(flag)
            if value is not None:
                exclude = _host_ids(value) or []

        def factor(sources: Factor) -> tuple[bool, int | None]:
            for source in sources:
                value = index.value(source, env)
                if value is not None:
                    return True, read(value, None, f"{fam.name} {source}")
            return False, 1

        def product(factors: tuple[Factor, ...]) -> tuple[bool, int | None]:
            seen, total = False, 1
            for sources in factors:
                present, value = factor(sources)
                seen = seen or present
                total = None if value is None or total is None else \
                    min(total * value, OVER)
            return seen, total

        count: int | None
        seen, count = product(fam.per_node)
        if not seen:
            if fam.count.parts:
                seen, count = _sum_parts(fam, index, product)
            else:
                seen, count = product(fam.count.factors)
            if seen and fam.total and count is not None:
                _, machines = product((fam.machines,)) if fam.machines else (False, 1)
                if machines and machines > 1:
                    count = -(-count // machines)
        if not seen:
            count = len(devices) if devices is not None else fam.default
        return Found(fam.name, count, devices, exclude, fam.pinned_by_env)


def _count_literal(families: tuple[Family, ...]) -> re.Pattern[str]:
    """Where a launch writes a count as a number: any family's count flag
    (three characters or more: `-n 8` is too common a flag to read as a
    width), `key=N` arguments and keys (`trainer.n_gpus_per_node=8`,
    `dp_size=8`), with its number as group 1. For hardcoded-width."""
    flags: set[str] = set()
    keys: set[str] = set()
    for fam in families:
        factors = list(fam.count.factors) + list(fam.per_node) + \
            [f for _, part in fam.count.parts for f in part]
        for source in (s for factor in factors for s in factor):
            if source.kind == "flag" and len(source.name) >= 3:
                flags.add(source.name)
            elif source.kind == "arg":
                keys.add(source.name)
            elif source.kind == "inner":
                keys.add(source.key)
    alternatives = []
    if flags:
        names = "|".join(re.escape(f) for f in sorted(flags, key=len, reverse=True))
        alternatives.append(rf"(?<![\w-])(?:{names})(?:=|\s+)(\d+)\b")
    if keys:
        names = "|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True))
        alternatives.append(rf"(?<![\w.])(?:{names})=(\d+)\b")
    joined = "|".join(f"(?:{a})" for a in alternatives) or r"(?!x)x"
    return re.compile(joined)


def _sum_parts(fam: Family, index: Words, product) -> tuple[bool, int | None]:
    values: dict[str, int | None] = {}
    for name, factors in fam.count.parts:
        seen, value = product(factors)
        if seen:
            values[name] = value
    if not values:
        return False, 1
    groups = {name: {name} for name in values}
    for flag, names in fam.count.shared:
        if index.has(flag):
            merged = set().union(*(groups[n] for n in names if n in groups))
            for n in merged:
                groups[n] = merged
    total: int | None = 0
    for group in {frozenset(g) for g in groups.values()}:
        sizes = [values[n] for n in group]
        if any(s is None for s in sizes) or total is None:
            total = None
        else:
            total = min(total + max(sizes), OVER)  # type: ignore[type-var,operator]
    return True, total


def _is_glob(name: str) -> bool:
    return any(ch in name for ch in "*?[")


def _subcommand_ok(fam: Family, following: list[str]) -> bool:
    if not fam.subcommands:
        return True
    return any(tuple(following[:len(sub)]) == sub for sub in fam.subcommands)


def _inner_start(families: Families, prog: list[str]) -> int | None:
    """Where a wrapper's own options end and the launch it runs begins: after
    `--`, else the first word that starts a recognised launcher."""
    limit = min(len(prog), MAX_WRAPPER_OPTIONS + 1)
    if "--" in prog[1:limit]:
        return prog.index("--", 1) + 1
    for i in range(1, limit):
        if not prog[i].startswith("-") and families.head(prog[i:]) is not None:
            return i
    return None


def _ids(value: str) -> list[str]:
    return [d.strip() for d in value.split(",") if d.strip()]


def _host_ids(value: str) -> list[str] | None:
    """`localhost:2,3` or `host1:0,1@host2:0,1`: the first host's ids; a bare
    host (every GPU on it) gives None."""
    first = value.split("@", 1)[0]
    _, colon, ids = first.partition(":")
    return _ids(ids) if colon else None


# ---- loading -------------------------------------------------------------------

def _fail(path: object, line: int | None, message: str) -> LauncherError:
    return LauncherError(f"{path}:{line or 1}: {message}")


def _strings(value: object, where: str, path: object, line: int | None,
             check: Callable[[str], bool] | None = None, what: str = "") -> tuple[str, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_NAMES or \
            not all(isinstance(v, str) and v for v in value):
        raise _fail(path, line, f"{where} must be a list of 1 to {MAX_NAMES} strings")
    for v in value:
        if check is not None and not check(v):
            raise _fail(path, line, f"{where}: {v!r} is not {what}")
    return tuple(value)


def _factor(value: object, where: str, path: object, line: int | None) -> Factor:
    names = _strings(value, where, path, line)
    sources = []
    for text in names:
        source = Source.parse(text)
        if source is None:
            raise _fail(path, line, f"{where}: {text!r} is not a count source (--flag, -f, "
                                    "key=, '--flag key' or $NAME)")
        sources.append(source)
    return tuple(sources)


def _factors(value: object, where: str, path: object, line: int | None) -> tuple[Factor, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_NAMES:
        raise _fail(path, line, f"{where} must be a list of factors, each a list of sources")
    return tuple(_factor(v, where, path, line) for v in value)


def _settings(value: object, where: str, path: object, line: int | None) -> re.Pattern[str]:
    if not isinstance(value, dict) or not value:
        raise _fail(path, line, f"{where} must map setting names to lists of values")
    alternatives = []
    for key, values in value.items():
        if not isinstance(key, str) or not _WORD.fullmatch(key):
            raise _fail(path, line, f"{where}: {key!r} is not a setting name")
        vals = _strings(values, f"{where}.{key}", path, line)
        norm = key.lower().replace("-", "_")
        choices = "|".join(re.escape(v.lower().replace("-", "_")) for v in vals)
        alternatives.append(rf"(?<![a-z0-9]){re.escape(norm)}\s*[= :]\s*['\"]?(?:{choices})"
                            rf"(?![a-z0-9])")
    return re.compile("|".join(alternatives))


def _family(raw: object, at: tuple, path: object, lines) -> Family:
    line = lines.line_of(at)
    if not isinstance(raw, dict):
        raise _fail(path, line, "each launcher must be a mapping with a name")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise _fail(path, lines.line_of((*at, unknown[0])),
                    f"unknown launcher key {unknown[0]!r} (allowed: {', '.join(sorted(_KEYS))})")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise _fail(path, line, "a launcher needs a name (a string of at most 80 characters)")

    def ln(*key: object) -> int | None:
        return lines.line_of((*at, *key))

    where = f"launcher {name!r}"
    match = raw.get("match")
    if not isinstance(match, dict) or not match:
        raise _fail(path, ln("match"), f"{where}: match must be a mapping of selectors")
    bad = sorted(set(match) - _MATCH_KEYS)
    if bad:
        raise _fail(path, ln("match", bad[0]), f"{where}: unknown match key {bad[0]!r} "
                                                f"(allowed: {', '.join(sorted(_MATCH_KEYS))})")
    kw: dict[str, object] = {"name": name}
    for key in ("commands", "modules"):
        if key in match:
            kw[key] = _strings(match[key], f"{where} match.{key}", path, ln("match", key),
                               lambda v: bool(_WORD.fullmatch(v)), "a name")
    if "subcommands" in match:
        subs = _strings(match["subcommands"], f"{where} match.subcommands", path,
                        ln("match", "subcommands"))
        kw["subcommands"] = tuple(tuple(s.split()) for s in subs)
    for key in ("flags", "unless"):
        if key in match:
            kw[key] = _strings(match[key], f"{where} match.{key}", path, ln("match", key),
                               lambda v: bool(_FLAG.fullmatch(v)), "a flag")
    if "settings" in match:
        kw["settings"] = _settings(match["settings"], f"{where} match.settings", path,
                                   ln("match", "settings"))
    if "env" in match:
        pairs = _strings(match["env"], f"{where} match.env", path, ln("match", "env"),
                         lambda v: v.partition("=")[0].isidentifier() and "=" in v,
                         "NAME=VALUE")
        kw["env"] = tuple(tuple(p.split("=", 1)) for p in pairs)
    if not any(k in kw for k in ("commands", "modules", "flags", "settings")):
        raise _fail(path, ln("match"), f"{where}: match needs commands, modules, flags or "
                                       "settings")
    if "subcommands" in kw and not (kw.get("commands") or kw.get("modules")):
        raise _fail(path, ln("match"), f"{where}: subcommands need commands or modules")
    work = raw.get("work", "parallel")
    if work not in ("parallel", "split", "opaque"):
        raise _fail(path, ln("work"), f"{where}: work must be parallel, split or opaque")
    kw["split"] = work == "split"
    kw["opaque"] = work == "opaque"
    if "count" in raw:
        kw["count"] = _count(raw["count"], where, path, ln("count"))
    if "per_node" in raw:
        kw["per_node"] = _factors(raw["per_node"], f"{where} per_node", path, ln("per_node"))
    default = raw.get("default", 1)
    if default == ALL:
        kw["default"] = None
    elif isinstance(default, int) and not isinstance(default, bool) and 1 <= default <= 4096:
        kw["default"] = default
    else:
        raise _fail(path, ln("default"), f"{where}: default must be a whole number from 1 to "
                                         "4096, or all")
    per = raw.get("per", "node")
    if per not in ("node", "total"):
        raise _fail(path, ln("per"), f"{where}: per must be node or total")
    kw["total"] = per == "total"
    if "machines" in raw:
        kw["machines"] = _factor(raw["machines"], f"{where} machines", path, ln("machines"))
    for key in ("devices", "include", "exclude"):
        if key in raw:
            kw[key] = _strings(raw[key], f"{where} {key}", path, ln(key),
                               lambda v: bool(_FLAG.fullmatch(v)), "a flag")
    pinned = raw.get("pinned_by_env", True)
    if not isinstance(pinned, bool):
        raise _fail(path, ln("pinned_by_env"), f"{where}: pinned_by_env must be true or false")
    kw["pinned_by_env"] = pinned
    wraps = raw.get("wraps", "")
    if wraps not in ("", "multiply", "replace"):
        raise _fail(path, ln("wraps"), f"{where}: wraps must be multiply or replace")
    kw["wraps"] = wraps
    if kw["split"] and "settings" not in kw:
        raise _fail(path, ln("match"), f"{where}: a split family is recognised by settings")
    return Family(**kw)  # type: ignore[arg-type]


def _count(value: object, where: str, path: object, line: int | None) -> Count:
    if isinstance(value, list):
        return Count(factors=_factors(value, f"{where} count", path, line))
    if not isinstance(value, dict) or set(value) - {"sum", "shared"} or "sum" not in value:
        raise _fail(path, line, f"{where}: count must be a list of factors or "
                                "{sum: {part: factors}, shared: {FLAG: [part, ...]}}")
    parts = value["sum"]
    if not isinstance(parts, dict) or not parts or len(parts) > MAX_NAMES:
        raise _fail(path, line, f"{where}: count.sum must map part names to factors")
    built = tuple((str(k), _factors(v, f"{where} count.sum.{k}", path, line))
                  for k, v in parts.items())
    shared = value.get("shared", {})
    if not isinstance(shared, dict):
        raise _fail(path, line, f"{where}: count.shared must map flags to part names")
    groups = []
    for flag, names in shared.items():
        if not isinstance(flag, str) or not _FLAG.fullmatch(flag):
            raise _fail(path, line, f"{where}: count.shared: {flag!r} is not a flag")
        listed = _strings(names, f"{where} count.shared.{flag}", path, line,
                          lambda v: v in parts, "a part of count.sum")
        groups.append((flag, listed))
    return Count(parts=built, shared=tuple(groups))


def parse(text: str, path: object) -> tuple[Family, ...]:
    """The families in one launchers file's text. Raises LauncherError."""
    from router import yamlsafe

    try:
        doc = yamlsafe.load(text)
    except yamlsafe.YamlError as exc:
        raise _fail(path, exc.line, exc.message) from None
    data = doc.data
    if not isinstance(data, dict) or set(data) != {"launchers"}:
        raise _fail(path, doc.line_of(()), "a launchers file is a mapping with one key, "
                                           "launchers: a list of launcher families")
    raw = data["launchers"]
    if not isinstance(raw, list) or len(raw) > MAX_FAMILIES:
        raise _fail(path, doc.line_of(("launchers",)),
                    f"launchers must be a list of at most {MAX_FAMILIES} families")
    families = [_family(item, ("launchers", i), path, doc) for i, item in enumerate(raw)]
    seen: set[str] = set()
    for i, fam in enumerate(families):
        if fam.name in seen:
            raise _fail(path, doc.line_of(("launchers", i)),
                        f"launcher {fam.name!r} is defined twice")
        seen.add(fam.name)
    return tuple(families)


def _read(path: Path) -> tuple[Family, ...]:
    from router import textfile, yamlsafe

    try:
        text = textfile.read(path, yamlsafe.DEFAULT_MAX_BYTES, "launchers file")
    except textfile.TextFileError as exc:
        raise LauncherError(f"{path}: {exc.message}") from None
    return parse(text, path)


def launchers_file(start: Path) -> str | None:
    """The workspace's own launchers file for a plan's folder: the `launchers`
    key of its [tool.workflow-lint] table, relative to the workspace root
    (found as the ladder is); None without one."""
    from router.workspace import TABLE, WorkspaceError, find

    root, table = find(start)
    value = table.get("launchers")
    if value is None or root is None:
        return None
    if not isinstance(value, str) or not value:
        raise WorkspaceError(f"{root / 'pyproject.toml'}: [tool.{TABLE}] launchers must be "
                             "a path")
    return str(root / value)


@lru_cache(maxsize=1)
def packaged() -> Families:
    """The packaged families, loaded once per process."""
    return Families(_read(PACKAGED))


@lru_cache(maxsize=16)
def load(path: str | None) -> Families:
    """The packaged families with a workspace's file merged over them (by
    name; its new families are tried first). None: the packaged ones."""
    base = packaged()
    if path is None:
        return base
    own = _read(Path(path))
    packaged_names = {fam.name for fam in base.families}
    replaced = {fam.name: fam for fam in own if fam.name in packaged_names}
    merged = [fam for fam in own if fam.name not in replaced] + \
        [replaced.get(fam.name, fam) for fam in base.families]
    return Families(tuple(merged))
