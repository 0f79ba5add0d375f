"""The knowledge consolidator (LLM-Augmenter): retrieval → entity linking → evidence
chaining, for one question and its sub-questions, into numbered ``Evidence``.

    consolidator = Consolidator(kb, linker)
    evidence = consolidator.gather("Where was Marie Curie born?", log=details)
    evidence.statements[0].text        # 'Marie Curie — place of birth → Warsaw'
    evidence.kb_answer[0].label        # 'Warsaw'

Steps, each written into ``log`` (a dict the caller keeps as the stage's trace details):

1. the evidence chainer over the whole question (``chains.build_evidence``: linking, a
   beam search up to ``hops`` statements around the question's entities, the ``top`` best
   chains); a question whose entities the linker cannot find gives no chains (a warning);
2. numbering: the chains' statements are numbered in shortlist order (``[n]`` means the
   same statement in prompts, answers and the graph page);
3. the KB's own answer: the ends of the best answer chain's relation (every shortlisted
   chain from the same start along the same properties).

Which KB served each statement is on its citation (``source``: ``mirror:…`` or
``sparql:…``, with ``live`` and the retrieval time); ``log["sources"]`` counts them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import chains
from chains import Chain, EvidenceGraph
from chains.search import DEFAULT_LIMITS, Limits
from reasoning.answer import AnswerValue
from reasoning.evidence import Evidence, index_nodes, number
from store.errors import KGGroundError


class Consolidator:
    """Gathers numbered evidence for questions from one KB (see the module docstring).

    ``linker`` is linking's ``EntityLinker`` for the KB (shared with query generation, so
    it is built once); ``hops``/``top``/``limits`` bound the chainer; ``lang`` is the
    language of questions and labels."""

    def __init__(self, kb: Any, linker: Any, *, hops: int = 2, top: int = 5,
                 lang: str = "en", limits: Limits = DEFAULT_LIMITS):
        self.kb, self.linker = kb, linker
        self.hops, self.top, self.lang, self.limits = hops, top, lang, limits

    def gather(self, question: str, sub_questions: Sequence[str] = (),
               log: dict[str, Any] | None = None) -> Evidence:
        """Numbered evidence for ``question`` (see the module docstring)."""
        log = log if log is not None else {}
        evidence = Evidence(question)
        started = time.perf_counter()
        graph = self._chains(question, evidence)
        log["chains_ms"] = round((time.perf_counter() - started) * 1000, 3)
        if sub_questions:
            log["sub_questions"] = list(sub_questions)
        if graph is None:
            graph = EvidenceGraph(question=question, lang=self.lang, kb_name=self.kb.name)
        shortlist: list[Chain] = list(graph.chains)
        evidence.graph = graph
        evidence.statements = number(graph, shortlist, self.kb)
        evidence.nodes = index_nodes(graph, evidence.statements)
        evidence.seeds = tuple(s.id for s in graph.seeds)
        evidence.kb_answer = chain_answer(graph)
        log.update(seeds=[s.as_dict() for s in graph.seeds],
                   chains=[c.text for c in graph.chains],
                   statements=len(evidence.statements),
                   sources=dict(Counter(s.citation.source for s in evidence.statements)),
                   kb_answer=[v.as_dict() for v in evidence.kb_answer])
        if evidence.warnings:
            log["warnings"] = list(evidence.warnings)
        return evidence

    def _chains(self, question: str, evidence: Evidence) -> EvidenceGraph | None:
        try:
            return chains.build_evidence(question, self.kb, self.linker, hops=self.hops,
                                         top=self.top, lang=self.lang, limits=self.limits)
        except KGGroundError as exc:
            evidence.warnings.append(f"evidence chains: {exc.what}")
            return None


def chain_answer(graph: EvidenceGraph) -> tuple[AnswerValue, ...]:
    """The KB's answer from chains alone: the end of the best answer chain, and the ends of
    the other shortlisted chains that go the same way (same start, same properties in the
    same directions) — all the values of the relation the best chain found."""
    answers = [c for c in graph.chains if c.kind == "answer"]
    if not answers:
        return ()
    best = answers[0]
    out, seen = [], set()
    for chain in answers:
        if _relation(chain) != _relation(best) or chain.end in seen:
            continue
        seen.add(chain.end)
        data = graph.graph.nodes.get(chain.end, {})
        is_entity = data.get("value") is None
        out.append(AnswerValue(chain.end if is_entity else None, graph.label(chain.end),
                               tuple(chain.numbers)))
    return tuple(out)


def _relation(chain: Chain) -> tuple:
    return (chain.start, tuple((s.property, s.forward) for s in chain.steps))
