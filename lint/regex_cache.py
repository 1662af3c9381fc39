"""Compiled regular expressions kept between runs, as Python keeps bytecode.

The claim engine's lexicon and readers compile some 400 patterns per run
(alternations built from the loaded ladder config, readers' cue patterns),
and CPython's regex compiler is written in Python: about 190 ms of a 520 ms
run on the example workspace. A pre-commit hook pays that on every commit.

While `cached(root)` is active, each compile looks its pattern up in
`<root>/.workflow-lint-cache/`: a hit hands the stored SRE program straight
to `_sre.compile`, skipping the parse and code generation; a miss compiles
as usual and keeps the program. The file is written once, atomically, and
only when something new was compiled.

A file whose checksum does not match is ignored, and every stored program
still goes through CPython's own validation in `_sre.compile`, so a damaged
file cannot make a pattern unsafe; any mismatch (another Python, another
`_sre.MAGIC`, an unreadable file) means no cache, never an error. The file
is as trusted as the workspace's own `lexicon` file, whose patterns it
could also change: both live in the workspace and are written by its owner.
The file name holds the interpreter's cache tag and the SRE magic number;
entries are keyed by pattern text and flags, so a changed ladder config
simply compiles its new patterns.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import tempfile
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DIRECTORY = ".workflow-lint-cache"
# Entries kept at most: patterns built from unordered sets differ run to run,
# and the file must not grow with them.
MAX_ENTRIES = 3000
# Bytes kept at most. Every run loads the whole file, and the lexicon's narrowed
# alternations (one per set of literals a text held) are large: a store filled
# by linting many unlike files costs more to load than its hits save.
MAX_BYTES = 2 << 20
_MAX_FILE_BYTES = 16 << 20
_IGNORE_ALL = "# written by workflow-lint\n*\n"
_MAGIC = b"WLRX"
# The flags half of a remembered value's key: no compile passes a negative flag.
_MEMO_FLAGS = -1
_HEAD = len(_MAGIC) + 4


def _header(payload: bytes) -> bytes:
    """The file's first bytes: a magic and the payload's CRC-32, so a file cut
    short or damaged on disk is ignored rather than half-read."""
    import zlib

    return _MAGIC + zlib.crc32(payload).to_bytes(4, "big")


def _tag() -> str | None:
    """The file's name for this interpreter, or None where the cache does
    not apply (another implementation, or an `re` without these internals)."""
    try:
        import _sre
        import re._compiler
        import re._parser
    except ImportError:
        return None
    if sys.implementation.cache_tag is None or not hasattr(re._compiler, "_code"):
        return None
    return f"regex-{sys.implementation.cache_tag}-{_sre.MAGIC}.marshal"


def _key(pattern: str, flags: int) -> tuple[str, int]:
    """The entry's key. A character class of single or escaped characters is
    keyed by its members in sorted order: a class built from a set (as
    markdown-it builds its inline terminators) is spelled in a new order on
    each run, and would otherwise add an entry, and a file write, every time."""
    if len(pattern) < 3 or pattern[0] != "[" or pattern[-1] != "]" or pattern[1] == "^":
        return pattern, flags
    items: list[str] = []
    body, i = pattern[1:-1], 0
    # No regex here: this runs inside the compile hook.
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1].isascii() \
                and not body[i + 1].isalnum():
            items.append(body[i:i + 2])  # an escaped punctuation or space character
            i += 2
        elif body[i] in "\\[]-":
            return pattern, flags  # a range, a nested set or an escape class: as written
        else:
            items.append(body[i])
            i += 1
    return "[" + "".join(sorted(items)) + "]", flags


class _Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[tuple[str, int], tuple[Any, ...]] = {}
        self.used: set[tuple[str, int]] = set()
        self.added = 0
        # Compiled here since `take_fresh` last asked: a pool worker hands them
        # to the main process, the one that saves.
        self.fresh: dict[tuple[str, int], tuple[Any, ...]] = {}

    def load(self) -> None:
        try:
            # a regular file only: a FIFO planted here must not hang the lint
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
            with open(fd, "rb") as handle:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE_BYTES:
                    return
                blob = handle.read(_MAX_FILE_BYTES + 1)
            head, payload = blob[:_HEAD], blob[_HEAD:]
            if head != _header(payload):  # truncated or damaged on disk
                return
            data = marshal.loads(payload)
        except (OSError, EOFError, ValueError, TypeError):
            return
        if isinstance(data, dict):
            self.entries = data

    def compile(self, original: Any, pattern: Any, flags: Any) -> Any:
        """`re._compiler.compile`, through the store."""
        import _sre
        import re

        if not isinstance(pattern, str):
            return original(pattern, flags)
        key = _key(pattern, int(flags))
        entry = self.entries.get(key)
        if entry is not None:
            try:
                final_flags, code, groups, groupindex, indexgroup = entry
                program = array("I")
                program.frombytes(code)
                compiled = _sre.compile(pattern, final_flags, program.tolist(), groups,
                                        groupindex, indexgroup)
                self.used.add(key)
                return compiled
            except Exception:  # a bad entry: compile it afresh
                del self.entries[key]
        parsed = re._parser.parse(key[0], flags)
        code = re._compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        final_flags, groups = int(flags | parsed.state.flags), parsed.state.groups - 1
        compiled = _sre.compile(pattern, final_flags, code, groups, groupindex,
                                tuple(indexgroup))
        self._keep(key, (final_flags, array("I", code).tobytes(), groups, groupindex,
                         tuple(indexgroup)))
        return compiled

    def _keep(self, key: tuple[str, int], entry: tuple[Any, ...]) -> None:
        """A new entry: stored, handed to the main process if this is a pool
        worker, and counted for the save."""
        self.entries[key] = self.fresh[key] = entry
        self.used.add(key)
        self.added += 1

    def remember(self, name: str, compute: Callable[[], Any], valid: Callable[[Any], bool]
                 ) -> Any:
        """`compute()`, stored under `name` beside the programs: a value derived
        from pattern text alone (the lexicon's literal analysis), so a run that
        compiles nothing new also analyses nothing new. A stored value that
        `valid` rejects is computed afresh."""
        key = (name, _MEMO_FLAGS)
        entry = self.entries.get(key)
        if entry is not None and len(entry) == 1 and valid(entry[0]):
            self.used.add(key)
            return entry[0]
        value = compute()
        self._keep(key, (value,))
        return value

    def adopt(self, entries: dict[tuple[str, int], tuple[Any, ...]]) -> None:
        """Keep programs another process compiled, as if compiled here."""
        for key, entry in entries.items():
            if key not in self.entries:
                self.entries[key] = entry
                self.added += 1
            self.used.add(key)

    def save(self) -> None:
        if not self.added:
            return
        entries = self.entries
        payload = marshal.dumps(entries)
        if len(entries) > MAX_ENTRIES or len(payload) > MAX_BYTES:
            entries = {k: v for k, v in entries.items() if k in self.used}
            payload = marshal.dumps(entries)
        try:
            folder = self.path.parent
            folder.mkdir(exist_ok=True)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text(_IGNORE_ALL, encoding="utf-8")
            fd, tmp = tempfile.mkstemp(prefix=".regex-", dir=folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(_header(payload) + payload)
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):
            pass  # a read-only checkout: the next run compiles again


_active: _Store | None = None


def take_fresh() -> dict[tuple[str, int], tuple[Any, ...]]:
    """The programs this process compiled since the last call (none without an
    active cache). A forked pool worker inherits the store but never saves it,
    so without this every run's workers would compile the same patterns again."""
    if _active is None or not _active.fresh:
        return {}
    fresh, _active.fresh = _active.fresh, {}
    return fresh


def remember(name: str, compute: Callable[[], Any], valid: Callable[[Any], bool]) -> Any:
    """`compute()`, kept in the active cache under `name` (see
    `_Store.remember`); computed every time when no cache is active."""
    if _active is None:
        return compute()
    return _active.remember(name, compute, valid)


def adopt(entries: dict[tuple[str, int], tuple[Any, ...]]) -> None:
    """Keep a worker's fresh programs in this process's store, to be saved."""
    if _active is not None and entries:
        _active.adopt(entries)


@contextmanager
def cached(root: Path | None) -> Iterator[None]:
    """Route every regex compile in this process through the cache under
    `root` until the block ends; a no-op when `root` is None or the cache
    does not apply to this interpreter."""
    tag = _tag() if root is not None else None
    if tag is None:
        yield
        return
    import re._compiler

    store = _Store(Path(root) / DIRECTORY / tag)
    store.load()
    original = re._compiler.compile

    def compile(pattern: Any, flags: Any = 0) -> Any:
        return store.compile(original, pattern, flags)

    global _active
    re._compiler.compile = compile
    _active = store
    try:
        yield
    finally:
        re._compiler.compile = original
        _active = None
        store.save()
