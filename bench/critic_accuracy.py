"""efficiency-critic accuracy on the labelled plan corpora.

Each plan's first line is `<!-- expect: VERDICT rules: a,b warnings: c -->`
(`-` for none). A plan counts as right when the critic's verdict, its set of
error rules and its set of warning rules all equal the expected ones; the
verdict-and-rules score leaves the warnings out. `tests/critic_corpus/` is
what the critic is tuned on; `tests/critic_heldout/` is written apart from it
and only scored. The family of a plan is the second dash-separated part of its
file name (`real-deepspeed-include-2-3-of-4.md` is `deepspeed`); the
corpus's older plans, not named `real-<family>-...`, are grouped as `(older)`.

    python bench/critic_accuracy.py [FOLDER...] [--show FOLDER]

Runs `python -m critics --format json` once per folder; a plan the critic
rejects as bad input (exit 2) is a miss, with its error line. Exit 0 always.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = [ROOT / "tests" / "critic_corpus", ROOT / "tests" / "critic_heldout"]
EXPECT = re.compile(r"<!-- expect: (APPROVE|REVISE) rules: (\S+) warnings: (\S+) -->")
ERROR_LINE = re.compile(r"^efficiency-critic: error: (.+?):(\d+:)? ?(.*)$")


def _rules(text: str) -> frozenset[str]:
    return frozenset(r for r in text.split(",") if r and r != "-")


@dataclass
class Case:
    path: Path
    verdict: str = ""
    rules: frozenset[str] = frozenset()
    warnings: frozenset[str] = frozenset()
    got_verdict: str = "?"
    got_rules: frozenset[str] = frozenset()
    got_warnings: frozenset[str] = frozenset()
    error: str = ""
    messages: list[str] = field(default_factory=list)

    @property
    def family(self) -> str:
        parts = self.path.stem.split("-")
        if parts[0] != "real" or len(parts) < 2:
            return "(older)"
        return parts[1]

    @property
    def verdict_rules_ok(self) -> bool:
        return (not self.error and self.got_verdict == self.verdict
                and self.got_rules == self.rules)

    @property
    def ok(self) -> bool:
        return self.verdict_rules_ok and self.got_warnings == self.warnings


def _fmt(rules: frozenset[str]) -> str:
    return ",".join(sorted(rules)) or "-"


def run_folder(folder: Path) -> list[Case]:
    cases: dict[Path, Case] = {}
    for path in sorted(folder.glob("*.md")):
        case = Case(path.resolve())
        match = EXPECT.match(path.read_text(encoding="utf-8", errors="replace"))
        if match:
            case.verdict = match.group(1)
            case.rules, case.warnings = _rules(match.group(2)), _rules(match.group(3))
        else:
            case.error = "no expect line"
        cases[case.path] = case
    if not cases:
        return []
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "critics", "--format", "json", str(folder)],
        capture_output=True, text=True, cwd=ROOT, env=env, check=False,
    )
    try:
        reviews = json.loads(proc.stdout) if proc.stdout.strip() else []
    except json.JSONDecodeError:
        reviews = []
    for review in reviews:
        case = cases.get(Path(review["path"]).resolve())
        if case is None:
            continue
        findings = review.get("findings", [])
        case.got_verdict = review.get("verdict", "?")
        case.got_rules = frozenset(
            f["rule"] for f in findings if f.get("severity", "error") == "error")
        case.got_warnings = frozenset(
            f["rule"] for f in findings if f.get("severity") == "warning")
        case.messages = [f"{f['rule']}: {f.get('message', '')}" for f in findings]
    for line in proc.stderr.splitlines():
        match = ERROR_LINE.match(line)
        if match:
            case = cases.get(Path(match.group(1)).resolve())
            if case is not None:
                case.error = case.error or f"bad input: {match.group(3)}"
    seen = {Path(r["path"]).resolve() for r in reviews}
    for case in cases.values():
        if case.path not in seen and not case.error:
            case.error = f"no review (exit {proc.returncode}): {proc.stderr.strip()[:200]}"
    return list(cases.values())


def _pct(right: int, total: int) -> str:
    return f"{right}/{total} ({100 * right / total:.0f}%)" if total else "0/0"


def report(folder: Path, cases: list[Case]) -> None:
    name = folder.name
    full = sum(c.ok for c in cases)
    vr = sum(c.verdict_rules_ok for c in cases)
    bad = sum(bool(c.error) for c in cases)
    print(f"{name}: {len(cases)} plans, verdict+rules {_pct(vr, len(cases))}, "
          f"with warnings {_pct(full, len(cases))}, bad input {bad}")
    families: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        families[case.family].append(case)
    for family in sorted(families):
        group = families[family]
        vr_family = _pct(sum(c.verdict_rules_ok for c in group), len(group))
        full_family = _pct(sum(c.ok for c in group), len(group))
        print(f"  {family:<14} verdict+rules {vr_family:>14}   with warnings {full_family:>14}")


def show(cases: list[Case]) -> None:
    for case in cases:
        if case.ok:
            continue
        print(f"MISS {case.path.name} [{case.family}]")
        print(f"  expected {case.verdict} rules: {_fmt(case.rules)} "
              f"warnings: {_fmt(case.warnings)}")
        if case.error:
            print(f"  got      {case.error}")
            continue
        print(f"  got      {case.got_verdict} rules: {_fmt(case.got_rules)} "
              f"warnings: {_fmt(case.got_warnings)}")
        for message in case.messages:
            print(f"    {message[:300]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path,
                        help="plan folders (default: the tuning and held-out corpora)")
    parser.add_argument("--show", metavar="FOLDER", action="append", default=[],
                        help="list the misses in FOLDER (a path or a folder name)")
    args = parser.parse_args(argv)
    folders = [f.resolve() for f in args.folders] or FOLDERS
    for wanted in args.show:
        resolved = Path(wanted).resolve()
        match = [f for f in folders if f == resolved or f.name == Path(wanted).name]
        if not match:
            folders.append(resolved if resolved.is_dir() else ROOT / "tests" / wanted)
    total: list[Case] = []
    results: dict[Path, list[Case]] = {}
    for folder in folders:
        if not folder.is_dir():
            print(f"{folder}: not a folder, skipped")
            continue
        results[folder] = run_folder(folder)
        report(folder, results[folder])
        total += results[folder]
    if len(results) > 1:
        print(f"all: {len(total)} plans, verdict+rules "
              f"{_pct(sum(c.verdict_rules_ok for c in total), len(total))}, with warnings "
              f"{_pct(sum(c.ok for c in total), len(total))}")
    for wanted in args.show:
        for folder, cases in results.items():
            if folder == Path(wanted).resolve() or folder.name == Path(wanted).name:
                print(f"\nmisses in {folder.name}:")
                show(cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
