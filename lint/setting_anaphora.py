"""A setting's description points back at its value: `short_threshold_hours: 4
# jobs at or under this many hours lead with SPOT`, "**short_threshold_hours**
Default: 6. Jobs shorter than this lead with SPOT." The claim is about the
value, so the pointer is read as the value it points at.

The value is written over the pointer in the same number of characters
("this many hours" becomes "4 hours        "), so every offset, column and
line in the unit stays where the file has it.
"""

from __future__ import annotations

import re

# "than this", "under that value", "at or under this many hours", "up to this"
_POINTER = re.compile(
    r"\b(?P<pointer>(?:this|that|the\s+(?:value|setting))"
    r"(?:\s+(?:value|number|threshold|limit|cap|cutoff|mark|setting|figure|"
    r"many\s+(?P<noun>(?:gpu[- ])?hours?|minutes?|gpus?|days?)))?)\b(?!\s*[:=])", re.I)
# a pointer only counts after a comparison: "than this", "this many hours"
_COMPARED = re.compile(r"\b(?:than|under|below|over|above|past|exceeds?|up\s+to|at\s+most|"
                       r"at\s+least|within)\s+$", re.I)
# "over that width", "below this rung": the pointer is a determiner of its own noun
_OWN_NOUN = re.compile(r"\s+(?:widths?|rungs?|jobs?|models?|points?|lanes?|famil(?:y|ies)|"
                       r"phases?|requests?|levels?|sizes?|lines?|keys?|settings?|files?)\b", re.I)
_UNIT_OF_KEY = (
    (re.compile(r"gpu[_\s-]?hours?$", re.I), "GPU-h", "GPU-hours"),
    (re.compile(r"(?:^|[_\s.-])(?:hours?|hrs?|h)$", re.I), "h", "hours"),
    (re.compile(r"(?:^|[_\s.-])(?:minutes?|mins?)$", re.I), "min", "minutes"),
    (re.compile(r"(?:^|[_\s.-])(?:days?)$", re.I), "d", "days"),
    (re.compile(r"(?:^|[_\s.-])(?:width|gpus?|gpu[_\s-]count)$", re.I), "GPUs", "GPUs"),
)
_NUMBER = re.compile(r"\d{1,6}(?:\.\d{1,3})?")


def unit_of(key: str) -> tuple[str, str] | None:
    """The short and long unit words a setting's key gives its number, or None."""
    key = key.strip(" `*_\"'")
    for pattern, short, long in _UNIT_OF_KEY:
        if pattern.search(key):
            return short, long
    return None


def resolve(text: str, key: str, value: str) -> str:
    """`text` with each pointer at the setting's value written as the value,
    padded to the pointer's length; unchanged where nothing points or the
    value does not fit."""
    number = value.strip(" `\"'")
    units = unit_of(key)
    if not _NUMBER.fullmatch(number) or units is None or "th" not in text.lower():
        return text

    def spelled(m: re.Match[str]) -> str:
        pointer = m["pointer"]
        if not m["noun"] and (not _COMPARED.search(text[:m.start("pointer")]) or
                              _OWN_NOUN.match(text, m.end())):
            return m[0]
        for word in (f"{number} {units[1]}", f"{number} {units[0]}", f"{number}{units[0]}"):
            if len(word) <= len(pointer):
                return m[0].replace(pointer, word.ljust(len(pointer)))
        return m[0]

    return _POINTER.sub(spelled, text)


# "short_threshold_hours — default 6.", "**key** (default: 6)", "key\nDefault: 6": a
# setting's reference entry, its key first and its default after
_KEY_DEFAULT = re.compile(r"^(?P<lead>\W{0,4})(?P<key>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)"
                          r"(?P<gap>`?\s*(?:[—–(:-]\s*)?(?i:defaults?(?:\s+(?:to|is|value))?)"
                          r"\s*[:=]?\s*)(?P<value>\d{1,6}(?:\.\d{1,3})?)\b")


def speak_default(text: str) -> str:
    """A setting's reference entry read as the setting: `short_threshold_hours
    — default 6. Jobs shorter than this …` reads "short threshold hours: 6. Jobs
    shorter than 6 h  …", in the same number of characters."""
    m = _KEY_DEFAULT.match(text)
    if m is None:
        return text
    spoken = m["key"].replace("_", " ")
    # (newlines kept: a unit's line of each offset is counted from them)
    gap = m["gap"]
    if gap.strip():
        # the colon where the gap's first space or mark was: "key\nDefault: 6" reads
        # "key\n:        6"
        at = next(i for i, c in enumerate(gap) if c != "\n")
        gap = "".join(c if c == "\n" else " " for c in gap[:at]) + ":" + \
            "".join(c if c == "\n" else " " for c in gap[at + 1:])
    head = m["lead"] + spoken + gap + m["value"]
    # (the entry's own sentence states the value once; a pointer in it restates
    # it, and a fix that mends the value alone would leave the pointer wrong)
    rest = text[m.end():]
    stop = re.search(r"[.;](?:\s|$)", rest)
    if stop is None:
        return head + rest
    return head + rest[:stop.end()] + resolve(rest[stop.end():], m["key"], m["value"])
