"""The ``kgground`` command line: a thin layer over the library.

Every command calls one library function and turns kgground's errors into clear messages
(exit code 1) instead of tracebacks. Commands that read a KB take ``--db PATH`` (else
``$KGGROUND_DB``, else the default mirror in the user's cache folder, which is built from
the bundled demo KB on first use).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click
import platformdirs

from kb.errors import KGGroundError
from reasoning.cli_live import live_options

DEFAULT_DB = Path(platformdirs.user_cache_dir("kgground")) / "mirror.sqlite"


def default_db() -> Path:
    """The mirror used when neither --db nor $KGGROUND_DB says which."""
    return Path(os.environ.get("KGGROUND_DEFAULT_DB", DEFAULT_DB))


def resolve_db(db: str | None) -> str:
    """--db, else $KGGROUND_DB, else the default mirror (built from the demo KB if new)."""
    chosen = db or os.environ.get("KGGROUND_DB")
    if chosen:
        return chosen
    path = default_db()
    from store.demo import build_demo_mirror, stale_demo_mirror
    if path.exists() and stale_demo_mirror(path):
        click.echo(f"The demo mirror at {path} was built by another kgground version: "
                   "building it again.", err=True)
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    if not path.exists():
        click.echo(f"No mirror configured: building the demo KB (Nobel laureates) at {path}. "
                   "Use --db or KGGROUND_DB to choose another mirror.", err=True)
        build_demo_mirror(path, progress=sys.stderr.isatty())
    return str(path)


def open_kb(db: str | None, endpoint: str | None = None, offline: bool = False,
            no_cache: bool = False) -> Any:
    """The KB the common options describe: the mirror (``resolve_db``), or with
    ``--endpoint`` a live endpoint behind it (see ``reasoning.cli_live``)."""
    from reasoning.cli_live import open_kb_with
    return open_kb_with(db, endpoint, offline, no_cache)


def fail_clearly(fn: Callable) -> Callable:
    """Turn kgground errors into 'Error: …' on stderr and exit code 1."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KGGroundError as exc:
            raise click.ClickException(str(exc)) from exc
    return wrapper


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


db_option = click.option("--db", metavar="PATH", help="Mirror file or database URL "
                         "[default: $KGGROUND_DB, else the demo mirror in the cache folder].")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kgground")
def cli() -> None:
    """kgground: ground LLM answers in Wikidata or your own knowledge graph."""


# -- mirror ---------------------------------------------------------------------------------

@cli.group()
def mirror() -> None:
    """Build and inspect a local mirror."""


def _csv_set(value: str | None) -> set[str] | None:
    return {v.strip() for v in value.split(",") if v.strip()} if value else None


@mirror.command("load")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--db", metavar="PATH", help="Mirror to load into (created if missing) "
              "[default: $KGGROUND_DB, else the default mirror in the cache folder].")
@click.option("--languages", metavar="CODES", help="Keep only these languages, e.g. en,de,fr.")
@click.option("--properties", metavar="PIDS", help="Keep only statements of these "
              "properties, e.g. P31,P69,P108.")
@click.option("--entities", "entity_file", type=click.Path(exists=True, dir_okay=False),
              help="Keep only the entities listed in this file (one ID per line).")
@click.option("--strict", is_flag=True, help="Stop at the first malformed record "
              "(what came before it stays loaded).")
@click.option("--force", is_flag=True, help="Load again files already loaded.")
@click.option("--dump-date", metavar="YYYY-MM-DD", help="The dump's date, for citations "
              "[default: from the file name when it has one].")
@json_option
@fail_clearly
def mirror_load(files: tuple[str, ...], db: str | None, languages: str | None,
                properties: str | None, entity_file: str | None, strict: bool, force: bool,
                dump_date: str | None, as_json: bool) -> None:
    """Load Wikidata JSON dumps, N-Triples or other RDF FILES into a mirror.

    Files may be plain or compressed (.gz, .bz2, .xz). Loading is idempotent and
    resumable: a file already loaded is skipped, and an interrupted load continues where
    it stopped when the same command is run again.
    """
    from store.ingest import Filters, load
    from store.mirror import Mirror
    from store.vocab import check_id

    entity_ids = None
    if entity_file:
        entity_ids = {check_id(line.strip(), allow_iri=False)
                      for line in Path(entity_file).read_text().splitlines() if line.strip()}
    props = _csv_set(properties)
    for pid in props or ():
        check_id(pid, kinds="P", allow_iri=False, what="a property ID")
    filters = Filters(languages=_csv_set(languages), properties=props, entities=entity_ids)
    target = db or os.environ.get("KGGROUND_DB") or str(default_db())
    reports = []
    with Mirror(target, create=True) as m:
        for file in files:
            try:
                report = load(m, file, filters=filters, strict=strict, force=force,
                              progress=sys.stderr.isatty() and not as_json,
                              dump_date=dump_date)
            except KeyboardInterrupt:
                raise click.ClickException(
                    f"interrupted while loading {file}; what was committed is kept. "
                    "Run the same command again to resume.") from None
            reports.append(report.as_dict())
            if not as_json:
                _print_load_report(report)
    if as_json:
        emit_json({"mirror": target, "loads": reports})


def _print_load_report(r: Any) -> None:
    if r.status == "already loaded":
        click.echo(f"{r.path}: already loaded (use --force to load it again)")
        return
    click.echo(f"{r.path}: {r.status} as {r.format} in {r.seconds:.1f} s — "
               f"{r.records:,} records, {r.entities:,} entities, {r.statements:,} statements, "
               f"{r.terms:,} labels/aliases/descriptions, {r.qualifiers:,} qualifiers, "
               f"{r.references:,} references"
               + (f", {r.filtered:,} filtered out" if r.filtered else ""))
    if r.errors:
        click.echo(f"  {r.errors:,} malformed records skipped; the first ones:", err=True)
        for sample in r.error_samples[:10]:
            click.echo(f"  {sample}", err=True)


@mirror.command("stats")
@db_option
@json_option
@fail_clearly
def mirror_stats(db: str | None, as_json: bool) -> None:
    """Counts of entities, statements, labels and properties, and the loaded sources."""
    from store.mirror import Mirror

    with Mirror(resolve_db(db)) as m:
        stats = m.stats()
    if as_json:
        emit_json(stats)
        return
    click.echo(f"mirror      {stats['mirror']}")
    click.echo(f"entities    {stats['entities']:,}  "
               + ", ".join(f"{k} {v:,}" for k, v in sorted(stats["entities_by_kind"].items())))
    click.echo(f"statements  {stats['statements']:,}  (qualifiers {stats['qualifiers']:,}, "
               f"references {stats['references']:,})")
    click.echo(f"terms       {stats['terms']:,}  "
               + ", ".join(f"{k} {v:,}" for k, v in sorted(stats["terms_by_kind"].items()))
               + f"  in {stats['languages']} languages")
    click.echo(f"properties  {stats['properties']:,}  "
               f"({stats['properties_with_datatype']:,} with a datatype)")
    for s in stats["sources"]:
        click.echo(f"source      {s['location']} [{s['format']}, {s['status']}, "
                   f"loaded {s['loaded_at']}" + (f", dump {s['dump_date']}" if s["dump_date"]
                                                 else "") + "]")


@mirror.command("reindex")
@db_option
@fail_clearly
def mirror_reindex(db: str | None) -> None:
    """Rebuild the label index (after an upgrade changed how labels are normalized)."""
    from store.mirror import Mirror

    with Mirror(resolve_db(db)) as m:
        n = m.reindex_labels()
    click.echo(f"reindexed {n:,} labels and aliases")


# -- reading a KB ------------------------------------------------------------------------------

@cli.command("entity")
@click.argument("id")
@db_option
@live_options
@click.option("--lang", default="en", show_default=True, help="Language to show.")
@json_option
@fail_clearly
def entity_cmd(id: str, db: str | None, lang: str, as_json: bool, endpoint: str | None,
               offline: bool, no_cache: bool) -> None:
    """Show an entity's labels, description, aliases and statements."""
    base = open_kb(db, endpoint, offline, no_cache)
    ent = base.entity(id)
    statements = base.statements(ent.id, limit=1000)
    if as_json:
        emit_json({**ent.as_dict(), "statements": [s.as_dict() for s in statements]})
        return
    labels = _labeler(base, lang)
    click.echo(f"{ent.id}  {ent.label(lang)}" + (f" — {ent.description(lang)}"
                                                 if ent.description(lang) else ""))
    if ent.aliases.get(lang):
        click.echo(f"  also known as: {', '.join(ent.aliases[lang])}")
    if ent.datatype:
        click.echo(f"  datatype: {ent.datatype}")
    click.echo(f"  {ent.url}")
    for s in statements:
        click.echo(f"  {s.property} ({labels(s.property)}): {_show_value(s.value, labels)}"
                   + (f"  [{s.rank}]" if s.rank != "normal" else ""))
        for q in s.qualifiers:
            click.echo(f"      {q.property} ({labels(q.property)}): "
                       f"{_show_value(q.value, labels)}")


def _labeler(base: Any, lang: str) -> Callable[[str], str]:
    """A cached ID → label lookup (the ID itself when the KB has no label)."""
    @functools.lru_cache(maxsize=4096)
    def label(id: str) -> str:
        try:
            return base.entity(id).label(lang)
        except KGGroundError:
            return id
    return label


def _show_value(value: Any, labels: Callable[[str], str]) -> str:
    if value.kind == "entity":
        return f"{value.value} ({labels(value.value)})"
    return str(value)


@cli.command("search")
@click.argument("text")
@db_option
@live_options
@click.option("--lang", default="en", show_default=True, help="Language of the text.")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000),
              help="How many candidates.")
@json_option
@fail_clearly
def search_cmd(text: str, db: str | None, lang: str, limit: int, as_json: bool,
               endpoint: str | None, offline: bool, no_cache: bool) -> None:
    """Find entities by label or alias (case, accents and punctuation ignored)."""
    found = open_kb(db, endpoint, offline, no_cache).search(text, lang=lang, limit=limit)
    if as_json:
        emit_json([c.as_dict() for c in found])
        return
    if not found:
        click.echo(f"no entity matches {text!r}", err=True)
    for c in found:
        click.echo(f"{c.id:<12} {c.score:6.3f}  {c.label}"
                   + (f" — {c.description}" if c.description else "")
                   + (f"  (matched {c.match} {c.matched!r}@{c.lang})" if c.matched != c.label
                      else ""))


@cli.command("triples")
@click.option("--subject", "-s", metavar="ID", help="Subject entity, e.g. Q42.")
@click.option("--property", "-p", "prop", metavar="PID", help="Property, e.g. P69.")
@click.option("--value", "-v", metavar="ID", help="Value entity, e.g. Q5.")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 100000),
              help="At most this many statements.")
@db_option
@live_options
@json_option
@fail_clearly
def triples_cmd(subject: str | None, prop: str | None, value: str | None, limit: int,
                db: str | None, as_json: bool, endpoint: str | None, offline: bool,
                no_cache: bool) -> None:
    """The triplet query: statements with any of subject, property, value bound."""
    if not (subject or prop or value):
        raise click.UsageError("bind at least one of --subject, --property, --value")
    base = open_kb(db, endpoint, offline, no_cache)
    found = base.statements(subject, prop, value, limit=limit)
    if as_json:
        emit_json([s.as_dict() for s in found])
        return
    if not found:
        click.echo("no statements match", err=True)
    labels = _labeler(base, "en")
    for s in found:
        click.echo(f"{s.subject} ({labels(s.subject)})  {s.property} ({labels(s.property)})  "
                   f"{_show_value(s.value, labels)}")


# Commands from other modules register here (keep this marker: helpers add lines below it).
# -- more commands --
from reasoning.cli_link import link_cmd  # noqa: E402
cli.add_command(link_cmd)
from reasoning.cli_sparql import sparql_cmd  # noqa: E402
cli.add_command(sparql_cmd)
from reasoning.cli_serve import serve as _serve  # noqa: E402
cli.add_command(_serve)
from reasoning.cli_link import link_cmd  # noqa: E402
cli.add_command(link_cmd)


def main() -> None:
    cli(prog_name="kgground")


if __name__ == "__main__":
    main()
