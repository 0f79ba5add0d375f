"""The evaluation harness: every number in one command (``kgground eval``).

    from reasoning.eval import read_items, evaluate, GrounderAnswerer
    items = read_items("qald7-test.jsonl")                    # QALD JSON, JSONL, Mintaka
    answerer = GrounderAnswerer(lambda lang: Grounder(kb, lang=lang))
    run = evaluate(items, answerer, kb, report="out.json", config={...}, workers=4)
    print(render_text(run.report))

Modules: ``readers`` (benchmark files → ``EvalItem``), ``answers`` (answers as compared:
entities by ID, literals normalized, text by label), ``gold`` (gold answers from the file
or the gold query on the KB, and coverage), ``answerer`` (the ``Answerer`` interface;
``GrounderAnswerer`` over ``Grounder.ask``), ``metrics`` (per-question P/R/F1/EM, totals,
breakdowns; the conventions are in its docstring), ``runner`` (concurrent, resumable
runs with append-only records and traces), ``report`` (the JSON report and the table),
``html`` (the offline page with plots), ``catalog`` (a simulated model's facts from the
benchmark), ``setup`` (a run prepared from a file and options: ``prepare(file, kb,
llm_spec=…, gate=…).run()``, what ``kgground eval`` calls).
"""

from reasoning.eval.answerer import (Answerer, GrounderAnswerer, Prediction,
                                     ScriptedAnswerer, from_answer)
from reasoning.eval.answers import AnswerItem
from reasoning.eval.gold import GoldInfo, resolve
from reasoning.eval.metrics import Score, auroc, breakdown, score, score_text, summarize
from reasoning.eval.readers import FORMATS, EvalItem, read_items
from reasoning.eval.report import build_report, load_report, render_text
from reasoning.eval.runner import Run, companion_paths, evaluate

__all__ = ["FORMATS", "AnswerItem", "Answerer", "EvalItem", "GoldInfo", "GrounderAnswerer",
           "Prediction", "Run", "Score", "ScriptedAnswerer", "auroc", "breakdown",
           "build_report", "companion_paths", "evaluate", "from_answer", "load_report",
           "read_items", "render_text", "resolve", "score", "score_text", "summarize"]
