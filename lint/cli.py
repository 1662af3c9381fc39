"""`workflow-lint [PATH...] [--select RULE,...] [--ignore RULE,...] [--format F] [--fix]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from router.cliutil import OneLineParser as _Parser
from router.cliutil import UsageError

FORMATS = ("text", "json", "sarif", "github")
VERSION = "0.1.0"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="workflow-lint",
                     description="Lint guidance surfaces, §9 plan blocks and Python code "
                                 "against the router's ladder config.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or folders to lint (default: the workspace at .)")
    parser.add_argument("--select", metavar="RULE,...", help="only these rules")
    parser.add_argument("--ignore", metavar="RULE,...", help="skip these rules")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--fix", action="store_true",
                        help="rewrite stale generated regions in place")
    return parser


def _rules(text: str | None, default: set[str]) -> set[str]:
    from lint.rules import RULES

    if text is None:
        return default
    names = {r.strip() for r in text.split(",") if r.strip()}
    unknown = sorted(names - set(RULES))
    if unknown:
        raise UsageError(f"unknown rule {unknown[0]!r} (rules: {', '.join(RULES)})")
    return names


def main(argv: Sequence[str] | None = None) -> int:
    from lint import engine, workspace
    from lint.findings import render_github, render_json, render_sarif, render_text
    from lint.rules import RULES

    try:
        args = build_parser().parse_args(argv)
        selected = _rules(args.select, set(RULES)) - _rules(args.ignore, set())
        ws = workspace.load(Path.cwd())
        if args.paths:
            targets, problems = engine.collect_paths(args.paths, ws)
        else:
            targets, problems = engine.collect_workspace(ws)
        linter = engine.Linter(ws, selected, fix=args.fix)
        findings = sorted(problems + linter.run(targets))
    except (UsageError, workspace.WorkspaceError) as exc:
        print(f"workflow-lint: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # ladder config or stale-claim data that does not load
        from lint.rules.stale_claim import ClaimsError
        from router.config import ConfigError

        if isinstance(exc, ConfigError | ClaimsError):
            print(f"workflow-lint: error: {exc}", file=sys.stderr)
            return 2
        raise
    output = {"text": lambda: render_text(findings, len(targets)),
              "json": lambda: render_json(findings),
              "sarif": lambda: render_sarif(findings, VERSION),
              "github": lambda: render_github(findings)}[args.format]()
    try:
        if output:
            print(output)
        for path in linter.fixed:
            print(f"workflow-lint: fixed generated regions in {path}", file=sys.stderr)
    except BrokenPipeError:
        pass
    return 1 if any(f.severity == "error" for f in findings) else 0
