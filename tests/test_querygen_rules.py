"""Rule-based query generation on real mirrors: the demo KB (dates, numbers, classes) and
the T-REx Wikidata slice (names the detector misses, chains). Every query is run, and
its answers are checked against the KB's statements, not against the generator."""

from __future__ import annotations


import pytest

import kb
from linking import EntityLinker, ground
from querygen import GeneratedQuery, QueryGenerationError, generate, run


@pytest.fixture(scope="module")
def demo(demo_kb_copy):
    return demo_kb_copy, EntityLinker(demo_kb_copy)


@pytest.fixture(scope="module")
def sliced(slice_mirror_path):
    base = kb.open(slice_mirror_path)
    return base, EntityLinker(base)


def best(question: str, kbl) -> GeneratedQuery:
    base, linker = kbl
    queries = generate(question, base, linker=linker)
    assert queries, f"no query for {question!r}"
    return queries[0]


def values(base, subject, prop) -> set[str]:
    """The truthy values of (subject, prop), as wdt: reads them: the preferred statements
    when there are any, else the normal ones."""
    found = base.statements(subject, prop)
    preferred = [s for s in found if s.rank == "preferred"]
    return {s.value.value for s in (preferred or found)}


# -- one hop ------------------------------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "Where was Marie Curie born?", "What is Marie Curie's birthplace?",
    "marie curie was born in which city", "Name the place of birth of Marie Curie.",
])
def test_one_relation_in_different_words_is_one_triplet_query(demo, question):
    base, _ = demo
    q = best(question, demo)
    assert q.kind == "triplet" and q.triple == ("Q7186", "P19", None)
    assert q.label_level == "wd:/Marie Curie/ wdt:/place of birth/ ?x"
    assert q.grounded == "wd:Q7186 wdt:P19 ?x"
    result = run(q, base)
    assert result.ids == sorted(values(base, "Q7186", "P19")) == ["Q270"]
    cite = result.answers[0].citations[0]
    assert (cite.subject, cite.property, cite.value.value) == ("Q7186", "P19", "Q270")
    assert cite.url.startswith("https://www.wikidata.org/wiki/Q7186")


def test_when_asks_for_a_date_and_where_for_a_place(demo):
    assert best("When was Albert Einstein born?", demo).triple == ("Q937", "P569", None)
    assert best("Where did Albert Einstein die?", demo).triple == ("Q937", "P20", None)


def test_the_inverse_reading_when_the_entity_is_the_value(demo):
    base, _ = demo
    q = best("Which people were born in Ulm?", demo)
    assert q.triple == (None, "P19", "Q3012")
    assert set(run(q, base).ids) == {s.subject for s in base.statements(None, "P19", "Q3012")}


def test_label_level_query_grounds_back_to_the_same_ids(demo):
    _, linker = demo
    for question in ("Who employed Albert Einstein?", "How many awards did Marie Curie win?",
                     "What is the capital of the country where Albert Einstein was born?"):
        q = best(question, demo)
        assert ground(linker, q.label_level).query == q.grounded, question


# -- SPARQL forms ---------------------------------------------------------------------------------

def test_how_many_counts_the_statements(demo):
    base, _ = demo
    q = best("How many awards did Albert Einstein receive?", demo)
    assert q.kind == "sparql" and q.form == "count"
    assert "COUNT(DISTINCT ?x)" in q.text
    result = run(q, base)
    assert result.count == len(values(base, "Q937", "P166")) == 3
    assert {a.id for a in result.answers} == values(base, "Q937", "P166")


def test_how_many_prefers_a_number_the_kb_states(demo):
    base, _ = demo
    q = best("How many children did Marie Curie have?", demo)
    assert q.triple == ("Q7186", "P1971", None)                   # number of children
    assert run(q, base).ids == ["2"]


@pytest.mark.parametrize("question, expected", [
    ("Was Marie Curie born in Warsaw?", True),
    ("Was Marie Curie born in Paris?", False),
    ("Is Albert Einstein a physicist?", True),
    ("Did Albert Einstein win the Copley Medal?", True),
    ("Was Albert Einstein born in Germany?", True),       # Ulm, which is in Germany
])
def test_yes_no_questions_ask(demo, question, expected):
    base, _ = demo
    q = best(question, demo)
    assert q.form == "ask" and q.text.splitlines()[-1].startswith("ASK")
    result = run(q, base)
    assert result.boolean is expected
    if expected:
        assert result.support, "a yes is cited by the statements that make it true"


def test_a_chain_of_three_relations(demo):
    base, _ = demo
    q = best("What is the capital of the country where Albert Einstein was born?", demo)
    assert q.kind == "sparql"
    assert [p[1] for p in q.patterns] == ["P19", "P17", "P36"]
    capitals = {c for city in values(base, "Q937", "P19") for country in
                values(base, city, "P17") for c in values(base, country, "P36")}
    result = run(q, base)
    assert set(result.ids) == capitals and capitals
    assert len(result.answers[0].citations) == 3                    # one per edge


def test_a_chain_through_a_possessive(demo):
    q = best("Where was Marie Curie's spouse born?", demo)
    assert [p[1] for p in q.patterns] == ["P26", "P19"]


def test_superlatives_order_by_a_date_and_keep_the_first(demo):
    base, _ = demo
    q = best("Who is the oldest winner of the Nobel Prize in Physics?", demo)
    assert "ORDER BY ASC(?v) LIMIT 1" in q.text and ("?x", "P569", "?v") in q.patterns
    winners = {s.subject for s in base.statements(None, "P166", "Q38104", limit=500)}
    births = {w: min(values(base, w, "P569")) for w in winners if values(base, w, "P569")}
    assert run(q, base).ids == [min(births, key=births.get)]
    young = best("Which physicist was born last?", demo)
    assert "ORDER BY DESC(?v) LIMIT 1" in young.text
    assert ("?x", "P106", "Q169470") in young.patterns


def test_type_constraint_narrows_an_inverse_reading(demo):
    base, _ = demo
    q = best("Which universities are located in Zurich?", demo)
    typed = [p for p in q.patterns if p[1] == "wdt:P31/wdt:P279*"]
    answers = set(run(q, base).ids)
    assert answers, q.text
    if typed:                                    # the KB types them: only universities
        assert all("Q3918" in {s.value.value for s in base.statements(a, "P31")}
                   for a in answers)


def test_how_two_entities_are_related_is_s_unknown_o(demo):
    base, _ = demo
    queries = generate("How are Marie Curie and Pierre Curie related?", base,
                       linker=demo[1])
    found = {tuple(q.triple) for q in queries if q.kind == "triplet"}
    assert ("Q7186", None, "Q37463") in found
    q = next(q for q in queries if q.triple == ("Q7186", None, "Q37463"))
    assert run(q, base).ids == ["P26"]                                # spouse


# -- the slice: names the detector misses, ambiguity, many relations ---------------------------

@pytest.mark.parametrize("question, subject, prop", [
    ("Which record label is Play (Magazine album) signed to?", "Q17508725", "P264"),
    ("On which network did Nashville Now originally air?", "Q6966983", "P449"),
    ("Who developed The Evil Within?", "Q3407139", "P178"),
    ("What is glycine a subclass of?", "Q620730", "P279"),
    ("In what city was Cake formed?", "Q756704", "P740"),
])
def test_subjects_the_detector_misses_or_confuses(sliced, question, subject, prop):
    base, _ = sliced
    q = best(question, sliced)
    assert q.triple == (subject, prop, None), (q.grounded, q.notes)
    assert set(run(q, base).ids) == values(base, subject, prop)


def test_a_chain_on_the_slice(sliced):
    base, _ = sliced
    q = best("What is the capital of the country where Tom Jennings was born?", sliced)
    assert [p[1] for p in q.patterns] == ["P19", "P17", "P36"]
    assert run(q, base).ids == ["Q61"]                                  # Washington, D.C.


# -- what users get wrong -----------------------------------------------------------------------

def test_nothing_linkable_gives_no_query(demo):
    assert generate("What is the meaning of life?", demo[0], linker=demo[1]) == []


@pytest.mark.parametrize("question", ["", "   ", None, 42])
def test_no_question_is_a_clear_error(demo, question):
    with pytest.raises(QueryGenerationError, match="question"):
        generate(question, demo[0], linker=demo[1])


def test_a_text_too_long_to_be_one_question_is_refused(demo):
    with pytest.raises(QueryGenerationError, match="at most 80 words.*one question at a"):
        generate("Marie Curie " * 200, demo[0], linker=demo[1])


def test_unknown_strategy_and_missing_llm_are_clear_errors(demo):
    with pytest.raises(QueryGenerationError, match="unknown strategy.*rules"):
        generate("Where was Marie Curie born?", demo[0], strategy="magic", linker=demo[1])
    with pytest.raises(QueryGenerationError, match="needs an LLM"):
        generate("Where was Marie Curie born?", demo[0], strategy="llm", linker=demo[1])


@pytest.mark.parametrize("question", [
    "Where was Marie Curie born?} UNION { ?s ?p ?o",
    'Who employed "Albert Einstein" ; DROP ALL',
    "Where was Marie/Curie born? \\ / } {",
    "Where was Marie Curie born? " * 9,
])
def test_hostile_questions_give_safe_queries(demo, question):
    base, _ = demo
    for q in generate(question, base, linker=demo[1]):
        result = run(q, base)                  # every generated query parses and runs
        assert "DROP" not in q.text and "UNION" not in q.text
        assert result.query is q


def test_name_a_member_of_a_category(demo):
    base, _ = demo
    q = best("Name a physicist.", demo)
    assert q.triple == (None, "P106", "Q169470")                      # occupation
    members = {s.subject for s in base.statements(None, "P106", "Q169470", limit=500)}
    assert set(run(q, base).ids) == members and len(members) > 10


def test_two_entities_without_a_relation_question_are_no_pair(demo):
    q = best("Who is a physicist at the University of Paris?", demo)
    assert q.triple is None or q.triple[1] is not None                # never (s, ?, o)
