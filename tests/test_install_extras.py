"""A plain install is lint, critic and `plan`; the cloud SDKs are the
`dispatch` extra. Each command is run with the SDKs made unimportable (a
meta-path finder that refuses them, as an install without the extra has no
such modules): what needs no SDK works, what needs one says which extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = ROOT / "examples" / "workspace"
PLAN = "plans/825-sampled-separator-control.md"

WITHOUT_SDKS = """
import sys
BLOCKED = ("google.cloud.compute", "google.cloud.compute_v1", "runpod", "psycopg")

class NoCloudSDKs:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoCloudSDKs())
module = sys.argv.pop(1)
import importlib
main = importlib.import_module(module + ".cli").main
code = main(sys.argv[1:])
assert not any(m.split(".")[0] in ("runpod", "psycopg") or m.startswith("google.cloud.compute")
               for m in sys.modules), "an SDK was imported"
sys.exit(code)
"""


def run(module: str, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-c", WITHOUT_SDKS, module, *args], cwd=WORKSPACE,
                            capture_output=True, text=True, timeout=120,
                            env=None if env is None else {**os.environ, **env})
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_lint_critic_and_plan_need_no_cloud_sdk() -> None:
    assert run("lint").returncode == 0
    assert run("critics", PLAN).returncode == 0
    plan = run("router", "plan", "--plan", PLAN, "--phase", "generate")
    assert plan.returncode == 0 and "a2-ultragpu-8g" in plan.stdout


@pytest.mark.parametrize("args, command, needs", [
    (("dispatch", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1", "--", "true"),
     "dispatch", ("google-cloud-compute", "runpod")),
    (("dispatch", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
      "--skip-backend", "gcp", "--", "true"), "dispatch", ("runpod",)),
    (("check",), "check", ("google-cloud-compute", "runpod")),
    (("check", "--skip-backend", "runpod"), "check", ("google-cloud-compute",)),
    (("sweep", "--dispatch-id", "abc"), "sweep", ("google-cloud-compute", "runpod")),
    (("plan", "--intent", "capture-7b", "--gpu-count", "8", "--hours", "1", "--check-quota",
      "--gcp-project", "p"), "plan --check-quota", ("google-cloud-compute",)),
])
def test_commands_that_reach_a_cloud_name_the_extra(args: tuple[str, ...], command: str,
                                                   needs: tuple[str, ...]) -> None:
    result = run("router", *args)
    assert result.returncode == 2, result.stdout + result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("backend-router: error: ") and command in line
    assert "pip install 'width-aware-workflow[dispatch]'" in line
    for package in needs:
        assert package in line
    for package in {"google-cloud-compute", "runpod"} - set(needs):
        assert package not in line


def test_dispatch_on_a_slurm_only_ladder_needs_no_sdk(tmp_path: Path) -> None:
    # Only the backends a command will reach are required. (The ledger and
    # any SLURM output stay in tmp_path; `true` is all a lane would run.)
    result = run("router", "dispatch", "--intent", "capture-7b", "--gpu-count", "1",
                 "--hours", "1", "--skip-backend", "gcp", "--skip-backend", "runpod",
                 "--slurm-output", str(tmp_path), "--", "true",
                 env={"XDG_STATE_HOME": str(tmp_path)})
    assert "dispatch' extra" not in result.stderr


@pytest.mark.parametrize("args", [
    ("ledger", "history"),
    ("ledger", "init"),
    ("dispatch", "--intent", "capture-7b", "--gpu-count", "1", "--hours", "1",
     "--skip-backend", "gcp", "--skip-backend", "runpod", "--skip-backend", "slurm", "--",
     "true"),
])
def test_a_postgres_ledger_without_psycopg_names_the_postgres_extra(
        args: tuple[str, ...], tmp_path: Path) -> None:
    result = run("router", *args, env={"BACKEND_ROUTER_LEDGER": "postgresql://wl@127.0.0.1/x",
                                       "XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "pip install 'width-aware-workflow[postgres]'" in result.stderr
    assert not (tmp_path / "backend-router").exists()  # no silent local ledger


def test_an_sqlite_ledger_needs_no_postgres_extra(tmp_path: Path) -> None:
    result = run("router", "ledger", "cap", env={"XDG_STATE_HOME": str(tmp_path)})
    assert result.returncode == 0 and "48" in result.stdout, result.stderr


def test_version_is_the_packages_on_all_three() -> None:
    from router import __version__

    for module in ("lint", "critics", "router"):
        result = subprocess.run([sys.executable, "-m", module, "--version"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0
        assert result.stdout.split()[-1] == __version__
