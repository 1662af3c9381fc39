"""A Markdown file parsed once for every rule: prose units with exact source
positions, the lists and tables they sit in, code fences (which are code, not
prose), front matter, and HTML comments.

markdown-it-py gives block structure and line maps. Inline parsing is off:
rules read the raw inline text with backticks and emphasis stripped, which is
both faster and what the claim engine reads. Each unit keeps where every line
of its text starts in the file, so a finding inside a list item or a table
cell points at the claim itself, not at the list marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FRONT_MATTER_FENCES = ("---", "+++")
# Backticks and emphasis markers; a '*' after '-', '/' or '{' is a wildcard
# ("a3-highgpu-*"), not emphasis, and stays.
_MARKUP = re.compile(r"`|(?<![-/{])\*")
# a link's target, "[H200s](/references/gpu-types)": not prose, so blanked (kept as
# spaces, one per character, so columns still map back to the raw text)
_LINK_TARGET = re.compile(r"(?<=\])\((?:[^()\s]|\([^()\s]*\))*\)")


def plain_text(unit: Unit) -> str:
    """A unit's text as the file writes it, before any key was spoken: its raw
    text with the markup gone (a row's cells as they were)."""
    if isinstance(unit, _RowUnit):
        return " | ".join(_plain(cell) for cell in unit.raw.split(" | "))
    return _plain(unit.raw or unit.text)


def _plain(raw: str) -> str:
    """Inline text as the readers see it: markup characters gone, link targets blank."""
    if "](" in raw:
        raw = _LINK_TARGET.sub(lambda m: " " * len(m.group(0)), raw)
    text = _MARKUP.sub("", raw)
    if "eq" in text:
        # notes' shorthand, "a 4g req can get bumped to 8g": a request is a job to
        # every reader (same length, so offsets stay)
        text = _REQ.sub(lambda m: ("J" if m[1] == "R" else "j") + "ob" + m[2], text)
    return text


_REQ = re.compile(r"(?<![\w./$-])([Rr])eq(s?)(?![\w(.=/:\[-])")


@dataclass(frozen=True)
class Unit:
    """One piece of prose: a heading, a paragraph (maybe in a list item), or a
    table row."""

    kind: str  # "heading" | "paragraph" | "table-row"
    line: int  # 1-based line of the unit's first line
    text: str  # inline text, markup stripped; newlines kept
    heading: str  # text of the nearest heading above (for context)
    raw: str = ""  # inline text before markup stripping
    cols: tuple[int, ...] = ()  # 0-based column where each raw line starts
    list_id: int = 0  # the list this unit's item belongs to (0: none)
    ordered: bool = False  # that list is numbered
    item: int = 0  # 1-based item index in that list (0: not a list item)
    table_id: int = 0  # the table this row belongs to (0: none)
    cells: tuple[str, ...] = ()  # a table row's cells, markup stripped
    header: bool = False  # a table's header row
    quoted: bool = False  # inside a block quote ("> …")
    # leading chars of text and raw that are context, not file text: a data line
    # under `flex_start:` reads "flex start: max hours: 336"
    lead: int = 0
    data: bool = False  # a `key: value` line of a fence: its fix keeps the line's form
    command: bool = False  # a shell fence's command line with a job's flags: its lead-in

    def line_at(self, offset: int) -> int:
        return self.line + self.text.count("\n", 0, offset)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) in the file of `offset` in `text`."""
        raw_offset = max(self._raw_offset(offset), self.lead)
        raw = self.raw or self.text
        line_index = raw.count("\n", 0, raw_offset)
        line_start = raw.rfind("\n", 0, raw_offset) + 1
        base = self.cols[line_index] if line_index < len(self.cols) else 0
        return self.line + line_index, base + raw_offset - line_start + 1

    def _raw_offset(self, offset: int) -> int:
        """`offset` in `text` mapped back into `raw` (markup chars skipped)."""
        raw = self.raw
        if not raw or raw == self.text:
            return offset
        seen = 0
        for index, char in enumerate(raw):
            if seen == offset and not _MARKUP.match(char):
                return index
            if not _MARKUP.match(char):
                seen += 1
        return len(raw)


@dataclass
class Document:
    path: str
    text: str
    lines: list[str]
    units: list[Unit] = field(default_factory=list)
    code_lines: set[int] = field(default_factory=set)  # 1-based lines inside fences
    # `key: value` lines of plain-text and YAML fences ("long: FLEX_START -> SPOT"),
    # which state settings as data; the claim engine decides which to read
    data_lines: list[Unit] = field(default_factory=list)
    comment_lines: list[Unit] = field(default_factory=list)  # comments in those fences
    front_matter: tuple[int, int] | None = None  # 1-based inclusive line range
    tokens: list = field(default_factory=list)  # block tokens, shared with the §9 parser
    cache: dict = field(default_factory=dict)  # per-document results shared by rules


def _front_matter_end(lines: list[str]) -> int | None:
    """Index of the closing fence line of leading front matter, if any."""
    if not lines or lines[0].strip() not in FRONT_MATTER_FENCES:
        return None
    closer = lines[0].strip()
    for i in range(1, min(len(lines), 2000)):
        if lines[i].strip() in (closer, "..."):
            return i
    return None


def _columns(raw: str, first_line: int, lines: list[str]) -> tuple[int, ...]:
    """Where each line of `raw` starts in the source lines from `first_line`
    (0-based): markdown-it drops list markers, quote markers and indentation."""
    cols = []
    for i, part in enumerate(raw.split("\n")):
        source = lines[first_line + i] if first_line + i < len(lines) else ""
        found = source.find(part) if part else -1
        cols.append(found if found >= 0 else len(source) - len(source.lstrip()))
    return tuple(cols)


# A line that is only an XML-ish tag of an agent prompt: "<routing>", "</rules>",
# '<constraints priority="high">'
_TAG_LINE = re.compile(r"[ \t]{0,3}</?(?P<name>[A-Za-z][\w.:-]*)"
                       r"(?:\s+[\w:-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>[ \t]*")
_FENCE_LINE = re.compile(r"[ \t]{0,3}(?:`{3,}|~{3,})")
# HTML's own elements keep their Markdown meaning (CommonMark's HTML blocks)
_HTML_ELEMENT_NAMES = (
    "a address article aside audio b base basefont blockquote body br caption center code col "
    "colgroup dd details dialog dir div dl dt em fieldset figcaption figure footer form frame "
    "frameset h1 h2 h3 h4 h5 h6 head header hr html i iframe img kbd legend li link main menu "
    "menuitem nav noframes ol optgroup option p param picture pre script search section source "
    "span strong style sub summary sup svg table tbody td textarea tfoot th thead title tr "
    "track u ul video")
_HTML_ELEMENTS = frozenset(_HTML_ELEMENT_NAMES.split())


def _without_prompt_tags(body: str) -> str:
    """The text with each line that is only an agent prompt's own tag blanked
    ("<routing>" … "</routing>"): CommonMark reads such a line as the start of an
    HTML block and would hide the guidance inside it from the lint. Lines inside
    code fences are kept; line numbers do not move."""
    lines = body.split("\n")
    fenced = False
    changed = False
    for i, line in enumerate(lines):
        if _FENCE_LINE.match(line):
            fenced = not fenced
            continue
        if fenced or "<" not in line:
            continue
        m = _TAG_LINE.fullmatch(line)
        if m and m["name"].lower() not in _HTML_ELEMENTS:
            lines[i] = ""
            changed = True
    return "\n".join(lines) if changed else body


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
    if "<" in body:
        body = _without_prompt_tags(body)
    tokens = block_tokens(body)
    doc.tokens = tokens
    heading = ""
    kind = "paragraph"
    lists: list[list] = []  # stack of [list_id, ordered, item_count]
    next_list = next_table = 0
    table_id = 0
    in_header = False
    row: list[tuple[str, str, int, int]] = []  # (text, raw, line, col) per cell
    row_line = 0
    quotes = 0  # block-quote depth
    for i, token in enumerate(tokens):
        kind_of = token.type
        if kind_of == "blockquote_open":
            quotes += 1
        elif kind_of == "blockquote_close":
            quotes = max(0, quotes - 1)
        if kind_of in ("fence", "code_block") and token.map:
            doc.code_lines.update(range(token.map[0] + 1, token.map[1] + 1))
            language = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() \
                else ""
            help_taken = _add_help_lines(doc, token, heading) \
                if language in _PROSE_FENCES or kind_of == "code_block" else set()
            if kind_of == "code_block" or language in _DATA_FENCES:
                _add_data_lines(doc, token, heading, help_taken,
                                _COMMENTS_BY_LANGUAGE.get(language, _COMMENT))
            elif language in _SHELL_FENCES:
                next_list = _add_shell_lines(doc, token, heading, next_list)
            elif language == "mermaid":
                _add_mermaid_lines(doc, token, heading)
        elif kind_of == "heading_open":
            kind = "heading"
        elif kind_of == "paragraph_open":
            kind = "paragraph"
        elif kind_of in ("bullet_list_open", "ordered_list_open"):
            next_list += 1
            lists.append([next_list, kind_of == "ordered_list_open", 0])
        elif kind_of in ("bullet_list_close", "ordered_list_close") and lists:
            lists.pop()
        elif kind_of == "list_item_open" and lists:
            lists[-1][2] += 1
        elif kind_of == "table_open":
            next_table += 1
            table_id = next_table
        elif kind_of == "table_close":
            table_id = 0
        elif kind_of == "thead_open":
            in_header = True
        elif kind_of == "thead_close":
            in_header = False
        elif kind_of == "tr_open" and token.map:
            row, row_line = [], token.map[0] + 1
        elif kind_of == "tr_close":
            _add_row(doc, row, row_line, heading, table_id, in_header)
        elif kind_of == "inline" and token.map:
            parent = tokens[i - 1].type if i else ""
            raw = token.content
            if parent in ("th_open", "td_open"):
                source = lines[token.map[0]] if token.map[0] < len(lines) else ""
                row.append((_plain(raw), raw, token.map[0] + 1,
                            _cell_column(source, raw, len(row))))
                continue
            content = _plain(raw)
            if kind == "heading":
                heading = content
            list_id, ordered, item = lists[-1] if lists and kind != "heading" else (0, False, 0)
            for first, part, quoted in _quote_parts(raw, token.map[0], lines, quotes > 0):
                text = _plain(part)
                if "_" in text[:40] and "efault" in text:
                    from .setting_anaphora import speak_default

                    text = speak_default(text)  # "`short_threshold_hours` — default 6."
                doc.units.append(Unit(kind, first + 1, text, heading, part,
                                      _columns(part, first, lines), list_id, ordered, item,
                                      quoted=quoted))
    return doc


def _quote_parts(raw: str, first: int, lines: list[str], quoted: bool
                 ) -> list[tuple[int, str, bool]]:
    """A quoted paragraph split where its lines stop starting with '>': in
    "> 8× rungs are explicit-intent-only" then "This is stale." Markdown makes
    the second line a lazy continuation of the quote, but its writer is
    answering the quote. (0-based first line, raw text, quoted) per part."""
    if not quoted or "\n" not in raw:
        return [(first, raw, quoted)]
    parts = raw.split("\n")
    for k in range(1, len(parts)):
        source = lines[first + k] if first + k < len(lines) else ""
        if not source.lstrip().startswith(">"):
            return [(first, "\n".join(parts[:k]), True),
                    (first + k, "\n".join(parts[k:]), False)]
    return [(first, raw, quoted)]


# What follows a quoted statement to say it is wrong or old: "No: …", "That's
# backwards", "Corrected to …", "This line in the prompt was wrong", "Deleted".
_CORRECTS = re.compile(
    r"^\W*(?:no\b|nope\b|not\s+(?:quite|true|so|right|any\s*more)\b|wrong\b|incorrect\b|false\b|"
    r"outdated\b|stale\b|backwards\b|nit\b|actually\b|careful\b|"
    r"(?:that|this|it)(?:'s|\s+is|\s+was)\s+(?:\w+\s+){0,2}?(?:backwards|wrong|incorrect|false|"
    r"outdated|stale|obsolete|retired|old|the\s+(?:old|retired|previous|original))\b|"
    r"(?:that|this)\s+(?:line|sentence|claim|bullet|rule|statement|paragraph|text|wording|row)\b|"
    r"(?:corrected|fixed|removed|deleted|replaced|dropped|struck|rewritten|reworded|changed|"
    r"updated|reverted)\b|should\s+(?:be|read|say)\b|"
    r"(?:the\s+)?(?:old|retired|previous|original)\s+(?:text|line|wording|rule|version|claim)\b)",
    re.I)
# A lead-in that introduces a quote as history: "The old prompt said:", "Before:"
# "### Archive: old AGENTS.md wording (retired)": a section kept as history
ARCHIVE_HEADING = re.compile(r"\b(?:archived?|retired|history|historical|deprecated|obsolete|"
                             r"old\s+(?:wording|guide|rules?|ladder|docs?))\b", re.I)
_QUOTE_LEAD = re.compile(r"\b(?:old|older|previous(?:ly)?|original(?:ly)?|used\s+to|said|"
                         r"read|retired|before|was|were|wrongly|incorrectly)\b[^\n]{0,80}:\s*$",
                         re.I)


def corrected_quote_lines(doc: Document) -> set[int]:
    """Lines of block quotes that the text around them marks as wrong or old: a
    quote followed by a correction ("> GCP → RunPod → SLURM" then "This line
    was wrong; fixed to …"), or led in as history ("The old guide said:"). The
    quote claims nothing about today's ladder; the text around it may."""
    key = "corrected-quotes"
    if key in doc.cache:
        return doc.cache[key]
    out: set[int] = set()
    units = doc.units
    i = 0
    while i < len(units):
        if not units[i].quoted:
            i += 1
            continue
        j = i
        while j < len(units) and units[j].quoted:
            j += 1
        before = units[i - 1] if i else None
        after = units[j] if j < len(units) else None
        if ARCHIVE_HEADING.search(units[i].heading) or (
                after is not None and _CORRECTS.match(after.text)) or (
                before is not None and _QUOTE_LEAD.search(before.text)):
            for unit in units[i:j]:
                out.update(range(unit.line, unit.line + unit.text.count("\n") + 1))
        i = j
    doc.cache[key] = out
    return out


_DATA_FENCES = frozenset({"", "text", "txt", "plain", "plaintext", "yaml", "yml", "json",
                          "jsonc", "toml", "ini", "cfg", "conf"})
# "short: SPOT -> FLEX_START", "a3-highgpu-8g: SPOT, FLEX_START": a key and its value
_KEY_LINE = re.compile(r"[ \t]*(?:[-*][ \t]+)?[A-Za-z][\w*{}. -]{0,40}[ \t]*[:=][ \t]*\S")
# a tool's output ("CLAUDE.md:3:22: ladder-drift …") quotes text; it claims nothing
# a YAML comment: at the line's start, or after a value and whitespace
_COMMENT = re.compile(r"(?:^|\s)#+[ \t]*([^#\n]*)$")
# an INI file's `; comment`, a JSONC file's `// comment`
_COMMENTS_BY_LANGUAGE = {
    **dict.fromkeys(("ini", "cfg", "conf"), re.compile(r"(?:^|\s)[;#]+[ \t]*([^;#\n]*)$")),
    **dict.fromkeys(("json", "jsonc"), re.compile(r"(?:^|\s)(?://|#)[/#]*[ \t]*([^#\n]*)$")),
}
_TRANSCRIPT = re.compile(r"^\S+:\d+(?::\d+)?:|^\s*\$ ", re.M)


def _add_help_lines(doc: Document, token, heading: str) -> set[int]:
    """A command's help text in the fence: each option's description (and the
    help's paragraphs) read as prose. Returns the 0-based content lines used."""
    from .help_text import help_lines, help_prose

    prose = help_prose(token.content)
    first = token.map[0] + (2 if token.type == "fence" else 1)  # the first content line
    for part in prose:
        doc.comment_lines.append(Unit("paragraph", first + part.offset, part.text, heading,
                                      part.text, part.cols))
    return help_lines(prose)


def _add_data_lines(doc: Document, token, heading: str, help_taken: set[int],
                    comments: re.Pattern[str]) -> None:
    if _TRANSCRIPT.search(token.content):
        return
    first = token.map[0] + (2 if token.type == "fence" else 1)  # the first content line
    parents: list[tuple[int, str]] = []  # (indent, key) of the keys that open a block
    # the lines a tree's branches (`├─ SPOT`) hang from, by indent: a nested branch
    # hangs from the branch above it ("└─> SLURM" over "      └─> RunPod")
    tree: list[tuple[int, str, bool]] = []  # (indent, text, is a branch)
    content = token.content.splitlines()
    for offset, line in enumerate(content):
        if offset in help_taken:
            continue
        indent = len(line) - len(line.lstrip())
        branch = _TREE_BRANCH.match(line)
        if branch:
            # (a sibling or a deeper branch's end pops; the root line stays)
            while tree and tree[-1][2] and tree[-1][0] >= indent:
                tree.pop()
        tree_parent = tree[-1][1] if tree else ""
        if branch and line[branch.end():].strip():
            tree.append((indent, line[branch.end():].strip().lstrip(">").strip(), True))
        if not _KEY_LINE.match(_plain_data(line)) and _add_drawn_line(
                doc, first + offset, line, heading, tree_parent):
            continue
        if line.strip() and not branch:
            tree = [(indent, line.strip(), False)]
        comment = comments.search(line)
        if comment and comment.group(1).strip():
            # "# 8x is opt-in only", "widths: [1, 2, 4, 8]  # narrowest first": a
            # comment in a config snippet is prose about it
            text = comment.group(1).rstrip()
            setting = _NUMBER_SETTING.match(line[:comment.start()]) or next(
                (m for later in content[offset + 1:offset + 4]
                 if not later.lstrip().startswith("#")
                 for m in [_NUMBER_SETTING.match(later)]), None) \
                if not line[:comment.start()].strip() else _NUMBER_SETTING.match(
                    line[:comment.start()])
            if setting:  # "short_threshold_hours: 4  # jobs under this many hours …"
                from .setting_anaphora import resolve

                text = resolve(text, setting["key"], setting["value"])
            doc.comment_lines.append(Unit("paragraph", first + offset, text, heading, text,
                                          (comment.start(1),)))
        # the value without its comment, which is read on its own above
        value = (line[:comment.start()] if comment else line).rstrip()
        plain = _plain_data(value)
        col = len(plain) - len(plain.lstrip())
        while parents and parents[-1][0] >= col and plain.strip():
            parents.pop()
        table = _TABLE_HEADER.match(value)
        if table:  # TOML `[flex_start]`: the keys below are its own, whatever their indent
            parents = [(-1, _spoken_key(table["key"]))]
            continue
        opener = _OPENER.match(plain)
        if opener:  # `flex_start:`, `"flex_start": {`: a block's key
            parents.append((col, _spoken_key(opener["key"])))
            continue
        if not _KEY_LINE.match(plain) or line.lstrip().startswith("#"):
            continue
        # `max_hours: 336` under `flex_start:` reads "flex start: max hours: 336";
        # text and raw start at the line's own indent (`{"min_width": …` keeps its `{"`)
        context = "".join(f"{key}: " for _, key in parents)
        indent = len(line) - len(line.lstrip())
        # every key of the line is spoken (`{"flex_start": {"max_hours": 336}}`), and
        # TOML's `=` reads as the `:` it means
        spoken = _KEY_IN_LINE.sub(lambda m: _spoken_key(m[1]) + m[2] + ":",
                                  plain[indent:])
        doc.data_lines.append(Unit("paragraph", first + offset, context + spoken, heading,
                                   context + line[indent:].rstrip(), (indent - len(context),),
                                   lead=len(context), data=True))


_SHELL_FENCES = frozenset({"sh", "bash", "shell", "zsh", "console", "shell-session",
                           "shellsession"})
# fences a command's help text is pasted into
_PROSE_FENCES = frozenset({"", "text", "txt", "plain", "plaintext", "help", "man",
                           *_SHELL_FENCES})
# a command with a job's flags ("backend-router dispatch --gpu-count 8 --hours 2")
_JOB_FLAGS = re.compile(r"(?<![\w-])--(?:gpu[-_]count|gpus|num[-_]gpus|n[-_]gpus|width)(?:\s+|=)\d"
                        r"(?=[\s\S]*(?<![\w-])--hours?(?:\s+|=)\d)")
_SHELL_COMMENT = re.compile(r"(?:^|\s)#+(?!!)[ \t]*([^\n]*)$")


def _add_shell_lines(doc: Document, token, heading: str, next_list: int) -> int:
    """A shell fence's comments are prose about its commands ("# → GCP 8×; if
    full, 4×"), and a command with a job's flags leads in the comments after it,
    which go on with that job. Returns the last list id used."""
    if _TRANSCRIPT.search(token.content.replace("$ ", "")):
        return next_list  # a tool's output quotes text; it claims nothing
    first = token.map[0] + 2  # the first content line
    list_id, item = 0, 0
    for offset, line in enumerate(token.content.splitlines()):
        comment = _SHELL_COMMENT.search(line)
        command = (line[:comment.start()] if comment else line).strip()
        if command and _JOB_FLAGS.search(command):
            start = line.index(command)
            doc.comment_lines.append(Unit("paragraph", first + offset, command, heading,
                                          command, (start,), command=True))
            next_list += 1
            list_id, item = next_list, 0
        if comment and comment.group(1).strip():
            text = comment.group(1).rstrip()
            item += bool(list_id)
            doc.comment_lines.append(Unit("paragraph", first + offset, text, heading, text,
                                          (comment.start(1),), list_id, False, item))
    return next_list


# "short_threshold_hours: 4", '"max_wait_minutes" = 30': a setting with a number
_NUMBER_SETTING = re.compile(r"[ \t]*(?:[-*][ \t]+)?[\"']?(?P<key>[A-Za-z][\w.-]{0,60})[\"']?"
                             r"[ \t]*[:=][ \t]*(?P<value>\d{1,6}(?:\.\d{1,3})?)[ \t,]*$")
_KEY_IN_LINE = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]{0,40})(\s*)[:=](?![:=])")
# drawn flows and trees in a plain fence: "8x ---> 4x ---> 1x", "├─ STANDARD"
_FLOW_ARROW = re.compile(r"(?<=\S)\s*(?:[-─━]{1,}>|={1,}>|[-─━]*(?:→|⟶|⇒|▶|►|➜|➔|⮕|⇨))\s*(?=\S)")
_TREE_BRANCH = re.compile(r"\s*(?:[│|]\s*)*(?:├|└|\+|\|)[─—-]+\s*|\s*`--\s*")


def _add_drawn_line(doc: Document, line_no: int, line: str, heading: str,
                    tree_parent: str) -> bool:
    """A line of a drawing that states an order or a family's models, read as a
    data line: a flow of arrows, or a tree branch under its parent line."""
    indent = len(line) - len(line.lstrip())
    branch = _TREE_BRANCH.match(line)
    if branch and tree_parent and line[branch.end():].strip():
        context = f"{tree_parent}: "
        # the branch glyphs blanked, column for column
        spoken = " " * (branch.end() - indent) + line[branch.end():].rstrip()
        doc.data_lines.append(Unit("paragraph", line_no, context + spoken, heading,
                                   context + line[indent:].rstrip(),
                                   (indent - len(context),), lead=len(context), data=True))
        return True
    if len(_FLOW_ARROW.findall(line)) < 2 or line.lstrip().startswith(("#", "$")):
        return False
    spoken = _FLOW_ARROW.sub(_spoken_arrow, line[indent:].rstrip())
    doc.data_lines.append(Unit("paragraph", line_no, spoken, heading,
                               line[indent:].rstrip(), (indent,), data=True))
    return True


def _spoken_arrow(m: re.Match[str]) -> str:
    """` ---> ` as ` ->   `: an arrow the readers know, in the same width."""
    if len(m[0]) < 2:
        return "→"
    right = 1 if len(m[0]) >= 3 else 0
    return " " * (len(m[0]) - 2 - right) + "->" + " " * right


# Mermaid: a node `A[label]`, `A(label)`, `A{label}`, `A((label))`, `A["label"]`; an
# edge `-->`, `==>`, `-.->`, `---`, with an optional `|label|`
_MERMAID_NODE = re.compile(r"(?P<id>[A-Za-z_][\w-]*)\s*(?:\[\[|\(\(|\[\(|\(\[|\[|\(|\{\{|\{|>)"
                           r"\s*\"?(?P<label>[^\]\)\}\"]*)\"?\s*(?:\]\]|\)\)|\)\]|\]\)|\]|\)|\}\}|\})")
_MERMAID_EDGE = re.compile(r"\s*(?:<?[-=.]{2,}>?|~~~)(?:\|[^|]*\|)?\s*|\s*--\s[^->]*-->\s*")


def _add_mermaid_lines(doc: Document, token, heading: str) -> None:
    """A mermaid flowchart states an order edge by edge: each edge line is read
    as "label → label → …" (node ids resolved to their labels; a subgraph's
    title is the context of its edges). Its findings point at the edge's line."""
    lines = token.content.splitlines()
    if not lines or not re.match(r"\s*(?:flowchart|graph)\b", lines[0]):
        return  # sequence diagrams, gantt charts, … state no order of rungs
    labels: dict[str, str] = {}
    for line in lines:
        for m in _MERMAID_NODE.finditer(line):
            labels.setdefault(m["id"], m["label"].strip())
    first = token.map[0] + 2
    subgraph = ""
    for offset, line in enumerate(lines[1:], start=1):
        stripped = line.strip()
        if stripped.startswith("subgraph"):
            subgraph = _MERMAID_NODE.sub(lambda m: m["label"], stripped[8:]).strip()
            continue
        if stripped == "end":
            subgraph = ""
            continue
        parts = _MERMAID_EDGE.split(stripped)
        if len(parts) < 2:
            continue
        names = []
        for part in parts:
            node = _MERMAID_NODE.fullmatch(part.strip())
            name = node["label"].strip() if node else labels.get(part.strip(), part.strip())
            names.append(name)
        spoken = (f"{subgraph}: " if subgraph else "") + " → ".join(names)
        indent = len(line) - len(line.lstrip())
        doc.data_lines.append(Unit("paragraph", first + offset, spoken, heading, spoken,
                                   (indent - len(spoken),), lead=len(spoken), data=True))


# a key that opens a block: YAML `key:` with nothing after, JSON `"key": {` (blanked)
_OPENER = re.compile(r"\s*(?:-\s+)?(?P<key>[A-Za-z][\w.-]{0,40})\s*:\s*$")
_TABLE_HEADER = re.compile(r"\s*\[\[?(?P<key>[A-Za-z][\w.-]{0,40})\]\]?\s*$")


def _plain_data(line: str) -> str:
    """A data line with JSON and TOML punctuation blanked, keeping every column:
    `"short_max_hours": 4,` reads like `short_max_hours: 4`."""
    kept = re.sub(r"\{\w+\}", lambda m: "\0" * len(m[0]), line)  # `{width}` templates stay
    blanked = re.sub(r"[\"{}\[\]]", " ", kept).rstrip().rstrip(",")
    return "".join(orig if ch == "\0" else ch for orig, ch in zip(line, blanked, strict=False))


def _spoken_key(key: str) -> str:
    """`short_below_hours` → `short below hours`, `gcp.h100.machine` → `gcp h100 machine`;
    a name in capitals (`FLEX_START`, a constant) is kept as written."""
    if not any(c.islower() for c in key):
        return key
    return re.sub(r"(?<=[A-Za-z0-9])[_.](?=[A-Za-z0-9])", " ", key)


def _cell_column(source: str, raw: str, index: int) -> int:
    """0-based column of the `index`-th cell's text in a table row line."""
    pos = 0
    for _ in range(index + 1):
        bar = source.find("|", pos)
        if bar < 0:
            break
        pos = bar + 1
        if index == 0 and not source[:bar].strip():
            break  # a leading pipe: the first cell starts after it
    found = source.find(raw, pos if index or source.lstrip().startswith("|") else 0)
    return found if found >= 0 else 0


def _add_row(doc: Document, row: list[tuple[str, str, int, int]], line: int, heading: str,
             table_id: int, header: bool) -> None:
    """A table row as one unit whose text is its cells joined by ' | '; the
    columns map each cell back to its place in the row's source line."""
    if not row:
        return
    # a cell that is only a setting's key ("| min_width |") is read spoken, as a
    # data line's key is: "min width"
    row = [(_SNAKE_CELL.sub(" ", cell) if _SNAKE_KEY.fullmatch(cell.strip()) else cell,
            raw, at, col) for cell, raw, at, col in row]
    text = " | ".join(cell for cell, _, _, _ in row)
    raw = " | ".join(r for _, r, _, _ in row)
    doc.units.append(_RowUnit("table-row", line, text, heading, raw, (0,), 0, False, 0,
                              table_id, tuple(cell for cell, _, _, _ in row), header,
                              cell_starts=tuple((len(" | ".join(r for _, r, _, _ in row[:k])) +
                                                 (3 if k else 0), col) for k, (_, _, _, col)
                                                in enumerate(row))))


_SNAKE_KEY = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_SNAKE_CELL = re.compile(r"(?<=[a-z0-9])_(?=[a-z0-9])")


@dataclass(frozen=True)
class _RowUnit(Unit):
    """A table row: positions map through each cell's own column."""

    cell_starts: tuple[tuple[int, int], ...] = ()  # (offset in raw, column in source)

    def position(self, offset: int) -> tuple[int, int]:
        raw_offset = self._raw_offset(offset)
        start, col = 0, 0
        for cell_offset, cell_col in self.cell_starts:
            if cell_offset <= raw_offset:
                start, col = cell_offset, cell_col
        return self.line, col + raw_offset - start + 1
