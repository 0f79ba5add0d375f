"""The evaluation report as one self-contained HTML page (``--html``): the tables, three
plots drawn with matplotlib and inlined as SVG, and every question with its answer — no
script, style or font from the network, so it opens offline.

Plots:

- **F1 per question type**: macro F1 next to coverage (the share the KB could answer);
- **latency**: a histogram of the time per question (log scale when it spans decades);
- **consistency against correctness** (Rowen's Figure 5): the gate's consistency score
  of each question against whether the model's own answer was right — the share right
  per score bin, with every question as a dot. Only for runs whose gate scores
  consistency (cok, rowen-*); other runs say why there is no such plot.

Needs matplotlib: ``pip install 'kgground[eval]'``.
"""

from __future__ import annotations

import html
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasoning.eval.report import CONVENTIONS, GROUP_COLUMNS, fmt
from store.errors import require

if TYPE_CHECKING:                    # matplotlib is imported when a figure is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PURPOSE = "the HTML report's plots"


def write_html(report: Mapping[str, Any], path: str | Path) -> Path:
    """Write ``report`` (``build_report``'s dict) as an offline HTML page at ``path``."""
    require("matplotlib", "eval", PURPOSE)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    page = render_html(report)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(path)
    return path


def render_html(report: Mapping[str, Any]) -> str:
    records = report.get("questions") or []
    c, t = report["config"], report["totals"]
    title = f"kgground eval — {Path(str(c.get('benchmark', '?'))).name}"
    figures = [("F1 per question type", f1_by_type_svg(report["by_type"])),
               ("Latency per question", latency_svg([r.get("seconds", 0.0) for r in records])),
               ("Consistency score against correctness", consistency_svg(records)),
               ("Risk against coverage (answers by confidence)", risk_coverage_svg(t))]
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{_e(title)}</h1>", _config_block(report), _totals_block(t),
             "<h2>By question type</h2>", _group_table(report["by_type"], "type"),
             "<h2>By language</h2>", _group_table(report["by_language"], "language")]
    if report.get("by_relation"):
        parts += ["<h2>By relation</h2>", _group_table(report["by_relation"], "relation",
                                                       report.get("labels") or {})]
    parts.append("<h2>Plots</h2><div class='figs'>")
    for caption, svg in figures:
        parts.append(f"<figure><figcaption>{_e(caption)}</figcaption>{svg}</figure>")
    parts.append("</div>")
    parts += ["<h2>How the numbers are computed</h2><dl>"]
    for k, v in CONVENTIONS.items():
        parts.append(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>")
    parts.append("</dl>")
    parts += ["<h2>Questions</h2>", _questions_table(records), f"<script>{JS}</script>",
              "</body></html>"]
    return "\n".join(parts)


# -- figures ------------------------------------------------------------------------------------

def _figure(width: float = 6.4, height: float = 3.6) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.find("<svg"):]


def _empty(message: str) -> str:
    return f"<p class='none'>{_e(message)}</p>"


def f1_by_type_svg(groups: Mapping[str, Mapping[str, Any]]) -> str:
    if not groups:
        return _empty("no questions")
    import numpy as np

    names = list(groups)[:20]
    f1 = [groups[n]["macro_f1"] for n in names]
    cov = [groups[n]["coverage"] if groups[n]["coverage"] is not None else 0.0
           for n in names]
    x = np.arange(len(names))
    fig, ax = _figure(max(6.4, 0.7 * len(names) + 2))
    ax.bar(x - 0.2, f1, 0.4, label="macro F1", color="#3b6fb6")
    ax.bar(x + 0.2, cov, 0.4, label="coverage", color="#c9c9c9")
    for i, n in enumerate(names):
        ax.annotate(f"n={groups[n]['questions']}", (x[i], 1.02), ha="center", fontsize=7)
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("score")
    ax.legend(loc="lower right", fontsize=8)
    return _svg(fig)


def latency_svg(seconds: Sequence[float]) -> str:
    values = [s * 1000 for s in seconds if s is not None and s > 0]
    if not values:
        return _empty("no latencies recorded")
    import numpy as np

    fig, ax = _figure()
    lo, hi = min(values), max(values)
    if hi / max(lo, 1e-3) > 100:
        # the edges as a list: matplotlib's stubs take a Sequence, which an array is not
        bins: list[float] | int = np.logspace(np.log10(max(lo, 1e-3)), np.log10(hi),
                                              30).tolist()
        ax.set_xscale("log")
    else:
        bins = 30
    ax.hist(values, bins=bins, color="#3b6fb6")
    p50, p90 = np.percentile(values, [50, 90])
    for v, name in ((p50, "p50"), (p90, "p90")):
        ax.axvline(v, color="#b63b3b", linestyle="--", linewidth=1)
        ax.annotate(f"{name} {v:.0f} ms", (v, ax.get_ylim()[1] * 0.92), fontsize=8,
                    rotation=90, ha="right", va="top")
    ax.set_xlabel("milliseconds per question")
    ax.set_ylabel("questions")
    from matplotlib.ticker import MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return _svg(fig)


def risk_coverage_svg(totals: Mapping[str, Any]) -> str:
    """Error among the answered questions against the share answered, the answers taken
    by confidence, most confident first (``metrics.risk_coverage``)."""
    curve = totals.get("risk_coverage") or []
    if not curve:
        return _empty("no answers with a confidence")
    fig, ax = _figure()
    ax.plot([p["coverage"] for p in curve], [p["risk"] for p in curve], marker="o",
            color="#b63b3b")
    ax.set_xlabel("share of questions answered (coverage)")
    ax.set_ylabel("share of those answers wrong (risk)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, max(0.05, max(p["risk"] for p in curve) * 1.1))
    return _svg(fig)


def consistency_svg(records: Sequence[Mapping[str, Any]], bins: int = 10) -> str:
    points = [(r["gate_score"], bool(r["draft_correct"])) for r in records
              if r.get("gate_score") is not None and r.get("draft_correct") is not None]
    if not points:
        return _empty("no consistency scores: this run's gate does not score consistency "
                      "(KB-only, always or never), or no model answered first")
    import numpy as np

    scores = np.array([p[0] for p in points], dtype=float)
    right = np.array([p[1] for p in points], dtype=bool)
    top = max(1.0, float(scores.max()))
    edges = np.linspace(0, top, bins + 1)
    which = np.clip(np.digitize(scores, edges) - 1, 0, bins - 1)
    centers, shares, counts = [], [], []
    for b in range(bins):
        mask = which == b
        if mask.any():
            centers.append((edges[b] + edges[b + 1]) / 2)
            shares.append(right[mask].mean())
            counts.append(int(mask.sum()))
    fig, ax = _figure()
    rng = np.random.default_rng(0)
    jitter = rng.uniform(-0.04, 0.04, len(scores))
    ax.scatter(scores, right.astype(float) + jitter, s=6, alpha=0.35,
               c=np.where(right, "#3b8f4a", "#b63b3b"), label="questions (right=1, wrong=0)")
    ax.plot(centers, shares, marker="o", color="#3b6fb6", label="share right per bin")
    for x, y, n in zip(centers, shares, counts):
        ax.annotate(str(n), (x, y), textcoords="offset points", xytext=(0, 6), fontsize=7,
                    ha="center")
    ax.set_xlabel("consistency score (the gate's)")
    ax.set_ylabel("the model's own answer right")
    ax.set_ylim(-0.1, 1.1)
    ax.legend(loc="lower right", fontsize=8)
    return _svg(fig)


# -- tables -------------------------------------------------------------------------------------

#: the run's settings as the configuration table names them (others: their key)
CONFIG_NAMES = {"benchmark": "benchmark file", "benchmark_sha256": "benchmark SHA-256",
                "format": "benchmark format", "languages": "languages",
                "kb": "knowledge base", "llm": "LLM", "verifier": "verifier LLM",
                "gate": "gate", "checker": "checker", "catalog": "simulated LLM's facts",
                "sample": "sample"}
#: what an empty setting means, by key
CONFIG_NONE = {"languages": "all", "llm": "none (the KB answers alone)", "verifier": "none",
               "checker": "–", "catalog": "–"}


def _config_block(report: Mapping[str, Any]) -> str:
    c = report["config"]
    rows = "".join(f"<tr><th>{_e(CONFIG_NAMES.get(k, k.replace('_', ' ')))}</th>"
                   f"<td>{_e(_readable(k, v))}</td></tr>" for k, v in c.items())
    status = "complete" if report.get("complete") else (
        f"incomplete: {report['totals']['questions']} of {report.get('total_questions')} "
        "questions")
    return (f"<p>{_e(status)}; created {_e(report.get('created', ''))}</p>"
            f"<table class='kv'>{rows}</table>")


def _totals_block(t: Mapping[str, Any]) -> str:
    lat = t["latency_ms"]
    cells = [("macro F1", fmt(t["macro_f1"])), ("QALD macro F1", fmt(t["qald_macro_f1"])),
             ("exact match", fmt(t["exact_match"])), ("precision", fmt(t["macro_precision"])),
             ("recall", fmt(t["macro_recall"])), ("coverage", fmt(t["coverage"])),
             ("F1 on covered", fmt(t["covered_f1"])),
             ("retrieval ratio", fmt(t["retrieval_ratio"], 2)),
             ("LLM calls / question", fmt(t["llm_calls"], 1)),
             ("KB calls / question", fmt(t["kb_calls"], 1)),
             ("latency p50 / p90 / p99 ms",
              f"{fmt(lat['p50'], 0)} / {fmt(lat['p90'], 0)} / {fmt(lat['p99'], 0)}"),
             ("questions (scored, errors)", f"{t['questions']} ({t['scored']}, {t['errors']})"),
             ("model's own answers right", fmt(t.get("draft_accuracy"))),
             ("AUROC of the gate score", fmt(t.get("auroc"))),
             ("answered", fmt(t.get("answered"))),
             ("answers called grounded that are wrong", str(t.get("grounded_wrong", "–"))),
             ("AURC (risk–coverage)", fmt(t.get("aurc")))]
    body = "".join(f"<div class='stat'><span>{_e(k)}</span><b>{_e(v)}</b></div>"
                   for k, v in cells)
    return f"<div class='stats'>{body}</div>"


def _group_table(groups: Mapping[str, Mapping[str, Any]], title: str,
                 labels: Mapping[str, str] | None = None) -> str:
    """A breakdown table; group names with a label in ``labels`` (a relation's property)
    show the label, the name (ID) on hover."""
    labels = labels or {}
    head = "".join(f"<th>{_e(h)}</th>" for h in [title] + [c for c, _ in GROUP_COLUMNS])
    rows = "".join("<tr>" + f"<td>{_labelled(name, labels.get(name))}</td>" +
                   "".join(f"<td class='n'>{_e(f(t))}</td>" for _, f in GROUP_COLUMNS) +
                   "</tr>" for name, t in groups.items())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _questions_table(records: Sequence[Mapping[str, Any]]) -> str:
    head = ("<p><input id='filter' placeholder='filter questions…'> "
            "<label><input type='checkbox' id='wrong'> only F1 &lt; 1</label></p>"
            "<table id='questions'><thead><tr><th>id</th><th>lang</th><th>type</th>"
            "<th>question</th><th>gold</th><th>predicted</th><th>F1</th><th>covered</th>"
            "<th>KB?</th><th>score</th><th>ms</th><th>trace</th></tr></thead><tbody>")
    rows = []
    for r in records:
        s = r.get("score")
        f1 = s["f1"] if s else None
        gold = _answers(r.get("gold"))
        pred = r.get("text") if r.get("free_text") else _answers(r.get("predicted"))
        trace = r.get("trace")
        link = f"<a href='{_e(trace)}'>trace</a>" if trace else ""
        err = f"<div class='err'>{_e(r['error'])}</div>" if r.get("error") else ""
        rows.append(
            f"<tr data-f1='{'' if f1 is None else f1}'><td>{_e(r['id'])}</td>"
            f"<td>{_e(r['lang'])}</td><td>{_e(r.get('type'))}</td>"
            f"<td>{_e(r['question'])}{err}</td><td>{_e(gold)}</td><td>{_e(pred)}</td>"
            f"<td class='n'>{fmt(f1, 2)}</td><td>{_e(_yes(r.get('covered')))}</td>"
            f"<td>{_e(_yes(r.get('consulted')))}</td><td class='n'>"
            f"{fmt(r.get('gate_score'), 2)}</td><td class='n'>"
            f"{fmt(r.get('seconds', 0) * 1000, 0)}</td><td>{link}</td></tr>")
    return head + "".join(rows) + "</tbody></table>"


def _answers(items: Any) -> str:
    if items is None:
        return "(no gold)"
    shown = [(i.get("labels") or [i["value"]])[0] + (f" ({i['value']})" if i.get("labels")
                                                     else "") for i in items[:8]]
    more = f" … +{len(items) - 8}" if len(items) > 8 else ""
    return "; ".join(shown) + more if shown else "(empty)"


def _labelled(name: str, label: str | None) -> str:
    if not label:
        return _e(name)
    return f"<span class='id' title='{_e(name)}'>{_e(label)}</span>"


def _readable(key: str, value: Any) -> str:
    """A setting as a person reads it: lists joined, a mapping as 'key value; …', empty
    values named (``CONFIG_NONE``)."""
    if value is None or value == [] or value == "":
        return CONFIG_NONE.get(key, "–")
    if isinstance(value, (list, tuple)):
        return ", ".join(_readable(key, v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k.replace('_', ' ')} {_readable(k, v)}" for k, v in value.items()
                         if v is not None)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _yes(v: Any) -> str:
    return "–" if v is None else ("yes" if v else "no")


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v), quote=True)


CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f4f4f4}td.n{text-align:right;
font-variant-numeric:tabular-nums}.kv th{width:12em}
.stats{display:flex;flex-wrap:wrap;gap:.6em}.stat{border:1px solid #ddd;border-radius:6px;
padding:.4em .7em;min-width:10em}.stat span{display:block;color:#666;font-size:.85em}
.stat b{font-size:1.2em}.figs{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}
figcaption{font-weight:600}figure svg{max-width:100%;height:auto}
span.id{border-bottom:1px dotted #999;cursor:help}
.none{color:#666;font-style:italic;width:30em}.err{color:#b00;font-size:.85em}
#questions td:nth-child(4){max-width:28em}
"""

JS = """
(function(){
  var f=document.getElementById('filter'),w=document.getElementById('wrong');
  var rows=document.querySelectorAll('#questions tbody tr');
  function apply(){var q=f.value.toLowerCase();rows.forEach(function(r){
    var ok=(!q||r.textContent.toLowerCase().indexOf(q)>=0);
    var v=r.getAttribute('data-f1');if(w.checked&&(v===''||parseFloat(v)>=1))ok=false;
    r.style.display=ok?'':'none';});}
  f.addEventListener('input',apply);w.addEventListener('change',apply);
})();
"""
