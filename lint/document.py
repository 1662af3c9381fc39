"""A Markdown file parsed once for every rule: prose units with line numbers,
code fences (which are code, not prose), front matter, and HTML comments.

markdown-it-py gives block structure and line maps. Inline parsing is off:
rules read the raw inline text (with backticks and emphasis stripped), which
is both faster and what the claim patterns are written against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FRONT_MATTER_FENCES = ("---", "+++")


@dataclass(frozen=True)
class Unit:
    """One piece of prose: a heading, a paragraph, or a table row."""

    kind: str  # "heading" | "paragraph" | "table-row"
    line: int  # 1-based line of the unit's first line
    text: str  # raw inline text, markup stripped; newlines kept
    heading: str  # text of the nearest heading above (for context)

    def line_at(self, offset: int) -> int:
        return self.line + self.text.count("\n", 0, offset)


@dataclass
class Document:
    path: str
    text: str
    lines: list[str]
    units: list[Unit] = field(default_factory=list)
    code_lines: set[int] = field(default_factory=set)  # 1-based lines inside fences
    front_matter: tuple[int, int] | None = None  # 1-based inclusive line range
    tokens: list = field(default_factory=list)  # block tokens, shared with the §9 parser


_MARKUP = re.compile(r"[`*]")


def _front_matter_end(lines: list[str]) -> int | None:
    """Index of the closing fence line of leading front matter, if any."""
    if not lines or lines[0].strip() not in FRONT_MATTER_FENCES:
        return None
    closer = lines[0].strip()
    for i in range(1, min(len(lines), 2000)):
        if lines[i].strip() in (closer, "..."):
            return i
    return None


def parse(path: str, text: str) -> Document:
    from router.section9 import block_tokens

    lines = text.splitlines()
    doc = Document(path=path, text=text, lines=lines)
    end = _front_matter_end(lines)
    body = text
    if end is not None:
        doc.front_matter = (1, end + 1)
        # Blank the front matter, keeping line numbers, so it is not read as prose.
        body = "\n" * (end + 1) + "\n".join(lines[end + 1:])
    tokens = block_tokens(body)
    doc.tokens = tokens
    heading = ""
    row_cells: list[str] = []
    row_line = 0
    kind = "paragraph"
    for i, token in enumerate(tokens):
        if token.type in ("fence", "code_block") and token.map:
            doc.code_lines.update(range(token.map[0] + 1, token.map[1] + 1))
        elif token.type == "heading_open":
            kind = "heading"
        elif token.type == "paragraph_open":
            kind = "paragraph"
        elif token.type == "tr_open" and token.map:
            row_cells, row_line = [], token.map[0] + 1
        elif token.type == "tr_close":
            doc.units.append(Unit("table-row", row_line,
                                  _MARKUP.sub("", " | ".join(row_cells)), heading))
        elif token.type == "inline" and token.map:
            parent = tokens[i - 1].type if i else ""
            content = _MARKUP.sub("", token.content)
            if parent in ("th_open", "td_open"):
                row_cells.append(content)
                continue
            if kind == "heading":
                heading = content
            doc.units.append(Unit(kind, token.map[0] + 1, content, heading))
    return doc
