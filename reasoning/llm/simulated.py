"""``SimulatedLLM``: a **simulation** of an LLM's factual knowledge, for evaluating the
consult-the-KB gates where no model weights can be had. It is not a language model.

    catalog = FactCatalog.from_jsonl("slice-qa-dev.jsonl", popularity=popularity_from_kb(kb))
    model = SimulatedLLM(catalog, seed=1)
    verifier = SimulatedLLM(catalog, seed=2)          # a second "model": other knowledge

The world it lives in is a ``FactCatalog``: facts (subject, property, gold answers with their
labels, the subject's popularity) and the texts that ask for them — the catalog's questions
plus every paraphrase and translation a simulated model wrote (the catalog remembers them,
so a verifier sharing it knows what they ask). A text it has never seen is matched to the
closest catalog question (rapidfuzz, token-set ratio ≥ 90) or not at all.

How it behaves (all draws are seeded hashes, so a run is reproducible and thread-safe):

- It **knows** a fact with probability ``known_share`` shifted by popularity
  (``popularity_weight`` × (popularity percentile − ½)): popular subjects are known more
  often. A known fact is also unknown in a language other than English with probability
  ``language_drop``.
- A known fact is answered with its gold label, consistently (at temperature > 0 a sample
  slips to a wrong answer with probability ``slip`` × temperature).
- An unknown fact is answered with a **plausible wrong answer**: the label of another
  answer of the same property in the catalog (another country, another party). Each
  unknown fact has a misconception it returns with probability 0.35 (less when sampling:
  × (1 − temperature/2)) — 0.9 for the ``confident_wrong`` share of facts (consistent
  hallucinations, which consistency checks cannot catch) — otherwise a draw from the
  pool. Greedy answers vary with the wording and the language of the question; samples
  vary with the temperature. A share ``shared_misconception`` of misconceptions is the
  same for every seed (models share some errors).
- It plays every role of ``reasoning.prompts``: short answers, chains of thought ending in
  'Answer: …', paraphrases (rewordings around the question), translations (marked
  pseudo-translations: a language tag before the text — the simulation does not translate),
  and judging QA pairs (answers compared after normalization; a ``judge_noise`` share of
  verdicts flipped).
- For ``Grounder.ask``: a decomposition is the question itself (catalog facts are single
  facts). Given numbered evidence ('[n] S — P → O' lines, ``prompts.GROUNDED``), it keeps
  its own answer, cited, when a statement's value says it; otherwise it follows the
  evidence — the answer of the first statement, the top-ranked one — with probability
  ``follow_evidence`` and keeps its own answer, uncited, otherwise (models sometimes
  ignore retrieved evidence). A cited answer leaves out its citation with probability
  ``forget_citation``. Asked to revise (``prompts.REVISE``), it cites its previous answer
  when a statement holds it, else takes the feedback's suggested answer, else the first
  statement's. A statement's answer is its value, or its subject when the question names
  the value and not the subject ("Who won the Nobel Prize in Chemistry?"); properties
  are not read: the simulation measures the evidence ranking, not reading comprehension.
- Any other prompt: if it contains a catalog question, the short answer to it; else
  "I don't know".

``knows(question, lang="en")`` and ``truth(question)`` expose the simulation's ground truth
for evaluations.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kb.base import KnowledgeBase
from reasoning import prompts
from reasoning.llm.base import BaseLLM, Generation, Request, approx_tokens
from store.errors import LLMConfigError

FUZZY_CUTOFF = 90
DONT_KNOW = "I don't know"

_PARAPHRASES = (
    "Could you tell me {lower}",
    "I'd like to know: {q}",
    "{q} Please answer briefly.",
    "Quick question: {lower}",
    "Do you happen to know {lower}",
    "Tell me, {lower}",
    "{q} I'm curious.",
    "Here is something I wonder about: {lower}",
    "Can you answer this? {q}",
    "Help me out: {lower}",
)
_LANGUAGE_TAGS = {"zh": "请问：", "ja": "質問：", "de": "Frage: ", "fr": "Question : ",
                  "es": "Pregunta: ", "ru": "Вопрос: ", "ko": "질문: ", "ar": "سؤال: "}


@dataclass(frozen=True)
class Fact:
    """One fact of the simulated world."""

    question: str                      # the catalog question asking for it
    subject: str
    property: str
    answers: tuple[str, ...]           # gold answer IDs (or values)
    labels: tuple[str, ...]            # their labels, the texts a model would say
    popularity: float = 0.5            # percentile of the subject's popularity, in [0, 1]

    # builtins.property: the field ``property`` above shadows the name for type checkers
    @builtins.property
    def key(self) -> str:
        return f"{self.subject}|{self.property}"

    @builtins.property
    def answer(self) -> str:
        return (self.labels or self.answers or ("",))[0]


@dataclass(frozen=True)
class Asked:
    """What a text asks: the fact (None when unknown to the catalog) and the language."""

    fact: Fact | None
    lang: str


class FactCatalog:
    """The simulated world: facts and every text known to ask for one (thread-safe)."""

    def __init__(self, facts: Iterable[Fact]):
        self.facts = list(facts)
        if not self.facts:
            raise LLMConfigError("a fact catalog needs at least one fact", backend="simulated",
                                 fix="pass rows with question, subject, property, answers")
        self._lock = threading.Lock()
        self._texts: dict[str, Asked] = {}
        self._originals: dict[str, Fact] = {}
        for fact in self.facts:
            key = prompts.normalize_answer(fact.question)
            self._originals.setdefault(key, fact)
            self._texts.setdefault(key, Asked(fact, "en"))
        self._pools: dict[str, list[str]] = {}
        all_labels: set[str] = set()
        for fact in self.facts:
            self._pools.setdefault(fact.property, [])
            self._pools[fact.property].extend(fact.labels)
            all_labels.update(fact.labels)
        self._pools = {p: sorted(set(v)) for p, v in self._pools.items()}
        self._all_labels = sorted(all_labels)

    def __len__(self) -> int:
        return len(self.facts)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping], *,
                  popularity: Callable[[str], float] | None = None) -> FactCatalog:
        """Facts from benchmark rows (``question``, ``subject``, ``property``, ``answers``,
        ``answer_labels``; optional ``popularity``). ``popularity(subject)`` gives a raw
        popularity (sitelinks, degree, a prior); facts get its percentile rank."""
        rows = list(rows)
        raw: list[float | None] = []
        for row in rows:
            if "popularity" in row:
                raw.append(float(row["popularity"]))
            elif popularity is not None:
                raw.append(float(popularity(row["subject"])))
            else:
                raw.append(None)
        ranks = _percentiles(raw)
        facts = []
        for row, pct in zip(rows, ranks):
            missing = [k for k in ("question", "subject", "property", "answers") if k not in row]
            if missing:
                raise LLMConfigError("a catalog row lacks fields", backend="simulated",
                                     expected="question, subject, property, answers",
                                     got=sorted(row))
            answers = tuple(str(a) for a in row["answers"])
            labels = tuple(str(a) for a in row.get("answer_labels") or answers)
            facts.append(Fact(row["question"], row["subject"], row["property"], answers,
                              labels, pct))
        return cls(facts)

    @classmethod
    def from_jsonl(cls, path: str | Path, *, limit: int | None = None,
                   popularity: Callable[[str], float] | None = None) -> FactCatalog:
        rows = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rows.append(json.loads(line))
                if limit is not None and len(rows) >= limit:
                    break
        return cls.from_rows(rows, popularity=popularity)

    def register(self, text: str, asked: Asked) -> None:
        """Remember that ``text`` (a paraphrase, a translation) asks ``asked``."""
        key = prompts.normalize_answer(text)
        with self._lock:
            self._texts.setdefault(key, asked)

    def lookup(self, text: str) -> Asked:
        """What ``text`` asks: a registered text, else the closest catalog question, else
        nothing known (``Asked(None, 'en')``)."""
        key = prompts.normalize_answer(text)
        with self._lock:
            found = self._texts.get(key)
        if found is not None:
            return found
        from rapidfuzz import fuzz, process
        best = process.extractOne(key, list(self._originals), scorer=fuzz.token_set_ratio,
                                  score_cutoff=FUZZY_CUTOFF)
        return Asked(self._originals[best[0]], "en") if best else Asked(None, "en")

    def find_in(self, text: str) -> Fact | None:
        """A catalog question contained in ``text`` (for prompts the simulation does not
        know)."""
        key = prompts.normalize_answer(text)
        hits = [f for q, f in self._originals.items() if q and q in key]
        return max(hits, key=lambda f: len(f.question)) if hits else None

    def wrong_pool(self, fact: Fact) -> list[str]:
        """Plausible wrong answers: other answers of the same property (else of any)."""
        gold = {prompts.normalize_answer(x) for x in fact.labels}
        pool = [x for x in self._pools.get(fact.property, []) if
                prompts.normalize_answer(x) not in gold]
        if len(pool) < 3:
            pool = [x for x in self._all_labels if prompts.normalize_answer(x) not in gold]
        return pool


def _percentiles(raw: list[float | None]) -> list[float]:
    known = sorted(v for v in raw if v is not None)
    if not known:
        return [0.5] * len(raw)
    import bisect
    n = len(known)
    out = []
    for v in raw:
        if v is None:
            out.append(0.5)
        else:
            lo, hi = bisect.bisect_left(known, v), bisect.bisect_right(known, v)
            out.append(((lo + hi) / 2) / n)
    return out


def popularity_from_kb(kb: KnowledgeBase) -> Callable[[str], float]:
    """A popularity function over a KB: the search prior of the subject's label (sitelinks,
    else degree), else the number of its statements."""
    def popularity(subject: str) -> float:
        try:
            label = kb.entity(subject).label("en")
        except Exception:  # noqa: BLE001 - an unknown subject is simply not popular
            return 0.0
        if label:
            for cand in kb.search(label, limit=10):
                if cand.id == subject:
                    return float(cand.prior)
        return len(kb.statements(subject, limit=100)) / 100.0
    return popularity


class SimulatedLLM(BaseLLM):
    """A simulated LLM over a ``FactCatalog`` (see the module docstring)."""

    def __init__(self, catalog: FactCatalog, *, seed: int = 0, known_share: float = 0.5,
                 popularity_weight: float = 0.6, confident_wrong: float = 0.2,
                 shared_misconception: float = 0.3, language_drop: float = 0.1,
                 slip: float = 0.03, judge_noise: float = 0.03,
                 follow_evidence: float = 0.85, forget_citation: float = 0.15,
                 delay: float = 0.0, model: str | None = None):
        super().__init__()
        if not isinstance(catalog, FactCatalog):
            raise LLMConfigError("SimulatedLLM needs a FactCatalog", backend="simulated",
                                 got=type(catalog).__name__,
                                 fix="FactCatalog.from_jsonl(path) or .from_rows(rows)")
        self.catalog, self.seed = catalog, seed
        self.known_share, self.popularity_weight = known_share, popularity_weight
        self.confident_wrong, self.shared_misconception = confident_wrong, shared_misconception
        self.language_drop, self.slip, self.judge_noise = language_drop, slip, judge_noise
        self.follow_evidence, self.forget_citation = follow_evidence, forget_citation
        self.delay = delay
        self.model = model or f"simulated:{seed}"

    def __repr__(self) -> str:
        return f"SimulatedLLM({len(self.catalog)} facts, seed={self.seed})"

    # -- ground truth for evaluations ---------------------------------------------------------

    def knows(self, question: str, lang: str = "en") -> bool:
        asked = self.catalog.lookup(question)
        return asked.fact is not None and self._knows(asked.fact, lang)

    def truth(self, question: str) -> Fact | None:
        return self.catalog.lookup(question).fact

    # -- the simulation ------------------------------------------------------------------------

    def _u(self, *parts: object, seeded: bool = True) -> float:
        """A uniform draw in [0, 1) fixed by ``parts`` (and the seed)."""
        text = "\x1f".join(map(str, ((self.seed,) if seeded else ()) + parts))
        digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") / 2.0 ** 64

    def _knows(self, fact: Fact, lang: str) -> bool:
        p = self.known_share + self.popularity_weight * (fact.popularity - 0.5)
        p = min(max(p, 0.02), 0.98)
        if self._u("know", fact.key) >= p:
            return False
        return lang == "en" or self._u("lang", fact.key, lang) >= self.language_drop

    def _answer(self, asked: Asked, wording: str, temperature: float, salt: str) -> str:
        fact, lang = asked.fact, asked.lang
        if fact is None:
            return DONT_KNOW
        sampled = temperature > 0
        if self._knows(fact, lang):
            if not (sampled and self._u("slip", salt) < self.slip * temperature):
                return fact.answer
        pool = self.catalog.wrong_pool(fact)
        if not pool:
            return DONT_KNOW
        shared = self._u("shared", fact.key, seeded=False) < self.shared_misconception
        misconception = pool[int(self._u("mis", fact.key, seeded=not shared) * len(pool))]
        confident = self._u("confident", fact.key) < self.confident_wrong
        stick = 0.9 if confident else 0.35 * (1 - 0.5 * min(temperature, 1.0))
        draw = (salt,) if sampled else (fact.key, lang, wording)
        if self._u("stick", *draw) < stick:
            return misconception
        return pool[int(self._u("pick", *draw) * len(pool))]

    def _generate(self, request: Request) -> Generation:
        if self.delay:
            time.sleep(self.delay)
        messages = request.message_dicts()
        found = prompts.identify(messages)
        task, fields = found if found else ("other", {})
        salt_base = request.key()
        replies = []
        for i in range(request.n):
            salt = f"{salt_base}:{i}" if request.temperature > 0 else "greedy"
            replies.append(self._reply(task, fields, request, salt))
        return Generation(replies, approx_tokens(request.text),
                          sum(approx_tokens(r) for r in replies))

    def _reply(self, task: str, fields: dict[str, str], request: Request, salt: str) -> str:
        t = request.temperature
        if task in ("answer", "cot", "draft"):
            question = fields["question"]
            answer = self._answer(self.catalog.lookup(question),
                                  prompts.normalize_answer(question), t, salt)
            if task == "answer":
                return answer
            if task == "draft":
                return f"It is {answer}."
            return ("Let me recall what I know about the subject of the question.\n"
                    f"As far as I remember, it is {answer}.\nAnswer: {answer}")
        if task == "paraphrase":
            question = fields["question"].strip()
            template = _PARAPHRASES[int(self._u("para", question, salt) * len(_PARAPHRASES))]
            lower = question[:1].lower() + question[1:]
            text = template.format(q=question, lower=lower)
            self.catalog.register(text, self.catalog.lookup(question))
            return text
        if task == "translate":
            lang = prompts.language_code(fields["language"])
            question = fields["question"].strip()
            text = _LANGUAGE_TAGS.get(lang, f"[{lang}] ") + question
            asked = self.catalog.lookup(question)
            self.catalog.register(text, Asked(asked.fact, lang))
            return text
        if task == "judge":
            a1 = prompts.normalize_answer(prompts.extract_answer(fields["answer1"]))
            a2 = prompts.normalize_answer(prompts.extract_answer(fields["answer2"]))
            same = a1 == a2
            if self._u("judge", fields["question1"], a1, fields["question2"], a2) < \
                    self.judge_noise:
                same = not same
            return "True" if same else "False"
        if task == "decompose":
            return fields["question"].strip()
        if task in ("grounded", "revise"):
            return self._grounded(task, fields, salt)
        fact = self.catalog.find_in(request.text)
        if fact is None:
            return DONT_KNOW
        return self._answer(Asked(fact, "en"), prompts.normalize_answer(fact.question), t, salt)

    def _grounded(self, task: str, fields: dict[str, str], salt: str) -> str:
        """An answer from numbered evidence (see the module docstring)."""
        question = fields["question"].strip()
        lines = [(int(m["number"]), _answer_side(question, m["subject"],
                                                 _strip_qualifiers(m["value"])))
                 for m in prompts.EVIDENCE_LINE.finditer(fields["evidence"])]
        asked = self.catalog.lookup(question)
        key = asked.fact.key if asked.fact is not None else question
        if task == "revise":
            previous = prompts.strip_citations(prompts.extract_answer(fields["previous"]))
            held = _held(lines, previous)
            if held:
                return _reply(previous, held)
            hint = _HINT.search(fields["feedback"])
            if hint:
                return _reply(hint.group(1).strip(), prompts.cited_numbers(hint.group(2)))
            return _reply(lines[0][1], [lines[0][0]]) if lines else f"Answer: {DONT_KNOW}"
        own = self._answer(asked, prompts.normalize_answer(question), 0.0, salt)
        held = _held(lines, own)
        if held or not lines or self._u("follow", key) >= self.follow_evidence:
            answer, numbers = own, held
        else:
            answer, numbers = lines[0][1], [lines[0][0]]
        if numbers and self._u("forget", key) < self.forget_citation:
            numbers = []
        return _reply(answer, numbers)


_HINT = re.compile(r"best answer: ([^;\n]+?) \((\[\d+\][^)]*)\)")


def _answer_side(question: str, subject: str, value: str) -> str:
    """The side of a statement that answers: its subject when the question names the
    value and not the subject ("Who won the Nobel Prize?"), else its value."""
    q = f" {prompts.normalize_answer(question)} "
    named = [f" {prompts.normalize_answer(x)} " in q for x in (subject, value)]
    return subject if named == [False, True] else value


def _strip_qualifiers(value: str) -> str:
    return value.split("; ")[0].strip()


def _held(lines: list[tuple[int, str]], answer: str) -> list[int]:
    key = prompts.normalize_answer(answer)
    return [n for n, value in lines if key and prompts.normalize_answer(value) == key]


def _reply(answer: str, numbers: list[int]) -> str:
    cites = "".join(f" [{n}]" for n in numbers)
    return f"From the evidence{cites}.\nAnswer: {answer}{cites}"
