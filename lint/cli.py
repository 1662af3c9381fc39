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
    parser.add_argument("--explain", metavar="FILE",
                        help="print what the claim engine read from each ladder sentence of FILE")
    parser.add_argument("--ladder", metavar="FILE",
                        help="ladder config (default: the workspace's, else packaged)")
    parser.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    return parser


def _rules(text: str | None, default: set[str]) -> set[str]:
    from lint.rules import names as rule_names

    if text is None:
        return default
    names = {r.strip() for r in text.split(",") if r.strip()}
    unknown = sorted(names - set(rule_names()))
    if unknown:
        raise UsageError(f"unknown rule {unknown[0]!r} (rules: {', '.join(rule_names())})")
    return names


def _list_rules() -> str:
    from lint.rules import registry

    return "\n".join(f"{name:18} {'on ' if rule.default else 'off'}  {rule.summary}"
                     for name, rule in registry().items())


def _rule_doc(name: str) -> str:
    from lint.rules import registry

    rule = registry().get(name)
    if rule is None:
        raise UsageError(f"unknown rule {name!r} (rules: {', '.join(registry())})")
    lines = [f"{rule.name} ({'on' if rule.default else 'off'} by default)", "", rule.doc(), ""]
    for label, examples in (("Valid", rule.VALID), ("Invalid", rule.INVALID)):
        if examples:
            lines.append(f"{label}:")
            for example in examples:
                where = f"  [{example.line}:{example.col}]" if example.line else ""
                lines.extend(f"    {row}" for row in example.text.splitlines())
                lines[-1] += where
                lines.append("")
    return "\n".join(lines).rstrip()


def _start(paths: list[str]) -> Path:
    """Where the workspace search starts (router/workspace.py): the first PATH,
    as the critic and the router start from the plan file, or the current
    directory when no PATH is given or the first is in no workspace."""
    from router.workspace import find, start_of

    if paths:
        first = start_of(paths[0])
        if find(first)[0] is not None:
            return first
    return start_of(None)


def main(argv: Sequence[str] | None = None) -> int:
    from lint import engine, workspace
    from lint.findings import render_github, render_json, render_sarif, render_text
    from lint.rules import defaults, names
    from lint.workspace import LexiconError

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["rule"]:
            if len(argv) != 2:
                raise UsageError("usage: workflow-lint rule NAME")
            print(_rule_doc(argv[1]))
            return 0
        args = build_parser().parse_args(argv)
        if args.list_rules:
            print(_list_rules())
            return 0
        ws = workspace.load(_start(args.paths), args.ladder)
        default = set(names()) if ws.strict else defaults()
        selected = _rules(args.select, default) - _rules(args.ignore, set())
        if args.explain:
            from lint import explain

            print(explain.explain(args.explain, ws))
            return 0
        if args.paths:
            targets, problems = engine.collect_paths(args.paths, ws)
        else:
            targets, problems = engine.collect_workspace(ws)
        linter = engine.Linter(ws, selected, fix=args.fix)
        findings = sorted(problems + linter.run(targets))
    except (UsageError, workspace.WorkspaceError, LexiconError) as exc:
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
            print(f"workflow-lint: fixed {path}", file=sys.stderr)
    except BrokenPipeError:
        pass
    return 1 if any(f.severity == "error" for f in findings) else 0
