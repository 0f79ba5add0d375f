"""The bundled demo KB: Nobel laureates in physics and chemistry, written by the kgground
authors in the Wikidata JSON dump format (see ``build_demo.py`` for what it holds and how
it is made). ``build_demo_mirror(path)`` loads it into a new mirror; ``stale_demo_mirror``
tells whether a mirror holding only the demo KB was built by another kgground version."""

from __future__ import annotations

from pathlib import Path

DEMO_KB = Path(__file__).with_name("nobel-demo.json")
#: questions about the demo KB's laureates with their answers, the fact catalog of a
#: simulated LLM on the demo KB (written by ``bench/make_demo_questions.py``)
DEMO_QUESTIONS = Path(__file__).with_name("nobel-demo-questions.jsonl")


def build_demo_mirror(path: str | Path, *, progress: bool = False) -> Path:
    """Create a mirror at ``path`` holding the demo KB (a no-op if it already holds it)."""
    from store.ingest import load
    from store.mirror import Mirror

    with Mirror(path, create=True) as mirror:
        load(mirror, DEMO_KB, progress=progress)
    return Path(path)


def unfinished_demo_mirror(path: str | Path) -> bool:
    """Whether ``path`` is a mirror whose build from the demo KB was interrupted (its load
    is still marked as loading): ``build_demo_mirror`` then finishes it."""
    import sqlite3

    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT location, status FROM sources").fetchall()
    except sqlite3.Error:
        return False
    return any(Path(loc).name == DEMO_KB.name and status != "complete"
               for loc, status in rows)


def stale_demo_mirror(path: str | Path) -> bool:
    """Whether ``path`` is a mirror that holds only the demo KB and was built with another
    mirror schema or label normalizer than this kgground's: it can then be deleted and
    built again, nothing else being in it. False for anything else, including a file that
    is not a mirror."""
    import sqlite3

    from store.normalize import NORMALIZER_VERSION
    from store.schema import SCHEMA_VERSION

    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            locations = [row[0] for row in conn.execute("SELECT location FROM sources")]
    except sqlite3.Error:
        return False
    only_demo = bool(locations) and all(Path(loc).name == DEMO_KB.name for loc in locations)
    current = (meta.get("schema_version"), meta.get("normalizer")) == (SCHEMA_VERSION,
                                                                        NORMALIZER_VERSION)
    return only_demo and not current
