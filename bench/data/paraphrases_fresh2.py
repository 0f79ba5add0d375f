"""A third unseen set of wordings for the 44 relations of ``slice-qa-dev.jsonl`` (split
``fresh2``).

Written for issue 13's third round (branch ``propl``) and committed *before* any result on
them was looked at, by a hand that had read the dev templates, ``bench/paraphrases.py`` and
``bench/paraphrases_fresh.py`` only to avoid repeating them. The syntax is deliberately
varied: passives, bare noun phrases, "which …" questions, colloquial wordings, some typed in
lower case and a few with typos. They are only ever measured: nothing in the code or in a
fitted model may be changed because of them, and no model is fitted on them. Each relation
has two wordings; ``{s}`` stands for the subject's label.
"""

from __future__ import annotations

FRESH2: dict[str, tuple[str, str]] = {
    "P1001": ("{s} has legal power over which territory?",
              "whose jurisdiction does {s} cover"),
    "P101": ("{s}'s field?",
             "which area of study was {s} devoted to?"),
    "P102": ("political party of {s}",
             "Which party was {s} a card-carrying member of?"),
    "P103": ("what was {s}s first langauge",
             "Which language was {s} raised in?"),
    "P106": ("What line of work is {s} in?",
             "occupation of {s}?"),
    "P108": ("{s} worked at which employer?",
             "By whom was {s} employed?"),
    "P127": ("who owns {s}",
             "{s} is owned by which entity?"),
    "P1303": ("which instrumnet does {s} play",
              "The instrument of {s}?"),
    "P131": ("{s} is located in which administrative unit?",
             "what region is {s} in"),
    "P136": ("Which genre is {s}?",
             "what kinda music is {s}"),
    "P1376": ("Which entity has {s} as its capital city?",
              "{s} is capital of what"),
    "P138": ("{s} was named in honour of whom?",
             "who is {s} named after"),
    "P140": ("{s}'s faith?",
             "which religion was {s} brought up in?"),
    "P1412": ("languages spoken by {s}",
              "Which languages could {s} write in?"),
    "P159": ("{s} has its headquarters where?",
             "headquarter location of {s}?"),
    "P166": ("What awards has {s} been given?",
             "which honors did {s} win"),
    "P17": ("{s} belongs to which nation?",
            "what country is {s} in"),
    "P176": ("{s} is manufactured by whom?",
             "who made {s}"),
    "P178": ("{s} was developed by which company?",
             "developer of {s}?"),
    "P19": ("{s} was born in which town?",
            "birth place of {s}"),
    "P190": ("{s}'s twin towns?",
             "which city is {s} twinned with"),
    "P1923": ("Which teams played in {s}?",
              "participants in {s}?"),
    "P20": ("In which city did {s} pass on?",
            "place where {s} died"),
    "P264": ("{s} was released by which record label?",
             "what label is {s} signed to"),
    "P27": ("{s} is a citizen of which country?",
            "citizenship of {s}?"),
    "P276": ("At which location was {s} held?",
             "where was {s}"),
    "P279": ("{s} is a subclass of what?",
             "which category does {s} come under"),
    "P30": ("{s} is located on which continent?",
            "what continent is {s} in"),
    "P31": ("{s} is an instance of what?",
            "what is {s} exactly"),
    "P36": ("Which city is the capital of {s}?",
            "capital of {s}?"),
    "P361": ("{s} forms part of what?",
             "what is {s} part of"),
    "P364": ("The film {s} was shot in which language?",
             "original langauge of {s}"),
    "P37": ("Which language has official status in {s}?",
            "official languge of {s}?"),
    "P39": ("Which position was held by {s}?",
            "what offices has {s} had"),
    "P407": ("{s} was published in which language?",
             "language of {s}?"),
    "P413": ("{s} plays which position?",
             "what does {s} play as on the team"),
    "P449": ("{s} was aired on which network?",
             "which tv channel showed {s} first"),
    "P463": ("{s} is a member of which organization?",
             "what groups does {s} belong to"),
    "P47": ("Which places border {s}?",
            "neighbouring areas of {s}?"),
    "P495": ("{s} comes from which country?",
             "country of origin of {s}?"),
    "P527": ("What parts make up {s}?",
             "which things are part of {s}"),
    "P530": ("Which countries have diplomatic relations with {s}?",
             "who does {s} have diplomatic ties with"),
    "P740": ("Which city was {s} formed in?",
             "where was {s} founded at"),
    "P937": ("{s} worked in which city?",
             "work location of {s}?"),
}


def wordings() -> list[tuple[str, int, str]]:
    """(property, wording number 5 or 6, template) for every fresh2 wording."""
    return [(pid, 5 + n, texts[n]) for pid, texts in FRESH2.items() for n in range(2)]
