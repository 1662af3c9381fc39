"""The ledger tests' backends: a fresh SQLite file, or a fresh schema on the
real PostgreSQL server that `.ci/postgres-up` starts (WL_TEST_POSTGRES names
it; default postgresql://wl@127.0.0.1:5433/wl_test). Without that server the
PostgreSQL tests skip, and a skip is a failure in CI (WL_NO_SKIPS=1)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

PG_URL = os.environ.get("WL_TEST_POSTGRES", "postgresql://wl@127.0.0.1:5433/wl_test")
PG_PASSWORD_ROLE = ("wl_pw", "wl-test-password")  # .ci/postgres-up's password-only role


def pg_problem() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (pip install -e '.[dev]')"
    try:
        psycopg.connect(PG_URL, connect_timeout=5).close()
    except psycopg.Error as exc:
        return f"no PostgreSQL at {PG_URL} (bash .ci/postgres-up): {str(exc).splitlines()[0]}"
    return None


def with_schema(url: str, schema: str) -> str:
    """The URL with search_path set to schema: each test its own tables."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={schema}"))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


@contextmanager
def pg_schema() -> Iterator[str]:
    """A fresh, empty schema on the test server (dropped afterwards): its URL."""
    problem = pg_problem()
    if problem:
        pytest.skip(problem)
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_schema(PG_URL, schema)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@contextmanager
def ledger_setting(kind: str, tmp_path: Path, *, initialized: bool = True) -> Iterator[str]:
    """A setting (path or URL) for an empty ledger of this kind; `initialized`
    runs `ledger init` first (a new SQLite file needs none)."""
    if kind == "sqlite":
        yield str(tmp_path / f"ledger-{uuid.uuid4().hex[:6]}.sqlite")
        return
    with pg_schema() as url:
        if initialized:
            from router.ledger import open_ledger

            ledger = open_ledger(url, check=False)
            ledger.migrate(create=True)
            ledger.close()
        yield url
