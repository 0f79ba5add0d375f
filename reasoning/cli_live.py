"""Command-line options for the live endpoint, shared by the commands that read a KB.

``live_options`` adds ``--endpoint URL``, ``--offline`` and ``--no-cache`` to a command;
``open_kb_with(db, endpoint, offline, no_cache)`` opens what they describe:

- neither ``--endpoint`` nor ``$KGGROUND_ENDPOINT``: the mirror (``--db``, else
  ``$KGGROUND_DB``, else the demo mirror), as before;
- ``--endpoint URL`` and a mirror named by ``--db`` or ``$KGGROUND_DB``: the mirror first,
  the endpoint on a miss, answers written back into the mirror (``FallbackKB``);
- ``--endpoint URL`` alone: the endpoint itself (``SparqlEndpointKB``);
- ``--offline``: the live side is off — the mirror answers alone, and says so on a miss.
  ``--offline`` with an endpoint and no mirror is a usage error (nothing could answer).

``--endpoint wikidata`` is short for https://query.wikidata.org/sparql. ``--no-cache``
bypasses the on-disk cache of endpoint answers. The contact sent in the User-Agent is
``$KGGROUND_CONTACT``.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import click

ENDPOINT_ALIASES = {"wikidata": "https://query.wikidata.org/sparql",
                    "wdqs": "https://query.wikidata.org/sparql"}

endpoint_option = click.option(
    "--endpoint", metavar="URL", envvar="KGGROUND_ENDPOINT",
    help="Live SPARQL endpoint to ask when the mirror does not know the answer ('wikidata' "
         "for query.wikidata.org); with no --db or $KGGROUND_DB, ask it directly "
         "[default: $KGGROUND_ENDPOINT].")
offline_option = click.option(
    "--offline", is_flag=True, help="Never contact a live endpoint: answer from the mirror.")
no_cache_option = click.option(
    "--no-cache", "no_cache", is_flag=True,
    help="Do not use (or fill) the on-disk cache of endpoint answers.")


def live_options(fn: Callable) -> Callable:
    """Add --endpoint, --offline and --no-cache to a click command."""
    return endpoint_option(offline_option(no_cache_option(fn)))


def endpoint_url(endpoint: str) -> str:
    """An --endpoint value → the endpoint URL (aliases expanded, the scheme checked)."""
    url = ENDPOINT_ALIASES.get(endpoint.strip().lower(), endpoint.strip())
    if not url.lower().startswith(("http://", "https://")):
        raise click.BadParameter(f"{endpoint!r} is not an http(s) URL "
                                 f"(or one of: {', '.join(ENDPOINT_ALIASES)})",
                                 param_hint="--endpoint")
    return url


def open_kb_with(db: str | None, endpoint: str | None, offline: bool = False,
                 no_cache: bool = False) -> Any:
    """The KB that --db/--endpoint/--offline/--no-cache describe (see the module docstring)."""
    import kb
    from kb.endpoint import SparqlEndpointKB
    from reasoning.cli import resolve_db

    if not endpoint:
        return kb.open(resolve_db(db))
    live = SparqlEndpointKB(endpoint_url(endpoint), no_cache=no_cache)
    mirror = db or os.environ.get("KGGROUND_DB")
    if not mirror:
        if offline:
            raise click.UsageError("--offline with --endpoint and no mirror leaves nothing "
                                   "to answer: pass --db PATH (or drop --offline)")
        return live
    return kb.open(mirror, live=live, offline=offline)
