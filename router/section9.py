"""The project's one §9 parser: find a plan's §9 block, load it, check its schema.

The lint, the critic and the router all call `parse_plan` (schema) and
`check_against_ladder` (intents and widths against the ladder config), so a
plan means the same thing to each of them.

A plan's §9 section is the one whose heading text starts with `§9` or reads
`9. Compute` / `9 Compute`; it runs to the next heading of the same or a
higher level. Its first fenced block with info string `yaml` or `yml` holds
the phases. A schema check reports every problem of the block at once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a plan, at a 1-based line (None: the whole file)."""

    line: int | None
    message: str


class PlanError(ValueError):
    """A plan whose §9 block is missing, malformed or off-schema.

    `problems` holds every problem found: a schema check reports them all at
    once, so a writer fixes a block in one pass. `line` and `message` are the
    first problem's, for callers that show one; `lines()` gives each problem as
    its own `file:line: message` line, and `str()` is those lines joined."""

    def __init__(self, path: str, line: int | None, message: str,
                 more: Sequence[Problem] = ()) -> None:
        self.path = path
        self.line = line
        self.message = message
        self.problems = (Problem(line, message), *more)
        super().__init__("\n".join(self.lines()))

    @classmethod
    def of(cls, path: str, problems: Sequence[Problem]) -> PlanError:
        """One error carrying `problems` (at least one), in line order."""
        first, *rest = sorted(problems, key=lambda p: p.line or 0)
        return cls(path, first.line, first.message, rest)

    @classmethod
    def combine(cls, errors: Sequence[PlanError]) -> PlanError:
        """Several errors about one plan (e.g. from `check_against_ladder`) as one."""
        return cls.of(errors[0].path, [p for err in errors for p in err.problems])

    def lines(self) -> list[str]:
        shown = shown_path(self.path)
        return [f"{shown}:{p.line}: {p.message}" if p.line else f"{shown}: {p.message}"
                for p in self.problems]


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


# A §9 heading: "§9 ..." (not §90), or "9. Compute ..." / "9 Compute ...". Any
# other numbered heading ("9. Safety Rules", "9.3 Make Resources ...") is an
# ordinary section of a long document, not the compute block.
_SECTION9 = re.compile(r"§9(?!\d)|9(?:\.\s*|\s+)compute(?![a-z])", re.I)
_EMPHASIS = "*_ \t"  # **§9 Compute** and _9. Compute_ read as the bare heading
FENCE_INFOS = ("yaml", "yml")


def is_section9_heading(text: str) -> bool:
    return _SECTION9.match(text.strip().lstrip(_EMPHASIS)) is not None


def _is_yaml_fence(info: str) -> bool:
    word = info.strip().split(maxsplit=1)[:1]
    return bool(word) and word[0].lower() in FENCE_INFOS


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
            if section_level is None and is_section9_heading(tokens[i + 1].content):
                section_level = level
                section_line = (token.map or [0])[0] + 1
        elif (section_level is not None and token.type == "fence" and token.map
              and _is_yaml_fence(token.info)):
            return Block(text=token.content, fence_line=token.map[0] + 1)
    if section_level is None:
        raise PlanError(path, None, "no §9 section (a heading starting with '§9', "
                        "or reading '9. Compute')")
    raise PlanError(path, section_line, "§9 section has no ```yaml block (nor ```yml)")


class _Problems:
    """The schema problems of one block, each at the line of the value at fault."""

    def __init__(self, located: yamlsafe.Located) -> None:
        self.located = located
        self.items: list[Problem] = []

    def add(self, at: tuple[Any, ...], message: str) -> None:
        self.items.append(Problem(self.located.line_of(at), message))


def _bad_in_launch(char: str) -> bool:
    import unicodedata

    return char not in "\t\n\r" and unicodedata.category(char) in ("Cc", "Cs")


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but `width: true` is a typo, not a width.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _in_range(value: Any, low: float, high: float, *, low_open: bool = False) -> bool:
    """`low <= value <= high` (or `low < value`) for any int or float, never raising.
    Compared, never converted: float(10**400) raises OverflowError, and nan
    fails every comparison, so both land on the error path."""
    if not _is_number(value):
        return False
    return (low < value if low_open else low <= value) and value <= high


def _check_strings(problems: _Problems, at: tuple[Any, ...], label: str, index: int,
                   raw: dict[Any, Any]) -> None:
    for key in ("name", "intent", "launch"):
        if key not in raw:
            continue
        if not isinstance(raw[key], str) or not raw[key].strip():
            problems.add((*at, key), f"{label}: {key} must be a non-empty string")
        elif key != "launch" and (problem := name_problem(raw[key], key)):
            problems.add((*at, key), f"phases[{index}]: {problem}")
    launch = raw.get("launch")
    bad = next((c for c in launch if _bad_in_launch(c)), None) \
        if isinstance(launch, str) else None
    if bad is not None:  # a NUL cannot be exec'd; newlines and tabs are shell text
        problems.add((*at, "launch"), f"{label}: launch contains a control character ({bad!r})")


def _check_numbers(problems: _Problems, at: tuple[Any, ...], label: str,
                   raw: dict[Any, Any]) -> None:
    if "width" in raw and (not _is_number(raw["width"]) or raw["width"] not in ALLOWED_WIDTHS):
        problems.add((*at, "width"),
                     f"{label}: width must be one of {', '.join(map(str, ALLOWED_WIDTHS))}, "
                     f"got {brief(raw['width'])}")
    if "gpu_hours" in raw and not _in_range(raw["gpu_hours"], 0, MAX_HOURS, low_open=True):
        problems.add((*at, "gpu_hours"),
                     f"{label}: gpu_hours must be a number > 0 (at most {MAX_HOURS:g}), "
                     f"got {brief(raw['gpu_hours'])}")


def _axis(problems: _Problems, at: tuple[Any, ...], label: str,
          axis_raw: Any) -> ShardableAxis | None:
    axis_at = (*at, "shardable_axis")
    if not isinstance(axis_raw, dict) or set(axis_raw) != {"name", "size"}:
        problems.add(axis_at, f"{label}: shardable_axis must have exactly 'name' and 'size'")
        return None
    name, size = axis_raw["name"], axis_raw["size"]
    before = len(problems.items)
    if not isinstance(name, str) or not name.strip():
        problems.add((*axis_at, "name"), f"{label}: shardable_axis.name must be a non-empty string")
    elif problem := name_problem(name, "shardable_axis.name"):
        problems.add((*axis_at, "name"), f"{label}: {problem}")
    if not isinstance(size, int) or not _in_range(size, 1, MAX_AXIS_SIZE):
        problems.add((*axis_at, "size"),
                     f"{label}: shardable_axis.size must be an integer >= 1 "
                     f"(at most {MAX_AXIS_SIZE}), got {brief(size)}")
    return ShardableAxis(name, size) if len(problems.items) == before else None


def _phase(problems: _Problems, index: int, raw: Any) -> Phase | None:
    """The phase, or None after adding every problem it has to `problems`."""
    at = ("phases", index)
    if not isinstance(raw, dict):
        problems.add(at, f"phases[{index}]: expected a mapping")
        return None
    before = len(problems.items)
    label = f"phase {brief(raw.get('name'))}" if isinstance(raw.get("name"), str) else \
        f"phases[{index}]"
    for key in raw:
        if key not in PHASE_KEYS:
            problems.add((*at, key), f"{label}: unknown key {brief(key)} "
                                     f"(allowed: {', '.join(sorted(PHASE_KEYS))})")
    for key in sorted(REQUIRED_PHASE_KEYS - set(raw)):
        problems.add(at, f"{label}: required key {key!r} is missing")
    _check_strings(problems, at, label, index, raw)
    _check_numbers(problems, at, label, raw)
    axis = None
    if raw.get("shardable_axis") is not None:
        axis = _axis(problems, at, label, raw["shardable_axis"])
    if len(problems.items) > before:
        return None
    key_lines = {key: problems.located.line_of((*at, key)) or 0 for key in raw}
    return Phase(name=raw["name"], intent=raw["intent"], width=int(raw["width"]),
                 gpu_hours=float(raw["gpu_hours"]), launch=raw["launch"], shardable_axis=axis,
                 line=problems.located.line_of(at) or 0, key_lines=key_lines)


def _duplicates(problems: _Problems, raw_phases: list[Any]) -> None:
    """A later phase reusing a name, reported at that phase (even if it has other problems)."""
    seen: set[str] = set()
    for index, raw in enumerate(raw_phases):
        name = raw.get("name") if isinstance(raw, dict) else None
        if not isinstance(name, str):
            continue
        if name in seen:
            problems.add(("phases", index), f"duplicate phase name {brief(name)}")
        seen.add(name)


def parse_plan(markdown: str, path: str, tokens: list[Any] | None = None,
               config: LadderConfig | None = None) -> Plan:
    """Find, load and schema-check a plan's §9 block. Raises PlanError carrying
    every schema problem of the block (a block that does not load is one).
    With `config`, a block that has schema problems also reports what the
    ladder cannot serve in its well-formed phases, so one run shows every
    problem; a block without schema problems is left to check_against_ladder."""
    block = find_block(markdown, path, tokens)
    try:
        located = yamlsafe.load(block.text, line_offset=block.fence_line,
                                max_bytes=MAX_BLOCK_BYTES, max_nodes=MAX_BLOCK_NODES)
    except yamlsafe.YamlError as exc:
        raise PlanError(path, exc.line, f"§9 block: {exc.message}") from None
    data = located.data
    if not isinstance(data, dict) or "phases" not in data:
        raise PlanError(path, block.fence_line + 1, "§9 block must be a mapping with 'phases'")
    problems = _Problems(located)
    for key in data:
        if key != "phases":
            problems.add((key,), f"§9 block: unknown top-level key {brief(key)}")
    phases: list[Phase | None] = []
    if not isinstance(data["phases"], list):
        problems.add(("phases",), "phases must be a list")
    else:
        phases = [_phase(problems, i, raw) for i, raw in enumerate(data["phases"])]
        _duplicates(problems, data["phases"])
    plan = Plan(path=path, phases=tuple(p for p in phases if p is not None),
                block_line=block.fence_line)
    if problems.items:
        found = list(problems.items)
        if config is not None:
            found += [p for err in check_against_ladder(plan, config) for p in err.problems]
        raise PlanError.of(path, found)
    return plan


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


def read_plan(path: str, config: LadderConfig | None = None) -> Plan:
    """Read and parse a plan file; unreadable or non-UTF-8 files are PlanErrors
    (`config`: see parse_plan)."""
    from router import textfile

    try:
        text = textfile.read(path, MAX_PLAN_BYTES, "plan")
    except textfile.TextFileError as exc:
        raise PlanError(path, exc.line, exc.message) from None
    return parse_plan(text, path, config=config)
