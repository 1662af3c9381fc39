"""The compiled-pattern cache: a hit behaves exactly as a fresh compile, and a
missing, damaged or unwritable cache is never an error."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lint import regex_cache

ROOT = Path(__file__).resolve().parents[1]
WORKSPACE = ROOT / "examples" / "workspace"

# Pieces of patterns of the shapes the lexicon and readers use: named groups,
# lookarounds, classes, repeats, alternations, inline flags.
ATOMS = ["a", "b", "ab", r"\d", r"\w", r"\s", "[a-c]", "[^b]", ".", r"\b", "x{1,3}",
         "(?P<n{i}>a|b)", "(?:ab|c)", "(?<!a)b", "(?=a)", "(?!b)", "(?-i:A)", "(?i:b)", "é",
         r"\.", "b*?", "(a)?", "^", "$"]
SUBJECTS = st.text(alphabet="abcxABé. 1_\n", max_size=30)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=6))
    text = "".join(p.replace("{i}", str(i)) for i, p in enumerate(pieces))
    return text if not draw(st.booleans()) else f"{text}|{draw(st.sampled_from(ATOMS[:8]))}"


def _through_cache(root: Path, pattern: str, flags: int) -> re.Pattern[str]:
    re.purge()  # re's own cache would otherwise answer without compiling
    with regex_cache.cached(root):
        return re.compile(pattern, flags)


@settings(max_examples=150, deadline=None)
@given(patterns(), st.sampled_from([0, re.I, re.I | re.S, re.M]), st.lists(SUBJECTS, max_size=5))
def test_a_cached_pattern_matches_as_a_fresh_one(pattern: str, flags: int,
                                                  subjects: list[str]) -> None:
    root = Path(f"/tmp/regex-cache-prop-{abs(hash(pattern)) % 7}")
    root.mkdir(exist_ok=True)
    re.purge()
    fresh = re.compile(pattern, flags)
    first = _through_cache(root, pattern, flags)   # a miss: compiled and stored
    second = _through_cache(root, pattern, flags)  # a hit: the stored program
    for compiled in (first, second):
        assert (compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex) == \
            (fresh.pattern, fresh.flags, fresh.groups, fresh.groupindex)
        for subject in subjects:
            assert [m.span() for m in compiled.finditer(subject)] == \
                [m.span() for m in fresh.finditer(subject)]
            assert [m.groupdict() for m in compiled.finditer(subject)] == \
                [m.groupdict() for m in fresh.finditer(subject)]


def test_the_store_is_read_back_in_another_process(tmp_path: Path) -> None:
    pattern = r"(?P<w>\d+)\s*[x×](?![\w])"
    _through_cache(tmp_path, pattern, re.I)
    [stored] = (tmp_path / regex_cache.DIRECTORY).glob("regex-*.marshal")
    assert (tmp_path / regex_cache.DIRECTORY / ".gitignore").read_text().endswith("*\n")
    probe = ("import re, sys\nfrom pathlib import Path\nfrom lint import regex_cache\n"
             "import re._parser as p\np.parse = None  # any compile that is not a hit fails\n"
             f"with regex_cache.cached(Path({str(tmp_path)!r})):\n"
             f"    print(re.compile({pattern!r}, re.I).findall('go 8x, then 4 x'))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "['8', '4']"
    assert stored.stat().st_size > 0


@pytest.mark.parametrize("damage", ["empty", "garbage", "cut short", "bit flipped"])
def test_a_damaged_cache_is_replaced_and_the_run_is_clean(tmp_path: Path,
                                                          damage: str) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(regex_cache.DIRECTORY))
    run = [sys.executable, "-m", "lint"]
    assert subprocess.run(run, cwd=ws, capture_output=True).returncode == 0
    [stored] = (ws / regex_cache.DIRECTORY).glob("regex-*.marshal")
    blob = stored.read_bytes()
    stored.write_bytes({"empty": b"", "garbage": b"\x00garbage\xfb\x01",
                        "cut short": blob[:len(blob) // 2],
                        # one bit of one program: still valid marshal
                        "bit flipped": blob[:-200] + bytes([blob[-200] ^ 1]) + blob[-199:],
                        }[damage])
    again = subprocess.run(run, cwd=ws, capture_output=True, text=True)
    assert (again.returncode, again.stderr) == (0, "")
    assert "All checks passed" in again.stdout
    assert stored.stat().st_size > 1000  # rewritten with good programs


def test_an_unwritable_cache_place_is_not_an_error(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(regex_cache.DIRECTORY))
    (ws / regex_cache.DIRECTORY).write_text("a file where the folder would go\n")
    out = subprocess.run([sys.executable, "-m", "lint"], cwd=ws, capture_output=True, text=True)
    assert (out.returncode, out.stderr) == (0, "")


@pytest.mark.parametrize("planted", ["fifo", "symlink"])
def test_a_planted_fifo_or_symlink_is_not_read(tmp_path: Path, planted: str) -> None:
    import os

    import lint.regex_cache as rc

    folder = tmp_path / regex_cache.DIRECTORY
    folder.mkdir()
    target = folder / rc._tag()  # type: ignore[operator]
    if planted == "fifo":
        os.mkfifo(target)
    else:
        outside = tmp_path / "elsewhere"
        outside.write_bytes(b"WLRX\x00\x00\x00\x00")
        target.symlink_to(outside)
    probe = ("import re\nfrom pathlib import Path\nfrom lint import regex_cache\n"
             f"with regex_cache.cached(Path({str(tmp_path)!r})):\n"
             "    print(re.compile('a+b').findall('aab'))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert (out.returncode, out.stdout.strip()) == (0, "['aab']"), out.stderr


def test_cache_false_writes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(regex_cache.DIRECTORY))
    pyproject = ws / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.workflow-lint]",
                                                       "[tool.workflow-lint]\ncache = false", 1))
    out = subprocess.run([sys.executable, "-m", "lint"], cwd=ws, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert not (ws / regex_cache.DIRECTORY).exists()


def test_a_full_store_keeps_what_the_run_used(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(4):
        _through_cache(tmp_path, f"old{i}", 0)
    monkeypatch.setattr(regex_cache, "MAX_ENTRIES", 3)
    re.purge()
    with regex_cache.cached(tmp_path):
        re.compile("new", 0)
    import marshal

    [stored] = (tmp_path / regex_cache.DIRECTORY).glob("regex-*.marshal")
    assert set(marshal.loads(stored.read_bytes()[regex_cache._HEAD:])) == {("new", 0)}


def test_a_store_over_its_byte_budget_keeps_what_the_run_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(4):
        _through_cache(tmp_path, "|".join(f"old{i}word{j}" for j in range(50)), 0)
    [stored] = (tmp_path / regex_cache.DIRECTORY).glob("regex-*.marshal")
    monkeypatch.setattr(regex_cache, "MAX_BYTES", stored.stat().st_size - 1)
    re.purge()
    with regex_cache.cached(tmp_path):
        re.compile("new", 0)
    import marshal

    assert set(marshal.loads(stored.read_bytes()[regex_cache._HEAD:])) == {("new", 0)}


def test_compiles_after_the_block_do_not_go_through_the_cache(tmp_path: Path) -> None:
    import re._compiler

    before = re._compiler.compile
    with regex_cache.cached(tmp_path):
        assert re._compiler.compile is not before
    assert re._compiler.compile is before


CLASS_MEMBERS = st.sets(st.sampled_from(list("ab_%:=@!<>`~&*+#$^{}[]\\-\n ")), min_size=2,
                        max_size=12)


@settings(max_examples=60, deadline=None)
@given(CLASS_MEMBERS, st.randoms(use_true_random=False), st.lists(SUBJECTS, max_size=4))
def test_a_class_spelled_in_another_order_is_one_entry(members: set[str], rng,
                                                        subjects: list[str]) -> None:
    # markdown-it builds a class from a frozenset, so its spelling changes run to run
    first = "[" + re.escape("".join(sorted(members))) + "]"
    shuffled = sorted(members)
    rng.shuffle(shuffled)
    second = "[" + re.escape("".join(shuffled)) + "]"
    root = Path(f"/tmp/regex-cache-class-{abs(hash(first)) % 5}")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    _through_cache(root, first, 0)
    hit = _through_cache(root, second, 0)
    import marshal

    [stored] = (root / regex_cache.DIRECTORY).glob("regex-*.marshal")
    assert len(marshal.loads(stored.read_bytes()[regex_cache._HEAD:])) == 1
    re.purge()
    fresh = re.compile(second)
    assert hit.pattern == second
    for subject in [*subjects, "".join(members)]:
        assert [m.span() for m in hit.finditer(subject)] == \
            [m.span() for m in fresh.finditer(subject)]


@pytest.mark.parametrize("pattern", [r"[a-c]", r"[\d_]", r"[^ab]", r"[[]", "[ab]x"])
def test_a_class_with_ranges_or_escapes_keeps_its_spelling(pattern: str) -> None:
    assert regex_cache._key(pattern, 0) == (pattern, 0)


def test_a_second_run_of_the_same_workspace_writes_no_cache(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(regex_cache.DIRECTORY))
    runs = []
    for seed in ("1", "2"):  # another string-hash seed: sets iterate in another order
        out = subprocess.run([sys.executable, "-m", "lint"], cwd=ws, capture_output=True,
                             text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert out.returncode == 0, out.stdout + out.stderr
        [stored] = (ws / regex_cache.DIRECTORY).glob("regex-*.marshal")
        runs.append(stored.stat().st_mtime_ns)
    assert runs[0] == runs[1]


def test_what_pool_workers_compile_is_kept_for_the_next_run(tmp_path: Path) -> None:
    """A run over many files lints them in forked workers, which compile the
    lexicon's narrowed alternations themselves; the main process saves them, so
    the next run compiles nothing (a probe fails any compile that misses)."""
    from lint.engine import PARALLEL_MIN_FILES

    ws = tmp_path / "ws"
    shutil.copytree(WORKSPACE, ws, ignore=shutil.ignore_patterns(regex_cache.DIRECTORY))
    sentences = ["Short jobs lead with SPOT.", "Long jobs lead with FLEX_START.",
                 "The router goes 8x, then 4x, 2x, 1x.", "RunPod is the last resort.",
                 "campus-a100 comes before campus-preempt.", "a3-highgpu-8g has no on-demand."]
    notes = ws / "notes"
    notes.mkdir()
    for i in range(PARALLEL_MIN_FILES + 12):
        chosen = [s for j, s in enumerate(sentences) if (i >> j) & 1] or sentences[:1]
        (notes / f"note-{i:03d}.md").write_text("# Note\n\n" + " ".join(chosen) + "\n")
    env = dict(os.environ, PYTHONHASHSEED="0")
    first = subprocess.run([sys.executable, "-m", "lint", "notes"], cwd=ws, env=env,
                           capture_output=True, text=True)
    assert first.returncode in (0, 1) and first.stderr == "", first.stderr
    probe = ("import sys\nfrom lint import regex_cache\n"
             "real = regex_cache._Store.compile\n"
             "def strict(self, original, pattern, flags):  # in every worker too\n"
             "    if regex_cache._key(pattern, int(flags)) not in self.entries:\n"
             "        raise RuntimeError(f'compiled again: {pattern[:60]!r}')\n"
             "    return real(self, original, pattern, flags)\n"
             "regex_cache._Store.compile = strict\n"
             "from lint.cli import main\nsys.exit(main(['notes']))\n")
    again = subprocess.run([sys.executable, "-c", probe], cwd=ws, env=env,
                           capture_output=True, text=True)
    assert (again.returncode, again.stderr, again.stdout) == \
        (first.returncode, "", first.stdout)


def test_a_remembered_value_is_read_back_and_a_bad_one_recomputed(tmp_path: Path) -> None:
    calls: list[str] = []

    def compute() -> tuple[str, ...]:
        calls.append("computed")
        return ("flex", "spot")

    def valid(value: object) -> bool:
        return isinstance(value, tuple) and all(isinstance(v, str) for v in value)

    for _ in range(2):
        with regex_cache.cached(tmp_path):
            assert regex_cache.remember("literals x", compute, valid) == ("flex", "spot")
    assert calls == ["computed"]  # the second run read it back
    with regex_cache.cached(tmp_path):  # a stored value of the wrong shape
        regex_cache._active.entries[("literals x", regex_cache._MEMO_FLAGS)] = ([1, 2],)
        assert regex_cache.remember("literals x", compute, valid) == ("flex", "spot")
    assert calls == ["computed", "computed"]
    assert regex_cache.remember("literals x", compute, valid) == ("flex", "spot")  # no cache


def test_the_lexicon_gates_are_the_same_read_from_the_cache(tmp_path: Path) -> None:
    """The lexicon's literal analysis, kept in the cache, gives every
    alternation the same gates as a fresh analysis, and a second run reads it
    back rather than analysing again."""
    import gc

    from lint import lexicon
    from router import config

    def gates() -> list[tuple]:
        lexicon._required_runs.cache_clear()
        before = {id(o) for o in gc.get_objects() if isinstance(o, lexicon._Alternation)}
        lex = lexicon.build(config.load())
        found = [o.parts for o in gc.get_objects()
                 if isinstance(o, lexicon._Alternation) and id(o) not in before]
        del lex
        return sorted(found)

    fresh = gates()
    with regex_cache.cached(tmp_path):
        assert gates() == fresh
    analysed: list[str] = []
    real = lexicon._required_literals
    lexicon._required_literals = lambda p: analysed.append(p) or real(p)  # type: ignore
    try:
        with regex_cache.cached(tmp_path):
            assert gates() == fresh
    finally:
        lexicon._required_literals = real
    assert len(fresh) > 20 and analysed == []
