"""The project's one §9 parser: find a plan's §9 block, load it, check its schema.

The lint, the critic and the router all call `parse_plan` (schema) and
`check_against_ladder` (intents and widths against the ladder config), so a
plan means the same thing to each of them.

A plan's §9 section is the one whose heading text starts with `§9` or `9.`;
it runs to the next heading of the same or a higher level. Its first fenced
block with info string `yaml` holds the phases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from router import yamlsafe
from router.config import (
    ALLOWED_WIDTHS,
    MAX_HOURS,
    LadderConfig,
    brief,
    name_problem,
    shown_path,
)

# markdown-it reads ~100 KB/s of hostile Markdown (long lists, tables), so the
# plan file's cap is what bounds the parse time: 2 MB is ~20 s at worst, and
# about a thousand times the size of a real plan.
MAX_PLAN_BYTES = 2_000_000
MAX_BLOCK_BYTES = 1_000_000
MAX_AXIS_SIZE = 1_000_000_000
MAX_BLOCK_NODES = 20_000
PHASE_KEYS = {"name", "intent", "width", "gpu_hours", "shardable_axis", "launch"}
REQUIRED_PHASE_KEYS = {"name", "intent", "width", "gpu_hours", "launch"}


class PlanError(ValueError):
    """A plan whose §9 block is missing, malformed or off-schema."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        self.message = message
        shown = shown_path(path)
        super().__init__(f"{shown}:{line}: {message}" if line else f"{shown}: {message}")


@dataclass(frozen=True)
class ShardableAxis:
    name: str
    size: int


@dataclass(frozen=True)
class Phase:
    name: str
    intent: str
    width: int
    gpu_hours: float
    launch: str
    shardable_axis: ShardableAxis | None
    line: int  # the phase's first line
    key_lines: dict[str, int] = field(default_factory=dict, compare=False)

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)

    @property
    def hours(self) -> float:
        """Expected wall-clock at the declared width."""
        return self.gpu_hours / self.width


@dataclass(frozen=True)
class Plan:
    path: str
    phases: tuple[Phase, ...]
    block_line: int  # line of the opening ``` fence

    def phase(self, name: str | None) -> Phase:
        names = [p.name for p in self.phases]
        # Names are one-line text (checked when parsed); a long list is cut short.
        listing = ", ".join(names[:20]) + (f", ... ({len(names)} in all)"
                                            if len(names) > 20 else "") if names else "none"
        if name is None:
            if len(self.phases) == 1:
                return self.phases[0]
            raise PlanError(self.path, self.block_line,
                            f"plan has {len(names)} phases, name one with --phase "
                            f"(phases: {listing})")
        for phase in self.phases:
            if phase.name == name:
                return phase
        raise PlanError(self.path, self.block_line,
                        f"no phase {brief(name)} in §9 (phases: {listing})")


@dataclass(frozen=True)
class Block:
    text: str
    fence_line: int  # 1-based line of the opening fence; block line k is file line
    # fence_line + k, so the fence line is also the offset for located YAML


def _is_section9_heading(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith("§9") or stripped.startswith("9.")


_PARSER: Any = None


def block_tokens(markdown: str) -> list[Any]:
    """Block-level markdown-it tokens; inline parsing is off (only headings and
    fences matter, and their raw text is enough)."""
    global _PARSER
    if _PARSER is None:  # built once: a parser costs more to make than a file to parse
        from markdown_it import MarkdownIt

        _PARSER = MarkdownIt("commonmark").enable("table")
        _PARSER.core.ruler.disable(["inline", "text_join"])
    return _PARSER.parse(markdown)


def find_block(markdown: str, path: str, tokens: list[Any] | None = None) -> Block:
    """Locate the §9 YAML block. Raises PlanError if there is none. Pass
    `tokens` from `block_tokens` when the caller has parsed the file already."""
    if tokens is None:
        tokens = block_tokens(markdown)
    section_level: int | None = None
    section_line = 0
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            level = int(token.tag[1:])
            if section_level is not None and level <= section_level:
                break
            if section_level is None and _is_section9_heading(tokens[i + 1].content):
                section_level = level
                section_line = (token.map or [0])[0] + 1
        elif (section_level is not None and token.type == "fence" and token.map
              and token.info.strip().split(maxsplit=1)[:1] == ["yaml"]):
            return Block(text=token.content, fence_line=token.map[0] + 1)
    if section_level is None:
        raise PlanError(path, None, "no §9 section (a heading starting with '§9' or '9.')")
    raise PlanError(path, section_line, "§9 section has no ```yaml block")


def _fail(path: str, located: yamlsafe.Located, at: tuple[Any, ...], message: str) -> PlanError:
    return PlanError(path, located.line_of(at), message)


def _bad_in_launch(char: str) -> bool:
    import unicodedata

    return char not in "\t\n\r" and unicodedata.category(char) in ("Cc", "Cs")


def _phase(path: str, located: yamlsafe.Located, index: int, raw: Any) -> Phase:
    at = ("phases", index)
    if not isinstance(raw, dict):
        raise _fail(path, located, at, f"phases[{index}]: expected a mapping")
    label = f"phase {brief(raw.get('name'))}" if isinstance(raw.get("name"), str) else \
        f"phases[{index}]"
    for key in raw:
        if key not in PHASE_KEYS:
            raise _fail(path, located, (*at, key),
                        f"{label}: unknown key {brief(key)} "
                        f"(allowed: {', '.join(sorted(PHASE_KEYS))})")
    for key in sorted(REQUIRED_PHASE_KEYS - set(raw)):
        raise _fail(path, located, at, f"{label}: required key {key!r} is missing")
    for key in ("name", "intent", "launch"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise _fail(path, located, (*at, key), f"{label}: {key} must be a non-empty string")
    for key in ("name", "intent"):
        problem = name_problem(raw[key], key)
        if problem:
            raise _fail(path, located, (*at, key), f"phases[{index}]: {problem}")
    bad = next((c for c in raw["launch"] if _bad_in_launch(c)), None)
    if bad is not None:  # a NUL cannot be exec'd; newlines and tabs are shell text
        raise _fail(path, located, (*at, "launch"),
                    f"{label}: launch contains a control character ({bad!r})")
    width = raw["width"]
    if isinstance(width, bool) or width not in ALLOWED_WIDTHS:
        raise _fail(path, located, (*at, "width"),
                    f"{label}: width must be one of {', '.join(map(str, ALLOWED_WIDTHS))}, "
                    f"got {brief(width)}")
    hours = raw["gpu_hours"]
    # Compared, never converted: float(10**400) raises, and nan fails the test.
    if isinstance(hours, bool) or not isinstance(hours, int | float) or \
            not 0 < hours <= MAX_HOURS:
        raise _fail(path, located, (*at, "gpu_hours"),
                    f"{label}: gpu_hours must be a number > 0 (at most {MAX_HOURS:g}), "
                    f"got {brief(hours)}")
    axis = None
    if raw.get("shardable_axis") is not None:
        axis_raw = raw["shardable_axis"]
        axis_at = (*at, "shardable_axis")
        if not isinstance(axis_raw, dict) or set(axis_raw) != {"name", "size"}:
            raise _fail(path, located, axis_at,
                        f"{label}: shardable_axis must have exactly 'name' and 'size'")
        size = axis_raw["size"]
        if not isinstance(axis_raw["name"], str) or not axis_raw["name"].strip():
            raise _fail(path, located, (*axis_at, "name"),
                        f"{label}: shardable_axis.name must be a non-empty string")
        problem = name_problem(axis_raw["name"], "shardable_axis.name")
        if problem:
            raise _fail(path, located, (*axis_at, "name"), f"{label}: {problem}")
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_AXIS_SIZE:
            raise _fail(path, located, (*axis_at, "size"),
                        f"{label}: shardable_axis.size must be an integer >= 1 "
                        f"(at most {MAX_AXIS_SIZE}), got {brief(size)}")
        axis = ShardableAxis(axis_raw["name"], size)
    key_lines = {key: located.line_of((*at, key)) or 0 for key in raw}
    return Phase(name=raw["name"], intent=raw["intent"], width=int(width),
                 gpu_hours=float(hours), launch=raw["launch"], shardable_axis=axis,
                 line=located.line_of(at) or 0, key_lines=key_lines)


def parse_plan(markdown: str, path: str, tokens: list[Any] | None = None) -> Plan:
    """Find, load and schema-check a plan's §9 block. Raises PlanError."""
    block = find_block(markdown, path, tokens)
    try:
        located = yamlsafe.load(block.text, line_offset=block.fence_line,
                                max_bytes=MAX_BLOCK_BYTES, max_nodes=MAX_BLOCK_NODES)
    except yamlsafe.YamlError as exc:
        raise PlanError(path, exc.line, f"§9 block: {exc.message}") from None
    data = located.data
    if not isinstance(data, dict) or "phases" not in data:
        raise PlanError(path, block.fence_line + 1, "§9 block must be a mapping with 'phases'")
    for key in data:
        if key != "phases":
            raise _fail(path, located, (key,), f"§9 block: unknown top-level key {brief(key)}")
    if not isinstance(data["phases"], list):
        raise _fail(path, located, ("phases",), "phases must be a list")
    phases = tuple(_phase(path, located, i, raw) for i, raw in enumerate(data["phases"]))
    seen: set[str] = set()
    for phase in phases:
        if phase.name in seen:
            raise PlanError(path, phase.line, f"duplicate phase name {phase.name!r}")
        seen.add(phase.name)
    return Plan(path=path, phases=phases, block_line=block.fence_line)


def check_against_ladder(plan: Plan, config: LadderConfig) -> list[PlanError]:
    """Errors for phases whose intent or width the ladder cannot serve."""
    import difflib

    errors = []
    for phase in plan.phases:
        intent = config.intents.get(phase.intent)
        if intent is None:
            near = difflib.get_close_matches(phase.intent, sorted(config.intents), n=1,
                                             cutoff=0.5)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            errors.append(PlanError(plan.path, phase.line_of("intent"),
                                    f"phase {phase.name!r}: unknown intent {phase.intent!r}{hint}"))
        elif phase.width < intent.min_width:
            errors.append(PlanError(plan.path, phase.line_of("width"),
                                    f"phase {phase.name!r}: width {phase.width} is below intent "
                                    f"{phase.intent!r}'s minimum width {intent.min_width}"))
    return errors


def read_plan(path: str) -> Plan:
    """Read and parse a plan file; unreadable or non-UTF-8 files are PlanErrors."""
    from router import textfile

    try:
        text = textfile.read(path, MAX_PLAN_BYTES, "plan")
    except textfile.TextFileError as exc:
        raise PlanError(path, exc.line, exc.message) from None
    return parse_plan(text, path)
