"""Questions in other languages: what language a question is in, and how its words read
in the analysis's vocabulary (``querygen.analysis`` reads English).

``detect(text)`` names the language of a question (py3langid, its model ships in the
package), checked against the lexicons and English's own words: a question read in the
wrong language loses its question words.

``gloss(question, lang, …)`` rewrites the question word by word into English for the
analysis, with one lexicon per language (``querygen.languages.de`` …, written for this
package) and the KB's own property names in that language. Only words the lexicon or the
KB's property names know are rewritten — question words, auxiliaries, articles,
prepositions and relation words — everything else stays as written, in place, so names
keep their spelling ("Justice League (TV series)", "Польша") and are linked against the
KB's labels and aliases in every language. Word runs the KB knows as a name are never
rewritten ("La Casa de Papel"). A name in another script that the KB does not know is
tried in its nominative ("Андорры" → "Андорра"), else transliterated to Latin letters
("Чарли Вентура" → "Charli Ventura") so that it can meet a Latin label. Words are looked
up as written, then by their lemma (simplemma), so "geboren", "nacque" and "родился" need
one entry each.

A word run set off by a comma at the start or the end of a question that asks with a
question word elsewhere, and that names nothing and carries no relation — words the
lexicon does not know or reads as English function words, no name, no property name — is
an aside ("Dime, ¿dónde …?", "…, afinal?", "…, per favore?") and is left out: its
untranslated words would read as relation words.

A language without a lexicon keeps its words (names still link); English is not glossed.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import re
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from linking.mentions import CJK
from linking.lexicon import en as _en
from querygen.analysis import MIN_MISSPELLED, one_letter_away
from querygen.languages import places
from querygen.lexicon import AUXILIARIES, FRAME_WORDS, VERB_FORMS

#: languages with a lexicon module here
LEXICON_LANGUAGES = ("de", "fr", "es", "it", "pt", "ru")
#: languages the detector chooses among: widely written languages (Galician and Catalan
#: are left out: on short questions they take Portuguese and Spanish questions)
DETECTABLE = tuple("""
af am ar az be bg bn bs cs cy da de el en eo es et eu fa fi fr ga he hi hr hu hy id is it
ja ka kk km ko lt lv mk ml mn mr ms nb ne nl no pa pl ps pt ro ru si sk sl sq sr sv sw ta
te th tl tr uk ur uz vi zh
""".split())
#: the longest word run looked up as a phrase of a lexicon or as a KB name
MAX_PHRASE = 4
MAX_NAME = 6
#: the shortest word read as a surname alone
MIN_SURNAME = 4
#: the most forms of a declined name of several words tried, each word declined its own way
MAX_DECLINED = 64
#: the article that is a genitive after a noun in a language that capitalizes its nouns
#: (German "der"; "des" always is one, the lexicon reads it so)
GENITIVE_ARTICLES = frozenset({"der"})
#: the most words an aside set off by a comma has ("Oye,", ", per favore?")
MAX_ASIDE = 3
#: English words an aside's words may read as (function words, "please")
ASIDE_WORDS = _en.STOPWORDS | {"please"}

#: a word; an English possessive "'s" stays on its name ("McDonald's" is no "es")
_TOKEN = re.compile(r"[^\W_]+(?:-[^\W_]+)*(?:['\u2019]s\b)?")
#: French subject pronouns joined to an inverted verb ("est-il", "a-t-il")
_APOSTROPHE = re.compile(r"['\u2019]")
#: quotation marks as languages pair them: «…», “…”, "…", German „…“ and »…«, Polish
#: „…”, Swedish ”…”, Japanese 「…」 and 『…』; ``QUOTED``'s group i is the title inside
#: the i-th pair. A quoted title is kept as written, never glossed.
QUOTES = tuple((pair[0], pair[1]) for pair in
               ("«»", "“”", '""', "„“", "„”", "»«", "””", "「」", "『』"))
QUOTED = re.compile("|".join(
    rf"{re.escape(o)}\s*([^{re.escape(o + c)}]{{2,80}}?)\s*{re.escape(c)}" for o, c in QUOTES))
_FRENCH_INVERSION = re.compile(r"^(.+?)-(?:t-)?(il|elle|ils|elles|on|ce)$", re.I)
_LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """How one language's question words read in English.

    ``words`` maps a lower-case word form or lemma to English words ("" drops it);
    ``phrases`` maps runs of 2–4 lower-case forms or lemmas, space-separated, the same way
    and wins over ``words``; ``separable`` maps a particle that ends a clause to the verb
    lemmas it completes and their English (German "nahmen … teil": teil → {nehmen:
    participated}); ``relatives`` maps relative pronouns, read so after a comma (and a
    preposition): German "das Land, in dem …" → "in which"."""
    code: str
    words: Mapping[str, str]
    phrases: Mapping[str, str] = field(default_factory=dict)
    separable: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    relatives: Mapping[str, str] = field(default_factory=dict)
    #: case endings of names and the nominative endings they may stand for (Russian
    #: "Андорры" → "Андорра"): tried when a name in the question is not the KB's
    name_endings: tuple[tuple[str, str], ...] = ()
    #: ``words`` and ``phrases`` keyed without accents (the first key wins where two fold
    #: alike), for questions typed without them ("decede", "citta")
    folded_words: Mapping[str, str] = field(default_factory=dict)
    folded_phrases: Mapping[str, str] = field(default_factory=dict)
    #: the language has no articles (Russian): a noun right before a name is read with
    #: "the", as English writes an apposition ("группа Rammstein" → "the band Rammstein")
    articleless: bool = False
    #: the language puts an adjective of nationality after its noun: "le président
    #: indonésien Soeharto" is read "the Indonesian president Suharto", as English writes
    #: an apposition
    adjective_after: bool = False
    #: the language capitalizes every noun (German): a noun the lexicon does not know right
    #: after "which" is the class asked for, not a name ("welchem Regierungsbezirk" →
    #: "which regierungsbezirk")
    nouns_capitalized: bool = False

    def word(self, *forms: str) -> str | None:
        """The English of the first of ``forms`` (a word, its lemma) the lexicon has."""
        return _entry(self.words, self.folded_words, forms)

    def phrase(self, *forms: str) -> str | None:
        """The English of the first of ``forms`` (a run, its lemmas) the lexicon has."""
        return _entry(self.phrases, self.folded_phrases, forms)


def _entry(table: Mapping[str, str], folded: Mapping[str, str],
           forms: Iterable[str]) -> str | None:
    forms = tuple(forms)
    for form in forms:
        if form in table:
            return table[form]
    for form in forms:
        if places.strip_accents(form) == form:     # typed without accents: "decede", "citta"
            hit = folded.get(form)
            if hit is not None:
                return hit
    return None


@dataclass(frozen=True, slots=True)
class Glossed:
    """A question as the analysis reads it: ``text`` (English words where the question's
    words were known, names as written) and the question's ``lang``."""
    question: str
    lang: str
    text: str


def base_language(lang: str) -> str:
    """"pt-BR" → "pt", "EN" → "en"."""
    return lang.strip().split("-")[0].split("_")[0].lower()


def detect(text: str) -> str:
    """The language of ``text`` as a two-letter code: the detector's choice, checked
    against the lexicons. English stays English when the question opens with an English
    question word and English words are as many as the other language's (names mislead
    the detector: "Who owns Cassa di Risparmio di Venezia?", "Was Rembrandt born in
    Leiden?"). When the detector is unsure (below ``SURE``) or chose a language without a
    lexicon, the language whose lexicon knows most of the words wins (a short Russian
    question is not Belarusian), and it must know a good share of them
    (``LEXICON_SHARE``) unless the detector is clearly sure (``NOT_ENGLISH``); a
    Latin-script question with more English words than words
    of that language is English ("capital of azerbaijan?"). English for a text without
    letters."""
    if not any(ch.isalpha() for ch in text):
        return "en"
    identifier = _identifier()
    with _LOCK:
        ranked = identifier.rank(text)
    best, best_p = ranked[0]
    lows = [m.group().lower() for m in _TOKEN.finditer(text)]
    if best == "en" or not lows:
        return best
    coverage = {lang: _coverage(lows, lang) for lang in (best, *LEXICON_LANGUAGES)}
    rival = max(coverage, key=lambda lang: coverage[lang])
    if coverage[rival] > coverage[best] and (
            best_p < SURE or (lexicon(best) is None and coverage[rival] >= LEXICON_SHARE)):
        best = rival
    english = sum(1 for w in lows if w in _ENGLISH_WORDS) / len(lows)
    if lows[0] in ENGLISH_OPENERS and english >= coverage[best]:
        return "en"
    if best_p < NOT_ENGLISH and _looks_latin(text) and \
            sum(1 for w in lows if _is_english(w)) / len(lows) > coverage[best]:
        return "en"         # "capital of azerbaijan?": more English words than Spanish
    if best_p >= NOT_ENGLISH or coverage[best] >= LEXICON_SHARE or \
            (best_p >= SURE and lexicon(best) is not None):
        return best
    return "en" if _looks_latin(text) else best


def _coverage(lows: list[str], lang: str) -> float:
    """The share of ``lows`` (single letters aside) that ``lang``'s lexicon knows as
    written; 0 without a lexicon."""
    lex = lexicon(lang)
    if lex is None:
        return 0.0
    return sum(1 for w in lows if len(w) > 1 and lex.word(w) is not None) / len(lows)


@functools.lru_cache(maxsize=8192)
def _is_english(word: str) -> bool:
    """Whether ``word`` is in lemminflect's English dictionary or question machinery."""
    from lemminflect import getAllLemmas
    return word in _ENGLISH_WORDS or bool(getAllLemmas(word))


#: words an English question opens with (``linking.lexicon.en``)
ENGLISH_OPENERS = _en.QUESTION_OPENERS
#: English question machinery and common relation verbs: an English question's share of
#: them is compared with another language's lexicon's
_ENGLISH_WORDS = FRAME_WORDS | AUXILIARIES | VERB_FORMS | _en.CONNECTIVES
#: the detector's probability from which its choice stands without a lexicon's support
#: (for a language with a lexicon), and from which it stands for any language
SURE, NOT_ENGLISH = 0.5, 0.9
#: the share of a question's words a lexicon must know to overrule an unsure detector
LEXICON_SHARE = 0.25


def _looks_latin(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(1 for ch in letters if _LATIN.match(ch)) >= 0.8 * len(letters)


_LOCK = threading.Lock()


@functools.cache
def _identifier() -> Any:           # a py3langid LanguageIdentifier (the library is untyped)
    from py3langid.langid import MODEL_FILE, LanguageIdentifier
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages([lang for lang in DETECTABLE if lang in identifier.nb_classes])
    return identifier


def lexicon(lang: str) -> Lexicon | None:
    """The lexicon of ``lang`` (its base language), None for English and for languages
    without one."""
    return _lexicon(base_language(lang))


@functools.cache
def _lexicon(code: str) -> Lexicon | None:
    if code not in LEXICON_LANGUAGES:
        return None
    module = importlib.import_module(f"querygen.languages.{code}")

    def folded(table: Mapping[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, value in table.items():
            out.setdefault(places.strip_accents(key), value)
        return out
    # the module's question words win over its class nouns where both have a word
    words = {**getattr(module, "CLASS_NOUNS", {}), **module.WORDS}
    # a phrase's words as ``_tokens`` splits them: "m'indiquer" is "m indiquer"
    phrases = {_APOSTROPHE.sub(" ", key): value for key, value in
               {**getattr(module, "CLASS_PHRASES", {}), **module.PHRASES}.items()}
    return Lexicon(code, words, phrases, getattr(module, "SEPARABLE", {}),
                   getattr(module, "RELATIVES", {}),
                   tuple(getattr(module, "NAME_ENDINGS", ())),
                   folded(words), folded(phrases),
                   bool(getattr(module, "ARTICLELESS", False)),
                   bool(getattr(module, "ADJECTIVE_AFTER", False)),
                   bool(getattr(module, "NOUNS_CAPITALIZED", False)))


#: the letters a misspelling is mended with, by script
_CYRILLIC_LETTERS = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
_LATIN_LETTERS = "abcdefghijklmnopqrstuvwxyzäöüßéèêëàâîïôûùçñáíóúãõì"


def _correct_misspellings(question: str, tokens: list[tuple[int, int]], lows: list[str],
                          lemmas: list[str], lex: Lexicon | None,
                          known: Callable[[Sequence[str]], set[str]] | None = None) -> None:
    """Reads, in place, each lower-case word of at least ``MIN_MISSPELLED`` letters that
    neither the lexicon nor simplemma knows as the one word (of the language, one letter
    changed, added, dropped or two swapped) that simplemma knows and the lexicon reads:
    "gestorbn" → "gestorben", "intrumentos" → "instrumentos", "произвадил" → "производил".
    Left alone when no such word, or several read differently, are found, when the KB
    knows the word as a name (``known``), and in a language without a lexicon."""
    if lex is None:
        return
    import simplemma
    for i, (s, e) in enumerate(tokens):
        low = lows[i]
        if question[s:e] != low or len(low) < MIN_MISSPELLED or not low.isalpha() or \
                lex.word(low, lemmas[i]) is not None or simplemma.is_known(low, lex.code):
            continue
        readings: dict[str, tuple[str, str]] = {}
        letters = _CYRILLIC_LETTERS if not _LATIN.search(low) else _LATIN_LETTERS
        for form in one_letter_away(low, letters):
            if simplemma.is_known(form, lex.code):
                lemma_ = lemma(form, lex.code)
                english = lex.word(form, lemma_)
                if english:
                    readings.setdefault(english, (form, lemma_))
        if len(readings) == 1 and not (known is not None and known([low])):
            lows[i], lemmas[i] = next(iter(readings.values()))


def lemma(word: str, lang: str) -> str:
    """The lemma of a lower-case ``word`` (itself when simplemma does not know it)."""
    import simplemma
    try:
        return simplemma.lemmatize(word, lang=lang).lower()
    except (ValueError, KeyError):
        return word


def gloss(question: str, lang: str, *, known: Callable[[Sequence[str]], set[str]] | None = None,
          normalize: Callable[[str], str] | None = None,
          properties: Mapping[str, str] | None = None,
          longer: Callable[[str], list[str]] | None = None) -> Glossed:
    """``question`` read into English words for the analysis (see the module docstring).

    ``known(norms)`` answers which normalized names the KB knows, ``normalize`` is the
    KB's name normalization, ``properties`` maps the KB's normalized property names in
    ``lang`` to the property's English label, ``longer(norm)`` gives the KB's longer
    names that contain every word of ``norm`` (a surname alone: "робеспьер" →
    "максимилиан робеспьер"). Without ``known`` no name is protected."""
    code = base_language(lang)
    lex = lexicon(code)
    if code == "en":
        return Glossed(question, code, question)
    tokens = _tokens(question, code)
    lows = [question[s:e].lower() for s, e in tokens]
    lemmas = [lemma(w, code) for w in lows] if lex is not None else lows
    _correct_misspellings(question, tokens, lows, lemmas, lex, known)
    norm = normalize or (lambda s: " ".join(s.lower().split()))
    protected = _names(question, tokens, lows, lemmas, lex, known, norm, properties or {})
    protected |= _quoted(question, tokens)
    replacements: list[tuple[int, int, str]] = []
    forced = {**_genitives(question, tokens, lows, lex),
              **_relatives(question, tokens, lows, lex),
              **_separable(lows, lemmas, lex, protected)}
    cased = _cased(question, tokens)
    declined = _declined_names(question, tokens, lows, lemmas, lex, known, norm,
                               protected, longer) if known is not None else {}
    place_names = _place_names(question, tokens, lows, lemmas, lex, code,
                               protected | set(declined))
    aside = _aside(question, tokens, lows, lemmas, lex, protected, properties or {}, norm)
    if aside is not None:
        replacements.append((aside[0], aside[1], ""))
    class_nouns = _class_nouns_after_which(question, tokens, lows, lemmas, lex, protected)
    relative = _relative_starts(question, tokens, lows, lemmas, lex)
    i = 0
    while i < len(tokens):
        # "Nova Zelândia", not "Nova"; "Germania" the country, not the KB's province
        longer_place = i in place_names
        if i in class_nouns:
            replacements.append((tokens[i][0], tokens[i][1],
                                 _class_noun(question, tokens, i, lows[i], lex, known, norm)))
            i += 1
            continue
        if (i in protected and not longer_place) or \
                (aside is not None and aside[0] <= tokens[i][0] < aside[1]):
            i += 1
            continue
        hit = (1, forced[i]) if i in forced else declined.get(i) or place_names.get(i) or \
            _lookup(i, lows, lemmas, lex, properties or {}, protected, norm)
        if hit is None:
            written = _unread(question, tokens, i, lemmas[i], lows[i], cased, lex,
                              transliterate=known is not None,
                              before_name=i + 1 in protected)
            if written is not None:
                replacements.append((tokens[i][0], tokens[i][1], written))
            i += 1
            continue
        length, english = hit
        end, english = _in_place(question, tokens, i + length, english, lex, protected,
                                 declined, replacements, relative)
        replacements.append((tokens[i][0], end, english))
        i += length
    if lex is not None and lex.adjective_after:
        replacements = _adjectives_first(question, tokens, place_names, protected, declined,
                                         replacements, _reads_which(lex, lows, lemmas))
    return Glossed(question, code, _replaced(question, sorted(replacements)))


def _reads_which(lex: Lexicon, lows: Sequence[str], lemmas: Sequence[str]) -> list[bool]:
    """Per word, whether the lexicon reads it as "which"."""
    return [lex.word(w, m) == "which" for w, m in zip(lows, lemmas, strict=True)]


#: "of" in the languages that put an adjective after its noun
_OF = frozenset("de di da do du del della dello".split())


def _adjectives_first(question: str, tokens: list[tuple[int, int]],
                      place_names: Mapping[int, tuple[int, str]], protected: set[int],
                      declined: Mapping[int, tuple[int, str]],
                      replacements: list[tuple[int, int, str]],
                      which: Sequence[bool]) -> list[tuple[int, int, str]]:
    """``replacements`` with a lower-case nationality word that follows a lower-case noun
    and comes before a name (or "of" and a name), or after "which" (``which``: the words
    read so), put before the noun ("il pittore italiano Caravaggio" → "the Italian pittore
    Caravaggio", "la ville française de Lyon" → "the French city of Lyon", "quale
    provincia cinese" → "which Chinese province"): the order of an English apposition; so
    too in a name written with capitals ("l'Università Ebraica" → "the Hebrew
    University")."""
    out = list(replacements)

    def of_name(j: int) -> bool:        # "la ville française de Lyon"
        return j < len(tokens) and question[tokens[j][0]:tokens[j][1]].lower() in _OF and \
            _before_name(question, tokens, j + 1, protected, declined)
    for i, (n, english) in place_names.items():
        if n != 1 or i < 1:
            continue
        (s0, e0), (s1, e1) = tokens[i - 1], tokens[i]
        noun, adjective = question[s0:e0], question[s1:e1]
        described = noun.islower() and adjective.islower() and (
            _before_name(question, tokens, i + 1, protected, declined) or of_name(i + 1)
            or (i >= 2 and which[i - 2]))
        named = noun[:1].isupper() and adjective[:1].isupper() and i - 1 not in protected
        if not (described or named) or question[e0:s1] != " ":
            continue
        own = [r for r in out if r[0] == s0 and r[1] <= s1]
        noun_english = own[0][2].strip() if own else noun
        out = [r for r in out if not (r in own or r[0] == s1)]
        out.append((s0, e1, f"{english} {noun_english}"))
    return out


def _in_place(question: str, tokens: list[tuple[int, int]], after: int, english: str,
              lex: Lexicon | None, protected: set[int], declined: Mapping[int, tuple[int, str]],
              replacements: list[tuple[int, int, str]],
              relative: Collection[int] = ()) -> tuple[int, str]:
    """The end of the span a run of words (ending before word ``after``) is replaced over,
    and its English as it reads there: an elided article takes its apostrophe ("l'auteur"),
    an "of" before a comma is dropped, and in a language without articles a noun before
    a name, or before a relative clause (``relative``: the words that open one), takes
    "the" ("из какой страны компания, которая …": "the company, which …")."""
    end = tokens[after - 1][1]
    if question[end:end + 1] in ("'", "\u2019"):          # elided: "l'auteur", "dell'anno"
        return end + 1, english + " "
    if _ends_clause(question, end):
        english = _DANGLING.sub("", english)               # "континент, на котором …"
    if lex is not None and lex.articleless and _apposition_noun(english, replacements) \
            and (_before_name(question, tokens, after, protected, declined) or
                 after in relative):
        english = "the " + english                          # "группа Rammstein"
    return end, english


def _before_name(question: str, tokens: list[tuple[int, int]], j: int,
                 protected: set[int], declined: Mapping[int, tuple[int, str]]) -> bool:
    """Whether word ``j`` begins a name: one the KB knows (as written or declined), a
    capitalized word, or a word in Latin letters in a question in another script."""
    if j >= len(tokens):
        return False
    word = question[tokens[j][0]:tokens[j][1]]
    latin_in_other = bool(_LATIN.match(word)) and not _looks_latin(question)
    return j in protected or j in declined or word[:1].isupper() or latin_in_other


def _apposition_noun(english: str, replacements: list[tuple[int, int, str]]) -> bool:
    """Whether ``english`` reads as a bare noun (one word, no function word, a noun where
    English knows the word) and the English before it is no determiner or question word
    ("какая группа" is "which band", not "which the band")."""
    if " " in english or not english or english in _en.STOPWORDS or english in VERB_FORMS:
        return False
    from lemminflect import getAllLemmas
    parts = getAllLemmas(english.lower())
    if parts and "NOUN" not in parts:
        return False                # "работал Фергюсон" is "worked Ferguson", no apposition
    before = replacements[-1][2].split() if replacements else []
    return not before or before[-1] not in _DETERMINERS


#: English words after which a noun takes no article
_DETERMINERS = _en.QUESTION_WORDS | {"the", "a", "an", "this", "that", "these", "those",
                                     "its", "his", "her", "their", "some", "any", "each"}
#: an "of" (a genitive's English) that nothing follows
_DANGLING = re.compile(r"\s+of(?:\s+the)?$")
#: a comma after a word: a relative clause or an aside follows
_CLAUSE_END = re.compile(r"\s*,")


def _ends_clause(question: str, end: int) -> bool:
    """Whether a comma follows the word ending at ``end``: a noun read as "N of" there
    has nothing to be "of" — "Назови континент, на котором …" is "name the continent,
    on which …". (Before the question mark, "Кэри Прайс — амплуа?", "position of?" still
    asks about the topic before the dash.)"""
    return _CLAUSE_END.match(question, end) is not None


def _aside(question: str, tokens: list[tuple[int, int]], lows: list[str],
           lemmas: list[str], lex: Lexicon | None, protected: set[int],
           properties: Mapping[str, str], norm: Callable[[str], str]
           ) -> tuple[int, int] | None:
    """The span (with its comma) of an aside set off by a comma at the start or the end
    of the question, if there is one (see the module docstring and ``_is_aside``); the
    rest of the question must ask with a question word."""
    if lex is None or len(tokens) < 3:
        return None
    cased = _cased(question, tokens)
    for idx, span in _comma_ends(question, tokens):
        if not 0 < len(idx) <= MAX_ASIDE or len(idx) == len(tokens):
            continue
        if not all(_is_aside(question, tokens, i, lows[i], lemmas[i], lex, cased,
                             protected, properties, norm) for i in idx):
            continue
        rest = [j for j in range(len(tokens)) if j not in idx]
        if any(set((lex.word(lows[j], lemmas[j]) or "").split()) & _en.QUESTION_WORDS
               for j in rest):
            return span
    return None


def _comma_ends(question: str, tokens: list[tuple[int, int]]
                ) -> list[tuple[list[int], tuple[int, int]]]:
    """The words before the first comma and after the last one, each with the span to
    drop for them (the comma included)."""
    first_comma = question.find(",", tokens[0][1])
    last_comma = question.rfind(",", 0, tokens[-1][0])
    out = []
    if first_comma >= 0:
        out.append(([i for i, (s, _) in enumerate(tokens) if s < first_comma],
                    (tokens[0][0], first_comma + 1)))
    if last_comma >= 0:
        out.append(([i for i, (s, _) in enumerate(tokens) if s > last_comma],
                    (last_comma, tokens[-1][1])))
    return out


def _is_aside(question: str, tokens: list[tuple[int, int]], i: int, low: str, lemma_: str,
              lex: Lexicon, cased: bool, protected: set[int],
              properties: Mapping[str, str], norm: Callable[[str], str]) -> bool:
    """Whether word ``i`` may be part of an aside: read as ``ASIDE_WORDS``, or unknown to
    the lexicon — only in a question that capitalizes its names, and not as its first
    word ("Rammstein, wo …" may be a name the KB lacks) — and no name (protected,
    capitalized after the first word, a digit) or property name."""
    if i in protected or low[:1].isdigit() or norm(low) in properties or \
            norm(lemma_) in properties:
        return False
    if i > 0 and question[tokens[i][0]:tokens[i][1]][:1].isupper():
        return False
    english = lex.word(low, lemma_)
    if english is None:
        return cased and i > 0
    return set(english.split()) <= ASIDE_WORDS


#: the shortest head and modifier of a compound noun ``_compound_head`` splits
COMPOUND_HEAD, COMPOUND_MODIFIER = 4, 3


def _class_noun(question: str, tokens: list[tuple[int, int]], i: int, low: str,
                lex: Lexicon | None, known: Callable[[Sequence[str]], set[str]] | None,
                norm: Callable[[str], str]) -> str:
    """How the class noun after "which" (word ``i``) reads: as written in lower case, for
    the class labels of its language to match ("welchem Regierungsbezirk": the KB names
    that class so), or a compound's head in English ("welchen Literaturpreis": award)."""
    if known is not None and known([norm(low)]):
        return low
    return _compound_head(question[tokens[i][0]:tokens[i][1]], lex) or low


def _unread(question: str, tokens: list[tuple[int, int]], i: int, lemma_: str, low: str,
            cased: bool, lex: Lexicon | None, *, transliterate: bool,
            before_name: bool = False) -> str | None:
    """What to write for word ``i``, which no lexicon entry reads: a name in another
    script in Latin letters (with ``transliterate``); a compound noun's head in English
    when a capitalized word follows, which it describes ("der Energiekonzern Eni"; a
    compound alone may be a name: "Kapstadt"); a noun the lexicon does not know between
    an article and a name the KB knows (``before_name``), in lower case, as English
    writes an apposition ("der Psychoanalytikerin Melanie Klein": not part of the name);
    None: the word as it is."""
    word = question[tokens[i][0]:tokens[i][1]]
    latin = _transliteration(word, lemma_, low, cased) if transliterate else None
    described = i + 1 < len(tokens) and question[tokens[i + 1][0]].isupper()
    head = _compound_head(word, lex) if described else _feature_name(word, lex)
    if latin or head:
        return latin or head
    if before_name and lex is not None and lex.nouns_capitalized and i > 0 and \
            lex.word(question[tokens[i - 1][0]:tokens[i - 1][1]].lower()) in ("the", "of the"):
        return low
    return None


def _feature_name(word: str, lex: Lexicon | None) -> str | None:
    """A hyphenated name of a natural feature in a language that capitalizes its nouns,
    as English writes it ("Kola-Bucht" → "Kola Bay"); None for any other word."""
    if lex is None or not lex.nouns_capitalized or "-" not in word:
        return None
    name, _, noun = word.rpartition("-")
    english = lex.word(noun.lower())
    if not name or english not in FEATURE_NOUNS:
        return None
    return f"{name} {english.title()}"


def _compound_head(word: str, lex: Lexicon | None) -> str | None:
    """The English of the head of a compound noun no lexicon entry reads, in a language
    that writes compounds as one capitalized word ("Literaturpreis": award,
    "Stadtbezirk": district, "Energiekonzern": company): its longest last part the
    lexicon reads; None when there is none (a name stays as written)."""
    if lex is None or not lex.nouns_capitalized or not word[:1].isupper():
        return None
    low = word.lower()
    for k in range(COMPOUND_MODIFIER, len(low) - COMPOUND_HEAD + 1):
        english = lex.word(low[k:])
        if english:
            return english
    return None


def _transliteration(word: str, lemma_: str, low: str, cased: bool) -> str | None:
    """A word no lexicon reads, written in Latin letters when it is in another script and
    may be a name (capitalized, or the question has no capitals): its lemma's (the
    nominative a label is written in: "Клегга" → Клегг) transliteration, capitalized as
    the word is; None when there is nothing to replace."""
    # a hyphenated particle of a name is capitalized after it ("ад-Дин")
    capital = any(part[:1].isupper() for part in word.split("-"))
    # a run of Chinese or Japanese is no word (no spaces): never transliterated as
    # one; the linker finds the names inside it
    if not _LATIN.search(word) and not CJK.search(word) and \
            (capital or not cased) and any(ch.isalpha() for ch in word):
        # the lemma is the nominative a label is written in ("Клегга" → Клегг); a
        # hyphenated particle is not declined
        latin = _transliterated(lemma_ if lemma_ != low and "-" not in word else word)
        if word[:1].isupper():
            latin = latin[:1].upper() + latin[1:]
        if latin and latin != word:
            return latin
    return None


def _class_nouns_after_which(question: str, tokens: list[tuple[int, int]], lows: list[str],
                             lemmas: list[str], lex: Lexicon | None,
                             protected: set[int]) -> set[int]:
    """Indexes of the capitalized nouns right after "which" that no lexicon reads, in a
    language that capitalizes its nouns: the class asked for ("Zu welchem Regierungsbezirk
    gehört …?" → "which regierungsbezirk"), even where the KB knows the class by that name
    (not the first word of a longer name the KB knows)."""
    if lex is None or not lex.nouns_capitalized:
        return set()
    out = set()
    for i in range(1, len(tokens)):
        word = question[tokens[i][0]:tokens[i][1]]
        if word[:1].isupper() and word[1:].islower() and \
                lex.word(lows[i - 1], lemmas[i - 1]) == "which" and \
                lex.word(lows[i], lemmas[i]) is None and \
                not (i in protected and i + 1 in protected):
            out.add(i)
    return out


def _replaced(question: str, replacements: list[tuple[int, int, str]]) -> str:
    """``question`` with each (start, end, English) span replaced, then spaces tidied
    (no ¿ ¡, no double spaces, none before punctuation)."""
    text = question
    for start, end, english in reversed(replacements):
        text = text[:start] + english + text[end:]
    text = re.sub(r"\s{2,}", " ", re.sub(r"[¿¡]", "", text))
    return re.sub(r"\s+([?!.,;:])", r"\1", text).strip()


def _cased(question: str, tokens: list[tuple[int, int]]) -> bool:
    """Whether the question capitalizes its names: any word with a capital at all (a
    question typed all in lower case has no capitals to tell names by)."""
    return any(question[s:e][:1].isupper() for s, e in tokens)


def _declined_names(question: str, tokens: list[tuple[int, int]], lows: list[str],
                    lemmas: list[str], lex: Lexicon | None,
                    known: Callable[[Sequence[str]], set[str]],
                    norm: Callable[[str], str], protected: set[int],
                    longer: Callable[[str], list[str]] | None = None
                    ) -> dict[int, tuple[int, str]]:
    """Names in another script written in another case than the KB's label (Russian
    "Андорры", "Ника Клегга"): runs of up to three non-Latin words, none a lexicon word,
    whose lemmas the KB knows as a name. Their first index → (length, the lemmas). A
    capitalized word alone that names nothing, as written or in a nominative, may be a
    surname: it is read as the KB's longer name that ends with it (``_full_name``)."""
    runs: dict[str, tuple[int, int, list[str]]] = {}
    for i in range(len(tokens)):
        for n in range(min(3, len(tokens) - i), 0, -1):
            idx = range(i, i + n)
            words = [question[tokens[j][0]:tokens[j][1]] for j in idx]
            if any(j in protected or _LATIN.search(w) or not w[:1].isalpha() or
                   (lex is not None and lex.word(lows[j], lemmas[j]) is not None)
                   for j, w in zip(idx, words)):
                continue
            for form in _nominatives([lows[j] for j in idx], [lemmas[j] for j in idx], lex):
                runs.setdefault(norm(" ".join(form)), (i, n, form))
    hits = known(list(runs)) if runs else set()
    order = {key: n for n, key in enumerate(runs)}      # the first form tried wins a tie
    out: dict[int, tuple[int, str]] = {}
    taken: set[int] = set()
    names = _foreign_name_runs(question, tokens, lows, lemmas, lex)
    for key in sorted(hits, key=lambda k: (-runs[k][1], order[k])):
        i, n, form = runs[key]
        if any(i in r and range(i, i + n) != r for r in names):
            continue    # "Феррари" of "Энцо Феррари" is no Феррара: the name is the run
        if taken.isdisjoint(range(i, i + n)):
            taken.update(range(i, i + n))
            out[i] = (n, " ".join(w[:1].upper() + w[1:] for w in form))
    if longer is not None:
        named = taken | protected | {j for k in hits
                                     for j in range(runs[k][0], runs[k][0] + runs[k][1])}
        out.update(_surnames(question, tokens, lows, lemmas, lex, named, norm, longer))
    return out


def _surnames(question: str, tokens: list[tuple[int, int]], lows: list[str],
              lemmas: list[str], lex: Lexicon | None, named: set[int],
              norm: Callable[[str], str], longer: Callable[[str], list[str]]
              ) -> dict[int, tuple[int, str]]:
    """Capitalized words in another script, alone (``_name_beside``), that no name the
    KB knows covers (``named``) and that are neither lexicon words nor CLDR's places:
    their index → (1, the KB's full name ending with them, ``_full_name``)."""
    out: dict[int, tuple[int, str]] = {}
    for i, (s, e) in enumerate(tokens):
        word = question[s:e]
        if i in named or _LATIN.search(word) or not word[:1].isupper() or \
                (lex is not None and lex.word(lows[i], lemmas[i]) is not None):
            continue
        if _name_beside(question, tokens, i, lows, lemmas, lex) or \
                _cldr_name(lows[i], lemmas[i], lex):
            continue      # "Антон" of "Антон Чехов"; "Филиппин" is the Philippines
        forms = [lows[i]] + [f[0] for f in _nominatives([lows[i]], [lemmas[i]], lex)]
        full = _full_name(forms, norm, longer)
        if full is not None:
            out[i] = (1, full)
    return out


def _cldr_name(low: str, lemma_: str, lex: Lexicon | None) -> bool:
    """Whether CLDR names a country, city or language so in the lexicon's language."""
    if lex is None:
        return False
    names = places.english_names(lex.code)
    forms = [low, lemma_, *places.inflected_forms(low, lex.code)]
    return any(places.fold(f) in names for f in forms)


def _name_beside(question: str, tokens: list[tuple[int, int]], i: int, lows: list[str],
                 lemmas: list[str], lex: Lexicon | None) -> bool:
    """Whether a capitalized word the lexicon does not know stands right before or after
    word ``i``: then ``i`` is part of a longer name."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(tokens):
            word = question[tokens[j][0]:tokens[j][1]]
            if word[:1].isupper() and (lex is None or lex.word(lows[j], lemmas[j]) is None):
                return True
    return False


def _full_name(forms: Sequence[str], norm: Callable[[str], str],
               longer: Callable[[str], list[str]]) -> str | None:
    """The KB's name of two words that ends with one of ``forms`` (a surname, nearest
    form first), its given name longer than an initial: "прокофьев" → "сергеи
    прокофьев", not "с прокофьев". Capitalized; None when the KB has none."""
    for form in dict.fromkeys(forms):
        key = norm(form)
        if len(key) < MIN_SURNAME:
            continue
        for name in longer(key):
            words = name.split()
            if len(words) == 2 and words[1] == key and len(words[0]) > 2:
                return " ".join(w[:1].upper() + w[1:] for w in words)
    return None


def _place_names(question: str, tokens: list[tuple[int, int]], lows: list[str],
                 lemmas: list[str], lex: Lexicon | None, code: str, taken: set[int]
                 ) -> dict[int, tuple[int, str]]:
    """Countries, continents, cities and languages written as ``code`` writes them, where
    the KB does not know that name (``taken``: names it knows): their first index →
    (length, the English name), from CLDR (``querygen.languages.places``). No word of the
    lexicon is one ("какой" is no Kako), nor a run of them alone; a longer name wins over
    a shorter one the KB knows ("Nuova Zelanda" over "Zelanda"). A place's name is
    capitalized where the question capitalizes its names, and stands alone: a capitalized
    word beside it that the lexicon does not know (and not the question's first) makes it
    part of another name ("Maurice Ravel" is no Mauritius); only a capitalized word is
    read as a declined name."""
    names = places.english_names(code)
    if not names:
        return {}
    # a country's name in Latin letters wins over the KB's English label of another
    # thing ("Germania", "Spagna"); in another script the KB's name is the country's own
    territories = places.territory_names(code)
    cased = _cased(question, tokens)
    words = [question[s:e] for s, e in tokens]

    def known_word(j: int) -> bool:
        return lex is not None and lex.word(lows[j], lemmas[j]) is not None

    def capital(j: int) -> bool:
        return 0 < j < len(words) and words[j][:1].isupper() and not known_word(j)
    out: dict[int, tuple[int, str]] = {}
    i = 0
    while i < len(tokens):
        for n in range(min(MAX_PHRASE, len(tokens) - i), 0, -1):
            run = range(i, i + n)
            lexical = [known_word(j) for j in run]
            # a name the KB knows wins, unless the place's name is longer: "Nuova Zelanda"
            # is New Zealand, though the KB knows "Zelanda"; "какой" is no Kako
            if _kb_name_wins(run, taken, lows, territories) or all(lexical) or \
                    (n == 1 and any(lexical)):
                continue
            forms = [places.fold(" ".join(lows[j] for j in run)),
                     places.fold(" ".join(lemmas[j] for j in run))]
            if n == 1 and words[i][:1].isupper():
                forms += places.inflected_forms(lows[i], code)
            hit = next((names[f] for f in forms if f in names), None)
            if hit is None:
                continue
            english, kind = hit
            if kind == "place" and (cased and not _capitalized(words, run) or
                                    capital(i - 1) or capital(i + n)):
                continue
            if places.fold(english) != forms[0]:
                out[i] = (n, english)
            i += n - 1
            break
        i += 1
    return out


def _kb_name_wins(run: range, taken: set[int], lows: list[str],
                  territories: frozenset[str]) -> bool:
    """Whether a name the KB knows (``taken``) covers the words at ``run``, so that no
    place's name is read there: a longer place's name still is, and so is a country's
    name in Latin letters (``territories``) that the KB labels another thing with, alone
    (not a word of a longer name the KB knows: "Dominique de Villepin")."""
    if len(run) > 1:
        return taken.issuperset(run)
    i = run[0]
    alone = i - 1 not in taken and i + 1 not in taken
    return i in taken and not (alone and _LATIN.search(lows[i]) and
                               places.fold(lows[i]) in territories)


def _capitalized(words: Sequence[str], run: range) -> bool:
    """Whether a place's name at ``run`` is written as a name: its first word capitalized,
    or for several words any ("les îles Féroé")."""
    return any(words[j][:1].isupper() for j in (run if len(run) > 1 else run[:1]))


def _nominatives(lows: list[str], lemmas: list[str], lex: Lexicon | None
                 ) -> list[list[str]]:
    """Other forms of a name's words the KB may write it in: the words with a case ending
    swapped for a nominative one (every word the same way), then, for several words, each
    word its own way (an ending swapped or its lemma), then the lemmas — last, as a
    lemmatizer knows nouns better than names ("Германии" is Германия, not germanium)."""
    out = []
    endings = lex.name_endings if lex is not None else ()
    for ending, nominative in endings:
        if all(w.endswith(ending) and len(w) > len(ending) + 2 for w in lows):
            out.append([w[:len(w) - len(ending)] + nominative for w in lows])
    if len(lows) > 1:
        # each word its own way: "Льва Толстого" is Лев (the lemma) Толстой (-ого → -ой)
        options = [[w[:len(w) - len(e)] + nom for e, nom in endings
                    if w.endswith(e) and len(w) > len(e) + 2] + [lm]
                   for w, lm in zip(lows, lemmas)]
        out += [list(form) for form in itertools.islice(itertools.product(*options),
                                                        MAX_DECLINED)]
    return [list(f) for f in dict.fromkeys(map(tuple, out + [lemmas])) if list(f) != lows]


def _quoted(question: str, tokens: list[tuple[int, int]]) -> set[int]:
    """Indexes of the tokens inside a quoted title (``QUOTED``): kept as written."""
    return {i for m in QUOTED.finditer(question) for i, (s, e) in enumerate(tokens)
            if m.start() <= s and e <= m.end()}


def _tokens(question: str, code: str) -> list[tuple[int, int]]:
    """Word spans; a French inverted pronoun ("est-il") is a word of its own."""
    out = []
    for m in _TOKEN.finditer(question):
        s, e = m.span()
        inv = _FRENCH_INVERSION.match(m.group()) if code == "fr" else None
        if inv is not None and inv.group(1).lower() not in ("peut", "c"):
            split = s + len(inv.group(1))
            out += [(s, split), (split, e)]
        else:
            out.append((s, e))
    return out


def _separable(lows: list[str], lemmas: list[str], lex: Lexicon | None,
               protected: set[int]) -> dict[int, str]:
    """A verb split around the clause ("nahmen … teil", "kam … zur Welt"): the verb's
    index → its English, the particle's words → ""."""
    if lex is None or not lex.separable or not lows:
        return {}
    for size in (2, 1):
        first = len(lows) - size
        verbs = lex.separable.get(" ".join(lows[first:])) if first > 0 else None
        if verbs is None or any(j in protected for j in range(first, len(lows))):
            continue
        for j in range(first - 1, -1, -1):
            english = verbs.get(lemmas[j]) or verbs.get(lows[j])
            if english is not None and j not in protected:
                return {j: english, **{k: "" for k in range(first, len(lows))}}
    return {}


def _genitives(question: str, tokens: list[tuple[int, int]], lows: list[str],
               lex: Lexicon | None) -> dict[int, str]:
    """In a language that capitalizes its nouns, the articles that are a genitive right
    after a noun the lexicon reads (German "der Geburtsort *der* Psychoanalytikerin", "die
    Hauptstadt *der* Schweiz"): their index → "of the". The first word is no such noun,
    nor is a name ("Alexander der Große")."""
    if lex is None or not lex.nouns_capitalized:
        return {}
    return {i: "of the" for i in range(2, len(tokens))
            if lows[i] in GENITIVE_ARTICLES and question[tokens[i - 1][0]].isupper() and
            lex.word(lows[i - 1]) is not None}


def _relative_starts(question: str, tokens: list[tuple[int, int]], lows: list[str],
                     lemmas: list[str], lex: Lexicon | None) -> set[int]:
    """Indexes of the words that open a relative clause after a comma: the relative
    pronoun ("компания, *которая* …") or the preposition before it ("континент, *на*
    котором …")."""
    if lex is None:
        return set()
    out = set()
    for j in range(1, len(tokens)):
        if lex.word(lows[j], lemmas[j]) not in ("which", "who", "that"):
            continue
        for start in (j, j - 1):
            if start >= 1 and "," in question[tokens[start - 1][1]:tokens[start][0]]:
                out.add(start)
    return out


def _relatives(question: str, tokens: list[tuple[int, int]], lows: list[str],
               lex: Lexicon | None) -> dict[int, str]:
    """Relative pronouns after a comma ("das Land, in dem …", "le pays dont …"): their
    index → "which" (or the lexicon's word for them)."""
    if lex is None or not lex.relatives:
        return {}
    out = {}
    for i in range(1, len(tokens)):
        between = question[tokens[i - 1][1]:tokens[i][0]]
        after_comma = "," in between
        after_preposition = i >= 2 and "," in question[tokens[i - 2][1]:tokens[i - 1][0]] \
            and lex.words.get(lows[i - 1], "").split()[:1] in (["in"], ["of"], ["at"],
                                                               ["from"], ["on"], ["with"])
        if lows[i] in lex.relatives and (after_comma or after_preposition):
            out[i] = lex.relatives[lows[i]]
    return out


def _lookup(i: int, lows: list[str], lemmas: list[str], lex: Lexicon | None,
            properties: Mapping[str, str], protected: set[int],
            norm: Callable[[str], str]) -> tuple[int, str] | None:
    """The longest run from ``i`` the lexicon or the KB's property names know: (its
    length in words, its English words). A phrase is matched as written and also across
    filler words (those the lexicon drops: "kam *eigentlich* zur Welt"), which then go
    with it."""
    fillers = {j for j in range(i + 1, len(lows))
               if lex is not None and lex.word(lows[j], lemmas[j]) == ""}
    for n in range(min(MAX_PHRASE, len(lows) - i), 0, -1):
        runs = [list(range(i, i + n))]
        across = [i] + [j for j in range(i + 1, len(lows)) if j not in fillers][:n - 1]
        if across != runs[0] and len(across) == n:
            runs.append(across)
        for run in runs:
            if any(j in protected for j in range(i, run[-1] + 1)):
                continue
            forms = tuple(dict.fromkeys((" ".join(lows[j] for j in run),
                                         " ".join(lemmas[j] for j in run))))
            if lex is not None:
                hit = lex.phrase(*forms) if n > 1 else lex.word(*forms)
                if hit is not None:
                    return run[-1] + 1 - i, hit
            for form in forms:
                label = properties.get(norm(form))
                if label is not None:
                    return run[-1] + 1 - i, label
    return None


def _names(question: str, tokens: list[tuple[int, int]], lows: list[str],
           lemmas: list[str], lex: Lexicon | None,
           known: Callable[[Sequence[str]], set[str]] | None,
           norm: Callable[[str], str], properties: Mapping[str, str]) -> set[int]:
    """Indexes of words inside a run of words that the KB knows as a name ("La Casa de
    Papel", "Justice League", "Польша"). Not a name: a run of lexicon words, a phrase of
    the lexicon, a word the KB names a property with (read as that property), and in a
    question that capitalizes its names, a run without a capital ("maison de disques"
    names the class *record label*, which the question asks as a relation) or one that
    begins or ends with a lower-case lexicon word ("o Canadá"). A word in capitals is a
    name ("Wo liegt MIT?") unless the whole question is."""
    if known is None:
        return set()
    cased = _cased(question, tokens)
    shouting = question.upper() == question
    out: set[int] = {i for i, (s, e) in enumerate(tokens)      # "Wo liegt MIT?": a name
                     if not shouting and e - s >= 2 and question[s:e].isupper()}
    runs: dict[str, tuple[int, int]] = {}
    in_phrase = _in_phrases(lows, lemmas, lex)
    for i in range(len(tokens)):
        for n in range(1, min(MAX_NAME, len(tokens) - i) + 1):
            words = [question[s:e] for s, e in tokens[i:i + n]]
            if _not_a_name(words, lows[i:i + n], lemmas[i:i + n], lex, cased, i == 0) or \
                    _cuts_initials(question, tokens[i][0], tokens[i + n - 1][1]):
                continue
            if in_phrase.issuperset(range(i, i + n)):
                # "estilo musical" is a phrase, not the concept musical; "Juegos Olímpicos
                # de Invierno" the Winter Olympics, not the Olympic Games of a winter
                continue
            key = norm(question[tokens[i][0]:tokens[i + n - 1][1]])
            if key and not (n == 1 and (key in properties or norm(lemmas[i]) in properties)):
                runs.setdefault(key, (i, n))
    spans = [runs[key] for key in known(list(runs))]
    for i, n in spans:
        out.update(range(i, i + n))
    return out - _inside_unknown_names(question, tokens, lows, lemmas, lex, out, spans)


def _inside_unknown_names(question: str, tokens: list[tuple[int, int]], lows: list[str],
                          lemmas: list[str], lex: Lexicon | None, known: set[int],
                          spans: Sequence[tuple[int, int]]) -> set[int]:
    """Indexes of words the KB knows as a name (``known``; the names' (first word,
    length) are ``spans``) that are only part of a longer run of capitalized words in
    another script than Latin, which no one name of the KB covers ("Адамс" of "Сэмюэл
    Адамс" is Adams County alone; "Энцо" and "Феррари" are two names): the run is one
    name, to be transliterated together."""
    out: set[int] = set()
    for run in _foreign_name_runs(question, tokens, lows, lemmas, lex):
        if not any(i <= run[0] and run[-1] < i + n for i, n in spans):
            out.update(known.intersection(run))
    return out


def _foreign_name_runs(question: str, tokens: list[tuple[int, int]], lows: list[str],
                       lemmas: list[str], lex: Lexicon | None) -> list[range]:
    """The runs of two or more capitalized words in another script than Latin (nor
    Chinese or Japanese) that no lexicon entry reads: each is one name ("Энцо Феррари")."""
    out: list[range] = []
    start = 0
    for i in [*range(len(tokens)), len(tokens)]:
        word = question[tokens[i][0]:tokens[i][1]] if i < len(tokens) else ""
        if word[:1].isupper() and not _LATIN.search(word) and not CJK.search(word) and \
                (lex is None or lex.word(lows[i], lemmas[i]) is None):
            continue
        if i - start > 1:
            out.append(range(start, i))
        start = i + 1
    return out


def _cuts_initials(question: str, start: int, end: int) -> bool:
    """Whether the span cuts a name written with full stops in two ("Film E" of "der
    Film E.T.", "R. Tolkien" of "J.R.R. Tolkien"): a run of words is no name then,
    whatever the KB knows by it."""
    return bool(re.match(r"\.\w", question[end:end + 2]) or
                re.search(r"\w\.$", question[max(0, start - 2):start]))


def _in_phrases(lows: list[str], lemmas: list[str], lex: Lexicon | None) -> set[int]:
    """Indexes of the words inside a phrase of the lexicon of two words or more
    ("estilo musical"): a lower-case run inside one is read with the phrase, not kept as
    a name the KB knows (the concept "musical")."""
    out: set[int] = set()
    if lex is None:
        return out
    for i in range(len(lows)):
        for n in range(min(MAX_PHRASE, len(lows) - i), 1, -1):
            run = range(i, i + n)
            if lex.phrase(" ".join(lows[j] for j in run),
                          " ".join(lemmas[j] for j in run)) is not None:
                out.update(run)
                break
    return out


#: the English of lower-case nouns that begin names of natural features in languages that
#: write them so ("острова Кука" is the Cook Islands, "isole Cook" too)
FEATURE_NOUNS = frozenset("""island islands river lake mountain mountains sea bay cape gulf
    strait peninsula""".split())


#: the English of lower-case nouns that end names of administrative units and of
#: institutions in languages that write them so ("Владимирская область" is Vladimir
#: Oblast, "Каролинский институт" the Karolinska Institute)
_UNIT_NOUNS = frozenset("""region province district territory institute university academy
    museum school college library theatre theater cathedral palace square""".split())


def _not_a_name(words: list[str], lows: list[str], lemmas: list[str], lex: Lexicon | None,
                cased: bool, opens: bool = False) -> bool:
    """Whether a run of ``words`` (with their lower-case forms and lemmas) cannot be a
    name, whatever the KB knows (see ``_names``): in a question that capitalizes its
    names, a run without a capital or digit, or one that begins (but with a natural
    feature's noun, ``FEATURE_NOUNS``) or ends (but with an administrative unit's,
    ``_UNIT_NOUNS``) with a lower-case lexicon word; and a run
    of lexicon words or a lexicon phrase — unless, in a language that capitalizes only
    names, it is two words or more all capitalized, not opening the question (``opens``):
    "Ponte Vecchio", "Santa Sede"."""
    if cased and lex is not None and not lex.nouns_capitalized and not opens and \
            len(words) > 1 and all(w[:1].isupper() for w in words):
        return False
    if cased and not any(w[:1].isupper() or w[:1].isdigit() for w in words):
        return True
    if cased and lex is not None and any(
            not w[:1].isupper() and lex.word(low, lm) is not None and
            not (len(words) > 1 and lex.word(low, lm) in (
                FEATURE_NOUNS if first else _UNIT_NOUNS))
            for first, w, low, lm in ((True, words[0], lows[0], lemmas[0]),
                                      (False, words[-1], lows[-1], lemmas[-1]))):
        return True     # "o Canadá" is not the anthem O Canada, nor "Praga é" a name
    return lex is not None and (
        all(lex.word(w, lm) is not None for w, lm in zip(lows, lemmas)) or
        lex.phrase(" ".join(lows), " ".join(lemmas)) is not None)


def _transliterated(word: str) -> str:
    """``word`` in Latin letters, without the marks that stand for a soft or hard sign
    ("Игорь" → "Igor", not "Igor'", which reads as a word and a quotation mark)."""
    from anyascii import anyascii
    return anyascii(word).replace("'", "").replace('"', "")
