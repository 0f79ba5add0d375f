"""One lexicon per language (``linking.lexicon``): an English word list is defined there and
nowhere else, so that the packages cannot drift apart on what a function word, a question
word or a place word is. The lists other languages gloss questions with live in
``querygen.languages``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import linking.lexicon
from linking.lexicon import LEXICONS, LanguageLexicon

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ["store", "kb", "linking", "querygen", "chains", "reasoning"]
#: where word lists belong: the lexicons, and the other languages' glossaries
LEXICON_DIRS = [REPO / "linking" / "lexicon", REPO / "querygen" / "languages"]
#: a list of at least this many lower-case words is a word list
MIN_WORDS = 10
_WORD = re.compile(r"^[a-z][a-z'-]*$")

#: word lists still defined outside the lexicon, each with why. This list may only shrink.
ALLOWED = {
    # the lead is changing these modules (issue 31): move their lists when they are free
    "querygen/answer_types.py": {"PLACE_CLASS_WORDS", "AGENT_CLASS_WORDS",
                                 "THING_CLASS_WORDS"},
    "querygen/direction.py": {"_PREPOSITIONS", "_NOT_AGENTS", "_PARTICIPLES"},
    # names of the demo mirror's capital cities: data below linking, not English words
    "store/demo/build_demo.py": {"CAPITALS"},
}


def _words(node: ast.expr) -> list[str] | None:
    """The string words a literal word-list expression spells: ``frozenset("a b".split())``,
    ``{"a", "b"}``, a tuple or list of strings, ``set(...)``, and unions of them."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("frozenset", "set") and node.args:
        return _words(node.args[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "split" and isinstance(node.func.value, ast.Constant) \
            and isinstance(node.func.value.value, str):
        return node.func.value.value.split()
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    if isinstance(node, ast.BinOp):
        left, right = _words(node.left), _words(node.right)
        if left is not None or right is not None:
            return (left or []) + (right or [])
    return None


def word_lists(source: str) -> list[tuple[int, str]]:
    """(line, name) of every assignment in ``source`` whose value is a literal list of at
    least ``MIN_WORDS`` lower-case words."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        words = _words(value)
        if words and sum(1 for w in words if _WORD.match(w)) >= MIN_WORDS:
            found.append((node.lineno, ast.unparse(target)))
    return found


def stray_word_lists() -> list[str]:
    stray = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if any(path.is_relative_to(d) for d in LEXICON_DIRS):
                continue
            rel = path.relative_to(REPO).as_posix()
            for line, name in word_lists(path.read_text(encoding="utf-8")):
                if name not in ALLOWED.get(rel, set()):
                    stray.append(f"{rel}:{line} {name}")
    return stray


def test_english_word_lists_live_in_the_lexicon():
    assert stray_word_lists() == [], "define word lists in linking/lexicon/en.py"


def test_the_allow_list_names_only_lists_that_exist():
    for rel, names in ALLOWED.items():
        found = {name for _, name in word_lists((REPO / rel).read_text(encoding="utf-8"))}
        assert names <= found, f"{rel}: {names - found} gone: take them off ALLOWED"


def test_the_scan_sees_the_forms_a_word_list_takes():
    source = '''
A = frozenset("""a b c d e f g h i j""".split())
B = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
C: tuple[str, ...] = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
D = frozenset("a b c d e".split()) | {"f", "g", "h", "i", "j"}
E = frozenset("a b c".split())
F = ("A B C D E F G H I J K".split())
'''
    assert [name for _, name in word_lists(source)] == ["A", "B", "C", "D"]


def test_the_english_lexicon_fills_the_interface():
    english: LanguageLexicon = LEXICONS["en"]
    assert "the" in english.STOPWORDS and "who" in english.QUESTION_WORDS
    assert english.stem("speaks") == "speak"
    assert english.content_words("who wrote the hobbit in 1937") == ["wrote", "hobbit"]
    for name in LanguageLexicon.__annotations__:
        assert getattr(english, name), name
    # the names the package has always offered are the English lexicon's
    assert linking.lexicon.STOPWORDS is english.STOPWORDS
