"""What query generation reads English questions with: superlatives and the related
word forms that let a verb meet a property's noun, beside the word lists (question
machinery, answer-type nouns, verb forms) it re-exports from ``linking.lexicon.en``.

General English, written for this module — not collected from any benchmark's wording.
Everything is lower case.
"""

from __future__ import annotations

from dataclasses import dataclass

# the English word lists live in the one English lexicon, ``linking.lexicon.en``; they are
# re-exported here for the modules of query generation that read them from this module
from linking.lexicon.en import (ANY_PERSON_NOUNS, AUXILIARIES, CLASS_IDIOM_NOUNS,
                                CLASS_SYNONYMS, CLASS_WORDS, CONTAINMENT_WORDS,
                                DESCRIPTION_ENDS, FRAME_WORDS,
                                GENERIC_RELATION_WORDS, GROUP_NOUNS, IMPERATIVES,
                                NOT_A_FACT_WORDS, ONE_MEANING_VERBS, OPENING_FILLERS,
                                PERSON_NOUNS, PLACE_NOUNS,
                                PRAISE_WORDS, RELATIONAL_NOUNS, TIME_NOUNS, TITLES, VERB_FORMS)

__all__ = ["ANY_PERSON_NOUNS", "AUXILIARIES", "CLASS_IDIOM_NOUNS", "CLASS_SYNONYMS", "CLASS_WORDS",
           "CONTAINMENT_WORDS", "DESCRIPTION_ENDS", "FRAME_WORDS", "GENERIC_RELATION_WORDS",
           "GROUP_NOUNS", "IMPERATIVES", "NOT_A_FACT_WORDS", "ONE_MEANING_VERBS", "OPENING_FILLERS",
           "PERSON_NOUNS", "PLACE_NOUNS", "PRAISE_WORDS", "RELATED",
           "RELATIONAL_NOUNS", "ROLE_NOUNS", "SUPERLATIVES", "TIME_NOUNS", "TITLES",
           "VERB_FORMS",
           "Superlative"]

#: place nouns that name a role of a place, not a kind of it: the capital of a country is
#: one more hop, never a description of the place it is said of
ROLE_NOUNS = frozenset({"capital", "capitals"})


@dataclass(frozen=True, slots=True)
class Superlative:
    """An ordering a question asks for: the property words it implies (tried in order
    against the KB's numeric and date properties) and the direction of the best first."""
    words: tuple[str, ...]
    direction: str                 # ASC (smallest / earliest first) or DESC
    #: "first"/"last" order by whatever date the question's relation implies
    relative: bool = False


_BIRTH_OR_START = ("date of birth", "inception", "start time", "publication date",
                   "point in time")
SUPERLATIVES: dict[str, Superlative] = {
    "oldest": Superlative(_BIRTH_OR_START, "ASC"),
    "eldest": Superlative(("date of birth",), "ASC"),
    "youngest": Superlative(("date of birth",), "DESC"),
    "newest": Superlative(("inception", "publication date", "date of birth"), "DESC"),
    "earliest": Superlative(_BIRTH_OR_START, "ASC", relative=True),
    "first": Superlative(_BIRTH_OR_START, "ASC", relative=True),
    "latest": Superlative(_BIRTH_OR_START, "DESC", relative=True),
    "last": Superlative(_BIRTH_OR_START, "DESC", relative=True),
    "most recent": Superlative(_BIRTH_OR_START, "DESC", relative=True),
    "most recently": Superlative(_BIRTH_OR_START, "DESC", relative=True),
    "largest": Superlative(("area", "population", "number of"), "DESC"),
    "biggest": Superlative(("area", "population", "number of"), "DESC"),
    "smallest": Superlative(("area", "population", "number of"), "ASC"),
    "most populous": Superlative(("population",), "DESC"),
    "least populous": Superlative(("population",), "ASC"),
    "highest": Superlative(("elevation above sea level", "height"), "DESC"),
    "tallest": Superlative(("height", "elevation above sea level"), "DESC"),
    "lowest": Superlative(("elevation above sea level", "height"), "ASC"),
    "shortest": Superlative(("length", "height", "duration"), "ASC"),
    "longest": Superlative(("length", "duration"), "DESC"),
    "heaviest": Superlative(("mass",), "DESC"),
    "lightest": Superlative(("mass",), "ASC"),
    # comparatives order the same way between the entities a question names ("Who is
    # older, X or Y?")
    "older": Superlative(_BIRTH_OR_START, "ASC"),
    "younger": Superlative(("date of birth",), "DESC"),
    "earlier": Superlative(_BIRTH_OR_START, "ASC", relative=True),
    "sooner": Superlative(_BIRTH_OR_START, "ASC", relative=True),
    "later": Superlative(_BIRTH_OR_START, "DESC", relative=True),
    "larger": Superlative(("area", "population", "number of"), "DESC"),
    "bigger": Superlative(("area", "population", "number of"), "DESC"),
    "smaller": Superlative(("area", "population", "number of"), "ASC"),
    "taller": Superlative(("height", "elevation above sea level"), "DESC"),
    "higher": Superlative(("elevation above sea level", "height"), "DESC"),
    "longer": Superlative(("length", "duration"), "DESC"),
    "shorter": Superlative(("length", "height", "duration"), "ASC"),
    "heavier": Superlative(("mass",), "DESC"),
    "most": Superlative(("number of",), "DESC", relative=True),
    "fewest": Superlative(("number of",), "ASC", relative=True),
    "least": Superlative(("number of",), "ASC", relative=True),
}

#: where one of many is "from" ("an actor from Pittsburgh"): born there, or a citizen of it.
#: Only there: where a band, a thing or a name comes from is left to the other words and
#: the class ("from" had made "What country does a TV series come from?" hop from its
#: network's city to the country it is the capital of)
ONE_FROM = ("place of birth", "country of citizenship")

#: question word → related forms that property names use ("born" meets "place of birth",
#: "died" meets "place of death"). Both directions of a pair need not be listed: the
#: property linker's own stemming joins "speaks" and "speak".
RELATED: dict[str, tuple[str, ...]] = {
    "born": ("birth",), "birthplace": ("place of birth",), "birthday": ("date of birth",),
    "die": ("death",), "died": ("death",), "dies": ("death",), "dead": ("death",),
    "death": ("death",), "buried": ("burial",),
    # "die of/from" asks a cause, not a place
    "die of": ("cause of death",), "died of": ("cause of death",),
    "die from": ("cause of death",), "died from": ("cause of death",),
    "found": ("location", "founded"), "pass away": ("death",), "passed away": ("death",),
    "perished": ("death",), "perish": ("death",),
    "hometown": ("place of birth", "location of formation"),
    "home town": ("place of birth", "location of formation"),
    "home country": ("country of citizenship", "country of origin"),
    "homeland": ("country of citizenship", "place of birth", "location of formation"),
    "subject": ("country of citizenship",), "subjects": ("country of citizenship",),
    "made up": ("has part", "consists of"), "make up": ("has part", "part of"),
    "makes up": ("has part", "part of"), "making up": ("has part", "part of"),
    "included": ("part of", "has part"), "divisions": ("has part",),
    "subdivisions": ("has part",), "form of": ("subclass of",),
    "variety of": ("subclass of",), "variant of": ("subclass of",),
    "falls under": ("subclass of", "part of"), "fall under": ("subclass of", "part of"),
    "fell under": ("subclass of", "part of"), "classed under": ("subclass of",),
    "classified under": ("subclass of",),
    "native of": ("place of birth",), "fluent": ("languages spoken",), "ties": ("relation",),
    "class": ("subclass of", "instance of"), "kind": ("instance of", "subclass of"),
    "type": ("instance of", "subclass of"), "sort": ("instance of", "subclass of"),
    "founded": ("founding", "formation", "inception", "founder"),
    "founder": ("founded by",), "established": ("inception", "founded"),
    "formed": ("formation",), "form": ("formation",), "got together": ("formation",),
    "get together": ("formation",), "came together": ("formation",),
    "created": ("creator", "inception", "formation", "developer", "country of origin"),
    "employ": ("employer",), "employs": ("employer",), "employed": ("employer",),
    "taught": ("employer",), "teaches": ("employer",), "lectured": ("employer",),
    "works": ("work",), "worked": ("work", "employer"), "working": ("work", "employer"),
    "own": ("owned by", "owner"), "owns": ("owned by", "owner"), "owned": ("owned by",),
    "owner": ("owned by",), "parent company": ("owned by", "parent organization"),
    "parent organization": ("owned by", "parent organization"),
    "parent organisation": ("owned by", "parent organization"),
    "branch of": ("part of", "subclass of"),
    # software and games are made by their developer
    "made": ("manufacturer", "maker", "developer"), "makes": ("manufacturer", "developer"),
    "built": ("manufacturer",),
    "produced": ("manufacturer", "producer"), "manufactures": ("manufacturer",),
    "produces": ("manufacturer", "producer"), "produce": ("manufacturer", "producer"),
    # "earn a living" (an award is earned too); "excel in a field"
    "earn": ("occupation", "award received"), "earns": ("occupation", "award received"),
    "earned": ("occupation", "award received"), "excel": ("field of work",),
    "excelled": ("field of work",),
    "developed": ("developer",), "develops": ("developer",), "develop": ("developer",),
    "studied": ("educated at",), "study": ("educated at",),
    "studies": ("educated at", "field of work"), "research": ("field of work",),
    "researches": ("field of work",), "researched": ("field of work",),
    "attended": ("educated at",), "trained": ("educated at",), "train": ("educated at",),
    "trains": ("educated at",), "training": ("educated at",),
    "attend": ("educated at",),
    # "go to university" or "the prize went to X"
    "go to": ("educated at", "award received"), "went to": ("educated at", "award received"),
    "goes to": ("educated at", "award received"), "educated": ("educated at",),
    "graduated": ("educated at",),
    # a person's languages, or a country's ("what language do they speak in Brazil")
    "speak": ("languages spoken", "official language"),
    "speaks": ("languages spoken", "official language"),
    "spoke": ("languages spoken", "official language"),
    "spoken": ("languages spoken", "official language"),
    "talk": ("languages spoken", "official language"),
    "talks": ("languages spoken", "official language"),
    "writes": ("language", "author"), "wrote": ("author", "language"),
    "written": ("language", "author"), "write": ("language", "author"),
    # an event takes place at a location, in a country ("in which country did the 1972
    # Olympics take place")
    **{verb: ("location", "country") for verb in (
        "take place", "took place", "takes place", "taken place")},
    "fought": ("location",), "subgenre": ("subclass of",), "subgenres": ("subclass of",),
    "staged": ("location",), "hosted": ("location",), "host": ("location",),
    "venue": ("location",),
    "happened": ("location",), "happen": ("location",), "happens": ("location",),
    "faculty": ("employer",), "title": ("noble title", "position held"),
    "build": ("manufacturer",), "builds": ("manufacturer",), "constructed": ("manufacturer",),
    "premiered": ("original network",), "premiere": ("original network",),
    "neighbours": ("shares border with",), "neighbors": ("shares border with",),
    "neighbouring": ("shares border with",), "neighboring": ("shares border with",),
    "beside": ("shares border with",), "next to": ("shares border with",),
    "role": ("position held", "position played"), "started": ("formation",),
    "controlled": ("owned by",), "programmed": ("developer",),
    "behind": ("developer", "creator", "founded by", "manufacturer", "owned by"),
    "believe": ("religion",), "believes": ("religion",), "believed": ("religion",),
    "maintain": ("diplomatic relation", "maintained by", "operator"),
    "maintains": ("diplomatic relation", "maintained by", "operator"),
    "maintained": ("diplomatic relation", "maintained by", "operator"),
    "embassy": ("diplomatic relation",), "embassies": ("diplomatic relation",),
    "signed for": ("member of sports team",), "decorated": ("award received",),
    "turned out": ("member of sports team",),
    "alumnus": ("educated at",), "alumni": ("educated at",), "alumna": ("educated at",),
    "rank": ("position held", "military rank"),
    "forms part": ("part of",), "form part": ("part of",), "formed part": ("part of",),
    "started out": ("formation",), "start out": ("formation",),
    "official": ("official language",),
    "serve": ("position held",), "served": ("position held",), "serves": ("position held",),
    # an organization is located where its headquarters are
    "located": ("location", "located in", "headquarters location"),
    "situated": ("location", "headquarters location"), "lies": ("location",),
    "published": ("publisher", "language of work", "publication date"),
    "publishes": ("publisher", "language of work"),
    "publish": ("publisher", "language of work"),
    # "a state that followed which religion" (an "R followed by" is named as it is)
    "followed": ("religion",), "follows": ("religion",), "follow": ("religion",),
    "practised": ("religion",), "practiced": ("religion",), "practises": ("religion",),
    "practices": ("religion",),
    "within": ("located in",), "inside": ("located in",),
    "headquartered": ("headquarters",), "hq": ("headquarters",),
    "home base": ("headquarters",),
    "dob": ("date of birth",), "dod": ("date of death",),
    "based": ("headquarters", "work location", "residence"),
    "named": ("named after",), "called": ("named after",), "namesake": ("named after",),
    # ("namesake" too: "named" and "after" are stopwords, which no name's stems keep)
    "name": ("named after", "namesake"),
    # "bears the name of", "takes its name from": the verb and the determiner name nothing
    **{f"{word} name": ("named after", "namesake") for word in """bears bear bore carries
       carry carried gets get got derives derive derived takes take took its their""".split()},
    "set up": ("formation", "inception"),
    "put together": ("formation",), "shows": ("original network",),
    "showed": ("original network",), "property": ("owned by",),
    "accolade": ("award received",), "accolades": ("award received",),
    "followers": ("religion",), "follower": ("religion",), "adherents": ("religion",),
    "elected": ("member of", "position held"), "passport": ("country of citizenship",),
    "married": ("spouse",), "wife": ("spouse",), "husband": ("spouse",),
    "nationality": ("country of citizenship",), "citizen": ("citizenship",),
    "faith": ("religion",), "religious": ("religion",),
    "state religion": ("religion",), "official religion": ("religion",),
    "border": ("shares border with",), "borders": ("shares border with",),
    "bordering": ("shares border with",), "marry": ("spouse",), "marries": ("spouse",),
    "bordered": ("shares border with",), "neighbour": ("shares border with",),
    "neighbor": ("shares border with",), "adjacent": ("shares border with",),
    "twinned": ("twin town", "sister city"), "twin": ("twin town",),
    "sister": ("sister city",), "partner": ("partner city",),
    "broadcast": ("original network",), "aired": ("original network",),
    "broadcaster": ("original network",), "broadcasts": ("original network",),
    "air": ("original network",), "shown": ("original network",),
    "channel": ("original network",), "network": ("original network",),
    # a place belongs to its country, a person to the nation of their citizenship, to a
    # church, to an organisation of members; a thing to its owner
    **{form: ("part of", "country", "country of citizenship", "member of", "religion",
              "genre", "owned by") for form in ("belong", "belongs", "belonged")},
    "affiliation": ("member of political party", "member of"),
    "subgroup": ("subclass of",), "subgroups": ("subclass of",),
    "branch": ("subclass of", "part of"), "branches": ("subclass of", "part of"),
    "consist": ("has part",), "consists": ("has part",), "contain": ("has part",),
    "contains": ("has part",), "composed": ("has part",), "components": ("has part",),
    "parts": ("has part",), "component": ("has part",),
    # one is part of a band as one is a member of it
    "part": ("member of",),
    "won": ("award received",), "receive": ("award received",),
    # the winner of a prize received it
    **{noun: ("award received",) for noun in
       "winner winners laureate laureates recipient recipients".split()},
    "received": ("award received",), "got": ("award received",),
    "win": ("award received",), "prize": ("award received",),
    # "named in honour of", "whose name honours which goddess"
    "honour": ("award received", "named after", "namesake"),
    "honours": ("award received", "named after", "namesake"),
    "honors": ("award received",), "awarded": ("award received",),
    "office": ("position held",), "post": ("position held",),
    "job": ("occupation", "position held"), "profession": ("occupation",),
    "living": ("occupation",),
    "originate": ("country of origin",), "originated": ("country of origin",),
    "originates": ("country of origin",), "originating": ("country of origin",),
    "origin": ("country of origin",),
    "jurisdiction": ("applies to jurisdiction",),
    "responsible": ("applies to jurisdiction",),
    # a parliament is the legislative body of its jurisdiction
    **{noun: ("applies to jurisdiction", "legislative body") for noun in (
        "parliament", "legislature", "congress", "assembly")},
    "superclass": ("subclass of",), "subclass": ("subclass of",),
    "discipline": ("field of work",), "specialize": ("field of work",),
    "specialized": ("field of work",),
    "party": ("member of political party",),
    # one plays for a team, an instrument, a position ("member of" would meet "instance
    # of" through its alias "distinct member of"; "genre" the instrument of "на чём играл")
    "played": ("member of sports team", "instrument", "position played"),
    "plays": ("member of sports team", "instrument", "genre"),
    "play": ("member of sports team", "instrument", "genre"), "music": ("genre",),
    "musical genre": ("genre",), "music genre": ("genre",), "musical style": ("genre",),
    "literary genre": ("genre",),
    # one plays in a band (a role is played too: "the actor who played Chewbacca")
    # and a team plays in a match or a final
    "plays in": ("member of", "participating teams", "participant in"),
    "play in": ("member of", "participating teams", "participant in"),
    "played in": ("member of", "participating teams", "participant in"),
    "fellow": ("member of",), "fronted": ("member of",), "fronts": ("member of",),
    "frontman": ("member of",), "frontwoman": ("member of",), "joined": ("member of",),
    "join": ("member of",), "joins": ("member of",), "affiliated": ("member of",),
    # one is in a band, or of it ("the keyboardist of which band"); "band" alone may
    # only say what a thing is ("fronted a band that comes from …")
    **{pair: ("member of",) for noun in ("band", "bands") for pair in (
        f"{noun} in", f"in {noun}", f"of {noun}")},
    # "In which band does X play?": the preposition first, the class noun between
    **{f"in {verb}": ("member of", "participating teams", "participant in")
       for verb in ("play", "plays", "played")},
    # "takes its name from": the verb and its determiner name nothing themselves
    "signed": ("record label",), "takes its": ("named after", "namesake"),
    "take its": ("named after", "namesake"), "took its": ("named after", "namesake"),
    "take their": ("named after", "namesake"), "took their": ("named after", "namesake"),
    "owes its": ("named after", "namesake"), "owe its": ("named after", "namesake"),
    "owed its": ("named after", "namesake"),
    # "where does the name X come from?", "the origin of the name X": what X is named after
    **{pair: ("named after", "namesake") for verb in
       "come comes came derive derives derived originate originates originated".split()
       for pair in (f"name {verb}", f"{verb} name")},
    # a sport is said by its teams, positions and leagues ("football player Zico")
    **{sport: ("member of sports team", "position played on team", "sport", "league")
       for sport in "football soccer basketball baseball hockey rugby cricket".split()},
    # a team plays in its league, of which a KB may say it is a member
    "league": ("league", "member of"), "leagues": ("league", "member of"),
    "club": ("member of sports team",), "team": ("member of sports team",),
    # one plays for a team, or an instrument ("a tuba player")
    "player": ("member of sports team", "instrument"),
    "players": ("member of sports team", "instrument"),
    "capital": ("capital",), "seat": ("capital", "headquarters"),
    "mother": ("mother",), "father": ("father",), "child": ("child",),
    "children": ("child",), "kids": ("child",), "son": ("child",), "daughter": ("child",),
    "advisor": ("doctoral advisor",), "supervisor": ("doctoral advisor",),
    "students": ("doctoral student",), "student": ("doctoral student",),
    "tongue": ("native language", "language"), "tongues": ("language",),
    "first language": ("native language",), "officially": ("official language",),
    "state language": ("official language",),
    "label": ("record label",), "released": ("record label", "publication date"),
    "competed": ("participating teams", "league", "member of", "participant in"),
    "participated": ("participating teams",),
    # a team competes in its league
    "compete": ("league", "member of", "participant in"),
    "competes": ("league", "member of", "participant in"),
    "competing": ("league", "member of", "participant in"),
    "brews": ("manufacturer",), "brewed": ("manufacturer",), "brew": ("manufacturer",),
    "brewer": ("manufacturer",), "brewery": ("manufacturer",),
    "teams": ("participating teams",),
}
