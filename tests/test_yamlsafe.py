"""The bounded, line-tracking YAML loader reads with libyaml where it is
installed; its data, lines and errors must be those of the pure-Python parser."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from router import yamlsafe

KEYS = st.sampled_from(["a", "b", "rungs", "widths", "<<", "x y", "'q'", "1"])
SCALARS = st.sampled_from(["1", "0x1f", "1_000", "2.5", ".inf", "~", "yes", "'s'", '"d\\n"',
                           "&x 3", "*x", "[1, 2]", "{k: v}", "!!str 7", "2001-12-14", "-",
                           "|\n    block", "\x07", "", "[1,", "é", "\t2"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        indent = "  " * draw(st.integers(0, 1))
        lines.append(f"{indent}{draw(KEYS)}: {draw(SCALARS)}" if draw(st.booleans())
                     else f"{indent}- {draw(SCALARS)}")
    return "\n".join(lines) + "\n"


def _outcome(text: str, loader: type) -> tuple[object, ...]:
    try:
        located = yamlsafe.load(text, _loader=loader)
    except yamlsafe.YamlError as exc:
        return ("error", exc.line)
    return ("ok", located.data, located.lines)


@settings(max_examples=300, deadline=None)
@given(documents())
def test_libyaml_reads_as_the_python_parser(text: str) -> None:
    fast, slow = _outcome(text, yaml.CSafeLoader), _outcome(text, yaml.SafeLoader)
    if "\t" in text and slow[0] == "error":
        return  # libyaml takes a tab after "key:" as separation space, as YAML 1.2 does
    if fast[0] == slow[0] == "error":
        # the same line, or one apart (libyaml may place "expected ']'" on the next line)
        assert abs(fast[1] - slow[1]) <= 1, (fast, slow)
        return
    assert fast == slow


def test_a_lone_surrogate_is_one_error_line() -> None:
    with pytest.raises(yamlsafe.YamlError) as exc:
        yamlsafe.load("a: '\ud800'\n")
    assert exc.value.line == 1


@pytest.mark.parametrize("opener,closer", [("[", "]"), ("{", "}")])
def test_deep_flow_nesting_is_an_error_not_a_crash(opener: str, closer: str) -> None:
    # libyaml recurses on the C stack and crashes near 25,000 levels; the loader
    # must not hand it such a document
    with pytest.raises(yamlsafe.YamlError) as exc:
        yamlsafe.load("x: " + opener * 60_000 + closer * 60_000 + "\n")
    assert "nested too deeply" in exc.value.message
