"""A query as a small structure, rendered label-level (CoK slots) and grounded (IDs).

A ``QueryPlan`` is a basic graph pattern (``Edge``s between ``Var``s, linked entities and
literals), an answer form (select / count / ask), and optional ordering. The rule-based
generator builds plans; ``QueryPlan.generated`` renders one into a ``GeneratedQuery``:

    wd:/Douglas Adams/ wdt:/employer/ ?x        (label level: names in slots)
    wd:Q42 wdt:P108 ?x                          (grounded)
    PREFIX wd: <…> PREFIX wdt: <…>
    SELECT DISTINCT ?x WHERE { wd:Q42 wdt:P108 ?x . }   (text: what runs)

Slots follow ``linking.grounding``: ``wd:/label/`` for an entity, ``wdt:/label/`` for a
property, ``/`` inside a label written ``\\/``. IDs that are not Wikidata IDs (a custom
KB's IRIs) are written ``<iri>`` in the grounded form.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from querygen.types import AnswerForm, GeneratedQuery, LinkingDecision
from store.vocab import ENTITY_ID, PROPERTY_ID

PREFIXES = {
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}


@dataclass(frozen=True, slots=True)
class Var:
    name: str

    def __str__(self) -> str:
        return f"?{self.name}"


@dataclass(frozen=True, slots=True)
class Literal:
    """A literal value, already in SPARQL syntax (``"1879-03-14"^^xsd:dateTime``)."""
    sparql: str


@dataclass(frozen=True, slots=True)
class Path:
    """A property path of fixed properties: ``wdt:P31/wdt:P279*`` (``star``: the last
    step repeats zero or more times). Its properties are fixed by the rules, not linked
    from words, so the label-level form writes them as IDs too."""
    steps: tuple[LinkingDecision, ...]
    star: bool = False

    def render(self) -> str:
        out = "/".join(property_term(s.id) for s in self.steps)
        return out + "*" if self.star else out


def escape_label(label: str) -> str:
    """A label as it may stand between the slashes of a slot."""
    return label.replace("\\", "\\\\").replace("/", "\\/").replace("\n", " ")


def entity_term(id: str) -> str:
    """``Q42`` → ``wd:Q42``; a custom KB's IRI → ``<iri>``."""
    return f"wd:{id}" if ENTITY_ID.match(id) else f"<{id}>"


def property_term(id: str) -> str:
    """``P108`` → ``wdt:P108``; a custom KB's IRI → ``<iri>``."""
    return f"wdt:{id}" if PROPERTY_ID.match(id) else f"<{id}>"


def _node(node: object, grounded: bool) -> str:
    if isinstance(node, Var):
        return str(node)
    if isinstance(node, Literal):
        return node.sparql
    if isinstance(node, LinkingDecision):
        if grounded:
            return entity_term(node.id)
        return f"wd:/{escape_label(node.chosen.label or node.label)}/"
    raise TypeError(f"not a query node: {node!r}")


def _predicate(node: object, grounded: bool) -> str:
    if isinstance(node, Var):
        return str(node)
    if isinstance(node, Path):
        return node.render()
    if isinstance(node, LinkingDecision):
        if grounded:
            return property_term(node.id)
        return f"wdt:/{escape_label(node.chosen.label or node.label)}/"
    raise TypeError(f"not a predicate: {node!r}")


def _ground_id(node: object) -> str:
    if isinstance(node, Var):
        return str(node)
    if isinstance(node, Path):
        return node.render()
    if isinstance(node, Literal):
        return node.sparql
    assert isinstance(node, LinkingDecision)
    return node.id


@dataclass(frozen=True, slots=True)
class Edge:
    """One triple pattern: subject, predicate (a property decision or a variable), object."""
    subject: object
    predicate: object
    object: object

    def render(self, grounded: bool) -> str:
        return (f"{_node(self.subject, grounded)} {_predicate(self.predicate, grounded)} "
                f"{_node(self.object, grounded)}")


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """A query: ``edges`` joined, answered by ``answer`` in ``form``; ``order`` sorts the
    answers by a variable ((name, 'ASC'|'DESC')) and ``limit`` keeps the first ones."""
    edges: tuple[Edge, ...]
    form: AnswerForm = "select"
    answer: str = "x"
    order: tuple[str, str] | None = None
    limit: int | None = None
    score: float = 0.0
    notes: tuple[str, ...] = field(default=())
    #: the answer is one of these entities (``VALUES ?x { … }``): "X or Y?"
    choices: tuple[LinkingDecision, ...] = ()
    #: how well the plan's property (or chain of properties) fits the question's relation
    #: words; None where the plan names no relation (pairs, class members)
    fit: float | None = None

    # -- shape --------------------------------------------------------------------------------
    @property
    def decisions(self) -> tuple[LinkingDecision, ...]:
        """Every linking decision of the plan, in order of appearance, each once."""
        seen: dict[int, LinkingDecision] = {c_id: c for c_id, c in
                                             ((id(c), c) for c in self.choices)}
        for e in self.edges:
            parts = [e.subject, e.object]
            parts += list(e.predicate.steps) if isinstance(e.predicate, Path) else [e.predicate]
            for part in parts:
                if isinstance(part, LinkingDecision):
                    seen.setdefault(id(part), part)
        return tuple(seen.values())

    @property
    def is_triplet(self) -> bool:
        """One pattern with exactly one unknown part, asked plainly: a triplet query."""
        if len(self.edges) != 1 or self.form != "select" or self.order or self.limit \
                or self.choices:
            return False
        e = self.edges[0]
        unknown = [p for p in (e.subject, e.predicate, e.object) if isinstance(p, Var)]
        return len(unknown) == 1 and unknown[0].name == self.answer

    def patterns(self) -> tuple[tuple[str, str, str], ...]:
        """The grounded triple patterns (see ``GeneratedQuery.patterns``)."""
        return tuple((_ground_id(e.subject), _ground_id(e.predicate), _ground_id(e.object))
                     for e in self.edges)

    # -- rendering ----------------------------------------------------------------------------
    def body(self, grounded: bool) -> str:
        parts = [e.render(grounded) for e in self.edges]
        if self.choices:
            options = " ".join(_node(c, grounded) for c in self.choices)
            parts.insert(0, f"VALUES ?{self.answer} {{ {options} }}")
        return " . ".join(parts)

    def sparql(self, grounded: bool) -> str:
        """The whole query, without PREFIX declarations."""
        where = "{ " + self.body(grounded) + " . }"
        if self.form == "ask":
            return f"ASK {where}"
        if self.form == "count":
            return f"SELECT (COUNT(DISTINCT ?{self.answer}) AS ?count) WHERE {where}"
        head = f"SELECT DISTINCT ?{self.answer}"
        if self.order and self.order[0] != self.answer:
            head += f" ?{self.order[0]}"
        out = f"{head} WHERE {where}"
        if self.order:
            var, direction = self.order
            out += f" ORDER BY {direction}(?{var})"
        if self.limit:
            out += f" LIMIT {self.limit}"
        return out

    def generated(self, question: str, strategy: str = "rules") -> GeneratedQuery:
        """This plan as a GeneratedQuery (see ``querygen.types``)."""
        grounded_sparql = self.sparql(True)
        text = with_prefixes(grounded_sparql)
        patterns = self.patterns()
        if self.is_triplet:
            e = self.edges[0]
            s, p, o = (None if isinstance(t, Var) else _ground_id(t)
                       for t in (e.subject, e.predicate, e.object))
            triple = (s, p, o)
            return GeneratedQuery(text, self.body(False), self.body(True), "triplet", strategy,
                                  self.score, self.decisions, "select", triple,
                                  self.answer, question, patterns, self.notes)
        answer = "" if self.form == "ask" else self.answer
        return GeneratedQuery(text, self.sparql(False), grounded_sparql, "sparql", strategy,
                              self.score, self.decisions, self.form, None, answer, question,
                              patterns, self.notes)


def with_prefixes(query: str) -> str:
    """``query`` with PREFIX declarations for the prefixes of ``PREFIXES`` it uses."""
    head = [f"PREFIX {p}: <{iri}>" for p, iri in PREFIXES.items() if f"{p}:" in query]
    return "\n".join([*head, query])
