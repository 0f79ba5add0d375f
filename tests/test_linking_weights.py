"""The entity linker's scoring knobs on the demo KB: custom ``Weights`` and the tie-break
between candidates that score the same."""

from __future__ import annotations

import shutil

import pytest

from linking import EntityLinker
from linking.ranking import DEFAULT_WEIGHTS, Weights


@pytest.fixture(scope="module")
def demo_copy(demo_mirror_path, tmp_path_factory):
    """A copy of the demo mirror: the linker builds its sidecar beside it."""
    path = tmp_path_factory.mktemp("linking") / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    return path


def test_a_candidate_scores_the_weighted_sum_of_its_features(demo_copy):
    default = {c.id: c for c in EntityLinker(demo_copy).candidates("Curie")}
    custom_weights = Weights(match=2.0, prior=0.5, langs=0.0)
    custom = {c.id: c for c in EntityLinker(demo_copy, weights=custom_weights)
              .candidates("Curie")}
    assert set(custom) == set(default) and len(default) >= 3
    for qid, c in custom.items():
        assert c.score == pytest.approx(sum(c.features.values()))
        for feature, value in c.features.items():    # each feature scaled by its weight
            base = default[qid].features[feature]
            ratio = getattr(custom_weights, feature) / getattr(DEFAULT_WEIGHTS, feature)
            assert value == pytest.approx(base * ratio)


def test_weights_decide_the_ranking(demo_copy):
    """Marie and Pierre Curie match "Curie" better than Irène Joliot-Curie does; a
    linker told to prefer worse matches puts her first."""
    usual = [c.id for c in EntityLinker(demo_copy).candidates("Curie")]
    assert usual.index("Q7186") < usual.index("Q7504")
    contrary = EntityLinker(demo_copy, weights=Weights(match=-1.0)).candidates("Curie")
    assert contrary[0].id == "Q7504"


def test_equal_scores_go_to_the_older_item(demo_copy):
    """Marie (Q7186) and Pierre Curie (Q37463) score the same for "Curie": the lower
    Q-number, the older item, comes first — whatever order the index returned them in."""
    marie, pierre = EntityLinker(demo_copy).candidates("Curie")[:2]
    assert marie.score == pierre.score
    assert (marie.id, pierre.id) == ("Q7186", "Q37463")
    flipped = EntityLinker(demo_copy, weights=Weights(prior=-0.25)).candidates("Curie")[:2]
    assert [c.id for c in flipped] == ["Q7186", "Q37463"]     # still tied, same order
