"""``kgground chain``: the evidence chains behind a question, or between two entities, with
exports (JSON, GraphML, DOT) and an interactive page.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kb.errors import KGGroundError

from reasoning.cli.common import (check_lang, check_text, emit_json, fail_clearly,
                                  json_option, kb_options, not_empty, open_session)

if TYPE_CHECKING:
    from reasoning.session import Session


@click.command("chain")
@click.argument("question", required=False, callback=check_text)
@click.option("--from", "source", metavar="ID", callback=not_empty,
              help="Find chains from this entity (ID or IRI) to --to instead of answering "
                   "a question; alone, show its neighbourhood.")
@click.option("--to", "target", metavar="ID", callback=not_empty,
              help="The entity chains from --from lead to.")
@click.option("--entity", "entities", metavar="ID", multiple=True, callback=not_empty,
              help="Start the question's chains from this entity instead of linking the "
                   "question (repeatable).")
@click.option("--hops", type=click.IntRange(1, 4), default=None,
              help="Longest chain, in statements [default: 2 for a question, 3 for --from/--to].")
@click.option("--top", type=click.IntRange(1, 100), default=5, show_default=True,
              help="Chains to keep (the shortlist).")
@click.option("--lang", default="en", show_default=True, callback=check_lang,
              help="Language of the question; labels in it are shown where the KB has them.")
@click.option("--html", "html_file", metavar="FILE", type=click.Path(dir_okay=False),
              callback=not_empty,
              help="Write an interactive page (self-contained, works offline).")
@click.option("--graphml", "graphml_file", metavar="FILE", type=click.Path(dir_okay=False),
              callback=not_empty,
              help="Write the graph as GraphML (Gephi, yEd, Cytoscape).")
@click.option("--dot", "dot_file", metavar="FILE", type=click.Path(dir_okay=False),
              callback=not_empty,
              help="Write the graph in Graphviz DOT (draw it: dot -Tsvg FILE > graph.svg).")
@click.option("--open", "open_page", is_flag=True,
              help="Open the page in the browser (written to a temporary file without --html).")
@kb_options
@json_option
def chain_cmd(question: str | None, source: str | None, target: str | None,
              entities: tuple[str, ...], hops: int | None, top: int, lang: str,
              html_file: str | None, graphml_file: str | None, dot_file: str | None,
              open_page: bool, db: str | None, endpoint: str | None, offline: bool,
              no_cache: bool, as_json: bool) -> None:
    """Show the evidence chains behind QUESTION: the statements that link its entities to
    candidate answers, best first, each with citation numbers.

    \b
        kgground chain "Where was Marie Curie born?"
        kgground chain "Who won the Nobel Prize in Physics in 1903?" --html evidence.html --open
        kgground chain --from Q7186 --to Q37463 --hops 3 --json

    With --from and --to: the chains between two entities (no question needed). Exports
    go to the files named; the page shows the graph with the chains highlighted, and
    clicking a node or an edge shows its statements, qualifiers and citations.
    """
    if target is not None and source is None:
        raise click.UsageError("--to needs --from: kgground chain --from ID --to ID")
    if question is None and source is None:
        raise click.UsageError("give a QUESTION, or --from ID (with --to ID for chains "
                               "between two entities)")
    if question is not None and source is not None:
        raise click.UsageError("give either a QUESTION or --from/--to, not both "
                               "(to start a question's chains from an entity: --entity ID)")
    with fail_clearly(open_session)(db, endpoint, offline, no_cache) as session:
        fail_clearly(_chain)(question, source, target, list(entities), hops, top, lang,
                             html_file, graphml_file, dot_file, open_page, session, as_json)


def _question_linker(session: Session, entities: list[str]) -> Any:
    """The session's linker for a question's chains; None when the question's entities
    are given (none is needed) or the KB cannot be linked (``build_evidence`` then says
    why, and that ``--entity ID`` is the way round it)."""
    if entities:
        return None
    try:
        return session.linker
    except KGGroundError:
        return None


def _chain(question: str | None, source: str | None, target: str | None,
           entities: list[str], hops: int | None, top: int, lang: str,
           html_file: str | None, graphml_file: str | None, dot_file: str | None,
           open_page: bool, session: Session, as_json: bool) -> None:
    import chains

    kb = session.kb

    if source is not None and target is not None:
        evidence = chains.connect_entities(kb, source, target, hops=hops or 3, top=top,
                                           lang=lang)
    elif source is not None:
        evidence = chains.expand_entity(kb, source, hops=hops or 1, lang=lang)
    else:
        assert question is not None     # chain_cmd refuses neither a QUESTION nor --from
        evidence = chains.build_evidence(question, kb, _question_linker(session, entities),
                                         hops=hops or 2, top=top, lang=lang,
                                         entities=entities or None)
    if evidence.stats.get("warnings"):
        click.echo(f"note: {evidence.stats['warnings']}", err=True)
    written = _export(evidence, html_file, graphml_file, dot_file, open_page)
    if as_json:
        emit_json(evidence.as_dict())
    else:
        _print(evidence, source, target)
    for kind, path in written:
        click.echo(f"wrote {kind}: {path}", err=as_json)


def _export(evidence: Any, html_file: str | None, graphml_file: str | None,
            dot_file: str | None, open_page: bool) -> list[tuple[str, Path]]:
    import chains

    written = []
    if open_page and not html_file:
        html_file = str(Path(tempfile.mkdtemp(prefix="kgground-chain-")) / "evidence.html")
    if html_file:
        written.append(("page", chains.write_html(evidence, html_file,
                                                  open_browser=open_page)))
    if graphml_file:
        written.append(("GraphML", chains.write_graphml(evidence, graphml_file)))
    if dot_file:
        written.append(("DOT", chains.write_dot(evidence, dot_file)))
    return written


def _print(evidence: Any, source: str | None, target: str | None) -> None:
    seeds = ", ".join(f"{s.label} ({s.id})" + (f" ← {s.mention!r}" if s.mention else "")
                      for s in evidence.seeds)
    g = evidence.graph
    click.echo(f"{'Entities' if source else 'Question entities'}: {seeds}")
    click.echo(f"Evidence: {g.number_of_nodes()} nodes, {g.number_of_edges()} statements "
               f"from {evidence.kb_name}")
    if not evidence.chains:
        if target is not None:
            click.echo(f"no chain of at most {evidence.hops} statements between them")
        elif source is None:
            click.echo("no chain found")
        return
    for i, chain in enumerate(evidence.chains, 1):
        click.echo(f"{i}. {chain.text}  (score {chain.score:.3f}"
                   + (", connects question entities" if chain.kind == "connection"
                      and source is None else "") + ")")
    click.echo("Citations:")
    from chains.graph import cite_line
    for n, citation in enumerate(evidence.citations, 1):
        click.echo(f"[{n}] {cite_line(citation)}")
