"""Collect files, read each once, parse each once, run the selected rules."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lint import suppress
from lint.findings import Finding
from lint.workspace import SKIP_DIRS, Workspace

MAX_BYTES = 20_000_000
PARALLEL_MIN_FILES = 48  # below this, process start-up costs more than it saves


@dataclass
class Target:
    path: Path
    display: str
    kinds: set[str] = field(default_factory=set)  # markdown, plan, critic, python


def _walk(root: Path, ws: Workspace) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _classify(path: Path, ws: Workspace) -> set[str]:
    rel = ws.rel(path)
    kinds: set[str] = set()
    if path.suffix == ".py":
        kinds.add("python")
    elif path.suffix.lower() in (".yaml", ".yml", ".toml", ".json"):
        kinds.add("config")
    elif path.suffix.lower() in (".md", ".markdown"):
        kinds.add("markdown")
        parts = rel.split("/")
        if ws.matches(rel, ws.plans) or "plans" in parts[:-1]:
            kinds.add("plan")
        if ws.matches(rel, ws.critic_guidance) or path.name == "efficiency-critic.md":
            kinds.add("critic")
    return kinds


def collect_paths(paths: list[str], ws: Workspace) -> tuple[list[Target], list[Finding]]:
    targets: dict[Path, Target] = {}
    problems = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = [f for f in _walk(path, ws) if not ws.excluded(ws.rel(f))]
        elif path.exists():
            files = [path]
        else:
            problems.append(Finding(raw, 1, 1, "file-error", "no such file or directory"))
            continue
        walked = path.is_dir()
        for file in files:
            kinds = _classify(file, ws)
            # Inside a folder, a YAML/TOML/JSON file is a config file only where
            # the workspace says config lives (not lock files, not data).
            if walked and "config" in kinds and (
                    not ws.matches(ws.rel(file), ws.config_files)
                    or file.name == "pyproject.toml"):
                kinds.discard("config")
            if kinds:
                targets.setdefault(file, Target(file, file.as_posix(), kinds))
    return list(targets.values()), problems


def collect_workspace(ws: Workspace) -> tuple[list[Target], list[Finding]]:
    targets: dict[Path, Target] = {}
    problems = []

    def add(path: Path, *kinds: str) -> None:
        target = targets.setdefault(path, Target(path, ws.rel(path)))
        target.kinds.update(kinds)

    for key, kinds in (("surfaces", ("markdown",)), ("critic_guidance", ("markdown", "critic"))):
        explicit = key in ws.configured
        for pattern in getattr(ws, key):
            is_glob = any(c in pattern for c in "*?[")
            for path in sorted(ws.root.glob(pattern)) if is_glob else [ws.root / pattern]:
                if path.is_file():
                    add(path, *kinds)
                elif explicit and not is_glob:
                    problems.append(Finding(pattern, 1, 1, "file-error",
                                            f"{key} entry does not exist"))
    for pattern in ws.plans:
        for path in sorted(ws.root.glob(pattern)):
            if path.is_file() and not ws.excluded(ws.rel(path)):
                add(path, "markdown", "plan")
    for path in _walk(ws.root, ws):
        rel = ws.rel(path)
        if path.suffix == ".py" and ws.matches(rel, ws.python) and not ws.excluded(rel):
            add(path, "python")
        elif path.suffix.lower() in (".yaml", ".yml", ".toml", ".json") and \
                ws.matches(rel, ws.config_files) and not ws.excluded(rel) and \
                rel != "pyproject.toml":
            add(path, "config")
    return list(targets.values()), problems


def read_text(target: Target) -> tuple[str | None, Finding | None]:
    """The file's text, or a file-error finding (unreadable, binary, not UTF-8, huge)."""
    from router import textfile

    try:
        return textfile.read(target.path, MAX_BYTES, "file", reject_binary=True), None
    except textfile.TextFileError as exc:
        return None, Finding(target.display, exc.line or 1, 1, "file-error",
                             f"{exc.message}; not linted")


class Linter:
    def __init__(self, ws: Workspace, selected: set[str], fix: bool = False) -> None:
        self.ws = ws
        self.selected = selected
        self.fix = fix
        self._config = None
        self._claims = None
        self._engine = None
        self.fixed: list[str] = []
        from lint.rules import registry

        rules = registry()
        self.rules = [rules[name] for name in sorted(selected) if name in rules]

    @property
    def engine(self):
        """The claim engine (lexicon + fact model), built on first use."""
        if self._engine is None:
            from lint import analysis

            self._engine = analysis.build(self.config, self.ws.lexicon)
        return self._engine

    @property
    def config(self):
        if self._config is None:
            from router import config

            self._config = config.load(self.ws.ladder)
        return self._config

    @property
    def claims(self):
        if self._claims is None:
            from lint.rules import stale_claim

            self._claims = stale_claim.load()
            if self.ws.stale_claims is not None:
                self._claims += stale_claim.load(self.ws.stale_claims)
        return self._claims

    def markdown(self, target: Target, text: str) -> list[Finding]:
        from lint import document
        from lint.rule import Context

        doc = document.parse(target.display, text)
        if self.fix and "ladder-drift" in self.selected and "<!--" in text:
            text = self._fix_regions(target, doc, text)
            if text != doc.text:
                doc = document.parse(target.display, text)
        ctx = Context(target.display, doc, text, target.kinds, self, self.selected)
        findings: list[Finding] = []
        for rule in self.rules:
            if rule.reads != "python" and (rule.reads == "markdown" or rule.reads in target.kinds):
                findings += rule.check(ctx)
        return suppress.apply(target.display, findings,
                              suppress.markdown(doc.lines, doc.code_lines), self.selected)

    def _fix_regions(self, target: Target, doc, text: str) -> str:
        from lint import generated

        fixed = generated.fix(text, self.config, doc.code_lines)
        if fixed != text:
            self._write(target, fixed)  # atomic: never a half-written surface
        return fixed

    def python(self, items: list[tuple[Target, str]]) -> list[Finding]:
        if "dollar-cap" not in self.selected:
            return []
        candidates = items  # every file gets at least a syntax check
        jobs = [(t.display, text) for t, text in candidates]
        if self.fix:  # in this process: it writes files
            from lint.rules import dollar_cap

            results = []
            for target, text in candidates:
                fixed, remaining = dollar_cap.fix(target.display, text)
                if fixed != text:
                    self._write(target, fixed)
                results.append(remaining)
        elif len(jobs) >= PARALLEL_MIN_FILES and (os.cpu_count() or 1) > 1:
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
                results = list(pool.map(_check_python, jobs, chunksize=16))
        else:
            results = [_check_python(job) for job in jobs]
        findings: list[Finding] = []
        for (target, text), found in zip(candidates, results, strict=True):
            findings += suppress.apply(target.display, found,
                                       suppress.python(text), self.selected)
        return findings

    def run(self, targets: list[Target]) -> list[Finding]:
        findings: list[Finding] = []
        python_items: list[tuple[Target, str]] = []
        markdown_items: list[tuple[Target, str]] = []
        needs_markdown = any(rule.reads != "python" for rule in self.rules)
        config_items: list[tuple[Target, str]] = []
        for target in targets:
            if target.kinds & {"python", "config"} and "dollar-cap" not in self.selected:
                continue
            if "markdown" in target.kinds and not needs_markdown:
                continue
            text, problem = read_text(target)
            if problem:
                findings.append(problem)
                continue
            assert text is not None
            if "python" in target.kinds:
                python_items.append((target, text))
            elif "config" in target.kinds:
                config_items.append((target, text))
            else:
                markdown_items.append((target, text))
        findings += self.markdown_all(markdown_items)
        findings += self.python(python_items)
        findings += self.config_files(config_items)
        return sorted(findings)

    def config_files(self, items: list[tuple[Target, str]]) -> list[Finding]:
        from lint import dollar_config

        findings: list[Finding] = []
        for target, text in items:
            found = dollar_config.check(target.display, text)
            if found and self.fix:
                self._write(target, dollar_config.fix(target.display, text))
                continue
            findings += suppress.apply(target.display, found, suppress.python(text),
                                       self.selected)
        return findings

    def _write(self, target: Target, text: str) -> None:
        """Replace a file's text atomically (a crash leaves the old file whole)."""
        import tempfile

        directory = target.path.parent
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.path.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.chmod(tmp, target.path.stat().st_mode & 0o7777)
            os.replace(tmp, target.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.fixed.append(target.display)

    def markdown_all(self, items: list[tuple[Target, str]]) -> list[Finding]:
        """Each Markdown file; across processes when there are many (each worker
        builds the claim engine once), in this process when --fix may write."""
        if len(items) < PARALLEL_MIN_FILES or self.fix or (os.cpu_count() or 1) < 2:
            return [f for target, text in items for f in self.markdown(target, text)]
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=os.cpu_count(), initializer=_init_worker,
                                 initargs=(self.ws, self.selected)) as pool:
            results = pool.map(_markdown_job, items, chunksize=16)
            return [f for found in results for f in found]


_WORKER: Linter | None = None


def _init_worker(ws: Workspace, selected: set[str]) -> None:
    global _WORKER
    _WORKER = Linter(ws, selected)


def _markdown_job(item: tuple[Target, str]) -> list[Finding]:
    assert _WORKER is not None
    return _WORKER.markdown(*item)


def _check_python(job: tuple[str, str]) -> list[Finding]:
    from lint.rules import dollar_cap

    return dollar_cap.check(*job)
