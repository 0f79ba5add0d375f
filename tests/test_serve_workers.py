"""``kgground serve --workers N``: N queries run on the KB at once, never more."""

from __future__ import annotations

import threading
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from kb.mirror import MirrorKB
from kb.sparql_server import running_server as running

QUERY = "ASK { wd:Q937 wdt:P108 ?o }"


class GatedKB:
    """The demo KB, except that every query waits at a gate the test opens, counting how
    many queries are inside the KB at once (``peak``)."""

    def __init__(self, base: MirrorKB, expected: int) -> None:
        self.base, self.name = base, base.name
        self.expected, self.inside, self.peak = expected, 0, 0
        self.lock = threading.Lock()
        self.all_inside, self.gate = threading.Event(), threading.Event()

    def sparql(self, query: str, *, timeout: float | None = None) -> object:
        with self.lock:
            self.inside += 1
            self.peak = max(self.peak, self.inside)
            if self.inside >= self.expected:
                self.all_inside.set()
        try:
            self.gate.wait(30)
            return self.base.sparql(query, timeout=timeout)
        finally:
            with self.lock:
                self.inside -= 1


@pytest.fixture(scope="module")
def demo_kb(demo_mirror_path: Path) -> Iterator[MirrorKB]:
    base = MirrorKB(demo_mirror_path)
    yield base
    base.close()


def ask(url: str, statuses: list[int]) -> None:
    target = url + "?" + urllib.parse.urlencode({"query": QUERY})
    with urllib.request.urlopen(target, timeout=30) as reply:
        statuses.append(reply.status)


def send(url: str, count: int, statuses: list[int]) -> list[threading.Thread]:
    threads = [threading.Thread(target=ask, args=(url, statuses)) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads


def release(gated: GatedKB, threads: list[threading.Thread]) -> None:
    """Open the gate and wait for every request to be answered."""
    gated.gate.set()
    for thread in threads:
        thread.join(30)


def test_n_workers_run_n_queries_at_once(demo_kb: MirrorKB) -> None:
    gated, statuses = GatedKB(demo_kb, expected=3), []
    with running(gated, workers=3, timeout=30, max_pending=8) as server:
        threads = send(server.url, 3, statuses)
        try:
            assert gated.all_inside.wait(10), f"only {gated.peak} of 3 queries ran at once"
        finally:
            release(gated, threads)
    assert statuses == [200, 200, 200]
    assert gated.peak == 3


def test_one_worker_runs_one_query_at_a_time(demo_kb: MirrorKB) -> None:
    gated, statuses = GatedKB(demo_kb, expected=2), []
    with running(gated, workers=1, timeout=30, max_pending=8) as server:
        threads = send(server.url, 3, statuses)
        try:
            # a second query inside the KB would set the event; one worker must not let it
            assert not gated.all_inside.wait(1.0)
        finally:
            release(gated, threads)
    assert statuses == [200, 200, 200]
    assert gated.peak == 1
