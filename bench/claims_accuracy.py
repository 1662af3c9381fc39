"""Claim-engine accuracy on the claims corpus, per kind, on both halves.

Each corpus entry is a Markdown snippet appended (after a blank line) to a
copy of the example workspace's CLAUDE.md, or of its critic guidance for the
critic kinds, and linted with the workspace's default rules. A drift entry
is caught when a finding lands on the appended lines; an ok or unrelated
entry is clean when none does.

    python bench/claims_accuracy.py [--show dev|test] [--kind KIND] [--file STEM]

Tune on the dev half only; the test half was written apart and is the
measurement. Targets: recall >= 90%, >= 98% of true or unrelated statements
left unflagged.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "tests" / "claims_corpus"
WORKSPACE = ROOT / "examples" / "workspace"
SURFACES = {"guidance": "CLAUDE.md", "critic": ".claude/agents/efficiency-critic.md"}


def load(half: str) -> list[dict]:
    import yaml

    entries: list[dict] = []
    for path in sorted(CORPUS.glob(f"{half}*.yaml")):  # dev.yaml, dev2.yaml, ...
        entries += [{**e, "file": path.name}
                    for e in yaml.safe_load(path.read_text(encoding="utf-8"))]
    return entries


def run(entries: list[dict]) -> list[tuple[dict, list]]:
    from lint import engine, workspace
    from lint.rules import defaults

    ws = workspace.load(WORKSPACE)
    linter = engine.Linter(ws, defaults())
    bases = {k: (WORKSPACE / v).read_text(encoding="utf-8") for k, v in SURFACES.items()}
    out = []
    for entry in entries:
        surface = entry.get("surface", "guidance")
        base = bases[surface].rstrip("\n") + "\n\n"
        first_line = base.count("\n") + 1
        kinds = {"markdown", "critic"} if surface == "critic" else {"markdown"}
        target = engine.Target(WORKSPACE / SURFACES[surface], SURFACES[surface], kinds)
        findings = [f for f in linter.markdown(target, base + entry["text"])
                    if f.line >= first_line and f.severity == "error"]
        out.append((entry, findings))
    return out


def report(half: str, results: list[tuple[dict, list]]) -> tuple[float, float]:
    stats: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # caught, drift, clean, ok
    for entry, findings in results:
        s = stats[entry["kind"]]
        if entry["expect"] == "drift":
            s[1] += 1
            s[0] += bool(findings)
        else:
            s[3] += 1
            s[2] += not findings
    print(f"\n{half} half: {len(results)} statements")
    print(f"  {'kind':18} {'recall':>14} {'left unflagged':>16}")
    totals = [0, 0, 0, 0]
    for kind in sorted(stats):
        s = stats[kind]
        totals = [a + b for a, b in zip(totals, s, strict=True)]
        recall = f"{s[0]}/{s[1]}" if s[1] else "-"
        clean = f"{s[2]}/{s[3]}" if s[3] else "-"
        print(f"  {kind:18} {recall:>14} {clean:>16}")
    recall = totals[0] / totals[1] if totals[1] else 1.0
    clean = totals[2] / totals[3] if totals[3] else 1.0
    print(f"  {'all':18} {f'{totals[0]}/{totals[1]}':>9} {recall:4.0%} "
          f"{f'{totals[2]}/{totals[3]}':>11} {clean:4.0%}")
    files = sorted({entry["file"] for entry, _ in results})
    for name in files if len(files) > 1 else ():  # each file was written at its own time
        mine = [(e, f) for e, f in results if e["file"] == name]
        drift = [bool(f) for e, f in mine if e["expect"] == "drift"]
        clean = [not f for e, f in mine if e["expect"] != "drift"]
        print(f"  {name:18} {f'{sum(drift)}/{len(drift)}':>9} {sum(drift) / len(drift):4.0%} "
              f"{f'{sum(clean)}/{len(clean)}':>11} {sum(clean) / len(clean):4.0%}")
    return recall, clean


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", choices=("dev", "test"),
                        help="list the misses and false flags of one half")
    parser.add_argument("--kind", help="only this kind")
    parser.add_argument("--file", help="only this corpus file (its stem: dev23)")
    args = parser.parse_args()
    for half in ("dev", "test"):
        entries = [e for e in load(half) if (not args.kind or e["kind"] == args.kind)
                   and (not args.file or e["file"] == f"{args.file}.yaml")]
        if not entries:
            continue
        results = run(entries)
        report(half, results)
        if args.show == half:
            for entry, findings in results:
                wrong = bool(findings) != (entry["expect"] == "drift")
                if wrong:
                    what = "MISSED" if entry["expect"] == "drift" else "FLAGGED"
                    print(f"\n[{what}] {entry['id']}: {entry.get('note', '')}")
                    print("    " + entry["text"].rstrip().replace("\n", "\n    "))
                    for f in findings:
                        print(f"    -> {f.line}:{f.col} {f.rule} {f.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
