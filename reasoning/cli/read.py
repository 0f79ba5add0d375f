"""Reading a KB: ``kgground entity``, ``search`` and ``triples``."""

from __future__ import annotations

import functools
from typing import Any, Callable

import click

from kb.base import KnowledgeBase
from kb.errors import KGGroundError
from reasoning.cli.common import (check_lang, check_text, emit_json, fail_clearly,
                                  json_option, kb_options, not_empty, open_session)


@click.command("entity")
@click.argument("id", callback=not_empty)
@kb_options
@click.option("--lang", default="en", show_default=True, callback=check_lang,
              help="Language to show.")
@json_option
@fail_clearly
def entity_cmd(id: str, db: str | None, lang: str, as_json: bool, endpoint: str | None,
               offline: bool, no_cache: bool) -> None:
    """Show an entity's labels, description, aliases and statements."""
    with open_session(db, endpoint, offline, no_cache) as session:
        _show_entity(session.kb, id, lang, as_json)


def _show_entity(base: KnowledgeBase, id: str, lang: str, as_json: bool) -> None:
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
    shown = {ent.label(lang), ent.description(lang), *ent.aliases.get(lang, ())}
    for term in ent.live_terms():
        if term["text"] in shown:
            click.echo(f"  {term['kind']} {term['text']!r}@{term['lang']}: "
                       f"{_live_mark(term['source'], term['retrieved_at'])}")
    for s in statements:
        click.echo(f"  {s.property} ({labels(s.property)}): {_show_value(s.value, labels)}"
                   + (f"  [{s.rank}]" if s.rank != "normal" else "")
                   + (f"  [{_live_mark(s.citation.source, s.citation.retrieved_at)}]"
                      if s.citation is not None and s.citation.live else ""))
        for q in s.qualifiers:
            click.echo(f"      {q.property} ({labels(q.property)}): "
                       f"{_show_value(q.value, labels)}")


def _live_mark(source: str, retrieved_at: str | None) -> str:
    """How a fact read from a live endpoint is marked: where from, and when."""
    return f"live, from {source.removeprefix('sparql:')}" + (
        f" at {retrieved_at}" if retrieved_at else "")


def _labeler(base: KnowledgeBase, lang: str) -> Callable[[str], str]:
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


@click.command("search")
@click.argument("text", callback=check_text)
@kb_options
@click.option("--lang", default="en", show_default=True, callback=check_lang,
              help="Language of the text.")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000),
              help="How many candidates.")
@json_option
@fail_clearly
def search_cmd(text: str, db: str | None, lang: str, limit: int, as_json: bool,
               endpoint: str | None, offline: bool, no_cache: bool) -> None:
    """Find entities by label or alias (case, accents and punctuation ignored)."""
    with open_session(db, endpoint, offline, no_cache) as session:
        found = session.kb.search(text, lang=lang, limit=limit)
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


@click.command("triples")
@click.option("--subject", "-s", metavar="ID", callback=not_empty,
              help="Subject entity, e.g. Q42.")
@click.option("--property", "-p", "prop", metavar="PID", callback=not_empty,
              help="Property, e.g. P69.")
@click.option("--value", "-v", metavar="ID", callback=not_empty, help="Value entity, e.g. Q5.")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 100000),
              help="At most this many statements.")
@kb_options
@json_option
@fail_clearly
def triples_cmd(subject: str | None, prop: str | None, value: str | None, limit: int,
                db: str | None, as_json: bool, endpoint: str | None, offline: bool,
                no_cache: bool) -> None:
    """The triplet query: statements with any of subject, property, value bound."""
    if not (subject or prop or value):
        raise click.UsageError("bind at least one of --subject, --property, --value")
    with open_session(db, endpoint, offline, no_cache) as session:
        _show_triples(session.kb, subject, prop, value, limit, as_json)


def _show_triples(base: KnowledgeBase, subject: str | None, prop: str | None,
                  value: str | None, limit: int, as_json: bool) -> None:
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
