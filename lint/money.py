"""Names that mean money, limits, or both, for the dollar-cap rule.

A name is split into words (snake_case, camelCase, kebab-case, UPPER). Money
words win over unit words: `max_usd_per_hour` and `cost_limit_per_step` are
dollar caps, because the limit is in dollars and the unit only says per what.
A unit word wins only where no money word is present (`max_gpu_hours`,
`token_budget`: a "budget" of tokens is not dollars)."""

from __future__ import annotations

import re
from functools import lru_cache

MONEY_KEYS = ("usd", "dollar", "spend", "spent", "cost", "price", "budget", "cents", "eur")
MONEY = {"usd", "dollar", "dollars", "spend", "spending", "spent", "cost", "costs", "price",
         "prices", "cents", "money", "eur", "euro", "euros", "gbp", "billing", "credit",
         "credits"}
# Words for an upper bound, alone: a keyword argument named one of them sets a limit.
UPPER_LIMIT = frozenset({"cap", "max", "maximum", "limit", "ceiling", "threshold"})
CAP = UPPER_LIMIT | {"caps", "capped", "limits", "budget", "budgets", "allowance", "min",
                     "minimum", "quota"}
# Words that say what a bare "budget" counts when it is not money.
BUDGET_UNITS = {"gpu", "gpus", "token", "tokens", "time", "hour", "hours", "seconds",
                    "secs", "minutes", "mins", "step", "steps", "iteration", "iterations",
                    "iters", "memory", "mem", "bytes", "context", "compute", "call", "calls",
                    "request", "requests", "attempt", "attempts", "retry", "retries", "error",
                    "errors", "frame", "frames", "sample", "samples", "query", "queries",
                    "node", "nodes", "depth", "width", "page", "pages", "char", "chars",
                    "line", "lines", "file", "files", "disk", "latency", "energy", "power",
                    "carbon", "privacy", "epsilon", "eval", "evals", "thinking", "reasoning",
                    "output", "input", "prompt", "completion", "retrieval", "search"}
# A limit "per unit": still dollars (money words win).
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@lru_cache(maxsize=8192)
def ordered(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in _WORD.findall(name))


@lru_cache(maxsize=8192)
def words(name: str) -> frozenset[str]:
    return frozenset(ordered(name))


def _money_budget(name: str) -> bool:
    """'budget' counts money unless a unit names what it counts: the word just
    before it (`token_budget`, `time_budget`) or just after it (`budget_tokens`,
    `budget_in_seconds`). A unit later on does not (`min_budget_for_new_attempt`
    is a budget of dollars for an attempt)."""
    seq = ordered(name)
    for i, word in enumerate(seq):
        if word not in ("budget", "budgets"):
            continue
        before = seq[i - 1] if i else ""
        after = seq[i + 2] if seq[i + 1:i + 2] == ("in",) and i + 2 < len(seq) else \
            (seq[i + 1] if i + 1 < len(seq) else "")
        if before not in BUDGET_UNITS and after not in BUDGET_UNITS:
            return True
    return False


def has_money(name: str) -> bool:
    """A money word, or a budget that counts money."""
    return bool(words(name) & MONEY) or _money_budget(name)


@lru_cache(maxsize=8192)
def is_dollar_cap_name(name: str) -> bool:
    """A name for a limit in money: a money word and a cap word, or a budget
    that is not counted in something else."""
    ws = words(name)
    if ws & MONEY and ws & CAP:
        return True
    return _money_budget(name)


@lru_cache(maxsize=8192)
def is_spend_name(name: str) -> bool:
    """Money that is spent or priced (cost, total_spend), not a limit."""
    ws = words(name)
    return bool(ws & MONEY) and not ws & CAP


def is_limit_name(name: str) -> bool:
    """A limit of any kind (max_value, limit, threshold): in a class named for
    money, or beside a spend, it is the dollar cap."""
    return bool(words(name) & (CAP - {"min", "minimum", "quota"}))
