"""Backends the dispatcher walks: GCP, SLURM, RunPod. Each implements the
`Backend` protocol (router/backends/base.py) and imports its SDK lazily, so a
backend costs nothing until the walk, a check or a sweep reaches it."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from router.backends.base import Backend, Context, DispatchError, Machine

if TYPE_CHECKING:
    from router.ledger import MachineRecord

NAMES = ("gcp", "slurm", "runpod")  # the walk's order; the planner emits rungs in it
# The SDK each cloud backend needs: (module, PyPI package). They live in the
# `dispatch` extra, so a plain install (lint, critic, `plan`) stays light.
SDKS = {"gcp": ("google.cloud.compute_v1", "google-cloud-compute"),
        "runpod": ("runpod", "runpod")}
INSTALL_DISPATCH = "pip install 'width-aware-workflow[dispatch]'"


def require_sdks(names: list[str] | tuple[str, ...], command: str) -> None:
    """One clear line (exit 2) when a backend this command will reach has no
    SDK installed, instead of an ImportError deep in the walk. Looks the
    modules up without importing them (google.cloud.compute_v1 takes ~4 s)."""
    from router.cliutil import UsageError, installed

    missing = [SDKS[name][1] for name in names
               if name in SDKS and not installed(SDKS[name][0])]
    if missing:
        raise UsageError(f"{command} needs {' and '.join(missing)}, in the 'dispatch' extra: "
                         f"{INSTALL_DISPATCH}")


@dataclass(frozen=True)
class Endpoints:
    gcp_project: str | None = None
    gcp_endpoint: str | None = None
    runpod_endpoint: str | None = None
    slurm_output_dir: str | None = None
    skip: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Endpoints:
        """Where dispatch, sweep and check reach the backends, from their flags
        (the project defaults to the environment, as gcloud reads it)."""
        return cls(gcp_project=args.gcp_project or os.environ.get("GOOGLE_CLOUD_PROJECT")
                   or os.environ.get("CLOUDSDK_CORE_PROJECT"),
                   gcp_endpoint=args.gcp_endpoint, runpod_endpoint=args.runpod_endpoint,
                   slurm_output_dir=getattr(args, "slurm_output", None),
                   skip=frozenset(args.skip_backend or ()))


def _gcp(ctx: Context, where: Endpoints) -> Backend:
    from router.backends.gcp import GcpBackend

    if not where.gcp_project:
        raise DispatchError("GCP: no project: pass --gcp-project or set GOOGLE_CLOUD_PROJECT "
                            "(or --skip-backend gcp)")
    return GcpBackend(ctx, where.gcp_project, where.gcp_endpoint)


def _slurm(ctx: Context, where: Endpoints) -> Backend:
    from router.backends.slurm import SlurmBackend

    return SlurmBackend(ctx, where.slurm_output_dir)


def _runpod(ctx: Context, where: Endpoints) -> Backend:
    from router.backends.runpod_backend import RunpodBackend

    return RunpodBackend(ctx, where.runpod_endpoint)


Factory = Callable[[Context, "Endpoints"], Backend]
FACTORIES: Mapping[str, Factory] = {"gcp": _gcp, "slurm": _slurm, "runpod": _runpod}


class Backends:
    """The backends of one command, each built on first use. `factories`
    builds them: the real clouds by default, simulated ones in `simulate`."""

    def __init__(self, ctx: Context, where: Endpoints,
                 factories: Mapping[str, Factory] = FACTORIES) -> None:
        self.ctx = ctx
        self.where = where
        self.factories = factories
        self.built: dict[str, Backend] = {}

    def __getitem__(self, name: str) -> Backend:
        if name not in self.built:
            self.built[name] = self.factories[name](self.ctx, self.where)
        return self.built[name]

    def watch_unanswered(self, records: list[tuple[str, MachineRecord]],
                         names: list[str]) -> None:
        """Requests the ledger says were sent, never answered, and may still
        land (an earlier run's): watch them like this run's own."""
        now = time.time()
        for dispatch_id, record in records:
            if record.state == "sent" and record.lands_by > now and record.backend in names:
                self[record.backend].watch(Machine(record.backend, record.key, record.handle,
                                                   dispatch_id=dispatch_id), record.lands_by)
