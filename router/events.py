"""Dispatch events: JSON lines on stdout and, with --events FILE, appended to a
file. Each event is one write of one line to an O_APPEND descriptor, so
concurrent dispatches never interleave half-lines. Secrets never get in:
values that look like credentials are redacted before writing."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from typing import Any

_SECRET_KEYS = re.compile(r"(?i)(api[_-]?key|token|secret|password|authorization|credential)")
_SECRET_VALUES = re.compile(r"(?i)(bearer\s+\S+|rpa_[A-Za-z0-9]+|ya29\.[\w.-]+|"
                            r"(?:api[_-]?key|token|secret|password)=\S+)")


def redact(value: Any, secrets: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        return {k: "[redacted]" if _SECRET_KEYS.search(str(k)) else redact(v, secrets)
                for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    if isinstance(value, str):
        for secret in secrets:
            if secret:
                value = value.replace(secret, "[redacted]")
        return _SECRET_VALUES.sub("[redacted]", value)
    return value


class EventLog:
    def __init__(self, dispatch_id: str, path: str | None = None, stdout: Any = None) -> None:
        self.dispatch_id = dispatch_id
        self.stdout = stdout if stdout is not None else sys.stdout
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if path else None
        self.lock = threading.Lock()
        self.secrets = tuple(v for k, v in os.environ.items()
                             if _SECRET_KEYS.search(k) and len(v) >= 8)

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        record = {"event": event, "dispatch_id": self.dispatch_id, **fields,
                  "ts": round(time.time(), 3)}
        record = redact(record, self.secrets)
        line = json.dumps(record, sort_keys=False) + "\n"
        with self.lock:
            self.stdout.write(line)
            self.stdout.flush()
            if self.fd is not None:
                os.write(self.fd, line.encode())
        return record

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
