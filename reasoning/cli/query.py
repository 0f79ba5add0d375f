"""``kgground query``: a question → triplet queries and SPARQL over a KB, optionally run."""

from __future__ import annotations

from typing import Any

import click

from kb.contracts import LLM
from querygen.generator import STRATEGIES
from reasoning.cli.common import (catalog_option, check_text, emit_json, fail_clearly,
                                  json_option, kb_options, llm_cache_option, llm_option,
                                  not_empty, open_llms, open_session, replay_option)


@click.command("query")
@click.argument("question", callback=check_text)
@kb_options
@click.option("--strategy", type=click.Choice(STRATEGIES), default="rules",
              show_default=True, help="rules: offline, no LLM; llm: an LLM writes the query "
              "from examples (needs --llm); model: a trained generator (needs --model).")
@llm_option
@llm_cache_option
@replay_option
@catalog_option
@click.option("--model", "model_dir", metavar="DIR", type=click.Path(file_okay=False),
              callback=not_empty,
              help="A trained query generator (written by kgground querygen train), for "
                   "--strategy model.")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 50),
              help="Queries to show, best first.")
@click.option("--run", "run_it", is_flag=True,
              help="Run the best query on the KB and print its answers with citations.")
@json_option
def query_cmd(question: str, db: str | None, endpoint: str | None, offline: bool,
              no_cache: bool, strategy: str, llm_spec: str | None, llm_cache: str | None,
              replay: bool, catalog: str | None, model_dir: str | None, limit: int,
              run_it: bool, as_json: bool) -> None:
    """Turn QUESTION into queries over the KB, best first: triplet queries (s, p, ?),
    (?, p, o), (s, ?, o) and SPARQL, each label-level (as Chain of Knowledge writes them,
    wd:/Marie Curie/ wdt:/place of birth/ ?x) and grounded to IDs.

        kgground query "Where was Marie Curie born?" --run
        kgground query "How many children did Marie Curie have?" --json
        kgground query "Is Warsaw the capital of Poland?" --run
        kgground query "Who employed Albert Einstein?" --strategy llm \\
            --llm openai:gpt-4o-mini

    With the rules, the readings are query graphs ranked by their calibrated confidence
    (as `kgground ask` ranks them); --run runs the best one when it is confident enough,
    and says what the KB lacks when none is.

    Exit status: 0 with at least one query, 1 when none could be generated (nothing in
    the question could be linked to the KB) or on an error.
    """
    _check_strategy(strategy)
    llm = None
    if strategy == "llm":
        llm = fail_clearly(open_llms)(llm_spec, llm_cache=llm_cache, replay=replay,
                                      catalog=catalog)[0]
    fail_clearly(_query)(question, db, endpoint, offline, no_cache, strategy, llm,
                         model_dir, limit, run_it, as_json)


def _check_strategy(strategy: str) -> None:
    """Options typed for another strategy than the one chosen are a mistake to say, not
    to ignore (``--llm`` without ``--strategy llm`` would otherwise do nothing)."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    typed = [name for name in ("llm_spec", "llm_cache", "replay", "catalog", "model_dir")
             if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    wants = {"llm_spec": "llm", "llm_cache": "llm", "replay": "llm", "catalog": "llm",
             "model_dir": "model"}
    for name in typed:
        if wants[name] != strategy:
            option = {"llm_spec": "--llm", "llm_cache": "--llm-cache", "replay": "--replay",
                      "catalog": "--catalog", "model_dir": "--model"}[name]
            raise click.UsageError(f"{option} is for --strategy {wants[name]}: add it (the "
                                   f"strategy now is {strategy})")


def _query(question: str, db: str | None, endpoint: str | None, offline: bool,
           no_cache: bool, strategy: str, llm: LLM | None, model_dir: str | None,
           limit: int, run_it: bool, as_json: bool) -> None:
    from querygen import generate, run

    if strategy == "llm" and llm is None:
        raise click.UsageError("--strategy llm needs --llm SPEC (e.g. openai:MODEL, "
                               "hf:PATH, scripted:FILE) or $KGGROUND_LLM")
    if strategy == "model" and not model_dir:
        raise click.UsageError("--strategy model needs --model DIR (a generator written by "
                               "kgground querygen train)")
    with open_session(db, endpoint, offline, no_cache, llm=llm) as session:
        base = session.kb
        ranking = None
        if strategy == "rules":
            # the rules' readings as query graphs, ranked by the calibrated model: the same
            # path as `kgground ask` without an LLM
            from querygen import graph_ranker
            ranking = graph_ranker(base, session.linker).rank(question)
            queries = [g.query for g in ranking.graphs][:limit]
            best = ranking.best
            result = best.result if run_it and best is not None else None
        else:
            queries = generate(question, base, strategy=strategy, llm=session.llm,
                               linker=session.linker, model=model_dir, limit=limit)
            result = run(queries[0], base) if run_it and queries else None
        if as_json:
            emit_json({"question": question, "strategy": strategy,
                       "queries": [q.as_dict() for q in queries],
                       "ranking": ranking.as_dict() if ranking is not None else None,
                       "result": result.as_dict() if result is not None else None})
        else:
            _print(queries, result, ranking, run_it)
    if not queries:
        raise click.ClickException(
            f"no query could be generated for {question!r}: nothing in it could be linked to "
            "an entity and a property of the KB. Check the names (kgground link "
            "QUESTION shows what is linked), or try --strategy llm")


def _print(queries: list, result: Any, ranking: Any, run_it: bool) -> None:
    confidences = {id(g.query): g.confidence for g in ranking.graphs} if ranking else {}
    for i, q in enumerate(queries, 1):
        score = confidences.get(id(q), q.score)
        label = "confidence " if ranking else ""
        click.echo(f"{i}. [{label}{score:.2f}] {q.kind}, {q.form}: {q.label_level}")
        click.echo(f"   grounded: {q.grounded}")
        for d in q.decisions:
            alts = ", ".join(f"{c.id} {c.label}" for c in d.candidates[1:3])
            click.echo(f"   {d.kind} {d.label!r} → {d.id} ({d.chosen.label})"
                       + (f"; also: {alts}" if alts else ""))
    if ranking is not None and ranking.best is None and queries:
        click.echo("")
        click.echo(f"the KB has no answer: {ranking.reason} (below confidence "
                   f"{ranking.threshold:.2f} no graph answers)")
    if result is None:
        return
    click.echo("")
    q = result.query
    if q.form == "ask":
        click.echo(f"answer: {'yes' if result.boolean else 'no'}")
        for c in result.support:
            click.echo(f"  [{c.subject} {c.property} {c.value}] {c.url}  ({c.source})")
        return
    if q.form == "count":
        click.echo(f"answer: {result.count}")
    if not result.answers:
        click.echo("no answers in the KB" if q.form != "count" else "")
        return
    for a in result.answers:
        ident = f" ({a.id})" if a.id else ""
        click.echo(f"{a.label}{ident}" if q.form != "count" else f"  counted: {a.label}{ident}")
        for c in a.citations:
            click.echo(f"  [{c.subject} {c.property} {c.value}] {c.url}  ({c.source})")
