"""``kgground eval``: a benchmark file answered by ``Grounder.ask``, scored, reported.
"""

from __future__ import annotations

import click

from reasoning.cli.common import (check_langs, emit_json, fail_clearly, finite,
                                  json_option, kb_options, llm_options, not_empty, open_llms,
                                  open_session)
from reasoning.cli.console import interrupted
from reasoning.eval.readers import FORMATS
from reasoning.gates import GATE_CHOICES


@click.command("eval")
@click.argument("file", type=click.Path(dir_okay=False), callback=not_empty)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto",
              show_default=True, help="The benchmark's format; auto tells QALD JSON, JSON "
              "lines (gold SPARQL, results or answers; slice-qa) and Mintaka apart.")
@click.option("--limit", type=click.IntRange(1), metavar="N",
              help="Only the first N questions of the file.")
@click.option("--sample", type=click.IntRange(1), metavar="N",
              help="N questions drawn at random (seeded by --seed; kept in file order); "
                   "with --limit, drawn from the first --limit.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="The seed of --sample: the same seed draws the same questions.")
@click.option("--languages", default="en", show_default=True, metavar="LANGS",
              callback=check_langs,
              help="Question languages to ask, comma-separated, or 'all' (QALD and "
                   "Mintaka files hold several).")
@llm_options
@click.option("--gate", "gate_name", type=click.Choice(GATE_CHOICES), default="auto",
              show_default=True, help="When the model consults the KB; auto: rowen-hybrid "
              "with --verifier, else rowen-cl; without --llm the KB answers alone.")
@click.option("--checker", type=click.Choice(["llm", "similarity"]), default="llm",
              show_default=True, help="Rowen's checker: the LLM judge or MiniLM similarity.")
@kb_options
@click.option("--workers", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Questions answered at once.")
@click.option("--report", "report_path", metavar="PATH", type=click.Path(dir_okay=False),
              callback=not_empty,
              help="The JSON report; records (PATH without .json + .records.jsonl) and "
                   "traces (+ .traces/) go beside it. Running the same command again "
                   "resumes from them [default: ./FILE-STEM.SETTING.eval.json].")
@click.option("--html", "html_path", metavar="PATH", type=click.Path(dir_okay=False),
              callback=not_empty,
              help="Also write the report as an offline HTML page with plots "
                   "(pip install 'kgground[eval]').")
@click.option("--restart", is_flag=True,
              help="Discard the records of an earlier run at --report and start over.")
@click.option("--no-traces", is_flag=True, help="Do not write each question's trace.")
@click.option("--gold-timeout", type=click.FloatRange(min=0, min_open=True), default=30.0,
              show_default=True, callback=finite,
              metavar="SECONDS", help="Timeout of each gold SPARQL query on the KB.")
@click.option("--progress/--no-progress", default=None,
              help="A progress bar on stderr [default: when stderr is a terminal].")
@json_option
def eval_cmd(file: str, fmt: str, limit: int | None, sample: int | None, seed: int,
             languages: str, llm_spec: str | None,
             verifier_spec: str | None, llm_cache: str | None, replay: bool,
             catalog: str | None, gate_name: str, checker: str, db: str | None,
             endpoint: str | None, offline: bool, no_cache: bool, workers: int,
             report_path: str | None, html_path: str | None, restart: bool,
             no_traces: bool, gold_timeout: float, progress: bool | None,
             as_json: bool) -> None:
    """Answer every question of the benchmark FILE and score the answers.

    \b
        kgground eval slice-qa-dev.jsonl --db slice.sqlite --limit 200
        kgground eval qald7-test.jsonl --db slice.sqlite --html qald7.html
        kgground eval mintaka-dev.jsonl --languages all --endpoint URL --db slice.sqlite
        kgground eval slice-qa-dev.jsonl --db slice.sqlite --llm simulated:1 \\
            --verifier simulated:2 --gate rowen-hybrid --report runs/hybrid.json

    Reads QALD JSON, JSON lines with a question and gold SPARQL, gold results or gold
    answers (the slice-qa, qald7, qald9plus, wwq and simplequestions files), and Mintaka.
    Gold answers come from the file, else from running its gold SPARQL on the KB (the
    report says which, per question). Every question is answered by Grounder.ask (the KB
    alone without --llm) and scored: precision, recall, F1, exact match, whether the KB
    could answer it at all (coverage), the gate's decision and score, LLM and KB calls,
    latency. Prints the totals and their breakdown by question type and language; --json
    prints the totals as JSON.

    Each answered question is appended to the records file at once: an interrupted run
    resumes where it stopped when you run the same command again. With --llm, every
    model call is recorded in --llm-cache (default: beside the report), so a rerun
    replays them (--replay: never call the model). A simulated model (--llm simulated)
    without --catalog knows a share of the benchmark's own one-fact questions.
    """
    fail_clearly(_eval)(file, fmt, limit, sample, seed, languages, llm_spec, verifier_spec,
                        llm_cache, replay, catalog, gate_name, checker, db, endpoint, offline,
                        no_cache, workers, report_path, html_path, restart, no_traces, gold_timeout,
                        progress, as_json)


def _eval(file: str, fmt: str, limit: int | None, sample: int | None, seed: int,
          languages: str, llm_spec: str | None,
          verifier_spec: str | None, llm_cache: str | None, replay: bool,
          catalog: str | None, gate_name: str, checker: str, db: str | None,
          endpoint: str | None, offline: bool, no_cache: bool, workers: int,
          report_path: str | None, html_path: str | None, restart: bool, no_traces: bool,
          gold_timeout: float, progress: bool | None, as_json: bool) -> None:
    from reasoning.eval import render_text
    from reasoning.eval.setup import EvalSetupError, prepare

    langs = None if languages.strip().lower() == "all" else \
        [x.strip() for x in languages.split(",") if x.strip()]
    # the run's one session: the KB, its linker, and the models prepare builds into it
    with open_session(db, endpoint, offline, no_cache) as session:
        try:
            setup = prepare(file, session, fmt=fmt, languages=langs, limit=limit,
                            sample=sample, seed=seed, llm_spec=llm_spec,
                            verifier_spec=verifier_spec, llm_cache=llm_cache, replay=replay,
                            catalog=catalog, gate=gate_name, checker=checker,
                            report=report_path, gold_timeout=gold_timeout,
                            open_models=open_llms)
        except EvalSetupError as exc:
            raise click.UsageError(str(exc)) from exc
        try:
            run = setup.run(workers=workers, restart=restart, traces=not no_traces,
                            progress=progress)
        except KeyboardInterrupt:
            interrupted(f"the answered questions are kept in {setup.report} and its "
                        "records; run the same command again to resume")
    written = [run.report_path]
    if html_path:
        from reasoning.eval.html import write_html
        written.append(write_html(run.report, html_path))
    if as_json:
        emit_json({"config": run.report["config"], "totals": run.report["totals"],
                   "by_type": run.report["by_type"],
                   "by_language": run.report["by_language"],
                   "report": str(run.report_path), "records": str(run.records_path)})
    else:
        click.echo(render_text(run.report))
    if run.resumed:
        click.echo(f"resumed: {run.resumed} questions were already answered in "
                   f"{run.records_path}", err=True)
    for p in written:
        click.echo(f"wrote {p}", err=True)
