"""The lead's second blind wordings for the 44 relations of ``slice-qa-dev.jsonl``.

Written by the lead at the start of issue 13's fourth round (2026-11-24, 17:15 UTC), before
any result of that round, and kept out of the repository until the round's code had landed.
Only ever measured: nothing is fitted on them and no choice looks at them. Two wordings per
relation; ``{s}`` stands for the subject's label.
"""

from __future__ import annotations

BLIND2: dict[str, tuple[str, str]] = {
    "P17": ("Tell me the country where {s} is.", "{s} belongs to which sovereign state?"),
    "P19": ("What is the birthplace of {s}?", "where did {s} first see the light of day"),
    "P20": ("In what place did {s} pass away?", "{s} died in which city?"),
    "P27": ("What nationality does {s} hold?", "{s} is a citizen of which state?"),
    "P30": ("{s} sits on what continent?", "which landmass is {s} on"),
    "P31": ("What kind of thing is {s}?", "{s} is an example of what?"),
    "P36": ("Which city is the capital of {s}?", "where is the seat of government of {s}"),
    "P37": ("Which language is official in {s}?",
            "what language do the authorities of {s} use officially"),
    "P39": ("What office did {s} occupy?", "{s} served in which post?"),
    "P47": ("Which places border {s}?", "{s} is adjacent to what?"),
    "P101": ("What was {s}'s field?", "which area of study did {s} work on"),
    "P102": ("Which party was {s} affiliated with?", "{s} is in what political party?"),
    "P103": ("What language did {s} learn first?", "{s}'s native tongue is what?"),
    "P106": ("What is {s}'s job?", "what did {s} work as"),
    "P108": ("Which organisation was {s} employed by?", "where did {s} have a job"),
    "P127": ("Which company owns {s}?", "{s} is the property of whom?"),
    "P131": ("Which administrative unit contains {s}?", "{s} is located in which municipality?"),
    "P136": ("Which genre does {s} belong to?", "what type of music does {s} make"),
    "P138": ("Whose name does {s} bear?", "{s} was named in honour of whom?"),
    "P140": ("What is the religion of {s}?", "which faith did {s} belong to"),
    "P159": ("Where does {s} have its head office?", "in what city is {s} headquartered"),
    "P166": ("Which prizes did {s} get?", "{s} has been awarded what?"),
    "P176": ("Who is the maker of {s}?", "which firm built {s}"),
    "P178": ("Which company created the software {s}?", "{s} was developed by whom?"),
    "P190": ("Which city is twinned with {s}?", "what are the sister cities of {s}"),
    "P264": ("What label released {s}?", "{s} came out on which record label?"),
    "P276": ("Where is {s}?", "at what location is {s} found"),
    "P279": ("{s} is a more specific kind of what?", "what broader class does {s} fall under"),
    "P361": ("{s} is a part of what?", "what is {s} a section of"),
    "P364": ("In what language was {s} originally made?", "{s}'s original language?"),
    "P407": ("What language is {s} in?", "{s} uses which language?"),
    "P413": ("What is {s}'s playing position?", "where on the field does {s} play"),
    "P449": ("Which channel first broadcast {s}?", "{s} was aired on what network?"),
    "P463": ("What organizations does {s} belong to?", "{s} holds membership in what?"),
    "P495": ("Which country does {s} come from?", "what country produced {s}"),
    "P527": ("Name the parts {s} is composed of.", "{s} contains which elements?"),
    "P530": ("Which states does {s} maintain diplomatic ties with?",
             "{s} has relations with which countries?"),
    "P740": ("What was the place where {s} was set up?", "where did {s} get started"),
    "P937": ("In which city did {s} work?", "where was {s}'s workplace"),
    "P1001": ("Which territory does {s} cover?", "{s} has authority over what area?"),
    "P1303": ("What does {s} play?", "{s} is a player of which instrument?"),
    "P1376": ("{s} is the capital city of what?", "what does {s} serve as capital for"),
    "P1412": ("Which languages does {s} know?", "in what language did {s} write"),
    "P1923": ("Which teams took part in {s}?", "name the clubs competing in {s}"),
}


def wordings() -> list[tuple[str, int, str]]:
    """(property, wording number 20–21, template) for every blind2 wording."""
    return [(pid, 20 + i, w) for pid, ws in BLIND2.items() for i, w in enumerate(ws)]
