"""The evaluation report: JSON for scripts, a table for people.

``build_report(records, config=...)`` → a dict (schema ``kgground/eval-report``, version
1): ``config`` (what was run), ``totals`` (``metrics.summarize``), ``by_type``,
``by_language``, ``by_relation`` (``metrics.breakdown``; relations only when the items
name them) with ``labels`` (the KB's label of each relation's property ID),
``conventions`` (how the numbers are computed, in words), where the records and traces
are, and ``questions`` (every per-question record). ``render_text(report)`` is
the table ``kgground eval`` prints.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reasoning.eval.metrics import breakdown, summarize

SCHEMA = "kgground/eval-report"
VERSION = 1

CONVENTIONS = {
    "per_question": "P/R/F1 over answer sets (entities by ID, literals by normalized value, "
                    "free text by label). Empty gold and empty prediction: P=R=F1=1. Empty "
                    "gold, non-empty prediction: 0. Non-empty gold, empty prediction: P=1, "
                    "R=0, F1=0 (QALD/GERBIL). Exact match: the answer sets correspond one "
                    "to one.",
    "macro_f1": "mean of the per-question F1 over questions with gold answers",
    "qald_macro_f1": "GERBIL's Macro F1 QALD: 2PR/(P+R) of the macro precision P and "
                     "macro recall R",
    "coverage": "share of questions the KB can answer at all (gold query non-empty on "
                "this KB, or a gold answer reachable), of those where this is known",
    "retrieval_ratio": "share of questions for which the KB was consulted",
    "auroc": "AUROC of the gate's consistency score as a predictor of the model's own "
             "first answer being right (F1 >= 0.5); 0.5 is chance",
    "latency": "wall time of answering one question (gold lookups excluded), while "
               "`workers` questions run at once",
}


def build_report(records: Sequence[Mapping[str, Any]], *, config: Mapping[str, Any],
                 records_path: str | Path | None = None,
                 traces_dir: str | Path | None = None, complete: bool = True,
                 total: int | None = None,
                 labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The report of ``records`` (see the module docstring). ``labels``: the KB's labels
    of the relations (property ID → label), shown beside or instead of the IDs."""
    report: dict[str, Any] = {
        "schema": SCHEMA, "version": VERSION, "created": time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": dict(config), "complete": complete,
        "total_questions": total if total is not None else len(records),
        "records": str(records_path) if records_path else None,
        "traces": str(traces_dir) if traces_dir else None,
        "conventions": CONVENTIONS,
        "totals": summarize(records),
        "by_type": breakdown(records, "type"),
        "by_language": breakdown(records, "lang"),
    }
    if any(r.get("relation") for r in records):
        report["by_relation"] = breakdown(records, "relation")
    report["labels"] = {k: v for k, v in (labels or {}).items() if v and v != k}
    report["questions"] = list(records)
    return report


def write_json(path: str | Path, data: Any) -> Path:
    """Write ``data`` as JSON, atomically (a reader never sees half a report)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str),
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_report(path: str | Path) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("schema") != SCHEMA:
        from store.errors import EvalError
        raise EvalError(f"{path} is not a kgground evaluation report",
                        expected=f'"schema": "{SCHEMA}"', got=data.get("schema"))
    return data


# -- the table ---------------------------------------------------------------------------------

def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


GROUP_COLUMNS = (("n", lambda t: t["questions"]),
                 ("F1", lambda t: fmt(t["macro_f1"])),
                 ("QALD-F1", lambda t: fmt(t["qald_macro_f1"])),
                 ("EM", lambda t: fmt(t["exact_match"])),
                 ("coverage", lambda t: fmt(t["coverage"])),
                 ("F1 covered", lambda t: fmt(t["covered_f1"])),
                 ("retrieval", lambda t: fmt(t["retrieval_ratio"], 2)),
                 ("LLM/q", lambda t: fmt(t["llm_calls"], 1)),
                 ("KB/q", lambda t: fmt(t["kb_calls"], 1)),
                 ("p50 ms", lambda t: fmt(t["latency_ms"]["p50"], 0)))


def table(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    cells = [list(map(str, header))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])
                               for i, c in enumerate(r)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def group_table(groups: Mapping[str, Mapping[str, Any]], title: str,
                limit: int | None = None, worst_first: bool = False,
                labels: Mapping[str, str] | None = None) -> str:
    items = list(groups.items())
    if worst_first:
        items.sort(key=lambda kv: (kv[1]["macro_f1"], -kv[1]["questions"]))
    more = len(items) - limit if limit is not None and len(items) > limit else 0
    labels = labels or {}
    rows = [[f"{name} {labels[name]}" if name in labels else name]
            + [str(f(t)) for _, f in GROUP_COLUMNS] for name, t in items[:limit]]
    text = table(rows, [title] + [c for c, _ in GROUP_COLUMNS])
    return text + (f"\n  … {more} more in the JSON report" if more else "")


def render_text(report: Mapping[str, Any], *, relations: int = 12) -> str:
    c, t = report["config"], report["totals"]
    lat = t["latency_ms"]
    head = (f"{Path(str(c.get('benchmark', '?'))).name} — KB {c.get('kb', '?')} — "
            f"LLM {c.get('llm') or 'none'}"
            + (f" + verifier {c['verifier']}" if c.get("verifier") else "")
            + f" — gate {c.get('gate') or 'none'}")
    status = "complete" if report.get("complete") else \
        f"INCOMPLETE: {t['questions']} of {report.get('total_questions')} questions"
    lines = [head, status,
             f"questions {t['questions']} (scored {t['scored']}, errors {t['errors']}); "
             f"gold answers from: " + ", ".join(f"{k} {v}" for k, v in
                                                  t["gold_sources"].items()),
             f"macro F1 {fmt(t['macro_f1'])}   QALD macro F1 {fmt(t['qald_macro_f1'])}   "
             f"EM {fmt(t['exact_match'])}   P {fmt(t['macro_precision'])}   "
             f"R {fmt(t['macro_recall'])}",
             f"coverage {fmt(t['coverage'])} (known for {t['coverage_known']})   "
             f"F1 on covered {fmt(t['covered_f1'])}   F1 on uncovered "
             f"{fmt(t['uncovered_f1'])}   retrieval ratio {fmt(t['retrieval_ratio'], 2)}",
             f"per question: {fmt(t['llm_calls'], 1)} LLM calls, {fmt(t['kb_calls'], 1)} "
             f"KB calls; latency ms p50 {fmt(lat['p50'], 0)}, p90 {fmt(lat['p90'], 0)}, "
             f"p99 {fmt(lat['p99'], 0)}, max {fmt(lat['max'], 0)}"]
    if t.get("answered") is not None:
        lines.append(f"answered {fmt(t['answered'])}   answers called grounded that are "
                     f"wrong: {t['grounded_wrong']} ({fmt(t['grounded_wrong_rate'])} of "
                     f"the questions)   AURC {fmt(t.get('aurc'))}")
    if t.get("auroc") is not None or t.get("draft_accuracy") is not None:
        lines.append(f"the model's own answers right: {fmt(t.get('draft_accuracy'))}   "
                     f"AUROC of the gate score: {fmt(t.get('auroc'))}")
    lines += ["", group_table(report["by_type"], "type"), "",
              group_table(report["by_language"], "language")]
    if report.get("by_relation"):
        lines += ["", group_table(report["by_relation"], "relation (worst first)",
                                  limit=relations, worst_first=True,
                                  labels=report.get("labels"))]
    return "\n".join(lines)
