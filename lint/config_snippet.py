"""YAML fences that restate the ladder config, compared with the loaded config.

Guidance often pastes a piece of the config ("```yaml\\nh100-80gb:\\n  provisioning:
[SPOT, FLEX_START, STANDARD]"). A fence whose keys are the config's own keys is
read as data: each value under a key the config defines (thresholds, a family's
provisioning, widths and machine type, a lane's partition, widest allocation and
wait, an intent's minimum width, family and lane order, a backend order list)
becomes a proposition at the value's line and column, judged like prose.
Anything else in the fence is ignored. Nothing here restates a config value: the
expected side always comes from the loaded config.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from lint.facts import Facts
from lint.propositions import Prop

MAX_FENCE_BYTES = 64 * 1024
# Keys that make a fence a piece of the ladder config.
_CONFIG_KEYS = frozenset({"short_threshold_hours", "flex_start_max_run_hours", "families",
                          "slurm_lanes", "intents", "provisioning", "min_width", "max_width",
                          "max_wait_minutes", "partition", "machine_type", "backends", "widths"})


@dataclass(frozen=True)
class SnippetClaim:
    line: int  # 1-based line in the file
    col: int  # 0-based column of the value on that line
    text: str  # the source line, as the claim's sentence
    prop: Prop  # spans are offsets in `text`
    fix: str = ""  # the config's own value, as YAML, for the value's span


# Fences read as YAML (JSON is YAML's flow style) and fences read line by line as
# assignments (TOML, Python constants, shell and .env lines).
YAML_FENCES = frozenset({"yaml", "yml", "json", "jsonc"})
ASSIGNMENT_FENCES = frozenset({"toml", "ini", "cfg", "conf", "python", "py", "python3", "sh",
                               "bash", "shell", "zsh", "env", "dotenv", "", "text", "txt"})

_CODE_FENCES = frozenset({"python", "py", "python3", "sh", "bash", "shell", "zsh"})
_WIDTH_KINDS = frozenset({"width", "order", "skip"})


def read(content: str, first_line: int, lines: list[str], facts: Facts, language: str = "yaml",
         aliases: dict[str, str] | None = None) -> list[SnippetClaim]:
    """Claims of one fence whose first content line is `first_line` (1-based).
    `aliases` maps other spellings of a config key (`SHORT_HOURS`) to the key."""
    aliases = {k.lower(): v for k, v in (aliases or {}).items()}
    folded = content.lower()
    # (lane names alone open a fence only as a list in order: see `lane_list`)
    ordered = _ORDER_COMMENT.search(content)
    if len(content) > MAX_FENCE_BYTES or not any(k in folded for k in (
            *_CONFIG_KEYS, *aliases, *(facts.config.slurm_lanes if ordered else ()))):
        return []
    if language in ASSIGNMENT_FENCES:
        if "=" not in content:
            return []
        from lint import fence_data

        located = fence_data.load(content, first_line)
    else:
        from router import yamlsafe

        try:
            located = yamlsafe.load(content, line_offset=first_line - 1,
                                    max_bytes=MAX_FENCE_BYTES, max_nodes=5000)
        except yamlsafe.YamlError:
            return []  # a sketch, not a config: the prose readers still see its comments
    walker = _Walker(located, lines, facts, aliases)
    data = _canonical(located, aliases)
    if isinstance(data, list) and ordered:
        walker.lane_list(data)
    walker.walk(data, ())
    if language in _CODE_FENCES and all(c.prop.kind in _WIDTH_KINDS for c in walker.claims):
        return []  # `widths = [1, 2, 4, 8, 16]` alone in a script is a benchmark sweep
    return walker.claims


def _canonical(located, aliases: dict[str, str]) -> Any:
    """The data with every key spelled the config's way (`SHORT_THRESHOLD_HOURS`,
    an alias), and the line table re-keyed to match."""
    def key_of(key: Any) -> Any:
        if not isinstance(key, str):
            return key
        folded = key.lower().replace("-", "_") if key.isupper() or "_" in key else key.lower()
        return aliases.get(folded, folded if folded in _CONFIG_KEYS or key.isupper() else key)

    def walk(node: Any, path: tuple, new: tuple) -> Any:
        if path in located.lines:
            located.lines.setdefault(new, located.lines[path])
        if isinstance(node, dict):
            return {key_of(k): walk(v, (*path, k), (*new, key_of(k))) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, (*path, i), (*new, i)) for i, v in enumerate(node)]
        return node

    return walk(located.data, (), ())


class _Walker:
    def __init__(self, located, lines: list[str], facts: Facts,
                 aliases: dict[str, str] | None = None) -> None:
        self.located = located
        self.aliases = aliases or {}
        self.lines = lines
        self.facts = facts
        self.config = facts.config
        self.claims: list[SnippetClaim] = []

    # -- where a value is written --

    def _add(self, path: tuple, value: Any, kind: str, args: tuple, topic: str,
             fix: str | None = None) -> None:
        """`fix`: the config's own value for this key, as YAML."""
        line = self.located.line_of(path)
        if line is None or not 1 <= line <= len(self.lines):
            return
        source = self.lines[line - 1]
        start, end = _value_span(source, path[-1] if path else "", value,
                                 _parents_end(source, path[:-1]))
        if fix and '"' in source[start:end] and fix.startswith("["):
            # TOML, JSON and Python need their strings quoted
            fix = "[" + ", ".join(item if re.fullmatch(r"-?[\d.]+", item) else f'"{item}"'
                                  for item in fix[1:-1].split(", ")) + "]"
        self.claims.append(SnippetClaim(line, start, source,
                                        Prop(kind, args, False, start, end, topic), fix or ""))

    # -- the config's shape --

    def walk(self, data: Any, path: tuple) -> None:
        if not isinstance(data, dict):
            return
        for key, value in data.items():
            if not isinstance(key, str):
                continue
            here = (*path, key)
            if key == "short_threshold_hours" and _number(value) is not None:
                self._add(here, value, "threshold", (float(value),), "length threshold",
                          f"{self.config.short_threshold_hours:g}")
            elif key == "flex_start_max_run_hours" and _number(value) is not None:
                self._add(here, value, "flex-max", (float(value),), "FLEX_START maximum run",
                          f"{self.config.flex_start_max_run_hours:g}")
            elif key == "families" and isinstance(value, dict):
                for name, body in value.items():
                    self._family(str(name), body, (*here, name))
            elif key in self.config.families:
                self._family(key, value, here)
            elif key == "slurm_lanes" and isinstance(value, list):
                self._lanes(value, here)
            elif key == "intents" and isinstance(value, dict):
                for name, body in value.items():
                    self._intent(str(name), body, (*here, name))
            elif key in self.config.intents:
                self._intent(key, value, here)
            elif key == "widths" and isinstance(value, list) and \
                    all(isinstance(w, int) and not isinstance(w, bool) for w in value):
                self._widths(value, here)
            elif key == "backends" and isinstance(value, list):
                self._order([("backend", _backend(v)) for v in value], here, "order")
            elif isinstance(value, dict):
                self.walk(value, here)

    def _family(self, name: str, body: Any, path: tuple) -> None:
        if name not in self.config.families or not isinstance(body, dict):
            return
        family = self.config.families[name]
        models = body.get("provisioning")
        if isinstance(models, list) and all(isinstance(m, str) for m in models):
            written = tuple(m.upper() for m in models)
            self._add((*path, "provisioning"), models, "only", (name, written), "provisioning",
                      _flow(family.provisioning))
        widths = body.get("widths")
        if isinstance(widths, list) and all(isinstance(w, int) for w in widths):
            self._add((*path, "widths"), widths, "family-widths",
                      (name, tuple(widths)), "width chain", _flow(family.widths))
        machine = body.get("machine_type")
        if isinstance(machine, str) and machine != family.machine_type_template:
            self._add((*path, "machine_type"), machine, "machine-type", (machine,),
                      "GPU families", f'"{family.machine_type_template}"')

    def _widths(self, widths: list[int], path: tuple) -> None:
        """A top-level `widths` list: written widest first it is the walk
        (`[16, 8, 4, 2, 1]`, `[8, 4, 1]`), otherwise the set of widths."""
        chain = self.facts.width_chain()
        if len(widths) > 1 and widths == sorted(widths, reverse=True):
            fix = _flow(chain)
            for a, b in itertools.pairwise(widths):
                self._add(path, widths, "order", (("width", a), ("width", b)), "width chain", fix)
                self._add(path, widths, "skip", (("width", a), ("width", b)), "width chain", fix)
        else:
            fix = _flow(sorted(self.facts.widths))
            for width in dict.fromkeys(widths):
                self._add(path, widths, "width", (width,), "width chain", fix)

    def _lanes(self, lanes: list, path: tuple) -> None:
        names = []
        for i, lane in enumerate(lanes):
            if isinstance(lane, str):
                names.append((i, lane))
                continue
            if not isinstance(lane, dict) or not isinstance(lane.get("name"), str):
                continue
            name = lane["name"]
            names.append((i, name))
            if name not in self.config.slurm_lanes:
                continue
            config_lane = self.config.slurm_lanes[name]
            for key, kind in (("partition", "lane-partition"), ("max_width", "lane-max-width"),
                              ("max_wait_minutes", "lane-wait")):
                value = lane.get(key)
                if value is None or (kind != "lane-partition" and _number(value) is None):
                    continue
                number = _number(value)
                arg = str(value) if kind == "lane-partition" else \
                    int(number) if number is not None and number.is_integer() else number
                expected = getattr(config_lane, key)
                self._add((*path, i, key), value, kind, (name, arg), "SLURM lanes",
                          f"{expected:g}" if isinstance(expected, float) else str(expected))
        self._order([("lane", n) for _, n in names], path, "order")

    def lane_list(self, items: list) -> None:
        """A bare list of SLURM lane names under a comment that says it is in order
        ("# SLURM fallback lanes, in the order dispatch tries them"): each pair
        is an order claim, found at the later item."""
        if len(items) < 2 or not all(isinstance(i, str) and i in self.config.slurm_lanes
                                     for i in items):
            return
        for i in range(1, len(items)):
            if items[i - 1] != items[i]:
                self._add((i,), items[i], "order", (("lane", items[i - 1]), ("lane", items[i])),
                          "order")

    def _intent(self, name: str, body: Any, path: tuple) -> None:
        if name not in self.config.intents or not isinstance(body, dict):
            return
        width = _number(body.get("min_width"))
        if width is not None:
            self._add((*path, "min_width"), body["min_width"], "min-width", (name, int(width)),
                      "minimum width", str(self.config.intents[name].min_width))
        families = body.get("families")
        if isinstance(families, list):
            self._order([("family", (str(f), None)) for f in families], (*path, "families"),
                        "order")
        lanes = body.get("slurm_lanes")
        if isinstance(lanes, list):
            self._order([("lane", str(n)) for n in lanes], (*path, "slurm_lanes"), "order")

    def _order(self, terms: list[tuple], path: tuple, kind: str) -> None:
        """A list in the config's own order: each neighbour pair is an order claim."""
        known = [t for t in terms if t[1] is not None]
        for a, b in itertools.pairwise(known):
            if a != b:
                self._add(path, None, kind, (a, b), "order")


# a fence comment that says its list is in the order tried
_ORDER_COMMENT = re.compile(r"#[^\n]*\b(?:in\s+(?:the\s+)?order|order(?:ed)?\b|tried\s+in|"
                            r"tries\s+them|walks?\s+them|first\s+to\s+last)", re.I)


def _flow(items) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    return float(value) if isinstance(value, int | float) else None


def _backend(value: Any) -> str | None:
    text = str(value).strip().lower()
    return text if re.fullmatch(r"[a-z][\w-]*", text) else None


# `= v` after a key, with a Python annotation between (`HOURS: float = 6`)
_ASSIGNED = r"\s*(?::\s*[\w\[\], |.]+?\s*)?=\s*"


def _parents_end(source: str, parents: tuple) -> int:
    """Where the last of the value's parent keys written on its line ends: in
    `{"eval-70b": {"min_width": 2}, "eval-7b": {"min_width": 2}}` eval-7b's
    `min_width` is the one after `"eval-7b"`."""
    at = 0
    for key in parents:
        if isinstance(key, str):
            m = re.compile(rf"(?<![\w-]){re.escape(key)}[\"']?\s*[:=]", re.I).search(source, at)
            if m:
                at = m.end()
    return at


def _value_span(source: str, key: Any, value: Any, since: int = 0) -> tuple[int, int]:
    """Where the value is written on its line: after `key:` (the first one from
    `since`), else the line's text."""
    after = 0
    if isinstance(key, int) and isinstance(value, str) and value in source[since:]:
        at = source.index(value, since)  # a list item: its own text
        return at, at + len(value)
    if isinstance(key, str):
        # `key: v`, JSON's `"key": v`, TOML's `key = v`; an alias or a constant's
        # capitals (`SHORT_HOURS = 6`) are found as the line's own key
        written = rf"(?<![\w-]){re.escape(key)}[\"']?"
        m = re.compile(rf"{written}{_ASSIGNED}", re.I).search(source, since) or \
            re.compile(rf"{written}\s*:\s*", re.I).search(source, since) or \
            re.match(rf"\s*(?:export\s+)?[\w.\"'-]+(?:{_ASSIGNED}|\s*:\s*)", source)
        if m:
            after = m.end()
    rest = source[after:]
    if after and rest[:1] in ("[", "("):
        close = rest.find("]" if rest[0] == "[" else ")")  # a list: its brackets and items
        if close > 0:
            return after, after + close + 1
    if after:
        # a quoted scalar is its quotes; a plain one ends at a comment, or, in a flow
        # mapping, at the next ',' or '}'
        m = re.match(r"\"[^\"]*\"|'[^']*'|[^,}\]#]*", rest)
        body = m.group(0).rstrip() if m else ""
        if body.strip():
            return after, after + len(body)
    start = len(source) - len(source.lstrip())
    comment = re.search(r"\s+#", source)
    return start, comment.start() if comment else len(source.rstrip())
