"""A module imported on its first attribute use.

`workflow-lint` imports `critics.rules` for the critic's rule names, verdicts
and thresholds, in pre-commit, where startup counts; the launch reader behind
the rules' checks costs more to import than the whole lint reads. A
`LazyModule` stands in for it until a check first uses it.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> object:
        # Only called for names this object lacks, i.e. the module's own.
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
