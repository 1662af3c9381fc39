"""Prose hidden in code: a command's help text in a fence, and a setting's
description that points back at its value. Both are rewritten in place, so
their invariants are about offsets: every character keeps its position."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lint.help_text import help_lines, help_prose
from lint.setting_anaphora import resolve, speak_default

HELP = """usage: backend-router dispatch [-h] [--gpu-count N] [--hours H]

Walks the backend ladder for one request.

options:
  -h, --help       show this help message and exit
  --gpu-count N    requested width. On a miss the router
                   halves it down to the intent's min width.
  --hours H        hours at the requested width
"""


def test_each_option_description_is_one_unit_with_its_continuation() -> None:
    prose = {p.offset: p.text for p in help_prose(HELP)}
    assert prose[5] == "show this help message and exit"
    assert prose[6] == ("requested width. On a miss the router\n"
                        "halves it down to the intent's min width.")
    assert prose[8] == "hours at the requested width"
    # under a usage line, the help's own paragraph is prose too
    assert prose[2] == "Walks the backend ladder for one request."
    assert help_lines(help_prose(HELP)) == {2, 5, 6, 7, 8}


def test_a_column_points_at_the_description() -> None:
    part = next(p for p in help_prose(HELP) if p.offset == 6)
    line, continued = HELP.splitlines()[6:8]
    assert line[part.cols[0]:].startswith("requested width")
    assert continued[part.cols[1]:].startswith("halves it")


def test_commands_and_plain_code_hold_no_help_text() -> None:
    assert help_prose("backend-router dispatch --gpu-count 8 \\\n    --hours 2  \\\n") == []
    assert help_prose("python train.py --lr 3e-4\nls -la\n") == []
    assert help_prose("x = 1\n") == []


def test_a_pointer_at_a_setting_reads_as_its_value() -> None:
    assert " ".join(resolve("jobs at or under this many hours lead with SPOT",
                            "short_threshold_hours", "4").split()) == \
        "jobs at or under 4 hours lead with SPOT"
    assert " ".join(resolve("jobs shorter than this lead with SPOT", "short_threshold_hours",
                            "4").split()) == "jobs shorter than 4 h lead with SPOT"
    # a pointer with its own noun, or not after a comparison, is left alone
    text = "longer jobs get no FLEX_START rung at that width; see this key"
    assert resolve(text, "flex_start_max_run_hours", "168") == text
    # a key with no unit gives the number none to speak
    assert resolve("jobs over this", "retries", "3") == "jobs over this"


def test_a_reference_entry_speaks_its_key_and_default() -> None:
    text = "short_threshold_hours\nDefault: 6. Jobs shorter than this lead with SPOT."
    spoken = speak_default(text)
    assert spoken.startswith("short threshold hours\n:")
    assert "6" in spoken[:spoken.index(".")]
    assert "than 6 h" in spoken
    # the value's own sentence keeps its pointer: a fix there mends the value alone
    same = "short_threshold_hours (default: 6): jobs under this lead with SPOT."
    assert "under this" in speak_default(same)


_WORDS = st.lists(st.sampled_from(
    ["this", "that", "than", "under", "over", "up", "to", "many", "hours", "value",
     "jobs", "lead", "with", "SPOT", "width", "at", "most", "\n", "Default:", "6", "the"]),
    max_size=30).map(" ".join)


@given(_WORDS, st.sampled_from(["short_threshold_hours", "max_wait_minutes", "min_width",
                                "retries"]),
       st.sampled_from(["4", "168", "0.5", "30"]))
def test_resolving_keeps_every_offset(text: str, key: str, value: str) -> None:
    out = resolve(text, key, value)
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c == "\n"] == \
        [i for i, c in enumerate(text) if c == "\n"]


@given(st.sampled_from(["short_threshold_hours", "`flex_start_max_run_hours`",
                        "**max_wait_minutes**"]),
       st.sampled_from([" — default ", " (default: ", "\nDefault: ", " defaults to "]),
       st.sampled_from(["4", "168", "30"]), _WORDS)
def test_speaking_a_default_keeps_every_offset(key: str, gap: str, value: str,
                                               rest: str) -> None:
    text = key.strip("`*") + gap + value + ". " + rest
    out = speak_default(text)
    assert len(out) == len(text)
    assert [i for i, c in enumerate(out) if c == "\n"] == \
        [i for i, c in enumerate(text) if c == "\n"]
