"""Query generation: questions → label-level and grounded triplet queries and SPARQL.

    from querygen import generate, run
    queries = generate("Where was Marie Curie born?", kb)     # best first
    run(queries[0], kb).answers                                # with citations

Modules: ``generator`` (the entry point, ``generate``), ``types`` (``GeneratedQuery``,
``LinkingDecision``), ``rules`` with ``analysis``, ``mentions``, ``fit``, ``lexicon`` and
``plan`` (rule-based generation, no LLM), ``fewshot`` and ``repair`` (LLM few-shot, and the
parse-repair-ground-validate pipeline shared with the trained generator), ``solve`` and
``execute`` (running a query, answers with citations), ``graphs`` with ``answer_types``
(the readings as whole query graphs: run, typed, scored by a calibrated model; the KB's
answer or an abstention naming what is missing — ``graph_ranker(kb).rank(question)``).
"""

from querygen.execute import AnswerItem, QueryResult, run
from querygen.generator import QueryGenerationError, generate, graph_ranker
from querygen.types import GeneratedQuery, LinkingDecision

__all__ = ["AnswerItem", "GeneratedQuery", "LinkingDecision", "QueryGenerationError",
           "QueryResult", "generate", "graph_ranker", "run"]
