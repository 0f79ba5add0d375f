"""English: the word lists every layer reads questions, texts and answers with.

The one source of English words for ``linking``, ``querygen``, ``chains`` and ``reasoning``
(``tests/test_lexicon.py`` fails on an English word list defined anywhere else). It fills
the interface ``linking.lexicon.LanguageLexicon`` describes (stopwords, function words, question
words, place words, ``stem``) and holds beside it the lists only some readers need.

Everything here is in normalized form (``store.normalize.normalize``: lower case, no
accents, punctuation turned into spaces), so lookups compare like with like. The lists are
deliberately short and general — words of English questions and common written
abbreviations — not tuned to any benchmark.

Some lists overlap (three kinds of place words, three of function words): each is tuned
to the one question its reader asks, so they are kept apart under names that say which,
never merged — merging would change what the readers decide.
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
someone somebody anyone anybody something anything notable famous popular renowned prominent
main major primary predominant hey hello btw trivia quiz originally initially actually
exactly really
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

# -- function words ---------------------------------------------------------------------
# Three lists of words that carry no content, each for its own reader (``STOPWORDS`` above
# is the widest: mentions and context):

#: words that never carry a relation: articles, question words, auxiliaries, pronouns
#: (unlike ``STOPWORDS``, prepositions and verbs stay: "named after", "part of").
#: ``linking.properties`` (relation phrases)
FUNCTION_WORDS = frozenset("""a an the who whom whose what which when where why how is was
are were be been being am do does did doing done has have had having it its this that
these those he she they them his her their him i you we us our your my me there here
any some one s t d ll m re ve nt can could would should will shall may might must also
just very much many more most""".split())

#: words that carry no claim in a model's answer (used together with ``STOPWORDS``; keeps
#: "it's", "yes", "no", "evidence", "source" …). ``reasoning.utility``
CLAIMLESS_WORDS = frozenset("""
a an the of in on at to for from by with and or but as is are was were be been being has
have had do does did it its it's this that these those there their they he she his her him
them who whom whose which what when where why how answer final also both either neither
yes no not than then so such very about around approximately roughly only just based
according evidence statement statements cite cited source sources known called named
""".split())

#: in text without capitals a title may end with a stopword ("the evil within", "garrett
#: list"), unless it is one of these. ``linking.mentions``
GLUE_WORDS = frozenset("""the a an of and or to in on at for by with from as is was are
were be been that this it its who whom whose what which when where why how""".split())

#: words that shape a relation ("part of", "born in") but never name one on their own.
#: ``linking.properties``
PREPOSITIONS = frozenset("""in of at on by for from to with after before into as about under
over between against during through within without near since off out up down per via
upon onto toward towards across along among around behind beyond inside outside""".split())

#: words a property name may end in that take its value as their object ("part of",
#: "named after", "owned by"): such a name reads as a predicate, not as a noun.
#: ``linking.properties``
NAME_PREPOSITIONS = frozenset("of in by after from for on at with to as into".split())

#: small words that may stand inside a name ("Bank of America", "Trinidad and Tobago"),
#: English and the particles of other languages' names met in English text.
#: ``reasoning.replies``
NAME_PARTICLES = frozenset("of and de la del der van von the da di du y".split())

#: words that only word the relation or hedge, never an answer on their own (with all of
#: ``STOPWORDS``). ``reasoning.replies``
FILLER_WORDS = frozenset("""
located situated found lies lie lying based known famous well called named considered
officially primarily mainly mostly largely generally widely part member home country
city capital continent language languages nation state region place answer question
correct likely probably believe think sure here following
""".split()) | STOPWORDS

# -- question words -----------------------------------------------------------------------

#: words an English question opens with. ``querygen.languages`` (language detection)
QUESTION_OPENERS = frozenset("""
who whom whose what which where when how why is are was were did does do has have had
can could name list tell give show
""".split())

#: small joining words of English questions, counted with the question machinery below
#: when telling English from another language. ``querygen.languages``
CONNECTIVES = frozenset("of in on at by for from to with and or not".split())

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


def relation_content_words(norm: str) -> list[str]:
    """The words of a normalized text without ``FUNCTION_WORDS``, numbers and one-letter
    words: the words that may name a relation (``linking.properties``)."""
    return [w for w in norm.split()
            if w not in FUNCTION_WORDS and not w.isdigit() and len(w) > 1]


# -- place, agent and type words ------------------------------------------------------------
# Three lists of place words, each for its own reader: the answer type a question word
# asks for, the words of place-like property names, and the nouns that end a "which N"
# phrase. They differ on purpose ("located" names a property, "town" an answer type).

#: the legal forms a company's label most often ends in where its name is written without
#: it ("Deutsche Post" is Deutsche Post AG; the slice's English labels end in these 24 to 228
#: times each; every one more is another name looked up per mention). ``linking.variants``
LEGAL_FORMS = frozenset("company corporation inc ltd ag plc".split())

#: answer types asked for by a question word alone ("where" → a place).
#: ``linking.properties``
PLACE_TYPE_WORDS = frozenset("""place location city town village country state region province
county district municipality settlement capital island continent territory area commune
borough prefecture nation land city municipality""".split())

#: answer types asked for by "who" (a person or an organization). ``linking.properties``
AGENT_TYPE_WORDS = frozenset("""human person people man woman organization organisation company
business enterprise corporation firm party band group team club university institution
agency label publisher network broadcaster developer manufacturer""".split())

#: words of place-like property names ("place of birth", "headquarters location").
#: ``querygen.fit``
PLACE_PROPERTY_WORDS = frozenset("""
place location located country city continent headquarters capital territory jurisdiction
border administrative seat residence formation origin venue
""".split())

#: words of a type's label that make an entity a settlement (a dateline's city).
#: ``linking.news``
SETTLEMENT_WORDS = frozenset("""city town village capital municipality settlement borough
metropolis commune township hamlet""".split())

#: words of a sports report (results, positions, scoring): a city mention among them may
#: name its team. ``linking.news``
SPORTS_WORDS = frozenset("""
beat beats beaten defeated defeat defeats swept sweep rout routed edged won win wins
victory victories lost loses losing game games match matches season seasons playoff
playoffs postseason championship title league division conference standings score scored
scores scoring goal goals touchdown touchdowns inning innings homer homers run runs
pitcher pitchers pitched quarterback striker goalkeeper coach coaches manager roster
traded trade draft drafted signed star stars rookie doubleheader overtime halftime
stadium ballpark series tournament cup fans teammate teammates
""".split())

#: month names, January first (a date's month number - 1 indexes it). ``reasoning.utility``
MONTHS = ("january february march april may june july august september october november "
          "december").split()

# -- word formation ---------------------------------------------------------------------------

#: derivations no ending rule reaches (after lemmatizing: "died" → "die" → "death").
#: ``linking.morphology``
SUPPLETIVE = {"born": "birth", "birthplace": "birth", "die": "death", "dead": "death",
              "deathplace": "death"}

#: endings that derive one English word from another ("own" → "owner", "form" →
#: "formation"). ``linking.morphology``
DERIVING_ENDINGS = ("er", "ers", "or", "ors", "ed", "ing", "ion", "ation", "ations", "ment",
                    "ship", "al", "ity", "ive", "ance", "ence", "ant", "ent", "y", "ial", "ist",
                    "ism", "ly")

# -- reading questions (``querygen``) ------------------------------------------------------
# Question machinery, answer-type nouns and verb forms; ``querygen.lexicon`` re-exports
# them beside what only query generation needs (superlatives, related word forms).

AUXILIARIES = frozenset("""
is are was were be been being am do does did has have had can could will would shall
should may might must
""".split())

#: words that ask rather than name: dropped from the relation phrase
FRAME_WORDS = frozenset("""
what which who whom whose where when how why
is are was were be been being am do does did has have had
the a an
please kindly me us tell name list give show find identify enumerate
can could would you i
""".split()) | {"?"}

#: adjectives that praise a member of a category and say nothing of a relation ("a
#: famous poet", "a well known pitcher")
PRAISE_WORDS = frozenset("""famous notable popular prominent renowned celebrated noted well
known great important influential successful professional former retired""".split())

#: words that end the description between an indefinite article and the category it
#: describes ("a book *by* X", "a game *that* X developed")
DESCRIPTION_ENDS = frozenset("""the of in on at by for from to with is are was were be that
which who whom whose where when and or""".split())

#: words a question may open with before its content ("please", "so", "hey")
OPENING_FILLERS = frozenset("please kindly so and hey ok okay well tell me".split())

#: first words of imperative questions ("Name the capital of …")
IMPERATIVES = frozenset("name list tell give show find identify enumerate state".split())

#: titles written before a name with a capital ("King Hussein", "Pope Leo"), which describe
#: it as a lower-case noun would ("the Indonesian president Suharto")
TITLES = frozenset("""
king queen prince princess emperor empress pope saint tsar czar tsarina sultan caliph
pharaoh president chancellor senator governor general admiral sir lord lady duke duchess
""".split())

PERSON_NOUNS = frozenset("""
person people man woman men women human humans actor actress author writer politician
player players scientist artist musician singer king queen president founder leader
doctor physician saint poet philosopher emperor pope priest soldier inventor explorer
mathematician physicist chemist economist
""".split())

#: words that make a longer name one of a thing related to the name after them
#: ("emperor of the Holy Roman Empire X", "University of Oxford"); with their forms in the
#: languages whose names the KB's aliases hold ("imperatore del Sacro romano impero X")
OF_WORDS = frozenset("""
of the de del della dello dei degli di da do dos das du des von der
""".split())

#: nouns that say only that the one asked for is someone ("a person born in Lyon")
ANY_PERSON_NOUNS = frozenset("""
person persons people man men woman women individual individuals figure figures human
humans
""".split())

#: nouns of groups, which no one person is ("which league", "which band")
GROUP_NOUNS = frozenset("""
league team club band group party organization organisation company firm association
federation union orchestra choir
""".split())

PLACE_NOUNS = frozenset("""
place places city cities town towns village country countries nation nations state states
region regions province county district continent location locations area island
municipality capital
""".split())

TIME_NOUNS = frozenset("year years date dates day century decade time month".split())

#: common irregular verb forms of questions: a "which N" noun phrase stops at them
VERB_FORMS = frozenset("""
won win wins born died die dies made make makes wrote write writes played play plays
went go goes came come comes gave give gives took take takes became become becomes
founded found built build builds ran run runs sang sing sings lived live lives held
hold holds led lead leads taught teach teaches studied study studies worked work works
married marry invented invent discovered discover owns own owned has have had
""".split())

#: generic class words ("what kind of thing") that say nothing about the relation
CLASS_WORDS = frozenset("kind sort type thing things entity class".split())

#: "X is a kind of Y" says X belongs to Y, whatever the property's name
CLASS_IDIOM_NOUNS = frozenset("""kind sort type class example instance form variety subclass
subtype subgenre subspecies subfamily genus""".split())

#: verbs of one meaning, each related (``querygen.lexicon.RELATED``) to the properties of
#: that meaning alone: the events of a life ("the city where X died" asks for the place of
#: death and nothing else), sharing a border, marriage, a name's origin. Relation verbs in
#: general are not listed: "belongs", "composed", "owns" or "made" name different
#: properties in different questions ("Which country owns Greenland?" is where it lies).
ONE_MEANING_VERBS = frozenset("""born die died dies perished buried border borders bordered
bordering married marry marries named name""".split())    # ("takes its name from")

#: words that turn a fact into something short of one: a nomination is no award received,
#: a rejected offer no employer ("Which awards was WALL-E nominated for?"). Unexplained
#: by a reading's properties, such a word means the reading answers another question.
NOT_A_FACT_WORDS = frozenset("""nominated nominee nominees nomination nominations
shortlisted rumoured rumored proposed planned refused rejected declined wanted almost
nearly""".split())

#: nouns that name a relation to what follows "of" ("a member of", "a citizen of"), never
#: a description of the thing they are said of ("Zambia is a member of …" is no member)
RELATIONAL_NOUNS = frozenset("""member members citizen citizens subsidiary resident
residents native natives student students alumnus alumna alumni graduate fellow employee
employees founder founders owner owners""".split())

#: class nouns that name the same kind of thing: "a company" is a "business" the KB types
#: as one, "a movie" a "film" (each group read as one noun by ``querygen.answer_types``)
CLASS_SYNONYMS = (frozenset("company business enterprise firm corporation".split()),
                  frozenset("film movie".split()),
                  frozenset("organisation organization".split()))

#: words that say where something is without naming the relation ("located in", "lies
#: on", "part of", "belongs to", "found in", "within"): a property whose values are places
#: and which no other word of the question names explains them ("Which continent is
#: Germany located in?" is Germany's continent)
CONTAINMENT_WORDS = frozenset("""
located locate lie lies lying situated sits sit stands stand standing part belong belongs
belonging found within inside containing
""".split())

#: words that ask how two things are related without naming the relation
GENERIC_RELATION_WORDS = frozenset("""
related relation relations relationship relationships connection connections connected
connect connects link links linked relate relates tie ties between
""".split())

#: irregular past participles that end the head noun of the one a question asks for ("a
#: poet *born* in Lyon", "a programme *broadcast* on VTM"); not "known", which is an
#: adjective as often ("a well known economist")
HEAD_ENDING_PARTICIPLES = frozenset("""born broadcast built made written sung shown held won
drawn sold taught led given taken grown brought spoken""".split())
