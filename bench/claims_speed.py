"""Claim-engine speed, as ratios against peers (cold, whole-process runs).

1. `workflow-lint` on `examples/workspace`, against the same command from the
   pre-claim-engine lint (commit BASELINE, extracted with `git archive`).
   Target: <= 1.3x.
2. `workflow-lint` on 1,000 generated Markdown files, against a plain
   markdown-it parse of the same files in one process. Target: <= 3x. Two
   corpora: a research repository's docs (one paragraph in ten about the
   ladder) and dense guidance (one in two), since the engine's cost grows
   with the number of ladder sentences it reads.

    python bench/claims_speed.py [--runs 7] [--files 1000]

Bytecode is written to a temporary cache for both sides (PYTHONPYCACHEPREFIX),
so neither pays for recompiling its sources on each run.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "6565a79"  # the last commit with the pattern-per-claim lint

LADDER = [
    "## Compute backends\n\nAll GPU work goes through `backend-router dispatch`. The router "
    "walks GCP → SLURM → RunPod and goes wide first: {w}×, then {w2}×, 2×, 1× on capacity "
    "misses.\n",
    "- Short jobs (under {t} h at that width) lead with SPOT; long jobs lead with FLEX_START.\n"
    "- `a3-highgpu-{w}g` is FLEX_START/SPOT-only.\n- RunPod is used only after GCP and SLURM "
    "are exhausted.\n",
    "| step | backend | notes |\n| --- | --- | --- |\n| 1 | GCP | widest first |\n"
    "| 2 | SLURM | campus-a100, then campus-preempt |\n| 3 | RunPod | last rung |\n",
    "## Debugging\n\nOpen an interactive shell with Slurm first (`salloc -p gpu`), then "
    "attach to job {n}. Logs live in `slurm-{n}.out`.\n",
]
WORDS = [
    "model", "data", "batch", "shard", "eval", "metric", "loss", "token", "prompt", "sample",
    "seed", "config", "run", "checkpoint", "dataset", "split", "schema", "table", "column",
    "cache", "queue", "worker", "request", "field", "test", "fixture", "commit", "branch",
    "review", "lint", "format", "release", "version", "module", "function", "class", "method",
    "type", "error", "log", "trace", "span", "user", "page", "route", "service", "client",
    "server", "image", "build", "deploy", "job", "step", "plan", "phase", "result", "report",
    "figure", "plot", "note",
]
GENERIC = [
    "## {Word} {word}\n\n{Sentence} {sentence} {sentence}\n",
    "- {Sentence}\n- {Sentence}\n- {Sentence}\n",
    "{Sentence} Use `{word}_{word}` for the {word} and keep the {word} small. {sentence}\n",
    "1. {Sentence}\n2. {Sentence}\n3. {Sentence}\n",
    "| {word} | {word} |\n| --- | --- |\n| `{word}` | {sentence} |\n| `{word}` | "
    "{sentence} |\n",
    "```python\ndef {word}_{word}(x):\n    return x + {n}\n```\n",
    "> {Sentence} {sentence}\n",
]


def _fill(template: str, rng: random.Random) -> str:
    def sentence() -> str:
        words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
        return " ".join(words) + "."

    out = template
    while "{" in out:
        before = out
        out = out.replace("{Sentence}", sentence().capitalize(), 1)
        out = out.replace("{sentence}", sentence(), 1)
        out = out.replace("{Word}", rng.choice(WORDS).capitalize(), 1)
        out = out.replace("{word}", rng.choice(WORDS), 1)
        out = out.replace("{n}", str(rng.randint(2, 999)), 1)
        out = out.replace("{w}", "8", 1).replace("{w2}", "4", 1)
        out = out.replace("{t}", "4", 1)
        if out == before:
            break
    return out


def make_corpus(root: Path, files: int, ladder_share: float) -> list[Path]:
    """Markdown files of a research repository: docs, notes and guidance, with
    `ladder_share` of the paragraphs about the compute ladder."""
    rng = random.Random(7)
    paths = []
    for i in range(files):
        path = root / "docs" / f"guide-{i:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        paragraphs = [_fill(rng.choice(LADDER if rng.random() < ladder_share else GENERIC), rng)
                      for _ in range(rng.randint(4, 14))]
        path.write_text(f"# Guide {i}\n\n" + "\n".join(paragraphs), encoding="utf-8")
        paths.append(path)
    return paths


Command = tuple[list[str], Path, dict[str, str]]  # argv, working folder, environment


def interleaved(a: Command, b: Command, runs: int) -> tuple[float, float]:
    """Medians of `a` and `b` run in turn (a, b, a, b, …): on a shared machine the
    load drifts, and runs side by side see the same load."""
    ta, tb = [], []
    for _ in range(runs):
        ta.append(median(*a[:1], 1, *a[1:]))
        tb.append(median(*b[:1], 1, *b[1:]))
    return statistics.median(ta), statistics.median(tb)


def median(argv: list[str], runs: int, cwd: Path, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        base = tmpdir / "baseline"
        base.mkdir()
        archive = subprocess.run(["git", "archive", BASELINE, "lint", "router", "critics"],
                                 cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        env = dict(os.environ, PYTHONPYCACHEPREFIX=str(tmpdir / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        now_env = dict(env, PYTHONPATH=str(ROOT))
        base_env = dict(env, PYTHONPATH=str(base))
        # a copy: the regex cache it grows is this run's, not whatever other runs
        # on the repository's own copy left there
        workspace = tmpdir / "workspace"
        shutil.copytree(ROOT / "examples" / "workspace", workspace,
                        ignore=shutil.ignore_patterns(".workflow-lint-cache"))
        lint = [sys.executable, "-m", "lint"]
        for e in (now_env, base_env):  # warm the bytecode caches (and the regex caches)
            median(lint, 1, workspace, e)
        now, before = interleaved((lint, workspace, now_env), (lint, workspace, base_env),
                                  args.runs)
        print(f"examples/workspace: claim engine {now * 1000:.0f} ms, "
              f"pattern lint ({BASELINE}) {before * 1000:.0f} ms: "
              f"{now / before:.2f}x (target <= 1.3x)")

        for share, label in ((0.1, "a research repo's docs, 1 paragraph in 10 about the ladder"),
                             (0.5, "dense guidance, 1 paragraph in 2 about the ladder")):
            corpus = tmpdir / f"corpus-{share}"
            paths = make_corpus(corpus, args.files, share)
            listing = tmpdir / f"files-{share}.txt"
            listing.write_text("\n".join(map(str, paths)), encoding="utf-8")
            parse = [sys.executable, "-c",
                     "import sys\nfrom markdown_it import MarkdownIt\n"
                     "md = MarkdownIt('commonmark').enable('table')\n"
                     "for p in open(sys.argv[1]).read().split():\n"
                     "    md.parse(open(p, encoding='utf-8').read())\n", str(listing)]
            median(parse, 1, corpus, now_env)
            median([*lint, "docs"], 1, corpus, now_env)
            plain, linted = interleaved((parse, corpus, now_env),
                                        ([*lint, "docs"], corpus, now_env), max(3, args.runs // 2))
            print(f"{args.files} Markdown files ({label}): workflow-lint {linted:.2f} s, "
                  f"markdown-it parse {plain:.2f} s: {linted / plain:.2f}x (target <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
