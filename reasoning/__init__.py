"""Reasoning: LLM backends (``reasoning.llm``), the consult-the-KB gates
(``reasoning.gates``), the LLM-Augmenter loop (``Grounder``), the ``Session`` that owns what
an application keeps while it runs (the KB, its linker, the model clients, the endpoint
limits) and the command line (``reasoning.cli``).

    from reasoning import Grounder
    answer = Grounder("slice.sqlite").ask("Where was Marie Curie born?")
    answer.text, answer.citations[0].url

``Grounder``, ``Session`` and ``Answer`` are imported on first use, so the command line starts fast.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("Grounder", "abstains"):
        from reasoning import grounder
        return getattr(grounder, name)
    if name == "Session":
        from reasoning import session
        return session.Session
    if name in ("Answer", "AnswerValue", "AnswerTrace", "CitedStatement", "StageRecord",
                "ANSWER_SCHEMA_PATH", "TRACE_SCHEMA_PATH", "load_answer_schema",
                "load_trace_schema", "schemas_by_id"):
        from reasoning import answer
        return getattr(answer, name)
    raise AttributeError(f"module 'reasoning' has no attribute {name!r}")


__all__ = ["ANSWER_SCHEMA_PATH", "Answer", "AnswerTrace", "AnswerValue", "CitedStatement",
           "Grounder", "Session", "StageRecord", "TRACE_SCHEMA_PATH", "abstains",
           "load_answer_schema", "load_trace_schema", "schemas_by_id"]
