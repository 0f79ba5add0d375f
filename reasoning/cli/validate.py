"""``kgground validate``: check a SPARQL query (ID-level or label-level) against a KB.

Exit status, for CI pipelines that check generated queries: 0 the query is valid (warnings
allowed), 1 errors were found, 2 the check could not run (unreadable input, a KB that
cannot be opened, an endpoint that fails).
"""

from __future__ import annotations

import sys
from pathlib import Path

from contextlib import ExitStack

import click

from reasoning.cli.common import (check_iris, chosen_db, emit_json, json_option,
                                  live_options, not_empty, open_session)

EXIT_VALID, EXIT_ERRORS, EXIT_FAILED = 0, 1, 2


@click.command("validate")
@click.argument("source", metavar="FILE|-", callback=not_empty)
@click.option("--db", metavar="PATH", callback=not_empty,
              help="Mirror file or database URL to check IDs, labels "
              "and patterns against [default: $KGGROUND_DB; with neither --db nor "
              "--endpoint, only what needs no KB is checked].")
@live_options
@click.option("--allow-service", "allowed", multiple=True, metavar="IRI", callback=check_iris,
              help="A SERVICE endpoint the query may call (repeatable); Wikidata's label "
                   "service is always allowed.")
@click.option("--no-kb", is_flag=True, help="Check without a KB (syntax, safety, prefixes, "
              "ID shapes, bindings), even when $KGGROUND_DB is set.")
@json_option
def validate_cmd(source: str, db: str | None, endpoint: str | None, offline: bool,
                 no_cache: bool, allowed: tuple[str, ...], no_kb: bool,
                 as_json: bool) -> None:
    """Check the SPARQL query in FILE (or stdin: -) and print what is wrong, where, and how
    to fix it.

    An error means the query cannot be right against the KB: it does not parse, is an
    update or calls a SERVICE not allowed, uses an undeclared prefix, a malformed or
    unknown ID, a property against its datatype, a placeholder (wd:/label/) naming
    nothing, a triple no statement matches, or projects a variable nothing binds.
    Warnings (a cartesian product, no LIMIT on an open pattern) do not fail the check.

    \b
    Exit status: 0 valid, 1 errors found, 2 could not run.
    Examples:
      kgground validate query.rq --db slice.sqlite
      echo 'SELECT ?x WHERE { wd:/Douglas Adams/ wdt:/employer/ ?x }' | kgground validate - --json
    """
    from kb.base import mirror_of
    from kb.errors import KGGroundError
    from querygen.validate import validate

    try:
        query = _read(source)
        kb, linker = None, None
        with ExitStack() as stack:
            if not no_kb and (chosen_db(db) or endpoint):
                session = stack.enter_context(open_session(db, endpoint, offline, no_cache))
                kb = session.kb
                # suggestions come from a mirror's linking index
                linker = session.linker if mirror_of(kb) is not None else None
            result = validate(query, kb, allowed_services=allowed, linker=linker)
    except (KGGroundError, OSError, UnicodeDecodeError, click.BadParameter) as exc:
        click.echo(f"Error: could not validate: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    if as_json:
        emit_json(result.as_dict())
    else:
        if result.items:
            click.echo(result.report())
        summary = (f"{len(result.errors)} error(s), {len(result.warnings)} warning(s)"
                   + (f" against {result.kb}" if result.kb else " (no KB: IDs and labels "
                      "not checked)"))
        click.echo(("valid: " if result.ok else "invalid: ") + summary)
    sys.exit(EXIT_VALID if result.ok else EXIT_ERRORS)


def _read(source: str) -> str:
    if source == "-":
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
    else:
        path = Path(source)
        if not path.is_file():
            raise click.BadParameter(f"there is no file {source} (pass a file, or - for "
                                     "stdin)", param_hint="FILE")
        data = path.read_bytes()
    if isinstance(data, bytes):
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise click.BadParameter("the query is not UTF-8 text: save it as UTF-8",
                                     param_hint="FILE") from None
    return data
