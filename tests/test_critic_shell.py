"""The shell reader on the bash real launch scripts use: arrays, functions,
arithmetic, parameter expansion, declarations, word splitting, case, here
documents; and the third outcome, `unreadable-launch`, for what it cannot
evaluate (issue 13)."""

import pytest

from critics import shell, shell_expand
from critics.launch import analyze
from critics.review import review_plan
from router import config
from router.section9 import parse_plan

CFG = config.load()


def run(script: str, env: dict[str, str] | None = None) -> tuple[list[list[str]], dict]:
    """Evaluate every top-level simple command in order; return the words of
    those that run something, and the environment after."""
    env = {} if env is None else env
    out = []
    for chain, _ in shell.parse(script).items:
        for pipeline in chain:
            for cmd in pipeline.commands:
                assert isinstance(cmd, shell.Simple), cmd
                done = shell_expand.evaluate(cmd, env)
                if done is not None:
                    out.append(done.words)
    return out, env


def words(script: str, env: dict[str, str] | None = None) -> list[str]:
    return run(script, env)[0][-1]


# ---- parsing ------------------------------------------------------------------

def test_array_literal_is_one_assignment_word_comments_and_all() -> None:
    tree = shell.parse("GPT_ARGS=(\n  --num-layers 24  # don't change\n  --seq-length 2048\n)\n"
                       "echo ok")
    cmd = tree.items[0][0][0].commands[0]
    assert cmd.assignments[0][0] == "GPT_ARGS" and cmd.words == []


@pytest.mark.parametrize("text", [
    "train_fold() { python t.py --fold $1; }\ntrain_fold 3",
    "function train_fold { python t.py --fold $1; }\ntrain_fold 3",
    "function train_fold() {\n  python t.py --fold $1\n}\ntrain_fold 3",
])
def test_function_definitions_are_inlined_at_their_calls(text: str) -> None:
    tree = shell.parse(text)
    assert len(tree.items) == 1  # the definition itself runs nothing
    group = tree.items[0][0][0].commands[0]
    assert isinstance(group, shell.Group) and group.subshell
    first = group.body.items[0][0][0].commands[0]
    assert first.words[:2] == ["set", "--"]


def test_recursive_function_stays_a_plain_command() -> None:
    tree = shell.parse("f() { f; }\nf")
    assert isinstance(tree.items[0][0][0].commands[0], shell.Group)


def test_deeply_chained_functions_are_refused_by_name() -> None:
    text = "f0() { x; }\n" + "".join(f"f{i}() {{ f{i - 1}; }}\n" for i in range(1, 40)) + "f39"
    with pytest.raises(shell.LaunchTooComplex, match="functions"):
        shell.parse(text)


def test_case_is_an_if_over_its_arms() -> None:
    tree = shell.parse("case $SIZE in\n  small|tiny) N=2 ;;\n  *) N=8 ;;\nesac")
    case = tree.items[0][0][0].commands[0]
    assert isinstance(case, shell.If) and isinstance(case, shell.Case)
    assert case.patterns == [["small", "tiny"], ["*"]] and len(case.parts) == 2


def test_here_document_body_is_not_read_as_commands() -> None:
    tree = shell.parse("cat > cfg.yaml <<'EOF'\nnum_processes: 8 & it's (fine)\nEOF\n"
                       "torchrun --nproc_per_node 8 t.py")
    assert [c.words[0] for chain, _ in tree.items for p in chain for c in p.commands] == \
        ["cat", "torchrun"]


def test_test_brackets_and_arithmetic_commands_are_single_words() -> None:
    tree = shell.parse("[[ $n < 8 && -f x ]] && ((g=(g+1)%8)) && echo ok")
    chain = tree.items[0][0]
    assert [p.commands[0].words[0][:2] for p in chain] == ["[[", "((", "ec"]


def test_comments_and_line_continuations() -> None:
    tree = shell.parse("# torchrun --nproc_per_node 8 old.py\ntorchrun \\\n  --nproc_per_node 4 "
                       "t.py  # four for now")
    assert tree.items[0][0][0].commands[0].words == ["torchrun", "--nproc_per_node", "4", "t.py"]


# ---- expansion ----------------------------------------------------------------

def test_arrays_expand_element_by_element() -> None:
    script = ('GPUS=(0 1 2 3)\nGPUS+=(4)\necho\nx "${GPUS[@]}"\nx ${#GPUS[@]} ${GPUS[2]} '
              '$GPUS')
    assert words(script) == ["x", "5", "2", "0"]
    assert run(script)[0][0] == ["x", "0", "1", "2", "3", "4"]


def test_array_index_by_arithmetic() -> None:
    assert words("G=(4 5 6 7); i=1; x ${G[$i]} ${G[i+1]} ${G[$((i + 2))]}") == \
        ["x", "5", "6", "7"]


def test_megatron_flag_arrays_split_into_flags() -> None:
    script = ('GPT_ARGS=(\n  --num-layers 24\n  --hidden-size 1024  # width\n  --data "a b"\n)\n'
              'torchrun pretrain_gpt.py "${GPT_ARGS[@]}"')
    assert words(script) == ["torchrun", "pretrain_gpt.py", "--num-layers", "24",
                             "--hidden-size", "1024", "--data", "a b"]


def test_unquoted_variables_split_into_flags_and_quoted_ones_do_not() -> None:
    script = ('DISTRIBUTED_ARGS="--nproc_per_node 8 --nnodes 1"\n'
              'x $DISTRIBUTED_ARGS "$DISTRIBUTED_ARGS"')
    assert words(script) == ["x", "--nproc_per_node", "8", "--nnodes", "1",
                             "--nproc_per_node 8 --nnodes 1"]


@pytest.mark.parametrize(("expr", "value"), [
    ("$(( n - 1 ))", "7"), ("$((n*2 + 1))", "17"), ("$(( (n + 1) % 3 ))", "0"),
    ("$(( n / 3 ))", "2"), ("$(( -7 / 2 ))", "-3"), ("$(( n > 4 ? 2 : 1 ))", "2"),
    ("$(( 2 ** 10 ))", "1024"), ("$(( 0x10 + 010 ))", "24"), ("$((${#A[@]} - 1))", "2"),
])
def test_arithmetic_with_spaces_and_operators(expr: str, value: str) -> None:
    assert words(f"n=8; A=(a b c); x {expr}") == ["x", value]


def test_arithmetic_commands_counters_and_let() -> None:
    _, env = run("g=7; ((g=(g+1)%8)); i=0; ((i++)); ((i += 2)); let j=i*2 k=j+1")
    assert (env["g"], env["i"], env["j"], env["k"]) == ("0", "3", "6", "7")


@pytest.mark.parametrize(("word", "value"), [
    ("${N:-8}", "8"), ("${N-8}", "8"), ("${E:-8}", "8"), ("${E-8}", ""), ("${M:-8}", "4"),
    ("${M:+set}", "set"), ("${P#*/}", "b/c.py"), ("${P##*/}", "c.py"), ("${P%/*}", "a/b"),
    ("${P%%/*}", "a"), ("${P/b/x}", "a/x/c.py"), ("${#P}", "8"), ("${P:2:3}", "b/c"),
    ("${M^^}", "4"),
])
def test_parameter_expansion(word: str, value: str) -> None:
    assert words(f"E=; M=4; P=a/b/c.py; x \"{word}\"") == ["x", value]


def test_default_assignment_sets_the_variable() -> None:
    _, env = run("x ${NPROC:=4}; y")
    assert env["NPROC"] == "4"


@pytest.mark.parametrize("decl", ["export", "readonly", "declare", "declare -x", "local",
                                  "typeset -r", "declare -i"])
def test_declarations_set_variables(decl: str) -> None:
    _, env = run(f"{decl} N=8 M")
    assert env["N"] == "8"


def test_declare_array_and_export_f() -> None:
    out, env = run("declare -a G=(1 2)\nexport -f train\nx ${G[1]}")
    assert out == [["x", "2"]] and "train" not in env


def test_set_shift_and_positional_parameters() -> None:
    assert words('set -- a b c\nshift\nx $1 $# "$@"') == ["x", "b", "2", "b", "c"]


def test_unknown_variables_stay_as_written() -> None:
    assert words("x --nproc_per_node $NPROC ${N}") == ["x", "--nproc_per_node", "$NPROC", "${N}"]


def test_seq_and_the_machine_gpu_count() -> None:
    env = {"__width__": "4"}
    assert words("x $(seq 0 $(( 3 - 1 ))) $(nvidia-smi -L | wc -l)", env) == \
        ["x", "0", "1", "2", "4"]
    assert words("x $WIDTH", {"__width__": "8"}) == ["x", "8"]


def test_opaque_values_carry_their_construct() -> None:
    out, env = run("N=$(cat n.txt)\nx $N")
    assert shell_expand.opaque_in(env["N"]) == "$(cat n.txt)"
    _, env = run("source env.sh\nx --n=$NPROC")
    assert env[shell_expand.TAINT] == "'source env.sh'"
    out, _ = run("source env.sh\nx --n=$NPROC")
    assert shell_expand.opaque_in(out[0][1]) == "$NPROC, which 'source env.sh' may set"


def test_virtualenv_activation_does_not_make_variables_opaque() -> None:
    _, env = run("source .venv/bin/activate")
    assert shell_expand.TAINT not in env


def test_builtins_that_run_nothing_on_a_gpu_drop_out() -> None:
    out, _ = run("cd /work; mkdir -p out; echo go; [ -f x ] ; python t.py")
    assert out == [["python", "t.py"]]


def test_eval_of_static_text_is_read_as_a_script() -> None:
    out, _ = run('CMD="torchrun --nproc_per_node 8 t.py"\neval $CMD')
    assert out == [["bash", "-c", "torchrun --nproc_per_node 8 t.py"]]


def test_expansion_is_bounded() -> None:
    assert words("x $(seq 0 99999999999)") == ["x", "$(seq 0 1 99999999999)"]
    assert words("x $(( 9 ** 99 ))") == ["x", "$(( 9 ** 99 ))"]
    assert words("x $((" + "(" * 300 + "1" + ")" * 300 + "))")[1].startswith("$((")


# ---- analysis -----------------------------------------------------------------

@pytest.mark.parametrize(("launch", "width", "gpus"), [
    ('GPUS=(0 1 2 3); for g in "${GPUS[@]}"; do CUDA_VISIBLE_DEVICES=$g python x.py & done; '
     'wait', 4, 4),
    ('GPUS=(0 1 2 3 4 5 6 7); for i in $(seq 0 $(( ${#GPUS[@]} - 1 ))); do '
     'CUDA_VISIBLE_DEVICES=${GPUS[$i]} python x.py --shard $i & done; wait', 8, 8),
    ("train_fold() {\n  CUDA_VISIBLE_DEVICES=$(( $1 % 8 )) python train.py --fold $1\n}\n"
     "export -f train_fold\nparallel -j8 train_fold ::: {0..7}", 8, 8),
    ("run() { CUDA_VISIBLE_DEVICES=$1 python x.py --part $1; }\n"
     "for g in 0 1 2 3; do run $g & done\nwait", 4, 4),
    ('DISTRIBUTED_ARGS="--nproc_per_node 8 --nnodes 1 --node_rank 0"\n'
     "python -m torch.distributed.launch $DISTRIBUTED_ARGS pretrain.py", 8, 8),
    ("NPROC=${NPROC:-4}\ntorchrun --nproc_per_node=$NPROC t.py", 4, 4),
    ("readonly N=8\nexport MASTER_PORT=29500\ntorchrun --nproc_per_node=$N t.py", 8, 8),
    ("g=0\nfor f in a b c d e f g h; do\n  CUDA_VISIBLE_DEVICES=$g python x.py $f &\n"
     "  ((g=(g+1)%4))\ndone\nwait", 4, 4),
    ("n=8; for ((i=0; i<n; i++)); do CUDA_VISIBLE_DEVICES=$i x & done; wait", 8, 8),
    ("NGPU=$(nvidia-smi -L | wc -l)\ntorchrun --nproc_per_node=$NGPU t.py", 8, 8),
    ('case "$MODE" in\n  big) torchrun --nproc_per_node 8 t.py ;;\n  *) python t.py ;;\nesac',
     8, 8),
    ('CMD="torchrun --nproc_per_node 4 t.py"; eval $CMD', 4, 4),
    ("cat > ds.json <<EOF\n{\"zero\": 3}\nEOF\ndeepspeed --num_gpus 8 t.py", 8, 8),
])
def test_real_launches_are_read(launch: str, width: int, gpus: int) -> None:
    result = analyze(launch, width)
    assert result.unreadable is None, result.unreadable
    assert result.parallel and result.gpus == gpus, result


@pytest.mark.parametrize(("launch", "names"), [
    ("source env.sh; torchrun --nproc_per_node=$NPROC train.py", ["NPROC", "source env.sh"]),
    (". ./config.sh\ntorchrun $DIST_ARGS train.py", ["DIST_ARGS", "config.sh"]),
    ("torchrun --nproc_per_node=$(cat nproc.txt) t.py", ["$(cat nproc.txt)"]),
    ("N=`cat n`; deepspeed --num_gpus $N t.py", ["cat n"]),
    ("torchrun $DISTRIBUTED_ARGS pretrain.py", ["$DISTRIBUTED_ARGS"]),
    ("eval $(cat cmd.txt)", ["eval", "$(cat cmd.txt)"]),
    ("$LAUNCHER train.py", ["$LAUNCHER"]),
    ("for g in $(cat gpus.txt); do CUDA_VISIBLE_DEVICES=$g python x.py & done; wait",
     ["$(cat gpus.txt)"]),
    ("for f in data/*.json; do CUDA_VISIBLE_DEVICES=$((n % 8)) python x.py $f & "
     "n=$((n+1)); done; wait", ["data/*.json"]),
    ("i=0; while read f; do CUDA_VISIBLE_DEVICES=$i python x.py $f & i=$((i+1)); done < l\n"
     "wait", ["while"]),
    ("torchrun --nproc_per_node 8 t.py (", ["does not parse"]),
])
def test_what_it_cannot_read_is_named(launch: str, names: list[str]) -> None:
    result = analyze(launch, 8)
    assert result.unreadable is not None, result
    for name in names:
        assert name in result.unreadable


@pytest.mark.parametrize(("launch", "script"), [
    ("bash run.sh", "run.sh"), ("sbatch job.slurm", "job.slurm"),
    ("NGPU=8 ./run_train.sh", "run_train.sh"),
])
def test_a_launch_that_only_calls_a_script_is_unreadable(launch: str, script: str) -> None:
    assert script in (analyze(launch, 8).unreadable or "")
    assert analyze(launch, 1).unreadable is None


def test_a_script_before_the_launcher_is_setup() -> None:
    assert analyze("bash prep.sh; torchrun --nproc_per_node 8 t.py", 8).unreadable is None


def test_array_indices() -> None:
    assert words('G=(4 5 6); x "${!G[@]}"') == ["x", "0", "1", "2"]


@pytest.mark.parametrize(("launch", "width", "literal"), [
    ("n=4\nfor i in $(seq 0 $(( n - 1 ))); do CUDA_VISIBLE_DEVICES=$i x --num-shards $n & "
     "done; wait", 4, "n=4"),
    ('NGPU=${NGPU:-"8"}\ntorchrun --nproc_per_node=${NGPU} t.py', 8, 'NGPU=${NGPU:-"8"}'),
    ('G=8\nD="--nproc_per_node $G --nnodes 1"\ntorchrun $D t.py', 8, "G=8"),
])
def test_a_width_held_in_a_variable_is_hardcoded(launch: str, width: int, literal: str) -> None:
    review = review_plan(parse_plan(plan(launch, width), "p.md"), CFG)
    assert [f.rule for f in review.findings] == ["hardcoded-width"]
    assert literal in review.findings[0].message


def test_a_literal_that_is_not_the_width_is_not_hardcoded() -> None:
    launch = "MBS=8\ntorchrun --nproc_per_node {width} t.py --micro-batch-size $MBS"
    assert review_plan(parse_plan(plan(launch, 8), "p.md"), CFG).findings == ()


def test_a_parse_failure_at_width_one_idles_nothing() -> None:
    assert analyze("python x.py (", 1).unreadable is None
    assert analyze("python x.py (", 2).unreadable is not None


@pytest.mark.parametrize("launch", [
    "python t.py --data $DATA --out $(date +%s)",  # unknowns that count nothing
    "torchrun --nproc_per_node 8 train.py $EXTRA_ARGS",  # after the program: its own args
    "source env.sh; python t.py --lr $LR",
    "for f in $(ls configs); do python t.py --config $f; done",  # serial: one GPU anyway
])
def test_unknowns_that_do_not_change_the_count_are_not_unreadable(launch: str) -> None:
    assert analyze(launch, 8).unreadable is None


def plan(launch: str, width: int) -> str:
    import json
    return ("# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - name: main\n"
            f"    intent: capture-7b\n    width: {width}\n    gpu_hours: 8\n"
            f"    launch: {json.dumps(launch)}\n```\n")


@pytest.mark.parametrize(("launch", "width", "verdict", "rules"), [
    ('GPUS=(0 1 2 3); for g in "${GPUS[@]}"; do CUDA_VISIBLE_DEVICES=$g python x.py & done; '
     'wait', 4, "APPROVE", set()),
    ("train_fold() { CUDA_VISIBLE_DEVICES=$(( $1 % 8 )) python train.py --fold $1; }\n"
     "export -f train_fold\nparallel -j{width} train_fold ::: {0..7}", 8, "APPROVE", set()),
    ('DISTRIBUTED_ARGS="--nproc_per_node {width} --nnodes 1"\n'
     "torchrun $DISTRIBUTED_ARGS train.py", 8, "APPROVE", set()),
    ("source env.sh; torchrun --nproc_per_node=$NPROC train.py", 8, "REVISE",
     {"unreadable-launch"}),
    ("python x.py (", 8, "REVISE", {"unreadable-launch"}),
    ("python x.py (", 1, "APPROVE", set()),
])
def test_verdicts_through_the_critic(launch: str, width: int, verdict: str,
                                     rules: set[str]) -> None:
    review = review_plan(parse_plan(plan(launch, width), "p.md"), CFG)
    assert review.verdict == verdict, [f.message for f in review.findings]
    assert {f.rule for f in review.findings if f.severity == "error"} == rules


def test_commented_out_lines_are_not_a_hardcoded_width() -> None:
    launch = "# torchrun --nproc_per_node 8 old.py\ntorchrun --nproc_per_node {width} train.py"
    review = review_plan(parse_plan(plan(launch, 8), "p.md"), CFG)
    assert review.findings == ()
    launch = "# was: seq 0 7\nfor i in {0..7}; do CUDA_VISIBLE_DEVICES=$i x & done; wait"
    review = review_plan(parse_plan(plan(launch, 8), "p.md"), CFG)
    assert {f.rule for f in review.findings} == {"hardcoded-width"}
    assert "seq 0 7" not in review.findings[0].message
