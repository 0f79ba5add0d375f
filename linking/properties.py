"""Property linking: a relation phrase ("born in", "house publication", or a whole question
without its subject: "What city was born in?") → property IDs.

Every property the KB defines or uses is scored against the phrase by evidence from the
KB itself, never from a list of question templates:

``exact``      the normalized phrase equals a label (1.0) or alias (0.95), any language
``fuzzy``      rapidfuzz similarity of phrase and a name, as written or with words sorted,
               scaled to at most ``FUZZY_MAX`` (misspelt names)
``words``      how much of the phrase's content the property's vocabulary covers: each
               content word (stemmed; irregular forms mapped: "born" → "birth", "died" →
               "death"; derived forms meet by a shared stem: "formed" ~ "formation") counts
               by its rarity among properties (idf) — fully when some label or alias of
               the property has it, half when only its description does; at most
               ``WORDS_MAX``
``answer``     the question's answer type fits what the property's values are: "where" a
               place, "who" a person or an organization, "when" a date, "which language"
               a language — compared with the labels of the property's commonest value
               types (``PropertyNames.value_types``) and with its own label; it tells
               apart properties the words point at, and counts less the less they do
``semantic``   with an embedder (``linking.embeddings``): cosine similarity of the phrase
               and the property's label, aliases and description

``prior`` adds a little for properties the KB uses much; a property the KB holds no
statement of is discounted (``UNUSED_FACTOR``): it cannot answer anything here. Given a
``subject`` (and optionally a ``value``), candidates are restricted to the properties the
subject actually has — as subject, or as value (``inverse`` in the features) — when the
best of those fits the phrase nearly as well as the best of all (``RESTRICT_MARGIN``);
otherwise the unrestricted list is returned, the subject's own properties first among
equals, with ``restricted`` = 0 in every candidate's features, so callers can tell.
"""

from __future__ import annotations

import bisect
import math
import re
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from kb.linking import LinkingKB, PropertyNames
from kb.types import Candidate
from linking.lexicon import STOPWORDS, stem
from store.normalize import normalize

EXACT_LABEL, EXACT_ALIAS, OTHER_LANGUAGE = 1.0, 0.95, 0.97
FUZZY_MAX, WORDS_MAX, PRIOR_WEIGHT = 0.85, 0.8, 0.1
#: of ``words``: the share from the whole vocabulary's coverage (the rest: the best name)
COVER_SHARE = 0.6
#: weight of the answer-type fit, and of the semantic similarity (with embeddings)
ANSWER_WEIGHT, SEMANTIC_WEIGHT = 0.3, 0.5
#: name evidence at which the answer-type fit counts fully (less evidence, less of it)
ANSWER_BASIS = 0.4
#: a property without statements in the KB scores this share of its evidence
UNUSED_FACTOR = 0.6
#: bonus for a property the subject has, as subject / only as value
HAS_BONUS, INVERSE_BONUS = 0.15, 0.05
#: restrict to the subject's properties when the best of them fits the phrase at most this
#: much worse than the best of all properties
RESTRICT_MARGIN = 0.1
#: a fuzzy similarity (0–100) below this is no match
FUZZY_CUTOFF = 70
LABEL, ALIAS = 0, 2

#: irregular English forms → the form property names use ("born" → "birth")
IRREGULAR = {
    "born": "birth", "bore": "birth", "birthplace": "birth", "died": "death",
    "die": "death", "dies": "death", "dead": "death", "dying": "death", "deathplace": "death",
    "wrote": "write", "written": "write", "writer": "write", "spoke": "speak",
    "spoken": "speak", "speaker": "speak", "made": "make", "maker": "make", "began": "begin",
    "begun": "begin", "grew": "grow", "grown": "grow", "won": "win", "winner": "win",
    "taught": "teach", "teacher": "teach", "held": "hold", "holder": "hold", "built": "build",
    "builder": "build", "bought": "buy", "sold": "sell", "seller": "sell", "led": "lead",
    "leader": "lead", "drew": "draw", "drawn": "draw", "sang": "sing", "sung": "sing",
    "singer": "sing", "flew": "fly", "flown": "fly", "fought": "fight", "thought": "think",
    "took": "take", "taken": "take", "gave": "give", "given": "give", "ran": "run",
    "went": "go", "gone": "go", "saw": "see", "seen": "see", "knew": "know", "known": "know",
    "chose": "choose", "chosen": "choose", "founded": "found", "founder": "found",
    "married": "marry", "marriage": "marry", "wife": "spouse", "husband": "spouse",
    "children": "child", "men": "man", "women": "woman", "people": "person",
    "lies": "lie", "lay": "lie", "headquartered": "headquarters", "situated": "locate",
    "nationality": "citizenship", "tongue": "language", "tongues": "language",
}

#: answer types asked for by a question word alone
PLACE_WORDS = frozenset("""place location city town village country state region province
county district municipality settlement capital island continent territory area commune
borough prefecture nation land city municipality""".split())
AGENT_WORDS = frozenset("""human person people man woman organization organisation company
business enterprise corporation firm party band group team club university institution
agency label publisher network broadcaster developer manufacturer""".split())
TIME_DATATYPES = frozenset({"time"})
QUANTITY_DATATYPES = frozenset({"quantity"})
#: words after "which"/"what" that ask for a kind rather than name it ("what kind of")
KIND_WORDS = frozenset({"kind", "sort", "type", "types", "kinds", "sorts"})
_WH = re.compile(r"\b(which|what|whose|who|whom|where|when|how)\b")


def word_form(word: str) -> str:
    """The form a word is compared in: irregular forms mapped, then crudely stemmed."""
    return stem(IRREGULAR.get(word, word))


#: words that never carry a relation: articles, question words, auxiliaries, pronouns
#: (unlike ``lexicon.STOPWORDS``, prepositions and verbs stay: "named after", "part of")
FUNCTION_WORDS = frozenset("""a an the who whom whose what which when where why how is was
are were be been being am do does did doing done has have had having it its this that
these those he she they them his her their him i you we us our your my me there here
any some one s t d ll m re ve nt can could would should will shall may might must also
just very much many more most""".split())


#: words that shape a relation ("part of", "born in") but never name one on their own
PREPOSITIONS = frozenset("""in of at on by for from to with after before into as about under
over between against during through within without near since off out up down per via
upon onto toward towards across along among around behind beyond inside outside""".split())


def content_forms(norm: str) -> list[str]:
    """The compared forms of a normalized text's words, without function words and
    numbers."""
    return [word_form(w) for w in norm.split()
            if w not in FUNCTION_WORDS and not w.isdigit() and len(w) > 1]


#: endings that derive one English word from another ("own" → "owner", "form" → "formation")
DERIVING = ("er", "ers", "or", "ors", "ed", "ing", "ion", "ation", "ations", "ment", "ship",
            "al", "ity", "ive", "ance", "ence", "ant", "ent", "y", "ial", "ist", "ism", "ly")


def _related(a: str, b: str) -> bool:
    """Derived forms of one word: "formation" ~ "form", "employer" ~ "employ", "located" ~
    "location" (the shorter plus a deriving ending, or a shared start of at least five
    letters between words of six or more)."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 3:
        return False
    if long_.startswith(short) and long_[len(short):] in DERIVING:
        return True
    if len(short) < 5:
        return False
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 5 and len(long_) >= 6


def answer_words(norm: str) -> tuple[set[str], str]:
    """What the question asks for: (words naming the answer's type, question word). "what
    city was … born in" → ({"city"}, "what"); "where did … die" → (PLACE_WORDS, "where")."""
    m = _WH.search(norm)
    if not m:
        return set(), ""
    wh = m.group(1)
    if wh == "where":
        return set(PLACE_WORDS), wh
    if wh in ("who", "whom"):
        return set(AGENT_WORDS), wh
    if wh == "when":
        return {"date", "time", "year"}, wh
    if wh == "how":
        return ({"number", "amount", "quantity"}, wh) if re.search(
            r"\bhow (many|much)\b", norm) else (set(), wh)
    out: list[str] = []
    for w in norm[m.end():].split()[:4]:
        if w in KIND_WORDS or w == "of":
            continue
        if w in STOPWORDS:
            break
        out.append(word_form(w))
        if len(out) == 2:
            break
    return set(out), wh


class PropertyLinker:
    """Links relation phrases to the properties one KB defines or uses (its
    ``kb.linking.LinkingKB``)."""

    def __init__(self, source: LinkingKB, *, embedder: Any = None):
        self.source = source
        self.embedder = embedder
        self._prop_vectors: tuple[list[str], Any] | None = None
        self._lock = threading.Lock()
        self._props: dict[str, PropertyNames] | None = None
        self._names: list[tuple[str, str, str, int]] = []     # (norm, pid, lang, kind)
        self._name_norms: list[str] = []
        self._name_sorted: list[str] = []
        self._exact: dict[str, list[tuple[str, str, int]]] = {}
        self._vocab: dict[str, set[str]] = {}                # pid → name word forms
        self._pid_names: dict[str, list[str]] = {}           # pid → normalized names
        self._desc: dict[str, set[str]] = {}                 # pid → description word forms
        self._by_word: dict[str, set[str]] = {}              # word form → pids (names+desc)
        self._idf: dict[str, float] = {}
        self._answer: dict[str, dict[str, float]] = {}       # pid → answer word → weight
        self._cue_words: dict[str, frozenset[str]] = {}
        self._max_usage = 0.0
        self._all_forms: list[str] = []

    # -- loading ------------------------------------------------------------------------------
    def _load(self) -> dict[str, PropertyNames]:
        if self._props is not None:
            return self._props
        with self._lock:
            if self._props is not None:
                return self._props
            props = {p.id: p for p in self.source.properties()}
            for pid, p in props.items():
                terms = [(LABEL, lang, t) for lang, t in p.labels.items()]
                terms += [(ALIAS, lang, t) for lang, ts in p.aliases.items() for t in ts]
                vocab: set[str] = set()
                for kind, lang, text in terms:
                    norm = normalize(text)
                    if norm:
                        self._pid_names.setdefault(pid, []).append(norm)
                        self._names.append((norm, pid, lang, kind))
                        self._exact.setdefault(norm, []).append((pid, lang, kind))
                        vocab.update(content_forms(norm))
                desc: set[str] = set()
                for text in p.descriptions.values():
                    desc.update(content_forms(normalize(text)))
                self._vocab[pid], self._desc[pid] = vocab, desc - vocab
                for w in vocab | desc:
                    self._by_word.setdefault(w, set()).add(pid)
            n = max(len(props), 1)
            self._idf = {w: math.log((n + 1) / (len(ps) + 0.5)) for w, ps in self._by_word.items()}
            self._all_forms = sorted(self._by_word)
            self._max_usage = math.log1p(max((p.usage for p in props.values()), default=0))
            self._name_norms = [n for n, *_ in self._names]
            self._name_sorted = [" ".join(sorted(n.split())) for n in self._name_norms]
            self._answer = self._answer_profiles(props)
            cues: dict[str, set[str]] = {}
            for norm, pid, _lang, _kind in self._names:
                if props[pid].usage:
                    for w in content_forms(norm):
                        cues.setdefault(w, set()).add(pid)
            self._cue_words = {w: frozenset(p) for w, p in cues.items()}
            self._props = props
            return props

    def _answer_profiles(self, props: dict[str, PropertyNames]) -> dict[str, dict[str, float]]:
        """pid → words describing its values (the labels of its commonest value types,
        weighted by their share, and its own label's words), for the answer-type fit."""
        types = sorted({t for p in props.values() for t, _ in p.value_types})
        names = self.source.labels(types) if types else {}
        out: dict[str, dict[str, float]] = {}
        for pid, p in props.items():
            words: dict[str, float] = {}
            for t, share in p.value_types:
                for w in content_forms(normalize(names.get(t, (t, None))[0])):
                    words[w] = max(words.get(w, 0.0), min(1.0, 2 * share))
            for w in content_forms(normalize(p.label())):
                words[w] = max(words.get(w, 0.0), 0.8)
            if p.datatype in TIME_DATATYPES:
                for w in ("date", "time", "year"):
                    words[w] = 1.0
            if p.datatype in QUANTITY_DATATYPES:
                for w in ("number", "amount", "quantity"):
                    words[w] = 1.0
            out[pid] = words
        return out

    def prior(self, pid: str) -> float:
        p = self._load().get(pid)
        if p is None or not p.usage or not self._max_usage:
            return 0.0
        return math.log1p(p.usage) / self._max_usage

    def roles(self, entities: Iterable[str]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """entity → (properties it has as subject, properties it is the value of);
        entities in no statement are left out."""
        return {e: (p.subject_of, p.value_of)
                for e, p in self.source.profiles(list(dict.fromkeys(entities))).items()
                if p.subject_of or p.value_of}

    # -- cues for entity ranking -----------------------------------------------------------
    def cue_properties(self, words: Iterable[str]) -> dict[str, float]:
        """Properties that the (normalized) context ``words`` name, with a weight in (0, 1]
        that falls as a word names more properties ("born" → P19 weighs more than
        "location" → 40 properties). Used to check whether a candidate fits the question."""
        self._load()
        out: dict[str, float] = {}
        for w in words:
            if w in STOPWORDS and w not in IRREGULAR:
                continue
            pids = self._cue_words.get(word_form(w))
            if not pids:
                continue
            weight = 1.0 / math.sqrt(len(pids))
            for pid in pids:
                if weight > out.get(pid, 0.0):
                    out[pid] = weight
        return out

    # -- linking ----------------------------------------------------------------------------
    def _word_matches(self, form: str) -> dict[str, float]:
        """pid → 1.0 where a name of the property has ``form`` (or a derived form of it),
        0.5 where only its description has."""
        out: dict[str, float] = {}
        forms = [form] if form in self._by_word else []
        if len(form) >= 3:
            forms += [f for f in self._near_forms(form) if f != form]
        for f in forms:
            for pid in self._by_word.get(f, ()):
                weight = 1.0 if f in self._vocab[pid] else 0.5
                if weight > out.get(pid, 0.0):
                    out[pid] = weight
        return out

    def _near_forms(self, form: str) -> list[str]:
        """Vocabulary forms derived from the same word as ``form``."""
        key = form[:3] if len(form) <= 4 else form[:4]
        lo = bisect.bisect_left(self._all_forms, key)
        out = []
        for f in self._all_forms[lo:lo + 400]:
            if not f.startswith(key):
                break
            if _related(form, f):
                out.append(f)
        return out

    def link(self, phrase: str, *, subject: str | None = None, value: str | None = None,
             lang: str = "en", limit: int = 5) -> list[Candidate]:
        """Properties ``phrase`` may name, best first (at most ``limit``). With ``subject``
        (and ``value``), only properties that link them, when any fits; with only
        ``value``, only properties it is the value of."""
        props = self._load()
        norm = normalize(phrase)
        if not norm or limit < 1:
            return []
        scored: dict[str, tuple[float, str, str, str]] = {}   # pid → (score, how, name, lang)

        def offer(pid: str, score: float, how: str, name: str, tlang: str) -> None:
            if score > scored.get(pid, (0.0,))[0]:
                scored[pid] = (score, how, name, tlang)

        for pid, tlang, kind in self._exact.get(norm, ()):
            base = EXACT_LABEL if kind == LABEL else EXACT_ALIAS
            offer(pid, base * (1.0 if tlang in (lang, "en", "") else OTHER_LANGUAGE), "exact",
                  norm, tlang)
        for query, choices in ((norm, self._name_norms),
                               (" ".join(sorted(norm.split())), self._name_sorted)):
            for _, sim, i in process.extract(query, choices, scorer=fuzz.ratio,
                                             score_cutoff=FUZZY_CUTOFF, limit=60):
                name, pid, tlang, _kind = self._names[i]
                offer(pid, FUZZY_MAX * sim / 100.0, "fuzzy", name, tlang)
        words = list(dict.fromkeys(content_forms(norm)))
        weights = {w: self._idf.get(w, max(self._idf.values(), default=1.0)) for w in words}
        total = sum(weights.values())
        if total:
            cover: dict[str, float] = {}
            matched: dict[str, set[str]] = {}
            for w in words:
                for pid, hit in self._word_matches(w).items():
                    cover[pid] = cover.get(pid, 0.0) + hit * weights[w]
                    matched.setdefault(pid, set()).add(w)
            for pid, c in cover.items():
                if matched[pid] <= PREPOSITIONS:
                    continue                  # "in" alone names no relation
                best, name = self._best_name(pid, words, weights)
                offer(pid, WORDS_MAX * (COVER_SHARE * c / total + (1 - COVER_SHARE) * best),
                      "words", name, lang)
        semantic = dict(self._semantic(phrase)) if self.embedder is not None else {}
        asked, _wh = answer_words(norm)

        has: dict[str, str] = {}
        restricted = 0.0
        anchor = subject if subject is not None else value
        candidates = set(scored) | set(semantic)
        fit = {pid: self._answer_fit(pid, asked) for pid in candidates} if asked else {}
        totals = {pid: self._total(pid, scored, semantic, fit) for pid in candidates}
        if anchor is not None:
            out_props, in_props = self.roles([anchor]).get(anchor, (frozenset(), frozenset()))
            if subject is None:              # only the value is known: it is the value of…
                out_props, in_props = in_props, frozenset()
            elif value is not None:
                out_props = out_props & self._linking(subject, value)
            has = {p: "subject" for p in out_props}
            for p in in_props:
                has.setdefault(p, "inverse")     # the subject is the value: an inverse use
            best_all = max(totals.values(), default=0.0)
            best_has = max((s for pid, s in totals.items() if pid in has), default=0.0)
            if best_has and best_has >= best_all - RESTRICT_MARGIN:
                restricted = 1.0
                totals = {pid: s for pid, s in totals.items() if pid in has}

        out = []
        for pid, total in totals.items():
            name_score, how, name, tlang = scored.get(pid, (0.0, "answer", "", lang))
            if pid in semantic and semantic[pid] * SEMANTIC_WEIGHT > name_score:
                how = "semantic"
            prior = self.prior(pid)
            evidence = name_score + SEMANTIC_WEIGHT * semantic.get(pid, 0.0)
            feats = {"name": name_score, "prior": PRIOR_WEIGHT * prior,
                     "answer": ANSWER_WEIGHT * fit.get(pid, 0.0) * min(
                         1.0, evidence / ANSWER_BASIS)}
            if semantic:
                feats["semantic"] = SEMANTIC_WEIGHT * semantic.get(pid, 0.0)
            if anchor is not None:
                feats["restricted"] = restricted
                feats["subject_has"] = (HAS_BONUS if has.get(pid) == "subject" else
                                        INVERSE_BONUS if pid in has else 0.0)
                feats["inverse"] = 1.0 if has.get(pid) == "inverse" else 0.0
                total += feats["subject_has"]
            p = props[pid]
            out.append(Candidate(pid, p.label(lang), total, prior, name, how, tlang,
                                 p.description(lang), feats))
        out.sort(key=lambda c: (-c.score, c.id))
        return out[:limit]

    def _best_name(self, pid: str, words: list[str],
                   weights: dict[str, float]) -> tuple[float, str]:
        """The one name of the property closest to the phrase's words (idf-weighted
        Jaccard overlap, derived forms counting), and that name."""
        best, best_name = 0.0, ""
        phrase = set(words)
        for norm in self._pid_names.get(pid, ()):
            forms = set(content_forms(norm))
            if not forms:
                continue
            shared = sum(weights[w] for w in phrase if any(_related(w, f) for f in forms))
            extra = sum(self._idf.get(f, 1.0) for f in forms
                        if not any(_related(w, f) for w in phrase))
            score = shared / (sum(weights.values()) + extra)
            if score > best:
                best, best_name = score, norm
        return best, best_name

    def _total(self, pid: str, scored: dict, semantic: dict[str, float],
               fit: dict[str, float]) -> float:
        name = scored.get(pid, (0.0,))[0] + SEMANTIC_WEIGHT * semantic.get(pid, 0.0)
        # the answer type tells apart properties the words point at; alone it names none
        evidence = name + ANSWER_WEIGHT * fit.get(pid, 0.0) * min(1.0, name / ANSWER_BASIS)
        if not self._props[pid].usage:
            evidence *= UNUSED_FACTOR
        return evidence + PRIOR_WEIGHT * self.prior(pid)

    def _answer_fit(self, pid: str, asked: set[str]) -> float:
        """How well the property's values are of the asked type, in [0, 1]."""
        words = self._answer.get(pid)
        if not words or not asked:
            return 0.0
        best = 0.0
        for a in asked:
            for w, weight in words.items():
                if weight > best and _related(a, w):
                    best = weight
        return best

    def _semantic(self, phrase: str) -> list[tuple[str, float]]:
        """(PID, cosine similarity) of the 30 properties whose names and description are
        closest in meaning to ``phrase`` (similarity above zero)."""
        if self._prop_vectors is None:
            props = self._load()
            pids = sorted(p for p, prop in props.items() if prop.labels)
            docs = [_describe(props[p]) for p in pids]
            self._prop_vectors = (pids, self.embedder.encode(docs))
        pids, vectors = self._prop_vectors
        query = self.embedder.encode([phrase])[0]
        sims = vectors @ query
        return [(pids[i], float(sims[i])) for i in np.argsort(-sims)[:30] if sims[i] > 0]

    def closest(self, phrase: str, *, lang: str = "en", limit: int = 5) -> list[tuple[str, str]]:
        """(PID, label) of the properties whose names are nearest to ``phrase``, for error
        messages; no cutoff."""
        props = self._load()
        out: dict[str, str] = {}
        for _, _, i in process.extract(normalize(phrase), self._name_norms, scorer=fuzz.WRatio,
                                       limit=4 * limit):
            pid = self._names[i][1]
            if pid not in out:
                out[pid] = props[pid].label(lang)
        return list(out.items())[:limit]

    def _linking(self, subject: str, value: str) -> frozenset[str]:
        return self.source.connecting(subject, value)

    def labels(self, lang: str = "en") -> dict[str, str]:
        """Every property's label in ``lang`` (English, else any, as fallback)."""
        return {pid: p.label(lang) for pid, p in self._load().items()}


def _describe(p: PropertyNames) -> str:
    """What the embedder compares a phrase with: label, aliases, description."""
    aliases = ", ".join(p.aliases.get("en", ())[:8])
    text = p.label("en") + (f" ({aliases})" if aliases else "")
    description = p.description("en")
    return f"{text}: {description}" if description else text
