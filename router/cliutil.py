"""What the three commands share at their edge: bad input is one line on
stderr and exit 2, never argparse's usage block or a traceback."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


class UsageError(Exception):
    """Bad input: one line on stderr, exit 2."""


class OneLineParser(argparse.ArgumentParser):
    # argparse prints the whole usage block and a second line; we promise one.
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


# No sane number needs more characters than this; a longer one is refused before
# it is converted (int() of 4300+ digits raises, and the message would echo it all).
MAX_NUMERAL_CHARS = 100


def installed(module: str) -> bool:
    """Whether an optional module can be imported, found without importing it:
    an extra's absence becomes one line naming the extra, not an ImportError
    deep in a walk (and google.cloud.compute_v1 alone takes ~4 s to import)."""
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package is missing
        return False


def shown(text: str, limit: int = 40) -> str:
    """`text` for an error message: repr'd (so one line) and cut short."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def bounded_float(what: str, *, minimum: float, maximum: float = float("inf"),
                  exclusive_minimum: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number within bounds, or one clear message."""
    if maximum != float("inf"):
        rule = f"within {minimum:g}..{maximum:g}"
    else:
        rule = f"finite and {'>' if exclusive_minimum else '>='} {minimum:g}"

    def parse(text: str) -> float:
        if len(text) > MAX_NUMERAL_CHARS:
            raise argparse.ArgumentTypeError(f"invalid {what} {shown(text)}: number too long")
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"invalid {what} {shown(text)}: expected a number") from None
        above = value > minimum if exclusive_minimum else value >= minimum
        if not (math.isfinite(value) and above and value <= maximum):
            raise argparse.ArgumentTypeError(f"invalid {what} {shown(text)}: must be {rule}")
        return value

    parse.__name__ = what  # argparse names the type in its own messages
    return parse


def bounded_int(what: str, *, minimum: int, maximum: int) -> Callable[[str], int]:
    """An argparse type: a decimal integer within minimum..maximum, or one clear message."""

    def parse(text: str) -> int:
        if len(text) > MAX_NUMERAL_CHARS:
            raise argparse.ArgumentTypeError(f"invalid {what} {shown(text)}: number too long")
        try:
            value = int(text.strip(), 10)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"invalid {what} {shown(text)}: expected an integer") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"invalid {what} {shown(text)}: must be within {minimum}..{maximum}")
        return value

    parse.__name__ = what
    return parse
