"""Property linking tells the two directions of a "<noun> of" relation apart ("part of" /
"has part", "capital of" / "capital") by the phrase's grammar, on the T-REx slice: which
properties pair up comes from the KB's own labels; the phrases are ours, none a benchmark
wording."""

from __future__ import annotations

import pytest

from kb.mirror import MirrorKB
from linking import EntityLinker
from linking.properties import direction_cue, inverse_pairs
from store.normalize import normalize

pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize("phrase, cue", [
    ("Of what is a piece?", 1),                     # the subject is the piece
    ("is a fragment of what?", 1),
    ("Which nation has as its capital city?", 1),   # the answer has the subject as capital
    ("What pieces does have?", -1),                 # the answer is the piece
    ("is made up of what?", 0),                     # "of" after a verb's particle
    ("What is the capital of?", 0),                 # the gap after "of": not told
    ("Where was born?", 0),
])
def test_the_phrase_says_which_way_it_asks(phrase, cue):
    assert direction_cue(normalize(phrase)) == cue


def test_inverse_pairs_come_from_the_kbs_labels(slice_mirror_path):
    kb = MirrorKB(slice_mirror_path)
    try:
        labels = {p.id: p.label("en") for p in kb.linking().properties() if p.labels}
    finally:
        kb.close()
    pairs = inverse_pairs(labels)
    assert (pairs["P361"], pairs["P527"]) == (1, -1)      # part of / has part
    assert (pairs["P1376"], pairs["P36"]) == (1, -1)      # capital of / capital
    assert "P19" not in pairs and "P31" not in pairs      # no counterpart by name


@pytest.fixture(scope="module")
def slice_linker(slice_mirror_path) -> EntityLinker:
    return EntityLinker(slice_mirror_path)


@pytest.mark.parametrize("phrase, pid", [
    ("Of what is a piece?", "P361"),
    ("is a fragment of what?", "P361"),
    ("Which whole has as a piece?", "P361"),
    ("Which nation has as its capital city?", "P1376"),
    ("What pieces does have?", "P527"),
    ("What capital city does have?", "P36"),
])
def test_the_direction_picks_the_property(slice_linker, phrase, pid):
    best = slice_linker.properties.link(phrase, limit=1)[0]
    assert best.id == pid
