"""Property linking: a relation phrase ("born in", "house publication", or a whole question
without its subject: "What city was born in?") → property IDs.

Every property the KB defines or uses is scored against the phrase by evidence from the
KB itself, never from a list of question templates:

``exact``      the normalized phrase equals a label (1.0) or alias (0.95), any language
``fuzzy``      rapidfuzz similarity of phrase and a name, as written or with words sorted
               (misspelt names)
``cover``      how much of the phrase's content the property's vocabulary covers: each
               content word (lemmatized, ``linking.morphology``: "wrote" → "write", "died"
               → "death"; derived forms meet: "formed" ~ "formation") counts by its rarity
               among properties (idf) — fully when some label or alias of the property has
               it, half when only its description does; ``best_name`` the same for its one
               closest name
``answer``     the question's answer type fits what the property's values are: "where" a
               place, "who" a person or an organization, "when" a date, "which language"
               a language — compared with the labels of the property's commonest value
               types (``PropertyNames.value_types``) and with its own label
``clash``      the property's values cannot be what the question word asks for, by the
               kind the KB records (``value_kind``: its datatype, else the share of entity
               values): "where"/"who" and a date, a quantity or a string — a rule outside
               the model (the score keeps ``CLASH_FACTOR`` of itself): no training question
               asks across kinds, so a fitted weight would be arbitrary
``direction``  for a property whose English label is "<noun> of" and the one whose label is
               "<noun>" or "has <noun>" (inverse pairs by their names' shape: "capital of" /
               "capital", "part of" / "has part"), which way the phrase asks: "is the N of
               what?", "Of which … is the N?", "Which … has … as its N?" ask for the whole
               (+1 for the "of" property, -1 for its counterpart); "What N does … have?" the
               other way (-1 / +1); 0 otherwise (``direction_cue``)
``prior``      how much the KB uses the property; ``unused`` when it holds no statement of
               it (then it cannot answer anything here)
``sem_*``      with an embedder (all-MiniLM-L6-v2, ``linking.embeddings``; the
               ``embeddings`` extra, asked for by ``EntityLinker(kb, embeddings=True)``
               or ``kgground link --embeddings``): cosine similarity of the phrase
               with the property's label and aliases (best), description, and all of them
               together; ``soft`` the idf-weighted share of the phrase's content words whose
               meaning some word of the property's names has ("died" ~ "death", "wrote" ~
               "author": word-level cosine); ``sem_q`` the best cosine with a name put in a
               question ("What is the <name> of?"), ``sem_frame`` with the questions its
               shape allows (``question_forms``: "is part of what?", "What does have part?",
               "Which headquarters location?"), a question compared with questions

A logistic model fitted on question wordings (``bench/fit_properties.py``, scikit-learn;
coefficients in ``property_model.json``, one model with the embeddings and one without)
weighs the evidence into ``score`` in [0, 1]; its ``features`` keep the evidence callers
read (``name``: the best name evidence, ``prior``, ``answer``, ``semantic``, and ``fit``:
how well this property's names and answer type fit the phrase on their own — hand-weighted,
the same with or without an embedder, not in competition with the other properties, so
that two properties a phrase names both ("the spouse of … born") both fit; the model's
``score`` picks one).
Semantic similarity is computed for the properties the KB holds statements of (all of them
when the KB reports no usage); their name embeddings are computed once per KB and kept in
the user cache (``Embedder.encode_stored``).

Given a ``subject`` (and optionally a ``value``), candidates are restricted to the properties
the subject actually has — as subject, or as value (``inverse`` in the features) — when the
best of those fits the phrase nearly as well as the best of all (``RESTRICT_MARGIN``);
otherwise the unrestricted list is returned, the subject's own properties first among
equals, with ``restricted`` = 0 in every candidate's features, so callers can tell.
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from kb.linking import LinkingKB, PropertyNames
from kb.types import Candidate
from linking.calibration import Calibration
from linking.lexicon import STOPWORDS
from linking.lexicon import en as _en
from linking.morphology import related as _related
from linking.morphology import readings, word_form
from store.normalize import normalize

EXACT_LABEL, EXACT_ALIAS, OTHER_LANGUAGE = 1.0, 0.95, 0.97
FUZZY_MAX, WORDS_MAX, PRIOR_WEIGHT = 0.85, 0.8, 0.1
#: of ``words``: the share from the whole vocabulary's coverage (the rest: the best name)
COVER_SHARE = 0.6
#: phrases' word evidence kept, by their content words (all forgotten when full)
WORD_ROWS_KEPT = 4096
#: weight of the answer-type fit, and of the semantic similarity (with embeddings)
ANSWER_WEIGHT, SEMANTIC_WEIGHT = 0.3, 0.5
#: name evidence at which the answer-type fit counts fully (less evidence, less of it)
ANSWER_BASIS = 0.4
#: a property without statements in the KB scores this share of its evidence
UNUSED_FACTOR = 0.6
#: bonus for a property the subject has, as subject / only as value
HAS_BONUS, INVERSE_BONUS = 0.15, 0.05
#: restrict to the subject's properties when the best of them fits the phrase at most this
#: much worse than the best of all properties (``fit``: the evidence before the model)
RESTRICT_MARGIN = 0.1
#: a fuzzy similarity (0–100) below this is no match
FUZZY_CUTOFF = 70
#: a property whose label or alias is the phrase itself scores at least this (raised
#: monotonically: ``EXACT_FLOOR + (1 - EXACT_FLOOR) * model``), whatever the model says:
#: the model learnt from questions, where an exact name is rare and an unused property
#: never right, but a label-level query ("wdt:/mouthpiece/") names its property exactly
EXACT_FLOOR = 0.5
#: properties compared by meaning per phrase at most (the closest by their whole names)
SEMANTIC_CANDIDATES = 60
LABEL, ALIAS = 0, 2
MODEL_PATH = Path(__file__).with_name("property_model.json")

#: answer types asked for by a question word alone (``linking.lexicon.en``)
PLACE_WORDS = _en.PLACE_TYPE_WORDS
AGENT_WORDS = _en.AGENT_TYPE_WORDS
TIME_DATATYPES = frozenset({"time"})
QUANTITY_DATATYPES = frozenset({"quantity"})
#: words after "which"/"what" that ask for a kind rather than name it ("what kind of")
KIND_WORDS = frozenset({"kind", "sort", "type", "types", "kinds", "sorts"})
_WH = re.compile(r"\b(which|what|whose|who|whom|where|when|how)\b")


#: words that never carry a relation (``linking.lexicon.en.FUNCTION_WORDS``)
FUNCTION_WORDS = _en.FUNCTION_WORDS


#: words that shape a relation but never name one (``linking.lexicon.en``)
PREPOSITIONS = _en.PREPOSITIONS


#: the words of a normalized text without function words, numbers and one-letter words
content_words = _en.relation_content_words


def content_forms(norm: str) -> list[str]:
    """The compared forms (``morphology.word_form``) of a normalized text's content
    words."""
    return [word_form(w) for w in content_words(norm)]


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


#: what a question word asks for, as a kind of value (``asked_kind``)
TIME_WORDS = frozenset({"year", "date", "time", "day", "century", "decade", "month"})
#: datatypes (``PropertyNames.datatype``, Wikibase's property types in lower case) whose
#: values are literals that answer neither "where" nor "who"
TEXT_DATATYPES = frozenset({"string", "external-id", "monolingualtext", "url",
                            "commonsmedia", "math", "musical-notation", "tabular-data"})
#: a property whose values cannot be of the asked kind keeps this share of its score
CLASH_FACTOR = 0.3


def asked_kind(asked: set[str], wh: str) -> str | None:
    """The kind of value a question asks for (``answer_words``' result): "time" (when,
    what year), "quantity" (how many/much), "place" (where), "agent" (who) or None
    (what/which anything)."""
    if wh == "when" or asked & TIME_WORDS:
        return "time"
    if wh == "how":
        return "quantity" if asked else None
    return {"where": "place", "who": "agent", "whom": "agent"}.get(wh)


def value_kind(p: PropertyNames) -> str | None:
    """The kind of the property's values as the KB records them (its datatype, else the
    share of its values that are entities): "time", "quantity", "text" (strings,
    identifiers, links), "entity" or None (not known)."""
    datatype = (p.datatype or "").lower().replace("_", "-")
    if datatype in TIME_DATATYPES:
        return "time"
    if datatype in QUANTITY_DATATYPES:
        return "quantity"
    if datatype in TEXT_DATATYPES:
        return "text"
    if datatype.startswith("wikibase-") or p.entity_share >= 0.5:
        return "entity"
    return None


def kind_clash(asked: str | None, kind: str | None) -> bool:
    """Whether the property's values cannot be what the question asks for: a place or a
    person ("where", "who") is never a date, a quantity or a string. The other way round
    is left alone: "when did … receive the award" is an item property with a date
    qualifier, "how many children" may count a property's items; unknown kinds never
    clash."""
    return asked in ("place", "agent") and kind in ("time", "quantity", "text")


#: the model's inputs without and with an embedder (see the module docstring)
LEXICAL_FEATURES = ("exact", "fuzzy", "cover", "cover_names", "best_name", "name", "lex_gap",
                    "answer", "answer_x", "prior", "unused", "heuristic", "direction")
SEMANTIC_FEATURES = (*LEXICAL_FEATURES, "sem_doc", "sem_name", "sem_desc", "sem_q", "soft",
                     "sem_gap", "soft_gap", "sem_name_gap", "sem_q_gap", "sem_frame",
                     "sem_frame_gap")


_OF_WH = re.compile(r"(?:^|\b(\w+) )of (?:what|which|whom|who|whose)\b")
_WH_HAS = re.compile(r"^(?:\w+ ){0,3}?(?:what|which|who)\b(?! (?:\w+ )*?(?:does|do|did)\b)"
                     r"(?: \w+){0,3}? (?:has|have|had)\b")
_WHAT_N_DOES_HAVE = re.compile(r"\b(?:what|which) (?:\w+ ){1,2}(?:does|do|did) (?:\w+ )*?"
                               r"(?:have|has|had|include|contain)\b")


def direction_cue(norm: str) -> int:
    """Which way a normalized phrase asks about a "<noun> of" relation: +1 when the
    subject is the noun and the answer the whole ("is the capital of what?", "Of which
    region is … the seat?", "Which country has … as its capital?"), -1 when the answer is
    the noun ("What parts does … have?"), 0 when the phrase does not say. "of" counts only
    after a noun ("made up of what" is a verb's)."""
    for m in _OF_WH.finditer(norm):
        before = m.group(1)
        if before is None or _is_noun(before):
            return 1
    if _WHAT_N_DOES_HAVE.search(norm):
        return -1
    if _WH_HAS.search(norm):
        return 1
    return 0


def _is_noun(word: str) -> bool:
    if word in FUNCTION_WORDS or word in PREPOSITIONS or word.isdigit():
        return False
    return "NOUN" in readings(word)


def inverse_pairs(labels: dict[str, str]) -> dict[str, int]:
    """pid → +1 for a property whose label is "<noun> of" and that has a counterpart
    labelled "<noun>" or "has <noun>" (which gets -1): the direction ``direction_cue``
    tells apart. ``labels``: pid → English label."""
    by_label: dict[str, list[str]] = {}
    for pid, label in labels.items():
        by_label.setdefault(normalize(label), []).append(pid)
    out: dict[str, int] = {}
    for pid, label in labels.items():
        norm = normalize(label)
        if not norm.endswith(" of"):
            continue
        base = norm[:-3]
        others = by_label.get(base, []) + by_label.get("has " + base, [])
        if others:
            out[pid] = 1
            for other in others:
                out.setdefault(other, -1)
    return out


@functools.lru_cache(maxsize=1)
def default_models() -> dict[str, Calibration]:
    """The shipped models ("lexical", "semantic"); before they are fitted, a logistic
    curve on the hand-weighted evidence (``heuristic``)."""
    if MODEL_PATH.exists():
        d = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
        return {k: Calibration(tuple(v["features"]), tuple(v["mean"]), tuple(v["scale"]),
                               tuple(v["coef"]), float(v["intercept"]), v.get("fitted_on", ""))
                for k, v in d.items()}
    plain = Calibration(("heuristic",), (0.0,), (1.0,), (4.0,), -2.0, "unfitted")
    return {"lexical": plain, "semantic": plain}


def _semantic_texts(props: dict[str, PropertyNames], pids: list[str]
                    ) -> tuple[list[str], dict[str, Any], dict[str, str]]:
    """The texts to embed for the properties ``pids`` (``PropertyLinker._semantic_index``)
    and where each property's are among them: pid → (whole description, [names], its
    description or -1, its content words, [names as questions], [question forms]); and
    every content word of the names → its compared form (``word_form``), in the order
    first met."""
    texts: list[str] = []
    where: dict[str, Any] = {}

    def add(text: str) -> int:
        texts.append(text)
        return len(texts) - 1

    word_forms: dict[str, str] = {}
    for pid in pids:
        p = props[pid]
        names = [p.label("en"), *p.aliases.get("en", ())]
        description = p.description("en") or ""
        own_words = sorted({w for n in names for w in content_words(normalize(n))})
        for w in own_words:
            if w not in word_forms:
                word_forms[w] = word_form(w)
        where[pid] = (add(_describe(p)), [add(n) for n in names],
                      add(description) if description else -1, own_words,
                      [add(_as_question(n)) for n in names],
                      [add(f) for n in names for f in question_forms(n)])
    return texts, where, word_forms


def _semantic_table(pids: list[str], where: dict[str, Any], vecs: Any, base: int,
                    word_list: list[str], word_forms: dict[str, str]) -> dict[str, Any]:
    """The semantic index of ``PropertyLinker._semantic_index``: the embeddings ``vecs``
    (the texts of ``_semantic_texts``, then from row ``base`` the sorted ``word_list``)
    and, per property in ``pids`` order, the rows of its texts and words."""
    word_index = {w: base + i for i, w in enumerate(word_list)}
    return {
        "pids": pids, "vecs": vecs,
        # each property's whole-description row, contiguous: compared with every phrase
        "doc_vecs": np.ascontiguousarray(vecs[[where[p][0] for p in pids]]),
        "names": [where[p][1] for p in pids],
        "desc": [where[p][2] for p in pids],
        "questions": [where[p][4] for p in pids],
        "frames": [where[p][5] for p in pids],
        "words": [[word_index[w] for w in where[p][3]] for p in pids],
        "word_rows": vecs[base:] if word_list else np.zeros((0, vecs.shape[1])),
        "word_forms": [word_forms[w] for w in word_list],
    }


class _Evidence:
    """The name evidence ``PropertyLinker.evidence`` gathers for one phrase: each
    property's raw features, and (how, name, language) of its best name match."""

    __slots__ = ("feats", "matched")

    def __init__(self) -> None:
        self.feats: dict[str, dict[str, float]] = {}
        self.matched: dict[str, tuple[str, str, str]] = {}

    def row(self, pid: str) -> dict[str, float]:
        """The features of ``pid``, made empty on first use."""
        r = self.feats.get(pid)
        if r is None:
            r = self.feats[pid] = {}
        return r

    def offer(self, pid: str, key: str, score: float, how: str, name: str,
              tlang: str) -> None:
        """Keep ``score`` as feature ``key`` of ``pid`` if it beats the one there, and as
        its ``name`` score, with the match that made it, if it beats its best so far."""
        r = self.row(pid)
        if score > r.get(key, 0.0):
            r[key] = score
        if score > r.get("name", 0.0):
            r["name"] = score
            self.matched[pid] = (how, name, tlang)


class PropertyLinker:
    """Links relation phrases to the properties one KB defines or uses (its
    ``kb.linking.LinkingKB``).

    ``embedder``: an ``linking.embeddings.Embedder``; "auto" uses the shared
    all-MiniLM-L6-v2 when the ``embeddings`` extra is installed, loaded on first need;
    None (the default) never embeds. ``models``: {"lexical": …, "semantic": …} to replace
    the shipped ones (``linking.calibration.Calibration`` objects)."""

    def __init__(self, source: LinkingKB, *, embedder: Any = None,
                 models: dict[str, Calibration] | None = None):
        self.source = source
        self._embedder = embedder
        self.models = models or default_models()
        self._sem: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._props: dict[str, PropertyNames] | None = None
        self._names: list[tuple[str, str, str, int]] = []     # (norm, pid, lang, kind)
        self._name_norms: list[str] = []
        self._name_sorted: list[str] = []
        self._exact: dict[str, list[tuple[str, str, int]]] = {}
        self._vocab: dict[str, set[str]] = {}                # pid → name word forms
        self._pid_names: dict[str, list[str]] = {}           # pid → normalized names
        self._pid_forms: dict[str, list[set[str]]] = {}      # pid → each name's forms
        self._desc: dict[str, set[str]] = {}                 # pid → description word forms
        self._by_word: dict[str, set[str]] = {}              # word form → pids (names+desc)
        self._idf: dict[str, float] = {}
        self._answer: dict[str, dict[str, float]] = {}       # pid → answer word → weight
        self._kinds: dict[str, str | None] = {}              # pid → ``value_kind``
        self._pairs: dict[str, int] = {}                     # pid → ``inverse_pairs`` role
        self._cue_words: dict[str, frozenset[str]] = {}
        self._max_usage = 0.0
        self._any_usage = False
        self._all_forms: list[str] = []
        #: ``_word_rows_for`` by a phrase's content words
        self._word_rows: dict[tuple[str, ...], list[tuple[str, dict[str, float], float, str]]] = {}
        self._names_in: dict[str, dict[str, str]] = {}       # lang → ``names_in(lang)``

    @property
    def embedder(self) -> Any:
        """The embedder in use (None without one)."""
        if isinstance(self._embedder, str):
            from linking.embeddings import shared_embedder
            self._embedder = shared_embedder()
        return self._embedder

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
                        forms = set(content_forms(norm))
                        self._pid_names.setdefault(pid, []).append(norm)
                        self._pid_forms.setdefault(pid, []).append(forms)
                        self._names.append((norm, pid, lang, kind))
                        self._exact.setdefault(norm, []).append((pid, lang, kind))
                        vocab |= forms
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
            self._any_usage = any(p.usage for p in props.values())
            self._name_norms = [n for n, *_ in self._names]
            self._name_sorted = [" ".join(sorted(n.split())) for n in self._name_norms]
            self._answer = self._answer_profiles(props)
            self._kinds = {pid: value_kind(p) for pid, p in props.items()}
            self._pairs = inverse_pairs({pid: p.label("en") for pid, p in props.items()
                                         if p.labels})
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

    def _semantic_index(self) -> dict[str, Any] | None:
        """Embeddings of the names of the properties compared by meaning (once per KB,
        stored in the user cache): whole descriptions, each label and alias, each
        description, and each word of the names."""
        if self._sem is not None or self.embedder is None:
            return self._sem
        props = self._load()
        with self._lock:
            if self._sem is not None:
                return self._sem
            pids = sorted(p for p, prop in props.items() if prop.labels and (
                prop.usage or not self._any_usage))
            texts, where, word_forms = _semantic_texts(props, pids)
            word_list = sorted(word_forms)
            base = len(texts)
            texts.extend(word_list)
            vecs = self.embedder.encode_stored(texts) if texts else np.zeros((0, 384))
            self._sem = _semantic_table(pids, where, vecs, base, word_list, word_forms)
            return self._sem

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
            form = word_form(w)
            if w in STOPWORDS and form == w:
                continue
            pids = self._cue_words.get(form)
            if not pids:
                continue
            weight = 1.0 / math.sqrt(len(pids))
            for pid in pids:
                if weight > out.get(pid, 0.0):
                    out[pid] = weight
        return out

    # -- evidence ---------------------------------------------------------------------------
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

    def evidence(self, phrase: str, *, lang: str = "en"
                 ) -> tuple[dict[str, dict[str, float]], dict[str, tuple[str, str, str]]]:
        """For every property with any evidence for ``phrase``: its raw features (the
        model's inputs), and (how, name, language) of its best name match."""
        props = self._load()
        norm = normalize(phrase)
        found = _Evidence()
        if not norm:
            return found.feats, found.matched
        self._name_evidence(norm, lang, found)
        self._word_evidence(norm, lang, found)
        feats = found.feats
        for r in feats.values():
            r.pop("fuzzy_score", None)
            r.pop("words", None)
        sem = self._semantic(norm, phrase)
        for pid, values in sem.items():
            found.row(pid).update(values)
        self._answer_features(norm, feats, bool(sem), props)
        return feats, found.matched

    def _name_evidence(self, norm: str, lang: str, found: _Evidence) -> None:
        """The properties a name of which is ``norm`` (``exact``) or is spelt like it, as
        written or with its words sorted (``fuzzy``)."""
        for pid, tlang, kind in self._exact.get(norm, ()):
            base = EXACT_LABEL if kind == LABEL else EXACT_ALIAS
            found.offer(pid, "exact",
                        base * (1.0 if tlang in (lang, "en", "") else OTHER_LANGUAGE),
                        "exact", norm, tlang)
        for query, choices in ((norm, self._name_norms),
                               (" ".join(sorted(norm.split())), self._name_sorted)):
            for _, sim, i in process.extract(query, choices, scorer=fuzz.ratio,
                                             score_cutoff=FUZZY_CUTOFF, limit=60):
                name, pid, tlang, _kind = self._names[i]
                found.row(pid)["fuzzy"] = max(found.row(pid).get("fuzzy", 0.0), sim / 100.0)
                found.offer(pid, "fuzzy_score", FUZZY_MAX * sim / 100.0, "fuzzy", name, tlang)

    def _word_evidence(self, norm: str, lang: str, found: _Evidence) -> None:
        """The properties whose names share content words with ``norm``: the share of the
        words (idf-weighted) they cover (``cover``; ``cover_names`` by whole words), and
        how well their best name fits (``best_name``). Prepositions alone are no
        evidence."""
        words = list(dict.fromkeys(content_forms(norm)))
        key = tuple(words)
        rows = self._word_rows.get(key)
        if rows is None:
            rows = self._word_rows_for(words)
            with self._lock:
                if len(self._word_rows) >= WORD_ROWS_KEPT:
                    self._word_rows.clear()
                self._word_rows[key] = rows
        for pid, values, score, name in rows:
            found.row(pid).update(values)
            found.offer(pid, "words", score, "words", name, lang)

    def _word_rows_for(self, words: list[str]
                       ) -> list[tuple[str, dict[str, float], float, str]]:
        """``_word_evidence`` for the content ``words`` of a phrase, as (pid, features, words
        score, best name) in the order offered; the same for every phrase with these words
        ("born", "born in"), so kept."""
        weights = {w: self._idf.get(w, max(self._idf.values(), default=1.0)) for w in words}
        total = sum(weights.values())
        if not total:
            return []
        out = []
        cover: dict[str, float] = {}
        names_cover: dict[str, float] = {}
        hits: dict[str, set[str]] = {}
        for w in words:
            for pid, hit in self._word_matches(w).items():
                cover[pid] = cover.get(pid, 0.0) + hit * weights[w]
                if hit == 1.0:
                    names_cover[pid] = names_cover.get(pid, 0.0) + weights[w]
                hits.setdefault(pid, set()).add(w)
        for pid, c in cover.items():
            if hits[pid] <= PREPOSITIONS:
                continue                  # "in" alone names no relation
            best, name = self._best_name(pid, words, weights)
            values = {"cover": c / total, "cover_names": names_cover.get(pid, 0.0) / total,
                      "best_name": best}
            out.append((pid, values,
                        WORDS_MAX * (COVER_SHARE * c / total + (1 - COVER_SHARE) * best), name))
        return out

    def _answer_features(self, norm: str, feats: dict[str, dict[str, float]], sem: bool,
                         props: dict[str, PropertyNames]) -> None:
        """Add to each property's features those that weigh its name evidence against the
        question: the answer type's fit and clash, prior, usage, the gaps to the best
        property (with ``sem``, also the semantic ones), the direction cue, and the
        ``heuristic`` and ``words_fit`` scores."""
        asked, wh = answer_words(norm)
        wanted = asked_kind(asked, wh)
        cue = direction_cue(norm) if self._pairs else 0
        best_name = max((r.get("name", 0.0) for r in feats.values()), default=0.0)
        best_sem = max((r.get("sem_doc", 0.0) for r in feats.values()), default=0.0)
        best_soft = max((r.get("soft", 0.0) for r in feats.values()), default=0.0)
        best_sname = max((r.get("sem_name", 0.0) for r in feats.values()), default=0.0)
        best_q = max((r.get("sem_q", 0.0) for r in feats.values()), default=0.0)
        best_frame = max((r.get("sem_frame", 0.0) for r in feats.values()), default=0.0)
        # meaning counts as evidence for the answer type only when the phrase has words of
        # its own: "Who?" is near many names, and points at none
        meant = SEMANTIC_WEIGHT if content_words(norm) else 0.0
        for pid, r in feats.items():
            name_score = r.get("name", 0.0)
            fit = self._answer_fit(pid, asked) if asked else 0.0
            evidence = name_score + meant * r.get("sem_doc", 0.0)
            r["answer"] = fit
            r["clash"] = 1.0 if kind_clash(wanted, self._kinds.get(pid)) else 0.0
            r["answer_x"] = fit * min(1.0, evidence / ANSWER_BASIS)
            r["prior"] = self.prior(pid)
            r["unused"] = 1.0 if self._any_usage and not props[pid].usage else 0.0
            r["lex_gap"] = best_name - name_score
            r["direction"] = float(cue * self._pairs.get(pid, 0))
            heuristic = evidence + ANSWER_WEIGHT * r["answer_x"]
            # the same from the words alone: what ``fit`` reports, so that a property's
            # credit in a chain does not change with the embedder (meaning raises every
            # property's evidence, and a one-hop chain then outscored the two hops of
            # "Where was the spouse of … born?")
            words_only = name_score + ANSWER_WEIGHT * fit * min(1.0, name_score / ANSWER_BASIS)
            if not props[pid].usage:
                heuristic *= UNUSED_FACTOR
                words_only *= UNUSED_FACTOR
            r["heuristic"] = heuristic + PRIOR_WEIGHT * r["prior"]
            r["words_fit"] = words_only + PRIOR_WEIGHT * r["prior"]    # not a model input
            if sem:
                r["sem_gap"] = best_sem - r.get("sem_doc", 0.0)
                r["soft_gap"] = best_soft - r.get("soft", 0.0)
                r["sem_name_gap"] = best_sname - r.get("sem_name", 0.0)
                r["sem_q_gap"] = best_q - r.get("sem_q", 0.0)
                r["sem_frame_gap"] = best_frame - r.get("sem_frame", 0.0)

    def _semantic(self, norm: str, phrase: str) -> dict[str, dict[str, float]]:
        """pid → sem_doc, sem_name, sem_desc, soft for the ``SEMANTIC_CANDIDATES``
        properties closest to ``phrase`` in meaning (none without an embedder)."""
        index = self._semantic_index()
        if not index or not index["pids"]:
            return {}
        vecs = index["vecs"]
        words = [w for w in dict.fromkeys(content_words(norm)) if w != phrase]
        encoded = self.embedder.encode([phrase, *words])
        query = encoded[0]
        doc_sims = index["doc_vecs"] @ query
        order = np.argsort(-doc_sims)[:SEMANTIC_CANDIDATES]
        wvecs = encoded[1:] if words else None
        wsims = wvecs @ index["word_rows"].T if wvecs is not None and len(
            index["word_rows"]) else None
        weights = np.array([self._idf.get(word_form(w), max(self._idf.values(), default=1.0))
                            for w in words]) if words else None
        out = {}
        for k in order:
            pid = index["pids"][k]
            names = index["names"][k]
            desc = index["desc"][k]
            values = {"sem_doc": max(0.0, float(doc_sims[k])),
                      "sem_name": max(0.0, float((vecs[names] @ query).max())) if names
                      else 0.0,
                      "sem_desc": max(0.0, float(vecs[desc] @ query)) if desc >= 0 else 0.0,
                      "sem_q": max(0.0, float((vecs[index["questions"][k]] @ query).max()))
                      if names else 0.0,
                      "sem_frame": max(0.0, float((vecs[index["frames"][k]] @ query).max()))
                      if names else 0.0}
            own = index["words"][k]
            if wsims is not None and weights is not None and own:
                base = len(vecs) - len(index["word_rows"])
                best = wsims[:, [i - base for i in own]].max(axis=1).clip(0.0, 1.0)
                values["soft"] = float((best * weights).sum() / weights.sum())
            else:
                values["soft"] = 0.0
            out[pid] = values
        return out

    def prepare(self, phrases: Iterable[str]) -> None:
        """A hint that ``phrases`` will be linked: their meanings (and their content
        words') are computed at once, which costs about what one phrase alone does.
        Changes no answer."""
        if self._semantic_index() is None or self.embedder is None:
            return
        texts: list[str] = []
        for phrase in phrases:
            norm = normalize(phrase)
            if norm:
                texts += [phrase, *(w for w in content_words(norm) if w != phrase)]
        if texts:
            self.embedder.encode(list(dict.fromkeys(texts)))

    # -- linking ----------------------------------------------------------------------------
    def link(self, phrase: str, *, subject: str | None = None, value: str | None = None,
             lang: str = "en", limit: int = 5) -> list[Candidate]:
        """Properties ``phrase`` may name, best first (at most ``limit``). With ``subject``
        (and ``value``), only properties that link them, when any fits; with only
        ``value``, only properties it is the value of."""
        props = self._load()
        if not normalize(phrase) or limit < 1:
            return []
        feats, matched = self.evidence(phrase, lang=lang)
        semantic = bool(feats) and any("sem_doc" in r for r in feats.values())
        totals = self._model_totals(feats, semantic)
        has: dict[str, str] = {}
        restricted = 0.0
        anchor = subject if subject is not None else value
        if anchor is not None:
            has = self._anchor_properties(anchor, subject, value)
            # by each property's own fit (the model's scores compete: for a vague phrase
            # such as "place" every one of them is low)
            fits = {pid: feats[pid]["heuristic"] for pid in totals}
            best_all = max(fits.values(), default=0.0)
            best_has = max((f for pid, f in fits.items() if pid in has), default=0.0)
            if best_has and best_has >= best_all - RESTRICT_MARGIN:
                restricted = 1.0
                totals = {pid: s for pid, s in totals.items() if pid in has}

        out = []
        for pid, total in totals.items():
            r = feats[pid]
            how, name, tlang = matched.get(pid, ("answer", "", lang))
            name_score = r.get("name", 0.0)
            if r.get("sem_doc", 0.0) * SEMANTIC_WEIGHT > name_score:
                how = "semantic"
            out_feats = {"name": name_score, "prior": PRIOR_WEIGHT * r["prior"],
                         "answer": ANSWER_WEIGHT * r["answer_x"], "model": total,
                         "fit": r["words_fit"]}
            if semantic:
                out_feats["semantic"] = SEMANTIC_WEIGHT * r.get("sem_doc", 0.0)
            if anchor is not None:
                out_feats["restricted"] = restricted
                out_feats["subject_has"] = (HAS_BONUS if has.get(pid) == "subject" else
                                            INVERSE_BONUS if pid in has else 0.0)
                out_feats["inverse"] = 1.0 if has.get(pid) == "inverse" else 0.0
                total += out_feats["subject_has"]
            prop = props[pid]
            out.append(Candidate(pid, prop.label(lang), total, self.prior(pid), name, how, tlang,
                                 prop.description(lang), out_feats))
        out.sort(key=lambda c: (-c.score, c.id))
        return out[:limit]

    def _model_totals(self, feats: dict[str, dict[str, float]], semantic: bool
                      ) -> dict[str, float]:
        """Each property's probability by the model (the semantic one when meaning was
        compared), cut for an answer-type clash and raised to ``EXACT_FLOOR`` or more for
        an exact name."""
        model = self.models["semantic" if semantic else "lexical"]
        totals = {pid: model.probability(r) for pid, r in feats.items()}
        for pid, r in feats.items():
            if r.get("clash"):
                totals[pid] *= CLASH_FACTOR
            if r.get("exact", 0.0) > 0.0:
                totals[pid] = EXACT_FLOOR + (1.0 - EXACT_FLOOR) * totals[pid]
        return totals

    def _anchor_properties(self, anchor: str, subject: str | None, value: str | None
                           ) -> dict[str, str]:
        """The properties that may link ``subject`` (and ``value``): property → "subject"
        (the subject has it) or "inverse" (the subject is its value). With only ``value``
        (the ``anchor``), the properties it is the value of."""
        out_props, in_props = self.roles([anchor]).get(anchor, (frozenset(), frozenset()))
        if subject is None:              # only the value is known: it is the value of…
            out_props, in_props = in_props, frozenset()
        elif value is not None:
            out_props = out_props & self._linking(subject, value)
        has = {p: "subject" for p in out_props}
        for p in in_props:
            has.setdefault(p, "inverse")     # the subject is the value: an inverse use
        return has

    def feature_rows(self, phrase: str, *, lang: str = "en"
                     ) -> list[tuple[str, dict[str, float]]]:
        """(PID, the model's inputs) of every property with evidence for ``phrase`` — what
        ``bench/fit_properties.py`` fits on."""
        return list(self.evidence(phrase, lang=lang)[0].items())

    def _best_name(self, pid: str, words: list[str],
                   weights: dict[str, float]) -> tuple[float, str]:
        """The one name of the property closest to the phrase's words (idf-weighted
        Jaccard overlap, derived forms counting), and that name."""
        best, best_name = 0.0, ""
        phrase = set(words)
        total = sum(weights.values())
        for norm, forms in zip(self._pid_names.get(pid, ()), self._pid_forms.get(pid, ())):
            if not forms:
                continue
            shared = sum(weights[w] for w in phrase if any(_related(w, f) for f in forms))
            if not shared:
                continue
            extra = sum(self._idf.get(f, 1.0) for f in forms
                        if not any(_related(w, f) for w in phrase))
            score = shared / (total + extra)
            if score > best:
                best, best_name = score, norm
        return best, best_name

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

    def label(self, pid: str, lang: str = "en") -> str | None:
        """The label of ``pid`` in ``lang`` (English, else any, as fallback); None for a
        property the KB does not name."""
        p = self._load().get(pid)
        return p.label(lang) if p is not None else None

    def names(self, pid: str, lang: str = "en") -> list[str]:
        """The label and the aliases of ``pid`` in ``lang``; [] for a property the KB
        does not name."""
        p = self._load().get(pid)
        if p is None:
            return []
        label = p.labels.get(lang)
        return [*([label] if label else []), *p.aliases.get(lang, ())]

    def names_in(self, lang: str) -> dict[str, str]:
        """The normalized labels and aliases the KB gives its properties in ``lang`` (not
        English), each with the property's English label: how a question in ``lang``
        names a relation in the words the English analysis reads. {} when the KB names
        its properties in English only."""
        with self._lock:
            cached = self._names_in.get(lang)
        if cached is not None:
            return cached
        out: dict[str, str] = {}
        for p in self._load().values():
            english = p.labels.get("en") or p.labels.get("")
            if not english or lang == "en":
                continue
            names = [p.labels[lang]] if lang in p.labels else []
            for text in [*names, *p.aliases.get(lang, ())]:
                norm = normalize(text)
                if norm:
                    out.setdefault(norm, english)
        with self._lock:
            self._names_in[lang] = out
        return out


def _describe(p: PropertyNames) -> str:
    """What the embedder compares a phrase with: label, aliases, description."""
    aliases = ", ".join(p.aliases.get("en", ())[:8])
    text = p.label("en") + (f" ({aliases})" if aliases else "")
    description = p.description("en")
    return f"{text}: {description}" if description else text


def _as_question(name: str) -> str:
    """A property name in a question's frame, with the subject left out as in the phrases
    linked ("place of death" → "What is the place of death of?"): a question is then
    compared with a question."""
    return f"What is the {name} of?"


#: words a property name may end in that take its value as their object
#: (``linking.lexicon.en``)
NAME_PREPOSITIONS = _en.NAME_PREPOSITIONS


def question_forms(name: str) -> list[str]:
    """Questions a property name can be asked in, the subject left out as in the phrases
    linked, chosen by the name's shape: a predicate ending in a preposition ("part of" →
    "is part of what?", "What is part of?"), a "has …" name ("has part" → "What does has
    part?"), else a noun ("headquarters location" → "What is the headquarters location?",
    "Which headquarters location?"); always "What is the <name> of?"."""
    words = name.split()
    out = [_as_question(name)]
    if not words:
        return out
    if words[-1].lower() in NAME_PREPOSITIONS:
        out += [f"is {name} what?", f"What is {name}?"]
    elif words[0].lower() in ("has", "have"):
        out.append(f"What does {name}?")
    else:
        out += [f"What is the {name}?", f"Which {name}?"]
    return out
