"""The bundled demo KB: Nobel laureates in physics and chemistry, written by the kgground
authors in the Wikidata JSON dump format (see ``build_demo.py`` for what it holds and how
it is made). ``build_demo_mirror(path)`` loads it into a new mirror."""

from __future__ import annotations

from pathlib import Path

DEMO_KB = Path(__file__).with_name("nobel-demo.json")


def build_demo_mirror(path: str | Path, *, progress: bool = False) -> Path:
    """Create a mirror at ``path`` holding the demo KB (a no-op if it already holds it)."""
    from store.ingest import load
    from store.mirror import Mirror

    with Mirror(path, create=True) as mirror:
        load(mirror, DEMO_KB, progress=progress)
    return Path(path)
