"""The gates: ``always``, ``never``, ``likelihood``, ``cok`` and Rowen's
``rowen-cl``/``-cm``/``-hybrid``.

**likelihood**: one greedy draft (``prompts.DRAFT``, the answer in one short sentence)
with its tokens' log-probabilities (``reasoning.llm.likelihood``); the score is the lowest
log-probability among the tokens of the answer read from it (``replies.answer_of``; the
whole reply's when the answer cannot be placed in it), and the KB is consulted below
``threshold``. A degenerate reply or one without an answer scores −inf. Inside
``Grounder.ask`` the gate reads the draft the policy already wrote (no second call).
The default threshold was fitted on the dev split of ``bench/data/llm_questions.jsonl`` with
SmolLM2-135M (bench/HISTORY.md, issue 28); fit it again for another model.

Scores are consistency in [0, 1] (``z_hybrid`` in [0, 1 + alpha]): high means the model
answers the same way however asked, and the KB is consulted when the gate's score is below
its threshold.

**CoK** (Chain of Knowledge): ``n`` chain-of-thought samples (default 5, temperature 0.7)
in one call; the answers (after 'Answer:') are normalized and counted; no answer with a
majority of at least n/2 → consult. Score: the top answer's share (``agreement``); the
threshold is ½. The majority answer is ``Decision.answer``.

**Rowen**: ``k`` paraphrases of the question (one call, ``n=k``, temperature 1.0; the
original question stands in for a paraphrase that is empty, not a question, or drops a
name of the question); then, concurrently, each paraphrase
answered greedily by the model; for CL each paraphrase translated into
``target_language`` (default Chinese; English for a question already in it) and the
translation answered (two calls in a row);
for CM each paraphrase answered by the ``verifier`` model; then the checks, concurrently:
CL compares (paraphrase, answer) with (translation, its answer), CM compares (paraphrase,
answer) with (paraphrase, verifier's answer). ``Z_CL`` and ``Z_CM`` are the shares of
equivalent pairs; ``Z_hybrid = Z_CL + alpha·Z_CM``. Thresholds: 0.6 (CL), 0.8 (CM), and
for hybrid the sum ``0.6 + alpha·0.8`` unless given (the paper does not fix it).
Calls per question: 1 + 3k (CL), 1 + 3k (CM), 1 + 6k (hybrid) with the LLM judge (plus two
probes of the judge per gate, ``LLMJudge.sane``: a judge that calls "Paris" and "Berlin",
and "Asia" and "Africa", the same answer is replaced by the similarity checker), k fewer
per comparison with the similarity checker; with ``max_workers`` ≥ 3k every stage runs as
one wave, so a hybrid decision takes about four model latencies.
"""

from __future__ import annotations

from collections import Counter

import math
from typing import TYPE_CHECKING

from querygen.languages import base_language, detect
from reasoning import prompts
from reasoning.gates.base import DEFAULT_MAX_WORKERS, Decision, Trace, run_all
from reasoning.gates.checkers import QA, Checker, LLMJudge
from reasoning.llm.base import LLM
from reasoning.llm.likelihood import offers_scored
from store.errors import LLMConfigError

if TYPE_CHECKING:                    # reasoning.memory imports the gates
    from reasoning.memory import Draft


class AlwaysGate:
    """Consult the KB for every question (no LLM call)."""

    name = "always"
    #: the policy drafts only when the answer falls back to the model's own
    needs_draft = False

    def decide(self, question: str) -> Decision:
        return Decision(self.name, True, "the 'always' policy consults the KB every time",
                        timings={"total": 0.0})


class NeverGate:
    """Never consult the KB (the model answers alone; no LLM call)."""

    name = "never"

    def decide(self, question: str) -> Decision:
        return Decision(self.name, False, "the 'never' policy answers without the KB",
                        timings={"total": 0.0})


def require_sampling(llm: LLM, gate: str) -> None:
    """Refuse to run a gate that compares samples on a server that does not sample
    (``OpenAIChatLLM.sampling_works``): its samples would all agree."""
    works = getattr(llm, "sampling_works", None)
    if callable(works) and not works():
        raise LLMConfigError(f"the model's server ignores the temperature (two samples at "
                             f"temperature 1.0 with different seeds were the same), so the "
                             f"{gate} gate cannot measure how its answers vary",
                             backend=f"gate {gate}",
                             fix="serve the model with sampling on (e.g. a generation config "
                                 "with do_sample true), or use the likelihood or always gate")


class LikelihoodGate:
    """The draft's lowest token log-probability (see the module docstring)."""

    name = "likelihood"
    #: Grounder.ask hands over its draft (``decide(question, draft=...)``)
    reads_draft = True
    DEFAULT_THRESHOLD = -0.3

    def __init__(self, llm: LLM, *, threshold: float | None = None, max_tokens: int = 32):
        if not offers_scored(llm):
            raise LLMConfigError("the likelihood gate needs token log-probabilities, and "
                                 "this backend gives none", backend="gate likelihood",
                                 fix="use a local model (--llm local or hf:PATH), or the "
                                     "cok or rowen gates")
        self.llm, self.max_tokens = llm, max_tokens
        self.threshold = self.DEFAULT_THRESHOLD if threshold is None else threshold

    def decide(self, question: str, draft: Draft | None = None) -> Decision:
        from reasoning.replies import answer_of, degenerate
        trace = Trace()
        scored = getattr(draft, "scored", None)
        if scored is None:
            messages = prompts.DRAFT.render(question=question)
            with trace.stage("draft"):
                from reasoning.gates.base import traced_call
                scored = traced_call("draft", "model", self.llm, messages,
                                     record=trace._add, kind="complete_scored",
                                     call=lambda: self.llm.complete_scored(
                                         messages, max_tokens=self.max_tokens, stop=["\n"]),
                                     replies_of=lambda r: [r.text])
        if not scored.scored:
            raise LLMConfigError("the model's server returned no log-probabilities, so the "
                                 "likelihood gate cannot run", backend="gate likelihood",
                                 fix="serve the model with logprobs support, or use the cok "
                                     "or rowen gates")
        answer = answer_of(scored.text, question)
        start = scored.text.find(answer) if answer else -1
        span = scored.span_logprobs(start, start + len(answer)) if start >= 0 else \
            scored.logprobs
        bad = degenerate(scored.text, question)
        score = -math.inf if bad or not answer else min(span)
        consult = score < self.threshold
        reason = (f"the draft is no answer ({bad or 'nothing could be read from it'})"
                  if bad or not answer else
                  f"lowest token log-probability of the answer {answer!r} is {score:.2f} "
                  f"{'<' if consult else '>='} threshold {self.threshold:g}")
        return Decision(self.name, consult, reason, score, self.threshold,
                        {"min_logprob": score}, None if consult else answer,
                        {"reply": scored.text, "answer": answer,
                         "logprobs": [round(x, 4) for x in scored.logprobs]},
                        trace.calls, trace.finish())


class CoKGate:
    """Chain of Knowledge's self-consistency gate (see the module docstring)."""

    name = "cok"

    def __init__(self, llm: LLM, *, n: int = 5, temperature: float = 0.7,
                 max_tokens: int | None = 128):
        if n < 1:
            raise LLMConfigError("cok needs at least one sample", backend="gate cok",
                                 expected="n >= 1", got=n)
        self.llm, self.n, self.temperature, self.max_tokens = llm, n, temperature, max_tokens

    def decide(self, question: str) -> Decision:
        require_sampling(self.llm, self.name)
        trace = Trace()
        with trace.stage("sample"):
            replies = trace.call("sample", "model", self.llm,
                                 prompts.COT.render(question=question), n=self.n,
                                 temperature=self.temperature, max_tokens=self.max_tokens)
        from reasoning.replies import answer_of
        answers = [answer_of(r, question) for r in replies]
        keys = [prompts.normalize_answer(a) for a in answers]
        counts = Counter(k for k in keys if k)
        top, votes = counts.most_common(1)[0] if counts else ("", 0)
        agreement = votes / self.n
        consult = votes < self.n / 2
        majority = next((a for a, k in zip(answers, keys) if k == top), None) if votes else None
        reason = (f"no answer reached a majority: the most frequent has {votes} of {self.n}"
                  if consult else f"{votes} of {self.n} samples agree on {majority!r}")
        return Decision(self.name, consult, reason, agreement, 0.5,
                        {"agreement": agreement}, None if consult else majority,
                        {"answers": answers, "votes": dict(counts)}, trace.calls,
                        trace.finish())


def keep_paraphrase(paraphrase: str, question: str) -> str:
    """``paraphrase`` when it is a question that keeps the question's names (its
    capitalized words after the first); else the question itself (a small model's
    paraphrases at temperature 1.0 are often statements or drop the entity)."""
    from reasoning.prompt_engine import keep_sub_questions
    return paraphrase if paraphrase and keep_sub_questions([paraphrase], question) \
        else question


def _check_groups(paraphrases: list[str], answers: list[str],
                  translated: list[tuple[str, str]], verified: list[str], k: int, *,
                  use_cl: bool, use_cm: bool) -> list[tuple[str, list[tuple[QA, QA]]]]:
    """The pairs of answers Rowen checks for agreement, by stage: each of the ``k``
    paraphrases' answer against the answer to its translation (``check-cl``, with
    ``use_cl``) and against the verifier's answer (``check-cm``, with ``use_cm``)."""
    groups = []
    if use_cl:
        groups.append(("check-cl", [(QA(paraphrases[i], answers[i]), QA(*translated[i]))
                                    for i in range(k)]))
    if use_cm:
        groups.append(("check-cm", [(QA(paraphrases[i], answers[i]),
                                     QA(paraphrases[i], verified[i])) for i in range(k)]))
    return groups


class RowenGate:
    """Rowen's consistency gate: mode 'cl', 'cm' or 'hybrid' (see the module docstring)."""

    DEFAULT_THRESHOLDS = {"cl": 0.6, "cm": 0.8}

    def __init__(self, llm: LLM, *, mode: str = "hybrid", verifier: LLM | None = None,
                 checker: Checker | None = None, k: int = 6, alpha: float = 1.0,
                 threshold: float | None = None, target_language: str = "zh",
                 paraphrase_temperature: float = 1.0, max_tokens: int | None = 64,
                 max_workers: int = DEFAULT_MAX_WORKERS):
        if mode not in ("cl", "cm", "hybrid"):
            raise LLMConfigError("unknown Rowen mode", backend="gate rowen",
                                 expected="'cl', 'cm' or 'hybrid'", got=mode)
        if mode != "cl" and verifier is None:
            raise LLMConfigError(f"rowen-{mode} compares two models but has one",
                                 backend=f"gate rowen-{mode}",
                                 fix="pass verifier=... (a second LLM; --verifier on the "
                                     "command line), or use rowen-cl")
        if k < 1:
            raise LLMConfigError("Rowen needs at least one paraphrase",
                                 backend=f"gate rowen-{mode}", expected="k >= 1", got=k)
        self.llm, self.mode, self.verifier, self.k, self.alpha = llm, mode, verifier, k, alpha
        self.checker = checker or LLMJudge(llm)
        cl, cm = self.DEFAULT_THRESHOLDS["cl"], self.DEFAULT_THRESHOLDS["cm"]
        self.threshold = threshold if threshold is not None else \
            {"cl": cl, "cm": cm, "hybrid": cl + alpha * cm}[mode]
        self.target_language = target_language
        self.paraphrase_temperature = paraphrase_temperature
        self.max_tokens, self.max_workers = max_tokens, max_workers
        self.name = f"rowen-{mode}"

    def target_for(self, question: str) -> str:
        """The language the cross-language check translates ``question`` into: the
        target language, or English when the question is already in it."""
        target = base_language(self.target_language)
        return "en" if detect(question) == target and target != "en" else \
            self.target_language

    def decide(self, question: str) -> Decision:
        require_sampling(self.llm, self.name)
        trace = Trace()
        use_cl, use_cm = self.mode in ("cl", "hybrid"), self.mode in ("cm", "hybrid")

        with trace.stage("paraphrase"):
            raw = trace.call("paraphrase", "model", self.llm,
                             prompts.PARAPHRASE.render(question=question), n=self.k,
                             temperature=self.paraphrase_temperature,
                             max_tokens=self.max_tokens)
        paraphrases = [keep_paraphrase(prompts.clean_line(p), question) for p in raw]
        rejected = sum(p == question for p in paraphrases)
        checker = self.checker
        if isinstance(checker, LLMJudge) and not checker.sane(trace):
            from reasoning.gates.checkers import SimilarityChecker
            checker = SimilarityChecker()

        def answer(stage: str, role: str, llm: LLM, q: str) -> str:
            return trace.call(stage, role, llm, prompts.ANSWER.render(question=q),
                              max_tokens=self.max_tokens)[0].strip()

        language = prompts.language_name(self.target_for(question))

        def translate_and_answer(q: str) -> tuple[str, str]:
            reply = trace.call("translate", "model", self.llm,
                               prompts.TRANSLATE.render(language=language, question=q),
                               max_tokens=self.max_tokens * 2 if self.max_tokens else None)[0]
            translated = prompts.clean_line(reply) or q
            return translated, answer("answer-translated", "model", self.llm, translated)

        tasks: list = [lambda q=q: answer("answer", "model", self.llm, q) for q in paraphrases]
        if use_cl:
            tasks += [lambda q=q: translate_and_answer(q) for q in paraphrases]
        if use_cm:
            verifier = self.verifier
            assert verifier is not None     # __init__ refuses cm and hybrid without one
            tasks += [lambda q=q: answer("verify", "verifier", verifier, q)
                      for q in paraphrases]
        with trace.stage("answer"):
            results = run_all(tasks, self.max_workers)
        k = self.k
        answers = results[:k]
        translated = results[k:2 * k] if use_cl else []
        verified = results[-k:] if use_cm else []

        groups = _check_groups(paraphrases, answers, translated, verified, k,
                               use_cl=use_cl, use_cm=use_cm)
        with trace.stage("check"):
            verdicts = self._check(groups, trace, checker)
        cl_checks = verdicts[:k] if use_cl else []
        cm_checks = verdicts[-k:] if use_cm else []

        scores = self._scores(cl_checks, cm_checks)
        score = scores[{"cl": "z_cl", "cm": "z_cm", "hybrid": "z_hybrid"}[self.mode]]
        consult = score < self.threshold
        reason = self._reason(score, consult)
        details = {"paraphrases": paraphrases, "answers": answers,
                   "translations": [t for t, _ in translated],
                   "translated_answers": [a for _, a in translated],
                   "verifier_answers": verified, "checker": checker.name,
                   "paraphrases_rejected": rejected,
                   "cl_checks": cl_checks, "cm_checks": cm_checks,
                   "unparsed_checks": sum(not c.parsed for c in verdicts)}
        return Decision(self.name, consult, reason, score, self.threshold, scores, None,
                        details, trace.calls, trace.finish())

    def _scores(self, cl_checks: list, cm_checks: list) -> dict[str, float]:
        """Z_CL and Z_CM, the share of the k paraphrases whose answers agree across
        languages and across models (for the checks the mode runs), and Z_hybrid =
        Z_CL + alpha × Z_CM in hybrid mode."""
        k = self.k
        scores: dict[str, float] = {}
        if self.mode in ("cl", "hybrid"):
            scores["z_cl"] = sum(c.equivalent for c in cl_checks) / k
        if self.mode in ("cm", "hybrid"):
            scores["z_cm"] = sum(c.equivalent for c in cm_checks) / k
        if self.mode == "hybrid":
            scores["z_hybrid"] = scores["z_cl"] + self.alpha * scores["z_cm"]
        return scores

    def _reason(self, score: float, consult: bool) -> str:
        """The decision in words: the mode's score against the threshold, and what it
        means."""
        label = {"cl": "Z_CL", "cm": "Z_CM", "hybrid": "Z_hybrid"}[self.mode]
        return (f"{label} = {score:.3g} {'<' if consult else '>='} threshold "
                f"{self.threshold:.3g}: " +
                ("answers disagree across " + {"cl": "languages", "cm": "models",
                                               "hybrid": "languages and models"}[self.mode]
                 if consult else "answers are consistent"))

    def _check(self, groups: list[tuple[str, list[tuple[QA, QA]]]], trace: Trace,
               checker: Checker) -> list:
        """Every group's checks, in order: batched where the checker can, else all pairs
        of all groups concurrently (one wave)."""
        many = getattr(checker, "check_many", None)
        if many is not None:
            return [c for stage, pairs in groups for c in many(pairs, trace, stage)]
        tasks = [lambda a=a, b=b, stage=stage: checker.check(a, b, trace, stage)
                 for stage, pairs in groups for a, b in pairs]
        return run_all(tasks, self.max_workers)
