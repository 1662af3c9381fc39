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


def bounded_float(what: str, *, minimum: float, maximum: float = float("inf"),
                  exclusive_minimum: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number within bounds, or one clear message."""
    if maximum != float("inf"):
        rule = f"within {minimum:g}..{maximum:g}"
    else:
        rule = f"finite and {'>' if exclusive_minimum else '>='} {minimum:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected a number") \
                from None
        above = value > minimum if exclusive_minimum else value >= minimum
        if not (math.isfinite(value) and above and value <= maximum):
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: must be {rule}")
        return value

    parse.__name__ = what  # argparse names the type in its own messages
    return parse
