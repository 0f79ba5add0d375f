"""Reading input files into batches of mirror rows. Pure: no database access here, so this
runs in a separate process during big loads, in parallel with the writer.

``read_batches(job)`` yields ``Batch`` objects; each holds the rows of a run of records and
the file position (line number) it reaches. A malformed record is counted and sampled in
the batch; with ``job.strict`` the batch that ends just before it carries the error and is
the last one.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generator, Iterable, Iterator

import msgspec

try:        # decompresses .bz2 on several threads (and faster on one than the bz2 module)
    import indexed_bzip2
except ImportError:     # pragma: no cover - a platform without its wheels
    indexed_bzip2 = None

from store import wikidata_json as wj
from store.errors import LoadError
from store.literals import XSD, InvalidLiterals, literal_problem
from store.ntriples import parse_line
from store.validity import iri_problem, is_absolute, lang_problem, text_problem
from store.vocab import (DATATYPE_BY_IRI, PROPERTY_TYPE, TERM_PREDICATES,
                         entity_kind, iri_to_id, property_from_iri)

RDF_FORMATS = {".ttl": "turtle", ".turtle": "turtle", ".n3": "n3", ".rdf": "xml",
               ".xml": "xml", ".owl": "xml", ".jsonld": "json-ld", ".nq": "nquads",
               ".trig": "trig", ".trix": "trix"}
MAX_ERROR_SAMPLES = 20
BATCH_ROWS = 50_000


@dataclass
class Filters:
    """What to keep; ``None`` keeps everything. Property definitions (P… entities) are kept
    whatever ``entities`` says, since statements need their labels and datatypes."""
    languages: set[str] | None = None
    properties: set[str] | None = None
    entities: set[str] | None = None


@dataclass
class Job:
    """Everything a reader needs to know; picklable, to cross into a worker process."""
    path: Path
    format: str                 # wikidata-json | ntriples | rdf
    source_id: int
    filters: Filters
    skip: int = 0               # records already committed by an interrupted load
    strict: bool = False
    bulk: bool = False          # fresh mirror: drop duplicates here (no unique indexes yet)
    allow_network: bool = False  # may a parser fetch from the network (a JSON-LD @context)


@dataclass
class Batch:
    """Rows for one transaction, and the line it reaches."""
    position: int = 0
    raw_offset: int = 0                       # bytes of the (compressed) file read so far
    entity_ids: list[str] = field(default_factory=list)   # JSON records, in file order
    entities: list[tuple] = field(default_factory=list)
    subjects: set[str] = field(default_factory=set)
    datatypes: list[tuple[str, str]] = field(default_factory=list)
    # (entity, kind, lang, text, source), or with ``terms_normalized`` (entity, kind, lang,
    # text, norm, source): the label-index key (None for descriptions) computed by the
    # JSON parser, which runs in a pool of processes during big loads
    terms: list[tuple] = field(default_factory=list)
    terms_normalized: bool = False
    triples: list[tuple] = field(default_factory=list)
    # JSON statements; their first column is an index local to the batch, which qualifier
    # and reference rows refer to: the writer turns it into the row id
    statements: list[tuple] = field(default_factory=list)
    qualifiers: list[tuple] = field(default_factory=list)
    references: list[tuple] = field(default_factory=list)
    reference_snaks: list[tuple[str, str]] = field(default_factory=list)   # (hash, snaks)
    parsed: int = 0                           # records read whole (kept or filtered)
    filtered: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    error: LoadError | None = None            # strict mode: the load stops after this batch
    added: dict[str, int] | None = None       # rows added per kind, once it is written
    # literals kept although they do not fit their datatype (``store.literals``)
    invalid: InvalidLiterals = field(default_factory=InvalidLiterals)

    def size(self) -> int:
        return len(self.terms) + len(self.triples) + len(self.statements) + len(self.entities)

    def drop_rows(self) -> None:
        """Forget the rows (once written), keeping what a load report needs."""
        for rows in (self.entity_ids, self.entities, self.datatypes, self.terms, self.triples,
                     self.statements, self.qualifiers, self.references, self.reference_snaks):
            rows.clear()
        self.subjects.clear()


def open_input(path: Path) -> tuple[io.BufferedIOBase, io.IOBase]:
    """(decompressed stream, raw file); the raw file's position drives progress bars, and
    closing it closes the stream."""
    raw = open(path, "rb")  # noqa: SIM115 - closed by the caller, with the stream
    magic = raw.read(6)
    raw.seek(0)
    if magic[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw), raw
    if magic[:3] == b"BZh":
        if indexed_bzip2 is None:
            return bz2.BZ2File(raw), raw
        raw.close()
        decoder = _Bzip2Decoder(path)
        return io.BufferedReader(decoder, CHUNK_BYTES), decoder
    if magic == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(raw), raw
    return raw, raw


def decompresses_on_threads(path: Path) -> bool:
    """Whether reading ``path`` keeps several cores busy: a .bz2 file, with indexed_bzip2."""
    if indexed_bzip2 is None:
        return False
    with open(path, "rb") as f:
        return f.read(3) == b"BZh"


class _Bzip2Decoder(io.RawIOBase):
    """A .bz2 file decompressed by indexed_bzip2 on as many threads as there are cores
    (blocks of one stream, or several streams, in parallel). Its errors become the bz2
    module's kind, OSError, naming the damage; ``tell()`` is how far into the compressed
    file decompression has come (progress bars), not a position in the stream."""

    def __init__(self, path: Path):
        self._file = indexed_bzip2.open(str(path), parallelization=os.cpu_count() or 1)
        self._size, self._reached = path.stat().st_size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n = self._file.readinto(buffer)
        except (RuntimeError, ValueError) as exc:   # indexed_bzip2's, for bad data
            raise OSError(f"truncated or damaged bz2 data ({exc})") from exc
        # it counts bits, and from 0 again in the last block
        self._reached = self._size if not n else max(self._reached,
                                                     self._file.tell_compressed() // 8)
        return n

    def tell(self) -> int:
        return self._reached

    def close(self) -> None:
        if not self.closed:
            self._file.close()                          # ends its threads
        super().close()


def base_suffix(path: Path) -> str:
    """``dump.json.bz2`` → ``.json``."""
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in (".gz", ".bz2", ".xz"):
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


class _Builder:
    """Turns records into rows of the current batch, applying filters (and, in bulk mode,
    dropping duplicate rows by hash); hands out full batches."""

    def __init__(self, job: Job, raw: io.IOBase | None):
        self.job, self.raw = job, raw
        self.src = job.source_id
        self.filters = job.filters
        self.batch = Batch()
        self._seen: set[int] = set()
        self._batch_ids: set[str] = set()
        self._subject: tuple[str, str, bool] = ("", "", False)
        self._predicates: dict[str, str] = {}
        self._datatypes: set[str] = set()       # literal datatypes seen (and checked)
        self._norms: dict[str, str] = {}        # label-index keys of JSON terms, by text
        self._known_refs: set[str] = set()      # hashes of the references whose snaks are queued
        self.bnode_prefix = f"_:s{job.source_id}"   # blank nodes are scoped to their source
        self.where = 0                          # the line (or triple) being read

    def take(self, position: int) -> Batch:
        """The current batch, closed at ``position``; a new one is started."""
        batch, self.batch, self._batch_ids = self.batch, Batch(), set()
        batch.position = position
        batch.raw_offset = self.raw.tell() if self.raw is not None and not self.raw.closed else 0
        return batch

    def error(self, lineno: int, message: str) -> bool:
        """Record a malformed record; True when the load must stop (strict)."""
        b = self.batch
        b.errors += 1
        where = f"{self.job.path}:{lineno}"
        if len(b.error_samples) < MAX_ERROR_SAMPLES:
            b.error_samples.append(f"{where}: {message}")
        if self.job.strict:
            b.error = LoadError(message, path=str(self.job.path), line=lineno,
                                fix="fix or remove that record, or load without --strict to "
                                    "skip malformed records; what came before it is loaded")
            return True
        return False

    # -- triples ----------------------------------------------------------------------------
    def node(self, iri: str) -> str:
        return self.bnode_prefix + iri[1:] if iri.startswith("_:") else iri_to_id(iri)

    def triple(self, s: str, p: str, iri: str | None, lexical: str | None,
               lang: str | None, datatype: str | None) -> None:
        """Queue one parsed triple (see ``store.ntriples.Triple``) as a term, a property
        datatype, or a statement. This is the loader's hot loop: keep it lean."""
        b, f = self.batch, self.filters
        if self._subject[0] != s:   # dumps are grouped by subject: convert once per run
            self._enter_subject(s)
        _, subject, keep = self._subject
        if not keep:
            b.filtered += 1
            return
        if lang is not None and not lang.islower():
            lang = lang.lower()
        if lexical is not None and "\x00" in lexical:
            raise ValueError("the literal holds a NUL character (U+0000), which kgground "
                             "does not store")
        kind = TERM_PREDICATES.get(p)
        if kind is not None and lexical is not None:
            lang = lang or ""
            if f.languages is not None and lang not in f.languages:
                b.filtered += 1
                return
            if self.job.bulk:
                key = hash((subject, kind, lang, lexical))
                if key in self._seen:
                    return
                self._seen.add(key)
            b.terms.append((subject, kind, lang, lexical, self.src))
        elif p == PROPERTY_TYPE and iri is not None:
            b.datatypes.append((DATATYPE_BY_IRI.get(iri, iri), subject))
        else:
            prop = self._predicates.get(p)
            if prop is None:
                prop = self._new_predicate(p)
            if f.properties is not None and prop not in f.properties:
                b.filtered += 1
                return
            row = self._statement_row(subject, prop, iri, lexical, lang, datatype)
            if self.job.bulk:
                key = hash(row)
                if key in self._seen:
                    return
                self._seen.add(key)
            b.triples.append(row)
        b.subjects.add(subject)

    def _statement_row(self, subject: str, prop: str, iri: str | None, lexical: str | None,
                       lang: str | None, datatype: str | None) -> tuple[str | int, ...]:
        """The ``triples`` row of a statement: a literal (its datatype checked on first
        sight, an invalid XSD value noted), a blank node (scoped to the source), an entity
        or another IRI (which must be absolute)."""
        if lexical is not None:
            if datatype is not None:
                if datatype not in self._datatypes:
                    self._new_datatype(datatype)
                if datatype.startswith(XSD) and literal_problem(lexical, datatype):
                    self.batch.invalid.add(datatype, lexical, self.place())
            return (subject, prop, "literal", lexical, lang or "", datatype or "", self.src)
        assert iri is not None          # not a literal: an IRI or a blank node
        if iri.startswith("_:"):
            return (subject, prop, "bnode", self.node(iri), "", "", self.src)
        value = iri_to_id(iri)
        if value == iri and not is_absolute(iri):
            raise ValueError(f"object: IRI <{iri[:80]}> is not absolute "
                             "(no scheme)")
        return (subject, prop, "entity" if value != iri else "iri", value, "", "", self.src)

    def _enter_subject(self, s: str) -> None:
        """Make ``s`` the subject of the triples that follow: checked, converted to its ID,
        and whether the entity filter keeps it (properties are always kept)."""
        if not (s.startswith("_:") or is_absolute(s)):
            raise ValueError(f"subject: IRI <{s[:80]}> is not absolute (no scheme)")
        sid = self.node(s)
        f = self.filters
        keep = f.entities is None or sid in f.entities or entity_kind(sid) == "property"
        self._subject = (s, sid, keep)

    def _new_predicate(self, p: str) -> str:
        """The property ID of predicate IRI ``p``, met for the first time (checked, then
        remembered)."""
        if not is_absolute(p):
            raise ValueError(f"predicate: IRI <{p[:80]}> is not absolute (no scheme)")
        prop = self._predicates[p] = property_from_iri(p)
        return prop

    def _new_datatype(self, datatype: str) -> None:
        """Check a literal datatype IRI met for the first time, and remember it."""
        if not is_absolute(datatype):
            raise ValueError(f"datatype: IRI <{datatype[:80]}> is not "
                             "absolute")
        self._datatypes.add(datatype)

    def place(self) -> str | None:
        """The line being read, for reports ('line 12'); None for RDF read by rdflib,
        which gives no lines (``InvalidLiterals.locate`` finds them afterwards)."""
        return None if self.job.format == "rdf" else f"line {self.where}"

    # -- JSON entities ----------------------------------------------------------------------
    def repeats(self, entity: wj.Entity) -> bool:
        """Whether the current batch already holds this entity: its replacement must then
        go into the next batch, after the first record is written."""
        return entity.id in self._batch_ids

    def entity(self, entity: wj.Entity) -> str | None:
        """Queue one Wikidata JSON entity (the writer replaces what the mirror holds about
        it). Returns why it was not taken, if it was not."""
        eid = entity.id
        if entity_kind(eid) == "resource":
            return f"entity id {eid!r} is not a Wikidata ID (Q…, P…, L…)"
        f = self.filters
        if f.entities is not None and eid not in f.entities and eid[0] != "P":
            self.batch.filtered += 1
            self.batch.parsed += 1
            return None
        b, src = self.batch, self.src
        parts = (b.terms, b.triples, b.statements, b.qualifiers, b.references,
                 b.reference_snaks)
        marks = [len(rows) for rows in parts]
        lexeme = entity.type == "lexeme"
        entities = [entity, *wj.lexeme_parts(entity)] if lexeme else [entity]
        try:
            rows = []
            for one in entities:
                row = wj.entity_row(one)
                if not _fits_integers(row):
                    raise ValueError("a number in the record (lastrevid?) is out of the "
                                     "range of 64-bit integers")
                rows.append(row)
                wj.add_terms(one, f.languages, src, b.terms, self._norms)
                wj.add_statements(one, f.properties, src, b.statements, b.qualifiers,
                                  b.references, b.reference_snaks, self._known_refs)
            if lexeme:
                b.triples.extend(t for t in wj.lexeme_triples(entity, src)
                                 if f.properties is None or t[1] in f.properties)
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError,
                OverflowError, msgspec.DecodeError) as exc:
            self._known_refs.difference_update(h for h, _ in b.reference_snaks[marks[-1]:])
            for part, mark in zip(parts, marks):
                del part[mark:]
            return f"entity {eid}: malformed record ({type(exc).__name__}: {exc})"
        b.terms_normalized = True
        for row in rows:
            self._batch_ids.add(row[0])
            b.entity_ids.append(row[0])
            b.entities.append(row + (src,))
        b.parsed += 1
        return None


def read_batches(job: Job) -> Generator[Batch, None, None]:
    """Yield the batches of ``job``'s file, in order; the last reaches the end of the file."""
    if job.format == "rdf":
        yield from _rdf_batches(job)
    elif job.format == "ntriples":
        stream, raw = open_input(job.path)
        with raw:
            yield from _ntriples(stream, _Builder(job, raw))
    else:
        for chunk in json_chunks(job):
            yield from parse_json_chunk(job, chunk)


def _ntriples(stream: io.BufferedIOBase, builder: _Builder) -> Iterator[Batch]:
    # typeshed's TextIOWrapper wants a buffer with .name, which BufferedIOBase does not
    # declare (nor have BZ2File and LZMAFile before 3.13); it reads it only when asked.
    # utf-8-sig: a byte-order mark before the first line is skipped
    text = io.TextIOWrapper(stream, encoding="utf-8-sig",  # type: ignore[type-var]
                            errors="strict", newline="\n")
    skip, triple = builder.job.skip, builder.triple
    # a batch's ``parsed``: its lines after ``first``, less the malformed and blank ones
    lineno = first = skip
    blank = 0
    for lineno, line in enumerate(text, 1):
        if lineno <= skip or line.startswith("#") or line.isspace():
            blank += lineno > skip
            continue
        builder.where = lineno
        try:
            triple(*parse_line(line))
        except ValueError as exc:
            if builder.error(lineno, str(exc)):
                builder.batch.parsed = lineno - 1 - first - blank - (builder.batch.errors - 1)
                yield builder.take(lineno - 1)
                return
            continue
        if not lineno & 0xFFF and builder.batch.size() >= BATCH_ROWS:
            builder.batch.parsed = lineno - first - blank - builder.batch.errors
            yield builder.take(lineno)
            first, blank = lineno, 0
    builder.batch.parsed = lineno - first - blank - builder.batch.errors
    yield builder.take(lineno)


@dataclass
class JsonChunk:
    """Whole lines of a JSON dump (``data``, starting with line ``first_line``), or a whole
    single-entity document (``document``), and how far into the raw file they reach.

    In an uncompressed file the lines are bytes ``offset`` to ``offset + size``: a chunk
    sent to another process can leave ``data`` out (``detached``), to be read there."""
    first_line: int
    data: bytes
    raw_offset: int = 0
    document: bool = False
    offset: int = 0
    size: int = 0
    in_file: bool = False       # ``data`` is the file's bytes as they are (not decompressed)

    def detached(self) -> JsonChunk:
        """This chunk without its data, if the file holds it as is."""
        if not self.in_file or self.document:
            return self
        return JsonChunk(self.first_line, b"", self.raw_offset, offset=self.offset,
                         size=len(self.data), in_file=True)

    def lines(self, path: Path) -> bytes:
        if self.data or not self.size:
            return self.data
        with open(path, "rb") as f:
            f.seek(self.offset)
            data = f.read(self.size)
        if len(data) != self.size:
            raise OSError(f"{path} changed while it was being loaded")
        return data


CHUNK_BYTES = 1 << 20
FIRST_CHUNK_BYTES = 128 << 10
_BOM = b"\xef\xbb\xbf"
#: a JSON escape of NUL (not itself an escaped backslash followed by 'u0000')
_ESCAPED_NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _fits_integers(row: tuple) -> bool:
    """Whether every integer of ``row`` fits the database's 64-bit integers."""
    low, high = _INT64
    return all(low <= v <= high for v in row if type(v) is int)


def json_chunks(job: Job) -> Generator[JsonChunk, None, None]:
    """Cut a Wikidata JSON file into chunks of about a MiB of whole entity lines. Cheap:
    blocks of bytes, cut at a line end, and newlines counted, so that parsing, the costly
    part, can be spread over processes (``parse_json_chunk``). The first chunks are
    smaller (128 KiB, doubling), so that the writer has a batch to write sooner."""
    stream, raw = open_input(job.path)
    with raw:
        first = stream.readline()
        bom = len(_BOM) if first.startswith(_BOM) else 0   # a byte-order mark: skipped
        if first[bom:].strip() != b"[":
            yield JsonChunk(1, first[bom:] + stream.read(), raw.tell(), document=True)
            return
        lineno, offset = 2, len(first)  # the line and byte the next block starts with
        size = FIRST_CHUNK_BYTES
        while True:
            data = stream.read(min(size, CHUNK_BYTES))
            size *= 2
            if not data:
                return
            if data[-1:] != b"\n":
                data += stream.readline()
            start, lines, at = lineno, _count_lines(data), offset
            lineno, offset = lineno + lines, offset + len(data)
            if lineno - 1 <= job.skip:  # every line of the block is already committed
                continue
            if start <= job.skip:       # resuming mid-block: drop the committed lines
                cut = -1
                for _ in range(job.skip - start + 1):
                    cut = data.index(b"\n", cut + 1)
                data, start, at = data[cut + 1:], job.skip + 1, at + cut + 1
            yield JsonChunk(start, data, raw.tell(), offset=at, in_file=stream is raw)


def _count_lines(data: bytes) -> int:
    """The lines in ``data``, the last one with or without its line end. ``find`` runs on
    memchr; ``bytes.count`` looks at each byte (a twentieth of a JSON load, with ``split``)."""
    n, at = 0, data.find(b"\n")
    while at >= 0:
        n += 1
        at = data.find(b"\n", at + 1)
    return n + (data[-1:] not in (b"\n", b""))


def _records(data: bytes, first_line: int) -> Iterator[tuple[int, memoryview]]:
    """(line number, line) for each line of a dump's ``data``, the line without its trailing
    whitespace and comma: views into ``data``, not copies."""
    view, start, size, lineno = memoryview(data), 0, len(data), first_line
    while start < size:
        end = data.find(b"\n", start)
        end = size if end < 0 else end
        stop = end
        while stop > start and data[stop - 1] in b" \t\r\x0b\x0c":
            stop -= 1
        if stop > start and data[stop - 1] == 0x2C:       # ','
            stop -= 1
        yield lineno, view[start:stop]
        start, lineno = end + 1, lineno + 1


def parse_json_chunk(job: Job, chunk: JsonChunk) -> list[Batch]:
    """Parse one chunk into batches: one, or more when an entity repeats inside it (its
    later record must be written after the earlier one, which it replaces)."""
    builder = _Builder(job, None)
    out: list[Batch] = []

    def take(position: int) -> Batch:
        batch = builder.take(position)
        batch.raw_offset = chunk.raw_offset
        out.append(batch)
        return batch

    data = b""
    records: Iterable[tuple[int, bytes | memoryview]]
    if chunk.document:
        try:
            records = [(1, record) for record in wj.api_entities(chunk.data)]
        except (msgspec.DecodeError, ValueError, RecursionError) as exc:
            builder.error(1, f"not valid JSON: {exc}")
            records = []
        last = 1
    else:
        data = chunk.lines(job.path)
        records = _records(data, chunk.first_line)
        last = chunk.first_line - 1 + _count_lines(data)
    decode = wj.decode_entity
    # lines are memoryviews: look for an escaped NUL in the chunk once, in each line if so
    maybe_nul = b"\\u0000" in (chunk.data or data)
    problem: str | None
    for lineno, line in records:
        if not line or line == b"]":
            continue
        if maybe_nul and _ESCAPED_NUL.search(line):
            problem = "a text in the record holds a NUL character (\\u0000), which " \
                      "kgground does not store"
            if builder.error(lineno, problem):
                take(lineno - 1)
                return out
            continue
        try:
            entity = decode(line)
        except msgspec.DecodeError as exc:
            problem = wj.entity_problem(line, exc)
        except RecursionError:
            problem = "nested too deeply to be an entity (a JSON structure inside itself " \
                      "thousands of times)"
        else:
            if builder.repeats(entity):
                take(lineno - 1)
            problem = builder.entity(entity)
        if problem and builder.error(lineno, problem):
            take(lineno - 1)
            return out
    take(last)
    return out


@contextlib.contextmanager
def exact_literals() -> Iterator[None]:
    """Parse RDF keeping literals' lexical forms as written ("…Z", not rdflib's "…+00:00"),
    so that the same data reads the same through every path."""
    import rdflib

    saved, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False
    try:
        yield
    finally:
        rdflib.NORMALIZE_LITERALS = saved


def _rdf_batches(job: Job) -> Iterator[Batch]:
    """Any RDF rdflib reads (``store.rdf_parse``: no network, no XML entity tricks).
    rdflib parses the whole file in memory: right for custom KBs; big dumps should come
    as N-Triples. Triples have no stable order, so no resuming."""
    import rdflib

    from store.rdf_parse import parse_rdf

    fmt = RDF_FORMATS.get(base_suffix(job.path), "turtle")
    builder = _Builder(job, None)
    try:
        graph = parse_rdf(job.path, fmt, allow_network=job.allow_network)
    except LoadError as exc:
        message = str(exc)
        prefix = f"{job.path}: "
        builder.error(exc.line or 0, message[len(prefix):] if message.startswith(prefix)
                      else message)
        yield builder.take(0)
        return
    n = 0
    for n, (s, p, o) in enumerate(graph.triples((None, None, None)), 1):
        builder.where = n
        problem = _rdf_triple_problem(s, p, o)
        if problem is not None:
            if builder.error(n, f"triple {n} ({s} {p} …): {problem}"):
                yield builder.take(n - 1)
                return
            continue
        subject = f"_:{s}" if isinstance(s, rdflib.BNode) else str(s)
        try:
            if isinstance(o, rdflib.Literal):
                builder.triple(subject, str(p), None, str(o), o.language,
                               str(o.datatype) if o.datatype else None)
            else:
                builder.triple(subject, str(p),
                               f"_:{o}" if isinstance(o, rdflib.BNode) else str(o),
                               None, None, None)
        except ValueError as exc:
            if builder.error(n, f"triple {n}: {exc}"):
                yield builder.take(n - 1)
                return
            continue
        builder.batch.parsed += 1
        if builder.batch.size() >= BATCH_ROWS:
            yield builder.take(n)
    yield builder.take(n)


def _rdf_triple_problem(s: Any, p: Any, o: Any) -> str | None:
    """Why a triple rdflib parsed cannot be stored (an invalid IRI, a lone surrogate, a
    bad language tag), or None. rdflib lets such terms through with a warning at most."""
    import rdflib

    for term in (s, p, o):
        if isinstance(term, rdflib.BNode):
            problem = text_problem(str(term))
        elif isinstance(term, rdflib.Literal):
            problem = (text_problem(str(term)) or lang_problem(term.language or "")
                       or (iri_problem(str(term.datatype)) if term.datatype else None))
        else:
            problem = iri_problem(str(term))
        if problem is not None:
            return problem
    return None
