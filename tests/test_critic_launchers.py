"""Launcher families as data (critics/launchers.yaml), a workspace's own
launchers file, and the device arithmetic: GPUs busy = pins ∩ count, per node."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from critics import cli, launchers
from critics.launch import analyze

GPUS = [
    # (launch, width, GPUs kept busy; None = every GPU the machine has)
    ("torchrun --nproc_per_node=8 train.py", 8, 8),
    ("python -m torch.distributed.launch --nproc_per_node 4 --use_env train.py", 4, 4),
    ("CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node=4 train.py", 4, 1),
    ("CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=4 train.py", 4, 2),
    ("deepspeed --include localhost:2,3 train.py", 4, 2),
    ("deepspeed --exclude localhost:0 train.py", 4, 3),
    ("CUDA_VISIBLE_DEVICES=0,1 deepspeed train.py", 4, 2),
    ("deepspeed train.py", 4, None),
    ("accelerate launch --num_processes 16 --num_machines 2 train.py", 8, 8),
    ("accelerate launch --gpu_ids 0,1 train.py", 4, 2),
    ("srun --ntasks=1 torchrun --nproc_per_node=8 train.py", 8, 8),
    ("srun -N2 --ntasks-per-node=1 torchrun --nnodes 2 --nproc_per_node=8 train.py", 8, 8),
    ("srun --ntasks=2 python gen.py", 4, 2),
    ("mpirun -np 8 --bind-to numa python bench.py", 8, 8),
    ("lm_eval --model vllm --model_args pretrained=m,tensor_parallel_size=4,data_parallel_size=2",
     8, 8),
    ("lm_eval --model sglang --model_args pretrained=m,tp_size=1,dp_size=4 --tasks x", 4, 4),
    ("python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 trainer.nnodes=1", 8, 8),
    ("FORCE_TORCHRUN=1 llamafactory-cli train x.yaml", 8, None),
    ("NPROC_PER_NODE=4 llamafactory-cli train x.yaml", 8, 4),
    ("python -m paddle.distributed.launch --gpus 0,1,2,3 train.py", 8, 4),
    ("python -m paddle.distributed.launch --devices $(seq -s, 0 $((8-1))) train.py", 8, None),
    ("ray job submit --address http://h:8265 -- python3 -m openrlhf.cli.train_ppo_ray "
     "--actor_num_gpus_per_node 8 --ref_num_gpus_per_node 8 --critic_num_gpus_per_node 8 "
     "--reward_num_gpus_per_node 8 --vllm_num_engines 4 --vllm_tensor_parallel_size 2 "
     "--colocate_all_models", 8, 8),
    ("python3 -m openrlhf.cli.train_ppo_ray --actor_num_gpus_per_node 2 "
     "--ref_num_gpus_per_node 2 --critic_num_gpus_per_node 2 --reward_num_gpus_per_node 2 "
     "--vllm_num_engines 2 --vllm_tensor_parallel_size 2 --colocate_actor_ref "
     "--colocate_critic_reward", 8, 8),
    ("docker run --gpus all vllm/vllm-openai --model m --tensor-parallel-size 4", 4, 4),
    ("vllm serve m -tp 2 -pp 2 -dp 2", 8, 8),
]


@pytest.mark.parametrize(("launch", "width", "busy"), GPUS, ids=[g[0][:40] for g in GPUS])
def test_gpus_kept_busy(launch: str, width: int, busy: int | None) -> None:
    found = analyze(launch, width)
    assert found.parallel and found.gpus == busy, found


@pytest.mark.parametrize("launch", [
    "lm_eval --model hf --model_args pretrained=m,parallelize=True --tasks x",
    "python gen.py --device_map auto",
    "CUDA_VISIBLE_DEVICES=0 deepspeed train.py",  # all visible GPUs: one
    "CUDA_VISIBLE_DEVICES=0 llamafactory-cli train x.yaml",
])
def test_not_parallel_work(launch: str) -> None:
    assert not analyze(launch, 4).parallel


def test_ids_past_the_width_are_not_busy_and_are_reported() -> None:
    found = analyze("CUDA_VISIBLE_DEVICES=1,2,3,6 torchrun --nproc_per_node=4 train.py", 4)
    assert found.gpus == 3 and found.missing == ("6",)
    assert analyze("CUDA_VISIBLE_DEVICES=3 python eval.py", 1).missing == ("3",)
    assert analyze("CUDA_VISIBLE_DEVICES=3 python eval.py", 4).missing == ()


@pytest.mark.parametrize("launch", ["bash run.sh", "sbatch job.slurm", "./run_train.sh",
                                    "ray job submit -- bash scripts/train.sh",
                                    "python prep.py && bash train.sh"])
def test_opaque_scripts_are_unreadable_above_width_one(launch: str) -> None:
    assert analyze(launch, 4).unreadable
    assert analyze(launch, 1).unreadable is None


def test_a_script_beside_a_launch_that_fills_the_width_is_fine() -> None:
    found = analyze("torchrun --nproc_per_node=8 train.py && bash eval.sh", 8)
    assert found.parallel and found.gpus == 8 and found.unreadable is None


def _workspace(tmp_path: Path, launchers_yaml: str, launch: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.workflow-lint]\nlaunchers = "ops/launchers.yaml"\n')
    (tmp_path / "ops").mkdir()
    (tmp_path / "ops" / "launchers.yaml").write_text(launchers_yaml)
    plan = tmp_path / "plan.md"
    plan.write_text("# Plan\n\n## §9 Compute\n\n```yaml\nphases:\n  - name: main\n"
                    "    intent: capture-7b\n    width: 8\n    gpu_hours: 8\n"
                    f"    launch: '{launch}'\n```\n")
    return plan


OWN = """launchers:
  - name: fanout
    match:
      commands: [fanout]
    count: [[--workers]]
    default: all
"""


def test_a_workspace_adds_its_own_launcher(tmp_path: Path, capsys) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plan = _workspace(tmp_path / "a", OWN, "fanout --workers 8 job.py")
    assert cli.main([str(plan), "--format", "json"]) == 0
    capsys.readouterr()
    plan = _workspace(tmp_path / "b", OWN, "fanout --workers 2 job.py")
    assert cli.main([str(plan), "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out[0]["findings"][0]["rule"] == "under-saturated"


def test_a_workspace_replaces_a_packaged_family_by_name(tmp_path: Path) -> None:
    own = tmp_path / "l.yaml"
    own.write_text("launchers:\n  - name: torchrun\n    match: {commands: [torchrun]}\n"
                   "    count: [[--procs]]\n")
    families = launchers.load(str(own))
    assert analyze("torchrun --procs 4 x.py", 4, families).gpus == 4
    assert analyze("torchrun --nproc_per_node 4 x.py", 4, families).parallel is False


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("launchers:\n  - name: x\n    match: {commands: [x]}\n    count: [[nope]]\n", 4,
     "not a count source"),
    ("launchers:\n  - name: x\n    match: {commands: [x]}\n    colour: red\n", 4,
     "unknown launcher key 'colour'"),
    ("launchers:\n  - name: x\n    match: {}\n", 3, "match must be a mapping"),
    ("launchers:\n  - name: x\n    match: {commands: [x]}\n    default: 0\n", 4, "default"),
    ("launchers: [\n", 2, "invalid YAML"),
    ("other: 1\n", 1, "one key, launchers"),
])
def test_a_bad_launchers_file_is_one_line_with_its_line(tmp_path: Path, capsys, text: str,
                                                        line: int, needle: str) -> None:
    plan = _workspace(tmp_path, text, "torchrun --nproc_per_node 8 x.py")
    assert cli.main([str(plan)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
    assert f"launchers.yaml:{line}:" in err, err


def test_the_packaged_file_is_loaded_once_and_parses_fast() -> None:
    assert launchers.packaged() is launchers.packaged()
    start = time.perf_counter()
    for _ in range(200):
        analyze("srun --ntasks=1 torchrun --nproc_per_node=8 train.py", 8)
    assert time.perf_counter() - start < 2.0
