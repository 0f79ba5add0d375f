"""FallbackKB: the local mirror first, a live SPARQL endpoint on a miss, and the answer
written back into the mirror so that the next ask is local.

Contract, per method:

- ``entity(id)``: the mirror's entity, unless the mirror does not know it
  (``EntityNotFound``) or knows it only as a stub — no terms, or terms that came only from
  earlier ``search``/``property_info`` write-backs. Then the endpoint is asked and its
  labels, descriptions, aliases, datatype and sitelinks are written back.
- ``statements(s, p, o)``: the mirror's statements, unless there are none, or all of them
  came from the endpoint for other questions (e.g. ``statements('Q42', 'P108')`` was
  fetched, now ``statements('Q42')`` is asked). Then the endpoint is asked and its
  statements are written back. A question the endpoint already answered (with at least
  this ``limit``) is never asked again, even if the answer was empty.
- ``search(text)``: the mirror's candidates; if there are none, the endpoint's exact
  matches, whose label, description and matched name are written back.
- ``property_info(pid)``: the mirror's, else the endpoint's (written back);
  ``property_infos(pids)`` the same for many, asked of the endpoint in batches.
- ``sparql(query)``: the mirror's answer; if the mirror cannot answer the query
  (``UnsupportedQuery``) the endpoint's, whose ``explain`` says why. SPARQL answers are not
  written back (bindings are not statements).

Every write-back is one transaction with a ``sources`` row (format ``live``, the endpoint,
the retrieval time; see ``store.writeback``). Statements fetched live cite
``sparql:<endpoint>``; served later from the mirror they still cite the endpoint and the
retrieval time, as that is the fact's origin. Provenance travels on the values returned,
never in "last call" state: a statement's ``citation``, a candidate's, an entity's and a
property's ``source``/``retrieved_at`` (and an entity's ``term_sources`` for terms an
endpoint wrote back into the mirror), a SPARQL result's ``source``/``retrieved_at``.

Failures of the endpoint are raised as its typed errors, never turned into empty answers;
the mirror is unchanged by them. ``offline=True`` turns the live side off: misses are then
answered by the mirror alone (``EntityNotFound`` saying the endpoint is off, or an empty
list). An unreachable endpoint (``EndpointUnreachable``) turns the live side off for
``retry_unreachable_after`` seconds, so later misses fail at once instead of waiting on the
network again. Endpoint errors are raised, not logged (a command that ends with one prints
it once); a caller that carries on without the endpoint says so (``log_off``).
"""

from __future__ import annotations

import logging
import threading
import time
from functools import partial
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from kb.endpoint import SparqlEndpointKB
from kb.mirror import MirrorKB
from kb.types import Candidate, Entity, PropertyInfo, SparqlResult, Statement, Value
from store.errors import (EndpointError, EndpointUnreachable, EntityNotFound,
                          PropertyNotFound, UnsupportedQuery)
from store.normalize import normalize
from store.vocab import ALIAS, DESCRIPTION, LABEL, check_id, check_property
from store.writeback import was_fetched, write_back

if TYPE_CHECKING:
    from kb.mirror_linking import MirrorLinking

log = logging.getLogger(__name__)
T = TypeVar("T")


class FallbackKB:
    """The mirror, backed by a live endpoint (see the module docstring)."""

    def __init__(self, local: MirrorKB, live: SparqlEndpointKB | None, *,
                 offline: bool = False, retry_unreachable_after: float = 60.0):
        if not isinstance(local, MirrorKB):
            raise TypeError("FallbackKB writes live answers back into a mirror, so its "
                            f"local side must be a MirrorKB, got {type(local).__name__}")
        self.local, self.live = local, live
        self.offline = offline or live is None
        self.retry_unreachable_after = retry_unreachable_after
        self.name = local.name + (f"+{live.name}" if live is not None else "")
        self._unreachable: tuple[float, EndpointUnreachable] | None = None

    def __repr__(self) -> str:
        return f"FallbackKB({self.local!r}, {self.live!r}, offline={self.offline})"

    def close(self) -> None:
        self.local.close()
        if self.live is not None:
            self.live.close()

    def linking(self, **options: Any) -> FallbackLinking:
        """Linking over the mirror (``MirrorKB.linking``) that asks the live endpoint, when
        it is on, for names the mirror lacks entirely (see ``FallbackLinking``)."""
        return FallbackLinking(self.local.linking(**options), self)

    def live_off_reason(self) -> str | None:
        """Why the live side is off right now, or None when it is on."""
        if self.live is None:
            return "no live endpoint is configured"
        if self.offline:
            return "offline mode (--offline)"
        if self._unreachable is not None:
            since, exc = self._unreachable
            if time.monotonic() - since < self.retry_unreachable_after:
                return f"it was unreachable {time.monotonic() - since:.0f} s ago ({exc.what})"
            self._unreachable = None
        return None

    # -- plumbing ---------------------------------------------------------------------------
    def _ask_live(self, call: Callable[[], T]) -> T:
        """Run ``call`` against the endpoint; remember an unreachable endpoint."""
        assert self.live is not None
        if self._unreachable is not None and self.live_off_reason() is not None:
            raise EndpointUnreachable(
                f"not asked: {self.live_off_reason()}", endpoint=self.live.url,
                fix="check the network, or pass --offline to answer from the mirror alone"
            ) from self._unreachable[1]
        try:
            out = call()
        except EndpointUnreachable as exc:
            # raised, not logged: the caller reports it (a command ends with it, printed
            # once) or, carrying on without the endpoint, logs that it does (``log_off``)
            self._unreachable = (time.monotonic(), exc)
            raise
        return out

    def log_off(self, exc: EndpointUnreachable, doing: str) -> None:
        """Say (a warning) that ``doing`` goes on without the endpoint after ``exc``: for
        callers that do not raise the error on."""
        log.warning("%s; %s without it: the live side is off for %g s", exc, doing,
                    self.retry_unreachable_after)

    def _write(self, key: str, retrieved_at: str, **rows: Any) -> None:
        """Write a live answer back; a failure to write is logged, not raised (the answer
        itself is good)."""
        assert self.live is not None
        try:
            write_back(self.local.mirror, endpoint=self.live.url, retrieved_at=retrieved_at,
                       key=f"{self.live.url} {key}", **rows)
        except Exception as exc:  # noqa: BLE001 - the caller still gets the live answer
            log.warning("could not write the live answer to %r back into %s: %s",
                        key, self.local.name, exc)

    def _fetched(self, key: str) -> list[dict]:
        assert self.live is not None
        return was_fetched(self.local.mirror, f"{self.live.url} {key}")

    # -- entities ---------------------------------------------------------------------------
    def entity(self, id: str) -> Entity:
        id = check_id(id)
        try:
            found = self.local.entity(id)
        except EntityNotFound:
            found = None
        if found is not None and (self.offline or self._known_locally(id)):
            return found
        if self.offline:
            raise EntityNotFound(id, kb=self.name, fix=f"the live endpoint is off: "
                                 f"{self.live_off_reason()}; run without --offline to ask it")
        live = self.live
        assert live is not None             # not offline, so there is one (__init__)
        try:
            ent = self._ask_live(lambda: live.entity(id))
        except EntityNotFound:
            if found is not None:
                return found
            raise EntityNotFound(id, kb=self.name) from None
        self._write(f"entity {id}", ent.retrieved_at or _now(), terms=_entity_terms(ent),
                    datatypes=[(id, ent.datatype)] if ent.datatype else [],
                    sitelinks=[(id, ent.sitelinks)] if ent.sitelinks else [])
        return ent

    def _known_locally(self, id: str) -> bool:
        """Whether the mirror's terms of ``id`` are complete: some come from the mirror's
        own sources, or the endpoint was asked for the whole entity before."""
        formats = self.local.queries.source_formats(id)
        if formats - {"live"}:
            return True
        return bool(self._fetched(f"entity {id}"))

    def property_info(self, pid: str) -> PropertyInfo:
        try:
            return self.local.property_info(pid)
        except PropertyNotFound:
            if self.offline:
                raise PropertyNotFound(pid, kb=self.name, fix=f"the live endpoint is off: "
                                       f"{self.live_off_reason()}") from None
        live = self.live
        assert live is not None             # not offline, so there is one (__init__)
        info = self._ask_live(lambda: live.property_info(pid))
        self._write(f"property_info {info.id}", info.retrieved_at or _now(),
                    terms=_property_terms(info),
                    datatypes=[(info.id, info.datatype)] if info.datatype else [])
        return info

    def property_infos(self, pids: Any) -> dict[str, PropertyInfo]:
        """``property_info`` of each of ``pids`` known here: the mirror's, and the others
        asked of the endpoint in a few batched queries (written back, one write per
        batch). The live side off: the mirror's alone."""
        out: dict[str, PropertyInfo] = {}
        missing = []
        for pid in dict.fromkeys(check_property(p) for p in pids):
            try:
                out[pid] = self.local.property_info(pid)
            except PropertyNotFound:
                missing.append(pid)
        if not missing or self.live_off_reason() is not None:
            return out
        assert self.live is not None
        batch = self.live.PROPERTY_BATCH
        for i in range(0, len(missing), batch):
            chunk = missing[i:i + batch]
            found = self._ask_live(partial(self.live.property_infos, chunk))
            terms, datatypes = [], []
            for info in found.values():
                terms += _property_terms(info)
                if info.datatype:
                    datatypes.append((info.id, info.datatype))
            if found:
                retrieved = next(iter(found.values())).retrieved_at or _now()
                self._write(f"property_infos {' '.join(chunk)}", retrieved, terms=terms,
                            datatypes=datatypes)
            out.update(found)
        return out

    # -- statements -------------------------------------------------------------------------
    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        found = self.local.statements(subject, property, value, limit=limit)
        if self.offline:
            if not found:
                log.info("no local statements for %s; the live endpoint is off: %s",
                         (subject, property, value), self.live_off_reason())
            return found
        live = self.live
        assert live is not None             # not offline, so there is one (__init__)
        live_name = live.name
        if any(s.citation is None or s.citation.source != live_name for s in found):
            return found                     # the mirror's own data answers
        key = " ".join(["statements", check_id(subject) if subject else "-",
                        check_property(property) if property else "-", _value_key(value)])
        for earlier in self._fetched(key):
            asked = earlier.get("limit", 0)
            if earlier.get("rows", 0) < asked or asked >= limit:
                # asked before: all of it, or at least as much. Read again: another thread
                # may have written the answer (with this note, in one transaction) after
                # the first read found nothing
                return self.local.statements(subject, property, value, limit=limit)
        got = self._ask_live(lambda: live.statements(subject, property, value, limit=limit))
        retrieved = next((s.citation.retrieved_at for s in got
                          if s.citation and s.citation.retrieved_at), None) or _now()
        self._write(key, retrieved, note={"limit": limit, "rows": len(got)},
                    triples=[(s.subject, s.property, s.value.kind, s.value.value,
                              s.value.lang, s.value.datatype) for s in got])
        return got

    # -- search -----------------------------------------------------------------------------
    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        found = self.local.search(text, lang=lang, limit=limit)
        if found or self.offline:
            return found
        key = f"search {lang} {normalize(text)}"
        if self._fetched(key):               # asked before; read again, as in statements()
            return self.local.search(text, lang=lang, limit=limit)
        live = self.live
        assert live is not None             # not offline, so there is one (__init__)
        got = self._ask_live(lambda: live.search(text, lang=lang, limit=limit))
        terms = []
        for c in got:
            if c.matched:
                terms.append((c.id, LABEL if c.match == "label" else ALIAS, c.lang, c.matched))
            if lang == "en":   # then the live side read the label and description in English
                if c.label != c.id:
                    terms.append((c.id, LABEL, "en", c.label))
                if c.description:
                    terms.append((c.id, DESCRIPTION, "en", c.description))
        self._write(key, next((c.retrieved_at for c in got if c.retrieved_at), None) or _now(),
                    terms=terms)
        return got

    # -- SPARQL -----------------------------------------------------------------------------
    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        try:
            return self.local.sparql(query, timeout=timeout)
        except UnsupportedQuery as exc:
            if self.offline:
                raise UnsupportedQuery(f"{exc.what}; the live endpoint is off: "
                                       f"{self.live_off_reason()}", fix=exc.fix) from exc
            why = exc.what
        live = self.live
        assert live is not None             # not offline, so there is one (__init__)
        out = self._ask_live(lambda: live.sparql(query, timeout=timeout))
        return SparqlResult(vars=out.vars, rows=out.rows, boolean=out.boolean, graph=out.graph,
                            source=out.source, engine=out.engine,
                            explain=f"the mirror cannot answer this query ({why}); "
                                    f"{out.explain}", retrieved_at=out.retrieved_at)


def _entity_terms(ent: Entity) -> list[tuple[str, int, str, str]]:
    terms = [(ent.id, LABEL, lang, text) for lang, text in ent.labels.items()]
    terms += [(ent.id, DESCRIPTION, lang, text) for lang, text in ent.descriptions.items()]
    terms += [(ent.id, ALIAS, lang, text) for lang, texts in ent.aliases.items()
              for text in texts]
    return terms


def _value_key(value: str | Value | None) -> str:
    if isinstance(value, Value):
        return f"{value.kind}:{value.value}@{value.lang}^^{value.datatype}"
    return check_id(value) if value is not None else "-"


def _property_names(info: PropertyInfo, usage: int) -> Any:
    """Linking's PropertyNames of a property fetched live (English names)."""
    from kb.linking import PropertyNames

    return PropertyNames(info.id, info.datatype,
                         {"en": info.label} if info.label != info.id else {},
                         {"en": tuple(info.aliases)} if info.aliases else {},
                         {"en": info.description} if info.description else {}, usage)


def _property_terms(info: PropertyInfo) -> list[tuple[str, int, str, str]]:
    """The English terms of a property fetched live, as write-back rows."""
    terms = [(info.id, LABEL, "en", info.label)] if info.label != info.id else []
    if info.description:
        terms.append((info.id, DESCRIPTION, "en", info.description))
    return terms + [(info.id, ALIAS, "en", a) for a in info.aliases]


def _now() -> str:
    from kb.sparql_http import iso_time
    return iso_time(time.time())


class FallbackLinking:
    """``kb.linking.LinkingKB`` for a FallbackKB: the mirror's fast linking, and the live
    endpoint for what the mirror lacks — a name none of whose forms the mirror has is
    searched live (only the first key of a ``names`` call: the mention as written, not
    each variant), and the labels and profiles of entities found so are read through the
    FallbackKB (which writes them back). Mention detection and fuzzy matching stay local.
    """

    def __init__(self, local: MirrorLinking, kb: FallbackKB):
        from kb.linking import GenericLinking

        self.local, self.kb = local, kb
        self.name = kb.name
        self.features = local.features
        self._remote = GenericLinking(kb)
        self._fetched: set[str] = set()
        self._lock = threading.Lock()
        self._properties: list | None = None
        self._properties_lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:      # anything else the mirror's view has
        return getattr(self.local, name)

    # the mirror's optional members (``kb.linking``'s protocols), each its own method, as
    # ``isinstance`` on a protocol does not see what ``__getattr__`` forwards (3.12+)
    @property
    def index(self) -> Any:
        return self.local.index

    def close(self) -> None:
        self.local.close()

    def batch(self) -> Any:
        return self.local.batch()

    def capitalized(self, norms: Sequence[str]) -> set[str]:
        return self.local.capitalized(norms)

    def concepts(self, norms: Sequence[str]) -> set[str]:
        return self.local.concepts(norms)

    def prepare_similar(self, norms: Sequence[str]) -> None:
        self.local.prepare_similar(norms)

    def nearest(self, norm: str, *, max_distance: int, limit: int) -> list[str]:
        return self.local.nearest(norm, max_distance=max_distance, limit=limit)

    def related(self, values: Sequence[str], properties: Sequence[str],
                *, limit: int = 50) -> dict[str, list[tuple[str, str]]]:
        return self.local.related(values, properties, limit=limit)

    def warm_up(self) -> None:
        """Load now what the first name the mirror lacks would load: the endpoint's
        property list (a few queries over the whole graph, minutes on a big or busy
        endpoint, during which every other lookup of a name waits). A no-op when the live
        side is off."""
        if self.kb.live_off_reason() is None:
            try:
                self._remote.properties()
            except EndpointUnreachable as exc:
                self.kb.log_off(exc, "linking goes on")

    def names(self, norms: Any) -> list:
        found = self.local.names(norms)
        if found or not norms or self.kb.live_off_reason() is not None:
            return found
        try:
            found = self._remote.names(list(norms)[:1])
        except EndpointUnreachable as exc:
            self.kb.log_off(exc, "linking goes on")
            return []
        with self._lock:
            self._fetched.update(n.entity for n in found)
        return found

    def known(self, norms: Any) -> set[str]:
        return self.local.known(norms)

    def similar(self, norm: str, how: str, *, limit: int = 20) -> list:
        return self.local.similar(norm, how, limit=limit)

    def _split(self, ids: Any) -> tuple[list[str], list[str]]:
        remote = [i for i in ids if i in self._fetched]
        return [i for i in ids if i not in self._fetched], remote

    def labels(self, ids: Any, *, lang: str = "en") -> dict:
        local, remote = self._split(ids)
        out = self.local.labels(local, lang=lang) if local else {}
        if remote:
            out.update(self._remote.labels(remote, lang=lang))
        return out

    def profiles(self, ids: Any, *, lang: str = "en") -> dict:
        local, remote = self._split(ids)
        out = self.local.profiles(local, lang=lang) if local else {}
        if remote:
            out.update(self._remote.profiles(remote, lang=lang))
        return out

    def properties(self) -> list:
        """The mirror's properties, and — the live side on — the properties its statements
        use without naming them (a dump without its property entities), named by the
        endpoint: fetched once, in a few batched queries, and kept in the mirror, so that
        questions can name them next time too, offline."""
        with self._properties_lock:
            if self._properties is None:
                fetched = self._name_live()
                props = self.local.properties()     # read after the write-back: with them
                named = {p.id for p in props}
                self._properties = props + [_property_names(info, usage) for info, usage
                                            in fetched if info.id not in named]
            return self._properties

    def _name_live(self) -> list[tuple[PropertyInfo, int]]:
        """Ask the endpoint for the properties the mirror's statements use without naming
        them (written back); [(their info, statements using it)]."""
        if self.kb.live_off_reason() is not None:
            return []
        mirror = self.kb.local.mirror
        unnamed = mirror.unnamed_properties()
        if not unnamed:
            return []
        try:
            infos = self.kb.property_infos(unnamed)
        except EndpointUnreachable as exc:
            self.kb.log_off(exc, "property linking goes on")
            return []
        except EndpointError as exc:
            log.warning("%s; property linking goes on without the names of %d properties",
                        exc, len(unnamed))
            return []
        usage = mirror.statement_counts(list(infos))
        return [(info, usage.get(info.id, 0)) for info in infos.values()]

    def connecting(self, subject: str, value: str) -> frozenset[str]:
        return self.local.connecting(subject, value)
