"""Reading a text file the careful way: bounded in size, UTF-8 or a clear
error (with the line of the first bad byte), never a traceback."""

from __future__ import annotations

import os
import stat


class TextFileError(ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def read(path: str | os.PathLike[str], max_bytes: int, what: str = "file",
         reject_binary: bool = False) -> str:
    try:
        # O_NONBLOCK: opening a FIFO must not hang; only a regular file is read.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TextFileError(f"cannot read {what}: {exc.strerror or exc}") from None
    except ValueError:  # a path with a NUL byte (from a config value, say)
        raise TextFileError(f"cannot read {what}: the path contains a NUL byte") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TextFileError(f"{what} is not a regular file")
        # the file object never owns the descriptor, so exactly one close runs,
        # even when Ctrl-C lands between the two
        with open(fd, "rb", closefd=False) as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise TextFileError(f"cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(raw) > max_bytes:
        size = f"{max_bytes / 1_000_000:g} MB"
        raise TextFileError(f"{what} is larger than {size}")
    if reject_binary and b"\0" in raw[:8192]:
        raise TextFileError(f"{what} is binary", 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise TextFileError(f"{what} is not UTF-8 text", line) from None
