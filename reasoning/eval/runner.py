"""Running an evaluation: questions answered concurrently, each recorded as it finishes,
so that an interrupted run resumes where it stopped.

    run = evaluate(items, answerer, kb, report="out.json", config={...}, workers=4)
    run.report["totals"]["macro_f1"]

Files, beside the report ``out.json``:

- ``out.records.jsonl``: append-only. A header line (``{"kind": "header", "config": …}``)
  and one line per answered question, written (and flushed to disk) the moment it is
  done. Running the same command again skips the questions recorded there; a run with
  other settings (benchmark file or its content, format, languages, KB, models, gate)
  refuses to mix its records in (``ReportMismatch``) unless ``restart`` starts over. A
  line cut short by a crash is dropped and its question asked again.
- ``out.traces/``: one JSON file per question, the answerer's full trace (prompts,
  replies, decision, queries, evidence graph, timings); the record names it.
- ``out.json``: the report (``reasoning.eval.report.build_report``), written at the end
  (atomically) from every record of the run's questions — also when the run is
  interrupted, for what was done.

Errors: a question whose answering raises a kgground error (a query that fails, a
timeout) is recorded with the error and an empty answer (so it scores as unanswered).
Errors that would fail every question — the model cannot be reached or a replay-only
cache lacks a call (``LLMError``), the endpoint is unreachable, the mirror is broken, an
extra is missing — stop the run: what was recorded stays, the error is raised.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.base import KnowledgeBase
from reasoning.eval.answerer import Answerer, Prediction
from reasoning.eval.answers import AnswerItem
from reasoning.eval.gold import GoldInfo, GoldResolver
from reasoning.eval.metrics import score, score_text
from reasoning.eval.readers import EvalItem
from store.errors import (EndpointUnreachable, KGGroundError, LLMError, MirrorError,
                          MissingExtra, ReportMismatch)

if TYPE_CHECKING:                  # imported when a progress bar is shown
    from tqdm import tqdm

RECORDS_VERSION = 1
FATAL = (LLMError, EndpointUnreachable, MirrorError, MissingExtra)


def companion_paths(report: str | Path) -> tuple[Path, Path]:
    """(records file, traces folder) of a report path."""
    report = Path(report)
    stem = report.name[:-len(report.suffix)] if report.suffix else report.name
    return report.with_name(f"{stem}.records.jsonl"), report.with_name(f"{stem}.traces")


def file_digest(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class RecordLog:
    """The append-only records file (see the module docstring). Thread-safe appends."""

    def __init__(self, path: Path, config: Mapping[str, Any], *, restart: bool = False):
        self.path = path
        self.config = dict(config)
        self.records: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        if restart or not path.exists() or path.stat().st_size == 0:
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps({"kind": "header", "version": RECORDS_VERSION,
                                    "config": self.config,
                                    "started": _now()}, ensure_ascii=False) + "\n")
        else:
            self._load()
        self._file = open(path, "a", encoding="utf-8")

    def _load(self) -> None:
        with open(self.path, "rb") as f:
            data = f.read()
        complete = data.rfind(b"\n") + 1
        if complete < len(data):                 # a line cut short: drop it
            with open(self.path, "r+b") as f:
                f.truncate(complete)
            data = data[:complete]
        lines = data.decode("utf-8").splitlines()
        header = json.loads(lines[0]) if lines else {}
        if header.get("kind") != "header":
            raise ReportMismatch(f"{self.path} is not an evaluation records file",
                                 fix="pass another --report, or --restart to overwrite it")
        differs = _differences(header.get("config") or {}, self.config)
        if differs:
            raise ReportMismatch(
                f"{self.path} holds the records of a run with other settings ("
                + "; ".join(differs) + ")",
                fix="resume with the same settings, pass another --report, or --restart "
                    "to discard those records")
        for line in lines[1:]:
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get("kind") == "question":
                self.records[rec["key"]] = rec

    def append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
            self.records[record["key"]] = record

    def reload(self) -> None:
        """Read the records back from the file (after ``close``): the file is the truth. An
        interrupt can land after a record's line is written and before ``records`` holds
        it; the report of an interrupted run must count what a resume will find."""
        self.records = {}
        self._load()

    def close(self) -> None:
        with self._lock:
            self._file.close()


def _differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            out.append(f"{key}: {old.get(key)!r} then, {new.get(key)!r} now")
    return out


@dataclass
class Run:
    """An evaluation's outcome: every record of its questions (in item order), the
    report, and where things were written."""

    records: list[dict[str, Any]]
    report: dict[str, Any]
    report_path: Path
    records_path: Path
    traces_dir: Path
    resumed: int          # questions found already answered
    answered: int         # questions answered by this call
    interrupted: bool = False


class LabelBook:
    """Labels and aliases of gold entities, fetched once, for reading free-text answers."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self._cache: dict[tuple[str, str], tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def labels(self, qid: str, lang: str) -> tuple[str, ...]:
        with self._lock:
            found = self._cache.get((qid, lang))
        if found is not None:
            return found
        try:
            e = self.kb.entity(qid)
            names = [e.label(lang), e.label("en"), *e.aliases.get(lang, ()),
                     *e.aliases.get("en", ())]
            out = tuple(dict.fromkeys(n for n in names if n and n != qid))
        except (KGGroundError, ValueError):
            out = ()
        with self._lock:
            self._cache[(qid, lang)] = out
        return out

    def enrich(self, gold: Sequence[AnswerItem], lang: str) -> list[AnswerItem]:
        return [AnswerItem(g.kind, g.value, tuple(dict.fromkeys(
            (*g.labels, *self.labels(g.value, lang))))) if g.kind == "entity" else g
            for g in gold]


def evaluate(items: Sequence[EvalItem], answerer: Answerer, kb: KnowledgeBase, *,
             report: str | Path, config: Mapping[str, Any], workers: int = 4,
             restart: bool = False, traces: bool = True, progress: bool | None = None,
             gold_timeout: float | None = 30.0,
             gold_of: Callable[[EvalItem], GoldInfo] | None = None,
             on_record: Callable[[dict[str, Any]], None] | None = None) -> Run:
    """Evaluate ``answerer`` on ``items`` over ``kb`` (see the module docstring).
    ``config`` identifies the run (what must match to resume). ``progress``: a progress
    bar on stderr (None: when stderr is a terminal). ``gold_of(item)``: the gold answers
    and coverage (default: ``gold.GoldResolver`` on ``kb`` with ``gold_timeout``), looked
    up after the question is answered."""
    from reasoning.eval.report import build_report, write_json

    report_path = Path(report)
    records_path, traces_dir = companion_paths(report_path)
    log = RecordLog(records_path, config, restart=restart)
    if traces:
        traces_dir.mkdir(parents=True, exist_ok=True)
    keys = {item.key for item in items}
    done = {k for k in log.records if k in keys}
    todo = [item for item in items if item.key not in done]
    labels = LabelBook(kb)
    _warm_up(answerer, todo)
    gold_of = gold_of or GoldResolver(kb, timeout=gold_timeout)

    def one(item: EvalItem) -> dict[str, Any]:
        return _answer_one(item, answerer, gold_of, labels,
                           traces_dir if traces else None, report_path)

    bar = _progress(len(items), len(done), progress)
    answered, interrupted, fatal = _answer_all(todo, one, workers, log, keys, bar,
                                               on_record)
    if interrupted:
        log.reload()
    records = [log.records[item.key] for item in items if item.key in log.records]
    rep = build_report(records, config=config, records_path=records_path,
                       traces_dir=traces_dir if traces else None,
                       complete=len(records) == len(items), total=len(items),
                       labels=property_labels(kb, {r["relation"] for r in records
                                                   if r.get("relation")}))
    write_json(report_path, rep)
    run = Run(records, rep, report_path, records_path, traces_dir, len(done), answered,
              interrupted)
    if fatal is not None:
        raise fatal
    if interrupted:
        raise KeyboardInterrupt
    return run


def _warm_up(answerer: Answerer, todo: Sequence[EvalItem]) -> None:
    """Let ``answerer`` warm up (its ``warm_up``, where it has one) on the first question
    to answer in each language."""
    warm = getattr(answerer, "warm_up", None)
    if warm is not None and todo:
        firsts: dict[str, str] = {}
        for item in todo:
            firsts.setdefault(item.lang, item.question)
        for lang, question in firsts.items():
            warm(lang, question)


def _answer_one(item: EvalItem, answerer: Answerer, gold_of: Callable[[EvalItem], GoldInfo],
                labels: LabelBook, traces_dir: Path | None, report_path: Path
                ) -> dict[str, Any]:
    """The record of one question: answered (a KB failure recorded as the error, a fatal
    one raised), timed, then scored against its gold; its trace written to
    ``traces_dir`` (none when None) and named relative to the report's folder."""
    start = time.perf_counter()
    error = None
    try:
        prediction = answerer.answer(item.question, item.lang)
    except FATAL:
        raise
    except KGGroundError as exc:
        prediction, error = Prediction(mode="error"), f"{type(exc).__name__}: {exc}"
    seconds = time.perf_counter() - start
    gold = gold_of(item)          # after answering: its lookups warm no cache before
    record = build_record(item, gold, prediction, seconds, error, labels)
    if traces_dir is not None and prediction.trace is not None:
        path = traces_dir / trace_name(item.key)
        _write_atomic(path, json.dumps(prediction.trace, ensure_ascii=False,
                                       default=str))
        record["trace"] = str(path.relative_to(report_path.parent)) \
            if path.is_relative_to(report_path.parent) else str(path)
    return record


def _answer_all(todo: Sequence[EvalItem], one: Callable[[EvalItem], dict[str, Any]],
                workers: int, log: RecordLog, keys: set[str], bar: tqdm | None,
                on_record: Callable[[dict[str, Any]], None] | None
                ) -> tuple[int, bool, BaseException | None]:
    """Answer ``todo`` with ``one`` on ``workers`` threads (at most twice as many questions
    in flight), appending the records to ``log`` in question order as they finish. Stops
    taking questions at the first fatal error, and at Ctrl-C cancels what waits. Closes
    ``bar`` and ``log``. Returns (records appended, interrupted, the fatal error or None).
    """
    interrupted = False
    fatal: BaseException | None = None
    answered = 0
    pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="kgground-eval")
    pending: set[Future] = set()
    order: dict[Future, int] = {}
    queue = iter(todo)
    try:
        while True:
            while fatal is None and len(pending) < max(1, workers) * 2:
                next_item = next(queue, None)
                if next_item is None:
                    break
                future = pool.submit(one, next_item)
                order[future] = len(order)
                pending.add(future)
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in sorted(finished, key=order.__getitem__):  # records in question order
                try:
                    record = f.result()
                except FATAL as exc:
                    fatal = fatal or exc
                    continue
                log.append(record)
                answered += 1
                if on_record is not None:
                    on_record(record)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix_str(_running_f1(log.records, keys), refresh=False)
    except KeyboardInterrupt:
        interrupted = True
        for f in pending:
            f.cancel()
    finally:
        # interrupted: the questions still being answered (blocked on a model or an
        # endpoint, maybe for minutes) are left to die with the process; only this thread
        # writes records, so nothing they do can reach the run's files but their traces
        pool.shutdown(wait=not interrupted, cancel_futures=True)
        if bar is not None:
            bar.close()
        log.close()
    return answered, interrupted, fatal


def property_labels(kb: KnowledgeBase, pids: Any) -> dict[str, str]:
    """The English label of each of ``pids`` the KB has (``property_info``; a KB that
    cannot say, or an endpoint that fails, leaves the ID alone)."""
    out = {}
    for pid in sorted(pids):
        try:
            label = kb.property_info(pid).label
        except (KGGroundError, ValueError, AttributeError):
            continue
        if label and label != pid:
            out[pid] = label
    return out


def build_record(item: EvalItem, gold: GoldInfo, p: Prediction, seconds: float,
                 error: str | None, labels: LabelBook) -> dict[str, Any]:
    """One question's record: what was asked, the gold, the prediction and its score."""
    s = draft_score = None
    if gold.answers is not None:
        golds = list(gold.answers)
        # words are read by label: the gold entities' names and aliases from the KB
        enriched = labels.enrich(golds, item.lang) if p.free_text or p.draft else golds
        s = score_text(p.text, enriched) if p.free_text else score(p.answers, golds)
        if p.draft is not None:
            draft_score = score_text(p.draft, enriched)
    return {
        "kind": "question", "key": item.key, "id": item.id, "question": item.question,
        "lang": item.lang, "type": item.type, "answer_type": item.answer_type,
        "relation": item.relation,
        "gold": [g.as_dict() for g in gold.answers] if gold.answers is not None else None,
        "gold_source": gold.source, "gold_error": gold.error,
        "covered": gold.covered, "coverage_how": gold.coverage_how,
        "predicted": [a.as_dict() for a in p.answers], "text": p.text,
        "free_text": p.free_text, "mode": p.mode, "consulted": p.consulted,
        "decision": dict(p.decision) if p.decision else None, "gate_score": p.gate_score,
        "draft": p.draft,
        "draft_correct": (draft_score.f1 >= 0.5) if draft_score is not None else None,
        "score": s.as_dict() if s is not None else None,
        "answered": bool(p.answers) or (p.free_text and bool(p.text.strip())),
        "grounded": p.grounded, "confidence": p.confidence,
        "llm_calls": p.llm_calls, "kb_calls": p.kb_calls, "seconds": round(seconds, 6),
        "trace": None, "error": error,
    }


def trace_name(key: str) -> str:
    safe = re.sub(r"[^\w.-]+", "_", key)[:80]
    return f"{safe}-{hashlib.sha1(key.encode()).hexdigest()[:8]}.json"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _running_f1(records: Mapping[str, Mapping[str, Any]], keys: set[str]) -> str:
    fs = [r["score"]["f1"] for k, r in records.items() if k in keys and r.get("score")]
    return f"F1 {sum(fs) / len(fs):.3f}" if fs else ""


def _progress(total: int, initial: int, enabled: bool | None) -> tqdm | None:
    import sys

    from tqdm import tqdm

    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return None
    return tqdm(total=total, initial=initial, unit="q", desc="eval", file=sys.stderr,
                dynamic_ncols=True)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


__all__ = ["Run", "RecordLog", "companion_paths", "evaluate", "file_digest",
           "trace_name"]
