"""Safe, bounded YAML loading that remembers where every value came from.

`yaml.safe_load` forgets line numbers and happily builds a billion-laughs
structure (aliases share objects, so the blow-up happens later, in whoever
walks the result). We compose the node graph with the safe loader, then walk
it ourselves: every visited node counts against a budget (so alias bombs stop
early), duplicate keys are errors, and each value's 1-based line is recorded
under its key path so validators can say `file:line: key ...`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

DEFAULT_MAX_BYTES = 1_000_000
DEFAULT_MAX_NODES = 100_000
MAX_NUMERAL_CHARS = 100  # the longest int or float scalar we construct
# libyaml composes the node graph some 14x faster than the pure-Python parser
# (the ladder config: 0.5 ms against 7 ms), and pre-commit pays for every
# load; the nodes, marks and safe constructors are the same.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# libyaml composes nested flow collections by C recursion, and some 25,000
# levels of "[[[..." overflow the C stack: a crash, not an error. Past this
# many openers the pure-Python parser reads it, whose recursion ends in a
# RecursionError we report. Block nesting needs its depth in indentation, so
# a bounded file cannot nest deep enough by indentation alone.
_MAX_FLOW_OPENERS_FOR_LIBYAML = 1000
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_MERGE_TAG = "tag:yaml.org,2002:merge"

Path = tuple[Any, ...]


class YamlError(ValueError):
    """A YAML document that is malformed or exceeds its bounds."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class Located:
    """A loaded document plus the line of each value, keyed by its path."""

    data: Any
    lines: dict[Path, int] = field(default_factory=dict)

    def line_of(self, path: Path) -> int | None:
        """The line of `path`, or of its nearest ancestor that has one."""
        while True:
            if path in self.lines:
                return self.lines[path]
            if not path:
                return None
            path = path[:-1]


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}..."


class _Walker:
    def __init__(self, loader: yaml.SafeLoader, line_offset: int, max_nodes: int) -> None:
        self.loader = loader
        self.line_offset = line_offset
        self.nodes_left = max_nodes
        self.lines: dict[Path, int] = {}
        self.merge_sizes: dict[int, int] = {}

    def line(self, node: yaml.Node) -> int:
        return node.start_mark.line + 1 + self.line_offset

    def walk(self, node: yaml.Node, path: Path, depth: int, line: int | None = None) -> Any:
        # A mapping value is located at its key: that is the line a reader scans for.
        self.nodes_left -= 1
        if self.nodes_left < 0:
            raise YamlError("YAML document too large (node budget exceeded; alias bomb?)",
                            self.line(node))
        if depth > 64:
            raise YamlError("YAML document nested too deeply", self.line(node))
        self.lines[path] = line if line is not None else self.line(node)
        if isinstance(node, yaml.MappingNode):
            if any(k.tag == _MERGE_TAG for k, _ in node.value):
                self.merged_size(node, set())
            self.loader.flatten_mapping(node)
            result: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise YamlError("mapping keys must be plain scalars", self.line(key_node))
                key = self.scalar(key_node, path)
                if not isinstance(key, str | int | float | bool) and key is not None:
                    raise YamlError(f"unsupported mapping key {_brief(key)}", self.line(key_node))
                if key in result:
                    raise YamlError(f"duplicate key {_brief(key)}", self.line(key_node))
                result[key] = self.walk(value_node, (*path, key), depth + 1,
                                        self.line(key_node))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.walk(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        return self.scalar(node, path)

    def scalar(self, node: yaml.Node, path: Path) -> Any:
        # A numeral of thousands of digits makes int() raise (or float() overflow)
        # far from here; sexagesimal ints (1:2:3...) even cost quadratic time. No
        # value we read needs more than a few dozen characters, so refuse it unbuilt.
        if node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMERAL_CHARS:
            where = ".".join(map(str, path)) or "value"
            raise YamlError(f"{where}: number too long ({len(node.value)} characters)",
                            self.line(node))
        try:
            return self.loader.construct_object(node)
        except (ValueError, OverflowError, TypeError) as exc:  # e.g. a 2024-13-45 timestamp
            raise YamlError(f"invalid value {node.value[:40]!r}: {exc}", self.line(node)) \
                from None

    def merged_size(self, node: yaml.MappingNode, active: set[int]) -> int:
        """The entry count `flatten_mapping` will produce, counted before it runs:
        it copies every merged entry, so `<<` chains grow exponentially before a
        single value is walked (a merge bomb). Memoized per node; charged to the budget."""
        if id(node) in self.merge_sizes:
            return self.merge_sizes[id(node)]
        if id(node) in active:
            raise YamlError("recursive merge key", self.line(node))
        active.add(id(node))
        total = 0
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE_TAG:
                total += 1
                continue
            subs = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for sub in subs:  # a non-mapping here is flatten_mapping's own error
                total += self.merged_size(sub, active) if isinstance(sub, yaml.MappingNode) else 1
            if total > self.nodes_left:
                raise YamlError("YAML document too large (merge keys expand past the node "
                                "budget)", self.line(node))
        active.discard(id(node))
        self.merge_sizes[id(node)] = total
        return total


def load(text: str, *, line_offset: int = 0, max_bytes: int = DEFAULT_MAX_BYTES,
         max_nodes: int = DEFAULT_MAX_NODES, _loader: type | None = None) -> Located:
    """Load one YAML document safely. `line_offset` shifts reported lines, for
    blocks embedded in a larger file. Raises YamlError with a 1-based line."""
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise YamlError(f"YAML document larger than {max_bytes} bytes", line_offset + 1)
    try:
        if _loader is None:
            _loader = _LOADER if text.count("[") + text.count("{") <= \
                _MAX_FLOW_OPENERS_FOR_LIBYAML else yaml.SafeLoader
        loader = _loader(text)
    except yaml.YAMLError as exc:  # the reader rejects control characters up front
        raise YamlError(f"invalid YAML: {exc}".splitlines()[0], line_offset + 1) from None
    except UnicodeEncodeError:  # libyaml reads UTF-8, which a lone surrogate is not
        raise YamlError("invalid YAML: a lone surrogate, which is not valid Unicode",
                        line_offset + 1) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return Located(None, {(): line_offset + 1})
        walker = _Walker(loader, line_offset, max_nodes)
        data = walker.walk(node, (), 0)
        return Located(data, walker.lines)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + line_offset if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(f"invalid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}".splitlines()[0], line_offset + 1) from None
    except RecursionError:
        raise YamlError("YAML document nested too deeply", line_offset + 1) from None
    finally:
        loader.dispose()


def load_file(path: object, what: str) -> Located:
    """A YAML file read the careful way (bounded, regular files only, UTF-8)
    and loaded safely. Raises ValueError with one line: `path[:line]: message`."""
    from router import textfile

    try:
        return load(textfile.read(path, DEFAULT_MAX_BYTES, what))  # type: ignore[arg-type]
    except textfile.TextFileError as exc:
        raise ValueError(f"{path}: {exc.message}") from None
    except YamlError as exc:
        raise ValueError(f"{path}:{exc.line}: {exc.message}") from None
