"""Parsing SPARQL fast, with positions: tree-sitter-sparql's concrete syntax tree.

``parse(text)`` returns a ``ParsedQuery`` or raises ``QuerySyntaxError`` whose ``line`` and
``column`` (1-based, columns in characters) say where the query stops making sense and whose
``excerpt`` is that line with a caret under the spot::

    >>> parse("SELECT ?x WHERE { ?x wdt:P31 }")
    QuerySyntaxError: the SPARQL query does not parse at line 1, column 30: missing an object
      SELECT ?x WHERE { ?x wdt:P31 }
                                   ^

It parses a typical query in tens of microseconds, accepts what Wikidata's endpoint and
Oxigraph accept (``wdt:P31/wdt:P279 *``, ``"1"^^ xsd:integer``), and is safe to call from
any number of threads (each call uses its own tree-sitter parser). Besides syntax it checks
one thing a SPARQL parser must: every prefix used is declared (the WDQS prefixes in
``WIKIDATA_PREFIXES`` are predeclared unless ``prefixes`` says otherwise).

What a ``ParsedQuery`` offers (the SPARQL validator and ``store.sparql.algebra`` build on it):

- ``form``: 'SELECT', 'ASK', 'CONSTRUCT', 'DESCRIBE' or 'UPDATE';
- ``root``: the tree's root node (``unit``), a ``tree_sitter.Node``: ``.type`` (node types
  are named after the grammar: ``select_query``, ``triples_same_subject``, ``var``,
  ``prefixed_name``, ``filter``, ``build_in_function``, ...; keywords are anonymous nodes
  whose type is the keyword in upper case, e.g. ``SELECT``, whatever case was written),
  ``.children``, ``.named_children``, ``.child_by_field_name`` (fields ``subject``,
  ``bound_variable``, ``identifier``, ``arguments``, ``text``, ``pattern``, ``flag``,
  ``value``, ``datatype``), ``.start_byte``/``.end_byte``;
- ``walk(*types)``: every node of those types, in document order;
- ``text_of(node)``: the node's source text; ``position(node)``: its (line, column), 1-based;
  ``excerpt(line, column)``: the caret excerpt used in errors;
- ``prefixes``: prefix → namespace IRI (predeclared and declared); ``iri(node)``: the IRI of
  an ``iri_reference``, ``prefixed_name`` or ``a`` node. The plain ``PREFIX p: <iri>``
  declarations that open a query are read by a regex, not parsed (tree-sitter spent longer
  on a pasted 25-prefix WDQS prologue than on the query): they are in ``prefixes`` but not
  in the tree, whose lines and columns stay those of the text;
- ``services()``: (node, endpoint IRI) of each SERVICE clause;
- ``variables``: the variable names (without ``?``) in order of first appearance;
- ``canonical()``: the query as text that rdflib's stricter parser accepts too.
"""

from __future__ import annotations

import functools
import re
import threading
from functools import cached_property
from typing import TYPE_CHECKING, Any, Iterator

from store.errors import QuerySyntaxError

if TYPE_CHECKING:       # imported where first needed: a parse pays for it, an import not
    import tree_sitter
    from tree_sitter import Node, Tree

#: prefixes predeclared on Wikidata's endpoint, so pasted WDQS queries parse as they do there
WIKIDATA_PREFIXES = {
    "wd": "http://www.wikidata.org/entity/",
    "wds": "http://www.wikidata.org/entity/statement/",
    "wdv": "http://www.wikidata.org/value/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "wdtn": "http://www.wikidata.org/prop/direct-normalized/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "psv": "http://www.wikidata.org/prop/statement/value/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "pqv": "http://www.wikidata.org/prop/qualifier/value/",
    "pr": "http://www.wikidata.org/prop/reference/",
    "prv": "http://www.wikidata.org/prop/reference/value/",
    "wikibase": "http://wikiba.se/ontology#",
    "bd": "http://www.bigdata.com/rdf#",
    "hint": "http://www.bigdata.com/queryHints#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "schema": "http://schema.org/",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "prov": "http://www.w3.org/ns/prov#",
    "geo": "http://www.opengis.net/ont/geosparql#",
    "ontolex": "http://www.w3.org/ns/lemon/ontolex#",
    "dct": "http://purl.org/dc/terms/",
}

HINT = WIKIDATA_PREFIXES["hint"]
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_FORMS = {"select_query": "SELECT", "ask_query": "ASK", "construct_query": "CONSTRUCT",
          "describe_query": "DESCRIBE"}
#: nodes written as one token in canonical text (their inner structure is not re-spaced)
_ATOMS = frozenset({"string", "iri_reference", "prefixed_name", "var", "integer", "decimal",
                    "double", "lang_tag", "blank_node_label", "nil", "path_mod", "anon",
                    "namespace"})
_GLUED = frozenset({"path_mod", "lang_tag"})       # written right after the token before
_PN_ESCAPE = re.compile(r"\\([_~.\-!$&'()*+,;=/?#@%])")

#: node types ``walk`` finds through one tree-sitter query (its C code walks the tree):
#: the ones the checks, the translation and the notes look for in every query
_CAPTURED = ("var", "prefix_declaration", "base_declaration", "prefixed_name",
             "iri_reference", "service_graph_pattern")

_CAPTURED_SET = frozenset(_CAPTURED)

_local = threading.local()


@functools.lru_cache(maxsize=1)
def _language() -> tuple[tree_sitter.Language, tree_sitter.Query]:
    import warnings

    import tree_sitter
    import tree_sitter_sparql
    with warnings.catch_warnings():      # the binding hands its language over as an int
        warnings.simplefilter("ignore", DeprecationWarning)
        language = tree_sitter.Language(tree_sitter_sparql.language())
    query = tree_sitter.Query(language, " ".join(f"({t}) @{t}" for t in _CAPTURED))
    return language, query


def _parser() -> tuple[tree_sitter.Parser, tree_sitter.QueryCursor]:
    """This thread's tree-sitter parser and node-finding cursor (neither is to be shared
    between threads)."""
    found = getattr(_local, "parser", None)
    if found is None:
        import tree_sitter

        language, query = _language()
        found = _local.parser = (tree_sitter.Parser(language), tree_sitter.QueryCursor(query))
    return found


def parse(text: str, prefixes: dict[str, str] | None = None) -> ParsedQuery:
    """``text`` parsed, or QuerySyntaxError with line, column and excerpt (module docstring).
    ``prefixes`` predeclared (default ``WIKIDATA_PREFIXES``; ``{}`` for none)."""
    if not isinstance(text, str) or not text.strip():
        raise QuerySyntaxError("empty SPARQL query", expected="a SELECT, ASK, CONSTRUCT or "
                               "DESCRIBE query", fix="pass the query text")
    try:
        source = text.encode("utf-8")
    except UnicodeEncodeError as exc:        # lone surrogates from a mis-decoded argument
        raise QuerySyntaxError("the SPARQL query is not valid Unicode text",
                               got=text[max(0, exc.start - 10):exc.end + 10],
                               fix="pass the query as UTF-8 text") from None
    parser, _ = _parser()
    declared, end = _plain_prologue(source)
    shown = source
    if declared:
        # tree-sitter builds a dozen nodes per declaration (and lexes blanks slowly): a
        # pasted 25-prefix WDQS prologue cost five times the query itself. The regex reads
        # those declarations; the tree gets the rest after as many newlines and spaces as
        # keep every line and column where it was.
        head = source[:end]
        source = _blank(head) + source[end:]
        end = len(source) - (len(shown) - end)
    parsed = ParsedQuery(text, source, parser.parse(source),
                         WIKIDATA_PREFIXES if prefixes is None else prefixes, shown=shown)
    parsed.prefixes.update(declared)
    parsed.prologue_end = end
    parsed.check()
    return parsed


_DECLARATION_BYTES = (rb"PREFIX[ \t\r\n]+([A-Za-z](?:[\w.-]*[\w-])?|)[ \t\r\n]*:[ \t\r\n]*"
                      rb"<([^<>\"{}|^`\\\x00-\x20]*)>")
#: the run of plain ``PREFIX p: <iri>`` declarations and comments that opens a query
_PLAIN_PROLOGUE = re.compile(rb"(?:\s*(?:#[^\n]*|" + _DECLARATION_BYTES + rb"))*",
                             re.IGNORECASE | re.ASCII)
_ONE_DECLARATION = re.compile(_DECLARATION_BYTES, re.IGNORECASE | re.ASCII)


def _plain_prologue(source: bytes) -> tuple[dict[str, str], int]:
    """The plain PREFIX declarations that open ``source`` (up to a BASE or anything else
    the regex does not take: the tree reads those), and the byte offset where they end."""
    match = _PLAIN_PROLOGUE.match(source)
    assert match is not None            # the pattern matches the empty string too
    end = match.end()
    if end == 0:
        return {}, 0
    return dict(_declarations(source[:end])), end


@functools.lru_cache(maxsize=256)
def _declarations(prologue: bytes) -> tuple[tuple[str, str], ...]:
    """(prefix, namespace) of each declaration in ``prologue`` (pasted prologues repeat)."""
    return tuple((m[1].decode("ascii"), m[2].decode("utf-8"))
                 for m in _ONE_DECLARATION.finditer(prologue))


def _blank(head: bytes) -> bytes:
    """What stands in for ``head`` in the text tree-sitter parses: its newlines, then a
    space per character of its last line."""
    last = head.rfind(b"\n")
    return b"\n" * head.count(b"\n") + b" " * len(head[last + 1:].decode("utf-8"))


class ParsedQuery:
    """A query's syntax tree and what it declares (see the module docstring)."""

    def __init__(self, text: str, source: bytes, tree: Tree, predeclared: dict[str, str],
                 shown: bytes | None = None) -> None:
        """``source``: the bytes ``tree`` was parsed from; ``shown``: the query's own bytes,
        quoted in error excerpts (the same lines and columns; the default: ``source``)."""
        self.text, self.source, self.tree = text, source, tree
        self.root = tree.root_node
        self.prefixes: dict[str, str] = dict(predeclared)
        self.base: str | None = None
        self._lines = source.split(b"\n")
        self._shown = self._lines if shown is None else shown.split(b"\n")
        self._iris: dict[tuple[int, int], str] = {}
        self._may_hint = True
        #: where the plain PREFIX declarations ``parse`` read before parsing end (bytes)
        self.prologue_end = 0

    # -- positions -------------------------------------------------------------------------
    def text_of(self, node: Node) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8")

    def position(self, node: Node) -> tuple[int, int]:
        """(line, column) where ``node`` starts, both 1-based, the column in characters."""
        row, col = node.start_point
        return row + 1, len(self._lines[row][:col].decode("utf-8", "replace")) + 1

    def excerpt(self, line: int, column: int) -> str:
        """The source line ``line`` and a caret under ``column`` (both 1-based)."""
        text = self._shown[line - 1].decode("utf-8", "replace").rstrip("\r")
        return f"  {text}\n  {' ' * (column - 1)}^"

    def error_at(self, node: Node, what: str, **kw: Any) -> QuerySyntaxError:
        line, column = self.position(node)
        return QuerySyntaxError(what, line=line, column=column,
                                excerpt=self.excerpt(line, column), **kw)

    # -- walking ---------------------------------------------------------------------------
    @cached_property
    def _captured(self) -> dict[str, list[Node]]:
        """The nodes of the ``_CAPTURED`` types by type, found by tree-sitter's query
        engine (a walk in Python over every node cost more than the parse)."""
        _, cursor = _parser()
        return cursor.captures(self.root)

    @cached_property
    def _index(self) -> dict[str, list[Node]]:
        """Every node of the tree by type, in document order (one walk, done once)."""
        index: dict[str, list[Node]] = {}
        stack = [self.root]
        while stack:
            n = stack.pop()
            index.setdefault(n.type, []).append(n)
            if n.child_count:
                stack.extend(reversed(n.children))
        return index

    def walk(self, *types: str, node: Node | None = None) -> Iterator[Node]:
        """Nodes of ``types`` (every node when none are given) under ``node`` (default the
        root), in document order."""
        if node is None and types:
            index = self._captured if set(types) <= _CAPTURED_SET else self._index
            found = [n for t in set(types) for n in index.get(t, ())]
            found.sort(key=lambda n: (n.start_byte, -n.end_byte))
            return iter(found)
        return self._walk(types, node)

    def _walk(self, types: tuple[str, ...], node: Node | None) -> Iterator[Node]:
        stack = [node if node is not None else self.root]
        wanted = frozenset(types)
        while stack:
            n = stack.pop()
            if not wanted or n.type in wanted:
                yield n
            stack.extend(reversed(n.children))

    @cached_property
    def query(self) -> Node | None:
        """The query (or update) node under the root: ``select_query``, ``ask_query``, ..."""
        for child in self.root.named_children:
            if child.type not in ("prologue", "comment", "values_clause"):
                return child
        return None

    @property
    def form(self) -> str:
        node = self.query
        return _FORMS.get(node.type, "UPDATE") if node is not None else "UPDATE"

    def services(self) -> list[tuple[Node, str]]:
        """(node, endpoint IRI) of every ``SERVICE <iri>`` (a variable endpoint: its text)."""
        out = []
        for node in self.walk("service_graph_pattern"):
            target = next(c for c in node.named_children if c.type in
                          ("iri_reference", "prefixed_name", "var"))
            out.append((node, self.text_of(target) if target.type == "var"
                        else self.iri(target)))
        return out

    @cached_property
    def variables(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for n in self.walk("var"):
            seen.setdefault(self.text_of(n)[1:], None)
        return tuple(seen)

    def iri(self, node: Node) -> str:
        """The full IRI an ``iri_reference``, ``prefixed_name`` or ``a`` node stands for."""
        if node.type == "a":
            return RDF_TYPE
        key = (node.start_byte, node.end_byte)
        found = self._iris.get(key)
        if found is None:
            found = self._iris[key] = self._iri(node)
        return found

    def _iri(self, node: Node) -> str:
        text = self.text_of(node)
        if node.type == "iri_reference":
            iri = _unescape_iri(text[1:-1])
            if self.base and ":" not in iri.split("/", 1)[0]:
                from urllib.parse import urljoin
                return urljoin(self.base, iri)
            return iri
        prefix, _, local = text.partition(":")
        namespace = self.prefixes.get(prefix)
        if namespace is None:
            raise self.error_at(node, f"the prefix {prefix}: is not declared",
                                fix=f"declare it: PREFIX {prefix}: <...>")
        return namespace + _PN_ESCAPE.sub(r"\1", local)

    # -- checks ----------------------------------------------------------------------------
    def check(self) -> None:
        """Raise QuerySyntaxError at the first syntax error or undeclared prefix."""
        root = self.root
        if root.has_error:
            bad = self._first_error(root)
            if bad is not None:
                raise self._syntax_error(bad)
            raise self.error_at(root, "the SPARQL query does not parse",
                                fix="check the query's syntax")
        if self.query is None:
            raise QuerySyntaxError("there is no query here, only declarations", line=1,
                                   column=1, excerpt=self.excerpt(1, 1),
                                   fix="add a SELECT, ASK, CONSTRUCT or DESCRIBE query")
        prologue_end = self.prologue_end
        for node in self.walk("prefix_declaration", "base_declaration", "prefixed_name"):
            if node.type == "prefix_declaration":
                declared = _declaration(self.text_of(node)) if self.base is None else None
                if declared is None:
                    ns = node.named_children
                    declared = (self.text_of(ns[0]).rstrip(":").strip(), self.iri(ns[1]))
                self.prefixes[declared[0]] = declared[1]
                prologue_end = node.end_byte
            elif node.type == "base_declaration":
                self.base = self.iri(node.named_children[0])
                prologue_end = node.end_byte
            elif self.text_of(node).partition(":")[0] not in self.prefixes:
                self.iri(node)              # raises: the prefix is not declared
        # a query that never names the hint namespace has no hints (a pasted WDQS prologue
        # declares hint: without using it)
        body = self.source[prologue_end:]
        hints = [p for p, ns in self.prefixes.items() if ns.startswith(HINT[:-1])]
        self._may_hint = HINT[:-1].encode() in body or any(
            f"{p}:".encode() in body for p in hints)

    def _first_error(self, node: Node) -> Node | None:
        stack = [node]
        while stack:
            n = stack.pop()
            if n.is_error or n.is_missing:
                return n
            if n.has_error:
                stack.extend(reversed(n.children))
        return None

    def _syntax_error(self, node: Node) -> QuerySyntaxError:
        if node.is_missing:
            what = f"missing {_describe_missing(node.type)}"
            rest = self.source[node.start_byte:]
            token = rest.split(None, 1)[0].decode("utf-8", "replace") if rest.strip() else ""
            if token:
                what += f" before {token[:40]!r}"
                skipped = len(rest) - len(rest.lstrip())
                point = self.source[:node.start_byte + skipped]
                line = point.count(b"\n") + 1
                column = len(point.rsplit(b"\n", 1)[-1].decode("utf-8", "replace")) + 1
                return QuerySyntaxError(f"the SPARQL query does not parse at line {line}, "
                                        f"column {column}: {what}", line=line, column=column,
                                        excerpt=self.excerpt(line, column),
                                        fix="correct the query at that position")
        else:
            leaf = node
            while leaf.child_count:
                leaf = leaf.children[0]
            token = self.text_of(leaf) if leaf.end_byte > leaf.start_byte else ""
            if not token:
                token = self.text_of(node).split(None, 1)[0] if self.text_of(node).strip() \
                    else ""
            what = f"unexpected {token[:40]!r}" if token else "unexpected end of the query"
            node = leaf if leaf.end_byte > leaf.start_byte else node
        line, column = self.position(node)
        return QuerySyntaxError(f"the SPARQL query does not parse at line {line}, column "
                                f"{column}: {what}", line=line, column=column,
                                excerpt=self.excerpt(line, column),
                                fix="correct the query at that position")

    def is_hint(self, node: Node) -> bool:
        """Whether a ``triples_same_subject`` or ``property`` node is a Blazegraph query
        hint (``hint:Query hint:optimizer "None"``, ``?x hint:rangeSafe true``): WDQS
        reads those as advice, not as patterns to match."""
        if not self._may_hint:
            return False
        if node.type == "property":
            verb = node.named_children[0] if node.named_children else None
            while verb is not None and verb.type == "path_element" and \
                    verb.named_child_count == 1:
                verb = verb.named_children[0]
            return verb is not None and self._hint_iri(verb)
        subject = node.named_children[0] if node.named_children else None
        if subject is not None and self._hint_iri(subject):
            return True
        props = [c for c in node.named_children[-1].named_children if c.type == "property"] \
            if node.named_children and node.named_children[-1].type == "property_list" else []
        return bool(props) and all(self.is_hint(p) for p in props)

    def _hint_iri(self, node: Node) -> bool:
        if node.type not in ("prefixed_name", "iri_reference"):
            return False
        try:
            return self.iri(node).startswith(HINT)
        except QuerySyntaxError:
            return False

    # -- canonical text --------------------------------------------------------------------
    def canonical(self) -> str:
        """The query re-spaced token by token, comments dropped: what it means is unchanged,
        and rdflib's parser, which refuses ``wdt:P279 *`` and ``"1"^^ xsd:integer``,
        accepts it."""
        out: list[str] = []
        stack = [self.root]
        glue = False
        while stack:
            n = stack.pop()
            t = n.type
            if t == "comment":
                continue
            if t in ("triples_same_subject", "property") and self.is_hint(n):
                if stack and stack[-1].type in (".", ";"):
                    stack.pop()
                continue
            if t in _ATOMS or not n.child_count:
                piece = self.text_of(n)
                if t == "^^":
                    glue = True
                if out and (t in _GLUED or glue):
                    out[-1] += piece
                else:
                    out.append(piece)
                glue = t == "^^"
                continue
            stack.extend(reversed(n.children))
        return " ".join(out)


_DECLARATION = re.compile(r"PREFIX\s+([A-Za-z][\w.-]*|)\s*:\s*<([^<>\"{}|^`\\\x00-\x20]*)>\Z",
                          re.IGNORECASE | re.ASCII)


@functools.lru_cache(maxsize=1024)
def _declaration(text: str) -> tuple[str, str] | None:
    """(prefix, namespace) of a plain ``PREFIX p: <iri>`` declaration's text (pasted
    prologues repeat the same ones); None for any other spelling (the tree decides)."""
    m = _DECLARATION.fullmatch(text)
    return (m[1], m[2]) if m else None


def _describe_missing(kind: str) -> str:
    if kind in ("var", "iri_reference", "prefixed_name"):
        return "a term (an object, a variable or an IRI)"
    return repr(kind)


_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


def _unescape_iri(text: str) -> str:
    if "\\" not in text:
        return text
    return _UCHAR.sub(lambda m: chr(int(m[1] or m[2], 16)), text)
