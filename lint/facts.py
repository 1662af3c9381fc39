"""The fact model: what the ladder does, computed once from the loaded config
by asking the planner itself, so the lint and the router cannot disagree.

Nothing here names a backend, width, model, family or lane: orders come from
the rungs `router.planner.plan` produces for probe requests, everything else
from the config.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from router import planner
from router.config import LadderConfig


def _unique(items) -> tuple:
    return tuple(dict.fromkeys(items))


@dataclass
class Facts:
    config: LadderConfig

    # ---- probes ------------------------------------------------------------------------

    def plan(self, intent: str, width: int, hours: float) -> tuple[planner.Rung, ...]:
        key = (intent, width, hours)
        cache = self.__dict__.setdefault("_plans", {})
        if key not in cache:
            cache[key] = planner.plan(planner.Request(intent, width, hours), self.config)
        return cache[key]

    @cached_property
    def intents(self) -> tuple[str, ...]:
        return tuple(self.config.intents)

    @cached_property
    def widths(self) -> tuple[int, ...]:
        """Every width a GCP rung can have, widest first."""
        return tuple(sorted({w for f in self.config.families.values() for w in f.widths},
                            reverse=True))

    @cached_property
    def machine_type_prefixes(self) -> tuple[str, ...]:
        """'a2-ultragpu', 'a3-highgpu': how the config's machine types begin."""
        return tuple(f.machine_type_template.split("{", 1)[0].rstrip("-").lower()
                     for f in self.config.families.values())

    def family_names_label(self) -> str:
        """'a2-ultragpu-{width}g (NVIDIA A100 80GB), a3-highgpu-{width}g (…)'."""
        return "machine types " + ", ".join(
            f"{f.machine_type_template} ({f.gpu})" for f in self.config.families.values())

    def gpu_memory(self, model: str) -> tuple[int, ...]:
        """Memory sizes (GB) the config's families give the GPU model ('A100')."""
        import re

        out = []
        for f in self.config.families.values():
            if re.search(rf"(?<![\w-]){re.escape(model)}(?![\w-])", f.gpu, re.I):
                gb = re.search(r"(\d{2,3})\s*GB\b", f.gpu, re.I)
                if gb:
                    out.append(int(gb.group(1)))
        return tuple(out)

    def names_machine_type(self, text: str) -> bool:
        """The text names one of the config's machine types, which means our
        ladder's family, not a GPU in general."""
        lowered = text.lower()
        return any(prefix in lowered for prefix in self.machine_type_prefixes)

    @property
    def widest(self) -> int:
        return self.widths[0]

    @property
    def narrowest(self) -> int:
        return self.widths[-1]

    def _wide_plan(self, intent: str, hours: float = 0.01) -> tuple[planner.Rung, ...]:
        return self.plan(intent, self.widest, hours)

    @cached_property
    def backends(self) -> tuple[str, ...]:
        """Backends in ladder order, as the planner walks them."""
        return _unique(r.backend for i in self.intents for r in self._wide_plan(i))

    def width_chain(self, intent: str | None = None) -> tuple[int, ...]:
        """GCP widths in the order a widest request walks them (asked once per
        judged proposition, so kept per intent)."""
        cache = self.__dict__.setdefault("_width_chains", {})
        if intent not in cache:
            intents = [intent] if intent else list(self.intents)
            cache[intent] = max((_unique(r.width for r in self._wide_plan(i)
                                         if r.backend == "gcp") for i in intents), key=len)
        return cache[intent]

    def tail_width(self, intent: str) -> int | None:
        """The width the rungs after GCP (SLURM, RunPod) ask for on a widest
        request of `intent`, as the planner plans them; None if they differ."""
        widths = {r.width for r in self._wide_plan(intent) if r.backend != "gcp"}
        return widths.pop() if len(widths) == 1 else None

    def lanes(self) -> tuple[str, ...]:
        return self._lanes

    @cached_property
    def _lanes(self) -> tuple[str, ...]:
        return _unique(r.lane for i in self.intents for r in self._wide_plan(i)
                       if r.backend == "slurm")

    def lane_rank(self, a: str, b: str) -> bool | None:
        """True if lane a precedes lane b for every intent that has both."""
        seen = set()
        for intent in self.intents:
            order = [r.lane for r in self._wide_plan(intent) if r.backend == "slurm"]
            if a in order and b in order:
                seen.add(order.index(a) < order.index(b))
        return seen.pop() if len(seen) == 1 else None

    def family_rank(self, a: str, b: str) -> bool | None:
        """True if family a comes before family b at one width and model."""
        seen = set()
        for intent in self.intents:
            order = list(self.config.intents[intent].families)
            if a in order and b in order:
                seen.add(order.index(a) < order.index(b))
        return seen.pop() if len(seen) == 1 else None

    def families_in_order(self) -> tuple[str, ...]:
        return _unique(f for i in self.intents for f in self.config.intents[i].families)

    # ---- provisioning by length ----------------------------------------------------------

    def models_at(self, hours: float, width: int | None = None) -> tuple[str, ...]:
        """Provisioning models in the order the ladder tries them for a job that
        runs `hours` at `width` (the narrowest width by default)."""
        width = width or self.narrowest
        cache = self.__dict__.setdefault("_models", {})
        if (hours, width) not in cache:
            cache[(hours, width)] = self._models_at(hours, width)
        return cache[(hours, width)]

    def _models_at(self, hours: float, width: int) -> tuple[str, ...]:
        intent = next(i for i in self.intents if self.config.intents[i].min_width <= width)
        return _unique(r.provisioning for r in self.plan(intent, width, hours)
                       if r.backend == "gcp" and r.width == width)

    def rungs_at(self, kind: str, width: int | None = None) -> tuple[tuple[str, str], ...]:
        """(family, model) in the order the ladder tries them at one width (the
        widest by default) for a job of length class `kind` there."""
        width = width or self.widest
        hours = self.threshold / 2 if kind == "short" else \
            min(self.threshold * 2, (self.threshold + self.flex_max) / 2)
        intent = next((i for i in self.intents if self.config.intents[i].min_width <= width),
                      None)
        if intent is None:
            return ()
        return _unique((r.family, r.provisioning) for r in self.plan(intent, width, hours)
                       if r.backend == "gcp" and r.width == width and r.family)

    def is_short(self, hours: float) -> bool:
        return planner.is_short(hours, self.config)

    @property
    def threshold(self) -> float:
        return self.config.short_threshold_hours

    @property
    def flex_max(self) -> float:
        return self.config.flex_start_max_run_hours

    @cached_property
    def short_order(self) -> tuple[str, ...]:
        return self.models_at(self.threshold / 2)

    @cached_property
    def long_order(self) -> tuple[str, ...]:
        return self.models_at(min(self.threshold * 2, (self.threshold + self.flex_max) / 2))

    @cached_property
    def model_names(self) -> tuple[str, ...]:
        """Every provisioning model the ladder uses ('all three models')."""
        return _unique((*self.short_order, *self.long_order))

    def class_order(self, kind: str) -> tuple[str, ...]:
        return self.short_order if kind == "short" else self.long_order

    @cached_property
    def flex_model(self) -> str | None:
        """The model that drops out beyond the maximum run duration."""
        beyond = set(self.models_at(self.flex_max * 2))
        gone = [m for m in self.long_order if m not in beyond]
        return gone[0] if gone else None

    def model_rank(self, a: str, b: str) -> bool | None:
        """True if a precedes b for every length; None if it depends on length."""
        seen = {order.index(a) < order.index(b) for order in (self.short_order, self.long_order)
                if a in order and b in order}
        return seen.pop() if len(seen) == 1 else None

    # ---- per family and intent --------------------------------------------------------------

    def provisioning(self, family: str) -> tuple[str, ...]:
        return self.config.families[family].provisioning

    def min_width(self, intent: str) -> int:
        return self.config.intents[intent].min_width

    def family_label(self, family: str) -> str:
        template = self.config.families[family].machine_type_template
        return template.replace("{width}", "*").replace("*g", "*")

    def in_auto_ladder(self, width: int) -> bool:
        return any(r.width == width for i in self.intents for r in self._wide_plan(i))

    # ---- labels --------------------------------------------------------------------------

    @staticmethod
    def backend_label(name: str) -> str:
        return {"gcp": "GCP", "slurm": "SLURM", "runpod": "RunPod"}.get(name, name)

    def backend_chain(self) -> str:
        return " → ".join(self.backend_label(b) for b in self.backends)

    def width_label(self, chain: tuple[int, ...] | None = None) -> str:
        return " → ".join(f"{w}×" for w in (chain or self.width_chain()))
