"""Newswire conventions the linker reads around a mention: datelines, addresses, and a city
that stands for its team.

- **Datelines.** A story opens with its place in capitals, then the agency and a dash:
  "WASHINGTON (AP) —", "BOSTON —", "LA JOLLA, Calif. (Reuters) —". There the mention is a
  city (``dateline``), not the state or the person of the same name.
- **Addresses.** A state follows its place after a comma, as a postal code ("Tampa, FL",
  "Springfield, IL 62701", "92093, CA"), an AP abbreviation ("Cambridge, Mass.",
  "Portland, Ore.") or its name ("Columbus, Ohio"). The state part names the state
  (``address_state``); the place part names a place in that state (``state_after``,
  checked by the linker through the KB's statements).
- **Metonymy.** In a sports report a city names its team ("Boston beat New York 6-2";
  "the former Cleveland star"). ``sports_context`` says whether the words around a
  mention are a sports report's; the linker then offers the teams the KB relates to the
  city (``TEAM_PLACE_PROPERTIES``) or names after it ("Boston Red Sox").

The tables here (state codes, AP abbreviations, sports words, settlement words) are small
and written by hand; everything about entities comes from the KB.
"""

from __future__ import annotations

import re

from linking.lexicon import US_STATES
from linking.lexicon import en as _en
from store.normalize import normalize

#: the Associated Press's state abbreviations, normalized ("N.Y." → "ny"), → the state's
#: name (normalized); the eight states AP spells out (Ohio, Texas, …) are matched by name
AP_STATES: dict[str, str] = {
    "ala": "alabama", "ariz": "arizona", "ark": "arkansas", "calif": "california",
    "colo": "colorado", "conn": "connecticut", "del": "delaware", "fla": "florida",
    "ga": "georgia", "ill": "illinois", "ind": "indiana", "kan": "kansas", "kans": "kansas",
    "ky": "kentucky", "la": "louisiana", "md": "maryland", "mass": "massachusetts",
    "mich": "michigan", "minn": "minnesota", "miss": "mississippi", "mo": "missouri",
    "mont": "montana", "neb": "nebraska", "nev": "nevada", "nh": "new hampshire",
    "nj": "new jersey", "nm": "new mexico", "ny": "new york", "nc": "north carolina",
    "nd": "north dakota", "okla": "oklahoma", "ore": "oregon", "pa": "pennsylvania",
    "ri": "rhode island", "sc": "south carolina", "sd": "south dakota", "tenn": "tennessee",
    "vt": "vermont", "va": "virginia", "wash": "washington", "wva": "west virginia",
    "wis": "wisconsin", "wyo": "wyoming", "dc": "district of columbia",
}
STATE_NAMES = frozenset(US_STATES.values())
#: the names of the states' country (normalized)
US_NAMES = ("united states", "united states of america", "usa")

#: words of a type's label that make an entity a settlement (``linking.lexicon.en``)
SETTLEMENT_WORDS = _en.SETTLEMENT_WORDS
#: words of a type's label that make an entity a sports team
TEAM_WORDS = frozenset({"team", "club", "franchise"})
#: properties that relate a team to its city: headquarters location, located in, location
#: (a team's home venue, P115, is a stadium: its P131 is the city — two hops, also read)
TEAM_PLACE_PROPERTIES = ("P159", "P131", "P276")
HOME_VENUE = "P115"
#: membership of a sports team: an entity that is some player's P54 value is a team
MEMBER_OF_TEAM = "P54"
#: words of a sports report: a city mention among them may name its team
#: (``linking.lexicon.en``)
SPORTS_WORDS = _en.SPORTS_WORDS
#: how far either side of a mention sports words are looked for (characters)
SPORTS_WINDOW = 120
#: a city after one of these words is a place ("in Boston"), not its team
LOCATIVE = frozenset({"in", "at", "near", "outside", "across", "around", "downtown"})

_STATE_TOKEN = r"(?:[A-Z]{2}\b|[A-Z][a-z]{1,4}\.|(?:[A-Z]\.){2,3}|[A-Z]\.[A-Z][a-z]\.|" \
               r"[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_FOLLOWING_STATE = re.compile(r"\s*,\s*(" + _STATE_TOKEN + r")")
_OWN_STATE = re.compile(r"^(.*[^\s,])\s*,\s*(" + _STATE_TOKEN + r")\.?$")
_PLACE_BEFORE = re.compile(r"([^\W\d_][\w.'\u2019-]*)\s*,\s*$")
_ZIP_BEFORE = re.compile(r"\b\d{5}(?:-\d{4})?\s*,?\s*$")
_ZIP_AFTER = re.compile(r"\s*,?\s*\d{5}(?:-\d{4})?\b")
_DATELINE_TAIL = re.compile(
    r"(?:\s*,\s*[A-Z][\w.]*(?:\s+[A-Z][\w.]*)?)?"       # ", Calif."
    r"\s*(\([^()\n]{1,30}\))?"                          # "(AP)"
    r"\s*(?:\u2014|\u2013|--?)(?:\s|$)")                # the dash
_WORDS = re.compile(r"[^\W\d_]+")


def _state_of(token: str, *, codes: bool) -> str | None:
    """The state (normalized name) a written state part names, or None: a postal code in
    capitals (when ``codes``), an AP abbreviation with its full stop, a state's name."""
    norm = normalize(token)
    if codes and len(token) == 2 and token.isupper() and norm in US_STATES:
        return US_STATES[norm]
    if token.endswith(".") and norm in AP_STATES:
        return AP_STATES[norm]
    if token[:1].isupper() and norm in STATE_NAMES:
        return norm
    return None


def could_be_state(word: str, norm: str) -> bool:
    """A cheap test before ``address_state``: the word (``norm``: normalized) is written
    as a state part may be (a postal code, an AP abbreviation, a state's one-word name)."""
    return word[:1].isupper() and (norm in US_STATES or norm in AP_STATES
                                   or norm in STATE_NAMES)


def address_state(text: str, start: int, end: int) -> str | None:
    """The US state that the mention ``text[start:end]`` names as the state part of an
    address, or None: after a capitalized place and a comma ("Tampa, FL", "Cambridge,
    Mass.", "Columbus, Ohio"), or a postal code beside a ZIP code ("CA 92093", "92093, CA").
    There "CA" is California, not Canada, and "Mass." Massachusetts."""
    token = text[start:end]
    if not token[:1].isupper() or len(token) > 20:
        return None
    if text[end:end + 1] == "." and not token.endswith("."):
        token += "."
    state = _state_of(token, codes=True)
    if state is None:
        return None
    before = text[max(0, start - 60):start]
    place = _PLACE_BEFORE.search(before)
    if place and place.group(1)[:1].isupper():
        return state
    if len(token) == 2 and (_ZIP_BEFORE.search(before) or _ZIP_AFTER.match(text, end)):
        return state
    return None


def state_after(text: str, start: int, end: int) -> str | None:
    """The US state written after the place the mention names, or None: "Portland, Ore.",
    "Athens, Ga., in October", "Redmond, WA 98052" — or inside the mention itself
    ("Cambridge, Mass." as one mention). Only for a capitalized mention."""
    mention = text[start:end]
    if not mention[:1].isupper():
        return None
    own = _OWN_STATE.match(mention)
    if own:
        token = own.group(2) + ("." if text[end:end + 1] == "." else "")
        return _state_of(token, codes=True)
    m = _FOLLOWING_STATE.match(text, end)
    if not m:
        return None
    token = m.group(1)
    if not token.endswith(".") and text[m.end():m.end() + 1] == ".":
        token += "."
    return _state_of(token, codes=True)


def place_part(mention: str) -> str:
    """The place of a mention that carries its state ("Cambridge, Mass." → "Cambridge")."""
    own = _OWN_STATE.match(mention)
    return own.group(1) if own and _state_of(own.group(2) + ".", codes=True) else mention


def is_dateline(text: str, start: int, end: int) -> bool:
    """Whether the mention opens a story as its dateline: first on its line, followed by
    an optional state, an optional agency in brackets and a dash, and written in capitals
    ("WASHINGTON —") or followed by the agency ("Washington (AP) —")."""
    tail = _DATELINE_TAIL.match(text, end)
    if not tail:
        return False
    letters = [c for c in text[start:end] if c.isalpha()]
    if not ((len(letters) >= 3 and all(c.isupper() for c in letters)) or tail.group(1)):
        return False
    at = start                  # first on its line: only blanks back to a line's start
    while at > 0 and text[at - 1] in " \t\r\f\v\ufeff":
        at -= 1
    return at == 0 or text[at - 1] == "\n"


def sports_context(text: str, start: int, end: int) -> bool:
    """Whether words of a sports report stand near the mention — two of ``SPORTS_WORDS``
    ("won", "season") or one naming a sport's play ("pitcher") — and it is not a place
    after a locative preposition ("in Boston")."""
    before = _WORDS.findall(text[max(0, start - 30):start])
    if before and before[-1].lower() in LOCATIVE:
        return False
    window = text[max(0, start - SPORTS_WINDOW):start] + " " + text[end:end + SPORTS_WINDOW]
    words = {w.lower() for w in _WORDS.findall(window)}
    return len(words & SPORTS_WORDS) >= 2 or any(words & cues for cues in SPORTS.values())


def type_words(type_labels: tuple[str, ...]) -> set[str]:
    """The lower-case words of an entity's type labels."""
    return {w.lower() for label in type_labels for w in _WORDS.findall(label)}


def is_settlement(type_labels: tuple[str, ...], subject_of: frozenset[str]) -> bool:
    """A city, town or village: by its types' labels, or as the capital of something
    (Wikidata's P1376)."""
    return bool(type_words(type_labels) & SETTLEMENT_WORDS) or "P1376" in subject_of


def is_team(type_labels: tuple[str, ...], value_of: frozenset[str]) -> bool:
    """A sports team: by its types' labels, or as some player's team (P54's value)."""
    return bool(type_words(type_labels) & TEAM_WORDS) or MEMBER_OF_TEAM in value_of

#: sports and the words that name them in a report; a team's types name its sport
#: ("baseball team", "American football team")
SPORTS: dict[str, frozenset[str]] = {
    "baseball": frozenset("""pitcher pitchers pitched inning innings homer homers doubleheader
    ballpark batting strikeout strikeouts struck bullpen""".split()),
    "football": frozenset("""touchdown touchdowns quarterback interception yards kickoff
    linebacker""".split()),
    "soccer": frozenset("""striker goalkeeper midfielder penalty stoppage""".split()),
    "basketball": frozenset("""rebounds rebound dunk layup pointer""".split()),
    "hockey": frozenset("""puck goalie""".split()),
}


def sport_words(text: str, start: int, end: int) -> frozenset[str]:
    """The sports (``SPORTS`` keys) whose words stand near the mention."""
    window = text[max(0, start - SPORTS_WINDOW):start] + " " + text[end:end + SPORTS_WINDOW]
    words = {w.lower() for w in _WORDS.findall(window)}
    return frozenset(s for s, cues in SPORTS.items() if words & cues or s in words)


def sport_fit(report: frozenset[str], kinds: set[str]) -> float:
    """How well a team fits a sports report: 1 when the report's sport words name the
    sport of the team's types (pitcher → "baseball team"), 0.6 when the report names no
    sport or the team's types none, 0.3 when they name different sports."""
    team = kinds & set(SPORTS)
    if "association" in kinds and "football" in team:      # "association football club"
        team = (team - {"football"}) | {"soccer"}
    if report and team:
        return 1.0 if report & team else 0.3
    return 0.6
