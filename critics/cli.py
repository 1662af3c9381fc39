"""`efficiency-critic PLAN.md... [--format text|json]`: APPROVE or REVISE."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from router.cliutil import OneLineParser as _Parser
from router.cliutil import UsageError, bounded_float

_threshold = bounded_float("threshold", minimum=0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="efficiency-critic",
                     description="APPROVE or REVISE draft plans by how they use GPUs.")
    parser.add_argument("plans", nargs="+", metavar="PLAN.md",
                        help="plan files, or folders to search for *.md plans")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--ladder", metavar="FILE", help="ladder config (default: packaged)")
    parser.add_argument("--widen-threshold", type=_threshold, default=None, metavar="GPU_HOURS",
                        help="needlessly-narrow fires at or above this many GPU-hours (1.0)")
    return parser


def _expand(paths: list[str]) -> list[str]:
    out: list[str] = []
    for path in paths:
        p = Path(path)
        out.extend(sorted(str(f) for f in p.rglob("*.md")) if p.is_dir() else [path])
    return out


def _text(reviews: list) -> str:
    lines = []
    for review in reviews:
        for f in review.findings:
            label = f.rule if f.severity == "error" else f"{f.rule} (warning)"
            lines.append(f"{review.path}:{f.line}: {label}: phase {f.phase!r}: {f.message}. "
                         f"Suggestion: {f.suggestion}")
        lines.append(f"{review.path}: {review.verdict}")
    approve = sum(r.verdict == "APPROVE" for r in reviews)
    noun = "plan" if len(reviews) == 1 else "plans"
    lines.append(f"{len(reviews)} {noun}, {approve} APPROVE, {len(reviews) - approve} REVISE")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from critics.review import review_file
    from critics.rules import DEFAULT_WIDEN_THRESHOLD
    from router.config import ConfigError
    from router.config import load as load_config
    from router.section9 import PlanError

    try:
        args = build_parser().parse_args(argv)
        config = load_config(args.ladder)
    except (UsageError, ConfigError) as exc:
        print(f"efficiency-critic: error: {exc}", file=sys.stderr)
        return 2
    threshold = DEFAULT_WIDEN_THRESHOLD if args.widen_threshold is None else args.widen_threshold
    reviews, bad = [], 0
    for path in _expand(args.plans):
        try:
            reviews.append(review_file(path, config, threshold))
        except PlanError as exc:
            for line in exc.lines():  # every problem of the plan, one line each
                print(f"efficiency-critic: error: {line}", file=sys.stderr)
            bad += 1
    try:
        if args.format == "json":
            print(json.dumps([r.to_json() for r in reviews], indent=2))
        elif reviews:
            print(_text(reviews))
    except BrokenPipeError:
        pass
    if bad:
        return 2
    return 1 if any(r.verdict == "REVISE" for r in reviews) else 0
