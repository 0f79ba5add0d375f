"""How search candidates are scored, shared by every KB adapter so that results rank alike.

A candidate's score is its match score (what kind of match) plus 0.25 × its prior
(popularity in [0, 1]): an exact label beats an alias beats a prefix beats a word match,
and popularity orders candidates within a kind.
"""

from __future__ import annotations

import math

from store.errors import InvalidText
from store.normalize import normalize

MATCH_SCORES = {"label": 1.0, "alias": 0.9, "label-other": 0.85, "alias-other": 0.8,
                "prefix": 0.6, "token": 0.4}
PRIOR_WEIGHT = 0.25


def search_key(text: str, limit: int) -> str | None:
    """The normalized form of a search's ``text`` that adapters look up; None when nothing
    can match (nothing left after normalizing, or ``limit`` < 1). Raises TypeError when
    ``text`` is not a string."""
    if not isinstance(text, str):
        raise TypeError(f"search text must be a string, got {type(text).__name__}")
    if "\x00" in text:
        raise InvalidText("the search text holds a NUL character (\\x00)",
                          expected="text without NUL characters", got=text[:80],
                          fix="remove the NUL character from the text")
    norm = normalize(text)
    return norm if norm and limit >= 1 else None


def exact_kind(is_label: bool, term_lang: str, lang: str) -> str:
    """'label'/'alias', with '-other' when the matching term is in another language."""
    how = "label" if is_label else "alias"
    if term_lang != lang and term_lang.split("-")[0] != lang:
        how += "-other"
    return how


def match_score(how: str, query_norm: str, term_norm: str) -> float:
    """The score of a match of kind ``how``; word matches score by how much of the term
    the query covers."""
    score = MATCH_SCORES[how]
    if how == "token":
        score *= min(1.0, len(query_norm) / max(len(term_norm), 1)) ** 0.5
    return score


def prior(sitelinks: int | None, degree: int | None, log_max_sitelinks: float,
          log_max_degree: float) -> float:
    """Popularity in [0, 1]: sitelinks (from JSON dumps) when known, else half-weighted
    graph degree (N-Triples carry no sitelinks)."""
    if sitelinks and log_max_sitelinks:
        return math.log1p(sitelinks) / log_max_sitelinks
    if degree and log_max_degree:
        return 0.5 * math.log1p(degree) / log_max_degree
    return 0.0
