"""The knowledge consolidator (LLM-Augmenter): query generation → entity linking →
validation → the KB → evidence chaining, for one question and its sub-questions, into
numbered ``Evidence``.

    consolidator = Consolidator(kb, linker)
    evidence, record = consolidator.consolidate("Where was Marie Curie born?")
    evidence.statements[0].text        # 'Marie Curie — place of birth → Warsaw'
    evidence.kb_answer[0].label        # 'Warsaw'
    record.answered_by, record.queries[0]   # 'query graph', GraphQueryRecord(...)

Steps, each recorded in a ``reasoning.records.Consolidation`` (the retrieve stage's trace
keeps it):

1. **queries**: ``querygen.generate`` writes queries for the question (``strategy``:
   ``rules``; ``llm`` few-shot with ``llm=``; ``auto``: rules, then the LLM's few-shot
   queries when no rule-made query has an answer). Grounding to IDs is the linker's work
   (each query carries its linking decisions). Queries an LLM or a model wrote, and
   SPARQL the rules wrote, are validated (``querygen``'s validator) before they run;
   rule-made triplet queries run as triplet queries and need no validation. A query
   whose linking decisions leave out a name of the question (a capitalized word after
   the first) is skipped: it answers another question. The best
   queries run in order (``querygen.run``) until one has an answer; every answer comes
   with the statements that support it. Those statements are read again whole (with
   their qualifiers and rank) when ``full`` is set (an LLM will read them) or the
   question names a number the query does not use; such a number (a year) then narrows
   the answers to those whose statements have a qualifier with it, when any does ("Who
   won the Nobel Prize in Physics in 1903?": the award statements with point in time
   1903, not every laureate). Sub-questions (from the prompt engine's
   decomposition) are asked the same way, in order, ``#n`` replaced by the first answer
   to sub-question n.
2. **chains**: the evidence chainer over the whole question (``chains.build_evidence``,
   ``hops``/``top``/``limits``), its question entities taken from the queries' linking
   decisions when a query answered (no second linking pass), else from linking the
   question. ``chains=False`` skips it when a query answered (faster; the evidence is
   then the query answers alone).
3. **numbering**: the query answers (one chain per answer, first) and the chainer's
   shortlist become the evidence graph's chains, and their statements are numbered in
   that order (``[n]`` means the same statement in prompts, answers and the graph page).
4. **the KB's own answer**: the answers of the question's answered query (else of the
   last answered sub-question); with no answered query, the ends of the best chain's
   relation (every shortlisted chain from the same start along the same properties) —
   unless a query that names the question's relation outright, asked the way the
   question asks it (``querygen.rules.NAMES_RELATION``), found nothing: then the KB has
   no answer (a warning says so; the chains stay as evidence), never the converse's
   ("the doctoral advisor of X" is not answered with X's students); a negated question
   ("Where wasn't X born?") has no answer from the KB either.

Question-level problems (no entity linked, no query generated, a generated query that
fails) become warnings in the evidence; failures of the KB, a model or the installation
(``FAILURES``: an unreachable endpoint, a broken mirror) are raised, never reported as
"no evidence".

Which KB served each result is on its citation (``source``: ``mirror:…`` or
``sparql:…``, with ``live`` and the retrieval time) and on each query's record
(``run``: ``source``, ``engine``); the record's ``sources`` counts the statements per
source.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import chains
from chains import Chain, EvidenceGraph
from chains.search import DEFAULT_LIMITS, Limits
from kb.base import KnowledgeBase
from kb.contracts import LLM, Linker
from kb.types import Statement
from querygen.qualifiers import (bounds, from_citation, full_statements, narrowed,
                                 numbers_named)
from querygen.question_names import ignored_names
from reasoning.answer import AnswerValue
from reasoning.evidence import (Evidence, add_answer_chains, index_nodes, number, same_path,
                                statement_from_citation)
from reasoning.prompt_engine import fill_in
from reasoning.records import (AnsweredBy, Consolidation, GeneratedQueryRecord,
                               GraphQueryRecord, Narrowed, QueryOutcome, QueryRecord, QueryRun)
from store.errors import (EndpointError, KGGroundError, LLMError, MirrorError, MissingExtra,
                          ServerBusy)

if TYPE_CHECKING:
    from querygen.graphs import GraphRanker

STRATEGIES = ("auto", "rules", "llm")
#: generated queries tried per question, best first, until one answers
QUERIES_TRIED = 3
#: a query answered is ranked above every chain found by search
QUERY_CHAIN_SCORE = 2.0
#: question entities handed to the chainer from generated queries
MAX_SEEDS = 3


@dataclass
class Asked:
    """One (sub-)question's best answered query: the question as asked, the query, and
    its ``querygen.QueryResult`` (None when no query answered)."""

    question: str
    query: Any = None
    result: Any = None
    chains: tuple[Chain, ...] = ()
    #: per answer of ``result`` (in order), the statements that support it
    support: tuple[tuple[Statement, ...], ...] = ()
    #: the entities the generated queries were grounded to, best query first (answered
    #: or not): seeds for the chainer when linking the question finds none
    entities: tuple[str, ...] = ()
    #: the question's ranked query graphs (``querygen.graphs``) and the one that answered
    ranking: Any = None
    graph: Any = None


class Consolidator:
    """Gathers numbered evidence for questions from one KB (see the module docstring).

    ``linker`` is linking's ``EntityLinker`` for the KB (shared by query generation and
    the chainer, so it is built once); ``ranker`` the ``querygen.graphs.GraphRanker`` over
    ``kb`` and ``linker`` that the caller keeps across questions (it learns the KB's
    types; None builds one for this consolidator); ``strategy`` and ``llm`` choose the query
    generator; ``hops``/``top``/``limits`` bound the chainer; ``chains=False`` skips it
    when a query answered; ``lang`` is the language of questions and labels."""

    def __init__(self, kb: KnowledgeBase, linker: Linker, *, ranker: GraphRanker | None = None,
                 strategy: str = "auto", llm: LLM | None = None,
                 hops: int = 2, top: int = 5, lang: str = "en",
                 limits: Limits = DEFAULT_LIMITS, chains: bool = True, full: bool = False):
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, "
                             f"got {strategy!r}")
        if strategy == "llm" and llm is None:
            raise ValueError("strategy 'llm' needs an LLM (llm=...)")
        self.kb, self.linker, self.strategy, self.llm = kb, linker, strategy, llm
        if ranker is None:
            from querygen.graphs import GraphRanker
            ranker = GraphRanker(kb, linker)
        self.ranker = ranker
        self.hops, self.top, self.lang, self.limits = hops, top, lang, limits
        self.use_chains, self.full = chains, full

    def gather(self, question: str, sub_questions: Sequence[str] = ()) -> Evidence:
        """Numbered evidence for ``question`` (see the module docstring)."""
        return self.consolidate(question, sub_questions)[0]

    def consolidate(self, question: str, sub_questions: Sequence[str] = ()
                    ) -> tuple[Evidence, Consolidation]:
        """Numbered evidence for ``question`` and the record of how it was gathered (see
        the module docstring)."""
        evidence = Evidence(question)
        started = time.perf_counter()
        records: list[QueryRecord] = []
        asked = self._ask_all(question, sub_questions, records, evidence)
        queried = time.perf_counter()
        answered = [a for a in asked if a.result is not None]

        graph = None
        if self.use_chains or not answered:
            graph = self._chains(question, answered[:1] or asked[:1], evidence)
        chained = time.perf_counter()
        if graph is None:
            graph = EvidenceGraph(question=question, lang=self.lang, kb_name=self.kb.name)
        numbered = self._number(graph, answered, evidence)
        best = _take_kb_answer(evidence, asked[0], numbered)
        answered_by: AnsweredBy = "query graph" if evidence.kb_graph is not None else \
            "query" if best is not None else "none"
        ranking = asked[0].ranking
        record = Consolidation(
            queries=tuple(records), seeds=tuple(graph.seeds),
            chains=tuple(c.text for c in graph.chains),
            statements=len(evidence.statements),
            sources=dict(Counter(s.citation.source for s in evidence.statements)),
            kb_answer=tuple(evidence.kb_answer), kb_confidence=evidence.kb_confidence,
            kb_missing=evidence.kb_missing, answered_by=answered_by,
            queries_ms=_ms(started, queried), chains_ms=_ms(queried, chained),
            number_ms=_ms(chained, time.perf_counter()),
            # a question in another language: how it was read
            read_as=ranking.reading if ranking is not None and ranking.reading else None,
            sub_questions=tuple(sub_questions) if len(asked) > 1 else None,
            warnings=tuple(evidence.warnings))
        return evidence, record

    def _ask_all(self, question: str, sub_questions: Sequence[str],
                 records: list[QueryRecord], evidence: Evidence) -> list[Asked]:
        """``question`` asked, then each sub-question (blank ones and the question itself
        left out) with the earlier sub-questions' first answers filled in (``fill_in``)."""
        asked = [self._ask(question, records, evidence)]
        subs = [s for s in sub_questions if s.strip() and s != question]
        answers: dict[int, str] = {}
        for i, sub in enumerate(subs, 1):
            filled = fill_in(sub, answers)
            a = self._ask(filled, records, evidence, sub_question=i)
            asked.append(a)
            if a.result is not None and a.result.answers:
                answers[i] = a.result.answers[0].label
        return asked

    def _number(self, graph: EvidenceGraph, answered: list[Asked],
                evidence: Evidence) -> dict[int, Chain]:
        """Number the evidence: the chains that carry the answered queries' answers first,
        then the graph's other chains (a path already there once left out). Sets
        ``evidence``'s graph, statements, nodes and seeds; returns id(shortlisted chain) →
        its numbered chain."""
        found = list(graph.chains)
        for a in answered:
            a.chains = tuple(self._answer_chains(graph, a))
        query_chains = [c for a in answered for c in a.chains]
        shortlist = query_chains + [c for c in found
                                    if not any(same_path(c, q) for q in query_chains)]
        evidence.graph = graph
        evidence.statements = number(graph, shortlist, self.kb)
        numbered = {id(c): n for c, n in zip(shortlist, graph.chains)}
        evidence.nodes = index_nodes(graph, evidence.statements)
        evidence.seeds = tuple(s.id for s in graph.seeds) or _query_entities(answered)
        return numbered

    # -- queries ------------------------------------------------------------------------------
    def _ask(self, question: str, records: list[QueryRecord], evidence: Evidence,
             sub_question: int | None = None) -> Asked:
        """The answer to ``question``: its best query graph when confident enough (the
        rules' readings, ranked by ``querygen.graphs``); else, under 'auto' or 'llm' with
        an LLM, the LLM's few-shot queries — evidence for the model, never the KB's own
        answer."""
        entities: list[str] = []
        ranking = None
        if self.strategy in ("auto", "rules"):
            ranking = self._rank(question, records, evidence, sub_question)
            entities = [d.id for d in ranking.entities]
            if ranking.best is not None:
                g = ranking.best
                asked = Asked(question, g.query, g.result, entities=tuple(entities),
                              ranking=ranking, graph=g)
                chosen = next((r for r in records if isinstance(r, GraphQueryRecord)
                               and r.chosen and r.question == question), None)
                return self._supported(asked, chosen)
        if self.strategy in ("auto", "llm") and self.llm is not None:
            found = self._try(question, "llm", records, evidence, sub_question)
            entities += found.entities
            if found.result is not None:
                found.ranking = ranking
                found.entities = tuple(dict.fromkeys(entities))
                return found
        return Asked(question, entities=tuple(dict.fromkeys(entities)), ranking=ranking)

    def _rank(self, question: str, records: list[QueryRecord], evidence: Evidence,
              sub_question: int | None) -> Any:
        """The question's ranked query graphs; one record per graph scored."""
        start = time.perf_counter()
        try:
            ranking = self.ranker.rank(question, lang=self.lang)
        except KGGroundError as exc:
            _reraise_failures(exc)
            evidence.warnings.append(f"query graphs: {exc.what}")
            from querygen.graphs import GraphRanking
            from querygen.answer_types import Expected
            return GraphRanking(question, Expected(""), missing="entity",
                                reason=exc.what)
        ms = _ms(start, time.perf_counter())
        for rank, g in enumerate(ranking.graphs, 1):
            r = g.result
            records.append(GraphQueryRecord(
                question=question, rank=rank, label_level=g.query.label_level,
                grounded=g.query.grounded, kind=g.query.kind, form=g.query.form,
                confidence=g.confidence, chosen=g is ranking.best, type_check=g.check,
                linking=tuple(g.query.decisions), answers=len(r.answers) if r else 0,
                count=r.count if r else None, boolean=r.boolean if r else None, rank_ms=ms,
                run=_run(r) if r is not None else None,
                diagnostics=g.diagnostics or None, sub_question=sub_question))
        return ranking

    def _try(self, question: str, strategy: str, records: list[QueryRecord],
             evidence: Evidence, sub_question: int | None) -> Asked:
        from querygen import generate, run

        start = time.perf_counter()
        try:
            queries = generate(question, self.kb, strategy=strategy, llm=self.llm,
                               linker=self.linker, limit=QUERIES_TRIED)
        except KGGroundError as exc:
            _reraise_failures(exc)
            evidence.warnings.append(f"query generation ({strategy}): {exc.what}")
            return Asked(question)
        generated = time.perf_counter()
        # seeds for the chainer: entities of readings that account for every name
        entities = tuple(dict.fromkeys(d.id for q in queries for d in q.decisions
                                       if d.kind == "entity"
                                       and not ignored_names(question, q.decisions)))
        for rank, query in enumerate(queries[:QUERIES_TRIED], 1):
            record = GeneratedQueryRecord(
                question=question, strategy=strategy, rank=rank,
                label_level=query.label_level, grounded=query.grounded, kind=query.kind,
                form=query.form, score=query.score, linking=tuple(query.decisions),
                generate_ms=_ms(start, generated), sub_question=sub_question)
            records.append(record)
            ignored = ignored_names(question, query.decisions)
            if ignored:
                record.ignores = ignored
                continue
            checked = self._validate(query)
            if checked is not None:
                record.errors, record.warnings = checked
                if checked[0]:
                    continue
            try:
                result = run(query, self.kb, lang=self.lang)
            except KGGroundError as exc:
                _reraise_failures(exc)
                record.error = str(exc)
                evidence.warnings.append(f"query {query.grounded!r}: {exc.what}")
                continue
            record.outcome = QueryOutcome(_run(result), len(result.answers), result.count,
                                          result.boolean)
            if not result.empty:
                return self._supported(Asked(question, query, result,
                                             entities=entities), record)
        return Asked(question, entities=entities)

    def _supported(self, asked: Asked, record: QueryRecord | None) -> Asked:
        """``asked`` with each answer's statements (read whole, with their qualifiers,
        when an LLM will read them or the question names a number); narrowed by a number
        of the question that the query does not use, when some answers' qualifiers have
        it, or are within the bound a comparison sets ("before 1905";
        ``querygen.qualifiers``; a query graph is narrowed already)."""
        result = asked.result
        unused = numbers_named(asked.question, result.query.label_level)
        limits = bounds(asked.question, result.query.label_level)
        if not (self.full or unused or limits) or result.query.form == "ask":
            asked.support = tuple(tuple(from_citation(c) for c in a.citations)
                                  for a in result.answers)
            return asked
        found = narrowed(self.kb, result, unused, limits) if unused or limits else None
        if found is not None:
            if record is not None:
                record.narrowed = Narrowed((*unused, *(n for _, n in limits)),
                                           len(found[0].answers), len(result.answers))
            asked.result, support = found
        else:
            support = full_statements(self.kb, result)
        if asked.graph is not None and asked.graph.narrowed_by and record is not None:
            record.narrowed = Narrowed(tuple(asked.graph.narrowed_by), len(result.answers),
                                       asked.graph.narrowed_of)
        asked.support = tuple(tuple(sts) for sts in support)
        return asked

    def _validate(self, query: Any) -> tuple[list[str], list[str]] | None:
        """The validator's (errors, warnings) (``querygen.validate``, each
        'line:column: severity: message. Fix: ...') for a query that will run as SPARQL
        text; None for a rule-made triplet query (it runs as a triplet query)."""
        if query.strategy == "rules" and query.kind == "triplet":
            return None
        from querygen.validate import validate
        diagnostics = validate(query.text, self.kb, lang=self.lang, linker=self.linker)
        return [str(d) for d in diagnostics.errors], [str(d) for d in diagnostics.warnings]

    def _answer_chains(self, graph: EvidenceGraph, asked: Asked) -> list[Chain]:
        result = asked.result
        starts = [d.id for d in asked.query.decisions if d.kind == "entity"]
        if result.query.form == "ask":
            supports = [[statement_from_citation(c) for c in result.support]]
        else:
            supports = [list(s) for s in asked.support]
        return add_answer_chains(graph, supports, starts, QUERY_CHAIN_SCORE)

    # -- chains -------------------------------------------------------------------------------
    def _chains(self, question: str, asked: list[Asked],
                evidence: Evidence) -> EvidenceGraph | None:
        """The chainer over the question, from the answered query's entities; else from
        linking the question; else (linking found none) from the entities any generated
        query was grounded to."""
        answered = [a for a in asked if a.result is not None]
        tries = [_query_entities(answered)] if answered else \
            [(), tuple(e for a in asked for e in a.entities)]
        error = None
        for entities in tries:
            if not entities and error is not None:
                continue
            try:
                return chains.build_evidence(question, self.kb, self.linker,
                                             hops=self.hops, top=self.top, lang=self.lang,
                                             limits=self.limits,
                                             entities=list(entities[:MAX_SEEDS]) or None)
            except KGGroundError as exc:
                _reraise_failures(exc)
                error = exc
        if error is not None:
            evidence.warnings.append(f"evidence chains: {error.what}")
        return None


#: failures of the KB, a model or the installation: raised, never turned into "no evidence"
FAILURES = (EndpointError, LLMError, MirrorError, MissingExtra, ServerBusy)


def _reraise_failures(exc: KGGroundError) -> None:
    """Re-raise ``exc`` when it is a failure (``FAILURES``) rather than a question the KB
    cannot answer (no entity linked, no query generated, a generated query rejected)."""
    if isinstance(exc, FAILURES):
        raise exc


def _take_kb_answer(evidence: Evidence, main: Asked, numbered: dict[int, Chain]
                    ) -> Asked | None:
    """Put the KB's own answer to the question (``main``, asked first) on ``evidence``:
    its ranking and confidence, what it lacks, and the answer of its query graph (a
    warning when the KB has none). Returns ``main`` when it has a result, else None."""
    best = main if main.result is not None else None
    ranking = main.ranking
    if ranking is not None:
        evidence.ranking = ranking
        evidence.kb_confidence = ranking.confidence
        evidence.kb_missing, evidence.kb_reason = ranking.missing, ranking.reason
    if best is not None and best.graph is not None:
        evidence.kb_answer = query_answer(best, numbered)
        evidence.kb_graph = best.graph
    else:
        evidence.kb_answer = ()
        if ranking is not None and ranking.missing:
            evidence.warnings.append(f"the KB has no answer: {ranking.reason}")
    return best

def _query_entities(answered: Sequence[Asked]) -> tuple[str, ...]:
    ids = [d.id for a in answered for d in a.query.decisions if d.kind == "entity"]
    return tuple(dict.fromkeys(ids))


def query_answer(asked: Asked, numbered: dict[int, Chain]) -> tuple[AnswerValue, ...]:
    """The KB's answer from an answered query: its answers (a count or yes/no as a
    value), each with the numbers of the statements that support it."""
    result = asked.result
    numbers = [tuple(numbered[id(c)].numbers) if id(c) in numbered else ()
               for c in asked.chains]
    if result.query.form == "ask":
        return (AnswerValue(None, "yes" if result.boolean else "no",
                            numbers[0] if numbers and result.boolean else ()),)
    if result.query.form == "count":
        support = tuple(sorted({n for ns in numbers for n in ns}))
        return (AnswerValue(None, str(result.count), support),)
    # chains were made for the answers with statements, in order
    with_support = [i for i, sts in enumerate(asked.support) if sts]
    by_answer = dict(zip(with_support, numbers))
    return tuple(AnswerValue(a.id, a.label, by_answer.get(i, ()))
                 for i, a in enumerate(result.answers))


def _run(result: Any) -> QueryRun:
    """Where a ``querygen.QueryResult`` was found, and how long its query ran."""
    return QueryRun(result.source, result.engine, round(result.elapsed * 1000, 3))


def _ms(a: float, b: float) -> float:
    return round((b - a) * 1000, 3)
