"""Parsing a user's RDF file with rdflib, safely: the one place loaders and ``RdfGraphKB``
parse RDF that is not N-Triples.

``parse_rdf(path, format)`` returns the rdflib graph (a Dataset for N-Quads, TriG and
TriX), or raises ``LoadError`` saying what is wrong and how to fix it:

- **No network** unless ``allow_network``: a JSON-LD ``@context`` URL or an XML DTD
  would make rdflib fetch it from the user's machine (``store.network_guard``).
- **XML entities**: an external entity (``<!ENTITY x SYSTEM "file:///etc/passwd">``, XXE)
  is refused; rdflib's SAX reader read it as an empty string, silently. Internal entities
  stay allowed (OWL files declare namespaces as entities), but their expansion is bounded:
  text may grow to ``MAX_AMPLIFICATION`` times the bytes read (after its first
  ``AMPLIFICATION_FREE`` bytes), so that a "billion laughs" file is refused at once. The
  characters of one text node reach rdflib in one piece: rdflib appended them one SAX
  call at a time, which was quadratic (an 840-byte bomb cost 211 s of CPU before).
  These guards are put into rdflib's RDF/XML and TriX readers for the whole process
  when this module is imported: they only refuse what no RDF file needs.
- **A byte-order mark** at the start of the file is skipped.
- Literals that do not fit their datatype: rdflib's warnings about them are counted, not
  printed (``store.rdf_warnings``); ``store.literals.invalid_literals`` reports them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.parsers.expat import XMLParserType
from xml.sax import handler as sax_handler
from xml.sax.expatreader import ExpatParser

from store import rdf_warnings  # noqa: F401 - rdflib's literal warnings counted, not printed
from store.errors import LoadError
from store.network_guard import no_network

#: how many times the bytes read XML text may grow to through entities
MAX_AMPLIFICATION = 50
#: characters of entity-expanded text always allowed
AMPLIFICATION_FREE = 4 << 20
_BOM = b"\xef\xbb\xbf"
_XML_FORMATS = ("xml", "trix")


class _Refused(Exception):
    """An XML construct refused (``what`` says which), raised from expat's callbacks."""


class _BufferedText:
    """A SAX content handler in front of rdflib's: the characters of a text node are
    joined and passed on in one call, and their total is held against the bytes read."""

    def __init__(self, inner: Any, reader: SafeExpatParser):
        self.inner, self.reader = inner, reader
        self._text: list[str] = []
        self._chars = 0

    def _flush(self) -> None:
        if self._text:
            text = "".join(self._text)
            self._text.clear()
            self.inner.characters(text)

    def characters(self, content: str) -> None:
        self._chars += len(content)
        if (self._chars > AMPLIFICATION_FREE
                and self._chars > MAX_AMPLIFICATION * max(self.reader.bytes_read, 1)):
            raise _Refused(f"XML entities expand {self.reader.bytes_read:,} bytes of the file "
                           f"into more than {self._chars:,} characters (an entity expansion "
                           "bomb)")
        self._text.append(content)

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if not callable(method):
            return method

        def flushed(*args: Any, **kwargs: Any) -> Any:
            self._flush()
            return method(*args, **kwargs)
        return flushed


class SafeExpatParser(ExpatParser):
    """The standard library's SAX reader, with external entities refused and the text
    that internal entities make bounded (see the module docstring)."""

    _parser: XMLParserType      # ExpatParser's own, made by reset() (typeshed leaves it out)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.bytes_read = 0
        self._inner_handler: Any = None

    def setContentHandler(self, handler: Any) -> None:  # noqa: N802 - SAX's name
        self._inner_handler = handler
        super().setContentHandler(_BufferedText(handler, self))

    def getContentHandler(self) -> Any:  # noqa: N802 - SAX's name
        return self._inner_handler

    def setFeature(self, name: str, state: Any) -> None:  # noqa: N802 - SAX's name
        if name in (sax_handler.feature_external_ges, sax_handler.feature_external_pes) \
                and state:
            return                    # external entities are never read
        super().setFeature(name, state)

    def feed(self, data: Any, isFinal: bool = False) -> None:  # noqa: N803 - SAX's name
        self.bytes_read += len(data)
        super().feed(data, isFinal)

    def reset(self) -> None:
        super().reset()
        parser = self._parser
        parser.EntityDeclHandler = self._entity_declared
        parser.UnparsedEntityDeclHandler = self._unparsed_entity

    def _entity_declared(self, name: str, is_parameter: bool, value: str | None,
                         base: str | None, system_id: str | None, public_id: str | None,
                         notation: str | None) -> None:
        if value is None:             # SYSTEM or PUBLIC: its text is somewhere else
            raise _Refused(f"the file declares the external XML entity {name!r} "
                           f"({system_id or public_id}); external entities are never read "
                           "(they can reveal local files or reach the network)")

    def _unparsed_entity(self, name: str, *args: Any) -> None:
        raise _Refused(f"the file declares the unparsed XML entity {name!r}, which RDF "
                       "does not use")


def _safe_make_parser(*args: Any, **kwargs: Any) -> SafeExpatParser:
    return SafeExpatParser()


def _guard_rdflib_xml() -> None:
    """Make rdflib's RDF/XML and TriX readers use ``SafeExpatParser`` (idempotent)."""
    from rdflib.plugins.parsers import rdfxml, trix

    rdfxml.make_parser = _safe_make_parser
    trix.make_parser = _safe_make_parser


_guard_rdflib_xml()


def skip_bom(stream: Any) -> Any:
    """``stream`` (a readable binary stream with ``peek``) past a UTF-8 byte-order mark."""
    peek = getattr(stream, "peek", None)
    if peek is not None and peek(3)[:3] == _BOM:
        stream.read(3)
    return stream


def parse_rdf(path: Path, fmt: str, *, allow_network: bool = False) -> Any:
    """The rdflib graph of ``path`` in rdflib's ``fmt`` (see the module docstring)."""
    import rdflib

    from store.batches import exact_literals, open_input

    graph = rdflib.Dataset() if fmt in ("nquads", "trig", "trix") else rdflib.Graph()
    stream, raw = open_input(path)
    with no_network(allow_network) as network:
        try:
            with raw, exact_literals():
                graph.parse(source=skip_bom(stream), format=fmt)
        except _Refused as exc:
            raise LoadError(str(exc), path=str(path),
                            fix="remove the DOCTYPE's entity declarations (or write the "
                                "text out in full)") from None
        except RecursionError:
            raise LoadError(f"not valid {fmt}: nested too deeply to read", path=str(path),
                            fix="flatten the file's nesting") from None
        except MemoryError:
            raise LoadError(f"the {fmt} file needs more memory than there is to parse",
                            path=str(path), fix="load it as N-Triples, which streams") \
                from None
        except Exception as exc:  # noqa: BLE001 - rdflib's parsers raise many types
            if network.refused:
                raise _network_error(path, network.refused) from None
            if "amplification" in str(exc):
                raise LoadError("XML entities expand far beyond the file's size (an entity "
                                "expansion bomb)", path=str(path),
                                fix="remove the DOCTYPE's entity declarations") from None
            raise LoadError(f"not valid {fmt}: {str(exc)[:500]}", path=str(path),
                            fix="fix the file, or name its format with its extension") \
                from None
    if network.refused:
        raise _network_error(path, network.refused)
    return graph


def _network_error(path: Path, refused: list[str]) -> LoadError:
    return LoadError(f"reading the file needs {refused[0]} from the network (a JSON-LD "
                     "@context or an XML DTD given as a URL), and loading fetches nothing",
                     path=str(path),
                     fix="put the context into the file (or a local copy next to it), or "
                         "allow downloads: kgground mirror load --allow-network, "
                         "kb.open(path, allow_network=True)")
