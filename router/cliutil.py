"""What the three commands share at their edge: bad input is one line on
stderr and exit 2, never argparse's usage block or a traceback."""

from __future__ import annotations

import argparse


class UsageError(Exception):
    """Bad input: one line on stderr, exit 2."""


class OneLineParser(argparse.ArgumentParser):
    # argparse prints the whole usage block and a second line; we promise one.
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)
