"""Candidate generation: which entities a mention may name, and how well the name fits.

Sources, in the order they are tried (every one in every language the mirror holds):

``exact``      the mention's normalized text equals a label or alias
``variant``    a surface variant does (article, possessive, plural, abbreviation, demonym,
               place qualifier, title — see ``linking.variants``)
``spacing``    the texts are equal once spaces are ignored ("Delta Airlines")
``qualified``  the mention is a label without its qualifier ("Nirvana (band)",
               "Concord, California")
``partial``    every word of the mention occurs in a longer label ("Seahawks" → "Seattle
               Seahawks"); only when nothing above matched well (``STRONG``), and not
               for words so common that hundreds of labels have them
``variant:sounds`` in a question of another language, a name that sounds like the mention
               ("Fedor Shalyapin", transliterated, → Fyodor Ivanovich Shalyapin;
               ``store.sounds``); only for a capitalized mention that nothing above
               matched well
``fuzzy``      a label or alias within a few edits (misspellings), from ``linking.fuzzy``;
               only when nothing above matched; scored by similarity squared
``variant:part`` a shorter part of the mention ("Caldecott Medal Awards" → "caldecott
               medal"), the last resort

Everything is asked of a ``kb.linking.LinkingKB``; ``spacing``, ``qualified``, ``sounds`` and
``fuzzy`` only where the KB offers them (``features``: a mirror does, through its linking sidecar).
Plural, article and spacing variants count only when the mention as written names nothing,
variants that drop a qualifier or a title only when nothing names the whole mention
(``GUESSED``, ``DROPPING``).

A question in a language the KB names nothing in (``kb.linking.TermLanguages``: the slice
has no German, Italian or Portuguese terms) can only meet the KB's names in other
languages; there a name of any language but English is taken as the question's own ("Ruanda"
for a German question is as good as the German name the KB lacks), not discounted as
another language's.

Each candidate keeps its best match: a string-match score in (0, 1] (1.0 is an exact label
in the asked language), how it matched, the term and its language. Properties are never
entity candidates. The popularity prior comes with the names (``prior``, ``langs``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from kb.linking import LinkingKB, Name, PreparesSimilar, TermLanguages
from linking.lexicon.en import OF_WORDS
from linking.variants import Variant, respellings, variants
from store.normalize import normalize

#: string-match scores of exact matches by term kind and language
EXACT_SCORES = {"label": 1.0, "alias": 0.95, "label-other": 0.93, "alias-other": 0.9}
SPACING_FACTOR = 0.93
#: an exact match with a term of another language that differs from the mention in its
#: accents (``_accents_differ``) is discounted like a spelling variant
ACCENT_FACTOR = 0.9
#: a label with a qualifier, "Nirvana (band)" or "Concord, California", for "Nirvana"
QUALIFIED_FACTOR = 0.93
#: partial matches score PARTIAL_BASE + PARTIAL_SPAN × (share of the label's words covered)
PARTIAL_BASE, PARTIAL_SPAN = 0.45, 0.4
FUZZY_FACTOR = 0.9
#: a name that only sounds like the mention of a question in another language
#: (``store.sounds``: "Fedor Shalyapin" for Fyodor Ivanovich Shalyapin) scores as a
#: respelling does, a little less the less alike the two are spelt
SOUNDS_FACTOR, SOUNDS_SPELLING = 0.85, 0.1
#: the forms of a mention whose sound is looked up: as written and two respellings
SOUNDED_FORMS = 3
#: how a match through a name as English spells it is made: a surer guess than a name
#: that sounds alike ("Catull": Catullus, not the better-known Catalan)
RESPELT = frozenset({"variant:spelling", "variant:ending"})
#: variants that guess at another spelling of the name (a singular for a plural, the
#: article added or dropped, the spaces moved): tried only when the mention as written is
#: no label or alias — "Orioles" is the team's alias, not a plural of "Oriol", and "The
#: Office" a label of its own. (Variants the text shows — a possessive "'s", an
#: abbreviation, a demonym — are always tried.)
GUESSED = frozenset({"plural", "article", "spacing", "spelling"})
#: variants that drop words of the mention — a place qualifier ("hilo hawaii" → "hilo"), a
#: title ("king solomon" → "solomon") — tried only when no reading of the whole mention
#: names anything: "frederick md" is "Frederick, Maryland", not any Frederick
DROPPING = frozenset({"qualifier", "title"})
#: a match at least this good makes partial matching pointless (on the linking benchmarks
#: a partial match beat such a match for 3 of 2,231 mentions, and lost for 2)
STRONG = 0.9
#: partial matches are tried for mentions of at most this many words
PARTIAL_MAX_WORDS = 4
_ARTICLES = frozenset({"the", "der"})


@dataclass(slots=True)
class Match:
    """The best way one entity matched a mention."""
    entity: str
    score: float            # string-match quality in (0, 1]
    how: str                # exact | variant:<kind> | spacing | qualified | partial | fuzzy
    term: str               # the label or alias as written
    term_lang: str
    is_label: bool
    prior: float = 0.0      # popularity in [0, 1] (sitelinks, else degree)
    cased: bool = False     # some exactly matching term is written as the mention is
    lower: bool = False     # some exactly matching term is written in lower case
    langs: float = 0.0      # share of the KB's languages the entity has terms in


def _accents_differ(term: str, mention: str, term_lang: str, lang: str) -> bool:
    """True for a term of another language, with accents, that the mention matches only
    once they are dropped ("song" and the Vietnamese "sông", river)."""
    return (_exact_kind(True, term_lang, lang).endswith("-other") and not term.isascii()
            and term.casefold() != mention.casefold())


def _own_name(name: Name, mention: str, lang: str) -> bool:
    """Whether ``name``, an alias in the mention's own language (not English), matches a
    mention written with a capital: the name a question in that language uses ("Трюдо"),
    which a KB labelled in English only (the slice) keeps as an alias; it counts as a
    label. A lower-case mention may be a common word ("origine"). ``lang`` "*" stands
    for a language the KB has no names in: there any alias written as the mention is
    (an English one, "Nikolaus Kopernikus", too) is the name the question uses."""
    return (not name.is_label and (name.lang == lang or lang == "*")
            and lang not in ("en", "") and mention != mention.lower())


def _exact_kind(is_label: bool, term_lang: str, lang: str) -> str:
    """label or alias, "-other" for a term in neither the mention's language nor English
    (names are written as in English in every language more often than not)."""
    how = "label" if is_label else "alias"
    if term_lang not in (lang, "en", "mul", "") and term_lang.split("-")[0] != lang:
        how += "-other"
    return how


@functools.lru_cache(maxsize=4096)
def _variants(norm: str, text: str) -> tuple[Variant, ...]:
    """``variants(norm, text)``, remembered: prefetching and generating ask for the same
    mention's variants, and names recur across texts."""
    return tuple(variants(norm, text))


def base_score(name: Name, lang: str) -> float:
    """The match score of an exact match with ``name`` for a mention in ``lang``."""
    return EXACT_SCORES[_exact_kind(name.is_label, name.lang, lang)]


def reading_language(name: Name, lang: str, unnamed: bool) -> str:
    """The language a name of ``name.lang`` is scored in for a mention in ``lang``:
    ``lang`` itself, but the name's own language when the KB has no names in ``lang``
    (``unnamed``: ``names_nothing_in``) and the name is in neither English nor the
    language-neutral "mul" — then it is as near as the KB comes to the question's own."""
    if name.lang in ("en", "mul", "") or not unnamed:
        return lang
    return name.lang


def names_nothing_in(lang: str, names_in: Callable[[str], bool] | None) -> bool:
    """Whether the KB, which says by ``names_in(language)`` whether it names entities in
    a language (None: it cannot say), has no name at all in ``lang``; never so for
    English, which is not asked."""
    base = lang.split("-")[0]
    if names_in is None or base in ("en", ""):
        return False
    return not names_in(base) and (lang == base or not names_in(lang))


class CandidateGenerator:
    """Looks mentions up in one KB's names. ``fuzzy=False`` never searches for
    misspellings (where the KB could)."""

    def __init__(self, source: LinkingKB, *, fuzzy: bool = True):
        self.source = source
        self.use_fuzzy = fuzzy
        self.features = frozenset(source.features)
        self._prepare = (source.prepare_similar if isinstance(source, PreparesSimilar)
                         else None)
        self._names_in = (source.names_in_language if isinstance(source, TermLanguages)
                          else None)

    def prefetch(self, texts: list[str]) -> dict[str, list[Name]]:
        """The names of every text's normalized form and its variants, in one lookup:
        pass the result to ``generate(…, names=…)`` for each of them (a long text's
        mentions then cost one query, not one each)."""
        wanted: set[str] = set()
        own: set[str] = set()
        for text in texts:
            norm = normalize(text)
            if norm:
                own.add(norm)
                wanted.add(norm)
                wanted.update(v.norm for v in _variants(norm, text) if v.how != "part")
        prepare = self._prepare
        if prepare is not None and self.features & {"spacing", "qualified"}:
            prepare(sorted(own))        # the spacing and qualified names of each, at once
        found: dict[str, list[Name]] = {n: [] for n in wanted}
        for name in self.source.names(sorted(wanted)):
            found.setdefault(name.norm, []).append(name)
        return found

    def _names(self, norms: list[str], known: dict[str, list[Name]] | None) -> list[Name]:
        if not known:
            return self.source.names(norms)
        out = [n for norm in norms if norm in known for n in known[norm]]
        rest = [norm for norm in norms if norm not in known]
        return out + (self.source.names(rest) if rest else [])

    def generate(self, text: str, *, lang: str = "en", fuzzy: bool = True,
                 partial: bool = True,
                 names: dict[str, list[Name]] | None = None) -> dict[str, Match]:
        """Every entity ``text`` may name, with its best match; {} when none. ``names``:
        names already looked up (``prefetch``)."""
        norm = normalize(text)
        if not norm:
            return {}
        best: dict[str, Match] = {}
        surface = text.strip()
        unnamed = names_nothing_in(lang, self._names_in)

        def reading(name: Name) -> str:
            return reading_language(name, lang, unnamed)

        def offer(name: Name, score: float, how: str) -> None:
            own = reading(name)
            if how == "exact" and _accents_differ(name.text, surface, name.lang, own):
                score *= ACCENT_FACTOR
            if how == "exact" and (_own_name(name, surface, own) or
                                   unnamed and _own_name(name, surface, "*")):
                score *= EXACT_SCORES["label"] / EXACT_SCORES["alias"]
            old = best.get(name.entity)
            exactish = how in ("exact", "spacing") or how.startswith("variant")
            cased = (exactish and name.text == surface) or (old is not None and old.cased)
            lower = (exactish and name.text == name.text.lower()) or (
                old is not None and old.lower)
            if old is None:
                best[name.entity] = Match(name.entity, score, how, name.text, name.lang,
                                          name.is_label, name.prior, cased, lower, name.langs)
                return
            if score > old.score:
                old.score, old.how, old.term, old.term_lang = score, how, name.text, name.lang
                old.is_label = name.is_label
            old.cased, old.lower = cased, lower
            old.langs = max(old.langs, name.langs)

        forms = {v.norm: v for v in _variants(norm, text)}
        # a name as English spells it, also without a genitive's -s ("Puschkins")
        for base in [norm] + [n for n, v in forms.items() if v.how in ("possessive", "plural")]:
            for v in respellings(base, lang, text if base == norm else ""):
                forms.setdefault(v.norm, v)
        parts = {n: v for n, v in forms.items() if v.how == "part"}
        self._exact(norm, {n: v for n, v in forms.items() if n not in parts}, reading,
                    offer, names)
        if partial and not any(m.score >= STRONG for m in best.values()):
            self._partial(norm, reading, offer)
            stems = [v.norm for v in forms.values() if v.how in ("possessive", "plural")]
            if stems:                    # "Marleys" → "marley" → "Bob Marley"
                self._partial(stems[0], reading, offer, factor=forms[stems[0]].factor)
        if _foreign_and_weak(lang, best, surface):
            self._sounding(norm, forms, reading, offer)
        if fuzzy and self.use_fuzzy and not best:
            self._near(norm, "fuzzy", reading, offer)
        if not best and parts:           # "Caldecott Medal Awards" → "caldecott medal"
            self._exact(None, parts, reading, offer)
        return best

    def _sounding(self, norm: str, forms: dict[str, Variant],
                  reading: Callable[[Name], str],
                  offer: Callable[[Name, float, str], None]) -> None:
        """Offers the names that sound like a mention (``variant:sounds``): ``norm`` as
        written, and as English spells such names (its ``spelling`` forms: "Šaljapin" as
        "shaljapin")."""
        spelt = [n for n, v in forms.items() if v.how == "spelling"]
        for form in [norm, *spelt][:SOUNDED_FORMS]:
            self._near(form, "sounds", reading, offer)

    def _near(self, norm: str, how: str, reading: Callable[[Name], str],
              offer: Callable[[Name, float, str], None]) -> None:
        """Offers the names near ``norm`` where the KB can find them: ``fuzzy`` within a
        few edits (scored by similarity squared), ``sounds`` sounding like it
        (``variant:sounds``, scored as a respelling, a little less the less alike)."""
        if how not in self.features:
            return
        near = dict(self.source.similar(norm, how))
        for name in self.source.names(list(near)):
            base = base_score(name, reading(name))
            if how == "fuzzy":
                offer(name, base * FUZZY_FACTOR * near[name.norm] ** 2, "fuzzy")
            else:
                alike = 1 - SOUNDS_SPELLING * (1 - near[name.norm])
                offer(name, base * SOUNDS_FACTOR * alike, "variant:sounds")

    def _exact(self, norm: str | None, forms: dict[str, Variant],
               reading: Callable[[Name], str], offer: Callable[[Name, float, str], None],
               known: dict[str, list[Name]] | None = None) -> None:
        """Exact matches of ``norm`` and of its variant ``forms``; where the KB can, also
        matches ignoring spaces and qualified labels ("Nirvana (band)"). ``reading(name)``
        is the language a name is scored in (``reading_language``)."""
        other: dict[str, tuple[str, float]] = {}     # spacing or qualified → (how, factor)
        if norm and "qualified" in self.features:
            other = {n: ("qualified", QUALIFIED_FACTOR)
                     for n, _ in self.source.similar(norm, "qualified")}
        if norm and "spacing" in self.features:
            other.update((n, ("spacing", SPACING_FACTOR))
                         for n, _ in self.source.similar(norm, "spacing"))
        wanted = [*([norm] if norm else []), *forms]
        names = self._names(wanted + [n for n in other if n != norm and n not in forms], known)
        named = any(n.norm == norm for n in names)
        whole = any(n.norm not in forms or forms[n.norm].how not in DROPPING for n in names)
        for name in names:
            base = base_score(name, reading(name))
            if name.norm == norm:
                offer(name, base, "exact")
            elif name.norm in forms:
                v = forms[name.norm]
                if not (named and v.how in GUESSED or whole and v.how in DROPPING):
                    offer(name, base * v.factor, f"variant:{v.how}")
            elif name.norm in other:
                how, factor = other[name.norm]
                if not (named and how in GUESSED):
                    offer(name, base * factor, how)

    def _partial(self, norm: str, reading: Callable[[Name], str],
                 offer: Callable[[Name, float, str], None], factor: float = 1.0) -> None:
        words = norm.split()
        if not words or len(words) > PARTIAL_MAX_WORDS or "words" not in self.features:
            return
        cover = dict(self.source.similar(norm, "words", limit=200))
        if not cover:
            return
        for name in self.source.names(list(cover)):
            if name.norm == norm or _named_after_of(name.norm, words):
                continue
            base = base_score(name, reading(name))
            offer(name, factor * base * (PARTIAL_BASE + PARTIAL_SPAN * cover[name.norm]),
                  "partial")


def _foreign_and_weak(lang: str, best: dict[str, Match], surface: str) -> bool:
    """Whether a mention written ``surface`` is capitalized, of a text in another language
    than English (``lang``), and matched nothing well (``STRONG``) yet, not even as English
    spells such names (``RESPELT``): then a name that sounds like it is looked for (never
    for a relation word read into English)."""
    return lang.split("-")[0] not in ("en", "") and surface != surface.lower() and \
        not any(m.score >= STRONG or m.how in RESPELT for m in best.values())


def _named_after_of(longer: str, words: list[str]) -> bool:
    """Whether the normalized name ``longer`` holds ``words`` right after "of" (or "of
    the", in several languages): "imperatore del sacro romano impero charlemagne" for
    "sacro romano impero" names an emperor of it, not it."""
    tokens = longer.split()
    n = len(words)
    for i in range(1, len(tokens) - n + 1):
        if tokens[i:i + n] != words or tokens[i - 1] not in OF_WORDS:
            continue
        if tokens[i - 1] not in _ARTICLES or (i >= 2 and tokens[i - 2] in OF_WORDS):
            return True                 # "… of X", "… of the X", not "The X Times"
    return False
