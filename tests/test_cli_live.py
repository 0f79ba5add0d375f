"""The --endpoint/--offline/--no-cache options (reasoning.cli.common), on a command built the
way the read commands of reasoning/cli/read.py use them."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from reasoning.cli.common import db_option, endpoint_url, fail_clearly, live_options
from reasoning.cli.common import open_kb as open_kb_with


@click.command()
@click.argument("id")
@db_option
@live_options
@fail_clearly
def show(id: str, db: str | None, endpoint: str | None, offline: bool, no_cache: bool) -> None:
    base = open_kb_with(db, endpoint, offline, no_cache)
    click.echo(f"{base.entity(id).label()} [{type(base).__name__}]")


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    for var in ("KGGROUND_DB", "KGGROUND_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)


def test_what_the_options_open(demo_mirror_path):
    db = str(demo_mirror_path)
    assert isinstance(open_kb_with(db, None), MirrorKB)
    both = open_kb_with(db, "http://127.0.0.1:9/sparql", offline=True, no_cache=True)
    assert isinstance(both, FallbackKB) and both.offline and both.live.cache is None
    alone = open_kb_with(None, "wikidata", no_cache=True)
    assert isinstance(alone, SparqlEndpointKB)
    assert alone.url == "https://query.wikidata.org/sparql"
    with pytest.raises(click.UsageError, match="--offline with --endpoint and no mirror"):
        open_kb_with(None, "http://127.0.0.1:9/sparql", offline=True)
    with pytest.raises(click.BadParameter):
        endpoint_url("ftp://example.org/sparql")


def test_offline_reports_a_miss_clearly(demo_mirror_path):
    result = CliRunner().invoke(show, ["Q123456789", "--db", str(demo_mirror_path),
                                       "--endpoint", "http://127.0.0.1:9/sparql", "--offline"])
    assert result.exit_code == 1
    assert "live endpoint is off: offline mode (--offline)" in result.output


def test_endpoint_behind_a_mirror_and_alone(virtuoso, demo_mirror_path, tmp_path, monkeypatch):
    url, _ = virtuoso        # without a graph, Virtuoso answers over all its graphs
    monkeypatch.setenv("KGGROUND_SPARQL_CACHE", str(tmp_path / "cache.sqlite"))
    copy = tmp_path / "demo.sqlite"
    copy.write_bytes(demo_mirror_path.read_bytes())
    runner = CliRunner()
    result = runner.invoke(show, ["Q937", "--db", str(copy), "--endpoint", url])
    assert result.output == "Albert Einstein [FallbackKB]\n"    # the demo mirror has it
    result = runner.invoke(show, ["Q9531", "--db", str(copy), "--offline"])
    assert result.exit_code == 1 and "live endpoint is off" not in result.output
    result = runner.invoke(show, ["Q9531", "--db", str(copy), "--endpoint", url])
    assert result.output == "BBC [FallbackKB]\n"                # fetched and written back
    result = runner.invoke(show, ["Q9531", "--db", str(copy), "--offline"])
    assert result.output == "BBC [MirrorKB]\n"
    result = runner.invoke(show, ["Q31", "--endpoint", url, "--no-cache"])
    assert result.output == "Belgium [SparqlEndpointKB]\n"
    result = runner.invoke(show, ["Q999999999", "--endpoint", url])
    assert result.exit_code == 1 and "Q999999999 is not in sparql:" in result.output
    monkeypatch.setenv("KGGROUND_ENDPOINT", url)
    assert runner.invoke(show, ["Q31"]).output == "Belgium [SparqlEndpointKB]\n"
