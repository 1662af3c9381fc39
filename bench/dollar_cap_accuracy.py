"""dollar-cap accuracy on the labelled corpus in tests/dollar_cap_corpus/.

Each entry is a whole file (Python, YAML, TOML or JSON) labelled `cap` (with
the line a finding must point at) or `clean`. Recall: caps with a finding on
their line. Noise: findings in clean files, as a share of all findings
(the issue's "at most 5% of findings are removals, reports or not caps").
`dev.yaml` is what the rule was tuned on; `test.yaml` was written apart from
the rule, from the issue's description alone, and is only scored.

    python bench/dollar_cap_accuracy.py [--show dev|test]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "dollar_cap_corpus"
sys.path.insert(0, str(ROOT))


def findings(entry: dict) -> list:
    from lint import dollar_config
    from lint.rules import dollar_cap

    path = entry["file"]
    if dollar_config.kind_of(path):
        return dollar_config.check(path, entry["text"])
    return [f for f in dollar_cap.check(path, entry["text"]) if f.rule == "dollar-cap"]


def score(name: str) -> dict:
    entries = yaml.safe_load((CORPUS / f"{name}.yaml").read_text())
    per_case: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    caught = caps = noisy = total_findings = 0
    misses, false = [], []
    for entry in entries:
        found = findings(entry)
        total_findings += len(found)
        case = per_case[entry["case"]]
        case[1] += 1
        if entry["expect"] == "cap":
            caps += 1
            hit = any(f.line == entry["line"] for f in found)
            caught += hit
            case[0] += hit
            if not hit:
                misses.append((entry, found))
        else:
            noisy += len(found)
            case[0] += not found
            if found:
                false.append((entry, found))
    return {"name": name, "recall": caught / max(caps, 1), "caps": caps, "caught": caught,
            "noise": noisy / max(total_findings, 1), "noisy": noisy,
            "findings": total_findings, "cases": dict(per_case), "misses": misses,
            "false": false, "clean_files": sum(e["expect"] == "clean" for e in entries),
            "clean_flagged": len(false)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", choices=("dev", "test"), help="print misses and noise")
    args = parser.parse_args()
    for name in ("dev", "test"):
        result = score(name)
        print(f"{name}: recall {result['recall']:.0%} ({result['caught']}/{result['caps']}), "
              f"noise {result['noise']:.1%} of findings ({result['noisy']}/"
              f"{result['findings']}), clean files flagged {result['clean_flagged']}/"
              f"{result['clean_files']}")
        cases = ", ".join(f"{case} {ok}/{n}" for case, (ok, n) in sorted(result["cases"].items()))
        print(f"  by case: {cases}")
        if args.show == name:
            for entry, found in result["misses"]:
                print(f"  MISS {entry['id']} line {entry['line']}: "
                      f"{entry['text'].splitlines()[entry['line'] - 1].strip()}"
                      f"  (found {[(f.line, f.message) for f in found]})")
            for entry, found in result["false"]:
                print(f"  NOISE {entry['id']}: {[(f.line, f.message) for f in found]}")
    print("goal: recall >= 90%, noise <= 5%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
