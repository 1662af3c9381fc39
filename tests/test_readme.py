"""The README's main-job command works as written (minus the install step,
which the test environment has already done)."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_main_job_command_runs_on_the_example_workspace() -> None:
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^pip install .*$", readme, flags=re.MULTILINE)
    assert len(commands) >= 2 and "pytest" in commands[1]
    main_job = commands[0].split(" && ", 1)[1]
    result = subprocess.run(["bash", "-c", main_job], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, result.stderr  # the draft plan earns its REVISE
    assert result.stdout.startswith("All checks passed")  # workflow-lint: clean
    assert "a2-ultragpu-8g" in result.stdout
    assert "3 plans, 2 APPROVE, 1 REVISE" in result.stdout
