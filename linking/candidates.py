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
``fuzzy``      a label or alias within a few edits (misspellings), from ``linking.fuzzy``;
               only when nothing above matched; scored by similarity squared
``variant:part`` a shorter part of the mention ("Caldecott Medal Awards" → "caldecott
               medal"), the last resort

``spacing``, ``qualified`` and ``fuzzy`` need the linking sidecar (``linking.index.LinkIndex``).
Plural, article and spacing variants count only when the mention as written names nothing,
variants that drop a qualifier or a title only when nothing names the whole mention
(``GUESSED``, ``DROPPING``).

Each candidate keeps its best match: a string-match score in (0, 1] (1.0 is an exact label
in the asked language), how it matched, the term and its language. Properties are never
entity candidates. The popularity prior is added here too (``prior``), so callers can rank.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from linking.fuzzy import FuzzyIndex
from linking.index import LinkIndex
from linking.variants import Variant, variants
from store.mirror import Mirror
from store.normalize import normalize
from store.vocab import DESCRIPTION, LABEL

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
#: variants that guess at another spelling of the name (a singular for a plural, the
#: article added or dropped, the spaces moved): tried only when the mention as written is
#: no label or alias — "Orioles" is the team's alias, not a plural of "Oriol", and "The
#: Office" a label of its own. (Variants the text shows — a possessive "'s", an
#: abbreviation, a demonym — are always tried.)
GUESSED = frozenset({"plural", "article", "spacing"})
#: variants that drop words of the mention — a place qualifier ("hilo hawaii" → "hilo"), a
#: title ("king solomon" → "solomon") — tried only when no reading of the whole mention
#: names anything: "frederick md" is "Frederick, Maryland", not any Frederick
DROPPING = frozenset({"qualifier", "title"})
#: a match at least this good makes partial matching pointless (on the linking benchmarks
#: a partial match beat such a match for 3 of 2,231 mentions, and lost for 2)
STRONG = 0.9
#: a partial-match word shared by more labels than this is too common to search by
PARTIAL_MAX_ROWS = 150
_TERM_COLS = ("SELECT t.entity, t.kind, t.lang, t.text, t.norm, e.kind, e.sitelinks, e.degree "
              "FROM terms t LEFT JOIN entities e ON e.id = t.entity")


@dataclass(slots=True)
class Match:
    """The best way one entity matched a mention."""
    entity: str
    score: float            # string-match quality in (0, 1]
    how: str                # exact | variant:<kind> | spacing | partial | fuzzy
    term: str               # the label or alias as written
    term_lang: str
    is_label: bool
    prior: float = 0.0      # popularity in [0, 1] (sitelinks, else degree)
    cased: bool = False     # some exactly matching term is written as the mention is
    lower: bool = False     # some exactly matching term is written in lower case
    langs: float = 0.0      # share of the mirror's languages the entity has terms in


class Priors:
    """Popularity in [0, 1]: log sitelinks when the mirror has sitelinks (JSON dumps),
    else log graph degree (statements the entity is in), each scaled by the mirror's
    maximum. Entities without sitelinks in a mirror that has some get half weight."""

    def __init__(self, mirror: Mirror):
        links, degree = mirror.query(
            "SELECT COALESCE(MAX(sitelinks), 0), COALESCE(MAX(degree), 0) FROM entities")[0]
        self.log_links, self.log_degree = math.log1p(links), math.log1p(degree)

    def __call__(self, sitelinks: int | None, degree: int | None) -> float:
        if self.log_links:
            if sitelinks:
                return math.log1p(sitelinks) / self.log_links
            return 0.5 * math.log1p(degree or 0) / self.log_degree if self.log_degree else 0.0
        return math.log1p(degree or 0) / self.log_degree if self.log_degree else 0.0


def _accents_differ(term: str, mention: str, term_lang: str, lang: str) -> bool:
    """True for a term of another language, with accents, that the mention matches only
    once they are dropped ("song" and the Vietnamese "sông", river)."""
    return (_exact_kind(0, term_lang, lang).endswith("-other") and not term.isascii()
            and term.casefold() != mention.casefold())


def _exact_kind(kind: int, term_lang: str, lang: str) -> str:
    how = "label" if kind == LABEL else "alias"
    if term_lang != lang and term_lang.split("-")[0] != lang and term_lang != "mul":
        how += "-other"
    return how


class CandidateGenerator:
    """Looks mentions up in one mirror's label index. ``index`` returns the linking sidecar
    (called on first need; None: exact and variant matches only, no language counts);
    ``fuzzy=False`` keeps the sidecar but never searches for misspellings."""

    def __init__(self, mirror: Mirror, *, index: Callable[[], LinkIndex] | None = None,
                 fuzzy: bool = True):
        self.mirror = mirror
        self.priors = Priors(mirror)
        self._index = index
        self.use_fuzzy = fuzzy

    @property
    def fuzzy(self) -> FuzzyIndex | None:
        return self._index().fuzzy if self._index is not None else None

    def _rows(self, norms: list[str]) -> list[tuple]:
        if not norms:
            return []
        marks = ",".join("?" * len(norms))
        return self.mirror.query(
            f"{_TERM_COLS} WHERE t.norm IN ({marks}) AND t.kind != {DESCRIPTION}", norms)

    def generate(self, text: str, *, lang: str = "en", fuzzy: bool = True,
                 partial: bool = True) -> dict[str, Match]:
        """Every entity ``text`` may name, with its best match; {} when none."""
        norm = normalize(text)
        if not norm:
            return {}
        best: dict[str, Match] = {}
        surface = text.strip()

        def offer(row: tuple, score: float, how: str) -> None:
            entity, kind, tlang, ttext, _tnorm, ekind, links, degree = row
            if ekind == "property" or (ekind is None and entity[:1] == "P"):
                return
            if how == "exact" and _accents_differ(ttext, surface, tlang, lang):
                score *= ACCENT_FACTOR
            old = best.get(entity)
            exactish = how in ("exact", "spacing") or how.startswith("variant")
            cased = (exactish and ttext == surface) or (old is not None and old.cased)
            lower = (exactish and ttext == ttext.lower()) or (old is not None and old.lower)
            if old is None:
                best[entity] = Match(entity, score, how, ttext, tlang, kind == LABEL,
                                     self.priors(links, degree), cased, lower)
                return
            if score > old.score:
                old.score, old.how, old.term, old.term_lang = score, how, ttext, tlang
                old.is_label = kind == LABEL
            old.cased, old.lower = cased, lower

        forms = {v.norm: v for v in variants(norm, text)}
        parts = {n: v for n, v in forms.items() if v.how == "part"}
        self._exact(norm, {n: v for n, v in forms.items() if n not in parts}, lang, offer)
        if partial and not any(m.score >= STRONG for m in best.values()):
            self._partial(norm, lang, offer)
            stems = [v.norm for v in forms.values() if v.how in ("possessive", "plural")]
            if stems:                    # "Marleys" → "marley" → "Bob Marley"
                self._partial(stems[0], lang, offer, factor=forms[stems[0]].factor)
        index = self.fuzzy
        if fuzzy and self.use_fuzzy and index is not None and not best:
            near = {n: m for m in index.search(norm) if m.distance > 0 for n in m.norms}
            for row in self._rows(list(near)):
                m = near[row[4]]
                base = EXACT_SCORES[_exact_kind(row[1], row[2], lang)]
                offer(row, base * FUZZY_FACTOR * m.similarity ** 2, "fuzzy")
        if not best and parts:           # "Caldecott Medal Awards" → "caldecott medal"
            self._exact(None, parts, lang, offer)
        if best and self._index is not None:
            for entity, share in self._index().languages(best).items():
                best[entity].langs = share
        return best

    def _exact(self, norm: str | None, forms: dict[str, Variant], lang: str, offer) -> None:
        """Exact matches of ``norm`` and of its variant ``forms``; with the sidecar also
        matches ignoring spaces and qualified labels ("Nirvana (band)")."""
        other: dict[str, tuple[str, float]] = {}     # spacing or qualified → (how, factor)
        if norm and self._index is not None:
            spaced, qualified = self._index().near_names(norm)
            other = {n: ("qualified", QUALIFIED_FACTOR) for n in qualified}
            other.update((n, ("spacing", SPACING_FACTOR)) for n in spaced)
        wanted = [*([norm] if norm else []), *forms]
        rows = self._rows(wanted + [n for n in other if n != norm and n not in forms])
        named = any(row[4] == norm for row in rows)
        whole = any(row[4] not in forms or forms[row[4]].how not in DROPPING for row in rows)
        for row in rows:
            base = EXACT_SCORES[_exact_kind(row[1], row[2], lang)]
            if row[4] == norm:
                offer(row, base, "exact")
            elif row[4] in forms:
                v = forms[row[4]]
                if not (named and v.how in GUESSED or whole and v.how in DROPPING):
                    offer(row, base * v.factor, f"variant:{v.how}")
            else:
                how, factor = other[row[4]]
                if not (named and how in GUESSED):
                    offer(row, base * factor, how)

    def _partial(self, norm: str, lang: str, offer, factor: float = 1.0) -> None:
        words = [w for w in norm.split() if w]
        if not words or len(words) > 4 or not self.mirror.is_sqlite:
            return
        match = " ".join(f'"{w}"' for w in words)
        rows = self.mirror.query(
            f"{_TERM_COLS} JOIN terms_fts f ON t.id = f.rowid WHERE terms_fts MATCH ? "
            "LIMIT ?", (match, PARTIAL_MAX_ROWS + 1))
        if len(rows) > PARTIAL_MAX_ROWS:
            return
        for row in rows:
            tnorm = row[4]
            if tnorm == norm or row[1] == DESCRIPTION:
                continue
            cover = len(words) / max(len(tnorm.split()), 1)
            base = EXACT_SCORES[_exact_kind(row[1], row[2], lang)]
            offer(row, factor * base * (PARTIAL_BASE + PARTIAL_SPAN * cover), "partial")
