"""`simulate` needs no cloud SDK, and `--plot` without matplotlib names the
`plot` extra in one line (exit 2), before simulating anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE = ROOT / "examples" / "workspace"
PLAN = "plans/825-sampled-separator-control.md"
MODEL = str(ROOT / "examples" / "capacity" / "scarce-wide.yaml")

WITHOUT = """
import sys
BLOCKED = tuple(sys.argv.pop(1).split(","))

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
from router.cli import main
code = main(sys.argv[1:])
assert not any(m.split(".")[0] in ("runpod", "matplotlib") or m.startswith("google.cloud")
               for m in sys.modules), "a heavy module was imported"
sys.exit(code)
"""


def run(blocked: str, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-c", WITHOUT, blocked, "simulate", "--plan", PLAN,
                             "--phase", "generate", "--capacity", MODEL, "--runs", "20", *args],
                            cwd=WORKSPACE, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_simulate_needs_no_cloud_sdk() -> None:
    result = run("google.cloud.compute,google.cloud.compute_v1,runpod,matplotlib",
                 "--policy", "ladder", "--policy", "narrow")
    assert result.returncode == 0, result.stderr
    assert "policy narrow" in result.stdout


def test_plot_without_matplotlib_names_the_extra(tmp_path: Path) -> None:
    result = run("matplotlib", "--plot", str(tmp_path / "plots"))
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line == ("backend-router: error: --plot needs matplotlib, in the 'plot' extra: "
                    "pip install 'width-aware-workflow[plot]'")
    assert not (tmp_path / "plots").exists()
