"""``kgground mirror``: build and inspect a local mirror (load, stats, reindex)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from reasoning.cli.common import (check_langs, csv_set, db_option, emit_json,
                                  fail_clearly, json_option, not_empty, resolve_db, target_db)
from reasoning.cli.console import interrupted


def _check_date(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--dump-date: a calendar date written YYYY-MM-DD."""
    import datetime as dt
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date written YYYY-MM-DD "
                                 "(e.g. 2024-02-03)") from None


@click.group()
def mirror() -> None:
    """Build and inspect a local mirror."""


@mirror.command("load")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False),
                callback=not_empty)
@click.option("--db", metavar="PATH", callback=not_empty,
              help="Mirror to load into (created if missing) "
              "[default: $KGGROUND_DB; one of them is needed: the demo mirror is never "
              "loaded into].")
@click.option("--languages", metavar="CODES", callback=check_langs,
              help="Keep only these languages, e.g. en,de,fr.")
@click.option("--properties", metavar="PIDS", callback=not_empty,
              help="Keep only statements of these "
              "properties, e.g. P31,P69,P108.")
@click.option("--entities", "entity_file", type=click.Path(exists=True, dir_okay=False),
              help="Keep only the entities listed in this file (one ID per line).")
@click.option("--strict", is_flag=True, help="Stop at the first malformed record "
              "(what came before it stays loaded).")
@click.option("--force", is_flag=True, help="Load again files already loaded.")
@click.option("--dump-date", metavar="YYYY-MM-DD", callback=_check_date,
              help="The dump's date, for citations [default: from the file name when it "
                   "has one].")
@click.option("--allow-network", is_flag=True, help="Let parsers fetch what a file refers "
              "to on the network (a JSON-LD @context URL); without it such a file is refused.")
@json_option
@fail_clearly
def mirror_load(files: tuple[str, ...], db: str | None, languages: str | None,
                properties: str | None, entity_file: str | None, strict: bool, force: bool,
                dump_date: str | None, allow_network: bool, as_json: bool) -> None:
    """Load Wikidata JSON dumps, N-Triples or other RDF FILES into the mirror --db.

    \b
        kgground mirror load my-kb.ttl --db my-kb.sqlite
        kgground mirror load latest-all.json.bz2 --db wikidata.sqlite --languages en,de

    Files may be plain or compressed (.gz, .bz2, .xz). Loading is idempotent and
    resumable: a file already loaded is skipped, and an interrupted load (Ctrl-C, a full
    disk) continues where it stopped when the same command is run again. --db (or
    $KGGROUND_DB) is needed: the demo mirror that commands read without one is never
    loaded into.
    """
    from store.ingest import Filters, load
    from store.mirror import Mirror
    from store.vocab import check_id

    target = target_db(db, example=Path(files[0]).name)
    entity_ids = None
    if entity_file:
        entity_ids = _entity_list(entity_file)
    props = csv_set(properties)
    for pid in props or ():
        check_id(pid, kinds="P", allow_iri=False, what="a property ID")
    filters = Filters(languages=csv_set(languages), properties=props, entities=entity_ids)
    reports = []
    with Mirror(target, create=True) as m:
        for file in files:
            try:
                report = load(m, file, filters=filters, strict=strict, force=force,
                              progress=sys.stderr.isatty() and not as_json,
                              dump_date=dump_date, allow_network=allow_network)
            except KeyboardInterrupt:
                interrupted(f"while loading {file}; what was committed is kept. Run the "
                            "same command again to resume.")
            reports.append(report.as_dict())
            if not as_json:
                _print_load_report(report)
        unnamed = m.unnamed_properties()
    if unnamed:
        click.echo(unnamed_note(unnamed, target), err=True)
    if as_json:
        emit_json({"mirror": target, "loads": reports, "unnamed_properties": unnamed})


def unnamed_note(unnamed: list[str], db: str) -> str:
    """What to say about properties the mirror's statements use without a label (a dump
    without its property entities), and how to add their labels."""
    shown = ", ".join(unnamed[:5]) + (", …" if len(unnamed) > 5 else "")
    return (f"Note: {len(unnamed):,} propert{'y' if len(unnamed) == 1 else 'ies'} the "
            f"statements use {'has' if len(unnamed) == 1 else 'have'} no label in this "
            f"mirror ({shown}): the files loaded do not hold these property entities (a "
            "partial dump?). Listings then show property IDs, and questions cannot name "
            "these properties, so answers are worse. To add the labels, load the property "
            "entities (their JSON from a full dump or from "
            "https://www.wikidata.org/wiki/Special:EntityData/P31.json, one file per "
            f"property): kgground mirror load P31.json … --db {db}; or let commands ask a "
            f"live endpoint for them: --db {db} --endpoint wikidata (the labels fetched are "
            "kept in the mirror).")


def _entity_list(path: str) -> set[str]:
    """The IDs of an --entities file: one a line, at least one."""
    from store.vocab import check_id

    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise click.BadParameter(f"{path} is not UTF-8 text: list one entity ID a line "
                                 "(Q42)", param_hint="--entities") from None
    ids = {check_id(line.strip(), allow_iri=False) for line in text.splitlines()
           if line.strip()}
    if not ids:
        raise click.BadParameter(f"{path} lists no entity ID: write one a line (Q42)",
                                 param_hint="--entities")
    return ids


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
    for line in r.warnings:
        click.echo(f"  {line}", err=True)


@mirror.command("stats")
@db_option
@json_option
@fail_clearly
def mirror_stats(db: str | None, as_json: bool) -> None:
    """Counts of entities, statements, labels and properties, and the loaded sources."""
    from store.mirror import Mirror

    with Mirror(resolve_db(db)) as m:
        stats = m.stats()
        stats["unnamed_properties"] = m.unnamed_properties()
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
               f"({stats['properties_with_datatype']:,} with a datatype)"
               + (f"; {len(stats['unnamed_properties']):,} used without a label"
                  if stats["unnamed_properties"] else ""))
    for s in stats["sources"]:
        click.echo(f"source      {s['location']} [{s['format']}, {s['status']}, "
                   f"loaded {s['loaded_at']}" + (f", dump {s['dump_date']}" if s["dump_date"]
                                                 else "") + "]")


@mirror.command("reindex")
@db_option
@fail_clearly
def mirror_reindex(db: str | None) -> None:
    """Rebuild the label index (after an upgrade changed how labels are normalized)."""
    from store.locks import writing
    from store.mirror import Mirror

    with Mirror(resolve_db(db)) as m, writing(m, "reindex"):
        n = m.reindex_labels()
    click.echo(f"reindexed {n:,} labels and aliases")


@mirror.command("check")
@db_option
@json_option
@fail_clearly
def mirror_check(db: str | None, as_json: bool) -> None:
    """Check the mirror's integrity: the database file (SQLite's quick check) and the
    label index against the labels. Exit code 1 when something is wrong."""
    from store.mirror import Mirror
    from store.writer import label_index_problem

    with Mirror(resolve_db(db)) as m:
        problems = []
        if m.is_sqlite:
            problems += [row[0] for row in m.query("PRAGMA quick_check") if row[0] != "ok"]
        index = label_index_problem(m)
        problems += [index] if index else []
        location = m.location
    if as_json:
        emit_json({"mirror": location, "ok": not problems, "problems": problems})
    else:
        click.echo(f"{location}: " + ("ok" if not problems else "PROBLEMS FOUND"))
        for problem in problems:
            click.echo(f"  {problem}", err=True)
        if problems:
            click.echo("  Fix: rebuild the mirror from its source files (or `kgground "
                       "mirror reindex` when only the label index is wrong)", err=True)
    if problems:
        sys.exit(1)
