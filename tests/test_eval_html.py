"""The HTML report: self-contained (plots inlined as SVG, no request leaves the page) and
usable in a real browser (Debian's Chromium, headless, driven by Playwright) offline."""

from __future__ import annotations

import os
import re
import shutil
import tempfile

import pytest

from reasoning.eval.html import render_html, write_html
from reasoning.eval.report import build_report, render_text

HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">'
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]


def records(n: int = 40) -> list[dict]:
    out = []
    for i in range(n):
        right = i % 3 != 0
        out.append({
            "kind": "question", "key": f"q{i}", "id": f"q{i}",
            "question": HOSTILE if i == 0 else f"Question number {i}?",
            "lang": "en" if i % 4 else "de", "type": ["single-fact", "count"][i % 2],
            "relation": "P19", "gold": [{"kind": "entity", "value": "Q270",
                                         "labels": ["Warsaw"]}],
            "gold_source": "file", "covered": i % 5 != 0, "predicted": [
                {"kind": "entity", "value": "Q270" if right else "Q1"}],
            "text": "", "free_text": False, "mode": "llm+kb", "consulted": i % 2 == 0,
            "decision": {"gate": "rowen-cl", "consult": i % 2 == 0, "score": i / n},
            "gate_score": i / n, "draft": "Warsaw", "draft_correct": i > n / 2,
            "score": {"precision": float(right), "recall": float(right),
                      "f1": float(right), "exact": right},
            "llm_calls": 19, "kb_calls": 5, "seconds": 0.01 * (1 + i),
            "trace": f"r.traces/q{i}.json", "error": None})
    return out


def report(recs=None):
    return build_report(records() if recs is None else recs,
                        config={"benchmark": "/x/tiny.jsonl", "kb": "mirror:demo",
                                "llm": "simulated:1", "gate": "rowen-cl"})


def test_the_page_is_self_contained(tmp_path):
    page = write_html(report(), tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 3                     # three plots, inlined
    assert not re.search(r"""(src|href)\s*=\s*['"]?(https?:)?//""", page)
    assert "@import" not in page and "url(http" not in page
    assert HOSTILE not in page and "&lt;script&gt;window.__pwned" in page
    assert "How the numbers are computed" in page


def test_runs_without_scores_say_why_there_is_no_consistency_plot():
    recs = [dict(r, gate_score=None, draft_correct=None, decision=None) for r in records(5)]
    page = render_html(report(recs))
    assert page.count("<svg") == 2 and "does not score consistency" in page
    empty = render_html(report([]))
    assert "no questions" in empty and "no latencies recorded" in empty


def test_the_text_table():
    text = render_text(report())
    assert "macro F1 0.650" in text   # 26 of 40 right and "AUROC of the gate score" in text
    assert re.search(r"single-fact\s+20\s+0\.", text)
    assert "language" in text and "relation" in text


@pytest.fixture(scope="module")
def browser():
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: .ci/run installs it")
        pytest.skip("no chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="pip install 'kgground[test]' (playwright)")
    profile = tempfile.mkdtemp(prefix="kgground-chromium-")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def test_the_page_opens_offline_in_a_browser(browser, tmp_path):
    path = write_html(report(), tmp_path / "r.html")
    page = browser.new_page()
    outside, errors = [], []
    url = path.resolve().as_uri()

    def route(r):
        if r.request.url == url or r.request.url.startswith("data:"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()
    page.route("**/*", route)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    assert outside == [] and errors == []
    assert page.evaluate("window.__pwned") is None
    sizes = page.evaluate("[...document.querySelectorAll('figure svg')].map("
                          "s => s.getBoundingClientRect().width)")
    assert len(sizes) == 3 and all(w > 100 for w in sizes)
    visible = "[...document.querySelectorAll('#questions tbody tr')]" \
              ".filter(r => r.style.display !== 'none').length"
    assert page.evaluate(visible) == 40
    page.fill("#filter", "number 1")                   # 1, 10..19
    assert page.evaluate(visible) == 11
    page.fill("#filter", "")
    page.check("#wrong")                               # F1 < 1: every third question
    assert page.evaluate(visible) == 14
    page.close()
