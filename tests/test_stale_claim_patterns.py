"""Workspace stale-claim patterns are safe by construction: patterns that can
backtrack catastrophically are refused with one `file:line:` line (exit 2),
and every accepted pattern searches adversarial text quickly."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from lint.rules import stale_claim
from lint.rules.stale_claim import WINDOW, ClaimsError, pattern_problem, search

PACKAGED = [p for claim in yaml.safe_load(stale_claim.PACKAGED.read_text())
            for p in claim["patterns"]]

UNSAFE = [
    r"^(a+)+$", r"(a|a)*", r"(a*)*", r"(.*a){20}", r"(\w+\s?)+$", r"(?:ab)+", r"(a|aa)+",
    r"\s*\s*x", r".*a.*b", r"\w+\s*\w+", r"[a-z]*auto\s*\s*x", r".*.*=.*", r"(x+x+)+y",
    r"(a)\1", r"(?P<w>a)(?P=w)", r"a(?=b)", r"a(?!b)", r"(?<=a)b", r"(?<!a)b", r"(a)?(?(1)b|c)",
    r"a{1000}", r"a{200,}", "x" * 400, r"(?:ab|[ab]b)" * 7, "", "a?", r"\b", "(?:x|)",
    "x" + "a*" * 40,
]


@pytest.mark.parametrize("pattern", PACKAGED)
def test_packaged_patterns_are_safe(pattern: str) -> None:
    assert pattern_problem(pattern) is None


@pytest.mark.parametrize("pattern", UNSAFE)
def test_catastrophic_patterns_are_refused(pattern: str) -> None:
    assert pattern_problem(pattern) is not None


@pytest.mark.parametrize("pattern", ["a*" * 150, "x" + "".join(
    f"(?:{c}\\s+)?" for c in "abcdefghijklmnopqrstuvwxy"), "x" + "(?:[ab][0-9]+)?" * 19])
def test_the_check_itself_is_quick(pattern: str) -> None:
    pattern_problem.cache_clear()
    started = time.perf_counter()
    pattern_problem(pattern)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("pattern", [
    r"explicit\s+only", r"\bopt\s+in\b", r"rungs?\s+are\s+manual", r"x.*y", r"\s+x",
    r"8\s*x\s+rungs?", r"the\s+\w+\s+\w+\s+rung", r"(?:auto|manual)\s+ladder", r"a+b*c+",
    r"[a-z]+[0-9]+", r"^never\s+wide$", r"(?:intent\s+)?only", r"(?i:SPOT)\s+first"])
def test_ordinary_patterns_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None


def write_workspace(tmp_path: Path, pattern: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.workflow-lint]\nstale_claims = "claims.yaml"\n')
    (tmp_path / "claims.yaml").write_text(
        "- id: x\n  message: retired\n  patterns:\n    - 'fine\\s+words'\n"
        f"    - '{pattern}'\n")
    (tmp_path / "CLAUDE.md").write_text("# Guide\n\n" + "a" * 60 + "!\n")
    return tmp_path


def test_unsafe_workspace_pattern_is_one_line_exit_2(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path, "^(a+)+$")
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "lint"], cwd=ws, capture_output=True,
                            text=True, timeout=120)
    assert time.monotonic() - started < 60
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "claims.yaml:5: unsafe pattern '^(a+)+$'" in result.stderr
    assert "repeated group" in result.stderr


def test_load_names_the_pattern_line(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path, r"(a)\1")
    with pytest.raises(ClaimsError, match=r"claims.yaml:5: unsafe pattern .*backreference"):
        stale_claim.load(ws / "claims.yaml")


def test_safe_workspace_pattern_still_finds_its_claim(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path, r"wide\s+rungs?\s+are\s+manual")
    (ws / "CLAUDE.md").write_text("# Guide\n\nWide rungs are manual here.\n")
    result = subprocess.run([sys.executable, "-m", "lint"], cwd=ws, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 1 and "stale-claim retired [x]" in result.stdout


def test_windowed_search_finds_a_claim_deep_in_a_long_paragraph() -> None:
    pattern = re.compile(r"explicit\s+only", re.I)
    for at in (0, WINDOW // 2 - 5, WINDOW - 7, 3 * WINDOW + 11, 10 * WINDOW):
        text = "x " * (at // 2) + "explicit only" + " y" * 3000
        m = search(pattern, text)
        assert m is not None and m.start() == text.index("explicit")
    assert search(pattern, "x " * 10 * WINDOW) is None


def test_windowed_search_keeps_anchors_honest_at_the_cut() -> None:
    pattern = re.compile(r"\bab\b", re.I)
    text = "x" * (WINDOW - 2) + "abc" + " " * 3000
    assert pattern.search(text) is None and search(pattern, text) is None
    dollar = re.compile(r"ab$", re.I)
    assert search(dollar, "x" * (WINDOW - 2) + "abc") is None


# Random patterns over the constructs that matter for backtracking, nested.
ATOMS = st.sampled_from(["a", "b", "x", " ", r"\s", r"\w", r"\d", ".", "[ab]", "[^a]",
                         "[a-z]", r"\W", r"\b", "^", "$"])
QUANTS = st.sampled_from(["", "", "", "?", "?", "*", "+", "{2}", "{1,3}", "{2,}", "*?", "+?"])


def _pattern(depth: int) -> st.SearchStrategy[str]:
    piece = st.tuples(ATOMS, QUANTS).map("".join)
    if depth:
        group = st.lists(_pattern(depth - 1), min_size=1, max_size=3).map(
            lambda alts: "(?:" + "|".join(alts) + ")")
        piece = piece | st.tuples(group, QUANTS).map("".join)
    return st.lists(piece, min_size=1, max_size=5).map("".join)


PATTERNS = _pattern(2)
ADVERSARIAL = st.text(alphabet="abx \t!-_1", min_size=1, max_size=6)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.filter_too_much])
@given(PATTERNS, ADVERSARIAL, st.sampled_from(["", "!", "b", "\n", "ab"]))
def test_accepted_patterns_search_adversarial_text_quickly(pattern: str, unit: str,
                                                           tail: str) -> None:
    problem = pattern_problem(pattern)
    assume(problem is None)
    compiled = re.compile(pattern, re.I)
    text = unit * (3 * WINDOW // len(unit)) + tail  # long runs and periodic text
    started = time.perf_counter()
    search(compiled, text)
    search(compiled, text[: WINDOW // 2])
    # ~0.3 s is typical for the slowest (n^2 per window) shapes; the margin absorbs load.
    assert time.perf_counter() - started < 5.0, pattern
    short = text[:200]
    assert (search(compiled, short) is None) == (compiled.search(short) is None)


@settings(max_examples=200, deadline=None)
@given(PATTERNS)
def test_the_check_never_raises(pattern: str) -> None:
    problem = pattern_problem(pattern)
    assert problem is None or ("\n" not in problem and problem)
