"""A command's help text quoted in a code fence: its option descriptions are
prose. `--gpu-count N   requested width; on a miss the router halves it …` says
what the tool does, as plainly as a paragraph would, though the fence makes it
code. This module finds those descriptions (and, under a `usage:` line, the
help's own paragraphs) so the claim engine reads them like any other prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "  --gpu-count N    requested width", "  -w, --width <n>  …", "  --spot / --no-spot  …":
# an option (with its aliases and argument), then a gap of two or more spaces
_OPTION_LINE = re.compile(
    r"(?P<indent>[ \t]*)(?P<option>"
    r"-{1,2}[A-Za-z][\w-]*(?:[ =](?:<[^>\n]+>|\[[^\]\n]+\]|\{[^}\n]+\}|[A-Za-z_][\w.-]*))?"
    r"(?:\s*[,/|]\s*-{1,2}[A-Za-z][\w-]*(?:[ =](?:<[^>\n]+>|\[[^\]\n]+\]|[A-Za-z_][\w.-]*))?)*)"
    r"(?P<gap>[ \t]{2,}|\t)(?P<desc>\S[^\n]*)")
# "(default: 2.0)", "[default: 4]", "Defaults to 168."
_DEFAULT = re.compile(r"\bdefaults?(?:\s+(?:is|to))?\s*[:=]?\s*(?P<value>\d{1,6}(?:\.\d{1,3})?)\b",
                      re.I)
# "usage: backend-router dispatch [-h] …": the fence is a command's help
_USAGE = re.compile(r"\s*usage:\s", re.I)
# "options:", "Positional arguments:", "Environment:": a help section's title
_SECTION_TITLE = re.compile(r"\s*[A-Za-z][\w ()-]{0,40}:\s*$")


@dataclass(frozen=True)
class HelpProse:
    """One description: its 0-based first line in the fence's content, its text
    (lines joined by newlines) and the column where each line starts."""

    offset: int
    text: str
    cols: tuple[int, ...]


def help_prose(content: str) -> list[HelpProse]:
    """The option descriptions of the help text in a fence's `content`, each
    with the lines that continue it (indented at least to its description's
    column, no blank line between); and when the fence holds a `usage:` line,
    its paragraphs too (lines that are neither options, usage nor titles).
    Empty when the fence holds no option line."""
    if "-" not in content:
        return []
    lines = content.splitlines()
    out: list[HelpProse] = []
    taken: set[int] = set()
    for i, line in enumerate(lines):
        m = _OPTION_LINE.fullmatch(line.rstrip())
        if not m or line.rstrip().endswith("\\"):  # a command's continued line
            continue
        column = m.start("desc")
        parts, cols = [m["desc"].rstrip()], [column]
        taken.add(i)
        j = i + 1
        while j < len(lines):
            follow = lines[j]
            indent = len(follow) - len(follow.lstrip())
            if not follow.strip() or indent < max(column - 2, len(m["indent"]) + 1) or \
                    _OPTION_LINE.fullmatch(follow.rstrip()):
                break
            parts.append(follow.strip())
            cols.append(indent)
            taken.add(j)
            j += 1
        text = "\n".join(parts)
        default = _DEFAULT.search(text)
        if default:
            # "at least this many GPU-hours … (default: 1.0)": the pointer is the default
            from .setting_anaphora import resolve

            text = resolve(text, m["option"], default["value"])
        out.append(HelpProse(i, text, tuple(cols)))
    if not out or not any(_USAGE.match(line) for line in lines):
        return out
    # the help's own paragraphs: "Walks the ladder wide first …"
    block: list[int] = []
    for i, line in enumerate([*lines, ""]):
        plain = i < len(lines) and line.strip() and i not in taken and \
            not _USAGE.match(line) and not _SECTION_TITLE.fullmatch(line) and \
            not line.lstrip().startswith(("-", "$", "#", "["))
        if plain:
            block.append(i)
            continue
        if block:
            out.append(HelpProse(block[0], "\n".join(lines[k].strip() for k in block),
                                 tuple(len(lines[k]) - len(lines[k].lstrip()) for k in block)))
            block = []
    return sorted(out, key=lambda p: p.offset)


def help_lines(prose: list[HelpProse]) -> set[int]:
    """The 0-based content lines the descriptions cover."""
    return {p.offset + k for p in prose for k in range(p.text.count("\n") + 1)}
