"""Entity and property linking over any knowledge base, and grounding of label-level queries.

    from linking import EntityLinker, ground
    linker = EntityLinker("mirror.sqlite")        # or any kb.KnowledgeBase, or "my-kb.ttl"
    linker.link("Who founded Delta Airlines?").mentions[0].best    # Q188920, with features
    linker.properties.link("house publication", subject="Q188920")  # PropertyLinker
    ground(linker, "wd:/Delta Air Lines/ wdt:/house publication/ ?obj").query

The linkers ask the KB through ``kb.linking.LinkingKB`` (fast over a mirror, generic for
any KnowledgeBase). Modules, each with its contract in its docstring: ``candidates``
(labels and aliases in every language, variants, spacing, qualified labels, partial and
fuzzy matches), ``variants`` and ``lexicon`` (surface forms and word lists), ``mentions``
(detection with offsets), ``context`` and
``ranking`` (features and their weights), ``linker`` (EntityLinker), ``properties``
(PropertyLinker), ``grounding`` (CoK label-level queries), ``embeddings`` (optional
all-MiniLM-L6-v2), ``errors`` (unknown labels), ``types`` (results).
"""

from linking.errors import UnknownEntityLabel, UnknownPropertyLabel
from linking.grounding import GroundedQuery, Slot, ground, is_label_query
from linking.linker import EntityLinker
from linking.properties import PropertyLinker
from linking.ranking import Weights
from linking.types import LinkedMention, LinkResult, Mention

__all__ = ["EntityLinker", "GroundedQuery", "LinkResult", "LinkedMention", "Mention",
           "PropertyLinker", "Slot", "UnknownEntityLabel", "UnknownPropertyLabel", "Weights",
           "ground", "is_label_query"]
