"""Backends the dispatcher walks: GCP, SLURM, RunPod. Each implements the
`Backend` protocol (router/backends/base.py) and imports its SDK lazily, so a
backend costs nothing until the walk, a check or a sweep reaches it."""

from __future__ import annotations

from dataclasses import dataclass, field

from router.backends.base import Backend, Context, DispatchError

NAMES = ("gcp", "slurm", "runpod")  # the walk's order; the planner emits rungs in it


@dataclass(frozen=True)
class Endpoints:
    gcp_project: str | None = None
    gcp_endpoint: str | None = None
    runpod_endpoint: str | None = None
    slurm_output_dir: str | None = None
    skip: frozenset[str] = field(default_factory=frozenset)


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


FACTORIES = {"gcp": _gcp, "slurm": _slurm, "runpod": _runpod}


class Backends:
    """The backends of one command, each built on first use."""

    def __init__(self, ctx: Context, where: Endpoints) -> None:
        self.ctx = ctx
        self.where = where
        self.built: dict[str, Backend] = {}

    def __getitem__(self, name: str) -> Backend:
        if name not in self.built:
            self.built[name] = FACTORIES[name](self.ctx, self.where)
        return self.built[name]
