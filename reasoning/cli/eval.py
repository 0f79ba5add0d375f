"""``kgground eval``: a benchmark file answered by ``Grounder.ask``, scored, reported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from reasoning.cli.common import (check_langs, emit_json, fail_clearly, finite,
                                  json_option, kb_options, llm_options, not_empty, open_kb,
                                  open_llms)
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
    from reasoning.eval import GrounderAnswerer, evaluate, read_items, render_text
    from reasoning.eval.gold import GoldResolver
    from reasoning.eval.runner import file_digest

    path = Path(file)
    if not path.is_file():
        raise click.BadParameter(f"{file} is not a file", param_hint="FILE")
    langs = None if languages.strip().lower() == "all" else \
        [x.strip() for x in languages.split(",") if x.strip()]
    items = read_items(path, fmt, languages=langs, limit=limit, sample=sample, seed=seed)
    if not items:
        raise click.UsageError(f"{file} has no question in the languages asked for "
                               f"({languages}); try --languages all")
    has_llm = bool(llm_spec and llm_spec.strip().lower() != "none")
    if not has_llm and gate_name not in ("auto", "always"):
        raise click.UsageError(f"--gate {gate_name} asks a model: pass --llm (without one "
                               "the KB answers alone)")
    setting = _setting(llm_spec if has_llm else None, verifier_spec, gate_name)
    report = Path(report_path) if report_path else Path(f"{path.stem}.{setting}.eval.json")
    if has_llm and not llm_cache:
        llm_cache = str(report.with_name(report.stem + ".llm-cache.sqlite"))
        report.parent.mkdir(parents=True, exist_ok=True)
    kb = open_kb(db, endpoint, offline, no_cache)
    gold_of = GoldResolver(kb, timeout=gold_timeout)
    llm, verifier, catalog_used = _models(llm_spec if has_llm else None, verifier_spec,
                                          llm_cache, replay, catalog, items, gold_of, kb)
    config = {"benchmark": str(path.resolve()), "benchmark_sha256": file_digest(path),
              "format": fmt, "languages": langs, "kb": getattr(kb, "name", str(kb)),
              "llm": llm_spec if has_llm else None,
              "verifier": verifier_spec if has_llm else None,
              "gate": gate_name if has_llm else "kb-only", "checker": checker if has_llm
              else None, "catalog": catalog_used}
    if sample:          # (absent otherwise: the records of earlier runs stay resumable)
        config["sample"] = {"questions": sample, "seed": seed, "of_first": limit}

    def grounder(lang: str) -> Any:
        from reasoning.grounder import Grounder
        return Grounder(kb, llm, gate=gate_name, verifier=verifier, checker=checker,
                        lang=lang)

    try:
        run = evaluate(items, GrounderAnswerer(grounder), kb, report=report, config=config,
                       workers=workers, restart=restart, traces=not no_traces,
                       progress=progress, gold_of=gold_of)
    except KeyboardInterrupt:
        interrupted(f"the answered questions are kept in {report} and its records; run "
                    "the same command again to resume")
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


def _setting(llm_spec: str | None, verifier_spec: str | None, gate: str) -> str:
    if not llm_spec:
        return "kb-only"
    name = f"{llm_spec}-{gate}" + (f"-v-{verifier_spec}" if verifier_spec else "")
    return re.sub(r"[^\w.-]+", "_", name)[:80]


def _models(llm_spec: str | None, verifier_spec: str | None, llm_cache: str | None,
            replay: bool, catalog: str | None, items: list, gold_of: Any,
            kb: Any) -> tuple[Any, Any, str | None]:
    """(model, verifier, the catalog used). A simulated model without --catalog lives in
    the benchmark's own one-fact questions."""
    if not llm_spec:
        return None, None, None
    specs = [s for s in (llm_spec, verifier_spec) if s]
    simulated = any(s.strip().lower().startswith("simulated") for s in specs)
    if not simulated or catalog:
        llm, verifier = open_llms(llm_spec, verifier_spec, llm_cache=llm_cache,
                                  replay=replay, catalog=catalog)
        return llm, verifier, str(Path(catalog).resolve()) if catalog else None
    from reasoning.eval.catalog import catalog_rows
    from reasoning.llm import FactCatalog, llm_from_spec
    from reasoning.llm.simulated import popularity_from_kb

    rows = catalog_rows(items, gold_of, kb)
    if not rows:
        raise click.UsageError("a simulated model needs facts, and no question of this "
                               "benchmark asks for one fact with known gold answers: pass "
                               "--catalog FILE (e.g. a slice-qa file)")
    facts = FactCatalog.from_rows(rows, popularity=popularity_from_kb(kb))
    mode = "replay" if replay else "auto"
    llm = llm_from_spec(llm_spec, catalog=facts, cache=llm_cache, cache_mode=mode)
    verifier = llm_from_spec(verifier_spec, catalog=facts, cache=llm_cache,
                             cache_mode=mode) if verifier_spec else None
    return llm, verifier, f"the benchmark's one-fact questions ({len(rows)})"
