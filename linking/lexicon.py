"""Small word lists the linker relies on: stopwords, abbreviations, demonyms.

Everything here is in normalized form (``store.normalize.normalize``: lower case, no
accents, punctuation turned into spaces), so lookups compare like with like. The lists are
deliberately short and general — words of English questions and common written
abbreviations — not tuned to any benchmark.
"""

from __future__ import annotations

import functools

#: function words and question words: never a mention on their own, and ignored as
#: context (English; other languages' labels still match, they just get no stopword help)
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing done down during each else
ever few for from further get gets got had has have having he her here hers herself him
himself his how i if in into is it its itself just least less let like made make many may
me might more most much must my myself near no nor not now of off on once one only or
other ought our ours ourselves out over own per same shall she should since so some such
than that the their theirs them themselves then there these they this those though through
to too under until up upon us very via was we were what whatever when where whether which
while who whom whose why will with within without would yet you your yours yourself
yourselves s t d ll m re ve nt don didn doesn isn wasn aren weren won wouldn couldn
shouldn hasn haven hadn ca na gon wanna gonna lol rt amp http https www com
name named called call tell list give show find say said
""".split())

#: everyday English words that also label some entity ("People" the magazine, "Play" the
#: song): in text without capitals a single one of them is not taken for a mention
COMMON_WORDS = frozenset("""
people person persons man men woman women child children kid kids baby boy girl family
friend friends wife husband son sons daughter daughters father mother dad mom parent
parents brother brothers sister sisters uncle aunt name names year years day days week
month time times world life home house city cities country countries state states place
places part parts area land language languages speak speaks spoke spoken play plays
played player players team teams game games win wins won first last new old good best
great big small little long high low live lives lived living born die dies died death
work works worked job school music song songs album albums book books movie movies film
films show shows series star stars character characters president king queen war wars art
love money government party religion capital currency type kind sport sports food water
color colour number age date famous known located found made make makes become became
start started end ended go goes went come came get got see use used own owned write
wrote written sing sang sung invent invented create created run ran teach taught study
studied attend attended marry grow grew mean means happen happened die dead alive night
morning today tonight tomorrow yesterday now right left top bottom side way back home
real true free full open close closed light dark black white red blue green gold silver
water fire air sea river lake mountain island north south east west
""".split())

#: words that ask for something rather than name it; with STOPWORDS they are not mentions
QUESTION_WORDS = frozenset("""
who whom whose what which when where why how many much
""".split())

#: common written abbreviations → their expansions (both directions are tried)
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "st": ("saint", "street"), "ste": ("sainte",), "mt": ("mount",), "mtn": ("mountain",),
    "ft": ("fort",), "pt": ("point", "port"), "dr": ("doctor", "drive"), "jr": ("junior",),
    "sr": ("senior",), "bros": ("brothers",), "co": ("company", "county"),
    "corp": ("corporation",), "inc": ("incorporated",), "ltd": ("limited",),
    "univ": ("university",), "u": ("university",), "intl": ("international",),
    "natl": ("national",), "assn": ("association",), "dept": ("department",),
    "govt": ("government",), "gov": ("government",), "ave": ("avenue",), "blvd": ("boulevard",),
    "rd": ("road",), "hwy": ("highway",), "vs": ("versus",), "fc": ("football club",),
    "us": ("united states",), "usa": ("united states",),
    "uk": ("united kingdom",), "un": ("united nations",), "eu": ("european union",),
    "nyc": ("new york city",), "dc": ("district of columbia",), "pres": ("president",),
    "gen": ("general",), "capt": ("captain",), "lt": ("lieutenant",), "col": ("colonel",),
    "sgt": ("sergeant",), "prof": ("professor",), "rev": ("reverend",), "sen": ("senator",),
    "rep": ("representative",),
}


def _roman(n: int) -> str:
    out = ""
    for value, numeral in ((50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"),
                           (1, "i")):
        while n >= value:
            out, n = out + numeral, n - value
    return out


#: numbers 2 to 60 in digits ↔ in Roman numerals of two letters or more, both ways ("Super
#: Bowl 21" ↔ "Super Bowl XXI", "World War II" ↔ "World War 2"; "V" and "X" are left alone)
ROMAN = {str(n): _roman(n) for n in range(2, 61) if len(_roman(n)) > 1}
ABBREVIATIONS.update({digits: (roman,) for digits, roman in ROMAN.items()})
ABBREVIATIONS.update({roman: (digits,) for digits, roman in ROMAN.items()})

#: titles written before a name ("king solomon", "emperor constantine"): a mention may name
#: the person without them
TITLES = frozenset("""
king queen emperor empress prince princess pope tsar czar sultan pharaoh president
chancellor sir lord lady general captain doctor dr professor prof senator governor
judge reverend rev mr mrs ms
""".split())

#: US state postal codes → state names ("Tampa, FL", "syracuse ny")
US_STATES: dict[str, str] = dict(zip(
    "al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh "
    "nj nm ny nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy dc".split(),
    ["alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut",
     "delaware", "florida", "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa",
     "kansas", "kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan",
     "minnesota", "mississippi", "missouri", "montana", "nebraska", "nevada", "new hampshire",
     "new jersey", "new mexico", "new york", "north carolina", "north dakota", "ohio",
     "oklahoma", "oregon", "pennsylvania", "rhode island", "south carolina", "south dakota",
     "tennessee", "texas", "utah", "vermont", "virginia", "washington", "west virginia",
     "wisconsin", "wyoming", "district of columbia"], strict=True))

#: adjectives and nouns of nationality → the country or region (normalized label form).
#: Regular ones (``jamaican`` → ``jamaica``) are also found by suffix rules in ``variants``.
DEMONYMS: dict[str, str] = {
    "american": "united states", "americans": "united states", "british": "united kingdom",
    "english": "england", "scottish": "scotland", "scots": "scotland", "welsh": "wales",
    "irish": "ireland", "french": "france", "german": "germany", "germans": "germany",
    "dutch": "netherlands", "belgian": "belgium", "swiss": "switzerland", "swedish": "sweden",
    "swedes": "sweden", "danish": "denmark", "danes": "denmark", "norwegian": "norway",
    "finnish": "finland", "finns": "finland", "icelandic": "iceland", "polish": "poland",
    "poles": "poland", "czech": "czech republic", "slovak": "slovakia", "hungarian": "hungary",
    "austrian": "austria", "italian": "italy", "spanish": "spain", "spaniards": "spain",
    "portuguese": "portugal", "greek": "greece", "greeks": "greece", "turkish": "turkey",
    "turks": "turkey", "russian": "russia", "ukrainian": "ukraine", "chinese": "china",
    "japanese": "japan", "korean": "korea", "vietnamese": "vietnam", "thai": "thailand",
    "filipino": "philippines", "filipinos": "philippines", "indian": "india",
    "pakistani": "pakistan", "bangladeshi": "bangladesh", "afghan": "afghanistan",
    "iranian": "iran", "persian": "iran", "iraqi": "iraq", "israeli": "israel",
    "egyptian": "egypt", "saudi": "saudi arabia", "arab": "arab world", "lebanese": "lebanon",
    "syrian": "syria", "mexican": "mexico", "canadian": "canada", "brazilian": "brazil",
    "argentine": "argentina", "argentinian": "argentina", "chilean": "chile",
    "peruvian": "peru", "colombian": "colombia", "venezuelan": "venezuela", "cuban": "cuba",
    "jamaican": "jamaica", "haitian": "haiti", "australian": "australia", "aussie": "australia",
    "new zealander": "new zealand", "kiwi": "new zealand", "nigerian": "nigeria",
    "kenyan": "kenya", "ethiopian": "ethiopia", "moroccan": "morocco", "algerian": "algeria",
    "south african": "south africa", "european": "europe", "african": "africa",
    "asian": "asia", "roman": "roman empire", "romans": "roman empire", "islamic": "islam",
    "muslim": "islam", "muslims": "islam", "christian": "christianity",
    "christians": "christianity", "jewish": "judaism", "jews": "judaism",
    "catholic": "catholic church", "buddhist": "buddhism", "hindu": "hinduism",
    "texan": "texas", "californian": "california", "floridian": "florida",
    "new yorker": "new york", "parisian": "paris", "londoner": "london",
    "hawaiian": "hawaii", "alaskan": "alaska", "scandinavian": "scandinavia",
    "soviet": "soviet union", "yugoslav": "yugoslavia", "croatian": "croatia",
    "serbian": "serbia", "bosnian": "bosnia and herzegovina", "romanian": "romania",
    "bulgarian": "bulgaria", "albanian": "albania", "estonian": "estonia",
    "latvian": "latvia", "lithuanian": "lithuania", "belarusian": "belarus",
    "georgian": "georgia", "armenian": "armenia", "mongolian": "mongolia",
    "tibetan": "tibet", "nepali": "nepal", "nepalese": "nepal", "sri lankan": "sri lanka",
    "indonesian": "indonesia", "malaysian": "malaysia", "singaporean": "singapore",
    "taiwanese": "taiwan", "north korean": "north korea", "south korean": "south korea",
}

#: places that qualify a place name ("hilo hawaii", "montreal canada"): states, countries
PLACE_QUALIFIERS = frozenset(US_STATES) | frozenset(US_STATES.values()) | frozenset(
    v for v in DEMONYMS.values()) | {"us", "usa", "uk", "england", "scotland", "wales"}

#: suffix rules for regular demonyms and plurals: (strip, add), tried in order
DEMONYM_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ians", "ia"), ("ian", "ia"), ("ans", "a"), ("an", "a"), ("ese", ""), ("ish", ""),
    ("ic", ""), ("i", ""),
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English stem (-ing, -ed, -es, -s), enough for "speaks" to meet "spoken"s
    alias "speak"; words of other languages pass through mostly unchanged."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_words(norm: str) -> list[str]:
    """The words of a normalized text that are neither stopwords nor numbers."""
    return [w for w in norm.split() if w not in STOPWORDS and not w.isdigit()]
