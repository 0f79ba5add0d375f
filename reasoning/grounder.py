"""``Grounder.ask(question) -> Answer``: the LLM-Augmenter loop over a knowledge graph.

    from reasoning import Grounder
    g = Grounder("slice.sqlite")                          # no LLM: the KB alone
    g.ask("Where was Marie Curie born?").text             # 'Warsaw [1]'

    g = Grounder(kb, llm, gate="rowen-hybrid", verifier=other_llm)
    a = g.ask("Which party was Gheorghe Pintilie a member of?")
    a.text, a.grounded, a.citations, a.decision.scores, a.trace.n_llm_calls

With an LLM, the rule-based policy (``reasoning.policy``) runs: the model's own
chain-of-thought answer (``draft``) → the gate (``decide``; an abstaining draft consults
without asking it) → if it consults: sub-questions (``prompts.DECOMPOSE``), the knowledge
consolidator (``reasoning.consolidate``: query generation, linking, the KB — its mirror,
then a live endpoint when the KB is a ``FallbackKB`` allowed to — and the evidence chainer)
→ a prompt with numbered evidence → an answer citing [n] → the utility check
(``reasoning.utility``) → feedback and revision, up to ``max_rounds`` answers. When the
gate does not consult, the answer is the model's own, marked not grounded.

Without an LLM, ``ask`` answers from the KB alone: the consolidator's answer, with its
citations, and a note on what an LLM would add.

Every stage is recorded in ``Answer.trace`` (prompts, replies, scores, the decision,
queries, sources, timings, LLM and KB calls). KB calls are counted through a
``MeteredKB`` whose counts are per thread, so concurrent asks keep their own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chains.search import DEFAULT_LIMITS, Limits
from kb.base import KnowledgeBase
from kb.contracts import Linker
from querygen.languages import base_language, detect
from reasoning import prompts
from reasoning.answer import (Answer, AnswerTrace, AnswerValue, CitedStatement,
                              StageDetails)
from reasoning.consolidate import STRATEGIES, Consolidator
from reasoning.evidence import Evidence
from reasoning.gates import Decision, Gate, auto_gate, make_gate
from reasoning.llm.base import LLM
from reasoning.memory import CandidateAnswer, Draft, WorkingMemory
from reasoning.metered import MeteredKB
from reasoning.policy import Action, RulePolicy
from reasoning.choice import NONE, answer_options, choose, option_of
from reasoning.llm.likelihood import can_score, offers_scored
from reasoning.prompt_engine import (answer_messages, decompose_messages, draft_messages,
                                     keep_sub_questions, parse_sub_questions,
                                     revise_messages)
from reasoning.replies import answer_of, degenerate
from reasoning.recorder import Recorder
from reasoning.records import (AnswerRecord, ChoiceRecord, DecisionRecord, Decomposition,
                               DraftRecord, FinishRecord, RetrievalRecord, RevisionRecord,
                               VerifyRecord)
from reasoning.settle import settle
from reasoning.utility import abstains, assess
from store.errors import KGGroundError, LLMConfigError
from store.vocab import ITEM_ID

if TYPE_CHECKING:
    from querygen.graphs import GraphRanker

#: longer input is not one question
MAX_QUESTION_CHARS = 1000
#: token caps per stage: a one-sentence draft, a list of sub-questions, an answer line
DRAFT_TOKENS = 32
DRAFT_STOP = ("\n",)
DECOMPOSE_TOKENS = 64
ANSWER_TOKENS = 48

KB_ONLY_NOTE = (
    "Answered from the KB alone (no LLM): the query graph {graph} matches the question's "
    "relation and answer type{typed} (confidence {confidence}). An LLM (--llm) would "
    "add: its own answer, with the KB consulted only when a gate finds it unsure; a "
    "choice between competing evidence; and an answer in words.")
KB_ONLY_NOTHING = (
    "The KB has no answer: {reason}. An LLM (--llm) could still answer from its own "
    "knowledge, marked as not grounded.")


class Grounder:
    """Answers questions from ``kb``, with ``llm`` when given (see the module docstring).

    ``kb``: a ``KnowledgeBase`` or a path/URL ``kb.open`` reads. ``llm``: any object with
    ``complete(messages, n=, temperature=, max_tokens=, stop=)``, or None (KB alone).
    ``gate``: a ``Gate`` or a name of ``reasoning.gates.GATES``, or ``auto``
    (rowen-hybrid with a ``verifier``, else rowen-cl; ``always`` without an LLM);
    ``verifier``, ``checker``, ``judge`` and ``gate_options`` go to ``make_gate``.
    ``linker``: linking's ``EntityLinker`` for the KB (built on first use otherwise);
    ``strategy``: the query generator (``auto``: rules, then the LLM's few-shot queries
    when no rule-made query answers — rules alone for a model that scores, a local one,
    which chooses among the KB's candidates instead; ``rules``; ``llm``; without an LLM
    always rules);
    ``hops``, ``top``, ``limits``: the evidence chainer's bounds; ``chains``: run the
    chainer always (True), or only when no query answered (False); ``auto``: always with
    an LLM (the evidence it reads), only as the fallback without one (the KB-only answer
    is the query's, its evidence the statements behind it); ``max_rounds``: answers
    written from evidence (the first and its revisions); ``decompose``: ask the model for
    sub-questions; ``lang``: the questions' language, "auto" (the default) to detect
    each question's (``querygen.languages.detect``).

    Raises ``LLMConfigError`` (a ValueError) for a gate that cannot run as configured.
    """

    def __init__(self, kb: KnowledgeBase | str | Path, llm: LLM | None = None, *,
                 gate: str | Gate = "auto",
                 verifier: LLM | None = None, checker: Any = "llm", judge: LLM | None = None,
                 gate_options: dict[str, Any] | None = None, linker: Linker | None = None,
                 strategy: str = "auto", hops: int = 2, top: int = 5,
                 limits: Limits = DEFAULT_LIMITS, chains: bool | str = "auto",
                 max_rounds: int = 3, decompose: bool = True, lang: str = "auto"):
        if isinstance(kb, (str, Path)):
            import kb as kb_module
            kb = kb_module.open(kb)
        if strategy not in STRATEGIES:
            raise LLMConfigError("unknown query strategy", backend="grounder",
                                 expected=" | ".join(STRATEGIES), got=strategy)
        self.kb = kb
        self.metered = MeteredKB(kb)
        self.llm = llm
        # a model that scores is a local one; a small local model's few-shot SPARQL took
        # 30–110 s a question with SmolLM2 and the KB's chains give its choice the
        # candidates: under 'auto' its queries are the rules' (strategy='llm' still asks it)
        self.strategy = "rules" if llm is None or (strategy == "auto" and can_score(llm)) \
            else strategy
        self.gate = self._gate(gate, llm, verifier, checker, judge, gate_options or {})
        self.policy = RulePolicy(max_rounds)
        if chains not in (True, False, "auto"):
            raise ValueError(f"chains must be True, False or 'auto', got {chains!r}")
        self.hops, self.top, self.limits = hops, top, limits
        # checked above: the only string is "auto"
        self.chains = (llm is not None) if isinstance(chains, str) else chains
        self.decompose, self.lang = decompose, check_language(lang)
        self._linker = linker
        self._ranker: GraphRanker | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        model = getattr(self.llm, "model", None) if self.llm is not None else "no LLM"
        return f"Grounder({self.kb.name!r}, {model}, gate={self.gate.name})"

    @staticmethod
    def _gate(gate: str | Gate, llm: LLM | None, verifier: LLM | None, checker: Any,
              judge: LLM | None, options: dict[str, Any]) -> Gate:
        if not isinstance(gate, str):
            return gate
        if gate == "auto":
            gate = auto_gate(llm, verifier)
        if llm is None and gate != "always":
            raise LLMConfigError(f"the {gate} gate needs an LLM, and none was given",
                                 backend="grounder", expected="gate 'always' or 'auto' "
                                 "without an LLM (the KB alone answers)", got=gate,
                                 fix="pass llm= (--llm), or drop the gate")
        return make_gate(gate, llm, verifier=verifier, checker=checker, judge=judge,
                         **options)

    @property
    def linker(self) -> Linker:
        """Linking's ``EntityLinker`` for the KB, built on first use (it opens the
        linking sidecar: seconds on a mirror's first use, then cached beside it)."""
        with self._lock:
            if self._linker is None:
                from chains.evidence import default_linker
                self._linker, _ = default_linker(self.kb)
            return self._linker

    @property
    def ranker(self) -> GraphRanker:
        """The query-graph ranker over this Grounder's KB (counted in its traces) and its
        linker, built on first use and kept for the Grounder's life: it learns the KB's
        types and properties as questions come."""
        linker = self.linker
        with self._lock:
            if self._ranker is None:
                from querygen.graphs import GraphRanker
                self._ranker = GraphRanker(self.metered, linker)
            return self._ranker

    def language_of(self, question: str) -> str:
        """The language ``question`` is read in: the one given, else the detected one."""
        return detect(question) if self.lang == "auto" else self.lang

    # -- the loop -----------------------------------------------------------------------------
    def ask(self, question: str) -> Answer:
        """Answer ``question`` (see the module docstring). Raises ``KGGroundError`` for a
        question that is not one (empty, too long), ``LLMError`` when a model call fails,
        the KB's typed errors when it fails (never turned into an empty answer)."""
        question = _check_question(question)
        kb = self.metered
        rec = Recorder(kb.meter)
        memory = WorkingMemory(question, has_llm=self.llm is not None,
                               draft_first=getattr(self.gate, "needs_draft", True),
                               lang=self.language_of(question))
        steps: dict[Action, Callable[[WorkingMemory, KnowledgeBase, Recorder],
                                     tuple[StageDetails, str]]] = {
            Action.DRAFT: self._draft, Action.DECIDE: self._decide,
            Action.RETRIEVE: self._retrieve, Action.ANSWER: self._answer,
            Action.VERIFY: self._verify, Action.REVISE: self._revise}
        while True:
            action = self.policy.next(memory)
            if action is Action.FINISH:
                break
            summary = rec.run(action.value, steps[action], memory, kb, rec)
            memory.note(action.value, summary)
        answer = rec.run("finish", self._finish, memory, kb)
        if answer.graph is not None:
            answer.graph.answer = {"text": answer.text, "grounded": answer.grounded,
                                   "confidence": answer.confidence,
                                   "missing": answer.missing,
                                   "query_graph": answer.query_graph}
        return _with_trace(answer, AnswerTrace(rec.stages, rec.seconds))

    # -- the steps: each returns its stage's record and a summary for the memory's history --
    def _draft(self, m: WorkingMemory, kb: KnowledgeBase,
               rec: Recorder) -> tuple[DraftRecord, str]:
        assert self.llm is not None           # the policy drafts only with an LLM
        messages = draft_messages(m.question)
        scored = None
        if offers_scored(self.llm):
            scored = rec.call_scored("model", self.llm, messages, max_tokens=DRAFT_TOKENS,
                                     stop=DRAFT_STOP)
            reply = scored.text
        else:
            reply = rec.call("model", self.llm, messages, max_tokens=DRAFT_TOKENS)[0]
        m.draft = Draft(reply, answer_of(reply, m.question), scored)
        record = DraftRecord(messages, reply, m.draft.answer,
                             degenerate(reply, m.question) or None)
        return record, f"the model's own answer: {m.draft.answer!r}"

    def _decide(self, m: WorkingMemory, kb: KnowledgeBase,
                rec: Recorder) -> tuple[DecisionRecord, str]:
        if m.draft is not None and abstains(m.draft.answer):
            m.decision = Decision(gate="policy", consult=True,
                                  reason=f"the model's own answer abstains or says nothing "
                                         f"({m.draft.answer!r}): consult the KB")
        elif getattr(self.gate, "reads_draft", False):
            # a gate that reads the draft takes it as a keyword (LikelihoodGate)
            decide: Callable[..., Decision] = self.gate.decide
            m.decision = decide(m.question, draft=m.draft)
            rec.add_calls(m.decision.calls)
        else:
            m.decision = self.gate.decide(m.question)
            rec.add_calls(m.decision.calls)
        return DecisionRecord(m.decision), \
            f"{m.decision.gate}: {'consult' if m.decision.consult else 'do not consult'}"

    def _retrieve(self, m: WorkingMemory, kb: KnowledgeBase,
                  rec: Recorder) -> tuple[RetrievalRecord, str]:
        llm = rec.traced(self.llm) if self.llm is not None else None
        consolidator = Consolidator(kb, self.linker, ranker=self.ranker,
                                    strategy=self.strategy, llm=llm,
                                    hops=self.hops, top=self.top, lang=m.lang,
                                    limits=self.limits, chains=self.chains,
                                    full=self.llm is not None)
        m.evidence, first = consolidator.consolidate(m.question)
        record = RetrievalRecord(first)
        # sub-questions only where the question's own query found nothing
        if self.llm is not None and self.decompose and first.answered_by == "none":
            messages = decompose_messages(m.question)
            reply = rec.call("model", self.llm, messages, max_tokens=DECOMPOSE_TOKENS)[0]
            subs = keep_sub_questions(parse_sub_questions(reply, m.question), m.question)
            record = replace(record, decomposition=Decomposition(messages, reply, tuple(subs)))
            if len(subs) > 1:
                m.sub_questions = subs
                m.evidence, second = consolidator.consolidate(m.question, subs)
                record = replace(record, with_sub_questions=second)
        if self.llm is not None:
            m.options = answer_options(m.evidence)
            record = replace(record, options=tuple(m.options))
        return record, f"{len(m.evidence.statements)} numbered statements"

    def _answer(self, m: WorkingMemory, kb: KnowledgeBase,
                rec: Recorder) -> tuple[AnswerRecord | ChoiceRecord, str]:
        assert m.evidence is not None and m.options
        assert self.llm is not None           # the policy answers only with an LLM
        if can_score(self.llm):
            m.choice = choose(self.llm, m.question, m.options,
                              record=lambda messages, replies, call: rec.record_score(
                                  "model", self.llm, messages, replies, call))
            chosen = m.choice.option.text if m.choice.option else NONE
            return ChoiceRecord(m.choice), \
                f"chose {chosen!r} (probability {m.choice.probability:.2f})"
        messages = answer_messages(m.question, m.evidence, m.options)
        reply = rec.call("model", self.llm, messages, max_tokens=ANSWER_TOKENS)[0]
        m.candidates.append(CandidateAnswer(1, reply))
        return AnswerRecord(messages, reply), f"answer {answer_of(reply, m.question)!r}"

    def _verify(self, m: WorkingMemory, kb: KnowledgeBase,
                rec: Recorder) -> tuple[VerifyRecord, str]:
        assert m.evidence is not None
        candidate = m.candidates[-1]
        reply = _answer_line(candidate.reply, m.question)
        utility = candidate.utility = assess(reply, m.evidence, m.question,
                                             aliases=_aliases(kb, m.lang))
        if utility.feedback:
            m.feedback.append(utility.feedback)
        return VerifyRecord(candidate.round, utility), \
            ("passed" if utility.passed else "failed") + f" (score {utility.score:.2f})"

    def _revise(self, m: WorkingMemory, kb: KnowledgeBase,
                rec: Recorder) -> tuple[RevisionRecord, str]:
        assert m.evidence is not None and m.utility is not None
        assert self.llm is not None           # the policy revises only with an LLM
        previous = m.candidates[-1]
        messages = revise_messages(m.question, m.evidence, previous.reply,
                                   m.utility.feedback, m.options)
        reply = rec.call("model", self.llm, messages, max_tokens=ANSWER_TOKENS)[0]
        m.candidates.append(CandidateAnswer(previous.round + 1, reply))
        # greedy decoding repeats itself: the same answer again ends the rounds
        m.stalled = any(prompts.normalize_answer(reply) == prompts.normalize_answer(c.reply)
                        for c in m.candidates[:-1])
        return RevisionRecord(previous.round + 1, messages, reply, m.stalled), \
            f"revised answer {answer_of(reply, m.question)!r}"

    # -- the answer ---------------------------------------------------------------------------
    def _finish(self, m: WorkingMemory, kb: KnowledgeBase) -> tuple[FinishRecord, Answer]:
        answer = replace(self._compose(m, kb), lang=m.lang)
        return FinishRecord(answer.text, answer.grounded, answer.mode, m.as_dict()), answer

    def _compose(self, m: WorkingMemory, kb: KnowledgeBase) -> Answer:
        if not m.has_llm:
            return self._kb_only(m, kb)
        assert m.decision is not None
        graph = m.evidence.graph if m.evidence else None
        statements = m.evidence.statements if m.evidence else ()
        common: dict[str, Any] = dict(question=m.question, decision=m.decision, graph=graph,
                                      evidence=statements)
        draft = m.draft.answer if m.draft is not None else ""
        if not m.decision.consult:
            return Answer(text=draft, mode="llm", grounded=False,
                          note=f"The {m.decision.gate} gate did not consult the KB "
                               f"({m.decision.reason}): the model's own answer, not "
                               "checked against the KB.", **common)
        if m.evidence is None or m.evidence.empty or not m.options:
            why = "; ".join(m.evidence.warnings) if m.evidence and m.evidence.warnings \
                else "no statement was found" if not statements \
                else "no statement answers it from the question's entities"
            if m.evidence is not None:
                common.update(confidence=m.evidence.kb_confidence,
                              missing=m.evidence.kb_missing or "fact")
            return Answer(text=draft, mode="llm", grounded=False,
                          note=f"The KB was consulted but offers no answer ({why}): the "
                               "model's own answer, not grounded.", **common)
        return self._settled(m, common)

    def _settled(self, m: WorkingMemory, common: dict[str, Any]) -> Answer:
        """The consulted answer: the model's or the KB's, never worse than the KB's
        (``reasoning.settle``)."""
        evidence, options = m.evidence, m.options
        assert evidence is not None and options
        kb_option = options[0] if options[0].from_kb else None
        # the KB's answer is a query graph that matches the question (issue 27): its own
        # check is that graph, and that every value is in a statement it cites
        kb_grounded = kb_option is not None and evidence.kb_graph is not None and \
            assess(_option_text(kb_option), evidence, m.question).passed
        common = {**common, "confidence": evidence.kb_confidence,
                  "query_graph": _graph_dict(evidence.kb_graph),
                  "missing": evidence.kb_missing}
        best = m.best()
        if m.choice is not None:
            model_option = m.choice.option
            probabilities = dict(kb_probability=m.choice.kb_vs_none)
        else:
            u = best.utility if best is not None else None
            model_option = option_of(u.values, options) if u is not None and u.passed \
                else None
            probabilities = {}
        s = settle(model_option, kb_option, kb_grounded, **probabilities)
        if s.option is None:
            why = evidence.kb_reason or "it has none for this question"
            return Answer(text=f"The KB has no answer: {why}.",
                          mode="llm+kb", grounded=False, note=s.reason,
                          utility=best.utility if best else None, rounds=m.rounds, **common)
        text = _option_text(s.option)
        u = assess(text, evidence, m.question)
        return Answer(text=text, mode="llm+kb", grounded=s.grounded and u.passed,
                      note=s.reason, values=s.option.values,
                      citations=_citations(text, evidence), utility=u, rounds=m.rounds,
                      **common)

    def _kb_only(self, m: WorkingMemory, kb: KnowledgeBase) -> Answer:
        evidence = m.evidence or Evidence(m.question)
        common: dict[str, Any] = dict(question=m.question, mode="kb", graph=evidence.graph,
                                      evidence=evidence.statements,
                                      confidence=evidence.kb_confidence,
                                      query_graph=_graph_dict(evidence.kb_graph))
        values = evidence.kb_answer
        if not values:
            reason = evidence.kb_reason or "no statement of the KB answers the question"
            return Answer(text=f"The KB has no answer: {reason}.", grounded=False,
                          note=KB_ONLY_NOTHING.format(reason=reason),
                          missing=evidence.kb_missing or "fact", **common)
        from querygen.graphs import shown_confidence
        text = ", ".join(f"{v.label} {_markers(v.numbers)}".strip() for v in values)
        graph = evidence.kb_graph
        kinds = graph.check.kinds if graph is not None else ()
        note = KB_ONLY_NOTE.format(
            graph=graph.query.label_level if graph is not None else "",
            typed=f" (the answers are: {', '.join(kinds)})" if kinds else "",
            confidence=shown_confidence(evidence.kb_confidence))
        grounded = graph is not None and all(v.numbers for v in values)
        note += _label_language_note(kb, values, m.lang)
        return Answer(text=text, grounded=grounded, note=note, values=values,
                      citations=_citations(text, evidence), **common)


def _label_language_note(kb: KnowledgeBase, values: Sequence[AnswerValue], lang: str) -> str:
    """For a question in another language than English: which values the KB has no label
    in that language for (they are written with its English label), else ''."""
    code = base_language(lang)
    if code == "en":
        return ""
    english = []
    for v in values:
        if v.id and ITEM_ID.match(v.id):
            try:
                labels = kb.entity(v.id).labels
            except KGGroundError:
                continue
            if code not in labels and lang not in labels:
                english.append(v.label)
    if not english:
        return ""
    return (f" The KB has no {prompts.language_name(code)} label for "
            f"{', '.join(english)}: written with its English label.")


def _graph_dict(graph: Any) -> dict[str, Any] | None:
    """The chosen query graph as the answer's explanation (None when there is none)."""
    if graph is None:
        return None
    out = graph.as_dict()
    out.pop("features", None)
    return out


def check_language(lang: Any) -> str:
    """``lang`` when it is "auto" or a language tag (BCP 47: en, de, pt-BR, zh-Hans), else
    a ``KGGroundError`` saying how to write one."""
    import langcodes
    if lang == "auto":
        return lang
    if not isinstance(lang, str) or not langcodes.tag_is_valid(lang.strip()):
        raise KGGroundError(f"unknown language {lang!r}",
                            expected="a language code (BCP 47), such as en, de, fr, es, "
                                     "ru, zh, pt-BR, or auto to detect it", got=repr(lang),
                            fix="pass the question's language as its code, e.g. --lang en")
    return lang.strip()


def _check_question(question: Any) -> str:
    if not isinstance(question, str) or not question.strip():
        raise KGGroundError("a question is needed", expected="a non-empty string",
                            got=repr(question))
    question = " ".join(question.split())
    if len(question) > MAX_QUESTION_CHARS:
        raise KGGroundError(f"the question is {len(question)} characters long",
                            expected=f"one question of at most {MAX_QUESTION_CHARS} "
                                     "characters", fix="ask one question at a time")
    if not any(ch.isalpha() for ch in question):
        raise KGGroundError("this is not a question: it has no words",
                            expected="a question in words, e.g. 'Where was Marie Curie "
                                     "born?'", got=question,
                            fix="ask about something by name")
    return question


def _markers(numbers: tuple[int, ...]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def _option_text(option: Any) -> str:
    """'BBC [1]', 'Spanish [1], Catalan [3]': the option's values with their numbers."""
    return ", ".join(f"{v.label} {_markers(v.numbers)}".strip() for v in option.values)


def _answer_line(reply: str, question: str) -> str:
    """What the utility check reads of a written answer: the 'Answer:' line as written,
    else the answer read from its first sentence (``replies.answer_of``) with the
    citations the reply made; '' for a degenerate reply."""
    if degenerate(reply, question):
        return ""
    if any(prompts._ANSWER_LINE.search(line) for line in reply.splitlines()):
        return reply
    answer = answer_of(reply, question)
    cited = prompts.cited_numbers(reply)
    return f"{answer} {_markers(tuple(cited))}".strip() if answer else ""


def _cite_text(answer: str, cited: tuple[int, ...], evidence: Evidence) -> str:
    """The answer line; when it cites nothing itself, the numbers its reply cited."""
    if prompts.cited_numbers(answer):
        return answer
    valid = tuple(n for n in cited if evidence.get(n) is not None)
    return f"{answer} {_markers(valid)}".strip()


def _citations(text: str, evidence: Evidence) -> tuple[CitedStatement, ...]:
    out = []
    for n in prompts.cited_numbers(text):
        statement = evidence.get(n)
        if statement is not None:
            out.append(statement)
    return tuple(out)


def _aliases(kb: KnowledgeBase, lang: str) -> Callable[[str], list[str]]:
    cache: dict[str, list[str]] = {}

    def aliases(node: str) -> list[str]:
        if node not in cache:
            try:
                entity = kb.entity(node)
                cache[node] = [*entity.aliases.get(lang, ()), *entity.aliases.get("en", ())]
            except (KGGroundError, ValueError):
                cache[node] = []
        return cache[node]
    return aliases


def _with_trace(answer: Answer, trace: AnswerTrace) -> Answer:
    from dataclasses import replace
    return replace(answer, trace=trace)


__all__ = ["Answer", "AnswerValue", "Grounder", "abstains"]
