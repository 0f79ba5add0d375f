"""Word lists, one module per language: the words every layer reads text with.

``linking`` is the lowest layer that reads words, so the lexicons live here and
``querygen``, ``chains`` and ``reasoning`` import them from here. Each language is a module
(``en`` for English, today the only one) that fills the interface ``LanguageLexicon`` describes —
the lists any reader of that language needs — and may hold more lists beside it for single
readers (``en`` does: see its module docstring). ``tests/test_lexicon.py`` fails on a word
list of English words defined outside this package (the word lists of other languages,
which gloss a question into English, are in ``querygen.languages``).

For the modules that read English, this package re-exports the names of the English
lexicon it has always offered (``from linking.lexicon import STOPWORDS, stem``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from linking.lexicon import en
from linking.lexicon.en import (ABBREVIATIONS, COMMON_WORDS, DEMONYM_SUFFIXES, DEMONYMS,
                                LEGAL_FORMS, PLACE_QUALIFIERS, QUESTION_WORDS, ROMAN,
                                STOPWORDS, TITLES, US_STATES, content_words, stem)

__all__ = ["ABBREVIATIONS", "COMMON_WORDS", "DEMONYMS", "DEMONYM_SUFFIXES", "LEGAL_FORMS",
           "LEXICONS", "LanguageLexicon", "PLACE_QUALIFIERS", "QUESTION_WORDS", "ROMAN",
           "STOPWORDS", "TITLES", "US_STATES", "content_words", "en", "stem"]


class LanguageLexicon(Protocol):
    """What a language's lexicon module offers. All words are in normalized form (lower
    case, no accents: ``store.normalize.normalize``). (Not ``querygen.languages.Lexicon``,
    which reads another language's question words into English.)

    A new language is a module beside ``en`` defining these names, added to ``LEXICONS``.
    """

    #: function and question words: never a mention on their own, ignored as context
    STOPWORDS: frozenset[str]
    #: words that never carry a relation (articles, question words, auxiliaries, pronouns)
    FUNCTION_WORDS: frozenset[str]
    #: words that ask for something rather than name it
    QUESTION_WORDS: frozenset[str]
    #: words a question may open with
    QUESTION_OPENERS: frozenset[str]
    #: words that shape a relation ("part of") but never name one on their own
    PREPOSITIONS: frozenset[str]
    #: answer types a place question asks for ("where" → city, country, …)
    PLACE_TYPE_WORDS: frozenset[str]

    def stem(self, word: str) -> str:
        """A crude stem of one normalized word (inflection endings cut)."""
        ...

    def content_words(self, norm: str) -> list[str]:
        """The words of a normalized text that are neither stopwords nor numbers."""
        ...


#: the lexicon of each language that has one, by language code
LEXICONS: Mapping[str, LanguageLexicon] = {"en": en}
