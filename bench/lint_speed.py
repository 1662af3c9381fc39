"""workflow-lint speed on a generated Python corpus, against its peers.

Generates >= 1,000 realistic Python files (a few with planted dollar caps),
then times, whole-process and cold:

- `workflow-lint --select dollar-cap` over the tree;
- `ast.parse` of every file (the floor for reading Python at all);
- libcst parsing alone (on a sample, scaled);
- fixit with an equivalent rule (on a sample, scaled), when fixit is installed;
- semgrep with an equivalent rule, when semgrep is on PATH;
- a pre-commit call: workflow-lint on 5 changed files.

and prints each ratio. Targets: >= 30x faster than fixit, >= 3x faster than
semgrep, a pre-commit call on 5 files that need no libcst within 3x of
`python -c pass`. With --corpus DIR it lints a real tree instead (every
.py file, the same list for all three tools).

    python bench/lint_speed.py [--files 1200] [--sample 150] [--corpus DIR]
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
import textwrap
import time
from pathlib import Path

# The checkout under test, whether or not it is installed: the benchmark's
# subprocesses run `python -m lint` from a temporary folder.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}

TEMPLATES = [
    '''
    @dataclass
    class {Name}Config:
        """Settings for the {name} stage."""

        batch_size: int = {n}
        max_gpu_hours: float = {f}
        learning_rate: float = 3e-4
        output_dir: str = "runs/{name}"
        seed: int = {n}
    ''',
    '''
    def estimate_{name}_cost(hours: float, price_per_hour: float = {f}) -> float:
        """Report what the {name} phase costs; a report, not a cap."""
        estimated_cost = hours * price_per_hour
        log.info("estimated cost for {name}: %.2f", estimated_cost)
        return estimated_cost
    ''',
    '''
    def run_{name}(items: list[str], retries: int = {n}) -> dict[str, int]:
        counts: dict[str, int] = {{}}
        for attempt in range(retries):
            for item in items:
                key = item.strip().lower()
                if not key:
                    continue
                counts[key] = counts.get(key, 0) + attempt
            if len(counts) > {n}:
                break
        return counts
    ''',
    '''
    def build_{name}_parser() -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(description="{name} runner")
        parser.add_argument("--max-attempts", type=int, default={n})
        parser.add_argument("--num-shards", type=int, default=8)
        parser.add_argument("--output", default="out/{name}.jsonl")
        return parser
    ''',
    '''
    class {Name}Tracker:
        def __init__(self, limit_tokens: int = {n}) -> None:
            self.limit_tokens = limit_tokens
            self.used = 0

        def add(self, tokens: int) -> bool:
            self.used += tokens
            return self.used < self.limit_tokens

        def summary(self) -> str:
            return f"{name}: {{self.used}} / {{self.limit_tokens}} tokens"
    ''',
]
PLANTED = [
    "MAX_COST_USD = {f}\n",
    "\n\ndef guard_{name}(total_cost: float) -> None:\n    if total_cost > {f}:\n"
    "        raise RuntimeError('over budget')\n",
    "\n\n@dataclass\nclass {Name}Limits:\n    per_task_spend_limit: float = {f}\n",
]
HEADER = "import argparse\nimport logging\nfrom dataclasses import dataclass\n\n" \
         "log = logging.getLogger(__name__)\n"


def generate(root: Path, files: int, rng: random.Random) -> list[Path]:
    paths = []
    for i in range(files):
        package = root / f"pkg{i % 40}"
        package.mkdir(parents=True, exist_ok=True)
        parts = [HEADER]
        for j in range(rng.randint(10, 16)):
            name = f"step{i}_{j}"
            parts.append(textwrap.dedent(rng.choice(TEMPLATES)).format(
                name=name, Name=name.title().replace("_", ""), n=rng.randint(2, 64),
                f=round(rng.uniform(1, 99), 1)))
        if i % 97 == 0:
            name = f"guard{i}"
            parts.append(rng.choice(PLANTED).format(name=name, Name=name.title(), f=25.0))
        path = package / f"module_{i}.py"
        path.write_text("\n".join(parts))
        paths.append(path)
    return paths


def timed(argv: list[str], cwd: Path, runs: int = 1, ok: range = range(2)) -> float:
    """Median wall time of argv. A run that crashed (an exit code outside ok:
    an import error, a bad flag) would time nothing, so it stops the
    benchmark."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=ENV)
        times.append(time.perf_counter() - start)
        if done.returncode not in ok:
            tail = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
            raise SystemExit(f"bench: {' '.join(argv[:4])} exited {done.returncode}: {tail}")
    return statistics.median(times)


FIXIT_RULE = '''
import re
import libcst as cst
from fixit import LintRule

MONEY = {"usd", "dollar", "dollars", "spend", "cost", "price", "cents"}
CAP = {"cap", "max", "limit", "ceiling", "budget"}
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def flagged(name):
    words = {w.lower() for w in WORD.findall(name)}
    return bool(words & MONEY) and bool(words & CAP)


class DollarCap(LintRule):
    def visit_Name(self, node: cst.Name) -> None:
        if flagged(node.value):
            self.report(node, "dollar cap")
'''

SEMGREP_RULE = '''
rules:
  - id: dollar-cap
    languages: [python]
    severity: ERROR
    message: dollar cap
    pattern-regex: (?i)\\b\\w*(usd|dollar|spend|cost|price)\\w*(cap|max|limit|budget)\\w*\\b
'''


def copy_corpus(source: Path, into: Path) -> list[Path]:
    """Every .py file under source, copied (relative paths kept) so that all
    three tools read exactly the same files."""
    paths = []
    for file in sorted(source.rglob("*.py")):
        if not file.is_file() or any(part.startswith(".") for part in file.parts):
            continue
        target = into / file.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(file, target)
        paths.append(target)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1200)
    parser.add_argument("--sample", type=int, default=150,
                        help="files for the libcst-only and fixit runs, scaled up")
    parser.add_argument("--corpus", metavar="DIR",
                        help="a real tree of Python (e.g. a fetched agent framework): every "
                             ".py file under it, the same list for all three tools, no "
                             "sampling")
    args = parser.parse_args()
    rng = random.Random(1234)
    work = Path(tempfile.mkdtemp(prefix="lint-bench-"))
    try:
        corpus = work / "corpus"
        if args.corpus:
            paths = copy_corpus(Path(args.corpus), corpus)
            args.sample = len(paths)
            print(f"corpus: {args.corpus}: {len(paths)} files, "
                  f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB")
        else:
            paths = generate(corpus, args.files, rng)
            size = sum(p.stat().st_size for p in paths) / 1e6
            print(f"corpus: {len(paths)} generated files, {size:.1f} MB, planted caps in "
                  f"{len(range(0, args.files, 97))} files")
        py = sys.executable
        ours = timed([py, "-m", "lint", "--select", "dollar-cap", "corpus"], work, runs=3)
        listing = work / "files.txt"
        listing.write_text("\n".join(str(p) for p in paths))
        # Both floors parse every file; a file they cannot parse (Python 2 in a
        # test fixture) is skipped, not the end of the run.
        ast_floor = timed([py, "-c", "import ast,sys\nfor p in open(sys.argv[1]).read().split():"
                           "\n    try: ast.parse(open(p).read())\n    except SyntaxError: pass",
                           str(listing)], work, ok=range(1))
        sample = paths[:args.sample]
        sample_list = work / "sample.txt"
        sample_list.write_text("\n".join(str(p) for p in sample))
        scale = len(paths) / len(sample)
        libcst_all = timed([py, "-c", "import libcst,sys\nfor p in open(sys.argv[1]).read()"
                            ".split():\n    try: libcst.parse_module(open(p).read())"
                            "\n    except libcst.ParserSyntaxError: pass",
                            str(sample_list)], work, ok=range(1)) * scale
        rows = [("workflow-lint --select dollar-cap", ours),
                ("ast.parse, every file", ast_floor),
                (f"libcst parse only (x{scale:.1f} from {len(sample)})", libcst_all)]
        fixit = shutil.which("fixit")
        if fixit:
            rules = work / "benchrules"
            rules.mkdir()
            (rules / "__init__.py").write_text("")
            (rules / "dollar.py").write_text(FIXIT_RULE)
            sample_dir = work / "fixit_sample"
            sample_dir.mkdir()
            for index, p in enumerate(sample):
                shutil.copy(p, sample_dir / f"f{index}_{p.name}")
            (work / "pyproject.toml").write_text(
                '[tool.fixit]\nroot = true\ndisable = ["fixit.rules"]\n'
                'enable = ["benchrules.dollar"]\n')
            env_cmd = ["env", f"PYTHONPATH={work}{os.pathsep}{ROOT}", fixit, "lint", "fixit_sample"]
            rows.append((f"fixit, equivalent rule (x{scale:.1f} from {len(sample)})",
                         # fixit's exit code is a bit set: 1 findings, 2 fixes, 4 errors
                         # (a file it could not parse): all of them mean it ran.
                         timed(env_cmd, work, ok=range(8)) * scale))
        semgrep = shutil.which("semgrep")
        if semgrep:
            (work / "rule.yaml").write_text(SEMGREP_RULE)
            rows.append(("semgrep, equivalent rule",
                         timed([semgrep, "--config", "rule.yaml", "--metrics=off", "-q",
                                "corpus"], work)))
        # A pre-commit call: five changed modules that need no libcst.
        from lint.rules.dollar_cap import needs_parse

        plain = [str(p) for p in paths if not needs_parse(p.read_text(errors="replace"))]
        precommit = timed([py, "-m", "lint", *plain[:5]], work, runs=7)
        floor = timed([py, "-c", "pass"], work, runs=7)
        # A commit that also touches guidance: three modules and two docs.
        docs = work / "docs"
        docs.mkdir()
        mixed = plain[:3]
        for i in range(2):
            (docs / f"guide{i}.md").write_text("# Guide\n\nGCP → SLURM → RunPod.\n" * 20)
            mixed.append(str(docs / f"guide{i}.md"))
        rows.append(("commit with 3 modules and 2 Markdown docs",
                     timed([py, "-m", "lint", *mixed], work, runs=7)))
        rows.append(("pre-commit call, 5 modules that need no libcst", precommit))
        rows.append(("python -c pass (the interpreter floor)", floor))
        print(f"{'run':52} {'seconds':>8} {'vs ours':>8}")
        for name, seconds in rows:
            print(f"{name:52} {seconds:8.2f} {seconds / ours:8.1f}x")
        for name, seconds in rows:
            if name.startswith("fixit"):
                print(f"fixit / workflow-lint = {seconds / ours:.1f}x (target >= 30x)")
            if name.startswith("semgrep"):
                print(f"semgrep / workflow-lint = {seconds / ours:.1f}x (target >= 3x)")
        print(f"pre-commit call: {precommit * 1000:.0f} ms = {precommit / floor:.1f}x "
              f"python -c pass ({floor * 1000:.0f} ms) (target <= 3x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
