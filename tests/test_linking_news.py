"""News text conventions (``linking.news``) on a small Turtle KB in Wikidata's vocabulary,
linked through the generic ``kb.linking`` view: datelines, "City, ST" addresses with AP
abbreviations and postal codes, a city for its team in a sports report, and a first and
last name beside a longer namesake. In each KB the wrong reading is the more popular one
(more statements), so each test fails without its rule."""

from __future__ import annotations

import pytest

from kb.rdfgraph import RdfGraphKB
from linking import EntityLinker, news

TURTLE = """\
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .

wd:Q5 rdfs:label "human"@en .
wd:Q515 rdfs:label "city"@en .
wd:Q35657 rdfs:label "state of the United States"@en .
wd:Q6256 rdfs:label "country"@en .
wd:Q3918 rdfs:label "university"@en .
wd:Q13027888 rdfs:label "baseball team"@en .
wd:Q30 rdfs:label "United States of America"@en ; skos:altLabel "United States"@en ;
    wdt:P31 wd:Q6256 .

# Washington the state is the better known; the city is a dateline's
wd:Q1223 rdfs:label "Washington"@en ; skos:altLabel "WA"@en ; wdt:P31 wd:Q35657 ;
    wdt:P17 wd:Q30 ; wdt:P36 wd:Q1 ; wdt:P47 wd:Q2 ; wdt:P47 wd:Q3 ; wdt:P47 wd:Q4 .
wd:Q61 rdfs:label "Washington"@en ; wdt:P31 wd:Q515 ; wdt:P17 wd:Q30 .

# two Cambridges and a university; the English city is the better known
wd:Q771 rdfs:label "Massachusetts"@en ; skos:altLabel "MA"@en ; wdt:P31 wd:Q35657 ;
    wdt:P17 wd:Q30 .
wd:Q350 rdfs:label "Cambridge"@en ; wdt:P31 wd:Q515 ; wdt:P47 wd:Q5 ; wdt:P47 wd:Q6 ;
    wdt:P47 wd:Q7 ; wdt:P47 wd:Q8 ; wdt:P47 wd:Q9 .
wd:Q49111 rdfs:label "Cambridge"@en ; skos:altLabel "Cambridge, Massachusetts"@en ;
    wdt:P31 wd:Q515 ; wdt:P131 wd:Q771 .
wd:Q35794 rdfs:label "University of Cambridge"@en ; skos:altLabel "Cambridge"@en ;
    wdt:P31 wd:Q3918 ; wdt:P131 wd:Q350 ; wdt:P47 wd:Q10 ; wdt:P47 wd:Q11 .

# CA: Canada (more statements) or California
wd:Q16 rdfs:label "Canada"@en ; skos:altLabel "CA"@en ; wdt:P31 wd:Q6256 ; wdt:P47 wd:Q30 ;
    wdt:P47 wd:Q12 ; wdt:P47 wd:Q13 ; wdt:P47 wd:Q14 ; wdt:P47 wd:Q15 .
wd:Q99 rdfs:label "California"@en ; skos:altLabel "CA"@en ; wdt:P31 wd:Q35657 ;
    wdt:P17 wd:Q30 .
wd:Q1785838 rdfs:label "La Jolla"@en ; wdt:P31 wd:Q515 .

# Boston and a team the KB relates to it (its name does not say so)
wd:Q100 rdfs:label "Boston"@en ; wdt:P31 wd:Q515 ; wdt:P131 wd:Q771 ; wdt:P17 wd:Q30 ;
    wdt:P47 wd:Q16 ; wdt:P47 wd:Q17 ; wdt:P47 wd:Q18 .
wd:Q213959 rdfs:label "Red Sox"@en ; wdt:P31 wd:Q13027888 ; wdt:P159 wd:Q100 .

# a US place whose label carries its state, as Wikidata's do
wd:Q1065503 rdfs:label "Watertown, South Dakota"@en ; wdt:P31 wd:Q515 .
wd:Q1211 rdfs:label "South Dakota"@en ; wdt:P31 wd:Q35657 .

# John Adams and his son, who has the father's name as an alias and more statements
wd:Q11806 rdfs:label "John Adams"@en ; wdt:P31 wd:Q5 .
wd:Q11816 rdfs:label "John Quincy Adams"@en ; skos:altLabel "John Adams"@en ;
    wdt:P31 wd:Q5 ; wdt:P39 wd:Q19 ; wdt:P39 wd:Q20 ; wdt:P39 wd:Q21 ; wdt:P26 wd:Q22 .

# a concept written in lower case
wd:Q176121 rdfs:label "thyratron"@en ; wdt:P279 wd:Q23 .
"""


@pytest.fixture(scope="module")
def linker(tmp_path_factory) -> EntityLinker:
    path = tmp_path_factory.mktemp("news-kb") / "news.ttl"
    path.write_text(TURTLE, encoding="utf-8")
    return EntityLinker(RdfGraphKB(path))


def best(linker: EntityLinker, text: str, mention: str) -> str:
    start = text.index(mention)
    return linker.link(text, spans=[(start, start + len(mention))]).mentions[0].best.id


def test_a_dateline_names_the_city_elsewhere_the_state(linker):
    assert best(linker, "WASHINGTON (AP) — The senate met.", "WASHINGTON") == "Q61"
    assert best(linker, "WASHINGTON — The senate met.", "WASHINGTON") == "Q61"
    assert best(linker, "Rain fell across Washington on Monday.", "Washington") == "Q1223"


def test_dateline_form():
    assert news.is_dateline("BOSTON (AP) — Rain.", 0, 6)
    assert news.is_dateline("x\nLA JOLLA, Calif. (Reuters) — Rain.", 2, 10)
    assert news.is_dateline("Boston (AP) - Rain.", 0, 6)
    assert not news.is_dateline("Boston — a city of rain.", 0, 6)      # not in capitals
    assert not news.is_dateline("He left BOSTON — for good.", 8, 14)   # not first


def test_an_ap_abbreviation_names_the_state_and_its_place_lies_there(linker):
    text = "Students at a college in Cambridge, Mass., walked out."
    assert best(linker, text, "Mass") == "Q771"            # no name of the KB is "Mass."
    assert best(linker, text, "Cambridge") == "Q49111"     # in Massachusetts (P131)
    assert best(linker, text, "Cambridge, Mass.") == "Q49111"   # as one mention
    assert best(linker, "Students in Cambridge walked out.", "Cambridge") == "Q350"


def test_a_postal_code_beside_a_zip_code_names_the_state(linker):
    assert best(linker, "Write to 9500 Gilman Drive, 92093, CA, La Jolla.", "CA") == "Q99"
    assert best(linker, "Write to La Jolla, CA 92093.", "CA") == "Q99"
    assert best(linker, "She moved to CA last year.", "CA") == "Q16"


def test_address_parts():
    assert news.address_state("Tampa, FL", 7, 9) == "florida"
    assert news.address_state("Cambridge, Mass., on", 11, 15) == "massachusetts"
    assert news.address_state("Columbus, Ohio, said", 10, 14) == "ohio"
    assert news.address_state("92093, CA, La Jolla", 7, 9) == "california"
    assert news.address_state("a mass of people", 2, 6) is None
    assert news.state_after("Portland, Ore., and", 0, 8) == "oregon"
    assert news.state_after("Redmond, WA 98052", 0, 7) == "washington"
    assert news.state_after("New Haven, Conn.", 0, 16) == "connecticut"
    assert news.state_after("Boston, Chicago and Denver", 0, 6) is None
    assert news.place_part("Cambridge, Mass.") == "Cambridge"


def test_a_city_names_its_team_in_a_sports_report_only(linker):
    sports = "Boston beat the visitors 6-2 as the pitcher struck out nine."
    assert best(linker, sports, "Boston") == "Q213959"     # P159 Boston, a team
    assert best(linker, "Boston voted on a new budget.", "Boston") == "Q100"
    assert best(linker, "Fans in Boston watched the pitcher win.", "Boston") == "Q100"


def test_a_first_and_last_name_prefers_its_exact_label_over_a_longer_name(linker):
    text = "John Adams signed the treaty."
    found = linker.link(text, spans=[(0, 10)]).mentions[0]
    assert found.best.id == "Q11806"
    longer = next(c for c in found.candidates if c.id == "Q11816")
    assert longer.features["longer_name"] < 0


def test_a_lower_case_concept_of_the_kb_is_proposed_in_cased_text(linker):
    found = linker.link("The old radio used a thyratron to switch the current.")
    assert [(m.mention.text, m.best.id) for m in found.mentions] == [("thyratron", "Q176121")]


def test_an_address_is_detected_as_its_place_and_its_state(linker):
    found = linker.link("Researchers in Cambridge, Mass., built it.")
    assert [(m.mention.text, m.best.id) for m in found.mentions] == [
        ("Cambridge", "Q49111"), ("Mass", "Q771")]
    found = linker.link("A lab in Cambridge, Massachusetts opened.")
    assert [(m.mention.text, m.best.id) for m in found.mentions] == [
        ("Cambridge", "Q49111"), ("Massachusetts", "Q771")]


def test_a_label_that_carries_its_state_stays_one_mention(linker):
    found = linker.link("What is Watertown, South Dakota the capital of?")
    assert [(m.mention.text, m.best.id) for m in found.mentions] == [
        ("Watertown, South Dakota", "Q1065503")]
