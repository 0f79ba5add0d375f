"""MirrorLinking: the fast ``kb.linking.LinkingKB`` over a local mirror.

The queries are ``store.link_queries.LinkQueries`` (SQL lives in store/); this module turns
their rows into the linking types. Names are looked up by the mirror's normalized-key
index; spacing variants, qualified labels, misspellings and language counts come from the
linking sidecar, built beside the mirror on first use (``store.link_index``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.linking import EntityProfile, Name, PropertyNames
from kb.types import pick_text
from store.link_queries import LinkQueries
from store.vocab import ALIAS, DESCRIPTION, LABEL

if TYPE_CHECKING:
    from kb.mirror import MirrorKB


class MirrorLinking:
    """``LinkingKB`` over one MirrorKB (see the module docstring)."""

    features = frozenset({"spacing", "qualified", "fuzzy", "words", "sounds"})

    def __init__(self, kb: MirrorKB, *, index_path: str | Path | None = None,
                 progress: Callable[[str], None] | None = None):
        self.kb = kb
        self.name = kb.name
        self.queries = LinkQueries(kb.mirror, index_path=index_path, progress=progress)
        self._props: list[PropertyNames] | None = None
        self._spaced: dict[str, tuple[list[str], list[str]]] = {}   # both kinds, one query
        self._spaced_from: Any = None       # the sidecar ``_spaced`` was read from

    @property
    def index(self) -> Any:
        """The linking sidecar (``store.link_index.LinkIndex``), built on first use."""
        return self.queries.index

    def close(self) -> None:
        self.queries.close()

    def batch(self) -> Any:
        """A context in which many lookups (one text's) share one check of whether the
        mirror changed (``LinkQueries.batch``)."""
        return self.queries.batch()

    def names(self, norms: Sequence[str]) -> list[Name]:
        return [Name(e, text, norm, lang, kind == LABEL, prior, langs)
                for e, kind, lang, text, norm, prior, langs in self.queries.names(norms)]

    def known(self, norms: Sequence[str]) -> set[str]:
        return self.queries.known(norms)

    def capitalized(self, norms: Sequence[str]) -> set[str]:
        """The ``norms`` some name written with a capital letter has (faster than names)."""
        return self.queries.capitalized(norms)

    def concepts(self, norms: Sequence[str]) -> set[str]:
        """The ``norms`` some name written all in lower case has (a concept's name)."""
        return self.queries.capitalized(norms, lower=True)

    def names_in_language(self, lang: str) -> bool:
        """Whether the mirror has an entity label or alias in ``lang``."""
        return self.queries.names_in_language(lang)

    def _spaced_cache(self) -> dict[str, tuple[list[str], list[str]]]:
        """``_spaced``, emptied when the sidecar it was read from has been replaced (a load
        into the mirror made it stale: ``LinkQueries``)."""
        index = self.queries.index
        if index is not self._spaced_from:
            self._spaced = {}
            self._spaced_from = index
        return self._spaced

    def prepare_similar(self, norms: Sequence[str]) -> None:
        """Look up the ``spacing`` and ``qualified`` names of many norms at once (one
        query), for ``similar`` to answer from."""
        self._spaced_cache()
        wanted = [n for n in dict.fromkeys(norms) if n and n not in self._spaced]
        if wanted:
            if len(self._spaced) + len(wanted) > 20_000:
                self._spaced.clear()
            self._spaced.update(self.queries.spaced_many(wanted))

    def similar(self, norm: str, how: str, *, limit: int = 20) -> list[tuple[str, float]]:
        if how in ("spacing", "qualified"):
            found = self._spaced_cache().get(norm)
            if found is None:
                found = self.queries.spaced(norm)
                if len(self._spaced) > 20_000:
                    self._spaced.clear()
                self._spaced[norm] = found
            spaced, qualified = found
            return [(n, 1.0) for n in (spaced if how == "spacing" else qualified)][:limit]
        if how == "fuzzy":
            return [(n, sim) for n, sim, dist in self.queries.fuzzy(norm, limit=limit)
                    if dist > 0]
        if how == "sounds":
            return self.queries.sounds_like(norm, limit=limit)
        if how == "words":
            words = norm.split()
            matches = self.queries.word_matches(words) or []
            return [(n, len(words) / max(len(n.split()), 1)) for n in matches if n != norm]
        return []

    def nearest(self, norm: str, *, max_distance: int, limit: int) -> list[str]:
        """Normalized names within ``max_distance`` edits of ``norm``, nearest first."""
        return [n for n, _sim, _d in self.queries.fuzzy(norm, max_distance=max_distance,
                                                         limit=limit)]

    def labels(self, ids: Sequence[str], *, lang: str = "en") -> dict[str, tuple[str, str | None]]:
        found = self.queries.labels(ids)
        return {i: (pick_text(found.get(i, {}).get(LABEL, {}), lang) or i,
                    pick_text(found.get(i, {}).get(DESCRIPTION, {}), lang)) for i in ids}

    def profiles(self, ids: Sequence[str], *, lang: str = "en") -> dict[str, EntityProfile]:
        raw = self.queries.profiles(ids)
        type_ids = sorted({t for r in raw.values() for t in r[2]})
        names = self.labels(type_ids, lang=lang) if type_ids else {}
        return {i: EntityProfile(i, frozenset(types),
                                 tuple(names[t][0] for t in sorted(types) if names[t][0] != t),
                                 subject_of, value_of, frozenset(neighbours), langs)
                for i, (subject_of, value_of, types, neighbours, langs) in raw.items()}

    def related(self, values: Sequence[str], properties: Sequence[str],
                *, limit: int = 50) -> dict[str, list[tuple[str, str]]]:
        """value → (subject, property) of statements with one of ``properties`` and that
        value (see ``kb.linking.GenericLinking.related``)."""
        return self.queries.related(values, properties, limit=limit)

    def connecting(self, subject: str, value: str) -> frozenset[str]:
        return self.queries.connecting(subject, value)

    def properties(self) -> list[PropertyNames]:
        if self._props is None:
            out = []
            for pid, datatype, terms, usage, share, types in self.queries.properties():
                labels: dict[str, str] = {}
                descriptions: dict[str, str] = {}
                aliases: dict[str, list[str]] = {}
                for kind, lang, text in terms:
                    if kind == LABEL:
                        labels.setdefault(lang, text)
                    elif kind == DESCRIPTION:
                        descriptions.setdefault(lang, text)
                    elif kind == ALIAS:
                        aliases.setdefault(lang, []).append(text)
                out.append(PropertyNames(pid, datatype, labels,
                                         {k: tuple(v) for k, v in aliases.items()},
                                         descriptions, usage, share, tuple(types)))
            self._props = out
        return self._props
