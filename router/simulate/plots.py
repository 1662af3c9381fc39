"""`simulate --plot DIR`: a makespan CDF (one curve per policy) and a
stacked bar of where each policy's runs landed, as PNG and SVG.

matplotlib is the `plot` extra and is imported only here, with the Agg
backend (no display). The files are reproducible for a seed: SVG ids are
salted with a fixed string and no creation date is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from router.simulate.runner import PolicyRuns

FORMATS = ("png", "svg")


def write_all(summaries: list[dict[str, Any]], runs: list[PolicyRuns],
              folder: str) -> list[Path]:
    """Write every plot; the paths written."""
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
    written += _save(plt, _cdf(plt, summaries, runs), out, "makespan-cdf")
    written += _save(plt, _landed(plt, summaries), out, "landed")
    return written


def _cdf(plt: Any, summaries: list[dict[str, Any]], runs: list[PolicyRuns]) -> Any:
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for summary, policy_runs in zip(summaries, runs, strict=True):
        values = sorted(r.makespan_hours for r in policy_runs.results
                        if r.makespan_hours is not None)
        if not values:
            continue
        total = len(policy_runs.results)
        shares = [(i + 1) / total for i in range(len(values))]  # exhausted runs never arrive
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
    from router.simulate.stats import landed_order

    labels = sorted({label for s in summaries for label in s["landed"]}, key=landed_order)
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
