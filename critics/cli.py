"""`efficiency-critic PLAN.md... [--format text|json]`: APPROVE or REVISE."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from router import __version__
from router.cliutil import OneLineParser as _Parser
from router.cliutil import UsageError, bounded_float

_threshold = bounded_float("threshold", minimum=0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="efficiency-critic",
                     description="APPROVE or REVISE draft plans by how they use GPUs.")
    parser.add_argument("plans", nargs="+", metavar="PLAN.md",
                        help="plan files, or folders to search for *.md plans")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--version", action="version", version=f"efficiency-critic {__version__}")
    parser.add_argument("--ladder", metavar="FILE",
                        help="ladder config (default: the plan's workspace's, else packaged)")
    parser.add_argument("--widen-threshold", type=_threshold, default=None, metavar="GPU_HOURS",
                        help="needlessly-narrow fires at or above this many GPU-hours (1.0)")
    return parser


def _expand(paths: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Plan files: each named file, and the *.md files under each named folder.
    Returns (plans, errors, warnings). A folder's walk enters no symlinked
    folder (no loops) and reads no symlinked file that leads outside the
    workspace (the user named the folder, not what its links point at); a
    folder it cannot list is an error, never a silent skip."""
    import os

    from router.workspace import find, start_of

    out: list[str] = []
    errors: list[str] = []
    warnings: list[str] = []
    for path in paths:
        top = Path(path)
        if not top.is_dir():
            out.append(path)
            continue
        root = (find(start_of(top))[0] or top).resolve()

        for dirpath, dirnames, filenames in os.walk(top, onerror=lambda exc: errors.append(
                f"{exc.filename}: cannot read folder: {exc.strerror or exc}")):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(".md"):
                    continue
                file = Path(dirpath) / name
                if file.is_symlink():
                    try:
                        file.resolve(strict=True).relative_to(root)
                    except (OSError, RuntimeError, ValueError):
                        warnings.append(f"{file}: a symlink that leads outside the workspace "
                                        "or nowhere; not read")
                        continue
                out.append(str(file))
    return out, errors, warnings


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
    from critics.launchers import LauncherError, launchers_file
    from critics.launchers import load as load_launchers
    from critics.review import review_file
    from critics.rules import DEFAULT_WIDEN_THRESHOLD
    from router.config import ConfigError
    from router.config import load as load_config
    from router.section9 import PlanError
    from router.workspace import WorkspaceError, ladder, start_of

    try:
        args = build_parser().parse_args(argv)
        plans, unreadable, skipped = _expand(args.plans)
    except UsageError as exc:
        print(f"efficiency-critic: error: {exc}", file=sys.stderr)
        return 2
    for line in skipped:
        print(f"efficiency-critic: warning: {line}", file=sys.stderr)
    for line in unreadable:
        print(f"efficiency-critic: error: {line}", file=sys.stderr)
    threshold = DEFAULT_WIDEN_THRESHOLD if args.widen_threshold is None else args.widen_threshold
    reviews, bad = [], len(unreadable)
    configs: dict[str | None, object] = {}  # one load per workspace ladder
    for path in plans:
        try:
            # Each plan is judged by its own workspace's ladder (or --ladder)
            # and launcher families (the packaged ones, and its own over them).
            start = start_of(path)
            which = ladder(args.ladder, start)
            if which not in configs:
                configs[which] = load_config(which)
            families = load_launchers(launchers_file(start))
            reviews.append(review_file(path, configs[which], threshold, families))
        except (ConfigError, WorkspaceError, LauncherError) as exc:
            print(f"efficiency-critic: error: {exc}", file=sys.stderr)
            return 2
        except PlanError as exc:
            print(f"efficiency-critic: error: {exc}", file=sys.stderr)
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
