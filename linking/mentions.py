"""Mention detection without a model: spans of a text that match the KB's names.

The text is split into words (runs of letters and digits, with inner apostrophes; Chinese
and Japanese characters one by one, as they are written without spaces). Every run of up
to ``MAX_WORDS`` words is looked up — by its compact key (normalized, spaces removed, so
"F.S.U", "#SouthCarolina" and "Delta Airlines" all meet their labels), and through a few
cheap variants (possessive, plural, the nationality words of ``lexicon.DEMONYMS``) — in one
query. A span qualifies when:

- it neither ends with a stopword nor begins with one other than "the"
  (all-capital words such as "US" are never stopwords, and a capitalized stopword inside
  a sentence may begin or end a longer name: "The Evil Within", "Garrett List"; in
  text without capitals, where that cannot be seen, a span of two or more words may
  begin with "a"/"an" and end with a stopword other than ``GLUE_WORDS``: "a fall from
  grace", "the evil within", "garrett list");
- in a text with capitals, it has a capitalized word (or a digit): "the civil war" is left
  alone, "the Civil War" is not — unless a name of a concept is written in lower case
  in the KB ("glycine", "fortified wine"; a single everyday word never);
- in a text with capitals, no capitalized word continues it on either side: "Justin" of
  an unknown "Justin Bieber" is no mention (the sentence's first word aside);
- in a text without capitals (typed questions), it must match some label or alias written
  with a capital (a name, not a concept such as "zip code"), and a single word must not
  be one of the everyday words in ``lexicon.COMMON_WORDS``.

A name may carry its qualifier in brackets, as titles do ("Ken Ford (violinist)").
Overlaps are resolved longest span first, then leftmost. An address is two mentions:
"Columbus, Ohio" its place and its state (unless the whole is an entity's label, as
"Watertown, South Dakota" is), and a state part written as news writes it
("Calif.", "Mass.", "CA" beside a ZIP code) is a mention even when the KB has no such
name (``linking.news``). In text with capitals, runs of two
to four capitalized words that matched nothing are added too (a misspelled name, "Albert
Einstien"), for the linker's fuzzy matching; the linker drops those it cannot link well.
Offsets index the original text. Time is linear in the text's length.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kb.linking import Capitalized, Concepts, LinkingKB, PreparesSimilar
from linking import news
from linking.lexicon import COMMON_WORDS, DEMONYMS, STOPWORDS
from linking.lexicon import en as _en
from linking.morphology import english
from linking.types import Mention
from linking.variants import YEAR
from store.normalize import normalize

#: the longest mention looked up, in words (characters for Chinese and Japanese)
MAX_WORDS = 8
_WORD = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"     # one CJK character
    r"|[^\W_]+(?:['\u2019.][^\W_]+)*")                            # a word: it's, U.S
#: what may stand between the words of one mention ("Winston-Salem", "Tampa, FL", "AT&T",
#: "玛丽·居里")
_JOINERS = " -\u2013'\u2019.&,\u00b7\u30fb()"
#: in text without capitals a title may begin with an article ("a fall from grace") and
#: end with a stopword ("the evil within", "garrett list"), unless it is one of these
ARTICLES = frozenset({"the", "a", "an"})
GLUE_WORDS = _en.GLUE_WORDS                # (``linking.lexicon.en``)
#: a Chinese or Japanese character (a script without spaces or capitals)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@dataclass(slots=True)            # not frozen: a frozen dataclass is several times slower to make
class _Word:
    text: str
    start: int
    end: int
    norm: str
    stop: bool
    capital: bool
    cjk: bool
    soft: bool = False          # a capitalized stopword inside a sentence ("Within")


@functools.lru_cache(maxsize=1 << 16)
def _word_facts(w: str) -> tuple[str, bool, bool, bool, bool]:
    """(normalized form, all capitals, a stopword, capitalized, CJK) of the word ``w`` —
    what ``words`` needs of a word that does not depend on where it stands (remembered:
    words recur within and across texts)."""
    norm = normalize(w)
    upper = w.isupper() and len(w) > 1
    cjk = bool(CJK.match(w))
    # Chinese and Japanese have no capitals: in a cased text, a word of theirs may be a
    # name as a capitalized word may ("Where was 玛丽·居里 born?")
    capital = w[0].isupper() or any(map(str.isdigit, w)) or upper or cjk
    return norm, upper, norm in STOPWORDS, capital, cjk


def words(text: str) -> list[_Word]:
    """The words of ``text`` with offsets, normalized forms and stopword/capital flags
    (all-capital words and initials such as the "A" of "A. Einstein" are no stopwords)."""
    out = []
    for m in _WORD.finditer(text):
        w = m.group()
        norm, upper, stopword, capital, cjk = _word_facts(w)
        if not norm:
            continue
        stop = stopword and not upper and not (
            len(w) == 1 and w.isupper() and text[m.end():m.end() + 1] == ".")   # an initial
        soft = (stop and len(w) > 1 and w[0].isupper()
                and not _sentence_start(text, m.start()))
        out.append(_Word(w, m.start(), m.end(), norm, stop, capital, cjk, soft))
    return out


#: what comes before a sentence's first word: the text's start, or an end mark and space
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n\"\u201c]\s*|\s[-\u2013\u2014]\s*)\W*$")
_WORD_CHAR = re.compile(r"\w")


def qualified_only(source: LinkingKB, norms: Sequence[str]) -> set[str]:
    """The ``norms`` that ``source`` names only with a qualifier ("person of interest":
    "Person of Interest (TV series)"), looked up at once where it can; none where it
    cannot tell (no ``qualified`` in its features)."""
    if "qualified" not in source.features or not norms:
        return set()
    if isinstance(source, PreparesSimilar):
        source.prepare_similar(sorted(set(norms)))
    return {n for n in norms if source.similar(n, "qualified", limit=1)}


def _sentence_start(text: str, start: int) -> bool:
    """Whether the word at ``start`` begins a sentence (or a clause after a dash). Only the
    run of non-word characters before it is searched — the pattern cannot match across a
    word — so that the cost is that run's length, not the text's."""
    lo = start
    while lo > 0 and not _WORD_CHAR.match(text, lo - 1):
        lo -= 1
    return _SENTENCE_START.search(text, lo, start) is not None


#: "of" or "of the" ending the words before a year ("Winter Olympics of 2014")
_OF_THE_END = re.compile(r" of (?:the )?$")


def _keys(key: str, last: _Word, single: bool) -> list[str]:
    """Normalized keys to look up the span whose normalized text is ``key``, last word
    ``last`` (``single``: one word long) by: itself, then its cheap variants. A span that
    starts with "the" counts only if "the …" itself is a name ("The Beatles"); the span
    without it is looked up on its own. (Spans never
    cross punctuation other than ``_JOINERS``, which normalization drops or turns into
    spaces, so the span's normalized text is its words' normalized forms joined.)"""
    keys = [key]
    if last.norm.endswith("s") and (last.text.endswith(("'s", "\u2019s")) or (
            len(last.norm) > 3 and not last.norm.endswith("ss"))):
        keys.append(key[:-1])                  # possessive or plural
    if single and last.norm in DEMONYMS:
        keys.append(DEMONYMS[last.norm])
    if not single and YEAR.match(last.norm):
        head = key[:-len(last.norm)]
        keys.append(last.norm + head)                   # "Olympics 1992": "1992 Olympics"
        short = _OF_THE_END.sub(" ", head)              # "Winter Olympics of 2014"
        if short != head and short.strip():
            keys.append(last.norm + short)
    return keys


class MentionDetector:
    """Finds mentions in texts, against one KB's labels and aliases (every language)."""

    def __init__(self, source: LinkingKB):
        self.source = source
        # the source's cheap tests of how its names are written, where it has them
        self._concepts = source.concepts if isinstance(source, Concepts) else None
        self._capitalized = source.capitalized if isinstance(source, Capitalized) else None

    def detect(self, text: str, *, exclude: Sequence[tuple[int, int]] = ()) -> list[Mention]:
        """Mentions in ``text``, in text order; spans overlapping ``exclude`` are skipped."""
        ws = words(text)
        if not ws:
            return []
        cased = any(c.isupper() for c in text) and any(c.islower() for c in text)
        blocked = _blocked(ws, exclude)
        spans, lowered = _spans(text, ws, blocked, cased)
        if not spans:
            return []
        hits = self._known_spans(text, ws, spans, lowered, cased)
        chosen, owner = _longest_first(ws, hits)
        if cased:
            chosen = [ij for n, ij in enumerate(chosen)
                      if not _inside_longer_name(text, ws, ij, n, owner)]
            chosen = _address_parts(text, ws, chosen, blocked, self._labels)
            chosen += self._unmatched_names(text, ws, chosen, blocked)
        return _mentions(text, ws, chosen)

    def _known_spans(self, text: str, ws: list[_Word], spans: dict[tuple[int, int], list[str]],
                     lowered: set[tuple[int, int]], cased: bool) -> set[tuple[int, int]]:
        """The ``spans`` whose lookup keys name something in the KB, less the lower-case
        ones that are concepts rather than names (see ``_drop_concepts`` and
        ``_keep_concepts``)."""
        known = self.source.known(sorted({k for keys in spans.values() for k in keys}))
        hits = {ij for ij, keys in spans.items() if any(k in known for k in keys)}
        if cased:
            hits |= self._qualified_titles(ws, spans, hits)
        if not cased:
            hits = self._drop_concepts(text, ws, hits)
        elif lowered & hits:
            hits = self._keep_concepts(ws, hits, lowered & hits)
        return hits

    def _qualified_titles(self, ws: list[_Word], spans: dict[tuple[int, int], list[str]],
                          hits: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """The spans of several words, capitalized first and last, that the KB names
        only with a qualifier ("Person of Interest" is "Person of Interest (TV series)"),
        where the source can tell (``qualified`` in its features)."""
        titles = {ij: keys[0] for ij, keys in spans.items()
                  if ij not in hits and ij[1] > ij[0] and ws[ij[0]].capital and
                  ws[ij[1]].capital}
        named = qualified_only(self.source, list(titles.values())) if titles else set()
        return {ij for ij, norm in titles.items() if norm in named}

    def _labels(self, norms: list[str]) -> set[str]:
        """The ``norms`` that are some entity's label (not only an alias)."""
        return {n.norm for n in self.source.names(norms) if n.is_label}

    def _keep_concepts(self, ws: list[_Word], hits: set[tuple[int, int]],
                       lowered: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """Of the lower-case spans of cased text, keep those the KB has a name written in
        lower case for: a concept ("glycine"), not a name typed carelessly."""
        norms = {ij: " ".join(w.norm for w in ws[ij[0]:ij[1] + 1]) for ij in lowered}
        concepts = self._concepts
        if concepts is not None:
            named = concepts(sorted(set(norms.values())))
        else:
            named = {n.norm for n in self.source.names(sorted(set(norms.values())))
                     if n.text == n.text.lower()}
        return (hits - lowered) | {ij for ij, n in norms.items() if n in named}

    @staticmethod
    def _unmatched_names(text: str, ws: list[_Word], chosen: list[tuple[int, int]],
                         blocked: list[bool]) -> list[tuple[int, int]]:
        """Runs of two to four capitalized words that matched nothing exactly — misspelled
        names like "Albert Einstien" — for the linker's fuzzy matching to try."""
        taken = {k for i, j in chosen for k in range(i, j + 1)}
        out: list[tuple[int, int]] = []
        run: list[int] = []
        for k, w in enumerate([*ws, None]):
            joined = (w is not None and run
                      and not text[ws[run[-1]].end:w.start].strip(_JOINERS))
            if (w is not None and k not in taken and w.capital and not w.stop and not w.cjk
                    and (joined or not run)):
                run.append(k)
                continue
            if 2 <= len(run) <= 4 and not any(blocked[r] for r in run):
                out.append((run[0], run[-1]))
            run = [k] if (w is not None and k not in taken and w.capital and not w.stop
                          and not w.cjk) else []
        return out

    def _drop_concepts(self, text: str, ws: list[_Word],
                       hits: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """In uncased text, keep a span only if some label or alias it matches is written
        with a capital (a name, not a concept such as "zip code"), and a one-word span
        ("the" before it aside) only if it is no everyday word either."""
        norms = {(i, j): " ".join(w.norm for w in ws[i:j + 1]) for i, j in hits
                 if not ws[j].cjk}
        if not norms:
            return hits
        single = {ij for ij in norms if ij[0] == ij[1]
                  or (ij[1] == ij[0] + 1 and ws[ij[0]].norm in ARTICLES)}
        forms = {ij: [n, n[4:] if n.startswith("the ") else n, DEMONYMS.get(n, n)]
                 for ij, n in norms.items()
                 if not (ij in single and ws[ij[1]].norm in COMMON_WORDS)}
        for fs in forms.values():               # plural / possessive of the last word
            if fs[0].endswith("s"):
                fs.append(fs[0][:-1])
        asked = sorted({f for fs in forms.values() for f in fs})
        capitalized = self._capitalized
        if capitalized is not None:
            named = capitalized(asked)
        else:
            named = {n.norm for n in self.source.names(asked) if n.text != n.text.lower()}
        keep = {ij for ij, fs in forms.items() if any(f in named for f in fs)}
        return (hits - set(norms)) | keep


def _spans(text: str, ws: list[_Word], blocked: list[bool], cased: bool
           ) -> tuple[dict[tuple[int, int], list[str]], set[tuple[int, int]]]:
    """The spans ws[i..j] that may be a mention, each with its lookup keys (``_keys``), and
    those of them written in lower case in cased text (kept only if the KB knows them as
    concepts). A span starts at a word that is no stopword (an article may start one in
    text without capitals), does not cross a blocked word or what may not join a name, and
    ends at a word that may end one."""
    spans: dict[tuple[int, int], list[str]] = {}
    lowered: set[tuple[int, int]] = set()     # lower-case spans of cased text
    for i in range(len(ws)):
        if blocked[i]:
            continue
        if ws[i].stop and not ws[i].soft and ws[i].norm != "the" and (
                cased or ws[i].norm not in ARTICLES):
            continue
        _spans_from(text, ws, i, blocked, cased, spans, lowered)
    return spans, lowered


def _spans_from(text: str, ws: list[_Word], i: int, blocked: list[bool], cased: bool,
                spans: dict[tuple[int, int], list[str]], lowered: set[tuple[int, int]]) -> None:
    """Add to ``spans`` (and ``lowered``) the spans that start at word ``i`` (see
    ``_spans``), growing one word at a time up to ``MAX_WORDS`` (two more in Chinese or
    Japanese)."""
    limit = MAX_WORDS + 2 if ws[i].cjk else MAX_WORDS
    key, named, capital = "", False, False   # of the span ws[i..j], kept as j grows
    for j in range(i, min(len(ws), i + limit)):
        if j > i and text[ws[j - 1].end:ws[j].start].strip(_JOINERS):
            break        # a span does not cross slashes, quotes, sentence ends
        if blocked[j]:
            break
        last = ws[j]
        key = f"{key} {last.norm}" if j > i else last.norm
        named = named or (last.capital and not last.stop)
        capital = capital or last.capital
        if (last.stop and not (last.soft and j > i) and not (
                not cased and j > i and last.norm not in GLUE_WORDS)) or (
                j > i and last.cjk != ws[i].cjk):
            continue
        if cased and not named:
            if capital or (
                    j == i and (ws[i].norm in COMMON_WORDS or len(ws[i].norm) < 4)):
                continue
            lowered.add((i, j))
        spans[(i, j)] = _keys(key, last, j == i)


def _longest_first(ws: list[_Word], hits: set[tuple[int, int]]
                   ) -> tuple[list[tuple[int, int]], list[int]]:
    """The ``hits`` that do not overlap, the longest taken first (then the earliest), and
    for each word the index in that list of the span covering it (-1 for none)."""
    owner = [-1] * len(ws)           # word → the chosen span covering it
    chosen: list[tuple[int, int]] = []
    for i, j in sorted(hits, key=lambda ij: (ij[0] - ij[1], ij[0])):
        if all(owner[k] < 0 for k in range(i, j + 1)):
            for k in range(i, j + 1):
                owner[k] = len(chosen)
            chosen.append((i, j))
    return chosen, owner


def _mentions(text: str, ws: list[_Word], chosen: list[tuple[int, int]]) -> list[Mention]:
    """The ``chosen`` spans as mentions in text order; a span that opens a parenthesis
    takes its closing one ("Ken Ford (violinist)")."""
    out = []
    for i, j in sorted(chosen):
        start, end = ws[i].start, ws[j].end
        if text[end:end + 1] == ")" and text.count("(", start, end) > text.count(
                ")", start, end):
            end += 1                    # "Ken Ford (violinist)"
        out.append(Mention(text[start:end], start, end))
    return out


def _address_parts(text: str, ws: list[_Word], chosen: list[tuple[int, int]],
                   blocked: list[bool], labels: Any) -> list[tuple[int, int]]:
    """Addresses as news writes them, in two mentions: a span "Columbus, Ohio" is split
    into its place and its state — unless it is some entity's label ("Watertown, South
    Dakota", as Wikidata names US places; ``labels(norms)`` says which are) or holds a
    bracket ("Imperial Hotel (Greenville, South Carolina)") — and a state part the KB
    has no name for ("Calif.", "Mass.", a postal code beside a ZIP code) becomes a
    mention of its own (``linking.news.address_state``)."""
    def state_at(k: int, j: int) -> bool:
        norm = " ".join(w.norm for w in ws[k:j + 1])
        return (news.could_be_state(ws[k].text, norm)
                and news.address_state(text, ws[k].start, ws[j].end) is not None)

    splits: dict[tuple[int, int], int] = {}
    for i, j in chosen:
        if "(" in text[ws[i].start:ws[j].end]:
            continue
        for k in range(i + 1, j + 1):
            if "," in text[ws[k - 1].end:ws[k].start] and state_at(k, j):
                splits[(i, j)] = k
                break
    named = labels(sorted({" ".join(w.norm for w in ws[i:j + 1]) for i, j in splits})
                   ) if splits else set()
    out: list[tuple[int, int]] = []
    taken: set[int] = set()
    for i, j in chosen:
        cut = splits.get((i, j))
        if cut is not None and " ".join(w.norm for w in ws[i:j + 1]) not in named:
            out += [(i, cut - 1), (cut, j)]
        else:
            out.append((i, j))
        taken.update(range(i, j + 1))
    for k in range(len(ws)):
        if k not in taken and not blocked[k] and state_at(k, k):
            out.append((k, k))
    return out


def _inside_longer_name(text: str, ws: list[_Word], ij: tuple[int, int], number: int,
                        owner: list[int]) -> bool:
    """A span that a capitalized word continues on either side, which no other chosen span
    covers (``owner``: word → chosen span number, -1 for none), names only part of a
    longer name ("Justin" of "Justin Bieber") — not a mention of its own. (The whole run
    is offered to fuzzy matching instead.) The text's first word continues a name only
    when English does not know it (a capital there may just open the sentence; "Entso
    Ferrari" is a name read from another script)."""
    i, j = ij
    for k, gap in ((i - 1, (i - 1, i)), (j + 1, (j, j + 1))):
        if 0 <= k < len(ws) and owner[k] in (-1, number) and ws[k].capital \
                and not ws[k].stop \
                and not ws[k].cjk and text[ws[gap[0]].end:ws[gap[1]].start] == " " \
                and not (k == 0 and k == i - 1 and english(ws[k].norm)):
            return True
    return False


def _blocked(ws: list[_Word], exclude: Sequence[tuple[int, int]]) -> list[bool]:
    """For every word, whether it overlaps one of the ``exclude`` spans (in one pass over
    both, sorted)."""
    out = [False] * len(ws)
    spans = sorted(exclude)
    k = 0
    for n, w in enumerate(ws):
        while k < len(spans) and spans[k][1] <= w.start:
            k += 1
        m = k
        while m < len(spans) and spans[m][0] < w.end:
            if spans[m][1] > w.start:
                out[n] = True
                break
            m += 1
    return out
