"""Shell functions in a launch: `train_fold() { ...; }` then `train_fold 3 &`.

`inline` rewrites a parsed tree so the analysis never meets a function:
- a call becomes a subshell group that sets the positional parameters
  (`set -- ARGS`, read by critics.shell_expand) and runs the body;
- a function named as the command of GNU `parallel`, `xargs` or `sem`
  (`parallel -j8 train_fold ::: ...`, after `export -f train_fold`) is
  replaced by its body as written, so the launcher's worker is visible;
- a `bash -c` script that calls a defined function gets the definition
  prepended, as `export -f` would hand it to the child shell.

Calls are resolved in order, against the functions defined before them. A
body is resolved when it is defined, without itself, so a recursive call stays
an ordinary command and the tree stays acyclic. Inlined bodies are shared, not
copied; the analysis charges every visit against its work budget.
"""

from __future__ import annotations

import re
import shlex

from critics import shell

# How deep one function may call another before the launch is refused by name.
MAX_CALL_DEPTH = 16
_WRAPPERS = ("env", "nohup", "time", "exec", "command", "stdbuf")
_FANOUT = ("parallel", "xargs", "sem")


def inline(tree: shell.Seq) -> shell.Seq:
    return _Inliner().seq(tree, {})


class _Inliner:
    def __init__(self) -> None:
        self.depth: dict[int, int] = {}  # id(function body) -> call depth inside it
        self.deepest: list[int] = [0]  # per function being defined: its deepest call

    def seq(self, seq: shell.Seq, funcs: dict[str, shell.Function]) -> shell.Seq:
        out = shell.Seq()
        for chain, background in seq.items:
            pipelines = []
            for pipeline in chain:
                commands = []
                for cmd in pipeline.commands:
                    if isinstance(cmd, shell.Function):
                        self.deepest.append(0)
                        body = self.command(cmd.body, funcs)
                        self.depth[id(body)] = self.deepest.pop()
                        funcs = {**funcs, cmd.name: shell.Function(cmd.name, body, cmd.source)}
                        continue
                    commands.append(self.command(cmd, funcs))
                if commands:
                    pipelines.append(shell.Pipeline(commands))
            if pipelines:
                out.items.append((pipelines, background))
        return out

    def command(self, cmd: shell.Command, funcs: dict[str, shell.Function]) -> shell.Command:
        if isinstance(cmd, shell.Simple):
            return self.simple(cmd, funcs)
        if isinstance(cmd, shell.For):
            return shell.For(cmd.var, cmd.items, cmd.arith, self.seq(cmd.body, funcs),
                             cmd.raw_items)
        if isinstance(cmd, shell.Loop):
            return shell.Loop(self.seq(cmd.cond, funcs), self.seq(cmd.body, funcs), cmd.until)
        if isinstance(cmd, shell.Case):
            return shell.Case([self.seq(p, funcs) for p in cmd.parts], cmd.word, cmd.patterns)
        if isinstance(cmd, shell.If):
            return shell.If([self.seq(p, funcs) for p in cmd.parts])
        if isinstance(cmd, shell.Group):
            return shell.Group(self.seq(cmd.body, funcs), cmd.subshell)
        return cmd

    def simple(self, cmd: shell.Simple, funcs: dict[str, shell.Function]) -> shell.Command:
        if not funcs or not cmd.words:
            return cmd
        lead = len(cmd.raw) - len(cmd.words)  # raw assignment words before the command
        skip = 0
        while skip < len(cmd.words) - 1 and cmd.words[skip] in _WRAPPERS:
            skip += 1
        name = cmd.words[skip]
        if name in funcs:
            return self.call(cmd, funcs[name], lead, skip)
        program = name.rsplit("/", 1)[-1]
        if program in _FANOUT:
            return self.fanout(cmd, funcs, lead)
        if program in ("bash", "sh") and "-c" in cmd.words[skip + 1:-1]:
            return self.bash_c(cmd, funcs, lead, cmd.words.index("-c", skip) + 1)
        return cmd

    def call(self, cmd: shell.Simple, func: shell.Function, lead: int,
             skip: int) -> shell.Command:
        depth = self.depth.get(id(func.body), 0) + 1
        if depth > MAX_CALL_DEPTH:
            raise shell.LaunchTooComplex(f"shell functions that call each other more than "
                                         f"{MAX_CALL_DEPTH} deep")
        args_raw = cmd.raw[lead + skip + 1:] if cmd.raw else cmd.words[skip + 1:]
        positional = shell.Simple(words=["set", "--", *cmd.words[skip + 1:]],
                                  raw=["set", "--", *args_raw])
        body = shell.Seq([([shell.Pipeline([positional])], False)])
        if cmd.assignments:  # `CUDA_VISIBLE_DEVICES=3 train_fold 3`: exported to the body
            prefix = shell.Simple(assignments=list(cmd.assignments), raw=cmd.raw[:lead])
            body.items.append(([shell.Pipeline([prefix])], False))
        body.items.append(([shell.Pipeline([func.body])], False))
        self.deepest[-1] = max(self.deepest[-1], depth)
        return shell.Group(body, subshell=True)

    def fanout(self, cmd: shell.Simple, funcs: dict[str, shell.Function],
               lead: int) -> shell.Simple:
        words, raw = list(cmd.words), list(cmd.raw)
        changed = False
        for i, word in enumerate(words):
            script = _with_functions(word, funcs)
            if word in funcs:
                words[i] = funcs[word].source
            elif script is not None:
                words[i] = script
            else:
                continue
            changed = True
            if raw:
                raw[lead + i] = shlex.quote(words[i])
        if not changed:
            return cmd
        return shell.Simple(list(cmd.assignments), words, raw)

    def bash_c(self, cmd: shell.Simple, funcs: dict[str, shell.Function], lead: int,
               index: int) -> shell.Simple:
        script = _with_functions(cmd.words[index], funcs)
        if script is None:
            return cmd
        words, raw = list(cmd.words), list(cmd.raw)
        words[index] = script
        if raw:
            raw[lead + index] = shlex.quote(script)
        return shell.Simple(list(cmd.assignments), words, raw)


def _with_functions(script: str, funcs: dict[str, shell.Function]) -> str | None:
    """`script` with the definitions of the functions it names prepended, or
    None if it names none."""
    used = [name for name in funcs
            if re.search(rf"(?:^|[\s;&|(]){re.escape(name)}(?=$|[\s;&|)])", script)]
    if not used:
        return None
    defs = "".join(f"{name}() {funcs[name].source}\n" for name in used)
    return defs + script
