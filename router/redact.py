"""Keep credentials out of everything dispatch writes: events, stderr, the
ledger and logs. Redaction runs on the whole text BEFORE anything is clipped,
because a key cut in half by a length limit no longer looks like a key.

It catches three things: the values of credential-looking environment
variables (raw, URL-encoded and form-encoded), credential shapes (`Bearer …`,
RunPod `rpa_…` keys, Google `ya29.` tokens, `api_key=…`), and the same shapes
written URL-encoded (`Bearer%20…`, `api_key%3D…`)."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus

SECRET_KEYS = re.compile(r"(?i)(api[_-]?key|token|secret|password|authorization|credential)")
_SEP = r"(?:\s|%20|\+|%2B)+"  # a space, as written raw, URL-encoded or form-encoded
_ASSIGN = r"(?:=|%3D|:|%3A)"
SECRET_VALUES = re.compile(
    rf"(?i)(bearer{_SEP}[^\s\"',;&]+|\brpa_[A-Za-z0-9]+|\bya29\.[\w.%-]+|"
    rf"(?:api[_-]?key|access[_-]?token|token|secret|password){_ASSIGN}[^\s\"',;&]+)")
MARK = "[redacted]"


@lru_cache(maxsize=4)
def _env_secrets(snapshot: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    forms: set[str] = set()
    for key, value in snapshot:
        if SECRET_KEYS.search(key) and len(value) >= 8:
            forms.update((value, quote(value, safe=""), quote_plus(value)))
    # Longest first, so a value never leaves a tail of a longer encoded form.
    return tuple(sorted(forms, key=len, reverse=True))


def env_secrets() -> tuple[str, ...]:
    return _env_secrets(tuple(sorted(os.environ.items())))


def text(value: str) -> str:
    for secret in env_secrets():
        if secret in value:
            value = value.replace(secret, MARK)
    return SECRET_VALUES.sub(MARK, value)


def clip(value: object, limit: int = 300) -> str:
    """Redact first, then flatten to one line and clip."""
    flat = " ".join(text(str(value)).split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def deep(value: Any) -> Any:
    """Redact a JSON-like value: secret-named keys lose their values."""
    if isinstance(value, dict):
        return {k: MARK if SECRET_KEYS.search(str(k)) else deep(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [deep(v) for v in value]
    if isinstance(value, str):
        return text(value)
    return value
