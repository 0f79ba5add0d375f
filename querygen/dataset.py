"""Training data for the query generator: (question, SPARQL) pairs → label-level queries with
their rule-made negatives, as Chain of Knowledge trains its generator.

    pairs = read_pairs("qald9plus-train.jsonl")            # (question, gold SPARQL, id)
    for ex in build_examples(pairs, kb):                   # gold → label level + negatives
        print(ex.question, ex.query, [n.kind for n in ex.negatives])

Input files are JSON lines, either ``{question, sparql}`` (QALD, WikiWebQuestions,
SimpleQuestions as the GRASP project converts them) or ``{question, subject, property}``
(one-hop questions, turned into ``SELECT ?x WHERE { wd:S wdt:P ?x . }``). The gold query is
rewritten with the KB's labels: ``wd:Q42 wdt:P108 ?x`` → ``wd:/Douglas Adams/ wdt:/employer/
?x``; a query naming an ID the KB has no label for is skipped (and counted).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from querygen.question_entities import linked_entities
from querygen.negatives import Negative, negatives
from querygen.terms import (ID_PREFIXES, Token, label_of, lex, slot, well_formed,
                            wikidata_id)
from kb.base import KnowledgeBase
from kb.contracts import MentionLinker
from store.sparql import WIKIDATA_PREFIXES
from store.errors import KGGroundError


@dataclass(frozen=True, slots=True)
class Example:
    """One training example: the question, the gold query at label level (canonical form),
    the gold query as given (ID level), its negatives, where it came from, and the labels
    of the entities the linker found in the question (``None``: not linked; the model
    then reads the question alone)."""
    question: str
    query: str
    id_query: str
    negatives: tuple[Negative, ...] = ()
    source: str = ""
    entities: tuple[str, ...] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {"question": self.question, "query": self.query, "id_query": self.id_query,
               "negatives": [n.as_dict() for n in self.negatives], "source": self.source}
        if self.entities is not None:
            out["entities"] = list(self.entities)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Example:
        entities = data.get("entities")
        return cls(data["question"], data["query"], data.get("id_query", ""),
                   tuple(Negative(n["kind"], n["text"], n.get("detail", ""))
                         for n in data.get("negatives", ())), data.get("source", ""),
                   None if entities is None else tuple(str(e) for e in entities))


@dataclass
class BuildReport:
    """What ``build_examples`` kept and skipped, and why."""
    kept: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _in_declaration(tokens: list[Token]) -> set[int]:
    """Indexes of the tokens of ``PREFIX name: <iri>`` declarations of Wikidata's prefixes
    (implicit in label-level queries)."""
    out: set[int] = set()
    for i, tok in enumerate(tokens[:-2]):
        if tok.kind == "word" and tok.text.upper() == "PREFIX" and tokens[i + 1].kind == "pname" \
                and tokens[i + 2].kind == "iri" \
                and WIKIDATA_PREFIXES.get(tokens[i + 1].prefix) == tokens[i + 2].text[1:-1]:
            out.update((i, i + 1, i + 2))
    return out


def canonical(query: str) -> str:
    """The query's tokens joined by single spaces, without comments and without the
    declarations of Wikidata's well-known prefixes: the form compared for exact match."""
    tokens = lex(query)
    skip = _in_declaration(tokens)
    return " ".join(t.text for i, t in enumerate(tokens) if i not in skip and t.kind != "comment")


def to_label_level(query: str, kb: KnowledgeBase, *, lang: str = "en") -> str:
    """``query`` with every Wikidata entity and property ID replaced by a slot with its
    label in the KB, in canonical form. Raises ``LookupError`` naming an ID the KB has no
    label for."""
    tokens = lex(query)
    skip = _in_declaration(tokens)
    prefixes = {**WIKIDATA_PREFIXES}
    out = []
    for i, tok in enumerate(tokens):
        if i in skip or tok.kind == "comment":
            continue
        found = wikidata_id(tok, prefixes)
        if found is not None and well_formed(*found):
            kind, local = found
            label = label_of(kb, local, lang)
            if label is None or any(ch < " " for ch in label):
                raise LookupError(f"{kb.name} has no usable label for {local}")
            prefix = tok.prefix if tok.kind == "pname" else _prefix_of(tok.text[1:-1])
            out.append(slot(prefix, label))
        else:
            out.append(tok.text)
    return " ".join(out)


def _prefix_of(iri: str) -> str:
    for prefix in ID_PREFIXES:
        ns = WIKIDATA_PREFIXES[prefix]
        if iri.startswith(ns) and "/" not in iri[len(ns):]:
            return prefix
    return "wd"


def read_pairs(path: str | Path) -> Iterator[tuple[str, str, str]]:
    """(question, gold SPARQL, example id) from a JSON-lines file of either layout (see the
    module docstring). Lines with neither layout raise ValueError naming the line."""
    path = Path(path)
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc.msg})") from None
            ident = str(row.get("id", f"{path.stem}:{n}"))
            if row.get("question") and row.get("sparql"):
                yield row["question"], row["sparql"], ident
            elif row.get("question") and row.get("subject") and row.get("property"):
                yield (row["question"],
                       f"SELECT ?x WHERE {{ wd:{row['subject']} wdt:{row['property']} ?x . }}",
                       ident)
            else:
                raise ValueError(f"{path}:{n}: expected 'question' with 'sparql', or with "
                                 "'subject' and 'property'")


def build_examples(pairs: Iterable[tuple[str, str, str]], kb: KnowledgeBase, *, seed: int = 0,
                   lang: str = "en", report: BuildReport | None = None,
                   progress: bool = False,
                   linker: MentionLinker | None = None) -> Iterator[Example]:
    """Examples for ``pairs``: the gold rewritten to label level with the KB's labels, and
    its negatives (one per kind, at label level). Pairs that cannot be rewritten are
    skipped and counted in ``report``. With ``linker`` (an ``EntityLinker``) each example
    also gets the labels of the entities it finds in the question
    (``querygen.question_entities.linked_entities``), which the model then reads."""
    report = report if report is not None else BuildReport()
    items = list(pairs) if progress else pairs
    if progress:
        from tqdm import tqdm
        items = tqdm(items, desc="building examples", unit="pair")
    for question, sparql, ident in items:
        try:
            label_query = to_label_level(sparql, kb, lang=lang)
        except LookupError:
            report.skip("an ID without a label in the KB")
            continue
        try:
            made = negatives(label_query, kb, seed=seed, lang=lang)
        except KGGroundError:
            report.skip("the KB could not answer while making negatives")
            continue
        if not made:
            report.skip("no negative could be made")
            continue
        report.kept += 1
        entities = (None if linker is None else
                    tuple(linked_entities(linker, question, lang=lang)))
        yield Example(question, label_query, canonical(sparql), tuple(made), ident, entities)


def write_examples(examples: Iterable[Example], path: str | Path) -> int:
    """Write examples as JSON lines; returns how many. The file appears whole or not at
    all: an interrupted build (``examples`` is often a generator linking each question)
    leaves no partial file that would later train on part of the data."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    n = 0
    try:
        with tmp.open("w", encoding="utf-8") as f:
            for ex in examples:
                f.write(json.dumps(ex.as_dict(), ensure_ascii=False) + "\n")
                n += 1
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return n


def read_examples(path: str | Path) -> list[Example]:
    """Examples written by ``write_examples``; a bad line raises ValueError naming it."""
    out = []
    with Path(path).open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(Example.from_dict(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{n}: not a training example ({exc}); build the "
                                 "file with: kgground querygen dataset") from None
    return out
