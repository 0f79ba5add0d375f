"""Entity linking on real linking benchmarks, against the T-REx Wikidata slice (issues 4, 13).

    python bench/bench_linking.py [--db slice.sqlite] [--json out.json] [--limit N]
                                  [--split first|second] [--sections gold,questions,...]

Sections (``--sections``, default all): ``gold`` (below), ``questions`` (question subject as
top link and property top-1 with and without the subject, on slice-qa-dev and on our own
wordings — tune, held, fresh, fresh2, fresh3, blind, blind2, blind3, blind4:
``bench/linking_questions.py``), ``texts``
(acc@1 given gold spans, and end to end, on our news and science sentences,
``bench/data/linking_texts.py``, and on fresh newswire, ``bench/data/linking_texts_fresh.py``),
``speed`` (mentions/s and the time to link 10/50/100 KB of text), ``rdf`` (question linking
on an RdfGraphKB built from the mirror's statements about the questions' subjects, linking
to its own IRIs); not in the default: ``embeddings`` (what MiniLM by default costs: imports,
a linker's first property link with and without the stored property embeddings, a phrase's
link time).

Data (read from ``--data``, default ../shared/data next to the repository; never copied):
``benchmarks/entity-linking/tweeki-gold.jsonl`` (tweets, every mention with its span),
``benchmarks/entity-linking/webqsp-wd-entities.json`` (WebQSP questions: the main entity's
span, and the QIDs of all entities), ``benchmarks/mintaka-dev.jsonl`` (``questionEntity``
spans of type ``entity``). The mirror is ``--db``, else one built from
``wikidata/trex-slice.nt.gz`` in the user cache folder on first run (about 20 s) and kept.

Measured, per dataset and pooled:

- **Disambiguation given the gold spans** (all gold spans of a text are linked together;
  the rest of the text is context): accuracy@1 and recall@10, over all gold mentions and
  over those whose gold QID is in the mirror (has a label or alias there; the others cannot
  be found offline — their number is reported). WebQSP spans given as -1 are located by
  their tokens; a few that cannot be are skipped (counted).
- **Max-prior baseline**, as spaCy's entity linker does it: the most popular entity (the
  mirror's prior: sitelinks, else degree) among exact matches of the normalized mention
  with a label or alias; no match → wrong.
- **End to end** (mentions detected by the linker, then linked, kept when the best
  candidate's confidence is at least ``E2E_CONFIDENCE``): micro precision, recall
  and F1 of the bag of QIDs per text (WebQSP has spans only for its main entity, so bags
  keep the three datasets comparable); for Tweeki and Mintaka also span-level scores, where
  a prediction counts when its span overlaps a gold span with the same QID. The in-mirror
  variant drops gold entities absent from the mirror (predictions are all in the mirror).
- **Throughput** without entity embeddings (``--embeddings`` adds them; ``--lexical`` turns
  off the property embeddings, on by default when the extra is installed), in the same
  process after a warm-up: mentions/s for disambiguation, texts/s end to end.

Targets (issue 4): accuracy@1 ≥ 0.85 on in-mirror mentions and ≥ 10 points above the
baseline; ≥ 1,000 mentions/s. Numbers depend on machine load: record them from a quiet one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

sys.path.insert(0, str(REPO / "bench"))

from linking import EntityLinker  # noqa: E402
from store.mirror import Mirror  # noqa: E402
from store.normalize import normalize  # noqa: E402

DEFAULT_DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))
TARGET_ACC, TARGET_GAIN, TARGET_RATE = 0.85, 0.10, 1000.0
#: end to end, a detected mention counts when its best candidate is at least this likely
#: (linking cuts nothing off; callers threshold on the calibrated confidence)
E2E_CONFIDENCE = 0.5
DATASETS = ("tweeki", "webqsp", "mintaka")


@dataclass
class Doc:
    """One text with its gold mentions ((start, end, qid); start -1: no span known) and
    the gold QIDs of the whole text (for bag-of-entities scores)."""
    dataset: str
    text: str
    mentions: list[tuple[int, int, str]] = field(default_factory=list)
    qids: set[str] = field(default_factory=set)
    all_spans: bool = True


def _locate(text: str, tokens: str) -> tuple[int, int] | None:
    """Where WebQSP's space-tokenized ``tokens`` ("george w . bush") occur in ``text``."""
    parts = [re.escape(t) for t in tokens.split()]
    m = re.search(r"\s*".join(parts), text, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _qid(name: object) -> str | None:
    """A gold QID; a bare number (one Tweeki link) gets its Q; no QID (NIL) → None."""
    if isinstance(name, str) and re.fullmatch(r"Q?[1-9][0-9]*", name):
        return name if name.startswith("Q") else "Q" + name
    return None


def load_docs(data: Path) -> tuple[list[Doc], dict[str, int]]:
    """The three datasets as Docs, and counts of gold mentions left out: WebQSP spans that
    could not be located, and mentions whose gold is no QID (NIL)."""
    docs: list[Doc] = []
    skipped = {"webqsp_unlocated": 0, "nil": 0}
    el = data / "benchmarks" / "entity-linking"
    with open(el / "tweeki-gold.jsonl", encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            ms = [(s, e, _qid(link.rsplit("|", 1)[-1]))
                  for (s, e), link in zip(t["index"], t["link"], strict=True)]
            skipped["nil"] += sum(1 for *_, q in ms if q is None)
            ms = [m for m in ms if m[2] is not None]
            if ms:
                docs.append(Doc("tweeki", t["sentence"], ms, {q for *_, q in ms}))
    with open(el / "webqsp-wd-entities.json", encoding="utf-8") as f:
        for q in json.load(f):
            if not q.get("main_entity"):
                continue
            text = q["utterance"]
            s, e = q["main_entity_pos"]
            if s < 0 or normalize(text[s:e]) != normalize(q["main_entity_tokens"]):
                found = _locate(text, q["main_entity_tokens"])
                if found is None:
                    skipped["webqsp_unlocated"] += 1
                    continue
                s, e = found
            qids = {x for x in q["entities"] if x}
            docs.append(Doc("webqsp", text, [(s, e, q["main_entity"])], qids, all_spans=False))
    with open(data / "benchmarks" / "mintaka-dev.jsonl", encoding="utf-8") as f:
        for line in f:
            x = json.loads(line)
            ms = [(qe["span"][0], qe["span"][1], _qid(qe["name"])) for qe in x["questionEntity"]
                  if qe["entityType"] == "entity"]
            skipped["nil"] += sum(1 for *_, q in ms if q is None)
            ms = [m for m in ms if m[2] is not None]
            if ms:
                docs.append(Doc("mintaka", x["question"], ms, {q for *_, q in ms}))
    return docs, skipped


def select(docs: list[Doc], *, limit: int | None = None, split: str | None = None) -> list[Doc]:
    """Per dataset, the first or second half of its texts (``split``; the first half has
    the extra text of an odd count), then at most ``limit`` of them; in dataset order."""
    by: dict[str, list[Doc]] = defaultdict(list)
    for d in docs:
        by[d.dataset].append(d)
    out = []
    for ds in DATASETS:
        part = by[ds]
        half = (len(part) + 1) // 2
        if split == "first":
            part = part[:half]
        elif split == "second":
            part = part[half:]
        out.extend(part[:limit] if limit else part)
    return out


def default_db(data: Path) -> Path:
    """The slice mirror in the user cache folder, built on first use."""
    import platformdirs

    from store.ingest import load

    path = Path(platformdirs.user_cache_dir("kgground")) / "bench" / "trex-slice.sqlite"
    if not path.exists():
        print(f"building the slice mirror at {path} (once)…", file=sys.stderr)
        with Mirror(path, create=True) as mirror:
            load(mirror, data / "wikidata" / "trex-slice.nt.gz")
    return path


class MaxPrior:
    """The baseline: the most popular exact label/alias match (properties excluded)."""

    def __init__(self, linker: EntityLinker):
        self.source = linker.source

    def __call__(self, mention: str) -> str | None:
        names = self.source.names([normalize(mention)])
        best = max(((n.prior, n.entity) for n in names), default=None)
        return best[1] if best else None


def in_mirror(mirror: Mirror, qids: set[str]) -> set[str]:
    out: set[str] = set()
    ids = sorted(qids)
    for i in range(0, len(ids), 900):
        chunk = ids[i:i + 900]
        out.update(q for (q,) in mirror.query(
            f"SELECT DISTINCT entity FROM terms WHERE entity IN ({','.join('?' * len(chunk))}) "
            "AND kind != 1", chunk))
    return out


def prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "tp": tp, "predicted": n_pred, "gold": n_gold}


def run(docs: list[Doc], linker: EntityLinker, known: set[str]) -> dict[str, Any]:
    baseline = MaxPrior(linker)
    # warm-up: the sidecar, property lexicon and SQLite caches
    for d in docs[:50]:
        linker.link(d.text, spans=[(s, e) for s, e, _ in d.mentions if s >= 0])
    per: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(float))
    failures: list[dict[str, Any]] = []
    n_mentions, t_dis, cpu_dis = 0, 0.0, 0.0
    for d in docs:
        spans = [(s, e) for s, e, _ in d.mentions]
        t0, c0 = time.perf_counter(), time.process_time()
        result = linker.link(d.text, spans=spans, top=10)
        t_dis += time.perf_counter() - t0
        cpu_dis += time.process_time() - c0
        n_mentions += len(spans)
        for (s, e, gold), lm in zip(d.mentions, result.mentions, strict=True):
            ids = [c.id for c in lm.candidates]
            base = baseline(d.text[s:e])
            for scope in ("all", "in") if gold in known else ("all",):
                st = per[(d.dataset, scope)]
                st["n"] += 1
                st["acc1"] += bool(ids) and ids[0] == gold
                st["r10"] += gold in ids[:10]
                st["base"] += base == gold
            if gold in known and (not ids or ids[0] != gold) and len(failures) < 2000:
                failures.append({"dataset": d.dataset, "text": d.text, "mention": d.text[s:e],
                                 "gold": gold, "got": ids[:3], "why": lm.why()})
    # end to end
    e2e: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    t_e2e, n_docs = 0.0, 0
    for d in docs:
        t0 = time.perf_counter()
        result = linker.link(d.text)
        t_e2e += time.perf_counter() - t0
        n_docs += 1
        kept = [lm for lm in result.mentions if lm.best and lm.confidence >= E2E_CONFIDENCE]
        pred = {lm.best.id for lm in kept}
        for scope, gold in (("all", d.qids), ("in", d.qids & known)):
            for key in ((d.dataset, scope), ("pooled", scope)):
                c = e2e[("bag",) + key]
                c[0] += len(pred & gold)
                c[1] += len(pred)
                c[2] += len(gold)
            if not d.all_spans:
                continue
            gold_spans = [(s, e, q) for s, e, q in d.mentions if scope == "all" or q in known]
            tp = sum(1 for lm in kept if any(
                lm.mention.start < e and s < lm.mention.end and q == lm.best.id
                for s, e, q in gold_spans))
            for key in ((d.dataset, scope), ("pooled", scope)):
                c = e2e[("span",) + key]
                c[0] += tp
                c[1] += len(kept)
                c[2] += len(gold_spans)
    out: dict[str, Any] = {"disambiguation": {}, "end_to_end": {}, "throughput": {
        "mentions": n_mentions, "disambiguation_s": t_dis,
        "mentions_per_s": n_mentions / t_dis if t_dis else math.nan,
        "disambiguation_cpu_s": cpu_dis,
        "mentions_per_cpu_s": n_mentions / cpu_dis if cpu_dis else math.nan,
        "texts": n_docs, "end_to_end_s": t_e2e,
        "texts_per_s": n_docs / t_e2e if t_e2e else math.nan}}
    for scope in ("all", "in"):
        pooled: dict[str, float] = defaultdict(float)
        for ds in DATASETS:
            st = per[(ds, scope)]
            for k, v in st.items():
                pooled[k] += v
            out["disambiguation"][f"{ds}/{scope}"] = _rates(st)
        out["disambiguation"][f"pooled/{scope}"] = _rates(pooled)
    order = {name: i for i, name in enumerate((*DATASETS, "pooled"))}
    for (kind, ds, scope), (tp, n_pred, n_gold) in sorted(
            e2e.items(), key=lambda kv: (kv[0][0], kv[0][2] != "all", order[kv[0][1]])):
        out["end_to_end"][f"{kind}:{ds}/{scope}"] = prf(tp, n_pred, n_gold)
    out["failures"] = failures
    return out


def _rates(st: dict[str, float]) -> dict[str, float]:
    n = st.get("n", 0)
    return {"mentions": int(n), "acc@1": st.get("acc1", 0) / n if n else 0.0,
            "recall@10": st.get("r10", 0) / n if n else 0.0,
            "baseline_acc@1": st.get("base", 0) / n if n else 0.0}


def print_tables(res: dict[str, Any], info: dict[str, Any]) -> None:
    sk = info["skipped"]
    print(f"mirror {info['db']}  ({info['docs']} texts; left out: {sk['webqsp_unlocated']} "
          f"WebQSP spans not locatable, {sk['nil']} gold mentions without a QID)")
    print("\nDisambiguation given gold spans")
    print(f"{'dataset':<9}{'scope':<11}{'mentions':>9}{'acc@1':>8}{'R@10':>8}"
          f"{'max-prior':>11}{'gain':>8}")
    for key, r in res["disambiguation"].items():
        ds, scope = key.split("/")
        print(f"{ds:<9}{'in mirror' if scope == 'in' else 'all':<11}{r['mentions']:>9}"
              f"{r['acc@1']:>8.3f}{r['recall@10']:>8.3f}{r['baseline_acc@1']:>11.3f}"
              f"{r['acc@1'] - r['baseline_acc@1']:>+8.3f}")
    for ds in (*DATASETS, "pooled"):
        a, i = res["disambiguation"][f"{ds}/all"], res["disambiguation"][f"{ds}/in"]
        print(f"  {ds}: {a['mentions'] - i['mentions']} of {a['mentions']} gold QIDs are "
              "not in the mirror")
    print("\nEnd to end (detection + linking): micro P / R / F1")
    print(f"{'match':<6}{'dataset':<9}{'scope':<11}{'P':>7}{'R':>7}{'F1':>7}"
          f"{'pred':>7}{'gold':>7}")
    for key, r in res["end_to_end"].items():
        kind, rest = key.split(":")
        ds, scope = rest.split("/")
        print(f"{kind:<6}{ds:<9}{'in mirror' if scope == 'in' else 'all':<11}"
              f"{r['precision']:>7.3f}{r['recall']:>7.3f}{r['f1']:>7.3f}"
              f"{r['predicted']:>7}{r['gold']:>7}")
    t = res["throughput"]
    emb = "with embeddings" if info["embeddings"] else "no embeddings"
    print(f"\nThroughput ({emb}): {t['mentions_per_s']:,.0f} mentions/s disambiguation "
          f"({t['mentions']} in {t['disambiguation_s']:.2f} s; {t['mentions_per_cpu_s']:,.0f} "
          f"per CPU second); {t['texts_per_s']:,.0f} texts/s "
          f"end to end ({t['texts']} in {t['end_to_end_s']:.2f} s)")
    pooled = res["disambiguation"]["pooled/in"]
    print(f"\nTargets: in-mirror acc@1 {pooled['acc@1']:.3f} (≥ {TARGET_ACC}), gain over "
          f"max-prior {pooled['acc@1'] - pooled['baseline_acc@1']:+.3f} (≥ +{TARGET_GAIN}), "
          f"{t['mentions_per_s']:,.0f} mentions/s (≥ {TARGET_RATE:,.0f})")


def run_questions(linker: EntityLinker, data: Path, split: str | None) -> dict[str, Any]:
    from bench.data.linking_data import paraphrased_questions, slice_questions, slice_rows
    from linking_questions import evaluate, labels_of, print_rates

    half = split or "all"
    labels = labels_of(linker, sorted({r["subject"] for r in slice_rows(data, "all")}))
    out = {}
    for wordings in ("tune", "held", "fresh", "fresh2", "fresh3", "blind", "blind2", "blind3",
                     "blind4"):
        qs = paraphrased_questions(data, labels, split=half, wordings=wordings,
                                   per_relation=8, lowercase=True)
        if wordings == "tune":
            qs = slice_questions(data, half) + qs
        res = evaluate(linker, qs, labels)
        print_rates(f"Questions ({wordings} wordings; dev questions with the tune ones), "
                    f"split {half}", res)
        out[wordings] = {k: v for k, v in res.items() if k != "failures"}
    return out


def text_sets() -> dict[str, list[tuple[str, list[tuple[int, int, str]]]]]:
    """Our marked sentences: news and science (issue 13), fresh newswire (third round)."""
    from bench.data.linking_texts import texts
    from bench.data.linking_texts_fresh import texts as fresh

    return {"news": texts("news"), "science": texts("science"), "fresh": fresh()}


def run_texts(linker: EntityLinker, failures: int = 0) -> dict[str, Any]:
    """Per set of our sentences: acc@1 given the gold spans (in-KB golds), max-prior, and
    end to end (detected mentions whose best candidate has confidence ≥ E2E_CONFIDENCE;
    a prediction is right when it overlaps a gold span with the same QID)."""
    sets = text_sets()
    golds = sorted({q for v in sets.values() for _, ms in v for *_, q in ms})
    known = in_mirror_kb(linker, golds)
    base = MaxPrior(linker)
    out: dict[str, Any] = {}
    pooled = [0, 0, 0]
    misses = []
    lower: list[tuple[float, bool]] = []     # gold mentions in lower case: (confidence, right)
    for kind, docs in sets.items():
        n = ok = b = 0
        tp = n_pred = n_gold = 0
        for text, ms in docs:
            result = linker.link(text, spans=[(s, e) for s, e, _ in ms])
            for (s, e, q), lm in zip(ms, result.mentions, strict=True):
                if q not in known:
                    continue
                n += 1
                hit = bool(lm.best) and lm.best.id == q
                ok += hit
                if lm.best and text[s:e] == text[s:e].lower():
                    lower.append((lm.best.confidence, hit))
                b += base(text[s:e]) == q
                if not hit:
                    misses.append(f"[{kind}] {text[s:e]!r} gold {q}, got "
                                  f"{lm.best.id if lm.best else None} "
                                  f"({lm.best.label if lm.best else ''}) | {text}")
            gold = [(s, e, q) for s, e, q in ms if q in known]
            n_gold += len(gold)
            detected = linker.link(text, min_confidence=E2E_CONFIDENCE)
            for lm in detected.mentions:
                n_pred += 1
                tp += any(q == lm.best.id and s < lm.mention.end and lm.mention.start < e
                          for s, e, q in gold)
        e2e = prf(tp, n_pred, n_gold)
        out[kind] = {"mentions": n, "acc@1": ok / n, "baseline_acc@1": b / n,
                     "end_to_end": e2e}
        if kind in ("news", "science"):
            pooled = [pooled[0] + n, pooled[1] + ok, pooled[2] + b]
        print(f"{kind:<8} {n:>4} in-KB mentions  acc@1 {ok / n:.3f}  max-prior {b / n:.3f}"
              f"  end to end P {e2e['precision']:.3f} R {e2e['recall']:.3f} "
              f"F1 {e2e['f1']:.3f}")
    out["pooled"] = {"mentions": pooled[0], "acc@1": pooled[1] / pooled[0],
                     "baseline_acc@1": pooled[2] / pooled[0],
                     "gold_not_in_kb": len(golds) - len(known)}
    print(f"news+science {pooled[0]:>4} in-KB mentions  acc@1 {pooled[1] / pooled[0]:.3f}  "
          f"max-prior {pooled[2] / pooled[0]:.3f}  ({len(golds) - len(known)} of "
          f"{len(golds)} gold entities not in the KB, left out)")
    bins = [[lo / 5, (lo + 1) / 5, 0, 0] for lo in range(5)]
    for conf, hit in lower:
        b = bins[min(int(conf * 5), 4)]
        b[2] += 1
        b[3] += hit
    out["lower_case_reliability"] = [{"low": lo, "high": hi, "mentions": n, "right": r}
                                     for lo, hi, n, r in bins]
    print(f"gold mentions in lower case, all sets ({len(lower)}), best candidate's confidence "
          "bin: mentions, share right: " + "  ".join(
              f"[{lo:.1f},{hi:.1f}) {n} {r / n if n else float('nan'):.2f}"
              for lo, hi, n, r in bins))
    for line in misses[:failures]:
        print("  miss", line)
    out["misses"] = misses
    return out


def in_mirror_kb(linker: EntityLinker, ids: list[str]) -> set[str]:
    labels = linker.source.labels(ids)
    return {i for i, (label, _) in labels.items() if label != i}


def run_speed(linker: EntityLinker, data: Path) -> dict[str, Any]:
    """Link 10, 50 and 100 KB of distinct real text (tweets, then Mintaka questions and our
    sentences), each in one call."""
    from bench.data.linking_texts import texts

    parts = [t for k in ("news", "science") for t, _ in texts(k)]
    with open(data / "benchmarks" / "entity-linking" / "tweeki-gold.jsonl",
              encoding="utf-8") as f:
        parts += [json.loads(line)["sentence"] for line in f]
    with open(data / "benchmarks" / "mintaka-dev.jsonl", encoding="utf-8") as f:
        parts += [json.loads(line)["question"] for line in f]
    with open(data / "benchmarks" / "slice-qa-dev.jsonl", encoding="utf-8") as f:
        parts += [json.loads(line)["question"] for line in f]
    corpus = " ".join(parts)
    linker.link(corpus[-3000:])                       # warm-up
    out = {}
    for size in (10_000, 50_000, 100_000):
        text = corpus[:size]
        t0, c0 = time.perf_counter(), time.process_time()
        result = linker.link(text)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[f"{size // 1000}KB"] = {"seconds": dt, "cpu_seconds": cpu,
                                     "mentions": len(result.mentions),
                                     "mentions_per_s": len(result.mentions) / dt,
                                     "mentions_per_cpu_s": len(result.mentions) / cpu}
        print(f"{size // 1000:>4} KB in one call: {dt:6.2f} s ({cpu:.2f} s of CPU), "
              f"{len(result.mentions)} mentions, {len(result.mentions) / dt:,.0f} mentions/s "
              f"({len(result.mentions) / cpu:,.0f} per CPU second)")
    print(f"  ({len(corpus) // 1000} KB of distinct text available; load {os.getloadavg()})")
    return out


_COST_SCRIPT = """
import json, os, sys, time
t0 = time.perf_counter()
if sys.argv[1] == "sentence-transformers":
    import sentence_transformers  # noqa: F401
    print(json.dumps({"import_s": time.perf_counter() - t0}))
    raise SystemExit
from linking import EntityLinker
t1 = time.perf_counter()
linker = EntityLinker(sys.argv[2], index_path=sys.argv[3])
t2 = time.perf_counter()
linker.properties.link("Where was born?", limit=1)
t3 = time.perf_counter()
times = []
for phrase in ("Who was the spouse of?", "What languages does speak?", "Which label released?",
               "Where is based?", "What position does play?"):
    t = time.perf_counter()
    linker.properties.link(phrase, limit=1)
    times.append(time.perf_counter() - t)
print(json.dumps({"import_s": t1 - t0, "construct_s": t2 - t1, "first_property_s": t3 - t2,
                  "per_phrase_ms": 1000 * sorted(times)[len(times) // 2],
                  "torch_imported": "torch" in sys.modules}))
"""


def run_embedding_cost(db: Path) -> dict[str, Any]:
    """What MiniLM by default costs: importing sentence-transformers (the old runtime)
    beside importing linking, constructing a linker, its first property link with the
    property embeddings not yet stored (a fresh cache folder) and stored, and a phrase's
    median link time — each in a fresh process."""
    import subprocess
    import tempfile

    out: dict[str, Any] = {}
    index = f"{db}.linking"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache}
        runs = (("sentence-transformers import", "sentence-transformers"),
                ("default linker, cold store", "linker"),
                ("default linker, stored", "linker"))
        for name, what in runs:
            try:
                done = subprocess.run([sys.executable, "-c", _COST_SCRIPT, what, str(db),
                                       index], capture_output=True, text=True, env=env,
                                      timeout=900, check=True)
                out[name] = json.loads(done.stdout.strip().splitlines()[-1])
            except (subprocess.SubprocessError, ValueError, IndexError) as exc:
                out[name] = {"error": str(exc)[:200]}
            print(f"{name:<30} " + "  ".join(f"{k} {v:.3f}" if isinstance(v, float) else
                                             f"{k} {v}" for k, v in out[name].items()))
    print(f"  (load {os.getloadavg()})")
    return out


def run_rdf(mirror_linker: EntityLinker, data: Path, n: int = 200) -> dict[str, Any]:
    """Question linking on an RdfGraphKB: the mirror's terms and statements about the
    subjects of ``n`` dev questions (and the labels of their values), as an rdflib graph."""
    import rdflib
    from rdflib import Literal, URIRef
    from rdflib.namespace import RDFS, SKOS

    from kb.rdfgraph import RdfGraphKB
    from bench.data.linking_data import slice_rows
    from linking_questions import evaluate, print_rates

    kb_mirror = mirror_linker.kb
    rows = slice_rows(data, "all")[::max(1, 2000 // n)][:n]
    g = rdflib.Graph()
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    named: set[str] = set()

    def terms(eid: str) -> None:
        if eid in named:
            return
        named.add(eid)
        ent = kb_mirror.entity(eid)
        for lang, text in ent.labels.items():
            g.add((URIRef(wd + eid), RDFS.label, Literal(text, lang=lang)))
        for lang, texts_ in ent.aliases.items():
            for t in texts_:
                g.add((URIRef(wd + eid), SKOS.altLabel, Literal(t, lang=lang)))

    for r in rows:
        terms(r["subject"])
        for st in kb_mirror.statements(r["subject"], limit=200):
            if st.value.kind == "entity":
                g.add((URIRef(wd + st.subject), URIRef(wdt + st.property),
                       URIRef(wd + st.value.value)))
                try:
                    terms(st.value.value)
                except LookupError:
                    pass
    for pid in sorted({r["property"] for r in rows}):
        info = kb_mirror.property_info(pid)
        g.add((URIRef(wd + pid), RDFS.label, Literal(info.label, lang="en")))
        for a in info.aliases:
            g.add((URIRef(wd + pid), SKOS.altLabel, Literal(a, lang="en")))
    rdf = EntityLinker(RdfGraphKB(g, name="slice-subset"))
    from bench.data.linking_data import Question
    qs = [Question(r["question"], r["subject"], r["property"]) for r in rows]
    labels = {r["subject"]: kb_mirror.entity(r["subject"]).label("en") for r in rows}
    t0 = time.perf_counter()
    res = evaluate(rdf, qs, labels)
    print_rates(f"RdfGraphKB ({len(g)} triples about {n} dev questions' subjects; "
                f"{time.perf_counter() - t0:.1f} s)", res)
    return {k: v for k, v in res.items() if k != "failures"} | {"triples": len(g)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA,
                    help="the shared data folder [default: %(default)s]")
    ap.add_argument("--db", type=Path, help="a mirror of the T-REx slice [default: built once "
                    "in the user cache folder]")
    ap.add_argument("--limit", type=int, help="only the first N texts of each dataset")
    ap.add_argument("--split", choices=("first", "second"), help="only the first or the second "
                    "half of each dataset's texts: tune on one, report the other")
    ap.add_argument("--json", type=Path, help="also write every number (and the in-mirror "
                    "failures) to this file")
    ap.add_argument("--failures", type=int, default=0, metavar="N",
                    help="print N in-mirror disambiguation failures")
    ap.add_argument("--embeddings", action="store_true", help="add semantic similarity with "
                    "all-MiniLM-L6-v2 (the embeddings extra); throughput then includes it")
    ap.add_argument("--property-embeddings", action="store_true", help="MiniLM for property "
                    "linking only (EntityLinker(embeddings=None), the default when the extra "
                    "is installed); entities ranked without it")
    ap.add_argument("--lexical", action="store_true", help="no embeddings at all "
                    "(EntityLinker(embeddings=False)): the configuration without the extra")
    ap.add_argument("--sections", default="gold,questions,texts,speed,rdf",
                    help="which measurements to run [default: %(default)s]")
    args = ap.parse_args()
    sections = set(args.sections.split(","))
    docs, skipped = load_docs(args.data)
    docs = select(docs, limit=args.limit, split=args.split)
    db = args.db or default_db(args.data)
    linker = EntityLinker(db, embeddings=True if args.embeddings else (
        False if args.lexical else None))
    t0 = time.perf_counter()
    linker.index                                   # noqa: B018 - open (or build) the sidecar
    sidecar_s = time.perf_counter() - t0
    info = {"db": str(db), "docs": len(docs), "skipped": skipped,
            "embeddings": args.embeddings,
            "property_embeddings": linker.properties.embedder is not None,
            "sidecar_open_or_build_s": sidecar_s, "load_average": os.getloadavg(),
            "command": " ".join(["python", *sys.argv])}
    res: dict[str, Any] = {}
    if "gold" in sections:
        known = in_mirror(linker.mirror, {q for d in docs for *_, q in d.mentions} |
                          {q for d in docs for q in d.qids})
        res = run(docs, linker, known)
        print_tables(res, info)
        for f in res["failures"][:args.failures]:
            print(f"\n[{f['dataset']}] {f['text']}\n  {f['mention']!r}: gold {f['gold']}, "
                  f"got {f['got']}\n  {f['why']}")
    if "questions" in sections:
        res["questions"] = run_questions(linker, args.data, args.split)
    if "texts" in sections:
        print("\nGiven gold spans: our news and science sentences")
        res["texts"] = run_texts(linker, args.failures)
    if "speed" in sections:
        print("\nSpeed (detection + linking, one call per text)")
        res["speed"] = run_speed(linker, args.data)
    if "rdf" in sections:
        res["rdf"] = run_rdf(linker, args.data)
    if "embeddings" in sections:
        print("\nProperty embeddings by default: what they cost (fresh processes)")
        res["embedding_cost"] = run_embedding_cost(Path(db))
    info["load_average_after"] = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps({"info": info, **res}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
