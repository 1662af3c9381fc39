"""`backend-router ledger` and the ledger as dispatch and sweep use it, on
both backends, as a user runs them (subprocesses): a dispatch is recorded
and exported; a rerun from another "host" adopts and sweeps what the first
created; an unreachable, uninitialized or mismatched ledger is exit 2 before
the first attempt; the password never comes from the config nor shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from router.ledger import open_ledger
from router.ledger_schema import SCHEMA_VERSION
from tests.dispatch_support import SMALL_LADDER, EmulatorProcess, quotas
from tests.ledger_support import PG_PASSWORD_ROLE, PG_URL, ledger_setting, pg_schema

ROOT = Path(__file__).resolve().parents[1]
EIGHT_WIDE = {"us-central1-a": {"a2-ultragpu-8g": {"SPOT": 1}},
              "us-central1-c": {"a2-ultragpu-8g": {"SPOT": 1}}}


@pytest.fixture(params=["sqlite", "postgresql"])
def setting(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with ledger_setting(request.param, tmp_path) as value:
        yield value


@pytest.fixture
def emulator(emulator_factory):
    return emulator_factory


def env_for(tmp_path: Path, setting: str | None, host: str = "host-a", **extra: str
            ) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "BACKEND_ROUTER_LEDGER"}
    env.update({"XDG_STATE_HOME": str(tmp_path / host / "state"), "BACKEND_ROUTER_HOST": host,
                "PYTHONPATH": str(ROOT), "RUNPOD_API_KEY": "rpa_LEDGERKEY0123456789"})
    if setting is not None:
        env["BACKEND_ROUTER_LEDGER"] = setting
    env.update(extra)
    return env


def router(*args: str, env: dict[str, str], cwd: Path | None = None
           ) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "router", *args], capture_output=True,
                            text=True, timeout=120, env=env, cwd=cwd or ROOT)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def dispatch_argv(emu: EmulatorProcess, *extra: str, ladder: Path = SMALL_LADDER) -> list[str]:
    return ["dispatch", "--ladder", str(ladder), "--intent", "capture-7b", "--gpu-count", "8",
            "--hours", "1", "--gcp-project", "proj", "--gcp-endpoint", emu.url,
            "--runpod-endpoint", emu.url, "--skip-backend", "slurm", *extra]


def events_of(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


# ---- dispatch and sweep write it; history, cap and export read it ---------------------------


def test_a_dispatch_is_recorded_and_read_back(emulator, setting: str, tmp_path: Path) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    env = env_for(tmp_path, setting)
    run = router(*dispatch_argv(emu, "--dispatch-id", "rec1", "--", "true"), env=env)
    assert run.returncode == 0, run.stderr
    events = events_of(run.stdout)
    attempts = [e for e in events if e["event"] == "epm:backend-attempt"]
    [selected] = [e for e in events if e["event"] == "epm:backend-selected"]

    history = router("ledger", "history", "--format", "json", env=env)
    assert history.returncode == 0, history.stderr
    [row] = json.loads(history.stdout)["dispatches"]
    assert (row["dispatch_id"], row["attempts"], row["exit"], row["host"]) == \
        ("rec1", len(attempts), 0, "host-a")
    assert row["request"] == {"intent": "capture-7b", "width": 8, "hours": 1.0}
    assert row["selected"]["zone"] == selected["zone"] and row["duration_seconds"] >= 0
    text = router("ledger", "history", env=env).stdout
    assert text.splitlines()[0].split()[:2] == ["DISPATCH", "STARTED"]
    assert "rec1" in text and "capture-7b 8x 1.0h" in text and "a2-ultragpu-8g" in text

    cap = router("ledger", "cap", "--format", "json", "--ladder", str(SMALL_LADDER), env=env)
    assert json.loads(cap.stdout)["dispatch_ids"] == ["rec1"]
    assert json.loads(cap.stdout)["cap"] == 1000  # the ladder's gcp_attempt_cap_per_day
    assert "1000" in router("ledger", "cap", "--ladder", str(SMALL_LADDER), env=env).stdout

    lines = [json.loads(x) for x in router("ledger", "export", env=env).stdout.splitlines()]
    assert [x["kind"] for x in lines] == ["dispatch"] + ["attempt"] * len(attempts)
    assert [(x["outcome"], x["zone"]) for x in lines[1:]] == \
        [(a["outcome"], a["zone"]) for a in attempts]
    assert all(list(x) == sorted(x) for x in map(json.loads, router(
        "ledger", "export", "--format", "json", env=env).stdout.splitlines()))


def test_a_rerun_from_another_host_adopts_and_a_sweep_is_recorded(emulator, tmp_path: Path
                                                                  ) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    with ledger_setting("postgresql", tmp_path) as url:
        first = router(*dispatch_argv(emu, "--dispatch-id", "hop1", "--", "true"),
                       env=env_for(tmp_path, url, "host-a"))
        assert first.returncode == 0, first.stderr
        env_b = env_for(tmp_path, url, "host-b")
        again = router(*dispatch_argv(emu, "--dispatch-id", "hop1", "--", "true"), env=env_b,
                       cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        [adopted] = [e for e in events_of(again.stdout) if e["event"] == "epm:backend-selected"]
        assert adopted.get("rerun") is True  # host-b found host-a's machine in the ledger
        sweep = router("sweep", "--dispatch-id", "hop1", "--all", "--ladder", str(SMALL_LADDER),
                       "--gcp-project", "proj", "--gcp-endpoint", emu.url, "--runpod-endpoint",
                       emu.url, "--skip-backend", "slurm", "--format", "json", env=env_b)
        assert sweep.returncode == 0, sweep.stderr
        assert emu.state()["instances"] == []
        ledger = open_ledger(url)
        try:
            [swept] = ledger.sweeps()
            [row] = ledger.history()
        finally:
            ledger.close()
        assert (swept["dispatch_id"], swept["released"], swept["host"]) == ("hop1", 1, "host-b")
        assert row["host"] == "host-b" and row["exit"] == 0


# ---- init, upgrade and the version check ----------------------------------------------------


def test_init_and_upgrade_on_postgresql(tmp_path: Path) -> None:
    with pg_schema() as url:
        env = env_for(tmp_path, url)
        before = router("ledger", "history", env=env)
        assert before.returncode == 2
        assert before.stderr.strip().endswith("no ledger here yet: run `backend-router ledger "
                                              "init`")
        assert router("ledger", "upgrade", env=env).returncode == 2
        init = router("ledger", "init", env=env)
        assert init.returncode == 0 and f"created at schema version {SCHEMA_VERSION}" in \
            init.stdout
        assert "already at schema version" in router("ledger", "init", env=env).stdout
        assert "already at schema version" in router("ledger", "upgrade", env=env).stdout
        assert router("ledger", "history", env=env).returncode == 0


def test_dispatch_refuses_a_ledger_that_does_not_match(emulator, tmp_path: Path) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    with pg_schema() as url:
        run = router(*dispatch_argv(emu, "--", "true"), env=env_for(tmp_path, url))
        assert run.returncode == 2 and run.stderr.count("\n") == 1
        assert "run `backend-router ledger init`" in run.stderr
        assert [e["event"] for e in events_of(run.stdout)] == ["epm:backend-error"]
    old = tmp_path / "old.sqlite"
    import sqlite3

    with sqlite3.connect(old) as db:
        db.execute("CREATE TABLE leases (dispatch_id TEXT PRIMARY KEY)")
    run = router(*dispatch_argv(emu, "--", "true"), env=env_for(tmp_path, str(old)))
    assert run.returncode == 2 and "run `backend-router ledger upgrade`" in run.stderr
    assert emu.state()["instances"] == []


# ---- fail closed ----------------------------------------------------------------------------


def test_an_unreachable_ledger_stops_dispatch_before_its_first_attempt(emulator,
                                                                        tmp_path: Path) -> None:
    emu = emulator({"gce": {"zones": EIGHT_WIDE, "quotas": quotas()}})
    env = env_for(tmp_path, "postgresql://wl:hunter2@127.0.0.1:1/ledger")
    run = router(*dispatch_argv(emu, "--", "true"), env=env)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1, run.stderr
    assert "cannot connect to 127.0.0.1:1" in run.stderr and "hunter2" not in run.stderr
    events = events_of(run.stdout)
    assert [e["event"] for e in events] == ["epm:backend-error"]
    assert "hunter2" not in run.stdout
    assert emu.state()["instances"] == []
    assert not (tmp_path / "host-a" / "state").exists()  # no silent local ledger


# ---- the config: ledger URL, password, day time zone ----------------------------------------


def ladder_with(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "ladder.yaml"
    path.write_text(SMALL_LADDER.read_text().replace("ledger_path: null\n", "\n".join(lines)
                                                     + "\n"))
    return path


@pytest.mark.parametrize("lines, message", [
    (("ledger: postgresql://wl:pw@db.example/ledger",), "the URL holds a password"),
    (("ledger: postgresql://wl@db.example/ledger?password=pw",), "the URL holds a password"),
    (("ledger: mysql://db.example/ledger",), "unsupported URL scheme"),
    (("ledger: a.sqlite", "ledger_path: b.sqlite"), "give only one"),
    (("ledger_day_timezone: Mars/Olympus",), "unknown time zone"),
    (("ledger_day_timezone: 5",), "expected a non-empty string"),
])
def test_bad_ledger_settings_are_one_line_exit_2(tmp_path: Path, lines: tuple[str, ...],
                                                 message: str) -> None:
    lad = ladder_with(tmp_path, *lines)
    result = router("ledger", "cap", "--ladder", str(lad), env=env_for(tmp_path, None))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr and "pw" not in result.stderr.replace("pwd", "")


def test_the_config_names_the_ledger_and_its_day(tmp_path: Path) -> None:
    with pg_schema() as url:
        open_ledger(url, check=False).migrate(create=True)
        lad = ladder_with(tmp_path, f"ledger: '{url}'", "ledger_day_timezone: Pacific/Kiritimati")
        cap = router("ledger", "cap", "--format", "json", "--ladder", str(lad),
                     env=env_for(tmp_path, None))
        assert cap.returncode == 0, cap.stderr
        assert json.loads(cap.stdout)["timezone"] == "Pacific/Kiritimati"
    old = ladder_with(tmp_path, f"ledger_path: {tmp_path / 'old-name.sqlite'}")
    assert router("ledger", "cap", "--ladder", str(old),
                  env=env_for(tmp_path, None)).returncode == 0
    assert (tmp_path / "old-name.sqlite").exists()  # the old key still names the file


def test_the_password_comes_from_the_environment_or_a_pgpass_file(tmp_path: Path) -> None:
    with pg_schema() as url:
        role, password = PG_PASSWORD_ROLE
        schema = url.split("search_path%3D", 1)[1]
        pw_url = url.replace("://wl@", f"://{role}@", 1)
        import psycopg

        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"GRANT ALL ON SCHEMA {schema} TO {role}")
        nothing = str(tmp_path / "no-pgpass")
        no_password = router("ledger", "init", env=env_for(tmp_path, pw_url, PGPASSFILE=nothing))
        assert no_password.returncode == 2 and no_password.stderr.count("\n") == 1
        assert "no password supplied" in no_password.stderr
        wrong = router("ledger", "init", env=env_for(tmp_path, pw_url, PGPASSWORD="not-it"))
        assert wrong.returncode == 2 and "not-it" not in wrong.stderr
        by_env = router("ledger", "init", env=env_for(tmp_path, pw_url, PGPASSWORD=password))
        assert by_env.returncode == 0, by_env.stderr
        pgpass = tmp_path / "pgpass"
        pgpass.write_text(f"127.0.0.1:*:*:{role}:{password}\n")
        pgpass.chmod(0o600)
        by_file = router("ledger", "cap", env=env_for(tmp_path, pw_url, PGPASSFILE=str(pgpass)))
        assert by_file.returncode == 0, by_file.stderr
