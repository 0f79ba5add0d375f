"""Recompute the gold answers of the query-graph dev sets and fail on any mismatch.

The question files (JSON lines) were written by hand; their gold answers come from the data,
never from kgground's own code. This script recomputes every one of them:

* Slice questions (records without a ``sparql`` field) are checked against the slice mirror
  with plain SQL over its ``statements`` and ``terms`` tables:

  - answerable kinds (``one-hop``, ``two-hop``, ``three-hop``): the gold ``answers`` must equal
    every value at the end of ``path`` from ``subject`` (``"P19"`` follows a statement forward,
    ``"^P19"`` backward), together with those of ``alt_paths`` where a record has them (the
    same fact stated the other way round: ``P47`` and ``^P47`` for "borders", ``P361`` and
    ``^P527`` for "part of"), and ``answer_labels`` their English labels;
  - ``no-relation``: the subject exists, and the asked-for Wikidata property
    (``absent_property``, where Wikidata has one) has no statement anywhere in the slice;
  - ``no-fact``: the subject exists and every path in ``absent`` (default: ``[path]``) leads
    nowhere from it;
  - ``no-entity``: no label or alias in the slice equals the made-up name (``mention``) after
    normalisation, and none is close to it (difflib ratio >= 0.85) unless the record names the
    real entity it deliberately resembles (``near``), whose label must then differ.

* Turtle-KB questions (records with a ``sparql`` field) are checked with rdflib against
  ``tests/data/paintings.ttl`` (``--ttl``): the query's results are the gold answers (IRIs
  or literal lexical forms, sorted; ``ASK`` gives ``["yes"]``/``["no"]``; a single
  ``COUNT`` gives its number as a string). ``no-entity`` records check ``mention`` against
  the graph's labels as above.

Usage:
    python bench/qgraph/check_gold.py bench/qgraph/*.jsonl            # check, exit 1 on mismatch
    python bench/qgraph/check_gold.py --write FILE.jsonl              # (re)compute answers in place
    python bench/qgraph/check_gold.py --db /work/slice.sqlite --ttl tests/data/paintings.ttl FILES

``--write`` fills ``answers`` and ``answer_labels`` of answerable records from the data (it is
how the files were made); a check run never writes.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sqlite3
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ANSWERABLE = {"one-hop", "two-hop", "three-hop"}
UNANSWERABLE = {"no-relation", "no-fact", "no-entity"}
PID = re.compile(r"^\^?P[1-9][0-9]*$")
QID = re.compile(r"^Q[1-9][0-9]*$")
CLOSE = 0.85
REPO = Path(__file__).resolve().parents[2]


def normalize(text: str) -> str:
    """Lower case, accents and punctuation removed, spaces collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


class Slice:
    """Read-only SQL over the slice mirror."""

    def __init__(self, path: str):
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self._labels: dict[str, str | None] = {}
        self._steps: dict[tuple[str, str], frozenset[str]] = {}

    def rows(self, sql: str, *args):
        return self.db.execute(sql, args).fetchall()

    def label(self, qid: str) -> str | None:
        if qid not in self._labels:
            r = self.rows("select text from terms where entity=? and kind=0 and lang='en'", qid)
            self._labels[qid] = r[0][0] if r else None
        return self._labels[qid]

    def exists(self, qid: str) -> bool:
        return bool(self.rows("select 1 from entities where id=?", qid))

    def step(self, node: str, prop: str) -> frozenset[str]:
        """The values one statement away from ``node`` (``^P`` follows it backwards)."""
        if (node, prop) not in self._steps:
            if prop.startswith("^"):
                sql = "select subject from statements where property=? and value=?"
                found = self.rows(sql, prop[1:], node)
            else:
                found = self.rows("select value from statements where subject=? and property=?",
                                  node, prop)
            self._steps[node, prop] = frozenset(r[0] for r in found)
        return self._steps[node, prop]

    def follow(self, subject: str, path: list[str]) -> set[str]:
        nodes = {subject}
        for prop in path:
            nodes = set().union(*(self.step(n, prop) for n in nodes)) if nodes else set()
        return nodes

    def property_used(self, pid: str) -> bool:
        return bool(self.rows("select 1 from statements where property=? limit 1", pid))

    def names(self, mention: str) -> tuple[list[str], list[tuple[float, str, str]]]:
        """Entities with a term equal to ``mention`` (normalised), and close terms."""
        key = normalize(mention)
        exact = sorted({r[0] for r in self.rows("select entity from terms where norm=?", key)})
        tokens = [t for t in key.split() if len(t) > 1]
        close: list[tuple[float, str, str]] = []
        if tokens:
            # whole tokens, and 4-letter prefixes so that "Vellmarsk" meets "Vellmar"
            terms = ['"%s"' % t.replace('"', "") for t in tokens]
            terms += ['"%s" *' % t[:4].replace('"', "") for t in tokens if len(t) >= 5]
            match = " OR ".join(terms)
            sql = ("select t.entity, t.norm from terms_fts f join terms t on t.id = f.rowid "
                   "where terms_fts match ? limit 20000")
            for entity, norm in self.rows(sql, match):
                ratio = difflib.SequenceMatcher(None, key, norm or "").ratio()
                if ratio >= CLOSE and norm != key:
                    close.append((round(ratio, 3), entity, norm))
        return exact, sorted(set(close), reverse=True)


class Turtle:
    """rdflib over the Turtle KB."""

    def __init__(self, path: str):
        import rdflib

        self.rdflib = rdflib
        self.graph = rdflib.Graph()
        self.graph.parse(path, format="turtle")

    def run(self, query: str) -> list[str]:
        result = self.graph.query(query)
        if result.type == "ASK":
            return ["yes" if result.askAnswer else "no"]
        values = set()
        for row in result:
            for value in row:
                if value is not None:
                    values.add(str(value))
        return sorted(values)

    def has(self, iri: str) -> bool:
        from rdflib import URIRef

        return (URIRef(iri), None, None) in self.graph

    def label(self, value: str) -> str:
        from rdflib import URIRef
        from rdflib.namespace import RDFS

        if not value.startswith("http"):
            return value
        labels = list(self.graph.objects(URIRef(value), RDFS.label))
        english = [lab for lab in labels if getattr(lab, "language", None) in ("en", None)]
        return str((english or labels or [value])[0])

    def names(self, mention: str) -> tuple[list[str], list[tuple[float, str, str]]]:
        from rdflib.namespace import RDFS, SKOS

        key = normalize(mention)
        exact, close = set(), set()
        for prop in (RDFS.label, SKOS.altLabel):
            for subject, literal in self.graph.subject_objects(prop):
                norm = normalize(str(literal))
                if norm == key:
                    exact.add(str(subject))
                elif difflib.SequenceMatcher(None, key, norm).ratio() >= CLOSE:
                    close.add((1.0, str(subject), norm))
        return sorted(exact), sorted(close, reverse=True)


def check_names(kb, rec: dict) -> list[str]:
    mention = rec.get("mention")
    if not mention:
        return ["no-entity record without 'mention' (the made-up name)"]
    exact, close = kb.names(mention)
    problems = []
    if exact:
        problems.append(f"{mention!r} is a label or alias of {exact[:5]}")
    near = rec.get("near")
    if near:
        close = [c for c in close if c[1] != near]
        near_label = kb.label(near)
        if near_label is None:
            problems.append(f"near entity {near} is not in the KB")
        elif normalize(near_label) == normalize(mention):
            problems.append(f"near entity {near} has the made-up name as its label")
    if close:
        problems.append(f"{mention!r} is close to {close[:3]}")
    return problems


def expected_slice(kb: Slice, rec: dict) -> tuple[list[str], list[str | None]] | None:
    """The gold (answers, labels) an answerable slice record should carry."""
    found = kb.follow(rec["subject"], rec["path"])
    for path in rec.get("alt_paths") or []:
        found |= kb.follow(rec["subject"], path)
    answers = sorted(found, key=lambda q: (len(q), q))
    return answers, [kb.label(a) for a in answers]


def check_slice(kb: Slice, rec: dict, write: bool) -> list[str]:
    kind = rec.get("kind")
    problems = []
    if kind in ANSWERABLE:
        subject, path = rec.get("subject"), rec.get("path") or []
        if not (isinstance(subject, str) and QID.match(subject)):
            return [f"bad subject {subject!r}"]
        for one in [path] + list(rec.get("alt_paths") or []):
            if not one or not all(PID.match(p) for p in one):
                return [f"bad path {one!r}"]
        hops = {"one-hop": 1, "two-hop": 2, "three-hop": 3}[kind]
        if len(path) != hops:
            problems.append(f"kind {kind} but path has {len(path)} hops")
        answers, labels = expected_slice(kb, rec)
        if not answers:
            problems.append("the path leads nowhere: no answer in the slice")
        if write:
            rec["answers"], rec["answer_labels"] = answers, labels
        else:
            if sorted(rec.get("answers", [])) != sorted(answers):
                problems.append(f"answers {rec.get('answers')} != slice {answers}")
            elif rec.get("answer_labels") != labels:
                problems.append(f"answer_labels {rec.get('answer_labels')} != slice {labels}")
    elif kind in UNANSWERABLE:
        if rec.get("answers") != [] and not write:
            problems.append("an unanswerable question must have answers []")
        if write:
            rec["answers"], rec["answer_labels"] = [], []
        if not rec.get("note"):
            problems.append("an unanswerable question needs a note saying what is missing")
        subject = rec.get("subject")
        if kind == "no-entity":
            if subject is not None:
                problems.append("a no-entity record has subject null")
            problems += check_names(kb, rec)
        else:
            if not (isinstance(subject, str) and QID.match(subject) and kb.exists(subject)):
                return problems + [f"subject {subject!r} is not in the slice"]
            if kind == "no-relation":
                pid = rec.get("absent_property")
                if pid and kb.property_used(pid):
                    problems.append(f"the slice has statements of {pid}: not a missing relation")
            else:
                paths = rec.get("absent") or [rec.get("path")]
                for path in paths:
                    if not path or not all(PID.match(p) for p in path):
                        problems.append(f"bad path {path!r}")
                        continue
                    found = kb.follow(subject, path)
                    if found:
                        problems.append(f"{subject} {path} has values in the slice: "
                                        f"{sorted(found)[:5]}")
    else:
        problems.append(f"unknown kind {kind!r}")
    return problems


def check_turtle(kb: Turtle, rec: dict, write: bool) -> list[str]:
    kind = rec.get("kind")
    problems = []
    if kind == "no-entity":
        problems += check_names(kb, rec)
    elif rec.get("subject") and not kb.has(rec["subject"]):
        problems.append(f"subject {rec['subject']} is not in the graph")
    try:
        answers = kb.run(rec["sparql"])
    except Exception as exc:  # a broken query is a broken record
        return [f"sparql failed: {exc}"]
    if kind in UNANSWERABLE:
        if answers and answers != ["0"] and answers != ["no"]:
            problems.append(f"unanswerable, but the query finds {answers}")
        answers = []
        if not rec.get("note"):
            problems.append("an unanswerable question needs a note saying what is missing")
    elif not answers:
        problems.append("the query finds nothing")
    labels = [kb.label(a) for a in answers]
    if write:
        rec["answers"], rec["answer_labels"] = answers, labels
    else:
        if sorted(rec.get("answers", [])) != answers:
            problems.append(f"answers {rec.get('answers')} != graph {answers}")
        elif rec.get("answer_labels") != labels:
            problems.append(f"answer_labels {rec.get('answer_labels')} != graph {labels}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="question files (JSON lines)")
    parser.add_argument("--db", default="/work/slice.sqlite", help="the slice mirror (SQLite)")
    parser.add_argument("--ttl", default=str(REPO / "tests" / "data" / "paintings.ttl"),
                        help="the Turtle KB of the paintings questions")
    parser.add_argument("--write", action="store_true", help="fill answers/answer_labels in place")
    args = parser.parse_args(argv)

    slice_kb: Slice | None = None
    turtle_kb: Turtle | None = None
    failures = 0
    for file in args.files:
        lines = file.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        kinds, seen = Counter(), Counter(r["question"].strip().lower() for r in records)
        bad = 0
        for number, rec in enumerate(records, 1):
            if "sparql" in rec:
                turtle_kb = turtle_kb or Turtle(args.ttl)
                problems = check_turtle(turtle_kb, rec, args.write)
            else:
                if slice_kb is None:
                    if not Path(args.db).exists():
                        print(f"error: slice mirror {args.db} not found (give --db)",
                              file=sys.stderr)
                        return 2
                    slice_kb = Slice(args.db)
                problems = check_slice(slice_kb, rec, args.write)
            if seen[rec["question"].strip().lower()] > 1:
                problems.append("the same question appears twice in the file")
            kinds[rec.get("kind")] += 1
            for problem in problems:
                bad += 1
                print(f"{file}:{number}: {rec['question']!r}: {problem}")
        failures += bad
        if args.write:
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
            file.write_text(text, encoding="utf-8")
        summary = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        verdict = "OK" if not bad else f"{bad} problem(s)"
        print(f"{file}: {len(records)} questions ({summary}): {verdict}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
