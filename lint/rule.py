"""The one kind of lint rule, fixit-style: a small class with a stable name, a
docstring that is its documentation, the file kinds it reads, and VALID /
INVALID examples beside it that the test suite runs (with line and column).

Rules are found automatically: every `Rule` subclass in a module of
`lint/rules/` is registered under its `name`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from lint.document import Document
    from lint.findings import Finding


@dataclass(frozen=True)
class Example:
    """A document and where its one finding must point (INVALID), or no finding
    at all (VALID, line 0)."""

    text: str
    line: int = 0
    col: int = 0


@dataclass
class Context:
    """What a rule sees for one file: the parsed document, the run's shared
    state (config, fact model, claim engine, stale claims), and the rules the
    run selected (a rule defers to another only when that one is on)."""

    path: str
    doc: Document | None
    text: str
    kinds: set[str]
    run: Any  # lint.engine.Linter: lazily loads config, engine, stale claims
    selected: set[str] = field(default_factory=set)


class Rule:
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, for --list-rules and SARIF
    reads: ClassVar[str] = "markdown"  # markdown | plan | critic | python
    default: ClassVar[bool] = True  # on unless deselected; off ones need --select/strict
    VALID: ClassVar[list[Example]] = []
    INVALID: ClassVar[list[Example]] = []

    def check(self, ctx: Context) -> list[Finding]:
        raise NotImplementedError

    @classmethod
    def doc(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")
