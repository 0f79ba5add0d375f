"""Getting a SPARQL query out of what a language model wrote, repaired where it can be.

``extract_query(reply)`` returns the query and the repairs it took, in order:

``fence``     the query was inside a Markdown code fence (```sparql … ```); the fenced
              block that holds a query is used
``prose``     words around the query ("Here is the query: …", "This returns …") cut off
``quotes``    typographic quotes (“ ” ‘ ’) straightened
``braces``    unclosed ``{`` closed at the end; a stray ``}`` dropped
``trailing``  a stray ``.`` or ``;`` after the query dropped
``prefixes``  PREFIX declarations added for the well-known prefixes used but not declared
              (``wd:``, ``wdt:``, ``p:``, ``rdfs:``, …; Wikidata's own set)

Label slots (``wd:/Douglas Adams/``) are kept as they are: grounding replaces them
(``linking.grounding``). ``NoQueryFound`` is raised when the reply holds no query at all,
with the start of the reply in its message.
"""

from __future__ import annotations

import re

from store.sparql import WIKIDATA_PREFIXES
from store.errors import QueryError

_FENCE = re.compile(r"```[ \t]*([\w-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_START = re.compile(r"(?im)(?:^|(?<=[\s:>`]))(PREFIX\s|BASE\s|SELECT\b|ASK\b|CONSTRUCT\b|"
                    r"DESCRIBE\b)")
_MODIFIER = re.compile(r"\s*(?:GROUP\s+BY\s+[^{}\n]+?|HAVING\s*\([^\n]*\)|ORDER\s+BY\s+"
                       r"[^{}\n]+?|LIMIT\s+\d+|OFFSET\s+\d+)(?=[\s.;]|$)", re.I)
_PREFIX_USE = re.compile(r"(?<![\w<?$/])([A-Za-z][\w-]*):(?=[/\w])")
_DECLARED = re.compile(r"(?i)PREFIX\s+([A-Za-z][\w-]*)?:")
_SLOT = re.compile(r"(?<![\w:])[A-Za-z][\w-]*:/(?:\\.|[^/\\\n])+/")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


class NoQueryFound(QueryError):
    """The model's reply holds no SPARQL query."""


def extract_query(reply: str) -> tuple[str, list[str]]:
    """(query, repairs) from a model's ``reply`` (see the module docstring)."""
    steps: list[str] = []
    text = reply or ""
    fenced = [body for _, body in _FENCE.findall(text) if _START.search(body)]
    if fenced:
        text = fenced[0]
        steps.append("fence")
    straightened = text.translate(_QUOTES)
    if straightened != text:
        steps.append("quotes")
        text = straightened
    start = _START.search(text)
    if start is None:
        head = " ".join((reply or "").split())[:80]
        raise NoQueryFound("the reply holds no SPARQL query", expected="SELECT, ASK, "
                           "CONSTRUCT or DESCRIBE", got=head or "(empty reply)",
                           fix="ask the model again, showing it the expected form")
    query, fixes = _cut(text, start.start())
    if start.start() > 0 and text[:start.start()].strip():
        fixes.insert(0, "prose")
    steps += [f for f in dict.fromkeys(fixes) if f not in steps]
    query, added = _add_prefixes(query)
    if added:
        steps.append("prefixes")
    return query, steps


def _cut(text: str, start: int) -> tuple[str, list[str]]:
    """The query from ``start`` to its last closing brace and solution modifiers, and
    the repairs that took ('braces', 'trailing', 'prose')."""
    depth, seen_open, end, i = 0, False, None, start
    in_string: str | None = None
    in_iri = False
    fixes: list[str] = []
    while i < len(text):
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == in_string:
                in_string = None
        elif in_iri:
            if ch == ">" or ch.isspace():
                in_iri = False
        elif (slot := _SLOT.match(text, i)) is not None:
            i = slot.end()                 # a label slot: its quotes and braces are text
            continue
        elif ch in "\"'":
            in_string = ch
        elif ch == "<" and i + 1 < len(text) and re.match(r"[\w:/#.%-]", text[i + 1]) and \
                re.match(r"<[^\s<>\"]*>", text[i:]):
            in_iri = True
        elif ch == "{":
            depth += 1
            seen_open = True
        elif ch == "}":
            if depth == 0:             # a stray closing brace
                fixes.append("braces")
                text = text[:i] + text[i + 1:]
                continue
            depth -= 1
            if depth == 0:
                end = i + 1
                rest = text[end:]
                m = _MODIFIER.match(rest)
                while m:
                    end += m.end()
                    rest = text[end:]
                    m = _MODIFIER.match(rest)
                if not re.match(r"\s*\{", rest):       # no second group follows
                    break
        i += 1
    if end is None:                    # never closed: close what is open
        body = text[start:].rstrip()
        if not seen_open:
            return body, fixes
        return body + " " + "}" * depth, [*fixes, "braces"]
    tail = text[end:].strip()
    if "}" in tail:
        fixes.append("braces")
    if tail.strip(" \t\r\n}"):
        fixes.append("trailing" if not tail.strip(" \t\r\n}.;") else "prose")
    return text[start:end].strip(), fixes


def _add_prefixes(query: str) -> tuple[str, list[str]]:
    declared = {m.group(1) or "" for m in _DECLARED.finditer(query)}
    body = re.sub(r"<[^<>\s]*>|\"(?:\\.|[^\"\\])*\"", " ", query)
    used = dict.fromkeys(m.group(1) for m in _PREFIX_USE.finditer(body))
    added = [p for p in used if p not in declared and p in WIKIDATA_PREFIXES]
    if not added:
        return query, []
    head = "\n".join(f"PREFIX {p}: <{WIKIDATA_PREFIXES[p]}>" for p in added)
    return f"{head}\n{query}", added
