"""Collect files, read each once, parse each once, run the selected rules."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lint import suppress
from lint.findings import Finding
from lint.workspace import DOT_DIRS_READ, SKIP_DIRS, Workspace

MAX_BYTES = 20_000_000
PARALLEL_MIN_FILES = 48  # below this, process start-up costs more than it saves
CRITIC_NAME = re.compile(r"^name:[ \t]*[\"']?efficiency-critic[\"']?[ \t]*$", re.M)


@dataclass
class Target:
    path: Path
    display: str
    kinds: set[str] = field(default_factory=set)  # markdown, plan, critic, python


def _walk(root: Path, ws: Workspace, problems: list[Finding]) -> Iterable[Path]:
    """Files under `root`, sorted, skipping tool and dot-folders (but not
    `.claude/`) and excluded folders. Symlinked folders are not entered (no
    loops, no escapes); a folder that cannot be listed is a file-error."""

    def unreadable(exc: OSError) -> None:
        where = ws.rel(Path(exc.filename)) if exc.filename else root.as_posix()
        problems.append(Finding(where, 1, 1, "file-error",
                                f"cannot read folder: {exc.strerror or exc}; not linted"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames
            if d not in SKIP_DIRS and (not d.startswith(".") or d in DOT_DIRS_READ)
            and not ws.excluded(ws.rel(here / d)))
        for name in sorted(filenames):
            yield here / name


def _names_critic(text: str) -> bool:
    """Front matter (`---` ... `---` at the top) that says `name: efficiency-critic`."""
    if not text.startswith("---"):
        return False
    end = text.find("\n---", 3)
    return end > 0 and CRITIC_NAME.search(text, 0, end) is not None


def _classify(path: Path, ws: Workspace) -> set[str]:
    rel = ws.rel(path)
    kinds: set[str] = set()
    suffix = path.suffix.lower()
    if suffix == ".py":
        kinds.add("python")
    elif suffix in (".yaml", ".yml", ".toml", ".json"):
        # A config file only where the workspace says config lives (not lock
        # files, CI workflows or data), and never the workspace's own pyproject.
        if ws.matches(rel, ws.config_files) and rel != "pyproject.toml":
            kinds.add("config")
    elif suffix in (".md", ".markdown"):
        kinds.add("markdown")
        if ws.matches(rel, ws.plans):
            kinds.add("plan")
        if ws.matches(rel, ws.critic_guidance):
            kinds.add("critic")
    return kinds


def _link_problem(path: Path, ws: Workspace) -> Finding | None:
    """A symlinked file the lint must not read: broken, a loop, or (found by a
    walk rather than named by the user) pointing outside the workspace."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        why = "a symlink loop" if isinstance(exc, RuntimeError) or \
            getattr(exc, "errno", None) == errno.ELOOP else "a broken symlink"
        return Finding(ws.rel(path), 1, 1, "file-error", f"{why}; not linted")
    if not _inside(real, ws.root):
        return Finding(ws.rel(path), 1, 1, "file-error",
                       f"a symlink to {real}, outside the workspace; not linted",
                       severity="warning")
    return None


def _inside(real: Path, root: Path) -> bool:
    try:
        real.relative_to(root.resolve())
        return True
    except (ValueError, OSError, RuntimeError):
        return False


# What a file the user names is read as, beyond the surfaces a walk finds
_MARKDOWN_NAMED = (".md", ".markdown", ".mdc", ".mdx", ".txt")
_RULES_FILES = (".cursorrules", ".windsurfrules", ".clinerules", ".goosehints")


def collect_paths(paths: list[str], ws: Workspace,
                  force_exclude: bool = False) -> tuple[list[Target], list[Finding]]:
    """The files named on the command line (always linted unless
    `force_exclude`, as ruff's flag) and the files under named folders."""
    targets: dict[Path, Target] = {}
    problems: list[Finding] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and not path.is_symlink():
            walked = True
            files = [f for f in _walk(path, ws, problems) if not ws.excluded(ws.rel(f))]
        elif path.is_dir():  # a named symlinked folder: the user named it
            walked = True
            files = [f for f in _walk(path.resolve(), ws, problems)
                     if not ws.excluded(ws.rel(f))]
        elif path.exists() or path.is_symlink():
            walked = False
            if force_exclude and ws.excluded(ws.rel(path)):
                continue
            files = [path]
        else:
            problems.append(Finding(raw, 1, 1, "file-error", "no such file or directory"))
            continue
        for file in files:
            kinds = _classify(file, ws)
            if not walked and not kinds and (file.suffix.lower() in _MARKDOWN_NAMED or
                                             file.name.lower() in _RULES_FILES):
                # named by the user: Markdown, or an editor's agent-rules file
                # (.cursorrules, .cursor/rules/*.mdc), which is Markdown too
                kinds = {"markdown"}
            if not kinds:
                if not walked and file.suffix.lower() not in (".yaml", ".yml", ".toml", ".json"):
                    problems.append(Finding(ws.rel(file), 1, 1, "file-error",
                                            "not Markdown, Python or a config file; not linted",
                                            severity="warning"))
                continue
            if walked and file.is_symlink():
                problem = _link_problem(file, ws)
                if problem:
                    problems.append(problem)
                    continue
            targets.setdefault(file, Target(file, file.as_posix(), kinds))
    return list(targets.values()), problems


def collect_workspace(ws: Workspace, want: frozenset[str] = frozenset(
        {"markdown", "python", "config"})) -> tuple[list[Target], list[Finding]]:
    """The workspace's files, in one walk: guidance surfaces, the critic's
    guidance, plans, Python code and config files, by the workspace's globs.
    `want` names the kinds the selected rules read; the rest are not collected."""
    targets: dict[Path, Target] = {}
    problems: list[Finding] = []
    literal: dict[str, str] = {}  # configured non-glob entries: each must exist
    for key in ("surfaces", "critic_guidance"):
        if key in ws.configured and "markdown" in want:
            literal.update({p.removeprefix("./"): key for p in getattr(ws, key)
                            if not any(c in p for c in "*?[")})
    for path in _walk(ws.root, ws, problems):
        rel = ws.rel(path)
        literal.pop(rel, None)
        kinds = _classify(path, ws) if not ws.excluded(rel) else set()
        if "markdown" in kinds:
            # Markdown is linted where it is a surface, a plan or critic guidance.
            if "markdown" not in want or not (ws.matches(rel, ws.surfaces)
                                              or kinds & {"plan", "critic"}):
                kinds = set()
        else:
            kinds &= want
        if not kinds:
            continue
        if path.is_symlink():
            problem = _link_problem(path, ws)
            if problem:
                problems.append(problem)
                continue
        targets[path] = Target(path, rel, kinds)
    for rel, key in literal.items():
        # A surface the config names outright is read even where a walk does
        # not go (a dot-folder, say); one that is missing is an error.
        path = ws.root / rel
        if path.exists() or path.is_symlink():
            kinds = {"markdown"} | _classify(path, ws) & {"plan", "critic"}
            if key == "critic_guidance":
                kinds.add("critic")
            targets.setdefault(path, Target(path, rel, kinds))
        else:
            problems.append(Finding(rel, 1, 1, "file-error", f"{key} entry does not exist"))
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
        self._python_pool = None
        self.fixed: list[str] = []
        self.refused: list[Finding] = []  # fixes not written (outside the workspace)
        self.checked = 0  # files some selected rule read: the summary's count
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
        if fixed != text and not self._write(target, fixed):  # atomic: never half-written
            return text
        return fixed

    def python(self, items: list[tuple[Target, str]]) -> list[Finding]:
        if "dollar-cap" not in self.selected:
            return []
        candidates = items  # every file gets at least a syntax check
        if self.fix:  # in this process: it writes files
            from lint.rules import dollar_cap

            results = []
            for target, text in candidates:
                fixed, remaining = dollar_cap.fix(target.display, text)
                if fixed != text and not self._write(target, fixed):
                    remaining = dollar_cap.check(target.display, text)
                results.append(remaining)
        elif self._python_pool is not None:
            # Largest files first, in small chunks: the long parses start early
            # and the last chunks to finish are short, so neither worker idles.
            order = sorted(range(len(candidates)), key=lambda i: -len(candidates[i][1]))
            jobs = [(candidates[i][0].display, candidates[i][1]) for i in order]
            results = [[] for _ in candidates]
            for index, found in zip(order, self._python_pool.map(_check_python, jobs,
                                                                  chunksize=4), strict=True):
                results[index] = found
        else:
            results = [_check_python((t.display, text)) for t, text in candidates]
        findings: list[Finding] = []
        for (target, text), found in zip(candidates, results, strict=True):
            findings += suppress.apply(target.display, found,
                                       suppress.python(text), self.selected)
        return findings

    def _start_python_pool(self, targets: list[Target]) -> None:
        """Start the dollar-cap workers before the files are read, when there
        are enough Python files to share out: each worker imports libcst (a
        quarter second) while this process still walks and reads."""
        count = sum(1 for t in targets if "python" in t.kinds)
        if ("dollar-cap" in self.selected and not self.fix and count >= PARALLEL_MIN_FILES
                and (os.cpu_count() or 1) > 1):
            self._python_pool = _started_pool(_warm_python, ())

    def kinds_read(self) -> frozenset[str]:
        """The file kinds the selected rules read (what to collect at all)."""
        kinds = set()
        for rule in self.rules:
            kinds |= {"python", "config"} if rule.reads == "python" else {"markdown"}
        return frozenset(kinds)

    def reads(self, target: Target) -> bool:
        """Whether any selected rule reads this kind of file."""
        for rule in self.rules:
            if rule.reads == "python":
                if target.kinds & {"python", "config"}:
                    return True
            elif "markdown" in target.kinds and (
                    rule.reads == "markdown" or rule.reads in target.kinds
                    or rule.reads == "critic"):  # front matter may make it critic guidance
                return True
        return False

    def run(self, targets: list[Target]) -> list[Finding]:
        self._start_python_pool(targets)
        try:
            return self._run(targets)
        finally:
            if self._python_pool is not None:
                self._python_pool.shutdown(cancel_futures=True)
                self._python_pool = None

    def _run(self, targets: list[Target]) -> list[Finding]:
        findings: list[Finding] = []
        python_items: list[tuple[Target, str]] = []
        markdown_items: list[tuple[Target, str]] = []
        config_items: list[tuple[Target, str]] = []
        for target in targets:
            if not self.reads(target):
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
                if "critic" not in target.kinds and _names_critic(text):
                    target.kinds.add("critic")
                if not any(rule.reads != "python" and (rule.reads == "markdown"
                                                       or rule.reads in target.kinds)
                           for rule in self.rules):
                    continue  # e.g. --select critic-drift on a surface that is not
                markdown_items.append((target, text))
        self.checked = len(python_items) + len(config_items) + len(markdown_items)
        findings += self.markdown_all(markdown_items)
        findings += self.python(python_items)
        findings += self.config_files(config_items)
        return sorted(findings + self.refused)

    def config_files(self, items: list[tuple[Target, str]]) -> list[Finding]:
        from lint import dollar_config

        findings: list[Finding] = []
        for target, text in items:
            found = dollar_config.check(target.display, text)
            if found and self.fix and self._write(target,
                                                  dollar_config.fix(target.display, text)):
                continue
            findings += suppress.apply(target.display, found, suppress.python(text),
                                       self.selected)
        return findings

    def _write(self, target: Target, text: str) -> bool:
        """Replace a file's text atomically (a crash leaves the old file whole).
        A symlink stays a link: its target is rewritten, and only when that
        target is inside the workspace; otherwise nothing is written."""
        import tempfile

        try:
            real = target.path.resolve(strict=True)
        except (OSError, RuntimeError):
            real = None
        if real is None or not _inside(real, self.ws.root):
            where = "outside the workspace" if real is not None else "not a readable file"
            self.refused.append(Finding(target.display, 1, 1, "file-error",
                                        f"not fixed: the file is {where}", severity="warning"))
            return False
        fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.chmod(tmp, real.stat().st_mode & 0o7777)
            os.replace(tmp, real)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self.fixed.append(target.display)
        return True

    def markdown_all(self, items: list[tuple[Target, str]]) -> list[Finding]:
        """Each Markdown file; across processes when there are many (each worker
        builds the claim engine once), in this process when --fix may write."""
        if len(items) < PARALLEL_MIN_FILES or self.fix or (os.cpu_count() or 1) < 2:
            return [f for target, text in items for f in self.markdown(target, text)]
        from lint import regex_cache

        with _started_pool(_init_worker, (self.ws, self.selected)) as pool:
            out = []
            for found, compiled in pool.map(_markdown_job, items, chunksize=16):
                out.extend(found)
                regex_cache.adopt(compiled)
            return out


_WORKER: Linter | None = None


def _started_pool(initializer, initargs: tuple):
    """A process pool with every worker already forked. SIGINT is blocked
    while they fork, so a Ctrl-C cannot reach a worker before its initializer
    ignores it; the main process gets it as soon as the forks are done."""
    import signal
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=os.cpu_count(), initializer=initializer,
                               initargs=initargs)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pool.submit(int)  # forks every worker now, not at the first job
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return pool


def _ignore_interrupt() -> None:
    """A worker leaves Ctrl-C to the main process, which stops the pool and
    says so once (the terminal sends SIGINT to the whole process group)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by the fork


def _init_worker(ws: Workspace, selected: set[str]) -> None:
    global _WORKER
    from lint import regex_cache

    _ignore_interrupt()
    # what the main process compiled before the fork is its own to save; a
    # worker hands back only what it compiles itself
    regex_cache.take_fresh()
    _WORKER = Linter(ws, selected)


def _markdown_job(item: tuple[Target, str]) -> tuple[list[Finding], dict]:
    """A file's findings, and the regex programs the worker compiled for it,
    for the main process to keep in the cache it saves."""
    from lint import regex_cache

    assert _WORKER is not None
    return _WORKER.markdown(*item), regex_cache.take_fresh()


def _warm_python() -> None:
    """A dollar-cap worker's start: the imports every job needs."""
    _ignore_interrupt()
    import libcst  # noqa: F401

    from lint import money_slice  # noqa: F401
    from lint.rules import dollar_cap  # noqa: F401


def _check_python(job: tuple[str, str]) -> list[Finding]:
    from lint.rules import dollar_cap

    return dollar_cap.check(*job)
