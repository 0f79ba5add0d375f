"""``kgground link``: entity linking of a text, or grounding of a label-level query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from reasoning.cli.common import (check_lang, check_text, db_option, emit_json,
                                  fail_clearly, finite, json_option, open_session)

if TYPE_CHECKING:
    from linking import EntityLinker


@click.command("link")
@click.argument("text", callback=check_text)
@db_option
@click.option("--lang", default="en", show_default=True, callback=check_lang,
              help="Language of TEXT; labels in it are preferred and shown.")
@click.option("--top", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Candidates to show per mention (or per query slot).")
@click.option("--embeddings/--no-embeddings", default=None,
              help="Rank entities as well as properties by semantic similarity with "
              "all-MiniLM-L6-v2 / use it for nothing. Default: properties only, when "
              "'kgground[embeddings]' is installed.")
@click.option("--min-confidence", default=0.0, show_default=True, callback=finite,
              type=click.FloatRange(0.0, 1.0),
              help="Hide detected mentions whose best candidate is less likely than this.")
@json_option
def link_cmd(text: str, db: str | None, lang: str, top: int, embeddings: bool | None,
             min_confidence: float, as_json: bool) -> None:
    """Find the entities TEXT mentions, with ranked candidates and the reasons.

    TEXT is a question or sentence ("Where is Delta Airlines based?"), or a label-level
    query as Chain of Knowledge writes them, which is grounded to IDs instead:

        kgground link "wd:/Delta Air Lines/ wdt:/house publication/ ?obj"

    Every candidate shows its confidence: the calibrated probability that it is the entity
    meant; each mention also shows the probability that none of its candidates is.
    Nothing is hidden for a low confidence (--min-confidence hides mentions below it).

    The first run on a mirror builds the linking index beside it (10-20 s for a
    180k-entity mirror; it says so), or in your cache folder when the mirror's folder is
    read-only; later runs reuse it.
    """
    fail_clearly(_link)(text, db, lang, top, embeddings, min_confidence, as_json)


def _link(text: str, db: str | None, lang: str, top: int, embeddings: bool | None,
          min_confidence: float, as_json: bool) -> None:
    # a first use builds the linking index: the command line says so (``console``)
    with open_session(db, embeddings=embeddings) as session:
        _link_with(session.linker, text, lang, top, min_confidence, as_json)


def _link_with(linker: EntityLinker, text: str, lang: str, top: int, min_confidence: float,
               as_json: bool) -> None:
    from linking.grounding import ground, is_label_query

    if is_label_query(text):
        grounded = ground(linker, text, lang=lang, top=top)
        if as_json:
            emit_json(grounded.as_dict())
        else:
            _print_grounded(grounded)
        return
    result = linker.link(text, lang=lang, top=top, min_confidence=min_confidence)
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.mentions:
        click.echo(f"no entity mention found in {text!r}", err=True)
    for lm in result.mentions:
        m = lm.mention
        click.echo(f"{m.text!r} [{m.start}:{m.end}]" + ("  (ambiguous)" if lm.ambiguous else "")
                   + f"  none of these: {lm.nil:.0%}")
        for c in lm.candidates:
            _print_candidate(c)
        click.echo(f"  why: {lm.why()}")


def _print_candidate(c: Any) -> None:
    how = f"{c.match} {c.matched!r}" + (f"@{c.lang}" if c.lang else "")
    conf = f"{c.confidence:4.0%} " if c.confidence is not None else ""
    click.echo(f"  {c.id:<12} {conf}{c.score:6.3f}  {c.label}"
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
