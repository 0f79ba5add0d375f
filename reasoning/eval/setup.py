"""Setting an evaluation up: what ``evaluate`` needs, from a benchmark file and a run's
options — the questions in the languages asked for, the gold resolver, the models, the
report's path and the configuration recorded in it — so that ``kgground eval`` only parses,
calls and prints, and a script runs the same evaluation::

    with Session("slice.sqlite") as session:
        setup = prepare("qald7-test.jsonl", session, llm_spec="openai:gpt-4o-mini",
                        gate="rowen-cl")
        run = setup.run(workers=4)
    print(render_text(run.report))

The run's parts are the ``reasoning.Session``'s: its KB, its one linker (shared by the
Grounders of every question language), and its models — those it holds, or those built
from ``llm_spec``/``verifier_spec``, which become the session's. A plain KB instead of a
session gets a session of its own (``setup.session``; closing it leaves the KB open).

Without an LLM the KB answers alone (setting ``kb-only``); a gate other than ``auto`` or
``always`` then has nothing to ask. A simulated model without a catalog learns the
benchmark's own one-fact questions (``reasoning.eval.catalog``). Options that cannot work
together raise ``EvalSetupError`` before anything runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.base import KnowledgeBase
from reasoning.eval.answerer import GrounderAnswerer
from reasoning.eval.gold import GoldResolver
from reasoning.eval.readers import EvalItem, read_items
from reasoning.eval.runner import Run, evaluate, file_digest
from reasoning.grounder import Grounder
from reasoning.llm import LLM, FactCatalog, llm_from_spec
from reasoning.session import Session
from store.errors import EvalError

#: ``open_models(llm_spec, verifier_spec, *, llm_cache, replay, catalog)`` → (model,
#: verifier): how the models of a run are built (``kgground eval`` passes the CLI's, which
#: also reads $KGGROUND_THREADS)
ModelOpener = Callable[..., tuple[LLM | None, LLM | None]]


class EvalSetupError(EvalError, ValueError):
    """An evaluation's options cannot work together (or its file holds no question asked
    for); nothing has run."""


@dataclass
class EvalSetup:
    """A prepared evaluation: ``run`` answers ``items`` with ``Grounder.ask`` (one Grounder
    per question language, each from ``session``) and writes the report at ``report``."""

    items: list[EvalItem]
    session: Session
    gold_of: GoldResolver
    gate: str
    checker: str
    report: Path
    config: dict[str, Any]

    @property
    def kb(self) -> KnowledgeBase:
        return self.session.kb

    @property
    def llm(self) -> LLM | None:
        return self.session.llm

    @property
    def verifier(self) -> LLM | None:
        return self.session.verifier

    def grounder(self, lang: str) -> Grounder:
        return self.session.grounder(gate=self.gate, checker=self.checker, lang=lang)

    def run(self, *, workers: int = 4, restart: bool = False, traces: bool = True,
            progress: bool | None = None) -> Run:
        return evaluate(self.items, GrounderAnswerer(self.grounder), self.kb,
                        report=self.report, config=self.config, workers=workers,
                        restart=restart, traces=traces, progress=progress,
                        gold_of=self.gold_of)


def setting_name(llm_spec: str | None, verifier_spec: str | None, gate: str) -> str:
    """The run's setting as a file-name part: ``kb-only``, else model, gate and verifier."""
    if not llm_spec:
        return "kb-only"
    name = f"{llm_spec}-{gate}" + (f"-v-{verifier_spec}" if verifier_spec else "")
    return re.sub(r"[^\w.-]+", "_", name)[:80]


def prepare(file: str | Path, session: Session | KnowledgeBase, *, fmt: str = "auto",
            languages: Sequence[str] | None = ("en",), limit: int | None = None,
            sample: int | None = None, seed: int = 0, llm_spec: str | None = None,
            verifier_spec: str | None = None, llm_cache: str | None = None,
            replay: bool = False, catalog: str | None = None, gate: str = "auto",
            checker: str = "llm", report: str | Path | None = None,
            gold_timeout: float = 30.0,
            open_models: ModelOpener | None = None) -> EvalSetup:
    """The evaluation of the benchmark ``file`` with ``session``'s KB, linker and models
    (or on a KB; see the module docstring). ``languages`` None: every language the file
    has. ``report`` defaults to
    ``FILE-STEM.SETTING.eval.json`` in the working directory; with a model and no
    ``llm_cache``, the model's calls are recorded beside the report (a rerun replays
    them)."""
    path = Path(file)
    if not path.is_file():
        raise EvalSetupError(f"{file} is not a file", fix="give a benchmark file")
    items = read_items(path, fmt, languages=list(languages) if languages else None,
                       limit=limit, sample=sample, seed=seed)
    if not items:
        raise EvalSetupError(f"{file} has no question in the languages asked for "
                             f"({','.join(languages or ())})", fix="try --languages all")
    if not isinstance(session, Session):
        session = Session(session)
    kb = session.kb
    if session.llm is not None:
        if llm_spec or verifier_spec:
            raise EvalSetupError("the session holds a model already: give model specs or "
                                 "a session with models, not both")
        llm_spec, verifier_spec = _model_name(session.llm), (
            _model_name(session.verifier) if session.verifier is not None else None)
    has_llm = bool(llm_spec and llm_spec.strip().lower() != "none")
    if not has_llm and gate not in ("auto", "always"):
        raise EvalSetupError(f"--gate {gate} asks a model: pass --llm (without one the KB "
                             "answers alone)")
    llm_spec = llm_spec if has_llm else None
    setting = setting_name(llm_spec, verifier_spec, gate)
    report_path = Path(report) if report else Path(f"{path.stem}.{setting}.eval.json")
    if has_llm and not llm_cache:
        llm_cache = str(report_path.with_name(report_path.stem + ".llm-cache.sqlite"))
        report_path.parent.mkdir(parents=True, exist_ok=True)
    gold_of = GoldResolver(kb, timeout=gold_timeout)
    catalog_used = None
    if session.llm is None and llm_spec:
        session.llm, session.verifier, catalog_used = _models(
            llm_spec, verifier_spec, llm_cache, replay, catalog, items, gold_of, kb,
            open_models or _open_models)
    config: dict[str, Any] = {
        "benchmark": str(path.resolve()), "benchmark_sha256": file_digest(path),
        "format": fmt, "languages": list(languages) if languages else None,
        "kb": kb.name, "llm": llm_spec,
        "verifier": verifier_spec if has_llm else None,
        "gate": gate if has_llm else "kb-only", "checker": checker if has_llm else None,
        "catalog": catalog_used}
    if sample:          # (absent otherwise: the records of earlier runs stay resumable)
        config["sample"] = {"questions": sample, "seed": seed, "of_first": limit}
    return EvalSetup(items, session, gold_of, gate, checker, report_path, config)


def _model_name(llm: LLM) -> str:
    """A model the session holds, as the run's setting names it."""
    return llm.model or type(llm).__name__


def _open_models(llm_spec: str | None, verifier_spec: str | None = None, *,
                 llm_cache: str | None = None, replay: bool = False,
                 catalog: str | None = None) -> tuple[LLM | None, LLM | None]:
    """The models of the specs, sharing one simulated catalog (read from ``catalog``)."""
    facts = FactCatalog.from_jsonl(catalog) if catalog else None
    return _from_specs(llm_spec, verifier_spec, facts, llm_cache, replay)


def _from_specs(llm_spec: str | None, verifier_spec: str | None, facts: FactCatalog | None,
                llm_cache: str | None, replay: bool) -> tuple[LLM | None, LLM | None]:
    """The model and the verifier of the specs (None where a spec is), sharing ``facts``
    and the call cache."""
    mode = "replay" if replay else "auto"
    return (llm_from_spec(llm_spec, catalog=facts, cache=llm_cache, cache_mode=mode),
            llm_from_spec(verifier_spec, catalog=facts, cache=llm_cache, cache_mode=mode)
            if verifier_spec else None)


def _models(llm_spec: str | None, verifier_spec: str | None, llm_cache: str | None,
            replay: bool, catalog: str | None, items: list[EvalItem], gold_of: GoldResolver,
            kb: KnowledgeBase, open_models: ModelOpener
            ) -> tuple[LLM | None, LLM | None, str | None]:
    """(model, verifier, the catalog used). A simulated model without ``catalog`` lives in
    the benchmark's own one-fact questions."""
    if not llm_spec:
        return None, None, None
    specs = [s for s in (llm_spec, verifier_spec) if s]
    simulated = any(s.strip().lower().startswith("simulated") for s in specs)
    if not simulated or catalog:
        llm, verifier = open_models(llm_spec, verifier_spec, llm_cache=llm_cache,
                                    replay=replay, catalog=catalog)
        return llm, verifier, str(Path(catalog).resolve()) if catalog else None
    from reasoning.eval.catalog import catalog_rows
    from reasoning.llm.simulated import popularity_from_kb

    rows = catalog_rows(items, gold_of, kb)
    if not rows:
        raise EvalSetupError("a simulated model needs facts, and no question of this "
                             "benchmark asks for one fact with known gold answers",
                             fix="pass --catalog FILE (e.g. a slice-qa file)")
    facts = FactCatalog.from_rows(rows, popularity=popularity_from_kb(kb))
    llm, verifier = _from_specs(llm_spec, verifier_spec, facts, llm_cache, replay)
    return llm, verifier, f"the benchmark's one-fact questions ({len(rows)})"
