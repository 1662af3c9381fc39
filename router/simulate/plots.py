"""`simulate --plot DIR`: a makespan CDF (one curve per policy) and a
stacked bar of where each policy's runs landed, as PNG and SVG.

matplotlib is the `plot` extra and is imported only here, with the Agg
backend (no display). The files are reproducible for a seed: SVG ids are
salted with a fixed string and no creation date is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from router.simulate.model import CapacityModel
from router.simulate.policies import Policy

FORMATS = ("png", "svg")


def _makespans(policy: Policy, capacity: CapacityModel, runs: int, seed: int) -> list[float]:
    from router.simulate import runner

    done = runner.simulate(policy, capacity, runs, seed).results
    return sorted(r.makespan_hours for r in done if r.makespan_hours is not None)


def write_all(summaries: list[dict[str, Any]], policies: list[Policy],
              capacity: CapacityModel, runs: int, seed: int, folder: str) -> list[Path]:
    """Write every plot; the paths written. The runs are simulated again
    (same seed, same numbers) rather than kept: a million runs' results need
    not stay in memory for the table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "backend-router-simulate"
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from router.cliutil import UsageError

        raise UsageError(f"--plot {folder}: {exc.strerror or exc}") from None
    written: list[Path] = []
    written += _save(plt, _cdf(plt, summaries, policies, capacity, runs, seed), out,
                     "makespan-cdf")
    written += _save(plt, _landed(plt, summaries), out, "landed")
    return written


def _cdf(plt: Any, summaries: list[dict[str, Any]], policies: list[Policy],
         capacity: CapacityModel, runs: int, seed: int) -> Any:
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for summary, policy in zip(summaries, policies, strict=True):
        values = _makespans(policy, capacity, runs, seed)
        if not values:
            continue
        shares = [(i + 1) / runs for i in range(len(values))]  # exhausted runs never arrive
        ax.step(values, shares, where="post", label=summary["policy"])
    ax.set_xlabel("makespan (hours)")
    ax.set_ylabel("share of runs finished")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("Makespan CDF per policy")
    fig.tight_layout()
    return fig


def _landed(plt: Any, summaries: list[dict[str, Any]]) -> Any:
    labels = list(dict.fromkeys(label for s in summaries for label in s["landed"]))
    fig, ax = plt.subplots(figsize=(7, 4.2))
    names = [s["policy"] for s in summaries]
    bottoms = [0.0] * len(summaries)
    for label in [*labels, "exhausted"]:
        heights = [s["exhausted"] / s["runs"] if label == "exhausted" else
                   s["landed"].get(label, 0.0) for s in summaries]
        if not any(heights):
            continue
        ax.bar(names, heights, bottom=bottoms, label=label)
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    ax.set_ylabel("share of runs")
    ax.set_ylim(0, 1.02)
    ax.legend(title="landed on", bbox_to_anchor=(1.02, 1), loc="upper left")
    ax.set_title("Where runs landed (backend:width)")
    fig.tight_layout()
    return fig


def _save(plt: Any, fig: Any, folder: Path, stem: str) -> list[Path]:
    paths = []
    for fmt in FORMATS:
        path = folder / f"{stem}.{fmt}"
        metadata = {"Date": None} if fmt == "svg" else {"Software": None}
        fig.savefig(path, format=fmt, dpi=110, metadata=metadata)
        paths.append(path)
    plt.close(fig)
    return paths
