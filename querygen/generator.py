"""The one entry point of query generation: ``generate(question, kb, strategy=...)``.

    from querygen import generate, run
    queries = generate("Where was Marie Curie born?", kb)          # rules, offline
    queries[0].label_level      # 'wd:/Marie Curie/ wdt:/place of birth/ ?x'
    queries[0].grounded         # 'wd:Q7186 wdt:P19 ?x'
    run(queries[0], kb).answers[0].label                            # 'Warsaw', cited

Strategies:

``rules``  no LLM: question analysis, the entity linker and the KB (``querygen.rules``);
``llm``    an LLM writes label-level SPARQL from a few-shot prompt (``querygen.fewshot``);
           pass ``llm=`` (any object with ``complete(messages, n=, temperature=, …)``);
``model``  a trained generator (``querygen.trained.TrainedGenerator``) writes label-level
           SPARQL, grounded and validated like the LLM's; pass ``model=`` (a path or a
           loaded generator).

Nothing is kept between calls: without ``linker=`` each call builds an ``EntityLinker``
over ``kb`` for itself (opening a mirror's linking sidecar, seconds on a mirror's first
use), so a caller asking more than one question passes the one it keeps — a
``reasoning.Session``'s ``linker``.
The result is best first; empty when nothing could be generated. Errors in what the
caller passed (an unknown strategy, ``llm`` missing) raise ``QueryGenerationError`` saying
how to fix the call.
"""

from __future__ import annotations

from typing import Any

from kb.base import KnowledgeBase
from kb.contracts import LLM, Linker
from querygen.types import GeneratedQuery
from store.errors import KGGroundError

STRATEGIES = ("rules", "llm", "model")
#: longer inputs are not one question (and would cost time quadratic in their length)
MAX_WORDS = 80



class QueryGenerationError(KGGroundError):
    """generate() was called in a way that cannot work (see the message's fix)."""


def generate(question: str, kb: KnowledgeBase, *, strategy: str = "rules", llm: LLM | None = None,
             linker: Linker | None = None, model: Any = None, limit: int = 5,
             **options: Any) -> list[GeneratedQuery]:
    """Queries for ``question`` over ``kb``, best first (see the module docstring).

    ``options`` go to the strategy: for ``llm``, ``examples``, ``rounds``, ``samples``,
    ``decompose``, ``validator`` (see ``querygen.fewshot.FewShotGenerator``)."""
    if not isinstance(question, str) or not question.strip():
        raise QueryGenerationError("a question is needed", expected="a non-empty string",
                                   got=repr(question))
    words = len(question.split())
    if words > MAX_WORDS:
        raise QueryGenerationError(f"the question is {words} words long", expected=f"one "
                                   f"question of at most {MAX_WORDS} words",
                                   fix="ask one question at a time")
    if strategy not in STRATEGIES:
        raise QueryGenerationError(f"unknown strategy {strategy!r}",
                                   expected=" | ".join(STRATEGIES), got=strategy,
                                   fix="pass strategy='rules' (offline), 'llm' with "
                                       "llm=..., or 'model' with model=PATH")
    linker = linker if linker is not None else _new_linker(kb)
    if strategy == "rules":
        if options:
            raise QueryGenerationError("the rules strategy takes no options",
                                       got=", ".join(sorted(options)))
        from querygen.rules import RuleGenerator
        return RuleGenerator(kb, linker).generate(question, limit=limit)
    if strategy == "llm":
        if llm is None:
            raise QueryGenerationError("strategy='llm' needs an LLM",
                                       fix="pass llm= (any object with complete(messages, "
                                           "n=, temperature=)), e.g. reasoning.llm's "
                                           "OpenAIChatLLM; or use strategy='rules'")
        from querygen.fewshot import FewShotGenerator
        return FewShotGenerator(kb, linker, llm, **options).generate(question, limit=limit)
    if model is None:
        raise QueryGenerationError("strategy='model' needs a trained generator",
                                   fix="pass model=DIR (written by kgground querygen "
                                       "train) or a querygen.trained.TrainedGenerator")
    from querygen.fewshot import ModelGenerator
    return ModelGenerator(kb, linker, model, **options).generate(question, limit=limit)


def graph_ranker(kb: KnowledgeBase, linker: Linker | None = None) -> Any:
    """A ``querygen.graphs.GraphRanker`` for ``kb`` and ``linker`` (one built over ``kb``
    when None). It remembers what it learns of the KB's types and properties for its
    life: keep it for more than one question."""
    from querygen.graphs import GraphRanker

    return GraphRanker(kb, linker if linker is not None else _new_linker(kb))


def _new_linker(kb: KnowledgeBase) -> Linker:
    from linking import EntityLinker
    return EntityLinker(kb)
