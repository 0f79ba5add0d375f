"""The SPARQL validator: what is wrong with a query, where, and how to fix it.

    >>> d = validate("SELECT ?x WHERE { wd:Q42 wdt:P108 ?y }", kb)
    >>> d.ok, [str(e) for e in d.errors]
    (False, ['1:8: error: ?x is projected but never bound ...'])

``validate(query, kb)`` returns ``Diagnostics``: an iterable of frozen ``Diagnostic``
(severity, message, line, column, fix), with ``.errors``, ``.warnings`` and ``.ok``. The rule:
**an error means the query cannot be right against this KB**; what is legal but suspicious
is a warning. Lines and columns are 1-based and point into the query as given.

Errors (``code`` in brackets):

- [syntax] the query does not parse; [update] SPARQL Update, LOAD, CLEAR, ... (a read-only
  tool refuses them); [service] SERVICE to an endpoint not on ``allowed_services``
  (Wikidata's label service is always allowed: it is emulated, never called);
- [prefix] a prefix that is neither declared nor one of Wikidata's well-known ones;
- [placeholder] a label-level slot (``wd:/Douglas Adams/``) whose label is no entity's (or
  property's) label or alias in the KB, exactly up to case, accents and punctuation —
  the fix names the closest labels; [unprefixed] a placeholder without its prefix;
- [malformed-id] a ``wd:``/``wdt:``-style name that is not an ID (``wd:Douglas_Adams``,
  ``wdt:Q42``); [unknown-id] an entity the KB does not hold; [unknown-property] a property
  the KB does not define — a triple with it cannot match;
- [datatype] a property used against its datatype: an item-valued property with a literal
  object, a literal-valued one with an entity;
- [no-match] a required triple pattern with a bound entity that no statement of the KB
  matches (``wd:Q42 wdt:P19 ?x`` when the KB has no place of birth for Q42). For ASK and
  aggregates without GROUP BY (a count) this is a warning: "no" and 0 may be the right
  answers;
- [unbound] a projected variable that nothing in the pattern binds;
- [too-complex] a query past a limit on its shape (``store.sparql.shape``: nesting, OPTIONAL
  and UNION counts, length) that no kgground engine would run.

Every SPARQL 1.1 construct that parses (BIND, VALUES, sub-queries, property paths,
aggregates, functions, CONSTRUCT and DESCRIBE) gets diagnostics, never an exception: should
a check itself fail, an [internal] error says so, after what was found before it.

Warnings: [cartesian] required patterns that share no variable (every combination is
returned); [no-limit] a SELECT over a pattern with no bound entity and no LIMIT;
[unchecked] IDs past the first ``MAX_LOOKUPS`` were not looked up in the KB.

Without a KB only what needs no data is checked (syntax, safety, prefixes, ID shapes,
bindings, warnings); placeholders are then warnings (they cannot be resolved). Against a
``FallbackKB`` the live endpoint is asked for what the mirror lacks (unless offline).
A KB that fails (an endpoint down) raises its error: no diagnostics are better than
wrong ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Literal as TypingLiteral, Sequence

from kb.base import KnowledgeBase
from kb.contracts import Linker
from querygen.terms import (ENTITY_PREFIXES, PROPERTY_PREFIXES, Token, closest_labels,
                            known_prefixes, lex, resolve, well_formed, wikidata_id)
from store.errors import (EntityNotFound, InvalidId, KGGroundError, PropertyNotFound,
                          QuerySyntaxError, QueryTooComplex, UnsupportedQuery)
from store.sparql import (EMULATED_SERVICES, WIKIDATA_PREFIXES, check_query_shape,
                          rdflib_query, translate)
from store.sparql import parse as parse_sparql
from store.vocab import PROPERTY_ID, WD

Severity = TypingLiteral["error", "warning"]

#: datatypes whose values are entities; whose values are IRIs; the rest are literals
ITEM_TYPES = frozenset({"wikibase-item", "wikibase-property", "wikibase-lexeme",
                        "wikibase-form", "wikibase-sense"})
IRI_TYPES = frozenset({"url", "commonsMedia", "geo-shape", "tabular-data", "entity-schema"})
_VALUE_PREFIXES = {WIKIDATA_PREFIXES[p]: p for p in ("wdt", "ps", "pq")}
_SLOT_IRI = "urn:kgground:slot:"
_UNKNOWN_PREFIX_IRI = "urn:kgground:unknown-prefix:"
_UPDATE_WORDS = {"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY",
                 "WITH"}
_LABEL_SUFFIXES = ("AltLabel", "Label", "Description")
#: the most IDs one validation looks up in the KB (a VALUES list of 50,000 took 35 s)
MAX_LOOKUPS = 2_000
#: the position the front end writes into its message (the validator reports its own)
_POSITION = re.compile(r"^the SPARQL query does not parse at line \d+, column \d+: ")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: ``severity`` 'error' or 'warning', a ``message`` saying what is wrong,
    1-based ``line``/``column`` in the query, a suggested ``fix`` (or None), a short
    ``code`` naming the check, and ``suggestions``: replacement terms, best first."""
    severity: Severity
    message: str
    line: int
    column: int
    fix: str | None = None
    code: str = ""
    suggestions: tuple[str, ...] = ()

    def __str__(self) -> str:
        out = f"{self.line}:{self.column}: {self.severity}: {self.message}"
        return out + (f". Fix: {self.fix}" if self.fix else "")

    def as_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "code": self.code, "message": self.message,
                "line": self.line, "column": self.column, "fix": self.fix,
                "suggestions": list(self.suggestions)}


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """Everything ``validate`` found in ``query``, in the order of the query."""
    query: str
    items: tuple[Diagnostic, ...] = ()
    kb: str | None = None

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]

    @property
    def ok(self) -> bool:
        """No errors (warnings allowed)."""
        return not self.errors

    def codes(self) -> set[str]:
        return {d.code for d in self.items}

    def report(self) -> str:
        """Compiler-style text: each diagnostic with its line of the query and a caret."""
        lines = self.query.splitlines() or [""]
        out = []
        for d in self.items:
            out.append(str(d))
            if 1 <= d.line <= len(lines):
                out.append("  " + lines[d.line - 1])
                out.append("  " + " " * (d.column - 1) + "^")
        return "\n".join(out)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "kb": self.kb, "errors": len(self.errors),
                "warnings": len(self.warnings),
                "diagnostics": [d.as_dict() for d in self.items]}


def validate(query: str, kb: KnowledgeBase | None = None, *, allowed_services: Iterable[str] = (),
             lang: str = "en", linker: Linker | None = None) -> Diagnostics:
    """Check ``query`` (ID-level or label-level SPARQL) against ``kb`` (any
    ``KnowledgeBase``, or None); see the module docstring for what is checked. ``linker``
    (an ``EntityLinker`` over ``kb``) finds the closest names for suggestions over a
    mirror; without one, a linker is built for the suggestions of this call."""
    return _Validator(query, kb, frozenset(allowed_services), lang, linker).run()


# -- the checks ------------------------------------------------------------------------------

@dataclass
class _Slot:
    token: Token
    kind: str                 # entity | property
    ids: list[str] = field(default_factory=list)


class _Validator:
    def __init__(self, query: str, kb: KnowledgeBase | None, allowed: frozenset[str], lang: str,
                 linker: Linker | None):
        self.query, self.kb, self.allowed, self.lang = query, kb, allowed, lang
        self.linker = linker
        self.found: list[tuple[int, Diagnostic]] = []     # (offset, diagnostic)
        self.slots: dict[str, _Slot] = {}                  # stand-in IRI → slot
        self._entities: dict[str, bool] = {}
        self._properties: dict[str, Any] = {}

    def nodes(self, algebra: Any) -> list[Any]:
        """Every node of ``algebra``, walked once (the checks look at them several times)."""
        if getattr(self, "_nodes_of", None) is not algebra:
            self._nodes_of, self._nodes = algebra, list(_walk(algebra))
        return self._nodes

    # -- reporting --------------------------------------------------------------------------
    def add(self, offset: int, severity: Severity, code: str, message: str,
            fix: str | None = None, suggestions: Sequence[str] = ()) -> None:
        line = self.query.count("\n", 0, offset) + 1
        column = offset - (self.query.rfind("\n", 0, offset) + 1) + 1
        self.found.append((offset, Diagnostic(severity, message, line, column, fix, code,
                                              tuple(suggestions))))

    def run(self) -> Diagnostics:
        if not isinstance(self.query, str) or not self.query.strip():
            self.query = self.query if isinstance(self.query, str) else ""
            self.add(0, "error", "syntax", "the query is empty",
                     "write a SELECT, ASK, CONSTRUCT or DESCRIBE query")
            return self.result()
        try:
            self.tokens = lex(self.query)
            self.prefixes = known_prefixes(self.tokens)
            parse_text, self.offset_map = self.parse_text()
            algebra = self.parse(parse_text)
            if algebra is not None:
                self.check_services(algebra)
                self.check_ids()
                self.check_patterns(algebra)
            else:
                self.check_ids()
        except QueryTooComplex as exc:
            self.add(0, "error", "too-complex", exc.what, exc.fix)
        except RecursionError:
            self.add(0, "error", "too-complex", "the query is nested too deeply to check",
                     "nest fewer groups, sub-queries or brackets inside one another")
        except KGGroundError:
            raise                       # the KB failed: no diagnostics beat wrong ones
        except Exception as exc:  # noqa: BLE001 - a bug here must not hide the query's own
            self.add(0, "error", "internal",
                     f"the validator could not finish checking this query "
                     f"({type(exc).__name__}: {exc}); what it found before is listed",
                     "please report this query as a kgground bug")
        return self.result()

    def result(self) -> Diagnostics:
        seen, items = set(), []
        for _, d in sorted(self.found, key=lambda od: (od[0], od[1].severity != "error")):
            key = (d.code, d.message, d.line, d.column)
            if key not in seen:
                seen.add(key)
                items.append(d)
        return Diagnostics(self.query, tuple(items), self.kb.name if self.kb is not None else None)

    # -- tokens: placeholders and prefixes; the text handed to the parser ---------------------
    def parse_text(self) -> tuple[str, list[tuple[int, int, int, int]]]:
        """The query with each slot replaced by a stand-in IRI and undeclared prefixes
        declared, so that it parses; and the edits, to map parser offsets back."""
        edits: list[tuple[int, int, str]] = []
        unknown: dict[str, Token] = {}
        for n, tok in enumerate(self.tokens):
            if tok.kind == "slot":
                edits.append((tok.start, tok.end, self.check_slot(n, tok)))
            elif tok.kind == "bare":
                self.add(tok.start, "error", "unprefixed",
                         f"the placeholder {tok.text} has no prefix, so it names nothing",
                         f"write wd:{tok.text} for an entity or wdt:{tok.text} for a property",
                         (f"wd:{tok.text}", f"wdt:{tok.text}"))
            elif tok.kind == "pname" and tok.prefix not in self.prefixes:
                unknown.setdefault(tok.prefix, tok)
        for name, tok in unknown.items():
            near = _closest_prefix(name, self.prefixes)
            fix = (f"write {near}: (or declare PREFIX {name}: <...>)" if near else
                   f"declare it: PREFIX {name}: <...>")
            self.add(tok.start, "error", "prefix", f"the prefix {name}: is not declared", fix,
                     (near,) if near else ())
        header = "".join(f"PREFIX {name}: <{_UNKNOWN_PREFIX_IRI}{name}:>\n" for name in unknown)
        text, mapping, pos, out_pos = [], [], 0, len(header)
        for start, end, new in edits:
            text.append(self.query[pos:start])
            out_pos += start - pos
            mapping.append((start, end, out_pos, out_pos + len(new)))
            text.append(new)
            out_pos += len(new)
            pos = end
        text.append(self.query[pos:])
        self.header_length = len(header)
        return header + "".join(text), mapping

    def original_offset(self, offset: int) -> int:
        """An offset into the parser's text → the offset in the query as given."""
        orig_end, new_end = 0, self.header_length
        for start, end, new_start, new_stop in self.offset_map:
            if offset < new_start:
                break
            if offset < new_stop:
                return start
            orig_end, new_end = end, new_stop
        return max(0, min(orig_end + offset - new_end, len(self.query)))

    def check_slot(self, n: int, tok: Token) -> str:
        kind = ("entity" if tok.prefix in ENTITY_PREFIXES else
                "property" if tok.prefix in PROPERTY_PREFIXES else None)
        stand_in = f"<{_SLOT_IRI}{n}>"
        if kind is None:
            self.add(tok.start, "error", "placeholder",
                     f"{tok.prefix}:/…/ is not a placeholder kgground knows",
                     "write wd:/label/ for an entity, wdt:/label/ (or p:, ps:, pq:) for a "
                     "property", (f"wd:/{tok.label}/", f"wdt:/{tok.label}/"))
            return stand_in
        slot = self.slots[stand_in] = _Slot(tok, kind)
        if self.kb is None:
            self.add(tok.start, "warning", "placeholder",
                     f"the placeholder {tok.text} is not checked: no KB was given",
                     "validate against a KB (--db or --endpoint), or ground it first")
            return stand_in
        slot.ids = resolve(self.kb, tok.label, kind, lang=self.lang)
        if not slot.ids:
            near = closest_labels(self.kb, tok.label, kind, lang=self.lang,
                                  linker=self.linker)
            names = ", ".join(f"{label!r} ({id})" for id, label in near)
            self.add(tok.start, "error", "placeholder",
                     f"no {kind} is labelled {tok.label!r} in {self.kb.name}",
                     f"did you mean {names}?" if near else "check the label's spelling",
                     tuple(f"{tok.prefix}:/{label}/" for _, label in near))
        return stand_in

    # -- syntax and safety ------------------------------------------------------------------
    def parse(self, text: str) -> Any:
        """The algebra of the parser's text, or None after reporting why there is none.

        Parsed as every kgground KB parses a query it runs (``store.sparql.prepare``): the
        tree-sitter front end (``store.sparql.syntax``: microseconds, the error's line and
        column) and its translation to algebra (``store.sparql.algebra``); CONSTRUCT and
        DESCRIBE, which that translation leaves to rdflib, are translated by rdflib from
        the front end's canonical text, as the mirror runs them."""
        try:
            parsed = parse_sparql(text, WIKIDATA_PREFIXES)
        except QuerySyntaxError as exc:
            first = next((t for t in self.tokens if t.kind == "word"
                          and t.text.upper() not in ("PREFIX", "BASE")), None)
            if first is not None and first.text.upper() in _UPDATE_WORDS:
                self.update_refused(first)
            else:
                self.syntax_error(exc, text)
            return None
        if parsed.form == "UPDATE":
            first = next((t for t in self.tokens if t.kind == "word"
                          and t.text.upper() in _UPDATE_WORDS), self.tokens[0])
            self.update_refused(first)
            return None
        check_query_shape(parsed)     # QueryTooComplex: reported by run()
        try:
            return translate(parsed)
        except UnsupportedQuery:
            pass                                    # CONSTRUCT, DESCRIBE: rdflib's algebra
        except QuerySyntaxError as exc:
            self.syntax_error(exc, text)
            return None
        try:
            return rdflib_query(parsed.canonical(), parsed.prefixes).algebra
        except Exception as exc:  # noqa: BLE001 - rdflib raises bare Exceptions
            self.add(0, "error", "syntax", f"the query is not valid SPARQL: {exc}",
                     "check its prefixes, variables and GROUP BY")
            return None

    def update_refused(self, tok: Token) -> None:
        self.add(tok.start, "error", "update",
                 f"SPARQL Update ({tok.text.upper()}) is refused: knowledge bases are "
                 "read-only here", "send a SELECT, ASK, CONSTRUCT or DESCRIBE query")

    def syntax_error(self, exc: QuerySyntaxError, text: str) -> None:
        """Report the front end's syntax error at its position in the query as given."""
        if exc.line is None:
            offset = 0
        else:
            assert exc.column is not None           # set with the line (QuerySyntaxError)
            lines = text.split("\n")
            offset = sum(len(line) + 1 for line in lines[:exc.line - 1]) + exc.column - 1
            offset = self.original_offset(min(offset, len(text)))
        what = _POSITION.sub("", exc.what)
        here = self.query[offset:offset + 20].split("\n")[0]
        found = f"at {here!r}" if here.strip() else "at the end of the query"
        self.add(offset, "error", "syntax", f"the query does not parse {found}: {what}",
                 "correct the query at that position (a missing '.', '}' or prefix, or a "
                 "label where a term belongs)")

    def check_services(self, algebra: Any) -> None:
        for node in self.nodes(algebra):
            if getattr(node, "name", None) != "ServiceGraphPattern":
                continue
            iri = str(node.get("term"))
            if iri in EMULATED_SERVICES or iri in self.allowed:
                continue
            tok = next((t for t in self.tokens if t.kind == "word"
                        and t.text.upper() == "SERVICE"), self.tokens[0])
            self.add(tok.start, "error", "service", f"SERVICE <{iri}> is not on the allow-list",
                     "remove the SERVICE clause, or allow that endpoint")

    # -- IDs ---------------------------------------------------------------------------------
    def check_ids(self) -> None:
        reported: set[str] = set()
        for tok in self.tokens:
            found = wikidata_id(tok, self.prefixes)
            if found is None:
                continue
            kind, local = found
            if not well_formed(kind, local):
                self.malformed(tok, kind, local)
            elif (self.kb is not None and local not in reported
                  and local not in self._entities and local not in self._properties
                  and len(self._entities) + len(self._properties) >= MAX_LOOKUPS):
                self.add(tok.start, "warning", "unchecked",
                         f"only the first {MAX_LOOKUPS:,} IDs were looked up in "
                         f"{self.kb.name}; {local} and the IDs after it were not",
                         "split the query (long VALUES lists) to have every ID checked")
                return
            elif self.kb is not None and local not in reported:
                if kind == "property" and self.property(local) is None:
                    reported.add(local)
                    self.add(tok.start, "error", "unknown-property",
                             f"property {local} is not in {self.kb.name}: no triple with it "
                             "can match", "check the PID, or write the property as "
                             "wdt:/label/ to have it looked up")
                elif kind == "entity" and not self.entity_known(local):
                    reported.add(local)
                    self.add(tok.start, "error", "unknown-id",
                             f"entity {local} is not in {self.kb.name}",
                             "check the ID, or write the entity as wd:/label/ to have it "
                             "looked up")

    def malformed(self, tok: Token, kind: str, local: str) -> None:
        want = "a property ID (P31)" if kind == "property" else "an entity ID (Q42)"
        guess = local.strip().upper()
        suggestions: list[str] = []
        if well_formed(kind, guess):
            fix = f"write {tok.prefix}:{guess}" if tok.kind == "pname" else f"write {guess}"
            suggestions.append(f"{tok.prefix}:{guess}")
        else:
            label = " ".join(re.sub(r"[_%]", " ", local).split())
            fix = "write the ID, or the label as a placeholder"
            if self.kb is not None and label:
                ids = resolve(self.kb, label, kind, lang=self.lang)
                if ids:
                    fix = f"write {tok.prefix}:{ids[0]} ({label}), or {tok.prefix}:/{label}/"
                    suggestions += [f"{tok.prefix}:{i}" for i in ids[:3]]
                else:
                    near = closest_labels(self.kb, label, kind, lang=self.lang, limit=3,
                                          linker=self.linker)
                    if near:
                        fix = "did you mean " + ", ".join(f"{tok.prefix}:{i} ({n})"
                                                          for i, n in near) + "?"
                        suggestions += [f"{tok.prefix}:{i}" for i, _ in near]
        self.add(tok.start, "error", "malformed-id",
                 f"{tok.text} is not {want}", fix, suggestions)

    def entity_known(self, id: str) -> bool:
        if id not in self._entities:
            if PROPERTY_ID.match(id):
                self._entities[id] = self.property(id) is not None
            else:
                try:
                    assert self.kb is not None      # asked only when there is a KB
                    self.kb.entity(id)
                    self._entities[id] = True
                except (EntityNotFound, InvalidId):
                    self._entities[id] = False
        return self._entities[id]

    def property(self, pid: str) -> Any:
        """The KB's PropertyInfo of ``pid``, or None when it does not define it."""
        if pid not in self._properties:
            try:
                assert self.kb is not None          # asked only when there is a KB
                self._properties[pid] = self.kb.property_info(pid)
            except (PropertyNotFound, InvalidId):
                self._properties[pid] = None
        return self._properties[pid]

    # -- the pattern: datatypes, matches, bindings, shape -------------------------------------
    def term_ids(self, term: Any, kind: str) -> list[str] | None:
        """The IDs a parsed term stands for (a slot's candidates, a Wikidata IRI's ID), or
        None when it is not a Wikidata term of that kind."""
        from rdflib import URIRef

        if not isinstance(term, URIRef):
            return None
        text = str(term)
        slot = self.slots.get(f"<{text}>")
        if slot is not None:
            return list(slot.ids) if slot.kind == kind else None
        if kind == "entity" and text.startswith(WD) and well_formed("entity", text[len(WD):]):
            return [text[len(WD):]] if self.entity_known(text[len(WD):]) else []
        if kind == "property":
            for ns in _VALUE_PREFIXES:
                if text.startswith(ns) and PROPERTY_ID.match(text[len(ns):]):
                    pid = text[len(ns):]
                    return [pid] if self.property(pid) is not None else []
        return None

    def offset_of(self, term: Any) -> int:
        """Where a parsed term first appears in the query (0 when it cannot be found)."""
        from rdflib import URIRef, Variable

        text = str(term)
        if isinstance(term, URIRef) and text.startswith(_SLOT_IRI):
            slot = self.slots.get(f"<{text}>")
            return slot.token.start if slot else 0
        # the pattern, not the projection: from the first '{' on, then the rest
        brace = next((i for i, t in enumerate(self.tokens) if t.text == "{"), 0)
        for tok in self.tokens[brace:] + self.tokens[:brace]:
            if isinstance(term, Variable) and tok.kind == "var" and tok.text[1:] == text:
                return tok.start
            if isinstance(term, URIRef):
                if tok.kind == "iri" and tok.text[1:-1] == text:
                    return tok.start
                if tok.kind == "pname" and self.prefixes.get(tok.prefix, "\0") + tok.local \
                        == text:
                    return tok.start
        return 0

    def check_patterns(self, algebra: Any) -> None:
        triples = list(_triples(algebra, required=True))
        form = algebra.name if hasattr(algebra, "name") else ""
        aggregated = any(getattr(n, "name", None) == "AggregateJoin" for n in self.nodes(algebra))
        # one row even when nothing matches: ASK (false) and aggregates without GROUP BY (0)
        grouped = any(getattr(n, "name", None) == "Group" and n.get("expr")
                      for n in self.nodes(algebra))
        if self.kb is not None:
            for triple, required in triples:
                self.check_datatype(triple)
                if required:
                    self.check_match(triple, soft=form == "AskQuery" or (aggregated
                                                                         and not grouped))
        if form == "SelectQuery":
            self.check_bindings(algebra, triples)
            self.check_shape(algebra, [t for t, req in triples if req], aggregated)

    def check_datatype(self, triple: tuple) -> None:
        from rdflib import Literal, URIRef

        _, pred, obj = triple
        pids = self.term_ids(pred, "property")
        if not pids:
            return
        datatypes: set[str] = {d for p in pids
                               if (d := getattr(self.property(p), "datatype", None)) is not None}
        if not datatypes:
            return
        obj_entity = self.term_ids(obj, "entity") is not None
        if isinstance(obj, Literal):
            if datatypes <= ITEM_TYPES | IRI_TYPES:
                kind = "entities" if datatypes <= ITEM_TYPES else "IRIs"
                self.add(self.offset_of(obj) or self.offset_of(pred), "error", "datatype",
                         f"{_name(pred, pids, self)} takes {kind} as values, not a literal "
                         f"({obj.n3()})", "put an entity (wd:Q…) or a variable there")
        elif isinstance(obj, URIRef) and obj_entity:
            if not datatypes & (ITEM_TYPES | IRI_TYPES):
                dt = ", ".join(sorted(datatypes))
                self.add(self.offset_of(obj), "error", "datatype",
                         f"{_name(pred, pids, self)} takes {dt} values, not an entity",
                         "compare with a literal of that type, or use a variable")
            elif not datatypes & ITEM_TYPES:
                self.add(self.offset_of(obj), "error", "datatype",
                         f"{_name(pred, pids, self)} takes IRIs ({', '.join(sorted(datatypes))})"
                         ", not a Wikidata entity", "use a variable or the right IRI")

    def check_match(self, triple: tuple, *, soft: bool) -> None:
        from rdflib import Literal, Variable

        subj, pred, obj = triple
        pids = self.term_ids(pred, "property")
        if not pids:
            return
        subjects = self.term_ids(subj, "entity")
        objects = self.term_ids(obj, "entity")
        if subjects == [] or objects == []:
            return                                     # already reported: unknown or unresolved
        if subjects is None and objects is None:
            return                                     # nothing bound to look up
        if subjects is None and not isinstance(subj, Variable):
            return
        if objects is None and not isinstance(obj, (Variable, Literal)):
            return
        assert self.kb is not None                  # checked only when there is a KB
        unbound: list[str | None] = [None]
        for s in subjects or unbound:
            for o in objects or unbound:
                for p in pids[:5]:
                    if self.kb.statements(s, p, o, limit=1):
                        return
        pattern = " ".join(_short(t, self) for t in triple)
        what = f"no statement in {self.kb.name} matches {pattern}"
        if soft:
            self.add(self.offset_of(subj if subjects else obj), "warning", "no-match",
                     what + ": the answer will be no (or 0)",
                     "check the entity and property, or try the reverse direction")
        else:
            self.add(self.offset_of(subj if subjects else obj), "error", "no-match",
                     what + ", so the query has no answer",
                     "check the entity and the property (and the direction of the triple)")

    def check_bindings(self, algebra: Any, triples: list) -> None:
        from rdflib import Variable

        bound: set[Any] = set()
        for (s, p, o), _ in _triples(algebra, required=False, services=True):
            bound.update(t for t in (s, p, o) if isinstance(t, Variable))
        computed: list[tuple[Any, Any]] = []     # (variable, expression): not hashable
        samples: dict[Any, Any] = {}
        for node in self.nodes(algebra):
            name = getattr(node, "name", None)
            if name == "Extend":
                computed.append((node["var"], node["expr"]))
            elif name == "values":
                for row in node.get("res") or []:
                    bound.update(row.keys())
            elif name == "Aggregate_Sample":
                samples[node["res"]] = node["vars"]
            elif name == "Project" and node is not algebra["p"]:
                bound.update(node["PV"])
        for var, expr in computed:
            source = samples.get(expr) if isinstance(expr, Variable) else None
            if source is None or source in bound:
                bound.add(var)
        labelled = any(getattr(n, "name", None) == "ServiceGraphPattern"
                       and str(n.get("term")) in EMULATED_SERVICES for n in self.nodes(algebra))
        for var in algebra["PV"]:
            if var in bound:
                continue
            if labelled and any(str(var).endswith(s) and Variable(str(var)[:-len(s)]) in bound
                                for s in _LABEL_SUFFIXES):
                continue
            self.add(self.offset_of(var), "error", "unbound",
                     f"?{var} is projected but never bound, so it is always empty",
                     "use it in a triple pattern (or BIND it), or drop it from SELECT")

    def check_shape(self, algebra: Any, required: list, aggregated: bool) -> None:
        """Warn about a query's shape: required patterns in separate groups that share no
        variable (a cartesian product), and a pattern that binds no entity with neither a
        LIMIT nor an aggregate nor VALUES (every match in the KB)."""
        from rdflib import Variable

        with_vars = [t for t in required if any(isinstance(x, Variable) for x in t)]
        groups = self._variable_groups(algebra, with_vars)
        if len(groups) > 1:
            second = sorted(groups.values(), key=lambda g: self.offset_of(g[0][0]))[1][0]
            self.add(self.offset_of(next(x for x in second if isinstance(x, Variable))),
                     "warning", "cartesian",
                     f"this pattern shares no variable with the rest ({len(groups)} separate "
                     "groups): every combination of their matches is returned",
                     "join the patterns through a shared variable, or split the query")
        self._check_bounded(algebra, required, aggregated)

    def _variable_groups(self, algebra: Any, with_vars: list) -> dict[Any, list]:
        """The patterns ``with_vars`` grouped by the variables that join them: patterns
        sharing a variable are one group, and so are the variables a FILTER or BIND
        expression uses together. Group representative → its patterns."""
        from rdflib import Variable

        parent: dict[Any, Any] = {}
        for t in with_vars:
            vs = [x for x in t if isinstance(x, Variable)]
            for v in vs[1:]:
                parent[_find(parent, v)] = _find(parent, vs[0])
            _find(parent, vs[0])
        for node in self.nodes(algebra):       # FILTER and BIND expressions join their variables
            if getattr(node, "name", None) in ("Filter", "Extend"):
                vs = [v for v in _walk(node.get("expr")) if isinstance(v, Variable)]
                if node.name == "Extend":
                    vs.append(node["var"])
                vs = [v for v in vs if v in parent]
                for v in vs[1:]:
                    parent[_find(parent, v)] = _find(parent, vs[0])
        groups: dict[Any, list] = {}
        for t in with_vars:
            v = next(x for x in t if isinstance(x, Variable))
            groups.setdefault(_find(parent, v), []).append(t)
        return groups

    def _check_bounded(self, algebra: Any, required: list, aggregated: bool) -> None:
        """Warn when the required patterns bind no entity and nothing bounds the answer
        (no LIMIT, aggregate or VALUES)."""
        from rdflib import Variable

        has_limit = any(getattr(n, "name", None) == "Slice" for n in self.nodes(algebra))
        bound_entity = any(not isinstance(x, Variable) for t in required for x in (t[0], t[2]))
        values = any(getattr(n, "name", None) in ("ToMultiSet", "values")
                     for n in self.nodes(algebra))
        if required and not (has_limit or aggregated or bound_entity or values):
            self.add(self.offset_of(required[0][0]), "warning", "no-limit",
                     "no entity is bound in this pattern and there is no LIMIT: it returns "
                     "every match in the KB", "add LIMIT 100 (or bind an entity)")


def _find(parent: dict[Any, Any], x: Any) -> Any:
    """Union-find: the representative of ``x``'s group in ``parent`` (x joins as its own
    group when new)."""
    while parent.setdefault(x, x) != x:
        x = parent[x]
    return x


def _name(pred: Any, pids: list[str], v: _Validator) -> str:
    info = v.property(pids[0])
    label = getattr(info, "label", None)
    return f"{pids[0]} ({label})" if label and label != pids[0] else pids[0]


def _short(term: Any, v: _Validator) -> str:
    from rdflib import URIRef, Variable

    if isinstance(term, Variable):
        return f"?{term}"
    text = str(term)
    slot = v.slots.get(f"<{text}>")
    if slot is not None:
        return slot.token.text
    if isinstance(term, URIRef):
        for ns, prefix in {**{WD: "wd"}, **_VALUE_PREFIXES}.items():
            if text.startswith(ns):
                return f"{prefix}:{text[len(ns):]}"
        return f"<{text}>"
    return term.n3()


def _closest_prefix(name: str, prefixes: dict[str, str]) -> str | None:
    from rapidfuzz.distance import OSA

    # letters swapped count as one slip (wtd → wdt); ties go to the same length
    near = sorted((OSA.distance(name, p), abs(len(p) - len(name)), p) for p in prefixes)
    return near[0][2] if near and near[0][0] <= max(1, len(name) // 3) else None


def _walk(node: Any) -> Iterator[Any]:
    """Every node of an rdflib algebra (or parse) tree, depth first."""
    from store.sparql import CompValue

    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, CompValue):
            stack.extend(v for k, v in n.items() if k != "_vars")
        elif isinstance(n, dict):
            stack.extend(n.values())
        elif isinstance(n, (list, tuple, set)):
            stack.extend(n)


#: where a pattern need not match for the query to have answers: OPTIONAL's and MINUS's
#: right side, a UNION's branches, EXISTS/NOT EXISTS
_OPTIONAL_SIDES = {"LeftJoin": ("p2",), "Minus": ("p2",), "Union": ("p1", "p2")}


def _triples(node: Any, *, required: bool, services: bool = False
             ) -> Iterator[tuple[tuple, bool]]:
    """(triple, required) for every triple pattern of the algebra; services=True also
    yields the triples written inside SERVICE clauses (as not required)."""
    from store.sparql import CompValue

    if isinstance(node, CompValue):
        name = node.name
        if name == "BGP":
            for t in node["triples"]:
                yield tuple(t), required
            return
        if name == "ServiceGraphPattern":
            if services:
                for sub in _walk(node.get("graph")):
                    if getattr(sub, "name", None) == "TriplesBlock":
                        for t in sub["triples"]:
                            yield tuple(t), False
            return
        if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            yield from _triples(node.get("graph"), required=False, services=services)
            return
        if name == "TriplesBlock":
            for t in node["triples"]:
                yield tuple(t), False
            return
        optional = _OPTIONAL_SIDES.get(name, ())
        for key, value in node.items():
            if key == "_vars":
                continue
            yield from _triples(value, required=required and key not in optional,
                                services=services)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _triples(item, required=required, services=services)


__all__ = ["Diagnostic", "Diagnostics", "ITEM_TYPES", "validate"]
