"""The pieces a small model's answers go through: reading a reply, degenerate replies,
scored replies and their record/replay, the choice among the KB's options, and the rule
that keeps the final answer never worse than the KB's."""

from __future__ import annotations

import math

import pytest

from reasoning.answer import AnswerValue
from reasoning.choice import NONE_REPLY, Choice, Option, choose, option_of
from reasoning.llm.base import BaseLLM, Generation
from reasoning.llm.cache import CachedLLM
from reasoning.llm.likelihood import ScoredReply, can_score
from reasoning.replies import answer_of, degenerate, matches
from reasoning.settle import GROUNDED_MIN, settle
from store.errors import LLMCacheMiss


@pytest.mark.parametrize("reply, question, answer", [
    ("The capital of Norway is Oslo.", "What is the capital of Norway?", "Oslo"),
    ("Japan is located on the continent of Asia.", "On which continent is Japan?", "Asia"),
    ("Douglas Adams was employed by the BBC.", "Who was the employer of Douglas Adams?",
     "BBC"),
    ("Co-Ed Fever was originally broadcast on CBS.", "Which network aired Co-Ed Fever?",
     "CBS"),
    ("Brasília is the capital of Brazil.", "Name the capital city of Brazil.", "Brasília"),
    ("He worked for the Bank of America in New York.", "Who employed him?",
     "Bank of America"),
    ("Thinking it over.\nAnswer: Oslo", "What is the capital of Norway?", "Oslo"),
    ("Oslo", "What is the capital of Norway?", "Oslo"),
])
def test_the_answer_is_read_from_a_plain_sentence(reply, question, answer):
    assert answer_of(reply, question) == answer


@pytest.mark.parametrize("reply", ["", "   ", "1.1.1.1.1.1.1.1.1.1.1.1.1.1",
                                   "the the the the the the", "Paris Paris Paris Paris Paris"])
def test_degenerate_replies_are_no_answer(reply):
    assert degenerate(reply) and answer_of(reply, "What is the capital of France?") == ""


def test_a_question_copied_back_is_no_answer_and_a_normal_reply_is_fine():
    q = "What is the capital of France?"
    assert degenerate("What is the capital of France?", q)
    assert degenerate("The capital of France is Paris.", q) is None
    assert matches("The capital of France is Paris", ["Paris"])
    assert not matches("Parisian", ["Paris"])


def test_span_logprobs_are_those_of_the_answers_tokens():
    r = ScoredReply("It is Oslo.", ("It", " is", " Os", "lo", "."), (-0.1, -0.2, -3.0, -0.5,
                                                                      -0.3))
    start = r.text.find("Oslo")
    assert r.span_logprobs(start, start + 4) == (-3.0, -0.5)
    assert ScoredReply.from_dict(r.as_dict()).tokens == r.tokens


class Scorer(BaseLLM):
    """A deterministic model with probabilities: a reply's score is given by ``table``
    (per reply text, spread over its words), anything else −5 a word."""

    supports_scoring = True
    model = "scorer"

    def __init__(self, table):
        super().__init__()
        self.table, self.calls = table, 0

    def _generate(self, request):
        return Generation(["It is Oslo."] * request.n)

    def score(self, messages, continuations):
        self.calls += 1
        return [tuple([self.table.get(c, -5.0 * len(c.split())) / len(c.split())] *
                      len(c.split())) for c in continuations]

    def complete_scored(self, messages, *, max_tokens=None, stop=None):
        self.calls += 1
        return ScoredReply("It is Oslo.", ("It", " is", " Oslo", "."), (-0.1, -0.1, -2.0, -0.1))


def test_scores_and_scored_replies_are_recorded_and_replayed(tmp_path):
    inner = Scorer({"Answer: Oslo": -1.0})
    cached = CachedLLM(inner, tmp_path / "calls.sqlite")
    assert can_score(cached)
    msgs = [{"role": "user", "content": "What is the capital of Norway?"}]
    first = cached.score(msgs, ["Answer: Oslo", NONE_REPLY])
    assert cached.score(msgs, ["Answer: Oslo", NONE_REPLY]) == first and inner.calls == 1
    assert cached.complete_scored(msgs, max_tokens=8).logprobs == (-0.1, -0.1, -2.0, -0.1)
    assert cached.complete_scored(msgs, max_tokens=8).text == "It is Oslo." and inner.calls == 2
    replay = CachedLLM(None, tmp_path / "calls.sqlite", mode="replay", model="scorer")
    assert replay.score(msgs, ["Answer: Oslo", NONE_REPLY]) == first
    with pytest.raises(LLMCacheMiss):
        replay.score(msgs, ["Answer: Bergen"])


def _option(*labels, from_kb=False, first=1):
    return Option(tuple(AnswerValue(f"Q{first + i}", label, (first + i,))
                        for i, label in enumerate(labels)), None, from_kb)


def test_the_model_chooses_by_likelihood_and_none_is_a_choice():
    kb, other = _option("BBC", from_kb=True), _option("English", first=2)
    llm = Scorer({"Answer: BBC": -2.0, "Answer: English": -6.0, NONE_REPLY: -4.0})
    c = choose(llm, "Who was the employer of Douglas Adams?", [kb, other])
    assert c.option is kb and abs(sum(c.probabilities) - 1) < 1e-9
    assert c.kb_vs_none == pytest.approx(1 / (1 + math.exp(-4.0 + 2.0)))    # BBC vs none
    unsure = Scorer({"Answer: BBC": -9.0, "Answer: English": -9.0, NONE_REPLY: -1.0})
    c = choose(unsure, "Who was the employer of Douglas Adams?", [kb, other])
    assert c.option is None and c.none > 0.99 and c.as_dict()["chosen"] == "none of these"
    # an option's score is its best value's; a written answer maps back to its option
    spanish = _option("Spanish", "Catalan", from_kb=True, first=10)
    assert option_of((AnswerValue("Q11", "Catalan"),), [other, spanish]) is spanish


def test_never_worse_than_the_kb():
    kb, other = _option("BBC", from_kb=True), _option("English", first=2)
    # the model's other relation does not replace the KB's answer
    s = settle(other, kb, True, kb_probability=0.5)
    assert s.source == "kb" and s.option is kb and s.grounded
    # none of these: the KB's answer stands; doubted, it is not called grounded
    s = settle(None, kb, True, kb_probability=GROUNDED_MIN / 2)
    assert s.source == "kb" and s.option is kb and not s.grounded and "doubts" in s.reason
    # the KB has no answer: the model's choice, cited but not called grounded; or nothing
    s = settle(other, None, False)
    assert s.source == "model" and s.option is other and not s.grounded
    assert settle(None, None, False).source == "none"
    # the KB's own check decides when the model agrees
    assert not settle(kb, kb, False, kb_probability=0.9).grounded


def test_a_choice_reports_its_probabilities():
    kb = _option("Oslo", from_kb=True)
    c = Choice(kb, (kb,), (0.8, 0.2), (-1.0, -2.4))
    assert c.probability == 0.8 and c.kb_probability == 0.8 and c.none == 0.2
    assert c.as_dict()["options"][0]["probability"] == 0.8
