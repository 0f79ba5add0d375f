"""``Grounder.ask``: the LLM-Augmenter loop on the demo KB, with scripted models that force
each branch (consult or not, a failed check and its revision, the round limit), the KB
alone, and the openai backend end to end over a loopback chat-completions server."""

from __future__ import annotations

import json

import pytest

from reasoning import Grounder, prompts
from reasoning.gates import Decision
from reasoning.llm import ScriptedLLM
from store.errors import KGGroundError, LLMConfigError
from tests.openai_server import ChatServer

QUESTION = "Where was Marie Curie born?"


@pytest.fixture(scope="module")
def demo(demo_kb_copy):
    return demo_kb_copy


@pytest.fixture(scope="module")
def linker(demo):
    from linking import EntityLinker
    return EntityLinker(demo)


def number_of(evidence: str, value: str) -> int:
    """The number of the evidence line whose value is ``value``."""
    for m in prompts.EVIDENCE_LINE.finditer(evidence):
        if m["value"].split("; ")[0] == value:
            return int(m["number"])
    raise AssertionError(f"{value!r} is not in the evidence:\n{evidence}")


def player(*, cot="Let me think.\nAnswer: Paris", grounded=None, revise=None,
           decompose=None, samples=None):
    """A scripted model playing the roles ask uses; ``grounded``/``revise`` are functions
    of the prompt's fields, ``samples`` the CoT samples (for the cok gate)."""
    def reply(p):
        task, f = prompts.identify(p.messages) or ("other", {})
        if task in ("cot", "draft"):
            if p.temperature > 0 and samples is not None:
                return f"Hmm.\nAnswer: {samples[p.index % len(samples)]}"
            return cot
        if task == "decompose":
            return decompose(f) if decompose else f["question"]
        if task == "grounded":
            return grounded(f)
        if task == "revise":
            return revise(f)
        raise AssertionError(f"unexpected prompt: {p.messages}")
    return ScriptedLLM(reply)


def cite(value):
    return lambda f: f"The evidence says so.\nAnswer: {value} [{number_of(f['evidence'], value)}]"


# -- the KB alone -------------------------------------------------------------------------------

def test_without_an_llm_the_kb_answers_with_citations(demo, linker):
    a = Grounder(demo, linker=linker).ask(QUESTION)
    assert a.mode == "kb" and a.grounded and a.text == "Warsaw [1]"
    assert [v.id for v in a.values] == ["Q270"]
    c = a.citations[0]
    assert (c.number, c.citation.subject, c.citation.property, c.citation.value.value) == \
        (1, "Q7186", "P19", "Q270")
    assert c.citation.statement_id and c.citation.source.startswith("mirror:")
    assert c.citation.retrieved_at and c.url.startswith("https://www.wikidata.org/wiki/Q7186#")
    assert a.evidence[0] == c and a.graph.citations[0] == c.citation
    assert "An LLM (--llm) would add" in a.note
    assert [s.name for s in a.trace.stages] == ["retrieve", "finish"]
    assert a.trace.n_llm_calls == 0 and a.trace.n_kb_calls > 0
    details = a.trace.stage("retrieve").details
    assert details["sources"] == {c.citation.source: len(a.evidence)}
    assert details["answered_by"] == "query graph"
    query = details["queries"][0]
    assert query["label_level"] == "wd:/Marie Curie/ wdt:/place of birth/ ?x"
    assert query["grounded"] == "wd:Q7186 wdt:P19 ?x" and query["strategy"] == "rules"
    assert query["engine"] == "statements" and query["answers"] == 1
    json.dumps(a.as_dict())


def test_without_an_llm_every_value_of_the_relation_is_answered(demo, linker):
    a = Grounder(demo, linker=linker).ask("Where did Albert Einstein work?")
    assert len(a.values) == 4 and len(a.citations) == 4 and a.grounded
    assert [c.number for c in a.citations] == [1, 2, 3, 4]


def test_a_year_the_query_does_not_use_narrows_its_answers_by_qualifier(demo, linker):
    a = Grounder(demo, linker=linker).ask("Who won the Nobel Prize in Physics in 1903?")
    assert set(a.ids) == {"Q7186", "Q37463", "Q41269"}        # the Curies and Becquerel
    assert [c.number for c in a.citations] == [1, 2, 3]
    assert all("point in time: 1903" in c.text for c in a.citations)
    narrowed = a.trace.stage("retrieve").details["queries"][0]["narrowed"]
    assert narrowed["numbers"] == ["1903"] and narrowed["kept"] == 3 and narrowed["of"] > 3


def test_without_an_llm_a_question_the_kb_cannot_link(demo, linker):
    a = Grounder(demo, linker=linker).ask("What is the capital of Mars?")
    assert a.mode == "kb" and not a.grounded and not a.citations
    assert "no entity named 'Mars'" in a.note


def test_bad_questions_and_gates_that_need_a_model(demo, linker):
    g = Grounder(demo, linker=linker)
    for bad in ("", "   ", None, "x" * 2000):
        with pytest.raises(KGGroundError):
            g.ask(bad)
    with pytest.raises(LLMConfigError, match="needs an LLM"):
        Grounder(demo, gate="cok")


# -- the loop with a model ----------------------------------------------------------------------

def test_the_gate_consults_and_the_model_answers_from_numbered_evidence(demo, linker):
    llm = player(grounded=cite("Warsaw"))
    a = Grounder(demo, llm, gate="always", linker=linker).ask(QUESTION)
    assert a.mode == "llm+kb" and a.grounded and a.rounds == 1
    n = a.citations[0].number
    assert a.text == f"Warsaw [{n}]" and a.evidence[n - 1] == a.citations[0]
    assert a.citations[0].text == "Marie Curie — place of birth → Warsaw"
    assert [v.id for v in a.values] == ["Q270"]
    assert a.decision.gate == "always" and a.decision.consult
    # 'always' needs no draft, and the question's own query answered: no decomposition
    assert [s.name for s in a.trace.stages] == ["decide", "retrieve", "answer", "verify",
                                                 "finish"]
    prompt = a.trace.stage("answer").details["prompt"][1]["content"]
    assert f"[{n}] Marie Curie — place of birth → Warsaw" in prompt
    assert "Pierre" not in prompt          # only the question's entity and its relations
    assert a.trace.n_llm_calls == 1        # the answer
    json.dumps(a.as_dict())


def test_the_gate_does_not_consult_and_the_answer_is_the_models_own(demo, linker):
    llm = player()
    a = Grounder(demo, llm, gate="never", linker=linker).ask(QUESTION)
    assert a.mode == "llm" and not a.grounded and a.text == "Paris"
    assert a.graph is None and not a.citations and not a.evidence
    assert "did not consult" in a.note and "not checked" in a.note
    assert a.trace.n_llm_calls == 1 and a.trace.n_kb_calls == 0


def test_cok_consults_when_the_samples_disagree_and_not_when_they_agree(demo, linker):
    agree = player(samples=["Paris"])
    a = Grounder(demo, agree, gate="cok", linker=linker).ask(QUESTION)
    assert not a.decision.consult and a.mode == "llm"
    disagree = player(samples=["Paris", "Lyon", "Rome", "Kraków", "Oslo"],
                      grounded=cite("Warsaw"))
    a = Grounder(demo, disagree, gate="cok", linker=linker).ask(QUESTION)
    assert a.decision.gate == "cok" and a.decision.consult
    assert a.grounded and a.text.startswith("Warsaw [")
    assert len(a.trace.stage("decide").llm_calls) == 1      # 5 samples in one call


def test_an_abstaining_draft_consults_without_asking_the_gate(demo, linker):
    llm = player(cot="I am not sure.\nAnswer: I don't know", grounded=cite("Warsaw"))
    a = Grounder(demo, llm, gate="rowen-cl", linker=linker).ask(QUESTION)
    assert a.decision.gate == "policy" and a.decision.consult
    assert not a.trace.stage("decide").llm_calls
    assert a.grounded


def test_a_failed_check_gives_feedback_and_the_revision_passes(demo, linker):
    seen = {}

    def revise(f):
        seen.update(f)
        return cite("Warsaw")(f)
    llm = player(grounded=lambda f: "Answer: Kraków [1]", revise=revise)
    a = Grounder(demo, llm, gate="always", linker=linker).ask(QUESTION)
    assert a.grounded and a.rounds == 2 and a.text.startswith("Warsaw [")
    assert "No statement of the evidence supports 'krakow'" in seen["feedback"]
    assert "Warsaw" in seen["feedback"] and seen["previous"] == "Answer: Kraków [1]"
    names = [s.name for s in a.trace.stages]
    assert names == ["decide", "retrieve", "answer", "verify", "revise", "verify", "finish"]
    first, second = [s for s in a.trace.stages if s.name == "verify"]
    assert not first.details["passed"] and second.details["passed"]


def test_an_uncited_answer_is_asked_for_its_citation(demo, linker):
    llm = player(grounded=lambda f: "Answer: Warsaw", revise=cite("Warsaw"))
    a = Grounder(demo, llm, gate="always", linker=linker).ask(QUESTION)
    verify = a.trace.stage("verify").details
    assert "supported by [" in verify["feedback"] and "cite it" in verify["feedback"]
    assert a.grounded and a.rounds == 2


def test_a_citation_outside_the_evidence_fails(demo, linker):
    llm = player(grounded=lambda f: "Answer: Warsaw [99]", revise=cite("Warsaw"))
    a = Grounder(demo, llm, gate="always", linker=linker).ask(QUESTION)
    assert "[99] is not in the evidence" in a.trace.stage("verify").details["feedback"]
    assert a.grounded and a.rounds == 2


def test_an_answer_that_never_passes_gives_way_to_the_kbs_own(demo, linker):
    llm = player(grounded=lambda f: "Answer: Kraków", revise=lambda f: "Answer: Gdańsk [1]")
    a = Grounder(demo, llm, gate="always", max_rounds=2, linker=linker).ask(QUESTION)
    assert a.rounds == 2 and a.mode == "llm+kb"
    assert [s.name for s in a.trace.stages].count("revise") == 1
    # never worse than the KB alone: the KB's cited answer, not Gdańsk
    assert a.text == "Warsaw [1]" and a.grounded and [v.id for v in a.values] == ["Q270"]
    assert "KB's own answer stands" in a.note


def test_a_revision_that_repeats_itself_ends_the_rounds(demo, linker):
    llm = player(grounded=lambda f: "Answer: Kraków", revise=lambda f: "Answer: Kraków")
    a = Grounder(demo, llm, gate="always", max_rounds=5, linker=linker).ask(QUESTION)
    assert a.rounds == 2 and a.trace.stage("revise").details["stalled"]
    assert a.text == "Warsaw [1]"


def test_an_off_question_answer_is_not_taken(demo, linker):
    # a statement about another subject that shares the value is no answer
    llm = player(grounded=lambda f: "Answer: Pierre Curie", revise=lambda f: "Pierre Curie")
    a = Grounder(demo, llm, gate="always", linker=linker).ask(QUESTION)
    assert a.text == "Warsaw [1]" and "Pierre" not in a.text


def test_sub_questions_only_where_the_question_itself_found_nothing(demo, linker):
    asked = []

    def decompose(f):
        asked.append(f["question"])
        return "1. Who was Marie Curie's husband?\n2. Where was #1 born?"
    llm = player(decompose=decompose, grounded=cite("Paris"))
    a = Grounder(demo, llm, gate="always", linker=linker).ask(
        "Where was Marie Curie's husband born?")
    assert not asked and "sub_questions" not in a.trace.stage("retrieve").details
    assert a.text.startswith("Paris [")


def test_only_sub_questions_about_the_questions_names_are_kept():
    from reasoning.prompt_engine import keep_sub_questions
    q = "Which label released Skip James's first album?"
    subs = ["Skip James is a record label, not a label.", "What was Skip James's first album?",
            "Which label released #1?", "What is a record label?"]
    assert keep_sub_questions(subs, q) == ["What was Skip James's first album?",
                                           "Which label released #1?"]


def test_a_gate_object_and_its_calls_in_the_trace(demo, linker):
    class Unsure:
        name = "unsure"

        def decide(self, question):
            return Decision(gate="unsure", consult=True, reason="always unsure",
                            score=0.1, threshold=0.5, scores={"z": 0.1})
    a = Grounder(demo, player(grounded=cite("Warsaw")), gate=Unsure(),
                 linker=linker).ask(QUESTION)
    assert a.decision.scores == {"z": 0.1}
    assert a.trace.stage("decide").details["scores"] == {"z": 0.1}


# -- the openai backend end to end -------------------------------------------------------------

def test_the_openai_backend_over_http(demo, linker):
    pytest.importorskip("openai", reason="pip install 'kgground[openai]'")
    from reasoning.llm.openai_chat import OpenAIChatLLM

    def reply(body, index):
        task, f = prompts.identify(body["messages"]) or ("other", {})
        if "random number" in body["messages"][-1]["content"]:
            return str(1000003 * (body.get("seed") or 0))      # a server that samples
        if task in ("cot", "draft"):
            return "I believe so.\nAnswer: Paris" if body.get("temperature", 0) == 0 else \
                f"Maybe.\nAnswer: {['Paris', 'Lyon', 'Nice', 'Rome', 'Bonn'][index]}"
        if task == "decompose":
            return f["question"]
        if task == "grounded":
            return cite("Warsaw")(f)
        return "?"
    with ChatServer(reply) as server:
        llm = OpenAIChatLLM("test-model", base_url=server.base_url, api_key="k")
        a = Grounder(demo, llm, gate="cok", linker=linker).ask(QUESTION)
    assert a.decision.consult and a.grounded and a.text.startswith("Warsaw [")
    assert a.citations[0].citation.property == "P19"
    tasks = [(prompts.identify(r["messages"]) or ("probe",))[0] for r in server.requests]
    assert tasks == ["draft", "probe", "probe", "cot", "grounded"]
    assert server.requests[0]["logprobs"] is True         # the draft asks for them
    assert [r["seed"] for r in server.requests[1:3]] == [1, 2]
    assert server.requests[3]["n"] == 5
    assert all(r["model"] == "test-model" for r in server.requests)
    assert a.trace.n_llm_calls == 3


def test_rule_made_sparql_is_validated_before_it_runs(demo, linker):
    a = Grounder(demo, linker=linker).ask("Was Marie Curie born in Warsaw?")
    assert a.text == "yes [1]" and a.grounded
    query = a.trace.stage("retrieve").details["queries"][0]
    assert query["form"] == "ask" and query["diagnostics"] == {"errors": [], "warnings": []}
    assert a.citations[0].citation.property == "P19"


def test_an_unreachable_endpoint_is_an_error_not_an_empty_answer(demo, linker):
    import socket

    from kb.endpoint import SparqlEndpointKB
    from kb.fallback import FallbackKB
    from store.errors import EndpointUnreachable

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # closed once the block ends: nothing listens
    live = SparqlEndpointKB(f"http://127.0.0.1:{port}/sparql", no_cache=True)
    with pytest.raises(EndpointUnreachable):
        Grounder(FallbackKB(demo, live), linker=linker).ask(QUESTION)
    offline = Grounder(FallbackKB(demo, live, offline=True), linker=linker).ask(QUESTION)
    assert offline.text == "Warsaw [1]" and offline.grounded
