"""SimulatedLLM: a seeded simulation of factual knowledge, and the gates on it."""

from __future__ import annotations

import pytest

from kb.errors import LLMConfigError
from reasoning import prompts
from reasoning.gates import make_gate
from reasoning.llm import FactCatalog, SimulatedLLM

COUNTRIES = ["Sweden", "Norway", "France", "Peru", "Chile", "Japan", "Kenya", "Ghana"]
FIELDS = ["history", "physics", "botany", "law", "poetry", "geology", "music"]


def synthetic_rows(n=240):
    """Facts about made-up people: country of citizenship and field of work."""
    rows = []
    for i in range(n):
        if i % 2:
            rows.append({"question": f"Which country is person {i} a citizen of?",
                         "subject": f"Q{1000 + i}", "property": "P27",
                         "answers": [f"Q{i % 8 + 1}"], "answer_labels": [COUNTRIES[i % 8]],
                         "popularity": i})
        else:
            rows.append({"question": f"What field does person {i} work in?",
                         "subject": f"Q{1000 + i}", "property": "P101",
                         "answers": [f"Q{i % 7 + 20}"], "answer_labels": [FIELDS[i % 7]],
                         "popularity": i})
    return rows


@pytest.fixture
def catalog():
    return FactCatalog.from_rows(synthetic_rows())


def ask(llm, question, temperature=0.0, n=1):
    return llm.complete(prompts.ANSWER.render(question=question), n=n,
                        temperature=temperature)


def test_known_facts_are_answered_right_and_consistently(catalog):
    llm = SimulatedLLM(catalog, seed=1)
    known = [f for f in catalog.facts if llm.knows(f.question)]
    assert known
    for fact in known[:20]:
        assert ask(llm, fact.question) == [fact.answer]
        para = llm.complete(prompts.PARAPHRASE.render(question=fact.question), n=3,
                            temperature=1.0)
        assert all(ask(llm, p) == [fact.answer] for p in para)
        cot = llm.complete(prompts.COT.render(question=fact.question), n=5, temperature=0.7)
        assert sum(prompts.extract_answer(c) == fact.answer for c in cot) >= 4


def test_unknown_facts_get_plausible_wrong_answers_that_vary_with_wording(catalog):
    llm = SimulatedLLM(catalog, seed=1)
    unknown = [f for f in catalog.facts if not llm.knows(f.question)]
    varied = 0
    for fact in unknown:
        answers = set()
        paraphrases = llm.complete(prompts.PARAPHRASE.render(question=fact.question), n=6,
                                   temperature=1.0)
        for p in paraphrases:
            a = ask(llm, p)[0]
            assert a != fact.answer
            pool = COUNTRIES if fact.property == "P27" else FIELDS
            assert a in pool                                   # plausible: same kind
            answers.add(a)
        varied += len(answers) > 1
    assert varied / len(unknown) > 0.6


def test_samples_vary_with_temperature_but_greedy_does_not(catalog):
    llm = SimulatedLLM(catalog, seed=3, confident_wrong=0.0)
    unknown = [f for f in catalog.facts if not llm.knows(f.question)][:30]
    greedy_same = all(len(set(ask(llm, f.question, n=4))) == 1 for f in unknown)
    sampled_varied = sum(len(set(ask(llm, f.question, 1.0, n=5))) > 1 for f in unknown)
    assert greedy_same and sampled_varied / len(unknown) > 0.8


def test_knowledge_follows_the_share_and_popularity(catalog):
    shares = []
    for seed in range(5):
        llm = SimulatedLLM(catalog, seed=seed, known_share=0.5)
        facts = catalog.facts
        shares.append(sum(llm.knows(f.question) for f in facts) / len(facts))
        half = len(facts) // 2                 # popularity = index: the second half is popular
        assert sum(llm.knows(f.question) for f in facts[half:]) > \
            sum(llm.knows(f.question) for f in facts[:half])
    assert 0.4 < sum(shares) / len(shares) < 0.6
    low = SimulatedLLM(catalog, known_share=0.2)
    assert sum(low.knows(f.question) for f in catalog.facts) / len(catalog) < 0.32


def test_other_languages_know_less(catalog):
    llm = SimulatedLLM(catalog, seed=2, language_drop=0.5)
    en = sum(llm.knows(f.question) for f in catalog.facts)
    zh = sum(llm.knows(f.question, "zh") for f in catalog.facts)
    assert zh < en * 0.7


def test_translations_and_paraphrases_are_remembered_by_the_catalog(catalog):
    llm = SimulatedLLM(catalog, seed=1)
    fact = catalog.facts[5]
    zh = llm.complete(prompts.TRANSLATE.render(language="Chinese", question=fact.question))[0]
    assert zh.startswith("请问")
    asked = catalog.lookup(zh)
    assert asked.fact == fact and asked.lang == "zh"
    para = llm.complete(prompts.PARAPHRASE.render(question=fact.question))[0]
    assert para != fact.question and catalog.lookup(para).fact == fact
    # a second model sharing the catalog knows what the first one's texts ask
    other = SimulatedLLM(catalog, seed=9)
    assert other.truth(para) == fact


def test_the_judge_compares_answers(catalog):
    llm = SimulatedLLM(catalog, judge_noise=0.0)
    same = prompts.JUDGE.render(question1="q", answer1="Answer: Sweden", question2="问",
                                answer2="sweden.")
    differ = prompts.JUDGE.render(question1="q", answer1="Sweden", question2="q",
                                  answer2="Norway")
    assert llm.complete(same) == ["True"] and llm.complete(differ) == ["False"]


def test_unknown_questions_and_other_prompts(catalog):
    llm = SimulatedLLM(catalog, seed=1)
    assert ask(llm, "How tall is the Eiffel tower?") == ["I don't know"]
    fact = catalog.facts[7]
    free = [{"role": "user", "content": f"Please help. {fact.question} Thanks"}]
    assert llm.complete(free)[0] in COUNTRIES + FIELDS
    # a close wording of a catalog question is recognized
    assert llm.truth(fact.question.replace("?", "")) == fact


def test_runs_are_reproducible(catalog):
    a, b = SimulatedLLM(catalog, seed=4), SimulatedLLM(catalog, seed=4)
    qs = [f.question for f in catalog.facts[:40]]
    assert [ask(a, q, 0.7, 3) for q in qs] == [ask(b, q, 0.7, 3) for q in qs]
    c = SimulatedLLM(catalog, seed=5)
    assert [a.knows(q) for q in qs] != [c.knows(q) for q in qs]


def test_catalog_rows_are_checked():
    with pytest.raises(LLMConfigError, match="lacks"):
        FactCatalog.from_rows([{"question": "q"}])
    with pytest.raises(LLMConfigError):
        FactCatalog.from_rows([])
    with pytest.raises(LLMConfigError, match="FactCatalog"):
        SimulatedLLM([{"question": "q"}])


def roc_auc(scores, wrong):
    """P(score of a wrong answer < score of a right one), ties counting half."""
    bad = [s for s, w in zip(scores, wrong) if w]
    good = [s for s, w in zip(scores, wrong) if not w]
    pairs = [(b < g) + 0.5 * (b == g) for b in bad for g in good]
    return sum(pairs) / len(pairs)


@pytest.mark.parametrize("gate, options", [
    ("cok", {}), ("rowen-cl", {}), ("rowen-cm", {}), ("rowen-hybrid", {}),
])
def test_gates_on_the_simulation_separate_wrong_from_right(catalog, gate, options):
    model = SimulatedLLM(catalog, seed=1)
    verifier = SimulatedLLM(catalog, seed=2)
    g = make_gate(gate, model, verifier=verifier, **options)
    scores, wrong, consult = [], [], []
    for fact in catalog.facts[::3]:
        d = g.decide(fact.question)
        answer = ask(model, fact.question)[0]
        scores.append(d.score)
        wrong.append(answer != fact.answer)
        consult.append(d.consult)
    assert roc_auc(scores, wrong) > 0.7
    wrong_consulted = sum(c for c, w in zip(consult, wrong) if w) / sum(wrong)
    right_consulted = sum(c for c, w in zip(consult, wrong) if not w) / (len(wrong) - sum(wrong))
    assert wrong_consulted > right_consulted + 0.25
