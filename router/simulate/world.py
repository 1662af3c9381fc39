"""One simulated run's world: a virtual clock, the random stream, and the
state of every availability process the walk has looked at.

Each availability process is an alternating renewal process with
exponential spells: it starts in its stationary state the first time a
rung asks, and is advanced lazily to whatever virtual time the next ask
comes at. So two rungs asked seconds apart see correlated stock (as a real
walk does), and a re-dispatch hours later sees fresh stock."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from router.dispatch import Clock
from router.simulate.model import CapacityModel, Stock

HOUR = 3600.0
DAY = 86_400.0
STATIONARY_CYCLES = 50  # mean in+out cycles after which a process is drawn afresh


class VirtualClock:
    """Seconds since the run began; sleeping is adding."""

    __slots__ = ("t",)

    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class World:
    model: CapacityModel
    rng: random.Random
    clock: VirtualClock = field(default_factory=VirtualClock)
    # (zone, machine type, provisioning) -> (in stock?, until when)
    spells: dict[tuple[str, str, str], tuple[bool, float]] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)  # rungs asked about with no information
    queue_waits: dict[str, float] = field(default_factory=dict)  # job key -> seconds
    serial: int = 0  # names for simulated jobs and pods

    def as_clock(self) -> Clock:
        return Clock(now=self.clock.now, sleep=self.clock.sleep, threads=False)

    # ---- GCP ------------------------------------------------------------------------------

    def in_stock(self, key: tuple[str, str, str], stock: Stock) -> bool:
        """Whether the process for `key` is in stock now."""
        now = self.clock.t
        spell = self.spells.get(key)
        if spell is None:
            if stock.mean_hours_out == 0 or stock.mean_hours_in == 0:
                always = stock.mean_hours_out == 0
                self.spells[key] = (always, float("inf"))
                return always
            state = self.rng.random() < stock.in_stock_share
            spell = (state, now + self._spell(stock, state))
        state, until = spell
        if now - until > STATIONARY_CYCLES * (stock.mean_hours_in + stock.mean_hours_out) * HOUR:
            # Long unobserved: the two-state chain has forgotten where it was
            # (its memory decays like exp(-cycles)); draw it afresh.
            state = self.rng.random() < stock.in_stock_share
            until = now + self._spell(stock, state)
        while until <= now:  # advance lazily through the spells we skipped
            state = not state
            until += self._spell(stock, state)
        self.spells[key] = (state, until)
        return state

    def _spell(self, stock: Stock, in_stock: bool) -> float:
        mean = stock.mean_hours_in if in_stock else stock.mean_hours_out
        return self.rng.expovariate(1.0 / mean) * HOUR

    def reclaimed(self, key: tuple[str, str, str], stock: Stock) -> None:
        """A preemption: the capacity it took back is out of stock from now."""
        if stock.mean_hours_out > 0:
            self.spells[key] = (False, self.clock.t + self._spell(stock, False))

    # ---- SLURM and RunPod -----------------------------------------------------------------

    def next_name(self) -> str:
        self.serial += 1
        return str(self.serial)

    def preempted_after(self, rate_per_hour: float) -> float:
        """Seconds until a preemption at this rate (inf: never)."""
        return self.rng.expovariate(rate_per_hour) * HOUR if rate_per_hour > 0 else float("inf")
