"""Recompute the gold answers of the query-graph dev sets and fail on any mismatch.

The question files (JSON lines) were written by hand; their gold answers come from the data,
never from kgground's own code. A record's ``kb`` field names the KB it is asked of:
``slice`` (the T-REx slice mirror, ``--db``), ``demo`` (the bundled Nobel demo KB, read from its
Wikidata JSON file, ``--demo``) or ``paintings`` (the Turtle KB, ``--ttl``). Records without
``kb`` (the first sets) are ``paintings`` when they carry ``sparql``, else ``slice``.

* Path records (no ``sparql``) over a Wikidata-shaped KB (slice, demo):

  - answerable kinds (``one-hop``, ``two-hop``, ``three-hop``, ``list``): the gold ``answers``
    must equal every value at the end of ``path`` from ``subject`` (``"P19"`` follows a
    truthy statement forward, ``"^P19"`` backward), together with those of ``alt_paths`` where
    a record has them (the same fact stated the other way round: ``P47`` and ``^P47`` for
    "borders", ``P361`` and ``^P527`` for "part of"), and ``answer_labels`` their English
    labels; a ``list`` question has at least two answers;
  - ``no-relation``: the subject exists, and the asked-for Wikidata property
    (``absent_property``, where Wikidata has one) has no statement (nor qualifier) in the KB;
  - ``no-fact``: the subject exists and every path in ``absent`` (default: ``[path]``) leads
    nowhere from it;
  - ``no-entity``: no label or alias in the KB equals the made-up name (``mention``) after
    normalisation, and none is close to it (difflib ratio >= 0.85) unless the record names the
    real entity it deliberately resembles (``near``), whose label must then differ.

* Query records (with ``sparql``, every kind that needs more than a path: ``yes-no``,
  ``count``, ``time``, ``comparative``, ``superlative``, ``intersection``, and all paintings
  questions): the query's results are the gold answers, sorted. Slice and demo queries are
  written as for query.wikidata.org (``wd:``, ``wdt:``, ``p:``, ``ps:``, ``pq:``, ``rdfs:``,
  ``xsd:`` … need no PREFIX lines) and run with pyoxigraph over the KB's statements (the slice:
  its truthy ``wdt:`` triples; the demo: the WDQS RDF shape, qualifiers and ranks included);
  paintings queries run with rdflib on the Turtle file. Answers are written as: entity IDs
  (``"Q142"``) for Wikidata entities, full IRIs for the Turtle KB, a date at its precision
  (``"1955-04-18"``, ``"2022"`` for a year-precision date), a number's canonical lexical form
  (``"6"``, ``"1921"``), ``ASK`` as ``["yes"]``/``["no"]`` (the same convention as the
  paintings set), a single ``COUNT`` as its number string. Per kind: ``yes-no`` is an ASK
  query, ``count`` gives one number, ``list`` at least two values, the others at least one.
  For unanswerable kinds a query must find nothing (or an ASK's ``"no"``; the paintings set
  also takes ``"0"``), and ``no-entity`` records check ``mention`` as above.

Usage:
    python bench/check_gold.py bench/data/qgraph/*.jsonl              # check, exit 1 on mismatch
    python bench/check_gold.py --write FILE.jsonl                     # (re)compute answers in place
    python bench/check_gold.py --db /work/slice.sqlite --ttl tests/data/paintings.ttl \
        --demo store/demo/nobel-demo.json FILES

(``python -m bench check_gold ...`` is the same. The dev sets and their README are in
``bench/data/qgraph/``.)

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

ANSWERABLE = {"one-hop", "two-hop", "three-hop", "list"}       # gold: the values along a path
HOPS = {"one-hop": 1, "two-hop": 2, "three-hop": 3}
QUERY_KINDS = {"yes-no", "count", "time", "comparative", "superlative", "intersection"}
UNANSWERABLE = {"no-relation", "no-fact", "no-entity"}
KBS = {"slice", "demo", "paintings"}
PID = re.compile(r"^\^?P[1-9][0-9]*$")
QID = re.compile(r"^Q[1-9][0-9]*$")
NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
CLOSE = 0.85
REPO = Path(__file__).resolve().parents[1]

WD = "http://www.wikidata.org/entity/"
XSD = "http://www.w3.org/2001/XMLSchema#"
#: the prefixes query.wikidata.org predeclares that gold queries use; added when a query
#: does not declare them itself
WDQS_PREFIXES = {
    "wd": WD,
    "wds": WD + "statement/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "wikibase": "http://wikiba.se/ontology#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "schema": "http://schema.org/",
    "xsd": XSD,
}
#: Wikidata time precision → how many characters of "YYYY-MM-DD" a date answer keeps
PRECISION_CHARS = {9: 4, 10: 7, 11: 10}


def normalize(text: str) -> str:
    """Lower case, accents and punctuation removed, spaces collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def with_prefixes(query: str) -> str:
    """``query`` with PREFIX lines for the WDQS prefixes it uses but does not declare."""
    declared = {m.lower() for m in re.findall(r"(?i)\bPREFIX\s+(\w*):", query)}
    lines = [f"PREFIX {name}: <{iri}>" for name, iri in WDQS_PREFIXES.items()
             if name not in declared and re.search(rf"(?<![\w:]){name}:", query)]
    return "\n".join(lines + [query])


def canonical_number(text: str) -> str:
    """``"+2"`` → ``"2"``, ``"6.0"`` → ``"6"``: numbers compare by value, not spelling."""
    text = text.lstrip("+")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def close_names(key: str, terms) -> list[tuple[float, str, str]]:
    """Terms (entity, normalised text) within difflib ratio CLOSE of ``key``, not equal to it."""
    close = set()
    for entity, norm in terms:
        if norm and norm != key:
            ratio = difflib.SequenceMatcher(None, key, norm).ratio()
            if ratio >= CLOSE:
                close.add((round(ratio, 3), entity, norm))
    return sorted(close, reverse=True)


class OxigraphQueries:
    """SPARQL over a pyoxigraph store, with answers written as the dev sets write them.

    Subclasses provide ``_quads()`` (the KB as RDF) and may set ``precision`` (a date
    literal's lexical form → its Wikidata precision)."""

    precision: dict[str, int]
    _store = None

    def _quads(self):
        raise NotImplementedError

    def run(self, query: str) -> list[str]:
        import pyoxigraph

        if self._store is None:
            self._store = pyoxigraph.Store()
            self._store.bulk_extend(self._quads())
        result = self._store.query(with_prefixes(query))
        if isinstance(result, pyoxigraph.QueryBoolean):
            return ["yes" if bool(result) else "no"]
        if not isinstance(result, pyoxigraph.QuerySolutions):
            raise ValueError("a gold query must be SELECT or ASK")
        values = set()
        for row in result:
            for term in row:
                if term is not None:
                    values.add(self.render(term))
        return sorted(values)

    def render(self, term) -> str:
        import pyoxigraph

        if isinstance(term, pyoxigraph.NamedNode):
            iri = term.value
            return iri[len(WD):] if iri.startswith(WD) and QID.match(iri[len(WD):]) else iri
        if isinstance(term, pyoxigraph.Literal):
            datatype = term.datatype.value
            if datatype == XSD + "dateTime":
                chars = PRECISION_CHARS.get(self.precision.get(term.value, 11), 10)
                return term.value.lstrip("+")[:chars]
            if datatype in (XSD + "integer", XSD + "decimal", XSD + "double", XSD + "float",
                            XSD + "long", XSD + "int"):
                return canonical_number(term.value)
            return term.value
        raise ValueError(f"a gold query returned a blank node: {term}")


class Slice(OxigraphQueries):
    """Read-only SQL over the slice mirror; SPARQL over its truthy triples (pyoxigraph)."""

    def __init__(self, path: str):
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self._labels: dict[str, str | None] = {}
        self._steps: dict[tuple[str, str], frozenset[str]] = {}
        self.precision = {}

    def _quads(self):
        import pyoxigraph as ox

        direct = WDQS_PREFIXES["wdt"]
        rows = self.rows("select subject, property, value from statements "
                         "where value_kind = 'entity'")
        return [ox.Quad(ox.NamedNode(WD + s), ox.NamedNode(direct + p), ox.NamedNode(WD + v))
                for s, p, v in rows]

    def rows(self, sql: str, *args):
        return self.db.execute(sql, args).fetchall()

    def label(self, qid: str) -> str | None:
        if not QID.match(qid):
            return qid                       # a literal answer is its own label
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
            close = close_names(key, self.rows(sql, match))
        return exact, close


class Demo(OxigraphQueries):
    """The bundled demo KB read straight from its Wikidata JSON file (not through kgground's
    loader), as the RDF that query.wikidata.org would serve for it: ``wdt:`` for the truthy
    (best-rank) statements, ``p:``/``ps:``/``pq:`` for every statement with its qualifiers,
    ``wikibase:rank``, and labels, aliases and descriptions in every language."""

    RANKS = {"preferred": "PreferredRank", "normal": "NormalRank",
             "deprecated": "DeprecatedRank"}

    def __init__(self, path: str):
        records = json.loads(Path(path).read_text(encoding="utf-8"))
        if isinstance(records, dict):                     # {"entities": {...}} as the API gives
            records = list(records.get("entities", records).values())
        self.entities = {r["id"]: r for r in records}
        self.precision: dict[str, int] = {}
        self.truthy: dict[tuple[str, str], set[str]] = {}
        self.inverse: dict[tuple[str, str], set[str]] = {}
        self.used: set[str] = set()
        self.terms: list[tuple[str, str]] = []           # (entity, normalised label or alias)
        self.triples: list[tuple] = []                   # (subject IRI, predicate IRI, object)
        for rec in records:
            self._add_entity(rec)

    # -- reading the JSON --------------------------------------------------------------------
    def _value(self, snak: dict):
        """A snak's value as ("iri", IRI) or ("literal", lexical, datatype or None, lang)."""
        value = snak["datavalue"]["value"]
        kind = snak["datavalue"]["type"]
        if kind == "wikibase-entityid":
            return ("iri", WD + value["id"])
        if kind == "time":
            year, month, day = re.match(r"^\+?(-?\d+)-(\d\d)-(\d\d)", value["time"]).groups()
            lexical = f"{year}-{month if month != '00' else '01'}-{day if day != '00' else '01'}"
            lexical += "T00:00:00Z"
            known = self.precision.setdefault(lexical, value["precision"])
            if known != value["precision"]:
                raise ValueError(f"{lexical} has precisions {known} and {value['precision']}")
            return ("literal", lexical, XSD + "dateTime", None)
        if kind == "quantity":
            return ("literal", canonical_number(value["amount"]), XSD + "decimal", None)
        if kind == "monolingualtext":
            return ("literal", value["text"], None, value["language"])
        if snak.get("datatype") == "url":
            return ("iri", value)
        return ("literal", str(value), None, None)

    def _add_entity(self, rec: dict) -> None:
        subject = WD + rec["id"]
        rdfs, skos, schema = (WDQS_PREFIXES[k] for k in ("rdfs", "skos", "schema"))
        for field, predicate in (("labels", rdfs + "label"), ("descriptions",
                                                             schema + "description")):
            for lang, term in (rec.get(field) or {}).items():
                self.triples.append((subject, predicate, ("literal", term["value"], None, lang)))
                if field == "labels":
                    self.terms.append((rec["id"], normalize(term["value"])))
        for lang, terms in (rec.get("aliases") or {}).items():
            for term in terms:
                self.triples.append((subject, skos + "altLabel",
                                     ("literal", term["value"], None, lang)))
                self.terms.append((rec["id"], normalize(term["value"])))
        for pid, statements in (rec.get("claims") or {}).items():
            valued = [st for st in statements
                      if st["mainsnak"].get("snaktype") == "value" and st["rank"] != "deprecated"]
            best = [st for st in valued if st["rank"] == "preferred"] or valued
            for st in statements:
                self._add_statement(rec["id"], pid, st, truthy=st in best)

    def _add_statement(self, qid: str, pid: str, st: dict, truthy: bool) -> None:
        P = WDQS_PREFIXES
        subject = WD + qid
        node = P["wds"] + st["id"].replace("$", "-")
        self.used.add(pid)
        self.triples.append((subject, P["p"] + pid, ("iri", node)))
        self.triples.append((node, P["wikibase"] + "rank",
                             ("iri", P["wikibase"] + self.RANKS[st["rank"]])))
        if st["mainsnak"].get("snaktype") == "value":
            value = self._value(st["mainsnak"])
            self.triples.append((node, P["ps"] + pid, value))
            if truthy:
                self.triples.append((subject, P["wdt"] + pid, value))
                shown = self.render_value(value)
                self.truthy.setdefault((qid, pid), set()).add(shown)
                self.inverse.setdefault((shown, pid), set()).add(qid)
        for qpid, snaks in (st.get("qualifiers") or {}).items():
            self.used.add(qpid)
            for snak in snaks:
                if snak.get("snaktype") == "value":
                    self.triples.append((node, P["pq"] + qpid, self._value(snak)))

    def render_value(self, value) -> str:
        if value[0] == "iri":
            iri = value[1]
            return iri[len(WD):] if iri.startswith(WD) else iri
        _, lexical, datatype, _ = value
        if datatype == XSD + "dateTime":
            return lexical[:PRECISION_CHARS.get(self.precision[lexical], 10)]
        return lexical

    def _quads(self):
        import pyoxigraph as ox

        def term(value):
            if value[0] == "iri":
                return ox.NamedNode(value[1])
            _, lexical, datatype, lang = value
            if lang:
                return ox.Literal(lexical, language=lang)
            return ox.Literal(lexical, datatype=ox.NamedNode(datatype or XSD + "string"))

        return [ox.Quad(ox.NamedNode(s), ox.NamedNode(p), term(o)) for s, p, o in self.triples]

    # -- the interface the checks use ----------------------------------------------------------
    def label(self, value: str) -> str | None:
        if not QID.match(value):
            return value                     # a date, a number or an IRI is its own label
        rec = self.entities.get(value)
        if rec is None:
            return None
        english = (rec.get("labels") or {}).get("en")
        return english["value"] if english else None

    def exists(self, qid: str) -> bool:
        return qid in self.entities

    def follow(self, subject: str, path: list[str]) -> set[str]:
        nodes = {subject}
        for prop in path:
            if prop.startswith("^"):
                nodes = set().union(*(self.inverse.get((n, prop[1:]), set()) for n in nodes))
            else:
                nodes = set().union(*(self.truthy.get((n, prop), set()) for n in nodes))
        return nodes

    def property_used(self, pid: str) -> bool:
        return pid in self.used

    def names(self, mention: str) -> tuple[list[str], list[tuple[float, str, str]]]:
        key = normalize(mention)
        exact = sorted({entity for entity, norm in self.terms if norm == key})
        return exact, close_names(key, self.terms)


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


def sort_answers(answers) -> list[str]:
    """Entity IDs by number (Q5 before Q42), then everything else as text."""
    return sorted(answers, key=lambda a: (0, len(a), a) if QID.match(a) else (1, 0, a))


def kind_problems(kind: str, answers: list[str], query: str | None) -> list[str]:
    """What an answer set of this kind must look like, whatever the KB says."""
    problems = []
    if kind == "yes-no":
        if query is not None and not re.search(r"(?i)\bASK\b", query):
            problems.append("a yes-no question's gold query is an ASK query")
        if answers not in (["yes"], ["no"]):
            problems.append(f"a yes-no answer is ['yes'] or ['no'], not {answers}")
    elif kind == "count":
        if len(answers) != 1 or not NUMBER.match(answers[0]):
            problems.append(f"a count is one number, not {answers}")
    elif kind == "list":
        if len(answers) < 2:
            problems.append(f"a list question needs several answers, the KB has {answers}")
    elif kind in UNANSWERABLE:
        pass
    elif not answers:
        problems.append("the gold is empty: no answer in the KB")
    return problems


def check_wikidata(kb, rec: dict, write: bool) -> list[str]:
    """A record over a Wikidata-shaped KB: the slice mirror or the demo KB."""
    kind = rec.get("kind")
    problems = []
    subject = rec.get("subject")
    query = rec.get("sparql")
    if kind in UNANSWERABLE:
        if rec.get("answers") != [] and not write:
            problems.append("an unanswerable question must have answers []")
        if write:
            rec["answers"], rec["answer_labels"] = [], []
        if not rec.get("note"):
            problems.append("an unanswerable question needs a note saying what is missing")
        if query is not None:
            try:
                found = kb.run(query)
            except Exception as exc:  # a broken query is a broken record
                return problems + [f"sparql failed: {exc}"]
            if found and found != ["no"]:
                problems.append(f"unanswerable, but the gold query finds {found[:5]}")
        if kind == "no-entity":
            if subject is not None:
                problems.append("a no-entity record has subject null")
            return problems + check_names(kb, rec)
        if not (isinstance(subject, str) and QID.match(subject) and kb.exists(subject)):
            return problems + [f"subject {subject!r} is not in the KB"]
        if kind == "no-relation":
            pid = rec.get("absent_property")
            if pid and kb.property_used(pid):
                problems.append(f"the KB has statements of {pid}: not a missing relation")
        else:
            for path in rec.get("absent") or [rec.get("path")]:
                if not path or not all(PID.match(p) for p in path):
                    problems.append(f"bad path {path!r}")
                    continue
                found = kb.follow(subject, path)
                if found:
                    problems.append(f"{subject} {path} has values in the KB: "
                                    f"{sort_answers(found)[:5]}")
        return problems

    if kind not in ANSWERABLE | QUERY_KINDS:
        return [f"unknown kind {kind!r}"]
    if subject is not None and not (isinstance(subject, str) and QID.match(subject)
                                    and kb.exists(subject)):
        return [f"subject {subject!r} is not in the KB"]
    if query is not None:
        try:
            answers = sort_answers(kb.run(query))
        except Exception as exc:  # a broken query is a broken record
            return [f"sparql failed: {exc}"]
    elif kind in ANSWERABLE:
        path = rec.get("path") or []
        if subject is None:
            return ["a path question needs a subject"]
        for one in [path] + list(rec.get("alt_paths") or []):
            if not one or not all(PID.match(p) for p in one):
                return [f"bad path {one!r}"]
        if kind in HOPS and len(path) != HOPS[kind]:
            problems.append(f"kind {kind} but path has {len(path)} hops")
        found = kb.follow(subject, path)
        for alt in rec.get("alt_paths") or []:
            found |= kb.follow(subject, alt)
        answers = sort_answers(found)
    else:
        return [f"a {kind} question needs a gold 'sparql' query"]
    problems += kind_problems(kind, answers, query)
    labels = [kb.label(a) for a in answers]
    if write:
        rec["answers"], rec["answer_labels"] = answers, labels
    elif sorted(rec.get("answers", [])) != sorted(answers):
        problems.append(f"answers {rec.get('answers')} != KB {answers}")
    elif rec.get("answer_labels") != labels:
        problems.append(f"answer_labels {rec.get('answer_labels')} != KB {labels}")
    return problems


def check_turtle(kb: Turtle, rec: dict, write: bool) -> list[str]:
    kind = rec.get("kind")
    problems = []
    if kind == "no-entity":
        problems += check_names(kb, rec)
    elif rec.get("subject") and not kb.has(rec["subject"]):
        problems.append(f"subject {rec['subject']} is not in the graph")
    if "sparql" not in rec:
        return problems + ["a paintings question needs a gold 'sparql' query"]
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


def kb_of(rec: dict) -> str:
    """The KB a record is asked of (records of the first sets carry no ``kb`` field)."""
    return rec.get("kb") or ("paintings" if "sparql" in rec else "slice")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="question files (JSON lines)")
    parser.add_argument("--db", default="/work/slice.sqlite", help="the slice mirror (SQLite)")
    parser.add_argument("--ttl", default=str(REPO / "tests" / "data" / "paintings.ttl"),
                        help="the Turtle KB of the paintings questions")
    parser.add_argument("--demo", default=str(REPO / "store" / "demo" / "nobel-demo.json"),
                        help="the demo KB's Wikidata JSON file (records with kb 'demo')")
    parser.add_argument("--write", action="store_true", help="fill answers/answer_labels in place")
    args = parser.parse_args(argv)

    kbs: dict[str, object] = {}

    def kb_for(name: str):
        if name not in kbs:
            if name == "slice":
                if not Path(args.db).exists():
                    raise FileNotFoundError(f"slice mirror {args.db} not found (give --db)")
                kbs[name] = Slice(args.db)
            elif name == "demo":
                kbs[name] = Demo(args.demo)
            else:
                kbs[name] = Turtle(args.ttl)
        return kbs[name]

    failures = 0
    for file in args.files:
        lines = file.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        kinds, seen = Counter(), Counter(r["question"].strip().lower() for r in records)
        bad = 0
        for number, rec in enumerate(records, 1):
            name = kb_of(rec)
            if name not in KBS:
                problems = [f"unknown kb {name!r} (one of {sorted(KBS)})"]
            else:
                try:
                    kb = kb_for(name)
                except FileNotFoundError as exc:
                    print(f"error: {exc}", file=sys.stderr)
                    return 2
                if name == "paintings":
                    problems = check_turtle(kb, rec, args.write)
                else:
                    problems = check_wikidata(kb, rec, args.write)
            if seen[rec["question"].strip().lower()] > 1:
                problems.append("the same question appears twice in the file")
            if not str(rec.get("style") or "").strip():
                problems.append("a record needs a style")
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
