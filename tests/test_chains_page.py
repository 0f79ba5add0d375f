"""The interactive evidence page in a real browser: Debian's Chromium, headless, driven by
Playwright's Python package, with no network (every request that is not the page itself
is refused and recorded) and the flags that stop Chromium's own background connections.

A screenshot of the page (after clicking the hostile node) is kept in
``test-artifacts/chains-page.png`` (or ``$KGGROUND_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

import chains
import kb

LIBRARY = Path(__file__).parent / "data" / "chains-library.ttl"
EX = "http://example.org/lib/"
HOSTILE = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2"> '
           'Press')
ARTIFACTS = Path(os.environ.get("KGGROUND_TEST_ARTIFACTS",
                                Path(__file__).resolve().parent.parent / "test-artifacts"))
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: .ci/run installs it")
        pytest.skip("no chromium (apt-get install chromium)")
    return path


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="pip install 'kgground[test]' (playwright)")
    profile = tempfile.mkdtemp(prefix="kgground-chromium-")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True,
            args=CHROMIUM_FLAGS,           # the fresh profile is Chromium's --user-data-dir
            viewport={"width": 1400, "height": 850})
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


class Page:
    """A page opened offline: ``outside`` lists every request to anything but the page."""

    def __init__(self, context, path: Path):
        self.page = context.new_page()
        self.outside: list[str] = []
        self.errors: list[str] = []
        page_url = path.resolve().as_uri()

        def route(r):
            if r.request.url == page_url or r.request.url.startswith("data:"):
                r.continue_()
            else:
                self.outside.append(r.request.url)
                r.abort()
        self.page.route("**/*", route)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.goto(page_url)
        self.page.wait_for_selector("body[data-ready=true]", state="attached", timeout=30_000)

    def js(self, expression: str, arg=None):
        return self.page.evaluate(expression, arg)

    def click_node(self, index: int) -> None:
        """Click where the network drew node ``index`` (a real mouse click on the canvas)."""
        x, y = self.js("""(i) => {
            const n = window.evidenceNetwork, p = n.getPositions([i])[i];
            const d = n.canvasToDOM(p), r = document.getElementById('graph')
                .getBoundingClientRect();
            return [r.left + d.x, r.top + d.y]; }""", index)
        self.page.mouse.click(x, y)


def _check_rendered(page: Page, ev) -> None:
    g = ev.graph
    assert page.js("window.evidenceNetwork.body.data.nodes.length") == g.number_of_nodes()
    assert page.js("window.evidenceNetwork.body.data.edges.length") == g.number_of_edges()
    positions = page.js("""() => Object.values(window.evidenceNetwork.getPositions())
        .filter(p => Number.isFinite(p.x) && Number.isFinite(p.y)).length""")
    assert positions == g.number_of_nodes()
    listed = page.js("[...document.querySelectorAll('#nodes li')].map(li => li.textContent)")
    assert sorted(listed) == sorted(d["label"] for _, d in g.nodes(data=True))
    shown = page.js("[...document.querySelectorAll('#chains li .text')].map(x => x.textContent)")
    assert shown == [c.text for c in ev.chains]
    assert page.outside == [] and page.errors == []


def test_page_offline_with_hostile_labels_as_text(browser, tmp_path):
    library = kb.open(LIBRARY)
    ev = chains.build_evidence("Who published the books Ada Quill wrote?", library,
                               entities=[EX + "ada"], hops=3, top=6)
    assert HOSTILE in {d["label"] for _, d in ev.graph.nodes(data=True)}
    path = chains.write_html(ev, tmp_path / "library.html")
    page = Page(browser, path)
    _check_rendered(page, ev)
    # the page's own three (timing marks, vis-network, the page), and no other
    assert page.js("document.scripts.length") == 3
    assert page.js("document.querySelectorAll('img').length") == 0
    assert page.js("typeof window.__pwned") == "undefined"

    index = list(ev.graph).index(EX + "pub")
    page.click_node(index)
    info = page.page.locator("#info")
    assert info.get_attribute("data-node") == EX + "pub"
    assert info.locator("h3").text_content() == HOSTILE
    cites = info.locator(".citation")
    assert cites.count() == ev.graph.degree(EX + "pub") > 0
    assert f"source: rdf:{LIBRARY.resolve()}" in cites.first.text_content()
    links = info.locator(".citation a")
    assert {links.nth(i).get_attribute("href") for i in range(links.count())} <= {
        EX + n for n in ("pub", "harbour", "salt")}
    assert page.js("document.querySelectorAll('#info script, #info img').length") == 0
    assert page.js("typeof window.__pwned") == "undefined"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.screenshot(path=str(ARTIFACTS / "chains-page.png"))

    page.page.locator("#chains li").first.click()
    assert info.get_attribute("data-chain") == "1"
    assert info.locator(".statement").count() == ev.chains[0].hops
    assert page.outside == [] and page.errors == []


def test_page_of_a_demo_question_links_citations_to_wikidata(browser, tmp_path,
                                                            demo_mirror_path,
                                                            tmp_path_factory):
    from linking import EntityLinker
    copy = tmp_path_factory.mktemp("chains-demo") / "demo.sqlite"
    shutil.copy(demo_mirror_path, copy)             # linking builds its sidecar beside it
    demo = kb.open(copy)
    ev = chains.build_evidence("Where was Marie Curie born?", demo, EntityLinker(demo))
    path = chains.write_html(ev, tmp_path / "curie.html")
    page = Page(browser, path)
    _check_rendered(page, ev)
    page.click_node(list(ev.graph).index("Q270"))          # Warsaw, the best answer
    info = page.page.locator("#info")
    assert info.get_attribute("data-node") == "Q270"
    hrefs = [a.get_attribute("href") for a in info.locator(".citation a").all()]
    cite = ev.citations[0]
    assert cite.url in hrefs and cite.url.startswith("https://www.wikidata.org/wiki/Q7186#")
    assert "[1]" in info.locator(".citation").first.text_content() or any(
        "[1]" in c.text_content() for c in info.locator(".citation").all())
    # a node from the list: the same details without hunting on the canvas
    page.page.locator("#nodes li[data-node='Q7186'] button").click()
    assert info.get_attribute("data-node") == "Q7186"
    assert page.outside == [] and page.errors == []


def test_large_page_is_laid_out_before_it_opens(browser, tmp_path, demo_mirror_path):
    """Above chains.html.LARGE nodes the layout comes with the page (no physics to wait
    for): every node is drawn where it was placed, inside the canvas once fitted."""
    from chains.html import LARGE
    from chains.search import Limits
    demo = kb.open(demo_mirror_path)
    ev = chains.expand_entity(demo, "Q38104", hops=2, limits=Limits(fanout=100, beam=100))
    assert ev.graph.number_of_nodes() > LARGE
    page = Page(browser, chains.write_html(ev, tmp_path / "large.html"))
    _check_rendered(page, ev)
    assert page.js("window.evidenceNetwork.physics.options.enabled") is False
    placed = page.js("""() => { const n = window.evidenceNetwork, ds = n.body.data.nodes;
        return ds.get().filter(d => { const p = n.getPositions([d.id])[d.id];
            return Math.abs(p.x - d.x) < 1 && Math.abs(p.y - d.y) < 1; }).length; }""")
    assert placed == ev.graph.number_of_nodes()
    inside = page.js("""() => { const n = window.evidenceNetwork,
            c = document.getElementById('graph').getBoundingClientRect();
        return Object.values(n.getPositions()).map(p => n.canvasToDOM(p))
            .filter(d => d.x >= 0 && d.y >= 0 && d.x <= c.width && d.y <= c.height).length; }""")
    assert inside == ev.graph.number_of_nodes()
