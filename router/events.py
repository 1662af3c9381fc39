"""Dispatch events: JSON lines on stdout (unless a human reads the terminal)
and, with --events FILE, appended to a file. Each event is one write of one
line to an O_APPEND descriptor, so concurrent dispatches never interleave
half-lines. Secrets never get in: every record is redacted before it is
written (router/redact.py), and listeners (the terminal view) see the
redacted record too."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from router import redact as _redact

Listener = Callable[[dict[str, Any]], None]


class EventsFileError(Exception):
    """The --events path cannot be used; the message names why."""


redact = _redact.deep  # the event's redaction, by its old name


def open_append(path: str) -> int:
    """An O_APPEND descriptor on a regular file (created if missing). A FIFO,
    a directory or a device is refused instead of blocking or writing into it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise EventsFileError(f"{path}: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise EventsFileError(f"{path}: not a regular file")
    os.set_blocking(fd, True)
    return fd


class EventLog:
    """`stdout=False` keeps JSON off stdout (a person is reading it)."""

    def __init__(self, dispatch_id: str, path: str | None = None, stdout: Any = None) -> None:
        self.dispatch_id = dispatch_id
        self.stdout = None if stdout is False else (stdout if stdout is not None else sys.stdout)
        self.fd = open_append(path) if path else None
        # Reentrant: a second Ctrl-C's handler may emit while the walk is emitting.
        self.lock = threading.RLock()
        self.listeners: list[Listener] = []

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        record = {"event": event, "dispatch_id": self.dispatch_id, **fields,
                  "ts": round(time.time(), 3)}
        record = _redact.deep(record)
        line = json.dumps(record, sort_keys=False) + "\n"
        with self.lock:
            if self.stdout is not None:
                try:
                    self.stdout.write(line)
                    self.stdout.flush()
                except BrokenPipeError:
                    self.stdout = None  # the reader left; the file and the walk go on
            if self.fd is not None:
                os.write(self.fd, line.encode())
            for listener in self.listeners:
                listener(record)
        return record

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
