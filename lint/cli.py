"""`workflow-lint [PATH...] [--select RULE,...] [--ignore RULE,...] [--format F] [--fix]`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from router import __version__ as VERSION
from router.cliutil import OneLineParser as _Parser
from router.cliutil import UsageError

FORMATS = ("text", "json", "sarif", "github")


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
    parser.add_argument("--force-exclude", action="store_true",
                        help="apply `exclude` to files named on the command line too "
                             "(for pre-commit, which names files)")
    parser.add_argument("--version", action="version", version=f"workflow-lint {VERSION}")
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


def _collect(args: argparse.Namespace, ws, linter) -> tuple[list, list]:
    """What to lint: the workspace, or the PATHs. A PATH that is one of the
    workspace's config sources (its pyproject.toml, ladder, lexicon or stale
    claims) changes what every surface must say, so the whole workspace is
    linted too: a commit that edits only the ladder still checks CLAUDE.md."""
    from lint import engine

    want = linter.kinds_read()
    if not args.paths:
        targets, problems = engine.collect_workspace(ws, want)
        _say_if_no_surface(ws, targets, want)
        return targets, problems
    targets, problems = engine.collect_paths(args.paths, ws, args.force_exclude)
    if any(_is_config_source(Path(p), ws) for p in args.paths):
        seen = {_key(t.path) for t in targets}
        more, more_problems = engine.collect_workspace(ws, want)
        targets += [t for t in more if _key(t.path) not in seen]
        problems += more_problems
    return targets, problems


def _key(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _is_config_source(path: Path, ws) -> bool:
    sources = [ws.root / "pyproject.toml", ws.ladder, ws.lexicon, ws.stale_claims]
    return _key(path) in {_key(s) for s in sources if s is not None}


def _say_if_no_surface(ws, targets: list, want: frozenset[str]) -> None:
    if "markdown" in want and not any("markdown" in t.kinds for t in targets):
        where = ", ".join(ws.surfaces)
        print(f"workflow-lint: no guidance surface found in {ws.root} (looked for {where}); "
              "set [tool.workflow-lint] surfaces to name yours", file=sys.stderr)


GC_ALLOCATIONS = 200_000


def main(argv: Sequence[str] | None = None) -> int:
    import gc

    # Parse trees and token lists are acyclic and die by reference counting;
    # the default collector would still walk every live object each time a
    # few hundred are allocated. mypy raises its thresholds for the same reason.
    gc.set_threshold(GC_ALLOCATIONS, 30, 30)
    from lint import workspace
    from lint.workspace import LexiconError

    argv = list(sys.argv[1:] if argv is None else argv)
    cache = ExitStack()
    try:
        with cache:
            return _main(argv, cache)
    except (UsageError, workspace.WorkspaceError, LexiconError) as exc:
        print(f"workflow-lint: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # --fix writes each file atomically: none is left half-written
        print("workflow-lint: interrupted", file=sys.stderr)
        return 130
    except ValueError as exc:  # ladder config or stale-claim data that does not load
        from lint.rules.stale_claim import ClaimsError
        from router.config import ConfigError

        if isinstance(exc, ConfigError | ClaimsError):
            print(f"workflow-lint: error: {exc}", file=sys.stderr)
            return 2
        raise


def _main(argv: list[str], cache: ExitStack) -> int:
    from lint import workspace

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
    if ws.cache:
        from lint import regex_cache

        # Before the engine is imported: its modules compile patterns as they load.
        cache.enter_context(regex_cache.cached(ws.root))
    from lint import engine
    from lint.findings import render_github, render_json, render_sarif, render_text
    from lint.rules import defaults, names

    default = set(names()) if ws.strict else defaults()
    selected = _rules(args.select, default) - _rules(args.ignore, set())
    if args.explain:
        from lint import explain

        print(explain.explain(args.explain, ws))
        return 0
    linter = engine.Linter(ws, selected, fix=args.fix)
    targets, problems = _collect(args, ws, linter)
    findings = sorted(problems + linter.run(targets))
    output = {"text": lambda: render_text(findings, linter.checked),
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
