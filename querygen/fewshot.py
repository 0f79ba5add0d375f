"""LLM few-shot query generation, and the pipeline any label-level query writer shares.

``FewShotGenerator(kb, linker, llm).generate(question)``:

1. **prompt**: a system message describing label-level SPARQL (``wd:/label/`` entities,
   ``wdt:/label/`` properties, never IDs) and worked examples (``EXAMPLES``, written for
   this module), then the question;
2. **parse and repair** each reply (``querygen.repair``: code fences, prose around the
   query, quotes, braces, missing prefixes);
3. **ground** the slots to IDs with the entity and property linker (``linking.ground``);
4. **validate** the grounded query (``querygen.validate`` when installed in this tree;
   else the SPARQL parser's syntax and safety checks) and run it once: a query that is
   invalid, cannot be grounded, or returns nothing is sent back to the LLM with the
   problems (the validator's messages, the closest labels) for another try — at most
   ``rounds`` rounds;
5. **decompose** multi-hop questions first (CoK §3.1): with ``decompose='auto'`` (the
   default) a question whose relation words form a chain (``querygen.fit.chunks``) is
   broken by the LLM into sub-questions (a chain-of-thought step, "#1" standing for the
   answer of sub-question 1); each sub-question gets its own queries, the answer of one
   filling the next. The whole question's own query comes first, then the sub-questions'
   (``notes`` say which).

``samples`` completions are drawn per round (temperature ``temperature`` when more than one);
identical grounded queries vote. A query's ``score`` is its share of the votes, plus 0.5
if it returns answers, plus a tenth of its slots' mean linking score.

``ModelGenerator`` runs steps 2–4 on what a trained generator
(``querygen.trained.TrainedGenerator``) writes; it takes no feedback, so a failed query
is replaced by the model's next beam instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kb.base import KnowledgeBase
from kb.contracts import LLM, Linker
from kb.types import Candidate
from querygen.analysis import analyze, expand_contractions
from querygen.repair import NoQueryFound, extract_query
from querygen.types import AnswerForm, GeneratedQuery, LinkingDecision
from store.errors import KGGroundError

SYSTEM = """You translate questions into SPARQL queries over Wikidata.
Write every entity and property by its English label, never by an ID:
- an entity as wd:/label/, e.g. wd:/Douglas Adams/
- a property (a direct statement) as wdt:/label/, e.g. wdt:/employer/
Use ?x for the answer. Counts: SELECT (COUNT(DISTINCT ?x) AS ?count). Yes/no questions: ASK.
Reply with the query only, in a ```sparql block."""

#: worked examples (question, label-level query), written for this prompt
EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Who employed Douglas Adams?",
     "SELECT ?x WHERE { wd:/Douglas Adams/ wdt:/employer/ ?x . }"),
    ("Which films were directed by Sofia Coppola?",
     "SELECT ?x WHERE { ?x wdt:/director/ wd:/Sofia Coppola/ . }"),
    ("How many children did Johann Sebastian Bach have?",
     "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { wd:/Johann Sebastian Bach/ wdt:/child/ "
     "?x . }"),
    ("Is Canberra the capital of Australia?",
     "ASK { wd:/Australia/ wdt:/capital/ wd:/Canberra/ . }"),
    ("What is the official language of the country where Frida Kahlo was born?",
     "SELECT ?x WHERE { wd:/Frida Kahlo/ wdt:/place of birth/ ?city . "
     "?city wdt:/country/ ?country . ?country wdt:/official language/ ?x . }"),
    ("Which river in Germany is the longest?",
     "SELECT ?x WHERE { ?x wdt:/instance of/ wd:/river/ . ?x wdt:/country/ wd:/Germany/ . "
     "?x wdt:/length/ ?length . } ORDER BY DESC(?length) LIMIT 1"),
)

DECOMPOSE = """Break the question into simple sub-questions that each ask for one fact,
in the order they must be answered. Write "#1" for the answer of sub-question 1, and so on.
Reply with a numbered list and nothing else."""

DECOMPOSE_EXAMPLE = (
    "What is the official language of the country where Frida Kahlo was born?",
    "1. Where was Frida Kahlo born?\n2. Which country is #1 in?\n"
    "3. What is the official language of #2?")

_NUMBERED = re.compile(r"^\s*(?:\d+[.):]|[-*])\s*(.+?)\s*$", re.M)
_REF = re.compile(r"#(\d+)")


@dataclass
class _Attempt:
    """One candidate query on its way through repair, grounding and validation."""
    reply: str
    label_level: str = ""
    grounded: str = ""
    repairs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    decisions: tuple[LinkingDecision, ...] = ()
    answers: int = 0
    votes: int = 1
    round: int = 1


class LabelQueryPipeline:
    """Steps 2–4 of the module docstring for one KB (shared by the LLM and the trained
    generator)."""

    strategy = "llm"

    def __init__(self, kb: KnowledgeBase, linker: Linker, *, validator: Callable | None = None,
                 run_check: bool = True):
        self.kb = kb
        self.linker = linker
        self.validator = validator if validator is not None else default_validator(linker)
        self.run_check = run_check

    def check(self, reply: str) -> _Attempt:
        """Parse, repair, ground, validate and try ``reply``; problems are recorded in
        the attempt (an attempt without problems is a usable query)."""
        from linking.grounding import ground

        att = _Attempt(reply)
        try:
            att.label_level, att.repairs = extract_query(reply)
        except NoQueryFound as exc:
            att.problems.append(str(exc))
            return att
        try:
            g = ground(self.linker, att.label_level)
        except KGGroundError as exc:
            att.problems.append(str(exc))
            return att
        att.grounded = g.query
        att.decisions = tuple(
            LinkingDecision("entity" if s.kind == "entity" else "property", s.label,
                            tuple(s.candidates)) for s in g.slots)
        att.problems += self.validator(att.grounded, self.kb)
        if att.problems or not self.run_check:
            return att
        try:
            result = self.kb.sparql(att.grounded, timeout=10)
        except KGGroundError as exc:
            att.problems.append(f"the KB could not run the query: {exc}")
            return att
        att.answers = (1 if result.boolean is not None else
                       sum(1 for row in result.rows for v in row.values()
                           if str(v) not in ("0", "")))
        return att

    def to_query(self, att: _Attempt, question: str, total: int,
                 notes: Sequence[str] = ()) -> GeneratedQuery:
        return generated_from(att.label_level, att.grounded, question, self.strategy,
                              score=att.votes / max(1, total) + (0.5 if att.answers else 0.0)
                              + 0.1 * _mean_link(att.decisions),
                              decisions=att.decisions,
                              notes=(*notes, *(f"repair: {r}" for r in att.repairs)))


class FewShotGenerator(LabelQueryPipeline):
    """LLM few-shot generation (see the module docstring)."""

    def __init__(self, kb: KnowledgeBase, linker: Linker, llm: LLM, *,
                 examples: Sequence = EXAMPLES,
                 rounds: int = 3, samples: int = 1, temperature: float = 0.7,
                 decompose: str | bool = "auto", validator: Callable | None = None,
                 run_check: bool = True):
        super().__init__(kb, linker, validator=validator, run_check=run_check)
        if rounds < 1 or samples < 1:
            raise ValueError(f"rounds and samples must be at least 1, got {rounds}, "
                             f"{samples}")
        if decompose not in ("auto", True, False, "always", "never"):
            raise ValueError(f"decompose must be 'auto', True or False, got {decompose!r}")
        self.llm = llm
        self.examples = tuple(examples)
        self.rounds = rounds
        self.samples = samples
        self.temperature = temperature
        aliases: dict[str | bool, str | bool] = {"always": True, "never": False}
        self.decompose = aliases.get(decompose, decompose)

    def generate(self, question: str, *, limit: int = 5) -> list[GeneratedQuery]:
        """The question's own queries (at most ``limit``), then, for a multi-hop question,
        the best query of each sub-question."""
        out = self.queries_for(question)[:limit]
        if self._multi_hop(question):
            subs = self.sub_questions(question)
            if len(subs) > 1:
                out += self._chain(subs)
        return out

    # -- one question -------------------------------------------------------------------------
    def queries_for(self, question: str, notes: Sequence[str] = ()) -> list[GeneratedQuery]:
        """Queries for one (sub-)question, best first, after at most ``rounds`` rounds."""
        messages = self.prompt(question)
        attempts: list[_Attempt] = []
        for round_no in range(self.rounds):
            replies = self.llm.complete(messages, n=self.samples,
                                        temperature=self.temperature if self.samples > 1
                                        else 0.0)
            batch = [self.check(r) for r in replies]
            for a in batch:
                a.round = round_no + 1
            attempts += batch
            if any(not a.problems and (a.answers or not self.run_check) for a in batch):
                break
            first = batch[0]
            messages = [*messages, {"role": "assistant", "content": first.reply},
                        {"role": "user", "content": feedback(first)}]
        answered = [a for a in attempts if not a.problems and (a.answers or not self.run_check)]
        # after the last round, valid queries the KB has no answer for are still offered
        good = _voted(answered or [a for a in attempts if not a.problems])
        total = sum(a.votes for a in good)
        queries = [self.to_query(a, question, total,
                                 (*notes, *([f"round {a.round}"] if a.round > 1 else []),
                                  *([] if a.answers or not self.run_check
                                    else ["no answer in the KB"])))
                   for a in good]
        queries.sort(key=lambda q: -q.score)
        return queries

    def prompt(self, question: str) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": SYSTEM}]
        for q, sparql in self.examples:
            messages.append({"role": "user", "content": f"Question: {q}"})
            messages.append({"role": "assistant", "content": f"```sparql\n{sparql}\n```"})
        messages.append({"role": "user", "content": f"Question: {question}"})
        return messages

    # -- multi-hop ----------------------------------------------------------------------------
    def _multi_hop(self, question: str) -> bool:
        if self.decompose in (True, False):
            return bool(self.decompose)
        from querygen.fit import chunks

        from querygen.mentions import MentionFinder

        text = expand_contractions(question)
        a = analyze(text)
        spans = [m.span for m in MentionFinder(self.kb, self.linker).find(text, a)]
        return any(len(pieces) >= 2 for span in spans for pieces in chunks(a, span))

    def sub_questions(self, question: str) -> list[str]:
        """The LLM's decomposition of ``question`` (CoK §3.1), in answering order."""
        q, plan = DECOMPOSE_EXAMPLE
        messages = [{"role": "system", "content": DECOMPOSE},
                    {"role": "user", "content": q}, {"role": "assistant", "content": plan},
                    {"role": "user", "content": question}]
        reply = self.llm.complete(messages, n=1, temperature=0.0)[0]
        return [m.group(1) for m in _NUMBERED.finditer(reply)]

    def _chain(self, subs: list[str]) -> list[GeneratedQuery]:
        """Queries for each sub-question, "#k" replaced by the label of sub-question k's
        first answer on the KB; stops at a sub-question that cannot be answered."""
        from querygen.execute import run

        answers: dict[int, str] = {}
        out: list[GeneratedQuery] = []
        for i, sub in enumerate(subs, 1):
            filled = _REF.sub(lambda m: answers.get(int(m.group(1)), m.group(0)), sub)
            if _REF.search(filled):
                break
            found = self.queries_for(filled, (f"sub-question {i} of {len(subs)}: {filled}",))
            if not found:
                break
            out += found[:1]
            result = run(found[0], self.kb, limit=5, cite=False)
            if not result.answers:
                break
            answers[i] = result.answers[0].label
        return out


class ModelGenerator(LabelQueryPipeline):
    """A trained generator's label-level queries, repaired, grounded and validated."""

    strategy = "model"

    def __init__(self, kb: KnowledgeBase, linker: Linker, model: Any, *, beams: int = 5,
                 validator: Callable | None = None, run_check: bool = True):
        super().__init__(kb, linker, validator=validator, run_check=run_check)
        from querygen.trained import TrainedGenerator

        if not hasattr(model, "generate"):
            model = TrainedGenerator(model, linker=linker)
        self.model = model
        self.beams = beams
        # a trained generator reads (and is constrained to) what this KB's linker finds
        self._with_linker = isinstance(model, TrainedGenerator)

    def generate(self, question: str, *, limit: int = 5) -> list[GeneratedQuery]:
        written = (self.model.generate(question, n=self.beams, linker=self.linker)
                   if self._with_linker else self.model.generate(question, n=self.beams))
        attempts = [self.check(text) for text in written]
        good = _voted([a for a in attempts if not a.problems])
        for rank, a in enumerate(good):       # the model's own order counts too
            a.votes += max(0, len(good) - rank)
        total = sum(a.votes for a in good)
        queries = [self.to_query(a, question, total) for a in good]
        queries.sort(key=lambda q: -q.score)
        return queries[:limit]


# -- shared ---------------------------------------------------------------------------------

def default_validator(linker: Linker | None = None) -> Callable[[str, Any], list[str]]:
    """``querygen.validate`` (error messages; ``linker`` suggests the closest names) when
    this tree has it; else the SPARQL parser's syntax and safety checks."""
    try:
        from querygen.validate import validate
    except ImportError:
        from store.sparql import prepare

        def parse_only(query: str, kb: KnowledgeBase) -> list[str]:
            try:
                prepare(query)
            except KGGroundError as exc:
                return [str(exc)]
            return []
        return parse_only

    def full(query: str, kb: KnowledgeBase) -> list[str]:
        # "no statement matches" is left to the run check, which sends an empty result back
        # with its own message and keeps the query as a last resort
        return [str(d) for d in validate(query, kb, linker=linker).errors
                if d.code != "no-match"]
    return full


def feedback(att: _Attempt) -> str:
    """The message that sends a rejected query back to the LLM."""
    if not att.label_level:
        problems = "; ".join(att.problems) or "no query was found"
        return (f"That reply has no usable query ({problems}). Reply with one SPARQL query "
                "in a ```sparql block, entities as wd:/label/ and properties as "
                "wdt:/label/.")
    if att.problems:
        listed = "\n".join(f"- {p}" for p in att.problems)
        return (f"The query has problems:\n{listed}\nWrite a corrected query, with labels "
                "that the knowledge base has.")
    return ("The query is valid but returns no answer from the knowledge base. Check the "
            "property and its direction, and write a corrected query.")


def generated_from(label_level: str, grounded: str, question: str, strategy: str, *,
                   score: float, decisions: tuple[LinkingDecision, ...] = (),
                   notes: Sequence[str] = ()) -> GeneratedQuery:
    """A GeneratedQuery for a grounded SPARQL query written by a model: a triplet when it
    is one pattern with one unknown, its patterns kept when it is only a conjunction of
    triple patterns."""
    form, answer_var, patterns = _shape(grounded)
    if (form == "select" and len(patterns) == 1 and answer_var
            and sum(t.startswith("?") for t in patterns[0]) == 1
            and f"?{answer_var}" in patterns[0] and not re.search(
                r"(?i)\b(ORDER|LIMIT|OFFSET|FILTER|GROUP)\b", grounded)):
        s, p, o = (None if t.startswith("?") else t for t in patterns[0])
        triple = (s, p, o)
        body_label = _body(label_level)
        body = _body(grounded)
        return GeneratedQuery(grounded, body_label or label_level, body or grounded,
                              "triplet", strategy, score, decisions, "select", triple,
                              answer_var, question, patterns, tuple(notes))
    return GeneratedQuery(grounded, label_level, grounded, "sparql", strategy, score,
                          decisions, form, None, answer_var, question, patterns, tuple(notes))


def _shape(query: str) -> tuple[AnswerForm, str, tuple[tuple[str, str, str], ...]]:
    """(form, answer variable, triple patterns when the query is only a BGP)."""
    from store.sparql import prepare

    try:
        algebra = prepare(query).algebra
    except KGGroundError:
        return "select", "", ()
    if algebra is None:             # CONSTRUCT, DESCRIBE: no SELECT shape
        return "select", "", ()
    name = algebra.name
    form: AnswerForm = "ask" if name == "AskQuery" else "select"
    proj = [str(v) for v in (getattr(algebra, "PV", None) or [])]
    bgps: list[Any] = []
    other = False

    def walk(node: Any) -> None:
        nonlocal other
        if hasattr(node, "name"):
            if node.name == "BGP":
                bgps.append(node)
                return
            if node.name in ("Filter", "LeftJoin", "Union", "Minus", "Extend", "Graph",
                             "ServiceGraphPattern", "values", "ToMultiSet"):
                other = True
            for v in node.values():
                walk(v)
        elif isinstance(node, (list, tuple)):
            for v in node:
                walk(v)

    walk(algebra.get("p"))
    counted = "COUNT" in query.upper() and "GROUP BY" not in query.upper()
    if counted:
        form = "count"
    patterns: tuple = ()
    if len(bgps) == 1 and not other or counted and len(bgps) == 1:
        patterns = tuple(tuple(_short(t) for t in triple) for triple in bgps[0].triples)
    answer = proj[0] if proj and form == "select" else ""
    if form == "count":
        answer = next((t[1:] for p in patterns for t in p if t.startswith("?")), "")
    return form, answer, patterns


def _short(term: Any) -> str:
    from rdflib import Literal, URIRef, Variable

    from store.vocab import iri_to_id, property_from_iri

    if isinstance(term, Variable):
        return f"?{term}"
    if isinstance(term, URIRef):
        text = str(term)
        short = property_from_iri(text)
        return short if short != text else iri_to_id(text)
    if isinstance(term, Literal):
        return term.n3()
    return str(term)


def _body(query: str) -> str:
    m = re.search(r"\{(.*)\}", query, re.S)
    return " ".join(m.group(1).split()).rstrip(" .") if m else ""


def _voted(attempts: list[_Attempt]) -> list[_Attempt]:
    """Attempts with the same grounded query merged into one with their votes summed."""
    by_query: dict[str, _Attempt] = {}
    for a in attempts:
        key = " ".join(a.grounded.split())
        if key in by_query:
            by_query[key].votes += a.votes
        else:
            by_query[key] = a
    return list(by_query.values())


def _mean_link(decisions: Sequence[LinkingDecision]) -> float:
    scores = [d.chosen.score for d in decisions if isinstance(d.chosen, Candidate)]
    return sum(scores) / len(scores) if scores else 0.0
