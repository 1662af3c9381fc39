"""workflow-lint rules: every `Rule` subclass in this package, by name.

Discovery imports each module here; they are small and load nothing heavy at
import time (libcst, the critic, the claim engine load when a rule runs).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from lint.rule import Rule

# Pseudo-rules the engine itself reports; they cannot be selected off.
ENGINE_RULES = {
    "unused-suppression": "a suppression comment that suppresses nothing",
    "file-error": "a file that cannot be read or parsed",
}


@cache
def registry() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule and \
                    value.__module__ == module.__name__:
                found[value.name] = value()
    return dict(sorted(found.items()))


def names() -> tuple[str, ...]:
    return tuple(registry())


def defaults() -> set[str]:
    return {name for name, rule in registry().items() if rule.default}
