"""Shared fixtures: real mirrors on disk, the shared data folder, the Virtuoso endpoint,
a PostgreSQL server.

Data from ../shared/data is never copied into the project; tests that need it skip with a
reason when it is absent. Mirrors built from it are built once per test session.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from store.demo import DEMO_KB
from store.ingest import load
from store.mirror import Mirror

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))
SLICE = SHARED_DATA / "wikidata" / "trex-slice.nt.gz"
DUMP_SAMPLE = SHARED_DATA / "wikidata" / "dump-sample-100.json.bz2"


def shared_file(relative: str) -> Path:
    """A file under ../shared/data, or a skip saying it is absent."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"{path} is absent (shared test data is not in this checkout)")
    return path


def _build_mirror(factory: pytest.TempPathFactory, name: str, source: Path) -> Path:
    path = factory.mktemp(name) / f"{name}.sqlite"
    with Mirror(path, create=True) as mirror:
        load(mirror, source)
    return path


@pytest.fixture(scope="session")
def demo_mirror_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror built from the bundled demo KB (read-only for tests: copy it to modify)."""
    return _build_mirror(tmp_path_factory, "demo", DEMO_KB)


@pytest.fixture(scope="module")
def demo_kb_copy(demo_mirror_path: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[Any]:
    """The demo KB opened from a private copy of its mirror, one per test module (linking
    builds its sidecar beside the file it opens); closed after the module."""
    path = tmp_path_factory.mktemp("demo-copy") / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    import kb
    base = kb.open(path)
    yield base
    base.close()


@pytest.fixture(scope="session")
def slice_mirror_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror of the T-REx Wikidata slice (about 10 s to build, once per session)."""
    return _build_mirror(tmp_path_factory, "slice", shared_file("wikidata/trex-slice.nt.gz"))


@pytest.fixture(scope="session")
def dump_mirror_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror of the 100-entity JSON dump sample."""
    return _build_mirror(tmp_path_factory, "dump",
                         shared_file("wikidata/dump-sample-100.json.bz2"))


class LoopbackEndpoint:
    """kgground's own SPARQL server on a loopback port, serving a KB: a live endpoint that
    runs on every machine. ``asked()`` counts the queries it was sent."""

    def __init__(self, server: Any, log: io.StringIO) -> None:
        self.server, self.log, self.url = server, log, server.url

    def asked(self) -> int:
        return sum('"GET ' in line or '"POST ' in line
                   for line in self.log.getvalue().splitlines())


@pytest.fixture(scope="module")
def demo_endpoint(demo_mirror_path: Path) -> Iterator[LoopbackEndpoint]:
    """The demo KB served over SPARQL on loopback (Wikidata's layout: wd:, wdt:, labels)."""
    from kb.mirror import MirrorKB
    from kb.sparql_server import running_server

    base = MirrorKB(demo_mirror_path)
    log = io.StringIO()
    with running_server(base, log=log) as server:
        yield LoopbackEndpoint(server, log)
    base.close()


@pytest.fixture(scope="session")
def virtuoso() -> tuple[str, str]:
    """(endpoint URL, graph IRI) of the Virtuoso that .ci/run starts with the slice loaded.
    In CI its absence is a failure; elsewhere a skip (start it: bash .ci/virtuoso.sh)."""
    url = os.environ.get("KGGROUND_VIRTUOSO_URL")
    if not url:
        if os.environ.get("CI") and not os.environ.get("KGGROUND_NO_VIRTUOSO"):
            pytest.fail("KGGROUND_VIRTUOSO_URL is not set: .ci/run should have started Virtuoso")
        pytest.skip("no Virtuoso running (start one: bash .ci/virtuoso.sh start DIR FILE, "
                    "then source DIR/env)")
    return url, os.environ.get("KGGROUND_VIRTUOSO_GRAPH", "http://kgground.test/slice")


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """URL of the PostgreSQL server .ci/run starts (a maintenance database on it). In CI
    its absence is a failure; elsewhere a skip (start one: bash .ci/postgres.sh)."""
    url = os.environ.get("KGGROUND_POSTGRES_URL")
    if not url:
        if os.environ.get("CI") and not os.environ.get("KGGROUND_NO_POSTGRES"):
            pytest.fail("KGGROUND_POSTGRES_URL is not set: .ci/run should have started "
                        "PostgreSQL")
        pytest.skip("no PostgreSQL running (start one: bash .ci/postgres.sh start DIR, "
                    "then source DIR/env)")
    pytest.importorskip("psycopg", reason="the PostgreSQL driver is not installed: "
                                          "pip install 'kgground[postgres]'")
    return url


@pytest.fixture
def postgres_database(postgres_server: str):
    """URL of a fresh, empty database on the test server, dropped afterwards."""
    import uuid

    import psycopg
    from sqlalchemy.engine import make_url
    name = f"kgground_test_{uuid.uuid4().hex[:12]}"
    admin = make_url(postgres_server)
    with psycopg.connect(host=admin.host, port=admin.port, user=admin.username,
                         dbname=admin.database, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield admin.set(database=name).render_as_string(hide_password=False)
    with psycopg.connect(host=admin.host, port=admin.port, user=admin.username,
                         dbname=admin.database, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def run(tmp_path, monkeypatch):
    """``run("entity", "Q42")``: the kgground command line, in-process, with neither
    KGGROUND_DB nor the user's default mirror: the default lives under ``tmp_path``."""
    from click.testing import CliRunner

    from reasoning.cli import cli
    monkeypatch.setenv("KGGROUND_DEFAULT_DB", str(tmp_path / "cache" / "mirror.sqlite"))
    monkeypatch.delenv("KGGROUND_DB", raising=False)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, list(args), catch_exceptions=False)
    return invoke


# -- a runaway test ends the run with its name and stacks, not with the OOM killer ----------

#: resident bytes past which the test run stops (KGGROUND_TEST_MAX_RSS_GB overrides)
MAX_RSS = int(float(os.environ.get("KGGROUND_TEST_MAX_RSS_GB", "10")) * (1 << 30))
_running_test = ["(collecting)"]


def _watch_memory(config: pytest.Config) -> None:
    """Every second, the process's resident memory; past MAX_RSS, print the running test
    and every thread's stack, and end the run (a query left running in a background thread
    once grew the run to 23 GB, and the kernel killed it without a word)."""
    import faulthandler
    import sys
    import time

    page = os.sysconf("SC_PAGE_SIZE")
    while True:
        time.sleep(1.0)
        try:
            with open("/proc/self/statm", "rb") as f:
                resident = int(f.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            return
        if resident > MAX_RSS:
            capture = config.pluginmanager.getplugin("capturemanager")
            if capture is not None:         # write to the terminal, not a capture file
                capture.suspend_global_capture(in_=False)
            sys.stderr.write(f"\nthe test run holds {resident / (1 << 30):.1f} GiB, past "
                             f"{MAX_RSS / (1 << 30):.1f} GiB, during {_running_test[0]}; "
                             "every thread's stack:\n")
            faulthandler.dump_traceback(all_threads=True)
            sys.stderr.flush()
            os._exit(3)


def pytest_sessionstart(session: pytest.Session) -> None:
    import threading
    threading.Thread(target=_watch_memory, args=(session.config,), name="test-memory-watch",
                     daemon=True).start()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    _running_test[0] = item.nodeid


@pytest.fixture
def script(tmp_path: Path) -> str:
    """A script for ``scripted:`` models (``reasoning.llm.scripted``) that answers "Paris"
    in every wording and language and says True to every check: a model that agrees
    with itself (the gate tests' and the session tests' model)."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"Rewrite the question": "Where is it?",
                                "Translate the question": "请问：在哪里？",
                                "Reply with True or False": "True",
                                "Question:": "Paris"}))
    return str(path)
