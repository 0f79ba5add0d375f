"""The utility module (LLM-Augmenter): does a candidate answer rest on the evidence?

    u = assess(reply, evidence, question)
    u.passed            # every entity and value it asserts is in a statement it cites
    u.score             # in [0, 1], to pick the best of several candidates
    u.kf1               # knowledge F1: word overlap of the answer and the cited statements
    u.feedback          # what to fix, in words a model can act on ('' when it passed)

What an answer asserts is read from its final answer (the 'Answer:' line of a reply, or
its only line), citation markers removed; what it cites, from the markers of that line
(of the whole reply when the line has none):

- the labels of the evidence's nodes (entities, and literals: dates in ISO form, in words,
  or as a year; numbers) found in it, longest first, as whole words — each is a **value**
  of the answer, unless it is a question entity; aliases of
  the evidence's entities are tried for what is left, when ``aliases`` is given; an
  answer naming only question entities ("Who won X?" → "X") fails;
- what is left after removing those, the question's own words, the evidence's property
  labels and function words: each remaining run of words that names something — a
  number, a capitalized word, or any word of a short answer (at most ``SHORT`` words) —
  is an **unsupported claim**, something the evidence does not say. Other words of a
  sentence ("her husband was …") describe the relation, not a value, and pass.

An answer passes when it names at least one value, every value is held by a statement it
cites, it makes no unsupported claim, cites no number outside the evidence, and does not
abstain ("I don't know"). ``score`` = 0.6 × the share of claims supported + 0.2 × the share
of values cited + 0.2 × knowledge F1 (LLM-Augmenter's KF1: unigram F1 between the answer's
content words and those of the statements it cites, or of all the evidence when it cites
none). Deterministic, no LLM call.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from linking.lexicon import STOPWORDS
from linking.lexicon import en as _en
from reasoning import prompts
from reasoning.answer import AnswerValue
from reasoning.evidence import Evidence, EvidenceNode

#: words that carry no claim, besides linking's stopwords (``linking.lexicon.en``)
FUNCTION_WORDS = _en.CLAIMLESS_WORDS
#: an answer that is nothing but a declining form ("Unknown.", "Not known — no record")
_BARE = (r"(?:unknown|not\s+known|unclear|uncertain|unsure|not\s+sure|no\s+idea|n/a|"
         r"no\s+(?:answer|information|data|record)|none\s+known|"
         r"(?:insufficient|not\s+enough)\s+(?:information|evidence|data)|"
         r"(?:i\s+)?(?:do\s*n[o']?t|dont)\s+know|"
         r"(?:cannot|can't|can\s*not)\s+(?:say|tell|answer|be\s+(?:determined|known|answered))|"
         r"unable\s+to\s+(?:say|tell|answer|determine))")
#: a clause that declines: first person ("I don't know who ...", "I am not sure"), or
#: the answer said to be unknown ("It is not known.", "This cannot be determined")
_CLAUSE = (r"(?:(?:i|we)\s+(?:do\s*n[o']?t|dont|cannot|can't|can\s*not)\s+"
           r"(?:know|say|tell|answer|determine|find|be\s+sure)|"
           r"(?:i|we)\s*(?:am|'m|are|'re)\s+(?:not\s+(?:sure|certain|able)|unsure|unable)|"
           r"(?:i|we)\s+(?:have|had)\s+no\s+(?:idea|information|answer)|"
           r"(?:it|this|that|the\s+answer|the\s+[\w\s]{1,40}?)\s+(?:is|remains|was)\s+"
           r"(?:unknown|not\s+known|unclear|uncertain|not\s+(?:stated|given|available))"
           r"\s*(?:[.,;:!?]|$|(?:who|what|when|where|which|why|whether|how|if|from|in|"
           r"based|according)\b)|"
           r"(?:it|this|that|the\s+answer)\s+(?:cannot|can't|can\s*not)\s+be\s+"
           r"(?:determined|known|answered|said)|"
           r"there\s+(?:is|'s)\s+no\s+(?:information|answer|record|way\s+to\s+(?:know|tell)))")
ABSTAIN = re.compile(
    r"^[\s\"'“‘(*]*(?:(?:answer|final\s+answer)\s*:\s*)?"
    r"(?:(?:sorry|unfortunately|honestly)\s*,?\s*)?"
    rf"(?:{_BARE}\s*(?:[.,;:!?)—–-]|$)|(?:[^.!?]*?[.,;:!?]\s*)?{_CLAUSE}(?!\w))",
    re.IGNORECASE)


def abstains(answer: str) -> bool:
    """Whether an answer declines to answer: empty, a declining form on its own
    ("unknown", "I don't know", "not known", "cannot be determined", optionally followed
    by a reason: "Unknown — the records were lost"), or a sentence that declines ("I am
    not sure who founded it.", "It is not known.", "This cannot be determined from the
    evidence."), at the start or after the answer's first clause. An answer that names
    something with such a word in it is no abstention: "The Unknown Soldier", "an unknown
    comet", "Unknown Pleasures"."""
    return not answer.strip() or bool(ABSTAIN.match(answer.strip()))


#: an answer of at most this many words is all claim (a sentence's lowercase words are not)
SHORT = 4
POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
MONTHS = _en.MONTHS
NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Claim:
    """A part of the answer: ``text`` as written, the evidence node it names (None: the
    evidence does not say it), and whether a statement the answer cites holds it."""

    text: str
    node: str | None
    label: str = ""
    cited: bool = False

    @property
    def supported(self) -> bool:
        return self.node is not None

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "node": self.node, "label": self.label,
                "supported": self.supported, "cited": self.cited}


@dataclass(frozen=True)
class Utility:
    """The verdict on one candidate answer (see the module docstring)."""

    passed: bool
    score: float
    kf1: float
    answer: str
    claims: tuple[Claim, ...] = ()
    cited: tuple[int, ...] = ()
    invalid: tuple[int, ...] = ()
    abstained: bool = False
    #: the answer names only what the question asks about ("Who won X?" → "X")
    only_question: bool = False
    feedback: str = ""
    values: tuple[AnswerValue, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "score": round(self.score, 6),
                "kf1": round(self.kf1, 6), "answer": self.answer,
                "claims": [c.as_dict() for c in self.claims], "cited": list(self.cited),
                "invalid": list(self.invalid), "abstained": self.abstained,
                "only_question": self.only_question,
                "feedback": self.feedback}


def assess(reply: str, evidence: Evidence, question: str = "", *,
           aliases: Callable[[str], Iterable[str]] | None = None) -> Utility:
    """Check ``reply`` (a model's reply, or an answer text) against ``evidence``."""
    answer = prompts.extract_answer(reply) or reply.strip()
    # the answer line's citations; when it has none, those of the whole reply
    cited = tuple(prompts.cited_numbers(answer) or prompts.cited_numbers(reply))
    invalid = tuple(n for n in cited if evidence.get(n) is None)
    text = prompts.strip_citations(answer)
    norm = prompts.normalize_answer(POSSESSIVE.sub("", text))
    abstained = bool(ABSTAIN.search(text)) or not norm
    naming = _naming_words(text)

    matched, chunks = _named_in(norm, evidence, question, naming, aliases)
    seeds = set(evidence.seeds)
    values = [m for m in matched if m[0] not in seeds]
    only_seeds = not values and bool(matched)
    cited_set = set(cited) - set(invalid)
    claims, answer_values = _value_claims(values, evidence, cited_set)
    claims += [Claim(chunk, None) for chunk in chunks]
    if abstained:
        claims = [c for c in claims if c.supported]

    kf1 = knowledge_f1(text, _cited_text(evidence, cited_set))
    passed, score = _verdict(claims, kf1, abstained=abstained,
                             flawed=bool(chunks) or bool(invalid) or only_seeds)
    utility = Utility(passed, score, kf1, answer, tuple(claims), cited, invalid, abstained,
                      only_seeds, values=tuple(dict.fromkeys(answer_values)))
    if not passed:
        utility = _with_feedback(utility, evidence)
    return utility


def _verdict(claims: list[Claim], kf1: float, *, abstained: bool, flawed: bool
             ) -> tuple[bool, float]:
    """Whether an answer with these ``claims`` passes, and its score: 0.6 × the share of
    supported claims + 0.2 × the share of those cited + 0.2 × ``kf1`` (0 for an
    abstention). It passes when it claims some value, every claim is cited, and it neither
    abstained nor is ``flawed`` (unsupported words, invalid citations, only the question's
    own entities)."""
    n_values = sum(c.supported for c in claims)
    supported_share = n_values / len(claims) if claims else 0.0
    cited_share = sum(c.cited for c in claims if c.supported) / n_values if n_values else 0.0
    passed = (n_values > 0 and not flawed and not abstained
              and all(c.cited for c in claims))
    score = 0.0 if abstained else 0.6 * supported_share + 0.2 * cited_share + 0.2 * kf1
    return passed, score


def _named_in(norm: str, evidence: Evidence, question: str, naming: set[str] | None,
              aliases: Callable[[str], Iterable[str]] | None
              ) -> tuple[list[tuple[str, str]], list[str]]:
    """What the normalized answer ``norm`` names: the evidence nodes it names as (node,
    the words naming it) — by their names, then, for what is left, by ``aliases`` — and
    the chunks of words left that claim something no evidence names."""
    matched, rest = _match(norm, _names(evidence))
    allowed = _allowed_words(evidence, question)
    chunks = _leftovers(rest, allowed, naming)
    if chunks and aliases is not None:
        alias_names = _alias_names(evidence, aliases)
        still = []
        for chunk in chunks:
            found, left = _match(chunk, alias_names)
            matched += found
            still += _leftovers(left, allowed, naming)
        chunks = still
    return matched, chunks


def _value_claims(values: list[tuple[str, str]], evidence: Evidence, cited_set: set[int]
                  ) -> tuple[list[Claim], list[AnswerValue]]:
    """For each (node, words) the answer names: its claim (cited when a cited statement
    holds the node) and its answer value (with the numbers of the cited statements that
    hold it, else of all that do)."""
    claims = []
    answer_values = []
    for node, written in values:
        held = evidence.nodes[node].numbers if node in evidence.nodes else \
            _kb_answer_numbers(evidence, node)
        is_cited = bool(cited_set & set(held))
        label = _label(evidence, node)
        claims.append(Claim(written, node, label, is_cited))
        ev_node = evidence.nodes.get(node)
        answer_values.append(AnswerValue(ev_node.entity_id if ev_node else None, label,
                                         tuple(n for n in held if n in cited_set) or
                                         tuple(held)))
    return claims, answer_values


# -- matching -----------------------------------------------------------------------------------

def _names(evidence: Evidence) -> list[tuple[str, str]]:
    """(normalized name, node) for every evidence node and KB-answer value, longest first."""
    out = []
    for node in evidence.nodes.values():
        for name in _surface_forms(node):
            out.append((name, node.id))
    for v in evidence.kb_answer:
        if v.id is None:
            out.append((prompts.normalize_answer(v.label), f"value:{v.label}"))
    return sorted({n for n in out if n[0]}, key=lambda n: (-len(n[0]), n[1]))


def _surface_forms(node: EvidenceNode) -> list[str]:
    forms = [node.label]
    value = node.value
    if value is not None and value.datatype.endswith("#dateTime"):
        forms += _date_forms(str(value))
    return [prompts.normalize_answer(f) for f in forms]


def _date_forms(iso: str) -> list[str]:
    """'1867-11-07' → '7 November 1867', 'November 7, 1867', 'November 1867', '1867'."""
    m = re.match(r"(-?\d{1,4})(?:-(\d\d))?(?:-(\d\d))?", iso)
    if not m:
        return []
    year, month, day = m.group(1), m.group(2), m.group(3)
    forms = [year.lstrip("0") or "0"]
    if month and 1 <= int(month) <= 12:
        name = MONTHS[int(month) - 1]
        forms.append(f"{name} {year}")
        if day and int(day) >= 1:
            d = str(int(day))
            forms += [f"{d} {name} {year}", f"{name} {d} {year}", f"{year} {month} {day}"]
    return forms


def _match(norm: str, names: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], str]:
    """Nodes named in ``norm`` as whole words, longest name first, without overlaps:
    [(node, the words matched)], and ``norm`` with those words blanked out."""
    found = []
    text = f" {norm} "
    for name, node in names:
        needle = f" {name} "
        while needle in text:
            found.append((node, name))
            text = text.replace(needle, " | ", 1)
    # one node named twice (label and date form) counts once
    seen, unique = set(), []
    for node, name in found:
        if node not in seen:
            seen.add(node)
            unique.append((node, name))
    return unique, text


def _naming_words(text: str) -> set[str] | None:
    """The words of ``text`` that may name something: all of a short answer (None), else
    the capitalized ones (normalized)."""
    words = re.findall(r"[\w'’.-]+", POSSESSIVE.sub("", text))
    if len(words) <= SHORT:
        return None
    return {prompts.normalize_answer(w) for w in words if w[:1].isupper()}


def _allowed_words(evidence: Evidence, question: str) -> set[str]:
    words = set(STOPWORDS) | FUNCTION_WORDS
    words.update(prompts.normalize_answer(POSSESSIVE.sub("", question)).split())
    graph = evidence.graph
    if graph is not None:
        for _u, _v, data in graph.graph.edges(data=True):
            words.update(prompts.normalize_answer(data.get("property_label") or "").split())
    return words


def _leftovers(text: str, allowed: set[str], naming: set[str] | None) -> list[str]:
    """Runs of words the evidence did not name that may name something (``naming``:
    None for every word) and are not allowed filler."""
    chunks: list[str] = []
    run: list[str] = []
    for word in text.split():
        number = bool(NUMBER.fullmatch(word))
        names = number or naming is None or word in naming
        if word == "|" or not names or (word in allowed and not number) \
                or not any(c.isalnum() for c in word):
            if run:
                chunks.append(" ".join(run))
            run = []
        else:
            run.append(word)
    if run:
        chunks.append(" ".join(run))
    return chunks


def _alias_names(evidence: Evidence, aliases: Callable[[str], Iterable[str]]
                 ) -> list[tuple[str, str]]:
    out = set()
    for node in evidence.nodes.values():
        if node.value is None:
            for alias in aliases(node.id):
                name = prompts.normalize_answer(alias)
                if name:
                    out.add((name, node.id))
    return sorted(out, key=lambda n: (-len(n[0]), n[1]))


def _kb_answer_numbers(evidence: Evidence, node: str) -> tuple[int, ...]:
    label = node.removeprefix("value:")
    return next((v.numbers for v in evidence.kb_answer if v.label == label), ())


def _label(evidence: Evidence, node: str) -> str:
    if node in evidence.nodes:
        return evidence.nodes[node].label
    return node.removeprefix("value:")


# -- knowledge F1 -------------------------------------------------------------------------------

def _content_words(text: str) -> list[str]:
    return [w for w in prompts.normalize_answer(text).split()
            if w not in STOPWORDS and w not in FUNCTION_WORDS and any(c.isalnum() for c in w)]


def knowledge_f1(answer: str, knowledge: str) -> float:
    """Unigram F1 of the content words of ``answer`` and ``knowledge`` (0 when either has
    none)."""
    a, k = Counter(_content_words(answer)), Counter(_content_words(knowledge))
    common = sum((a & k).values())
    if not common:
        return 0.0
    precision, recall = common / sum(a.values()), common / sum(k.values())
    return 2 * precision * recall / (precision + recall)


def _cited_text(evidence: Evidence, cited: set[int]) -> str:
    chosen = [s for s in evidence.statements if s.number in cited] or list(evidence.statements)
    return "\n".join(s.text for s in chosen)


# -- feedback -----------------------------------------------------------------------------------

def _with_feedback(u: Utility, evidence: Evidence) -> Utility:
    from dataclasses import replace
    return replace(u, feedback=feedback(u, evidence))


def feedback(u: Utility, evidence: Evidence, *, options: int = 5) -> str:
    """What is wrong with the answer ``u`` judged, and how to fix it, one line each."""
    lines = []
    last = len(evidence.statements)
    if u.invalid:
        lines.append(f"{', '.join(f'[{n}]' for n in u.invalid)} "
                     f"{'is' if len(u.invalid) == 1 else 'are'} not in the evidence "
                     f"(its statements are numbered 1 to {last}).")
    if u.abstained:
        lines.append("The answer does not answer: the evidence may answer the question.")
    if u.only_question:
        names = ", ".join(f"'{evidence.nodes[n].label}'" for n in evidence.seeds
                          if n in evidence.nodes) or "it"
        lines.append(f"The answer names only what the question is about ({names}), "
                     "not what it asks for.")
    for c in u.claims:
        if not c.supported:
            lines.append(f"No statement of the evidence supports '{c.text}'.")
        elif not c.cited:
            numbers = evidence.nodes[c.node].numbers if c.node in evidence.nodes else ()
            where = ", ".join(f"[{n}]" for n in numbers) or "the evidence"
            lines.append(f"'{c.label}' is supported by {where}: cite it.")
    if not any(c.supported for c in u.claims) and not u.abstained and not u.only_question:
        lines.append("The answer names nothing the evidence holds.")
    hints = [f"{v.label} ({', '.join(f'[{n}]' for n in v.numbers)})"
             for v in evidence.kb_answer[:options]]
    if hints and not u.passed:
        lines.append("The evidence's best answer: " + "; ".join(hints) + ".")
    lines.append("Answer with names, dates or numbers from the evidence only, and cite the "
                 "statements as [n].")
    return "\n".join(lines)
