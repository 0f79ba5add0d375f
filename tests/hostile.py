"""A hostile corpus: SPARQL queries and input files written as an attacker (or a careless
LLM) would write them, in families, for the property-based tests and for
``bench/fuzz_hostile.py``.

Queries (``hostile_queries``): chains of OPTIONALs, self-MINUS, ORDER BY RAND(), nested
NOT EXISTS, cross joins counted, selected, sorted and made DISTINCT, aggregates over values
they cannot add, groups, brackets and unary operators nested thousands deep, long operator
chains, huge VALUES and UNIONs, unbounded property paths between variables, string
builders, bad casts, huge LIMITs; ``mutate_query`` derives more from any query (tokens
deleted, repeated, swapped, hostile fragments spliced in, constants made extreme).

Files (``hostile_files``): XML entity bombs (nested, in attributes, quadratic), external
entities (a local file, a URL), a remote DTD, a JSON-LD ``@context`` URL, byte-order
marks, NULs (raw and escaped), ill-typed literals, integers past 64 bits, JSON nested
thousands deep, huge lines, invalid UTF-8, truncated and fake compression, wrong JSON
shapes; each file that has records also holds a valid *sentinel* record after the bad
one, so that a test can check that a bad record costs only itself.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
XSD = "http://www.w3.org/2001/XMLSchema#"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: the entity every hostile file with records also holds, valid, after the bad record
SENTINEL = "Q999999"


# -- queries -----------------------------------------------------------------------------------

def optional_chain(n: int, var: str = "?s") -> str:
    return "SELECT * WHERE { " + " ".join(f"OPTIONAL {{ {var} wdt:P{i + 1} ?o{i} }}"
                                          for i in range(n)) + " }"


def nested_groups(n: int) -> str:
    return "SELECT * WHERE " + "{ " * n + "?s ?p ?o" + " }" * n


def nested_parens(n: int) -> str:
    return "SELECT * WHERE { ?s ?p ?o FILTER(" + "(" * n + "?o" + ")" * n + ") }"


def nested_not_exists(n: int) -> str:
    inner = "?a ?b ?c"
    for i in range(n):
        inner = f"?a ?b ?c{i} FILTER NOT EXISTS {{ {inner} }}"
    return f"SELECT * WHERE {{ {inner} }}"


def nested_subqueries(n: int) -> str:
    q = "SELECT ?s WHERE { ?s ?p ?o }"
    for _ in range(n):
        q = f"SELECT ?s WHERE {{ {{ {q} }} }}"
    return q


def operator_chain(n: int, op: str = "+") -> str:
    return "SELECT ?x WHERE { BIND(" + f" {op} ".join(["1"] * n) + " AS ?x) }"


def unary_chain(n: int) -> str:
    return "SELECT * WHERE { ?s ?p ?o FILTER(" + "!" * n + "BOUND(?o)) }"


def function_chain(n: int) -> str:
    return "SELECT ?x WHERE { BIND(" + "STR(" * n + "1" + ")" * n + " AS ?x) }"


def big_values(n: int) -> str:
    return "SELECT ?x WHERE { VALUES ?x { " + " ".join(f"wd:Q{i + 1}" for i in range(n)) + \
        " } ?x ?p ?o }"


def many_unions(n: int) -> str:
    return "SELECT * WHERE { " + " UNION ".join(f"{{ ?s wdt:P{i + 1} ?o }}"
                                                for i in range(n)) + " }"


def cross_join(n: int, form: str = "SELECT *") -> str:
    patterns = " . ".join(f"?a{i} ?b{i} ?c{i}" for i in range(n))
    return f"{form} WHERE {{ {patterns} }}"


def hostile_queries() -> list[tuple[str, str]]:
    """(family, query): the hand-made hostile corpus (see the module docstring)."""
    out: list[tuple[str, str]] = []

    def add(family: str, *queries: str) -> None:
        out.extend((family, q) for q in queries)

    add("optional-chain", *(optional_chain(n) for n in (8, 20, 24, 40, 64, 65, 200)),
        "SELECT * WHERE { ?s wdt:P31 ?c " + " ".join(
            f"OPTIONAL {{ ?s wdt:P{i + 1} ?o{i} . ?o{i} rdfs:label ?l{i} }}"
            for i in range(30)) + " }",
        "SELECT * WHERE { " + " ".join(f"OPTIONAL {{ ?s{i} wdt:P{i + 1} ?s{i + 1} }}"
                                       for i in range(30)) + " }")
    add("minus", "SELECT * WHERE { ?a ?b ?c MINUS { ?a ?b ?c } }",
        "SELECT * WHERE { ?a ?b ?c MINUS { ?d ?e ?f } }",
        "SELECT * WHERE { ?a ?b ?c MINUS { ?a ?b ?c MINUS { ?a ?b ?c } } }")
    add("order", "SELECT * WHERE { ?a ?b ?c } ORDER BY RAND()",
        "SELECT * WHERE { ?a ?b ?c } ORDER BY DESC(STRLEN(STR(?c))) ?b",
        cross_join(2) + " ORDER BY ?c0 ?c1",
        "SELECT * WHERE { ?a ?b ?c } ORDER BY (EXISTS { ?c ?d ?a })")
    add("not-exists", *(nested_not_exists(n) for n in (2, 3, 6)),
        "SELECT * WHERE { ?a ?b ?c FILTER NOT EXISTS { ?a ?b ?d FILTER NOT EXISTS "
        "{ ?d ?e ?a } } }")
    add("cross-join", cross_join(2), cross_join(3),
        cross_join(2, "SELECT (COUNT(*) AS ?n)"), cross_join(3, "SELECT (COUNT(*) AS ?n)"),
        cross_join(2, "SELECT DISTINCT ?c0 ?c1"), cross_join(2, "ASK"),
        "SELECT ?a0 (COUNT(*) AS ?n) WHERE { ?a0 ?b0 ?c0 . ?a1 ?b1 ?c1 } GROUP BY ?a0",
        "SELECT (GROUP_CONCAT(STR(?c0)) AS ?g) WHERE { ?a0 ?b0 ?c0 . ?a1 ?b1 ?c1 }",
        "SELECT (SAMPLE(?c0) AS ?x) WHERE { ?a0 ?b0 ?c0 . ?a1 ?b1 ?c1 . ?a2 ?b2 ?c2 }")
    add("aggregate-types",
        "SELECT (SUM(?o) AS ?t) (AVG(?o) AS ?a) (MAX(?o) AS ?m) WHERE { ?s ?p ?o }",
        "SELECT ?p (SUM(?o) AS ?t) WHERE { ?s ?p ?o } GROUP BY ?p",
        "SELECT (AVG(?o) AS ?a) WHERE { VALUES ?o { 1 \"x\" wd:Q1 } }",
        "SELECT (SUM(?o) AS ?t) WHERE { ?s rdfs:label ?o }",
        "SELECT (MIN(?o) AS ?a) (MAX(?s) AS ?b) (GROUP_CONCAT(?o) AS ?c) WHERE { ?s ?p ?o }",
        "SELECT (COUNT(DISTINCT ?o) AS ?n) (SUM(DISTINCT ?o) AS ?t) WHERE { ?s ?p ?o }")
    add("nesting", *(nested_groups(n) for n in (30, 60, 300, 3000)),
        *(nested_parens(n) for n in (30, 60, 300, 3000)),
        *(nested_subqueries(n) for n in (10, 40, 200)),
        *(unary_chain(n) for n in (50, 500, 5000)),
        *(function_chain(n) for n in (30, 300, 3000)),
        "SELECT * WHERE { ?s " + "(" * 500 + "wdt:P31" + ")" * 500 + " ?o }",
        "SELECT * WHERE { ?s " + "/".join(["wdt:P31"] * 2000) + " ?o }",
        "SELECT * WHERE { ?s wdt:P31 " + "[ wdt:P31 " * 400 + "?o" + " ]" * 400 + " }",
        "SELECT * WHERE { ?s wdt:P31 " + "( " * 400 + "?o" + " )" * 400 + " }")
    add("long-expression", *(operator_chain(n) for n in (100, 1000, 20000)),
        operator_chain(2000, "&&"), operator_chain(2000, "*"),
        "SELECT * WHERE { ?s ?p ?o FILTER(?o IN (" + ", ".join(str(i) for i in range(20000))
        + ")) }")
    add("values-unions", big_values(10), big_values(50_000), many_unions(10),
        many_unions(300), many_unions(3000),
        "SELECT * WHERE { VALUES (?a ?b) { " + " ".join(f"({i} {i})" for i in range(20000))
        + " } }")
    add("paths", "SELECT * WHERE { ?s wdt:P31* ?o }",
        "SELECT * WHERE { ?s (wdt:P31|^wdt:P31)+ ?o }",
        "SELECT * WHERE { ?s (!rdf:type)* ?o }", "SELECT * WHERE { ?s ?p ?o . ?o (^wdt:P31)* ?x }",
        "SELECT (COUNT(*) AS ?n) WHERE { ?s (wdt:P31/wdt:P279*)+ ?o }",
        "SELECT * WHERE { wd:Q42 (<x:a>|!<x:b>|^<x:c>)*/(wdt:P31?)+ ?o }")
    add("strings", "SELECT (CONCAT(" + ", ".join(["STR(?o)"] * 500) + ") AS ?x) WHERE { ?s ?p ?o }",
        "SELECT ?x WHERE { ?s ?p ?o BIND(REPLACE(STR(?o), \"\", \"xxxxxxxxxxxxxxxx\") AS ?x) }",
        "SELECT ?x WHERE { ?s rdfs:label ?o FILTER(REGEX(?o, \"^(a+)+$\")) BIND(?o AS ?x) }",
        "SELECT ?x WHERE { ?s ?p ?o FILTER(REGEX(STR(?o), \"(\")) BIND(1 AS ?x) }",
        "SELECT ?x WHERE { BIND(SUBSTR(\"abc\", 99999999999999999999, -5) AS ?x) }",
        "SELECT ?x WHERE { BIND(STRLEN(\"" + "a" * 200_000 + "\") AS ?x) }",
        "SELECT ?x WHERE { BIND(ENCODE_FOR_URI(\"\\uD800\") AS ?x) }")
    add("casts", "SELECT ?d WHERE { BIND(STRDT(\"x\", xsd:dateTime) AS ?d) }",
        "SELECT ?d WHERE { BIND(xsd:integer(\"abc\") AS ?d) "
        "BIND(xsd:dateTime(\"2021-02-30\") AS ?e) }",
        "SELECT ?d WHERE { BIND(\"2021-02-30\"^^xsd:date AS ?d) FILTER(?d < NOW()) }",
        "SELECT ?d WHERE { BIND(\"1e999999\"^^xsd:double * 10 AS ?d) }",
        "SELECT ?d WHERE { BIND(99999999999999999999999999999 * 99999999999999999999999 AS ?d) }",
        "SELECT ?d WHERE { BIND(1/0 AS ?d) BIND(0.0/0 AS ?e) BIND(ABS(-0) AS ?f) }",
        "SELECT ?d WHERE { BIND(YEAR(\"99999999999-01-01T00:00:00Z\"^^xsd:dateTime) AS ?d) }",
        "SELECT ?d WHERE { BIND(STRLANG(\"x\", \"not a tag!\") AS ?d) "
        "BIND(IRI(\" bad iri\") AS ?e) }",
        "SELECT ?d WHERE { ?s ?p ?o BIND(xsd:decimal(?o) AS ?d) } ORDER BY ?d")
    add("slices", "SELECT * WHERE { ?s ?p ?o } LIMIT 99999999999999999999999999",
        "SELECT * WHERE { ?s ?p ?o } OFFSET 99999999999999999999999999 LIMIT 1",
        "SELECT * WHERE { ?s ?p ?o } OFFSET 9223372036854775807",
        "SELECT * WHERE { { SELECT * WHERE { ?s ?p ?o } LIMIT 9223372036854775807 } }")
    add("forms", "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
        "CONSTRUCT { ?a ?b ?c . ?d ?e ?f } WHERE { ?a ?b ?c . ?d ?e ?f }",
        "DESCRIBE ?s WHERE { ?s ?p ?o }", "ASK { ?a ?b ?c . ?d ?e ?f FILTER(?c = ?f && ?a != ?d) }",
        "SELECT * FROM <http://example.org/> WHERE { GRAPH ?g { ?s ?p ?o } }")
    add("refused", "INSERT DATA { wd:Q1 wdt:P31 wd:Q5 }", "LOAD <http://example.org/x>",
        "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
        "SELECT * WHERE { SERVICE ?x { ?s ?p ?o } }", "CLEAR ALL", "DROP GRAPH <x:y>")
    add("garbage", "", " ", "SELECT", "{", "}" * 10000, "SELECT * WHERE { ?s ?p ?o " * 500,
        "\x00SELECT * WHERE { ?s ?p ?o }", "SELECT * WHERE { ?s ?p \"\\uD800\" }",
        "PREFIX : <" + "x" * 100_000 + "> SELECT * WHERE { ?s :p ?o }",
        "SELECT * WHERE { ?s ?p ?o } " + "# comment\n" * 50_000,
        "SELECT ?" + "x" * 100_000 + " WHERE { ?s ?p ?" + "x" * 100_000 + " }",
        "SELECT * WHERE { ?s ?p ?o } GROUP BY ?s HAVING (",
        "SELECT (COUNT(*) AS ?n) (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
        "SELECT ?x WHERE { BIND(1 AS ?x) BIND(2 AS ?x) }")
    return out


#: fragments spliced into queries by ``mutate_query``
_FRAGMENTS = ("OPTIONAL { ?s ?p ?o }", "MINUS { ?a ?b ?c }", "?zz ?zy ?zx .", "FILTER(RAND() < 2)",
              "FILTER NOT EXISTS { ?a ?b ?c }", "{ ?a ?b ?c } UNION { ?d ?e ?f }",
              "BIND(STRDT(\"x\", xsd:dateTime) AS ?bad)", "VALUES ?v { 1 2 3 }", "{", "}", "(",
              ")", ".", ";", ",", "*", "ORDER BY RAND()", "LIMIT 99999999999999999999",
              "GROUP BY ?s", "?s (wdt:P31|^wdt:P31)* ?o .", "\"\\uD800\"", "\x00", "'", "\"")
#: graph patterns spliced in right after a '{' (the query stays valid, and heavier)
_PATTERNS = ("OPTIONAL { ?s ?p ?o }", "?zz ?zy ?zx .", "MINUS { ?a ?b ?c }",
             "FILTER NOT EXISTS { ?a ?b ?c }", "{ ?a ?b ?c } UNION { ?d ?e ?f }",
             "BIND(STRDT(\"x\", xsd:dateTime) AS ?bad)", "VALUES ?v { 1 2 3 }",
             "?s (wdt:P31|^wdt:P31)* ?o .", "OPTIONAL { ?a ?b ?c OPTIONAL { ?c ?d ?e } }",
             "FILTER(RAND() < 2)", "{ SELECT * WHERE { ?q ?r ?t } ORDER BY RAND() }",
             "BIND(CONCAT(STR(?s), STR(?s), STR(?s)) AS ?cc)", "?a ?b ?c . ?d ?e ?f .")
_STRING_SUFFIX = r"(?:@[A-Za-z0-9-]+|\^\^(?:<[^<>\s]*>|[\w:]+))?"
_TOKEN = re.compile(r"<[^<>\s]*>|\"(?:[^\"\\\n]|\\.)*\"" + _STRING_SUFFIX
                    + r"|'(?:[^'\\\n]|\\.)*'" + _STRING_SUFFIX + r"|\s+|[{}().;,]|[^\s{}().;,]+")


def mutate_query(query: str, rng: random.Random, steps: int | None = None) -> str:
    """``query`` with a few random token-level edits (see the module docstring)."""
    tokens = [t for t in _TOKEN.findall(query) if not t.isspace()] or ["SELECT"]
    for _ in range(steps or rng.randint(1, 4)):
        op = rng.randrange(10)
        i = rng.randrange(len(tokens))
        braces = [n for n, t in enumerate(tokens) if t == "{"]
        if op >= 4 and braces:
            tokens.insert(rng.choice(braces) + 1, rng.choice(_PATTERNS))
        elif op == 0 and len(tokens) > 1:
            del tokens[i]
        elif op == 1:
            tokens[i:i] = [tokens[i]] * rng.choice((2, 10, 100))
        elif op == 2:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op == 3:
            tokens.insert(i, rng.choice(_FRAGMENTS))
        elif op == 4 and re.fullmatch(r"\d+", tokens[i]):
            tokens[i] = rng.choice(("0", "-1", "99999999999999999999999", "1e999"))
        elif op == 5 and tokens[i].startswith("\""):
            tokens[i] = "\"" + rng.choice(("x" * 100_000, "\\u0000", "2021-02-30")) + "\""
        else:
            tokens.insert(i, rng.choice(("{", "}", "OPTIONAL", "UNION", "FILTER", "?x", "wd:Q5")))
    return " ".join(tokens)


# -- files -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HostileFile:
    family: str
    path: Path
    #: whether the file holds the valid sentinel entity, which a load must keep
    sentinel: bool = False
    #: whether a load must refuse the file as a whole (LoadError)
    refused: bool = False


def _entity(qid: str, **extra: object) -> dict:
    return {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": f"x {qid}"}},
            "claims": {}, **extra}


def _sentinel_json() -> str:
    return json.dumps(_entity(SENTINEL, lastrevid=7))


def _sentinel_nt() -> str:
    return f'<{WD}{SENTINEL}> <{LABEL}> "sentinel"@en .\n'


def _dump(records: list[str]) -> bytes:
    return ("[\n" + ",\n".join(records) + "\n]\n").encode("utf-8")


def hostile_files(folder: Path, *, secret: Path | None = None,
                  url: str = "http://127.0.0.1:9/x") -> list[HostileFile]:
    """Write the hand-made hostile files into ``folder``; ``secret`` is a local file an
    XXE would read, ``url`` where remote references point (a loopback listener, to see
    whether anything connects)."""
    folder.mkdir(parents=True, exist_ok=True)
    secret_uri = (secret or folder / "secret.txt").resolve().as_uri()
    files: list[HostileFile] = []

    def write(name: str, data: bytes | str, family: str, **kw: bool) -> None:
        path = folder / name
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        files.append(HostileFile(family, path, **kw))

    rdf_head = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                'xmlns:ex="http://example.org/">')
    laughs = ['<!ENTITY a "aaaaaaaaaaaaaaaaaaaa">'] + [
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)]
    doctype = "<!DOCTYPE rdf:RDF [\n" + "\n".join(laughs) + "\n]>\n"
    write("laughs.rdf", '<?xml version="1.0"?>\n' + doctype + rdf_head
          + '<rdf:Description rdf:about="http://example.org/s"><ex:p>&j;</ex:p>'
            '</rdf:Description></rdf:RDF>\n', "xml-bomb", refused=True)
    write("laughs-attribute.rdf", '<?xml version="1.0"?>\n' + doctype + rdf_head
          + '<rdf:Description rdf:about="http://example.org/&j;"/></rdf:RDF>\n', "xml-bomb",
          refused=True)
    write("quadratic.rdf", '<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY q "'
          + "x" * 50_000 + '">]>\n' + rdf_head + '<rdf:Description rdf:about="http://x/s">'
          '<ex:p>' + "&q;" * 20_000 + '</ex:p></rdf:Description></rdf:RDF>\n', "xml-bomb",
          refused=True)
    write("many-amps.rdf", '<?xml version="1.0"?>\n' + rdf_head
          + '<rdf:Description rdf:about="http://x/s"><ex:p>' + "&amp;" * 300_000
          + '</ex:p></rdf:Description></rdf:RDF>\n', "xml-text")
    write("xxe-file.rdf", f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM '
          f'"{secret_uri}">]>\n' + rdf_head + '<rdf:Description rdf:about="http://x/s">'
          '<ex:p>&x;</ex:p></rdf:Description></rdf:RDF>\n', "xxe", refused=True)
    write("xxe-url.rdf", f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM '
          f'"{url}">]>\n' + rdf_head + '<rdf:Description rdf:about="http://x/s">'
          '<ex:p>&x;</ex:p></rdf:Description></rdf:RDF>\n', "xxe", refused=True)
    write("xxe-parameter.rdf", f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [<!ENTITY % p SYSTEM '
          f'"{url}"> %p;]>\n' + rdf_head + '</rdf:RDF>\n', "xxe", refused=True)
    write("remote-dtd.rdf", f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF SYSTEM "{url}">\n'
          + rdf_head + f'<rdf:Description rdf:about="{WD}{SENTINEL}"><ex:p>ok</ex:p>'
          '</rdf:Description></rdf:RDF>\n', "network", sentinel=True)
    write("remote-context.jsonld", json.dumps({"@context": url, "@id": "http://x/s",
                                               "name": "x"}), "network", refused=True)
    write("remote-context-nested.jsonld", json.dumps({"@context": [{"ex": "http://x/"}, url],
                                                      "@graph": [{"@id": "ex:s"}]}),
          "network", refused=True)
    write("deep.jsonld", '{"@id": "http://x/s", "http://x/p": ' + "[" * 20_000 + "1"
          + "]" * 20_000 + "}", "nesting")
    write("bom.nt", b"\xef\xbb\xbf" + _sentinel_nt().encode(), "bom", sentinel=True)
    write("bom.json", b"\xef\xbb\xbf" + _dump([_sentinel_json()]), "bom", sentinel=True)
    write("bom.ttl", b"\xef\xbb\xbf" + f'<{WD}{SENTINEL}> <{LABEL}> "s"@en .\n'.encode(), "bom",
          sentinel=True)
    write("nul.nt", f'<{WD}Q1> <{LABEL}> "a\x00b"@en .\n<{WD}Q2> <{LABEL}> "a\\u0000b"@en .\n'
          + _sentinel_nt(), "nul", sentinel=True)
    write("nul.json", _dump([json.dumps(_entity("Q1", labels={"en": {"language": "en",
                                                                   "value": "a\x00b"}})),
                             _sentinel_json()]), "nul", sentinel=True)
    write("nul.ttl", f'<{WD}Q1> <{LABEL}> "a\\u0000b" .\n<{WD}{SENTINEL}> <{LABEL}> "s" .\n',
          "nul", sentinel=True)
    write("ill-typed.nt", "".join(f'<{WD}Q1> <{WDT}P{i}> "{v}"^^<{XSD}{t}> .\n' for i, (v, t) in
                                  enumerate([("abc", "integer"), ("2021-02-30", "date"),
                                             ("1.2.3", "decimal"), ("maybe", "boolean"),
                                             ("300", "byte"), ("24:61:00", "time")], 1))
          + _sentinel_nt(), "ill-typed", sentinel=True)
    write("ill-typed.ttl", f'<{WD}Q1> <{WDT}P1> "2021-02-30"^^<{XSD}date> .\n'
          f'<{WD}{SENTINEL}> <{LABEL}> "s" .\n', "ill-typed", sentinel=True)
    write("overflow.json", _dump([json.dumps(_entity("Q1", lastrevid=2 ** 64)),
                                  json.dumps(_entity("Q2", lastrevid=-(2 ** 70))),
                                  _sentinel_json()]), "overflow", sentinel=True)
    write("wrong-types.json", _dump([
        json.dumps(_entity("Q1", labels=["x"])), json.dumps(_entity("Q2", claims=[1, 2])),
        json.dumps(_entity("Q3", claims={"P31": [{"mainsnak": {"snaktype": "value",
                                                               "property": "P31",
                                                               "datavalue": {"value": 5}}}]})),
        json.dumps({"id": 5}), json.dumps(_entity("Q4", sitelinks="x")),
        json.dumps(_entity("Q5", aliases={"en": "x"})), "[]", "null", "\"x\"",
        json.dumps(_entity("Q6", type="weird")), _sentinel_json()]), "json-shape",
        sentinel=True)
    write("deep.json", _dump(['{"id": "Q1", "type": "item", "claims": ' + "[" * 50_000
                              + "]" * 50_000 + "}", _sentinel_json()]), "nesting",
          sentinel=True)
    write("huge-line.json", _dump([json.dumps(_entity("Q1", descriptions={
        "en": {"language": "en", "value": "x" * 5_000_000}})), _sentinel_json()]),
        "huge", sentinel=True)
    write("invalid-utf8.nt", b'<http://x/s> <http://x/p> "\xff\xfe" .\n'
          + _sentinel_nt().encode(), "encoding")
    write("truncated.nt.gz", gzip.compress((_sentinel_nt() * 1000).encode())[:200],
          "compression")
    write("fake.json.bz2", b"BZh9" + b"\x00" * 100, "compression", refused=True)
    write("empty.nt", b"", "empty", refused=True)
    write("only-bracket.json", b"[\n", "empty", refused=True)
    write("not-entities.json", b'{"a": 1}', "json-shape", refused=True)
    write("bad-iris.nt", f'<{WD}Q1> <not an iri> "x" .\n<x:a b> <{LABEL}> "y" .\n'
          f'<{WD}Q1> <{WDT}P1> <javascript:alert(1)> .\n_:b <{LABEL}> "z"@en-- .\n'
          + _sentinel_nt(), "iri", sentinel=True)
    write("deep.ttl", "@prefix ex: <http://x/> .\nex:s ex:p " + "( " * 5000 + "1" + " )" * 5000
          + " .\n", "nesting")
    write("deep-brackets.ttl", "@prefix ex: <http://x/> .\nex:s ex:p " + "[ ex:p " * 5000
          + "1" + " ]" * 5000 + " .\n", "nesting")
    write("long-literal.ttl", f'<{WD}{SENTINEL}> <{LABEL}> "' + "y" * 3_000_000 + '" .\n',
          "huge")
    return files


def mutate_lines(data: bytes, rng: random.Random, steps: int | None = None) -> bytes:
    """``data`` with a few byte- and line-level edits: bytes flipped, lines repeated,
    cut, swapped, or given hostile values."""
    lines = data.split(b"\n")
    for _ in range(steps or rng.randint(1, 3)):
        if not lines:
            lines = [b""]
        i = rng.randrange(len(lines))
        line = lines[i]
        op = rng.randrange(8)
        if op == 0 and line:
            j = rng.randrange(len(line))
            lines[i] = line[:j] + bytes([rng.randrange(256)]) + line[j + 1:]
        elif op == 1:
            lines[i:i] = [line] * rng.choice((2, 50))
        elif op == 2 and line:
            lines[i] = line[:rng.randrange(len(line))]
        elif op == 3:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 4:
            lines[i] = re.sub(rb"\d+", lambda m: rng.choice(
                (b"18446744073709551616", b"-1", b"0", b"99999999999999999999999")), line,
                count=1)
        elif op == 5:
            lines[i] = line.replace(b'"', rng.choice((b'"\\u0000', b'"\x00', b'"\\uD800',
                                                     b"'")), 1)
        elif op == 6:
            lines[i] = rng.choice((b"\xef\xbb\xbf", b"[", b"]", b"{", b"null", b"",
                                   b"<a> <b> <c> .", b'{"id": "Q1"}')) + line
        else:
            del lines[i]
    return b"\n".join(lines)


# -- running a piece of code in a bounded process ---------------------------------------------

def run_isolated(code: str, *, timeout: float, memory: int = 3 << 30,
                 args: tuple[str, ...] = ()) -> dict:
    """Run ``python -c code`` (this checkout on its path) with at most ``memory`` bytes of
    address space, killed after ``timeout`` seconds: a regression that blows up (as the
    bugs these tests reproduce did) fails its test instead of taking the machine down.
    Returns stdout, stderr, returncode (None when killed) and the seconds it ran."""
    import os
    import resource
    import subprocess
    import sys
    import time

    repo = Path(__file__).resolve().parent.parent

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=repo,
                            env={**os.environ, "PYTHONPATH": str(repo)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=limit)
    try:
        out, err = proc.communicate(timeout=timeout)
        code_ = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        code_ = None
    return {"stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace"),
            "returncode": code_, "seconds": time.monotonic() - started}
