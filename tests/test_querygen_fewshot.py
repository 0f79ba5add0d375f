"""LLM few-shot query generation: the logic with a scripted LLM, the wire with the real
``openai`` client against an OpenAI-protocol server on loopback; repair of what models
write, regeneration with the validator's messages, and CoK's decomposition of multi-hop
questions."""

from __future__ import annotations


import pytest

from linking import EntityLinker
from querygen import generate, run
from querygen.repair import NoQueryFound, extract_query
from reasoning.llm import ScriptedLLM
from tests.openai_server import ChatServer


@pytest.fixture(scope="module")
def demo(demo_kb_copy):
    return demo_kb_copy, EntityLinker(demo_kb_copy)


FENCED = ("Sure, here is the query:\n```sparql\nSELECT ?x WHERE { wd:/Marie Curie/ "
          "wdt:/place of birth/ ?x . }\n```\nIt returns her birthplace.")


# -- repair -------------------------------------------------------------------------------------

@pytest.mark.parametrize("reply, repairs", [
    (FENCED, ["fence", "prefixes"]),
    ("The answer needs SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x } LIMIT 3. Done.",
     ["prose", "prefixes"]),
    ("SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x", ["braces", "prefixes"]),
    ("ASK { wd:/Warsaw/ wdt:/country/ wd:/Poland/ } };", ["braces", "trailing", "prefixes"]),
    ("SELECT ?x WHERE { ?x wdt:/named after/ wd:/Marie Curie/ . FILTER(?x != “x”) }",
     ["quotes", "prefixes"]),
    ("SELECT ?x WHERE { wd:/D'Angelo/ wdt:/instrument/ ?x . }", ["prefixes"]),
    ("SELECT ?x WHERE { wd:/Texas Hold'em {King}/ wdt:/a \\/ b/ ?x", ["braces", "prefixes"]),
    ("PREFIX wd: <http://www.wikidata.org/entity/>\nPREFIX wdt: "
     "<http://www.wikidata.org/prop/direct/>\nSELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }", []),
])
def test_replies_are_repaired_into_queries_that_parse(reply, repairs):
    import re

    from store.sparql import prepare

    query, steps = extract_query(reply)
    assert steps == repairs
    prepare(re.sub(r"(wdt?):/(?:\\.|[^/\\])+/", r"\1:P1", query))   # slots aside, it parses
    assert ("LIMIT 3" in query) == ("LIMIT 3" in reply)
    assert not query.rstrip().endswith((";", "."))


def test_a_reply_without_a_query_says_so():
    with pytest.raises(NoQueryFound, match="no SPARQL query.*Marie Curie was born in Warsaw"):
        extract_query("Marie Curie was born in Warsaw.")


# -- the logic (scripted LLM) -------------------------------------------------------------------

def test_a_fenced_label_level_reply_becomes_a_grounded_triplet(demo):
    base, linker = demo
    llm = ScriptedLLM([FENCED])
    [q] = generate("Where was Marie Curie born?", base, strategy="llm", llm=llm,
                   linker=linker)
    assert q.strategy == "llm" and q.kind == "triplet"
    assert q.triple == ("Q7186", "P19", None) and q.grounded == "wd:Q7186 wdt:P19 ?x"
    assert q.label_level == "wd:/Marie Curie/ wdt:/place of birth/ ?x ."[:-2]
    assert "repair: fence" in q.notes
    assert [d.id for d in q.decisions] == ["Q7186", "P19"]
    prompt = llm.history[0][0].message_dicts()
    assert prompt[0]["role"] == "system" and "wd:/label/" in prompt[0]["content"]
    assert prompt[-1] == {"role": "user", "content": "Question: Where was Marie Curie born?"}
    assert any("```sparql" in m["content"] for m in prompt if m["role"] == "assistant")
    assert run(q, base).ids == ["Q270"]


def test_an_unknown_label_is_sent_back_with_the_closest_names(demo):
    base, linker = demo
    llm = ScriptedLLM(["SELECT ?x WHERE { wd:/Zzyzx Qwertyuiop/ wdt:/employer/ ?x }",
                       "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/employer/ ?x }"])
    [q] = generate("Who employed Albert Einstein?", base, strategy="llm", llm=llm,
                   linker=linker)
    assert q.triple == ("Q937", "P108", None)
    second = llm.history[1][0].message_dicts()
    assert second[-2]["content"].startswith("SELECT ?x WHERE { wd:/Zzyzx")   # its own reply
    assert "no entity is labelled 'Zzyzx Qwertyuiop'" in second[-1]["content"]


def test_an_empty_result_is_sent_back_and_rounds_are_bounded(demo):
    base, linker = demo
    wrong = "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/child/ ?x }"   # none in the KB
    llm = ScriptedLLM([wrong] * 3 + ["never asked"])
    queries = generate("Who employed Albert Einstein?", base, strategy="llm", llm=llm,
                       linker=linker, rounds=3)
    assert len(llm.history) == 3                     # three rounds, then it stops asking
    said = llm.history[1][0].message_dicts()[-1]["content"]
    # the parser-only check runs the query and says it found nothing; querygen.validate
    # says so itself ("no statement in … matches …") and the query is an error there
    assert "returns no answer" in said or "no statement in" in said
    for q in queries:                                # offered at most as a last resort
        assert q.triple == ("Q937", "P40", None) and "no answer in the KB" in q.notes
        assert run(q, base).answers == ()


def test_prose_without_a_query_is_asked_again(demo):
    base, linker = demo
    llm = ScriptedLLM(["I believe the answer is Ulm.",
                       "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/place of birth/ ?x }"])
    [q] = generate("Where was Albert Einstein born?", base, strategy="llm", llm=llm,
                   linker=linker)
    assert q.triple == ("Q937", "P19", None)
    assert "no usable query" in llm.history[1][0].message_dicts()[-1]["content"]


def test_samples_vote(demo):
    base, linker = demo
    a = "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/employer/ ?x }"
    b = "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/educated at/ ?x }"
    llm = ScriptedLLM(lambda p: [a, b, a][p.index])
    queries = generate("Who employed Albert Einstein?", base, strategy="llm", llm=llm,
                       linker=linker, samples=3)
    assert [q.triple[1] for q in queries] == ["P108", "P69"]
    assert queries[0].score > queries[1].score
    assert llm.history[0][0].n == 3 and llm.history[0][0].temperature > 0


def test_a_multi_hop_question_is_decomposed_into_sub_questions(demo):
    base, linker = demo
    script = {
        "Break the question": "1. Where was Albert Einstein born?\n2. Which country is #1 "
                              "in?\n3. What is the capital of #2?",
        "Question: What is the capital of the country": (
            "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/place of birth/ ?c . ?c "
            "wdt:/country/ ?k . ?k wdt:/capital/ ?x }"),
        "Question: Where was Albert Einstein born?":
            "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/place of birth/ ?x }",
        "Question: Which country is Ulm in?": "SELECT ?x WHERE { wd:/Ulm/ wdt:/country/ ?x }",
        "Question: What is the capital of Germany?":
            "SELECT ?x WHERE { wd:/Germany/ wdt:/capital/ ?x }",
    }
    llm = ScriptedLLM(script)
    queries = generate("What is the capital of the country where Albert Einstein was born?",
                       base, strategy="llm", llm=llm, linker=linker)
    whole, *subs = queries
    assert whole.kind == "sparql" and [p[1] for p in whole.patterns] == ["P19", "P17", "P36"]
    assert [q.notes[0] for q in subs] == [
        "sub-question 1 of 3: Where was Albert Einstein born?",
        "sub-question 2 of 3: Which country is Ulm in?",
        "sub-question 3 of 3: What is the capital of Germany?"]
    assert subs[-1].triple == ("Q183", "P36", None)
    # Berlin: Bonn is a normal-rank capital beside the preferred one, and wdt: is truthy
    assert set(run(whole, base).ids) == set(run(subs[-1], base).ids) == {"Q64"}


def test_a_one_hop_question_is_not_decomposed(demo):
    base, linker = demo
    llm = ScriptedLLM(["SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/employer/ ?x }"])
    generate("Who employed Albert Einstein?", base, strategy="llm", llm=llm, linker=linker)
    assert len(llm.history) == 1


# -- the wire (the real openai client, a server on loopback) -------------------------------------

def test_over_the_openai_protocol_with_repairs(demo):
    pytest.importorskip("openai", reason="pip install 'kgground[openai]'")
    from reasoning.llm.openai_chat import OpenAIChatLLM

    base, linker = demo
    fenced_unclosed = "```sparql\nSELECT ?x WHERE { wd:/Marie Curie/ wdt:/spouse/ ?x \n```"
    with ChatServer(lambda body, i: fenced_unclosed) as server:
        llm = OpenAIChatLLM("test-model", base_url=server.base_url, api_key="k")
        [q] = generate("Who was Marie Curie married to?", base, strategy="llm", llm=llm,
                       linker=linker)
    assert q.triple == ("Q7186", "P26", None)
    assert {"repair: fence", "repair: braces", "repair: prefixes"} <= set(q.notes)
    assert len(server.requests) == 1
    sent = server.requests[0]
    assert sent["model"] == "test-model" and sent["temperature"] == 0.0
    assert sent["messages"][-1]["content"] == "Question: Who was Marie Curie married to?"
    assert run(q, base).ids == ["Q37463"]


def test_regeneration_over_the_wire(demo):
    pytest.importorskip("openai", reason="pip install 'kgground[openai]'")
    from reasoning.llm.openai_chat import OpenAIChatLLM

    base, linker = demo

    def reply(body, index):
        if "problems" in body["messages"][-1]["content"]:        # the feedback round
            return "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/place of death/ ?x }"
        return "SELECT ?x WHERE { wd:/Qqqqq Zzzzzz/ wdt:/place of death/ ?x }"

    with ChatServer(reply) as server:
        llm = OpenAIChatLLM("test-model", base_url=server.base_url, api_key="k")
        [q] = generate("Where did Albert Einstein die?", base, strategy="llm", llm=llm,
                       linker=linker)
    assert q.triple == ("Q937", "P20", None)
    assert len(server.requests) == 2
    feedback = server.requests[1]["messages"]
    assert feedback[-2] == {"role": "assistant", "content":
                            "SELECT ?x WHERE { wd:/Qqqqq Zzzzzz/ wdt:/place of death/ ?x }"}
    assert "no entity is labelled 'Qqqqq Zzzzzz'" in feedback[-1]["content"]


# -- a trained generator's output goes through the same pipeline ---------------------------------

class ScriptedGenerator:
    """Stands where querygen.trained.TrainedGenerator does: label-level queries, best first."""

    def __init__(self, beams):
        self.beams = beams
        self.calls = []

    def generate(self, question, n=1):
        self.calls.append((question, n))
        return self.beams[:n]


def test_model_strategy_grounds_validates_and_keeps_the_beam_order(demo):
    base, linker = demo
    model = ScriptedGenerator(["SELECT ?x WHERE { wd:/Qqqq Zzzz/ wdt:/employer/ ?x }",
                               "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/employer/ ?x",
                               "SELECT ?x WHERE { wd:/Albert Einstein/ wdt:/educated at/ ?x }"])
    queries = generate("Who employed Albert Einstein?", base, strategy="model", model=model,
                       linker=linker)
    assert model.calls == [("Who employed Albert Einstein?", 5)]
    assert [q.triple for q in queries] == [("Q937", "P108", None), ("Q937", "P69", None)]
    assert all(q.strategy == "model" for q in queries)
    assert "repair: braces" in queries[0].notes


def test_model_strategy_without_a_model_is_a_clear_error(demo):
    from querygen import QueryGenerationError

    with pytest.raises(QueryGenerationError, match="needs a trained generator.*querygen "
                                                   "train"):
        generate("Who employed Albert Einstein?", demo[0], strategy="model", linker=demo[1])
