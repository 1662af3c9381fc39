"""What every backend shares: the workload to launch and the result of a rung."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


class DispatchError(Exception):
    """A permanent error (credentials, permission, invalid request): stop the walk."""


@dataclass(frozen=True)
class Workload:
    dispatch_id: str
    command: str  # may contain {width}
    env: dict[str, str] = field(default_factory=dict)
    sharded: bool = False  # the phase declares a shardable axis: NUM_SHARDS follows the width

    def command_at(self, width: int) -> str:
        """The launch command at the realized width."""
        return self.command.replace("{width}", str(width))

    def env_at(self, width: int, visible_devices: bool = False) -> dict[str, str]:
        """The workload's environment at the realized width. `visible_devices`
        sets CUDA_VISIBLE_DEVICES for backends that do not (SLURM does)."""
        env = {**self.env, "WIDTH": str(width), "WL_DISPATCH_ID": self.dispatch_id}
        if self.sharded:
            env["NUM_SHARDS"] = str(width)
        if visible_devices:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(width))
        return env

    def script_at(self, width: int, visible_devices: bool = False) -> str:
        """A bash script that exports the environment and runs the command."""
        lines = ["#!/bin/bash", "set -o pipefail"]
        for key, value in sorted(self.env_at(width, visible_devices).items()):
            lines.append(f"export {key}={_quote(value)}")
        lines.append(self.command_at(width))
        return "\n".join(lines) + "\n"


def _quote(value: str) -> str:
    if re.fullmatch(r"[\w@%+=:,./-]+", value):
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"


@dataclass
class RungResult:
    outcome: str
    zone: str | None = None
    handle: dict[str, Any] = field(default_factory=dict)  # instance / job id / pod id
    detail: str = ""
    all_gcp_blocked: bool = False  # a GPUS_ALL_REGIONS quota: no GCP rung can launch
