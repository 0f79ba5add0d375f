"""The parts of the LLM-Augmenter loop on their own: the utility check, the policy, the
prompt engine's parsing, the metered KB, and SimulatedLLM answering from evidence."""

from __future__ import annotations

import threading

import pytest

from kb.types import Citation, Value
from reasoning import prompts
from reasoning.answer import AnswerValue, CitedStatement
from reasoning.evidence import Evidence, EvidenceNode
from reasoning.gates import Decision
from reasoning.llm import FactCatalog, SimulatedLLM
from reasoning.memory import CandidateAnswer, Draft, WorkingMemory
from reasoning.metered import MeteredKB, meter_delta
from reasoning.policy import Action, RulePolicy
from reasoning.prompt_engine import fill_in, parse_sub_questions
from reasoning.utility import abstains, assess, knowledge_f1

BIRTH = Value("literal", "1867-11-07T00:00:00Z",
              datatype="http://www.w3.org/2001/XMLSchema#dateTime", details={"precision": 11})


def evidence() -> Evidence:
    """Marie Curie's place and date of birth and her spouse, numbered 1–3."""
    facts = [("Q7186", "P19", Value("entity", "Q270"), "place of birth", "Warsaw"),
             ("Q7186", "P569", BIRTH, "date of birth", "1867-11-07"),
             ("Q7186", "P26", Value("entity", "Q37463"), "spouse", "Pierre Curie")]
    statements = tuple(
        CitedStatement(n, f"Marie Curie — {plabel} → {vlabel}",
                       Citation(s, p, v, "mirror:test", statement_id=f"{s}$%d" % n))
        for n, (s, p, v, plabel, vlabel) in enumerate(facts, 1))
    nodes = {"Q7186": EvidenceNode("Q7186", "Marie Curie", None, (1, 2, 3)),
             "Q270": EvidenceNode("Q270", "Warsaw", None, (1,)),
             "lit:birth": EvidenceNode("lit:birth", "1867-11-07", BIRTH, (2,)),
             "Q37463": EvidenceNode("Q37463", "Pierre Curie", None, (3,))}
    return Evidence("Where was Marie Curie born?", statements=statements, nodes=nodes,
                    seeds=("Q7186",),
                    kb_answer=(AnswerValue("Q270", "Warsaw", (1,)),))


# -- utility ------------------------------------------------------------------------------------

@pytest.mark.parametrize("reply", [
    "Answer: Warsaw [1]",
    "She was born in Warsaw.\nAnswer: Warsaw [1]",
    "Marie Curie was born in Warsaw [1].",
    "Answer: warsaw[1]",
])
def test_an_answer_whose_values_are_cited_passes(reply):
    u = assess(reply, evidence(), "Where was Marie Curie born?")
    assert u.passed, u.feedback
    assert [v.id for v in u.values] == ["Q270"] and u.feedback == ""


@pytest.mark.parametrize("reply, fails_with", [
    ("Answer: Kraków [1]", "No statement of the evidence supports 'krakow'"),
    ("Answer: Warsaw", "'Warsaw' is supported by [1]: cite it"),
    ("Answer: Warsaw [7]", "[7] is not in the evidence (its statements are numbered 1 to 3)"),
    ("Answer: Warsaw [3]", "'Warsaw' is supported by [1]: cite it"),
    ("Answer: Warsaw, Poland [1]", "No statement of the evidence supports 'poland'"),
    ("Answer: I don't know", "does not answer"),
])
def test_what_fails_and_the_feedback_says_why(reply, fails_with):
    u = assess(reply, evidence(), "Where was Marie Curie born?")
    assert not u.passed and fails_with in u.feedback
    assert "The evidence's best answer: Warsaw ([1])" in u.feedback


def test_dates_are_matched_in_words_and_a_wrong_day_is_not():
    ev = evidence()
    for reply in ("Answer: 7 November 1867 [2]", "Answer: November 7, 1867 [2]",
                  "Answer: 1867-11-07 [2]", "Answer: 1867 [2]"):
        assert assess(reply, ev, "When was Marie Curie born?").passed, reply
    u = assess("Answer: 8 November 1867 [2]", ev, "When was Marie Curie born?")
    assert not u.passed and "supports '8'" in u.feedback


def test_aliases_of_evidence_entities_count():
    ev = evidence()
    aliases = {"Q270": ["Warszawa"]}.get
    assert not assess("Answer: Warszawa [1]", ev).passed
    u = assess("Answer: Warszawa [1]", ev, aliases=lambda node: aliases(node, []))
    assert u.passed and u.values[0].id == "Q270"


def test_question_entities_are_not_values():
    u = assess("Answer: Marie Curie's husband was Pierre Curie [3]", evidence(),
               "Who was Marie Curie married to?")
    assert u.passed and [v.id for v in u.values] == ["Q37463"]
    u = assess("Answer: Marie Curie [1]", evidence(), "Who was Marie Curie married to?")
    assert not u.passed and u.only_question
    assert "names only what the question is about ('Marie Curie')" in u.feedback


@pytest.mark.parametrize("answer", [
    "", "  ", "Unknown", "unknown.", "Not known — the records were lost.", "I don't know",
    "Answer: I do not know", "I dont know who founded it.", "I am not sure.",
    "I'm not sure who wrote it.", "Sorry, I cannot determine that from the evidence.",
    "Cannot be determined.", "It is not known.", "This cannot be determined.",
    "The answer is unknown.", "The birthplace of Paavo Nurmi is not stated.",
    "Based on the evidence given, I can't tell.", "No idea", "Insufficient information.",
    "There is no information about that.", "N/A", "We have no information on it.",
])
def test_abstentions_are_recognized(answer):
    assert abstains(answer)


@pytest.mark.parametrize("answer", [
    "The Unknown Soldier", "an unknown comet discovered in 1910", "Unknown Pleasures",
    "Joy Division's Unknown Pleasures (1979)", "Na", "Not Known At All (a band)",
    "Warsaw", "It was named after an unknown sailor.", "No Doubt",
    "Unclear Skies, a novel by Ann Lee", "Known as the Iron Lady: Margaret Thatcher",
    "The source of the Nile was unknown to Europeans until Speke reached Lake Victoria.",
])
def test_answers_with_such_words_in_them_are_no_abstentions(answer):
    assert not abstains(answer)


def test_knowledge_f1():
    assert knowledge_f1("Warsaw", "Marie Curie — place of birth → Warsaw") == pytest.approx(
        2 * 1 * 0.2 / 1.2)
    assert knowledge_f1("Paris", "Marie Curie — place of birth → Warsaw") == 0.0
    assert knowledge_f1("", "anything") == 0.0


# -- policy ------------------------------------------------------------------------------------

def test_the_policy_without_an_llm_retrieves_then_finishes():
    m = WorkingMemory("q", has_llm=False)
    policy = RulePolicy()
    assert policy.next(m) is Action.RETRIEVE
    m.evidence = evidence()
    assert policy.next(m) is Action.FINISH


def test_the_policy_with_an_llm():
    policy = RulePolicy(max_rounds=2)
    m = WorkingMemory("q", has_llm=True)
    assert policy.next(m) is Action.DRAFT
    m.draft = Draft("Answer: Paris", "Paris")
    assert policy.next(m) is Action.DECIDE
    m.decision = Decision("never", False, "no")
    assert policy.next(m) is Action.FINISH
    m.decision = Decision("always", True, "yes")
    assert policy.next(m) is Action.RETRIEVE
    m.evidence = Evidence("q")
    assert policy.next(m) is Action.FINISH               # nothing found: the draft it is
    m.evidence = evidence()
    assert policy.next(m) is Action.ANSWER
    m.candidates.append(CandidateAnswer(1, "Answer: Kraków"))
    assert policy.next(m) is Action.VERIFY
    m.candidates[-1].utility = assess("Answer: Kraków", m.evidence)
    assert policy.next(m) is Action.REVISE
    m.candidates.append(CandidateAnswer(2, "Answer: Warsaw [1]",
                                        assess("Answer: Warsaw [1]", m.evidence)))
    assert policy.next(m) is Action.FINISH
    assert m.best().round == 2
    m.candidates[-1].utility = assess("Answer: Gdańsk", m.evidence)
    assert policy.next(m) is Action.FINISH               # the round limit
    with pytest.raises(ValueError):
        RulePolicy(max_rounds=0)


# -- prompt engine ------------------------------------------------------------------------------

def test_sub_questions_are_parsed_and_filled_in():
    reply = "Sub-questions:\n1. Who founded Delta Air Lines?\n2) Where was #1 born?\n"
    subs = parse_sub_questions(reply, "Where was Delta's founder born?")
    assert subs == ["Who founded Delta Air Lines?", "Where was #1 born?"]
    assert fill_in(subs[1], {1: "C. E. Woolman"}) == "Where was C. E. Woolman born?"
    assert parse_sub_questions("", "Where is X?") == ["Where is X?"]
    assert parse_sub_questions("Where is X?", "Where is X?") == ["Where is X?"]


def test_citation_markers():
    assert prompts.cited_numbers("Warsaw [2][1], Paris [1, 3]") == [2, 1, 3]
    assert prompts.strip_citations("Warsaw [1] and Paris [2,3].") == "Warsaw and Paris."


# -- the metered KB ------------------------------------------------------------------------------

def test_the_metered_kb_counts_calls_per_method_and_thread(demo_mirror_path):
    import kb
    base = kb.open(demo_mirror_path)
    metered = MeteredKB(base)
    before = metered.meter.snapshot()
    metered.statements("Q7186", "P19")
    metered.entity("Q7186")
    metered.statements("Q7186")
    delta = meter_delta(before, metered.meter.snapshot())
    assert {k: v["calls"] for k, v in delta.items()} == {"statements": 2, "entity": 1}
    assert metered.name == base.name and metered.wrapped is base
    other = []
    t = threading.Thread(target=lambda: (metered.entity("Q937"),
                                         other.append(metered.meter.total)))
    t.start()
    t.join()
    assert other == [1] and metered.meter.total == 3
    base.close()


# -- SimulatedLLM from evidence ------------------------------------------------------------------

CATALOG = [{"question": f"Where was person {i} born?", "subject": f"Q{100 + i}",
            "property": "P19", "answers": [f"Q{i % 5 + 1}"],
            "answer_labels": [["Oslo", "Lima", "Rome", "Bonn", "Kyiv"][i % 5]]}
           for i in range(40)]


def test_simulated_llm_answers_from_evidence():
    catalog = FactCatalog.from_rows(CATALOG)
    llm = SimulatedLLM(catalog, seed=1, forget_citation=0.0)
    follow = SimulatedLLM(catalog, seed=1, follow_evidence=1.0, forget_citation=0.0)
    decompose = prompts.DECOMPOSE.render(question=CATALOG[0]["question"])
    assert llm.complete(decompose) == [CATALOG[0]["question"]]
    for row in CATALOG:
        q = row["question"]
        truth = row["answer_labels"][0]
        ev = f"[1] person — place of birth → Atlantis\n[2] person — place of birth → {truth}"
        own = prompts.extract_answer(llm.complete(prompts.ANSWER.render(question=q))[0])
        reply = llm.complete(prompts.GROUNDED.render(evidence=ev, question=q))[0]
        if own == truth:                     # a known fact the evidence confirms: cited
            assert prompts.extract_answer(reply) == f"{truth} [2]"
        followed = follow.complete(prompts.GROUNDED.render(evidence=ev, question=q))[0]
        if own != truth:                     # unknown: follows the top statement
            assert prompts.extract_answer(followed) == "Atlantis [1]"
    inverse = prompts.GROUNDED.render(evidence="[1] Ada — award received → Prize X",
                                      question="Who won Prize X?")
    assert prompts.extract_answer(follow.complete(inverse)[0]) == "Ada [1]"
    revise = prompts.REVISE.render(
        evidence="[1] person — place of birth → Oslo", question=CATALOG[0]["question"],
        previous="Answer: Lima",
        feedback="No statement of the evidence supports 'lima'.\n"
                 "The evidence's best answer: Oslo ([1]).")
    assert prompts.extract_answer(llm.complete(revise)[0]) == "Oslo [1]"
