"""The bundled example workspace shows each verdict, and its critic guidance
states the critic's actual rules (names, severities, threshold)."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from critics.rules import DEFAULT_WIDEN_THRESHOLD, RULES

WORKSPACE = Path(__file__).resolve().parents[1] / "examples" / "workspace"
GUIDANCE = WORKSPACE / ".claude" / "agents" / "efficiency-critic.md"


def critic_json(cwd: Path) -> list[dict]:
    result = subprocess.run([sys.executable, "-m", "critics", "plans", "--format", "json"],
                            cwd=cwd, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


def test_example_plans_show_each_verdict_and_rule() -> None:
    reviews = critic_json(WORKSPACE)
    assert {r["verdict"] for r in reviews} == {"APPROVE", "REVISE"}
    rules = {f["rule"] for r in reviews for f in r["findings"]}
    assert {"unsharded-wide", "needlessly-narrow"} <= rules


def test_a_copy_of_the_workspace_reviews_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "ws"
    shutil.copytree(WORKSPACE, copy)
    assert critic_json(copy) == critic_json(WORKSPACE)


def test_critic_guidance_names_every_rule_with_its_severity() -> None:
    text = GUIDANCE.read_text()
    deny_part, _, warn_part = text.partition("## Warn")
    for rule in RULES:
        section = deny_part if rule.severity == "error" else warn_part
        assert f"**{rule.name}**" in section, rule.name
    assert re.search(rf"\b{DEFAULT_WIDEN_THRESHOLD:g} GPU-hour", text)
