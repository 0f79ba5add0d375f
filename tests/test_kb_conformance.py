"""MirrorKB and RdfGraphKB pass the KnowledgeBase conformance suite."""

from __future__ import annotations

import pytest

from kb.mirror import MirrorKB
from kb.rdfgraph import RdfGraphKB
from kb.testing import CONFORMANCE_DATA, KnowledgeBaseConformance
from store.ingest import load
from store.mirror import Mirror


class TestMirrorKB(KnowledgeBaseConformance):
    @pytest.fixture(scope="class")
    def kb(self, tmp_path_factory):
        path = tmp_path_factory.mktemp("conformance") / "mirror.sqlite"
        with Mirror(path, create=True) as mirror:
            report = load(mirror, CONFORMANCE_DATA)
        assert report.errors == 0
        base = MirrorKB(path)
        yield base
        base.close()


class TestRdfGraphKB(KnowledgeBaseConformance):
    @pytest.fixture(scope="class")
    def kb(self):
        return RdfGraphKB(CONFORMANCE_DATA)
