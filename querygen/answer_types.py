"""What kind of answer a question asks for, and whether a query graph's answers are of it.

``expected(analysis)`` reads the question's frame (``querygen.analysis``) into an
``Expected``: the kinds that fit (``who`` → an agent: a person or an organization;
``where`` → a place, or an organization that is somewhere; ``when`` → a time; ``how
many`` → a quantity or a count), the kinds that cannot answer (``clash``: a year for a
who-question, a person for a when-question), and the class noun of "which N" /
"what N" ("which country", "what river") that the answers should be members of.

``TypeOracle(kb, linker)`` checks answers against the KB, never against a list of
Wikidata classes:

- a literal's kind is its datatype (a time, a quantity, a text);
- an entity's kind comes from the labels of its types (instance of / rdf:type, and their
  superclasses where the KB has them: "city" → a place, "human" → an agent); where the KB
  gives it no type, from the properties it is the value or subject of, each property's
  range and domain kinds being what the KB's typed values and subjects of it mostly are
  (Boston, untyped in the slice, is the value of "place of birth", whose typed values are
  cities: a place);
- "which N": an answer is an N when a label of one of its types (or their superclasses)
  is N (singular or plural, or close in meaning with an embedder), else when the property
  that reached it is named N ("country") or its typed values mostly are Ns.

``check(expected, values, via)`` returns a ``TypeCheck``: a score in [-1, 1] (the share of
answers of a fitting kind minus the share of a clashing one), the class agreement for a
"which N" question (or None), and the kinds seen. Unknown kinds count neither way: a
partial KB leaves many answers untyped, and that is no evidence against them.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kb.base import KnowledgeBase
from kb.contracts import Linker
from kb.types import Value
from querygen.analysis import Analysis, known_word, singulars
from querygen.fit import SUBCLASS_PROPERTY
from querygen.mentions import cognate
from querygen.lexicon import (CLASS_SYNONYMS, CONTAINMENT_WORDS, GROUP_NOUNS, PERSON_NOUNS,
                              PLACE_NOUNS)
from store.errors import KGGroundError
from store.normalize import normalize

#: coarse kinds of answers
AGENT, PLACE, TIME, QUANTITY, TEXT, THING = "agent", "place", "time", "quantity", "text", "thing"
LITERAL_KINDS = frozenset({TIME, QUANTITY, TEXT})

#: words of class labels that make an entity a place / an agent (English class labels;
#: a KB's types are labelled in English here, others fall back to the property profiles)
PLACE_CLASS_WORDS = frozenset("""
place location city town village hamlet country state nation region province county
district municipality settlement capital island continent territory area commune borough
prefecture metropolis suburb neighbourhood neighborhood canton department oblast raion
republic kingdom empire principality emirate sultanate archipelago peninsula mountain hill
river lake sea ocean bay valley desert forest park street square building
""".split())
AGENT_CLASS_WORDS = frozenset("""
human person people man woman organization organisation company business enterprise
corporation firm party band group team club university college school institution
agency label publisher network broadcaster developer manufacturer painter artist writer
author musician singer actor actress politician scientist athlete player character
association society ensemble orchestra choir duo trio family dynasty clan tribe
""".split())
#: words of class labels that make an entity an abstract thing even when a superclass says
#: otherwise: a profession is a subclass of "scientist" but answers no "who" or "where"
THING_CLASS_WORDS = frozenset("""
occupation profession job position genre discipline language award prize medal decoration
religion sport disease currency unit colour color
""".split())

#: how large a place a word names: the level of a "which N" noun against the levels of an
#: answer's types tells a city from a country when the KB's class tree does not
PLACE_LEVELS = {
    **dict.fromkeys("continent subcontinent".split(), 5),
    **dict.fromkeys("country nation empire kingdom republic principality emirate sultanate "
                    "superpower".split(), 4),
    **dict.fromkeys("state province region territory prefecture canton oblast department "
                    "governorate voivodeship land".split(), 3),
    **dict.fromkeys("county district borough raion shire arrondissement".split(), 2),
    **dict.fromkeys("city town village capital commune municipality settlement hamlet "
                    "metropolis suburb neighbourhood neighborhood megacity".split(), 1),
}
#: labels whose head word misleads: a sovereign or federal state is a country
COUNTRY_STATES = frozenset({"sovereign state", "federal state", "island country",
                            "unitary state", "member state", "nation state"})
#: what a country is typed as by its form of state ("Greece: republic"): a country, for
#: "the country that owns X" (``TypeOracle.is_a``), though not a level of place
COUNTRY_FORMS = COUNTRY_STATES | frozenset({
    "republic", "federal republic", "parliamentary republic", "presidential republic",
    "kingdom", "monarchy", "constitutional monarchy", "absolute monarchy", "empire",
    "principality", "grand duchy", "sultanate", "emirate", "commonwealth realm"})
COUNTRY_NOUNS = frozenset({"country", "countries", "nation", "nations"})

#: statements sampled per property to learn what kind its values and subjects are
PROFILE_SAMPLE = 120
#: superclass levels followed from an entity's own types
SUPERCLASS_DEPTH = 2
#: answers whose roles (``TypeOracle.role_agreement``) are read, at most
ROLE_SAMPLE = 10
#: an embedder's cosine from which a type label means the class noun ("nation" ~ "country"),
#: and the labels compared at most per check
NOUN_SIMILARITY, SIMILAR_LABELS = 0.72, 24


@dataclass(frozen=True)
class Expected:
    """What a question asks for (see the module docstring)."""
    wh: str
    kinds: frozenset[str] = frozenset()
    clash: frozenset[str] = frozenset()
    noun: str | None = None
    #: kinds that rarely answer (a place for "who"): half a clash
    unlikely: frozenset[str] = frozenset()

    def as_dict(self) -> dict[str, Any]:
        return {"wh": self.wh, "kinds": sorted(self.kinds), "clash": sorted(self.clash),
                "unlikely": sorted(self.unlikely), "noun": self.noun}


@dataclass(frozen=True)
class TypeCheck:
    """How a graph's answers fit the question's ``Expected`` (see the module docstring)."""
    score: float = 0.0
    noun: float | None = None
    kinds: tuple[str, ...] = ()
    #: why, in words (for the answer's explanation)
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"score": round(self.score, 4),
                "noun": None if self.noun is None else round(self.noun, 4),
                "kinds": list(self.kinds), "note": self.note}


_GENERIC_NOUNS = frozenset("thing things one ones kind sort type entity item".split())


def expected(a: Analysis) -> Expected:
    """The answer ``a`` asks for (see the module docstring)."""
    noun = a.type_noun
    noun_words = (noun or "").split()
    generic = bool(noun_words) and noun_words[-1] in _GENERIC_NOUNS
    if generic:
        noun = None
    if a.form == "ask":
        return Expected("yes/no")
    if a.form == "count":
        return Expected(a.wh or "how many", frozenset({QUANTITY}),
                        frozenset({TIME, TEXT}), noun)
    wh = a.wh
    if wh in ("who", "whom", "whose"):
        return Expected(wh, frozenset({AGENT}), frozenset(LITERAL_KINDS), noun,
                        frozenset({PLACE, THING}))
    if wh == "where" and a.asks_name_origin:    # a person, a place, a word …
        return Expected(wh, frozenset(), frozenset({TIME, QUANTITY}), noun)
    if wh == "where":           # a place, or an organization that is somewhere
        return Expected(wh, frozenset({PLACE}), frozenset({TIME, QUANTITY, TEXT, THING}),
                        noun)
    if wh == "when":
        return Expected(wh, frozenset({TIME}), frozenset({AGENT, PLACE, QUANTITY, TEXT,
                                                          THING}), noun)
    if wh == "how":             # "How did X die?": a cause or a manner
        return Expected(wh, frozenset(), frozenset({AGENT, PLACE, TIME, QUANTITY}), noun)
    if a.answer_type == "time":
        return Expected(wh, frozenset({TIME}), frozenset({AGENT, PLACE}), noun)
    if a.answer_type == "person":      # "Name the people …", "which actor": as for who
        return Expected(wh, frozenset({AGENT}), frozenset(LITERAL_KINDS), noun,
                        frozenset({PLACE, THING}))
    if a.answer_type == "place":
        return Expected(wh, frozenset({PLACE}), frozenset({TIME, QUANTITY, TEXT}), noun)
    if generic and says_located(a):     # "located in which country-level entity"
        return Expected(wh, frozenset({PLACE}), frozenset({TIME, QUANTITY, TEXT}), None,
                        frozenset({AGENT, THING}))
    if noun:                          # "which river", "what award": an entity of class N
        kind = kind_of_words(noun)
        if kind is not None:
            return Expected(wh, frozenset({kind}), frozenset({TIME, QUANTITY}), noun,
                            frozenset({AGENT, PLACE, THING}) - {kind})
        return Expected(wh, frozenset(), frozenset({TIME, QUANTITY}), noun)
    return Expected(wh)


def says_located(a: Analysis) -> bool:
    """Whether the question word follows a word that says where a thing is ("located in
    which …", "within what …", "lies on which …")."""
    lows = [w.low for w in a.words]
    for i, w in enumerate(lows):
        if w in ("which", "what"):
            before = [x for x in lows[max(0, i - 2):i] if x not in ("in", "on", "at")]
            return bool(before) and before[-1] in CONTAINMENT_WORDS
    return False


def noun_forms(noun: str) -> frozenset[str]:
    """The normalized noun and its singular forms ("countries" → "country"), in British
    and American spelling ("organisation" is an "organization", "theatre" a "theater"),
    and the nouns of the same kind (``CLASS_SYNONYMS``: a "company" is a "business")."""
    n = normalize(noun)
    out = {n}
    last = n.split()[-1] if n.split() else n
    head = n[: len(n) - len(last)]
    for form in {last, *singulars(last)}:
        for word in _spellings(form):
            same = next((group for group in CLASS_SYNONYMS if word in group), {word})
            out.update(head + w for w in same)
    if last in ("people", "persons"):
        out.update({"person", "human"})
    return frozenset(out)


_GLUED = re.compile(r"\t[QP][1-9][0-9]*,?|\t")


def split_label(label: str) -> list[str]:
    """A class label, normalized; a label that glues several together with tabs and IDs
    ("sovereign state\tQ6256,country", as some converted dumps write them) gives each."""
    parts = _GLUED.split(label) if "\t" in label else [label]
    return [n for n in (normalize(p) for p in parts) if n]


#: class nouns of settlements, one family for "the town of X" when X is typed a city
SETTLEMENT_NOUNS = frozenset("city town village municipality commune settlement hamlet "
                             "metropolis megacity".split())

#: class labels of places that are settlements by their role ("capital", "county seat"):
#: a town the question names may be one, but "the capital" names a role, not them all
SETTLEMENT_ROLES = frozenset("capital seat".split())


def place_level(label: str) -> int | None:
    """The level of place a class label names (5 continent … 1 city), by its head word;
    None when it names no place."""
    norm = head_phrase(label)
    if norm in COUNTRY_STATES or norm.endswith(" country"):
        return 4
    words = norm.split()
    if not words:
        return None
    for form in (words[-1], *singulars(words[-1])):
        if form in PLACE_LEVELS:
            return PLACE_LEVELS[form]
    return None


#: head words of places of any of several levels: a "region" may be a county (Norway's,
#: Ireland's first divisions) as well as a state or a province; a "borough" a town
#: (Pennsylvania's) as well as a district (London's)
VAGUE_LEVELS = {"region": frozenset({2, 3}), "borough": frozenset({1, 2})}


#: nouns for a place of any kind or size ("Which place was X named after?")
ANY_PLACE_NOUNS = frozenset("place places location locations spot".split())


def _any_administrative_unit(noun: str) -> bool:
    """Whether ``noun`` names a division of a country of any level ("administrative
    unit", "administrative territorial entity", "territorial division"): places of every
    size from a town to a country are such units."""
    return bool({"administrative", "territorial"} & set(head_phrase(noun).split()))


def place_levels(text: str) -> frozenset[int] | None:
    """The levels of place a class noun or label names (``place_level``, widened for
    ``VAGUE_LEVELS``); None when it names no place."""
    level = place_level(text)
    if level is None:
        return None
    words = head_phrase(text).split()
    for form in (words[-1], *singulars(words[-1])) if words else ():
        if form in VAGUE_LEVELS:
            return VAGUE_LEVELS[form]
    return frozenset({level})


#: which kind a tie of class labels goes to (``TypeOracle._kind_from_labels``)
_KIND_ORDER = {AGENT: 0, PLACE: 1, THING: 2}


def kind_of_words(label: str) -> str | None:
    """The kind a class label names by its words (the last word first: "football club"
    is an agent, "club house" is not), or None. An "area of" something ("area of
    mathematics") is a field, no place."""
    head = head_phrase(label)
    words = head.split()
    if words[-1:] == ["area"] and head != normalize(label):
        words = words[:-1]
    for w in reversed(words):
        for form in (w, *singulars(w)):
            if form in PLACE_CLASS_WORDS:
                return PLACE
            if form in AGENT_CLASS_WORDS:
                return AGENT
            if form in THING_CLASS_WORDS:
                return THING
    return None


def literal_kind(value: Value) -> str | None:
    """The kind of a literal value (None for an entity)."""
    if value.kind in ("entity", "iri"):
        return None
    dt = (value.datatype or "").lower()
    if value.kind == "time" or any(x in dt for x in ("date", "time", "gyear")):
        return TIME
    if value.kind == "quantity" or any(x in dt for x in ("integer", "decimal", "double",
                                                         "float", "int", "quantity")):
        return QUANTITY
    return TEXT


@dataclass
class _PropertyProfile:
    range: Counter = field(default_factory=Counter)
    domain: Counter = field(default_factory=Counter)
    labels: Counter = field(default_factory=Counter)      # value type labels (normalized)


class TypeOracle:
    """Checks answers' kinds and classes against one KB (see the module docstring).
    Thread-safe; what it learns about entities and properties is kept."""

    def __init__(self, kb: KnowledgeBase, linker: Linker):
        self.kb = kb
        self.linker = linker
        self.source = linker.source
        self._lock = threading.Lock()
        self._types: dict[str, frozenset[str]] = {}          # entity → type labels (+ supers)
        self._roles: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
        self._profiles: dict[str, _PropertyProfile] = {}
        self._similar: dict[tuple[str, frozenset[str]], set[str]] = {}
        self._aliases: dict[str, tuple[str, ...]] = {}       # type → its English aliases
        self._supers: dict[str, frozenset[str]] = {}         # role → it and its superclasses

    # -- entities ---------------------------------------------------------------------------
    def type_labels(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """entity → the normalized labels of its types and their superclasses (up to
        SUPERCLASS_DEPTH levels)."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._types]
        if missing:
            self._load_types(missing)
        return {i: self._types.get(i, frozenset()) for i in ids}

    def _load_types(self, missing: list[str]) -> None:
        """Reads the type labels (superclasses' included) and the roles of the entities
        ``missing`` (distinct, not cached yet) from the KB into the caches."""
        profiles = self.source.profiles(missing)
        own = {i: set(profiles[i].types) if i in profiles else set() for i in missing}
        roles = {i: (profiles[i].subject_of, profiles[i].value_of) for i in missing
                 if i in profiles}
        closure = self._superclass_closure(own)
        all_types = sorted({t for ts in closure.values() for t in ts})
        names = self.source.labels(all_types) if all_types else {}
        with self._lock:
            for i in missing:
                self._types[i] = frozenset(
                    lab for t in closure[i]
                    for name in (names.get(t, (t, None))[0], *self._english_aliases(
                        t, names.get(t, (t, None))[0]))
                    for lab in split_label(name))
                self._roles[i] = roles.get(i, (frozenset(), frozenset()))

    def _only_the_person_class(self, forms: frozenset[str], ids: Sequence[str],
                               via: str | None) -> bool:
        """Whether the answers ``ids``, reached through instance of, are only the class of
        people ("human", "person") and the noun asked (``forms``) names no person."""
        if via != "P31" or not ids or forms & PERSON_NOUNS:
            return False
        for class_id in ids:
            try:
                label = self.kb.entity(class_id).label("en")
            except KGGroundError:
                return False
            if normalize(label or "") not in ("human", "person"):
                return False
        return True

    def _english_aliases(self, type_id: str, label: str) -> tuple[str, ...]:
        """The English aliases of a type whose English label is no English word, as
        Wikidata leaves some classes' names untranslated ("Regierungsbezirk": its alias
        "government region" says what it is); () for other types."""
        if any(known_word(w) for w in re.findall(r"[a-z]+", label.lower())):
            return ()
        if type_id not in self._aliases:
            try:
                aliases = self.kb.entity(type_id).aliases.get("en", ())
            except KGGroundError:
                aliases = ()
            self._aliases[type_id] = tuple(
                a for a in aliases if any(known_word(w) for w in re.findall(r"[a-z]+", a.lower())))
        return self._aliases[type_id]

    def _superclass_closure(self, own: dict[str, set[str]]) -> dict[str, set[str]]:
        """entity → its ``own`` types and their superclasses up to SUPERCLASS_DEPTH levels
        up, read from the KB a level at a time."""
        closure = {i: set(ts) for i, ts in own.items()}
        frontier = {t for ts in own.values() for t in ts}
        seen: set[str] = set()
        for _ in range(SUPERCLASS_DEPTH):
            frontier -= seen
            if not frontier:
                break
            seen |= frontier
            sup = self.source.profiles(sorted(frontier))
            parents = {t: set(sup[t].types) if t in sup else set() for t in frontier}
            for types in closure.values():
                for t in list(types):
                    types |= parents.get(t, set())
            frontier = {p for ps in parents.values() for p in ps}
        return closure

    def kinds(self, ids: Sequence[str]) -> dict[str, str | None]:
        """entity → its kind (AGENT, PLACE, THING) or None when the KB does not say."""
        labels = self.type_labels(ids)
        out: dict[str, str | None] = {}
        for i in ids:
            kind = self._kind_from_labels(labels[i])
            if kind is None and labels[i]:
                kind = THING if not self._roles_kind(i) else None
            out[i] = kind or self._roles_kind(i)
        return out

    @staticmethod
    def _kind_from_labels(labels: Iterable[str]) -> str | None:
        """The kind most of ``labels`` name; a tie goes to an agent, then a place (an
        entity the KB types as a human and as a deity is someone). Never the order the
        labels come in: they come from a set."""
        votes = Counter(k for k in (kind_of_words(lab) for lab in labels) if k)
        if not votes:
            return None
        return min(votes, key=lambda k: (-votes[k], _KIND_ORDER.get(k, len(_KIND_ORDER))))

    def _roles_kind(self, entity: str) -> str | None:
        """The kind the properties around ``entity`` say it has (their ranges for those it
        is the value of, their domains for those it is the subject of), or None."""
        subject_of, value_of = self._roles.get(entity, (frozenset(), frozenset()))
        votes: Counter = Counter()
        for pid in value_of:
            kind = self._majority(self.profile(pid).range)
            if kind:
                votes[kind] += 1
        for pid in subject_of:
            kind = self._majority(self.profile(pid).domain)
            if kind:
                votes[kind] += 1
        if not votes:
            return None
        (kind, n), *rest = votes.most_common(2)
        return kind if not rest or n > rest[0][1] else None

    @staticmethod
    def _majority(counts: Counter, share: float = 0.6) -> str | None:
        total = sum(counts.values())
        if total < 3:
            return None
        kind, n = counts.most_common(1)[0]
        return kind if n >= share * total else None

    # -- properties -------------------------------------------------------------------------
    def profile(self, pid: str) -> _PropertyProfile:
        """What kinds the KB's values and subjects of ``pid`` are (sampled once)."""
        found = self._profiles.get(pid)
        if found is not None:
            return found
        prof = _PropertyProfile()
        try:
            sample = self.kb.statements(None, pid, None, limit=PROFILE_SAMPLE)
        except Exception:              # noqa: BLE001 - a property the KB cannot list
            sample = []
        values = [st.value.value for st in sample if st.value.kind in ("entity", "iri")]
        subjects = [st.subject for st in sample]
        for st in sample:
            lk = literal_kind(st.value)
            if lk:
                prof.range[lk] += 1
        typed = self._own_type_labels(list(dict.fromkeys(values + subjects)))
        for v in values:
            kind = self._kind_from_labels(typed.get(v, ()))
            if kind:
                prof.range[kind] += 1
            elif typed.get(v):
                prof.range[THING] += 1
            for lab in typed.get(v, ()):
                prof.labels[lab] += 1
        for s in subjects:
            kind = self._kind_from_labels(typed.get(s, ()))
            if kind:
                prof.domain[kind] += 1
            elif typed.get(s):
                prof.domain[THING] += 1
        with self._lock:
            self._profiles[pid] = prof
        return prof

    def _own_type_labels(self, ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """Labels of the entities' own types (no superclasses: cheap, for profiles)."""
        if not ids:
            return {}
        profiles = self.source.profiles(list(ids))
        types = sorted({t for p in profiles.values() for t in p.types})
        names = self.source.labels(types) if types else {}
        return {i: frozenset(lab for t in p.types
                             for lab in split_label(names.get(t, (t, None))[0]))
                for i, p in profiles.items()}

    def untyped(self, pid: str, ids: Sequence[str]) -> bool:
        """Whether the KB types none of ``ids`` and none of the sampled values and
        subjects of ``pid``: there is nothing to check answers against."""
        prof = self.profile(pid)
        if prof.labels or prof.domain or any(prof.range[k] for k in (AGENT, PLACE, THING)):
            return False
        return not any(self.type_labels(ids).values())

    def range_kind(self, pid: str) -> str | None:
        return self._majority(self.profile(pid).range)

    # -- the check --------------------------------------------------------------------------
    def check(self, exp: Expected, values: Sequence[Value], via: str | None = None,
              via_names: Iterable[str] = (), via_aliases: Iterable[str] = ()) -> TypeCheck:
        """How ``values`` (a graph's answers, reached over the property ``via`` named
        ``via_names``, also called ``via_aliases``) fit ``exp`` (see the module
        docstring)."""
        if not values or (not exp.kinds and not exp.clash and not exp.noun):
            return TypeCheck()
        ids = [v.value for v in values if v.kind in ("entity", "iri")]
        seen = self._value_kinds(exp, values, ids, via)
        fits = sum(1 for k in seen if k in exp.kinds)
        clashes = sum(1 for k in seen if k in exp.clash) + \
            0.5 * sum(1 for k in seen if k in exp.unlikely)
        # "where" may be answered by an organization that is somewhere ("Where did X
        # study?"): neither fit nor clash
        score = (fits - clashes) / len(seen)
        noun = self._noun_agreement(exp.noun, ids, values, via, via_names,
                                    via_aliases) if exp.noun else None
        known = tuple(sorted({k for k in seen if k}))
        return TypeCheck(score, noun, known, _check_note(exp, len(seen), clashes, noun, known))

    def _value_kinds(self, exp: Expected, values: Sequence[Value], ids: list[str],
                     via: str | None) -> list[str | None]:
        """The kind of each of ``values`` (None where unknown); on a KB that types none of
        the entities ``ids`` nor ``via``'s values, an entity is the first entity kind
        ``exp`` asks for."""
        kinds = self.kinds(ids) if ids else {}
        if ids and via is not None and self.untyped(via, ids):
            # a KB without types here (a custom KB in its own vocabulary): an entity is
            # any entity kind the question asks for, never a date or a number
            wanted = sorted(exp.kinds - LITERAL_KINDS) or [THING]
            kinds = dict.fromkeys(ids, wanted[0])
        elif ids and via is not None and exp.kinds and exp.kinds <= LITERAL_KINDS:
            # a date or a number asked for ("When did X form?"): an entity the KB leaves
            # untyped is of the kinds the property's values are (a band's parts are
            # people and things), not unknown, when none of them is of the kind asked
            seen = {k for k, n in self.profile(via).range.items() if n}
            if seen and not seen & exp.kinds:
                usual = self.range_kind(via) or THING
                kinds = {i: kinds.get(i) or usual for i in ids}
        return [literal_kind(v) or kinds.get(v.value) for v in values]

    def _noun_agreement(self, noun: str, ids: Sequence[str], values: Sequence[Value],
                        via: str | None, via_names: Iterable[str],
                        via_aliases: Iterable[str] = ()) -> float:
        """+1 when the answers are members of the class ``noun`` names, -1 when they are
        typed and none is, 0 when the KB cannot tell (see the module docstring). When
        the types cannot tell, an alias of ``via`` that names ``noun`` says yes ("which
        nationality": the country of citizenship, also called nationality), unless
        ``noun`` is a kind of place or person, which only types tell ("city" is an alias
        of "located in the administrative territorial entity", whose values are of every
        size)."""
        forms = noun_forms(noun)
        if any(literal_kind(v) for v in values):
            return -1.0 if ids == [] else 0.0
        if self._only_the_person_class(forms, ids, via):
            return -1.0     # "What religion does X belong to?" is not X's class, human
        if _any_administrative_unit(noun) or noun in ANY_PLACE_NOUNS:
            kinds = self.kinds(list(ids))       # a province, a county, a country alike
            if kinds and all(k == PLACE for k in kinds.values()):
                return 1.0
        labels = self.type_labels(ids)
        typed = [i for i in ids if labels[i]]
        if self._people_for_a_group(forms, typed):
            return -1.0     # "In which league …": the players are no league
        members = self._member_share(noun, forms, typed, labels) if typed else 0.0
        if members:
            return members
        distance = self._types_distance(noun, typed, labels) if typed else 0.0
        if distance < 0 and place_level(noun) is not None:
            # typed as places of other levels only: a province is no country, whatever
            # the property's name says ("country" names the jurisdiction of a court)
            return distance
        if via is not None:
            by_property = self._property_agreement(noun, forms, via, via_names)
            if by_property is None and " " in noun:
                # "which musical instrument": the property named by its head, instrument
                head = noun.split()[-1]
                by_property = self._property_agreement(head, noun_forms(head), via,
                                                       via_names)
            if by_property is not None:
                return by_property
        if distance == 0.0 and not forms & (PLACE_NOUNS | PERSON_NOUNS) and \
                _any_names(via_aliases, forms):
            return 1.0
        return distance

    def role_agreement(self, roles: Sequence[tuple[str, str]], ids: Sequence[str]) -> float:
        """For a class noun whose members the KB states by a property other than instance
        of (``roles``: (property, class) pairs; "actor": occupation actor), the share of
        the answers ``ids`` (a sample of ROLE_SAMPLE) that hold the role, or one of its
        subclasses (a singer is a musician); -1 when every one of them states the property
        and none holds the role; 0 when none does or the KB cannot tell."""
        sample = list(dict.fromkeys(ids))[:ROLE_SAMPLE]
        held = stated = 0
        for entity in sample:
            values = {st.value.value for pid in {p for p, _ in roles}
                      for st in self.kb.statements(entity, pid, None, limit=50)}
            stated += bool(values)
            held += any(cls in self._role_and_supers(v) for v in values for _, cls in roles)
        if held:
            return held / len(sample)
        return -1.0 if sample and stated == len(sample) else 0.0

    def _role_and_supers(self, role: str) -> frozenset[str]:
        """``role`` and its superclasses up to SUPERCLASS_DEPTH levels up (cached)."""
        cached = self._supers.get(role)
        if cached is not None:
            return cached
        found, frontier = {role}, {role}
        for _ in range(SUPERCLASS_DEPTH):
            frontier = {st.value.value for c in frontier
                        for st in self.kb.statements(c, SUBCLASS_PROPERTY, None, limit=20)
                        } - found
            found |= frontier
        with self._lock:
            self._supers[role] = frozenset(found)
        return self._supers[role]

    def _people_for_a_group(self, forms: frozenset[str], typed: Sequence[str]) -> bool:
        """Whether the noun asked (``forms``) names a group and the ``typed`` answers are
        all people."""
        return bool(typed) and bool(forms & GROUP_NOUNS) and \
            all(self.is_a([i], "human") for i in typed)

    def _member_share(self, noun: str, forms: frozenset[str], typed: list[str],
                      labels: dict[str, frozenset[str]]) -> float:
        """The share of the ``typed`` answers a type of which names ``noun`` (one of its
        ``forms``, or a label close in meaning); 0 when none does."""
        named = {i for i in typed if any(names_noun(lab, forms) for lab in labels[i])}
        if not named and not known_word(noun.split()[-1]):
            # a noun left in the question's language names the class by its cognate
            # ("qué océano": an ocean)
            named = {i for i in typed if any(_cognate_head(lab, noun) for lab in labels[i])}
        # a sovereign state is a state as a country is one: "which state" asked of a
        # place inside a country means a part of it first
        loosely = {i for i in named if all(normalize(lab) in COUNTRY_STATES
                                           for lab in labels[i] if names_noun(lab, forms))
                   } if "state" in forms else set()
        rest = [i for i in typed if i not in named]
        # only the answers no type names lexically are compared by meaning: a forward
        # pass of the embedder is most of a first-time question's cost. A place of
        # another level is never close ("province of Canada" is near "country" in meaning)
        want = place_levels(noun)
        close = self._similar_labels(noun, {
            lab for i in rest for lab in labels[i]
            if want is None or (place_levels(lab) or want) & want})
        hits = len(named) - len(loosely) / 2 + \
            sum(1 for i in rest if any(lab in close for lab in labels[i]))
        return hits / len(typed) if hits else 0.0

    def _property_agreement(self, noun: str, forms: frozenset[str], via: str,
                            via_names: Iterable[str]) -> float | None:
        """1 when a name of the property ``via`` names ``noun``, the share of its typed
        values in the KB that are ``noun`` when at least half are, else None."""
        if _any_names(via_names, forms):
            return 1.0
        share = self.range_share(via, noun)
        return share if share >= 0.5 else None

    def _types_distance(self, noun: str, typed: list[str],
                        labels: dict[str, frozenset[str]]) -> float:
        """For ``typed`` answers none of whose types names ``noun``: -1 when their types
        are places of other levels only, or of another kind than the noun; 0.5 when one
        is a place of the noun's level; else 0."""
        # typed, and no type names the noun: how far apart are they? A place of another
        # level (a city for "which country") is not one; a place of the same level (a
        # capital for "which city") may be, the KB's class tree being partial
        want = place_levels(noun)
        if want is not None:
            levels = {lv for i in typed for lab in labels[i] for lv in place_levels(lab) or ()}
            if levels and not levels & want:
                return -1.0
            return 0.5 if levels & want else 0.0
        kinds = {k for i in typed if (k := self._kind_from_labels(labels[i]))}
        wanted = kind_of_words(noun)
        if wanted is not None and kinds and wanted not in kinds:
            return -1.0
        return 0.0

    def is_a(self, ids: Sequence[str], noun: str) -> bool:
        """Whether the KB types one of ``ids`` as the class ``noun`` names: by the head of
        a class label, or both name a settlement ("city" for "town"; a capital is a town,
        but not every town is a capital: "capital" is a role). Not by closeness in
        meaning, which joins "painter" to "painting"."""
        labels = {lab for labs in self.type_labels(ids).values() for lab in labs}
        forms = noun_forms(noun)
        settled = SETTLEMENT_NOUNS | SETTLEMENT_ROLES if forms & SETTLEMENT_NOUNS else None
        country = bool(forms & COUNTRY_NOUNS)
        return any(names_noun(lab, forms) or (settled is not None and names_noun(lab, settled))
                   or (country and normalize(lab) in COUNTRY_FORMS) for lab in labels)

    def range_share(self, pid: str, noun: str) -> float:
        """The share of the KB's typed values of ``pid`` whose type names ``noun``."""
        prof = self.profile(pid)
        total = sum(prof.labels.values())
        if not total:
            return 0.0
        forms = noun_forms(noun)
        return sum(n for lab, n in prof.labels.items() if names_noun(lab, forms)) / total

    def _similar_labels(self, noun: str, labels: set[str]) -> set[str]:
        """The ``labels`` close in meaning to ``noun`` by the embedder ("nation" for
        "country"), all embedded at once; none without an embedder."""
        embedder = getattr(self.linker.properties, "embedder", None)
        if embedder is None or not callable(getattr(embedder, "encode", None)) or not labels:
            return set()
        key = (noun, frozenset(labels))
        found = self._similar.get(key)
        if found is None:
            ordered = sorted(labels)[:SIMILAR_LABELS]
            try:
                vecs = embedder.encode([noun, *ordered])
                found = {lab for lab, v in zip(ordered, vecs[1:] @ vecs[0])
                         if v >= NOUN_SIMILARITY}
            except Exception:          # noqa: BLE001 - no embedder after all
                found = set()
            with self._lock:
                self._similar[key] = found
        return found


def _any_names(names: Iterable[str], forms: frozenset[str]) -> bool:
    """Whether one of a property's ``names`` names the noun of ``forms``."""
    return any(names_noun(normalize(n), forms) for n in names)


def _check_note(exp: Expected, n: int, clashes: float, noun: float | None,
                known: tuple[str, ...]) -> str:
    """Why a check failed, for the trace: the answers (``n``, of the ``known`` kinds) that
    clash with the question word, else a noun the answers are not; "" when neither."""
    if clashes >= 1:
        return (f"{round(clashes)} of {n} answers are of a kind a "
                f"{exp.wh!r} question cannot have ({', '.join(known)})")
    if noun is not None and noun < 0:
        return f"the answers are not {exp.noun}"
    return ""


#: British endings and their American forms
_BRITISH = (("isation", "ization"), ("our", "or"), ("tre", "ter"))


def _spellings(word: str) -> set[str]:
    """``word`` and its other spelling, British or American, where an ending says."""
    out = {word}
    for uk, us in _BRITISH if len(word) > 5 else ():
        if word.endswith(uk):
            out.add(word[: -len(uk)] + us)
        elif word.endswith(us):
            out.add(word[: -len(us)] + uk)
    return out


def _cognate_head(label: str, noun: str) -> bool:
    """Whether the head word of the class label ``label`` is the last word of ``noun`` in
    another language (``querygen.mentions.cognate``)."""
    head = head_phrase(label).split()[-1:]
    return bool(head) and cognate(normalize(noun).split()[-1], head[0])


def names_noun(label: str, forms: frozenset[str]) -> bool:
    """Whether the class label ``label`` is the noun: equal to one of its ``forms``, or
    headed by it ("sovereign state" for "state"; "state of germany" for "state", but not
    "designation … of a single country" for "country")."""
    phrase = head_phrase(label)
    if not phrase:
        return False
    if _ALSO_HEADED.get(phrase, "") in forms:     # a city-state is a city too
        return True
    words = phrase.split()
    for f in forms:
        if phrase == f or phrase.endswith(" " + f):
            return True
        if any(sing == f for sing in singulars(words[-1])):
            return True
    return False


#: compound class labels (normalized) named by their first noun as well as their head
_ALSO_HEADED = {"city state": "city"}

_HEAD_END = re.compile(r"\s(?:of|for|in|on|at|by|from|with|to|that|which|whose)\s.*$")


def head_phrase(label: str) -> str:
    """A normalized class label up to its first preposition or relative word: the noun
    phrase whose last word is its head ("city of the united states" → "city")."""
    return _HEAD_END.sub("", normalize(label)).strip()
