import os
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files instead of comparing against them")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture
def emulator_factory(tmp_path: Path):
    """Start `backend-router emulator` processes (capacity, then any fault
    flags); every one started is stopped after the test."""
    from tests.dispatch_support import EmulatorProcess

    started: list[EmulatorProcess] = []

    def start(capacity: dict, *flags: str) -> EmulatorProcess:
        emu = EmulatorProcess(tmp_path, capacity, *flags)
        started.append(emu)
        return emu

    yield start
    for emu in started:
        emu.close()


# CI sets WL_NO_SKIPS=1 (.ci/run): there, a test that skips because a real part
# (the SLURM cluster, an SDK) is missing is a failure, never a quiet pass.
_NO_SKIPS = os.environ.get("WL_NO_SKIPS") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    report = outcome.get_result()
    if _NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under WL_NO_SKIPS=1 (CI must run every test): {reason}"
