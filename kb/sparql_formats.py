"""SPARQL result formats and content negotiation, for the SPARQL server (``kb.sparql_server``).

A ``SparqlResult`` has one of three shapes — a table (SELECT), a boolean (ASK) or a graph
(CONSTRUCT/DESCRIBE) — and each shape has its formats:

=========  ===================================================================================
table      SPARQL JSON (the default), SPARQL XML, CSV, TSV (W3C SPARQL 1.1 Query Results)
boolean    SPARQL JSON (the default), SPARQL XML; CSV/TSV as ``_askResult`` and ``true``/``false``
graph      Turtle (the default), N-Triples, RDF/XML, JSON-LD
=========  ===================================================================================

``negotiate(shape, accept, format_values)`` picks one: a recognised ``format=`` value (as
Virtuoso and Fuseki take it, e.g. ``json``, ``xml``, ``csv``, ``tsv``, ``turtle``, ``nt`` or a
MIME type) wins; else the Accept header with its q-values, ties going to the order above; else
the shape's default. It never fails: a client that accepts nothing we make gets the default,
which HTTP allows and which is what SPARQL clients cope with best.

``serialize(result, fmt, max_rows)`` returns ``(body bytes, truncated?)``; at most ``max_rows``
rows (or triples, for a graph) are written.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence
from xml.sax.saxutils import escape, quoteattr

import orjson
from rdflib import BNode, Graph, Literal

from kb.types import SparqlResult


@dataclass(frozen=True)
class Format:
    """One way to write a result: its name, the Content-Type sent, and the MIME types and
    ``format=`` tokens that ask for it."""
    name: str
    content_type: str
    mime_types: tuple[str, ...]
    tokens: tuple[str, ...]


_JSON = Format("json", "application/sparql-results+json; charset=utf-8",
               ("application/sparql-results+json", "application/json"),
               ("json", "srj"))
_XML = Format("xml", "application/sparql-results+xml; charset=utf-8",
              ("application/sparql-results+xml", "application/xml", "text/xml"),
              ("xml", "srx"))
_CSV = Format("csv", "text/csv; charset=utf-8", ("text/csv",), ("csv",))
_TSV = Format("tsv", "text/tab-separated-values; charset=utf-8",
              ("text/tab-separated-values",), ("tsv",))
_TURTLE = Format("turtle", "text/turtle; charset=utf-8",
                 ("text/turtle", "application/turtle", "application/x-turtle", "text/n3",
                  "text/rdf+n3", "application/n3"),
                 ("turtle", "ttl", "n3"))
_NTRIPLES = Format("nt", "application/n-triples; charset=utf-8",
                   ("application/n-triples", "text/plain"),
                   ("nt", "ntriples", "n-triples"))
_RDFXML = Format("xml", "application/rdf+xml; charset=utf-8",
                 ("application/rdf+xml", "application/xml", "text/xml"),
                 ("xml", "rdf", "rdf+xml", "rdfxml"))
_JSONLD = Format("json-ld", "application/ld+json; charset=utf-8",
                 ("application/ld+json", "application/json"),
                 ("json-ld", "jsonld", "json"))

#: the formats of each result shape, the default first
FORMATS: dict[str, tuple[Format, ...]] = {
    "table": (_JSON, _XML, _CSV, _TSV),
    "boolean": (_JSON, _XML, _CSV, _TSV),
    "graph": (_TURTLE, _NTRIPLES, _RDFXML, _JSONLD),
}

_RESULTS_NS = "http://www.w3.org/2005/sparql-results#"
# characters XML 1.0 cannot carry, even escaped
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r",
                              "\t": "\\t"})


def shape_of(result: SparqlResult) -> str:
    """'boolean', 'graph' or 'table'."""
    if result.boolean is not None:
        return "boolean"
    if result.graph is not None:
        return "graph"
    return "table"


def parse_accept(accept: str | None) -> list[tuple[str, float]]:
    """An Accept header → ``[(media range, q)]`` without parameters other than q;
    malformed q-values count as 1, as most servers read them."""
    ranges = []
    for part in (accept or "").split(","):
        media, *params = part.split(";")
        media = media.strip().lower()
        if not media:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = max(0.0, min(1.0, float(value)))
                except ValueError:
                    q = 1.0
        ranges.append((media, q))
    return ranges


def _quality(fmt: Format, ranges: Sequence[tuple[str, float]]) -> float:
    """How much the client wants ``fmt``: for each of its MIME types the q of the most
    specific range that matches it (RFC 9110), and the best of those."""
    best = 0.0
    for mime in fmt.mime_types:
        mkind = mime.partition("/")[0]
        q, specificity = 0.0, -1
        for media, mq in ranges:
            kind, _, sub = media.partition("/")
            if media == mime:
                spec = 2
            elif sub == "*" and kind in ("*", mkind):
                spec = 0 if kind == "*" else 1
            else:
                continue
            if spec > specificity or (spec == specificity and mq > q):
                q, specificity = mq, spec
        best = max(best, q)
    return best


def negotiate(shape: str, accept: str | None = None,
              format_values: Sequence[str] = ()) -> Format:
    """The format to answer with (see the module docstring for the rules)."""
    choices = FORMATS[shape]
    for value in format_values:
        # a '+' typed into a URL arrives as a space: application/sparql-results json
        value = value.strip().lower().replace(" ", "+")
        if not value:
            continue
        for fmt in choices:
            if value in fmt.tokens or value.split(";")[0].strip() in fmt.mime_types:
                return fmt
    ranges = parse_accept(accept)
    best, best_q = choices[0], 0.0
    for fmt in choices:
        q = _quality(fmt, ranges)
        if q > best_q:
            best, best_q = fmt, q
    return best


# -- writers ------------------------------------------------------------------------------------

def serialize(result: SparqlResult, fmt: Format, max_rows: int | None = None
              ) -> tuple[bytes, bool]:
    """``result`` written as ``fmt``; at most ``max_rows`` rows or triples. Returns the
    body and whether anything was left out."""
    shape = shape_of(result)
    if shape == "boolean":
        return _WRITE_BOOLEAN[fmt.name](bool(result.boolean)), False
    if shape == "graph":
        return _write_graph(result.graph, fmt, max_rows)
    rows = result.rows
    truncated = max_rows is not None and len(rows) > max_rows
    if truncated:
        rows = rows[:max_rows]
    return _WRITE_TABLE[fmt.name](result.vars, rows), truncated


def table_json(vars: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> bytes:
    return orjson.dumps(SparqlResult(vars=tuple(vars), rows=tuple(rows)).to_json())


def _xml_text(text: str) -> str:
    return escape(_XML_ILLEGAL.sub("\ufffd", text))


def _xml_term(t: Any) -> str:
    if isinstance(t, Literal):
        if t.language:
            attr = f" xml:lang={quoteattr(t.language)}"
        elif t.datatype:
            attr = f" datatype={quoteattr(str(t.datatype))}"
        else:
            attr = ""
        return f"<literal{attr}>{_xml_text(str(t))}</literal>"
    if isinstance(t, BNode):
        return f"<bnode>{_xml_text(str(t))}</bnode>"
    return f"<uri>{_xml_text(str(t))}</uri>"


def table_xml(vars: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> bytes:
    out = ['<?xml version="1.0" encoding="utf-8"?>\n',
           f'<sparql xmlns="{_RESULTS_NS}">\n<head>']
    out.extend(f"<variable name={quoteattr(v)}/>" for v in vars)
    out.append("</head>\n<results>\n")
    for row in rows:
        out.append("<result>")
        out.extend(f"<binding name={quoteattr(k)}>{_xml_term(v)}</binding>"
                   for k, v in row.items())
        out.append("</result>\n")
    out.append("</results>\n</sparql>\n")
    return "".join(out).encode("utf-8")


def _csv_value(t: Any) -> str:
    if t is None:
        return ""
    if isinstance(t, BNode):
        return f"_:{t}"
    return str(t)


def table_csv(vars: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(vars)
    for row in rows:
        writer.writerow([_csv_value(row.get(v)) for v in vars])
    return buf.getvalue().encode("utf-8")


def tsv_term(t: Any) -> str:
    """A term in the TSV results format (Turtle syntax, no tab or newline inside)."""
    if t is None:
        return ""
    if isinstance(t, Literal):
        text = f'"{str(t).translate(_TSV_ESCAPES)}"'
        if t.language:
            return f"{text}@{t.language}"
        if t.datatype:
            return f"{text}^^<{t.datatype}>"
        return text
    if isinstance(t, BNode):
        return f"_:{t}"
    return f"<{t}>"


def table_tsv(vars: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> bytes:
    lines = ["\t".join(f"?{v}" for v in vars)]
    lines.extend("\t".join(tsv_term(row.get(v)) for v in vars) for row in rows)
    return ("\n".join(lines) + "\n").encode("utf-8")


_WRITE_TABLE: dict[str, Callable[[Sequence[str], Sequence[Mapping[str, Any]]], bytes]] = {
    "json": table_json, "xml": table_xml, "csv": table_csv, "tsv": table_tsv}


def _boolean_xml(value: bool) -> bytes:
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="{_RESULTS_NS}">\n'
            f"<head/>\n<boolean>{'true' if value else 'false'}</boolean>\n</sparql>\n"
            ).encode("utf-8")


_WRITE_BOOLEAN: dict[str, Callable[[bool], bytes]] = {
    "json": lambda v: orjson.dumps({"head": {}, "boolean": v}),
    "xml": _boolean_xml,
    "csv": lambda v: f"_askResult\r\n{'true' if v else 'false'}\r\n".encode(),
    "tsv": lambda v: f"?_askResult\n{'true' if v else 'false'}\n".encode(),
}

_RDFLIB_FORMATS = {"turtle": "turtle", "nt": "nt", "xml": "xml", "json-ld": "json-ld"}


def _write_graph(graph: Graph, fmt: Format, max_rows: int | None) -> tuple[bytes, bool]:
    truncated = max_rows is not None and len(graph) > max_rows
    if truncated:
        assert max_rows is not None             # truncated says so
        kept = Graph()
        for prefix, ns in graph.namespaces():
            kept.bind(prefix, ns, override=True, replace=True)
        for i, triple in enumerate(graph):
            if i >= max_rows:
                break
            kept.add(triple)
        graph = kept
    body = graph.serialize(format=_RDFLIB_FORMATS[fmt.name], encoding="utf-8")
    return body, truncated


__all__ = ["FORMATS", "Format", "negotiate", "parse_accept", "serialize", "shape_of",
           "table_csv", "table_json", "table_tsv", "table_xml", "tsv_term"]
