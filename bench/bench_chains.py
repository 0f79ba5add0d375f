"""The evidence chainer on the T-REx slice mirror (issue 17).

    python bench/bench_chains.py --db slice.sqlite [--json out.json] [--limit N]
                                 [--only accuracy,expand,connect,page]

Measured:

- **accuracy**: for each question, ``chains.build_evidence(question, kb, linker, hops=2,
  top=5)``; the subject is *linked* when it is among the seeds; the gold answer is *in the
  top-5* when a shortlisted chain ends at one of the answers. Reported: linked share, and
  gold-in-top-5 among linked questions (the target: ≥ 0.95). Also with the subject given
  by ID (``entities=[subject]``: chains alone, no entity linking). On two question sets:
  ``benchmarks/slice-qa-dev.jsonl``, and our own wordings (``OWN_WORDINGS`` below, written
  for this benchmark, none of them the dev templates) over subjects drawn from the mirror
  that the dev set does not ask about (seeded, so the same every run).
- **expand**: ``chains.expand_entity(kb, e, hops=2)`` (default limits, labels included)
  around dev subjects whose 2-hop graph has ≤ 1,000 edges; median and p90 ms (target:
  ≤ 50 ms).
- **connect**: ``chains.connect_entities(kb, a, b, hops=3)`` for pairs exactly 3 hops
  apart (found by seeded random walks, checked to have no shorter path); median and p90
  ms (target: ≤ 100 ms).
- **page**: an evidence graph of 500 nodes (the neighbourhood of France) as a page,
  loaded in headless Chromium until it is drawn (``window.evidenceReady``); median of 5
  loads (target: ≤ 2 s); ``write_html_s`` is the Python side (layout included).

Timed parts run interleaved with a fixed probe (200 triplet queries on one entity) so the
machine's speed is visible next to the numbers; the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import chains  # noqa: E402
import kb  # noqa: E402
from chains.search import Limits  # noqa: E402

DEFAULT_DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))
TARGETS = {"top5": 0.95, "expand_ms": 50.0, "connect_ms": 100.0, "page_s": 2.0}

#: our own wordings of the slice's relations (X = the subject's label); deliberately unlike
#: the dev set's one template per relation
OWN_WORDINGS = {
    "P17": ["X is in what country?", "Which nation is X situated in?"],
    "P19": ["What city was X born in?", "X's birthplace is where?"],
    "P20": ["In what place did X pass away?", "X died in which city?"],
    "P27": ["What is X's nationality?", "X holds citizenship of which country?"],
    "P30": ["X lies on what continent?", "Which continent contains X?"],
    "P31": ["What kind of thing is X?", "X is what type of entity?"],
    "P36": ["Which city is the seat of government of X?", "X's capital city is?"],
    "P37": ["What language is official in X?", "Which language has official status in X?"],
    "P39": ["What office has X held?", "X served in which position?"],
    "P47": ["Which places border X?", "X is adjacent to what?"],
    "P101": ["What is X's area of expertise?", "In which discipline was X active?"],
    "P102": ["What party does X belong to?", "X was affiliated with which political party?"],
    "P103": ["What was X's mother tongue?", "X's first language is what?"],
    "P106": ["What does X do for a living?", "What was X's profession?"],
    "P108": ["Who did X work for?", "Which organisation employed X?"],
    "P127": ["Who is the owner of X?", "X belongs to whom?"],
    "P131": ["Which administrative area contains X?", "X is in which district or region?"],
    "P136": ["Which genre does X belong to?", "X is classified under what genre?"],
    "P138": ["X takes its name from what?", "Who was X named for?"],
    "P140": ["What faith did X practise?", "X was an adherent of which religion?"],
    "P159": ["Where is X headquartered?", "In which city are X's headquarters?"],
    "P166": ["What prize did X win?", "X was honoured with which award?"],
    "P176": ["Who makes X?", "Which firm produced X?"],
    "P178": ["Which studio or company built X?", "X was created by whom?"],
    "P190": ["Which city is X twinned with?", "Name a sister city of X."],
    "P264": ["What label released X's records?", "X recorded for which label?"],
    "P276": ["What is the location of X?", "Where does X take place?"],
    "P279": ["What broader class does X fall under?", "X is a kind of what?"],
    "P361": ["X belongs to which larger whole?", "Of what is X a component?"],
    "P364": ["What language was X originally made in?", "X was first produced in which "
             "language?"],
    "P407": ["What language is X in?", "X is published in which language?"],
    "P413": ["What is X's playing position?", "X plays in which position on the team?"],
    "P449": ["Which channel first broadcast X?", "X premiered on what TV network?"],
    "P463": ["What organisation does X belong to?", "X has membership in which group?"],
    "P495": ["Which country does X come from?", "X originated in what country?"],
    "P527": ["What are the parts of X?", "What components make up X?"],
    "P530": ["Which countries maintain diplomatic ties with X?", "X has foreign relations "
             "with which state?"],
    "P740": ["In what city was X founded?", "X was established in which place?"],
    "P937": ["In which city was X professionally active?", "Where was X's workplace?"],
    "P1001": ["Which territory does X have jurisdiction over?", "X governs which area?"],
    "P1303": ["What instrument is X known for playing?", "X performs on which instrument?"],
    "P1376": ["Which region has X as its capital?", "X serves as the capital of what?"],
    "P1412": ["What languages does X know?", "In which language did X communicate?"],
    "P1923": ["Which teams took part in X?", "Who competed in X?"],
}


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def summary(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {"n": len(values), "median": round(statistics.median(values), 2),
            "p90": round(values[int(0.9 * (len(values) - 1))], 2),
            "max": round(values[-1], 2)}


def probe(base: Any) -> float:
    """A fixed workload: 200 triplet queries on Q30 (ms)."""
    t = time.perf_counter()
    for _ in range(100):
        base.statements("Q30", limit=50)
        base.statements("Q142", limit=50)
    return ms(time.perf_counter() - t)


# -- question sets ------------------------------------------------------------------------------

def dev_questions(data: Path, limit: int | None) -> list[dict]:
    rows = [json.loads(line) for line in (data / "benchmarks" / "slice-qa-dev.jsonl")
            .read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit] if limit else rows


def own_questions(base: Any, dev: list[dict], per_wording: int = 6,
                  seed: int = 17) -> list[dict]:
    """Our wordings over subjects the dev set does not ask about, drawn from the mirror."""
    rng = random.Random(seed)
    asked = {q["subject"] for q in dev}
    out = []
    for pid, wordings in OWN_WORDINGS.items():
        subjects: dict[str, list[str]] = {}
        for st in base.statements(property=pid, limit=4000):
            if st.value.is_entity and st.subject not in asked:
                subjects.setdefault(st.subject, []).append(st.value.value)
        pool = sorted(subjects)
        rng.shuffle(pool)
        picked = 0
        for subject in pool:
            if picked >= per_wording * len(wordings):
                break
            label = base.entity(subject).labels.get("en")
            if not label or label == subject or any(c in label for c in "?\n"):
                continue
            wording = wordings[picked % len(wordings)]
            out.append({"question": wording.replace("X", label, 1), "subject": subject,
                        "property": pid, "answers": subjects[subject]})
            picked += 1
    return out


def accuracy(base: Any, linker: Any, questions: list[dict]) -> dict[str, Any]:
    linked = hit = given_hit = failed = 0
    times = []
    misses = []
    for q in questions:
        gold = set(q["answers"])
        t = time.perf_counter()
        try:
            ev = chains.build_evidence(q["question"], base, linker, hops=2, top=5)
        except Exception as exc:  # noqa: BLE001 - counted: nothing linked, mostly
            ev, failed = None, failed + (not str(exc).startswith("no entity"))
        times.append(ms(time.perf_counter() - t))
        if ev is not None and q["subject"] in {s.id for s in ev.seeds}:
            linked += 1
            if any(c.end in gold for c in ev.chains):
                hit += 1
            elif len(misses) < 15:
                misses.append({"question": q["question"], "gold": sorted(gold),
                               "top": [c.text for c in ev.chains[:3]]})
        given = chains.build_evidence(q["question"], base, linker, hops=2, top=5,
                                      entities=[q["subject"]])
        given_hit += any(c.end in gold for c in given.chains)
    n = len(questions)
    return {"questions": n, "linked": linked, "linked_share": round(linked / n, 4),
            "top5_when_linked": round(hit / linked, 4) if linked else None,
            "top5_overall": round(hit / n, 4),
            "top5_subject_given": round(given_hit / n, 4),
            "errors": failed, "ms_per_question": summary(times), "misses": misses}


# -- timings ------------------------------------------------------------------------------------

def expansion(base: Any, dev: list[dict], n: int, rounds: int) -> dict[str, Any]:
    """Two strata of dev subjects: ``n`` drawn at random, and the ``n`` with the largest
    2-hop graphs among 4·n drawn (all ≤ 1,000 edges: the default limits keep at most
    fanout + beam·fanout = 525 per seed)."""
    rng = random.Random(5)
    subjects = list(dict.fromkeys(q["subject"] for q in dev))
    rng.shuffle(subjects)
    size = {}
    for s in subjects[:4 * n]:
        size[s] = chains.expand_entity(base, s, hops=2, labels=False).graph.number_of_edges()
    strata = {"random": [s for s in subjects[:n] if size[s] <= 1000],
              "largest": sorted((s for s in size if size[s] <= 1000),
                                key=lambda s: -size[s])[:n]}
    out: dict[str, Any] = {"probe_ms": []}
    times = {name: ([], []) for name in strata}
    for _ in range(rounds):
        out["probe_ms"].append(probe(base))
        for name, picked in strata.items():
            for s in picked:
                t = time.perf_counter()
                chains.expand_entity(base, s, hops=2)
                times[name][0].append(ms(time.perf_counter() - t))
                t = time.perf_counter()
                chains.expand_entity(base, s, hops=2, labels=False)
                times[name][1].append(ms(time.perf_counter() - t))
    for name, picked in strata.items():
        out[name] = {"entities": len(picked), "edges": summary([size[s] for s in picked]),
                     "ms": summary(times[name][0]),
                     "ms_without_labels": summary(times[name][1])}
    return out


def three_apart(base: Any, dev: list[dict], n: int) -> list[tuple[str, str]]:
    """Pairs 3 hops apart: random walks of 3 entity steps, kept when no shorter path."""
    rng = random.Random(11)
    starts = [q["subject"] for q in dev]
    pairs: list[tuple[str, str]] = []
    tries = 0
    while len(pairs) < n and tries < 50 * n:
        tries += 1
        node = rng.choice(starts)
        path = [node]
        for _ in range(3):
            out = [s for s in base.statements(node, limit=200) if s.value.is_entity]
            into = base.statements(value=node, limit=200)
            options = [s.value.value for s in out] + [s.subject for s in into]
            options = [o for o in options if o not in path]
            if not options:
                break
            node = rng.choice(options)
            path.append(node)
        if len(path) != 4 or (path[0], path[3]) in pairs:
            continue
        near = chains.connect_entities(base, path[0], path[3], hops=2)
        if not near.chains:
            pairs.append((path[0], path[3]))
    return pairs


def connecting(base: Any, dev: list[dict], n: int, rounds: int) -> dict[str, Any]:
    pairs = three_apart(base, dev, n)
    times, found, probes = [], 0, []
    for r in range(rounds):
        probes.append(probe(base))
        for a, b in pairs:
            t = time.perf_counter()
            ev = chains.connect_entities(base, a, b, hops=3)
            times.append(ms(time.perf_counter() - t))
            if r == 0:
                found += bool(ev.chains) and all(c.hops == 3 for c in ev.chains)
    return {"pairs": len(pairs), "found_3_hop_chain": found, "ms": summary(times),
            "probe_ms": probes}


def page(base: Any, loads: int) -> dict[str, Any]:
    import shutil

    from playwright.sync_api import sync_playwright
    ev = chains.expand_entity(base, "Q142", hops=2, limits=Limits(fanout=50, beam=30))
    nodes = list(ev.graph)                      # in the order found: the first 500 connect
    ev.graph.remove_nodes_from(nodes[500:])
    html = Path(tempfile.mkdtemp(prefix="kgground-bench-")) / "page.html"
    chains.render_html(chains.expand_entity(base, "Q142", hops=1))   # imports pyvis (~1 s)
    t = time.perf_counter()
    chains.write_html(ev, html)
    written = round(time.perf_counter() - t, 3)
    times = []
    profile = tempfile.mkdtemp(prefix="kgground-chromium-")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=shutil.which("chromium"), headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"], viewport={"width": 1400, "height": 850})
        for _ in range(loads):
            tab = context.new_page()
            t = time.perf_counter()
            tab.goto(html.as_uri())
            tab.wait_for_selector("body[data-ready=true]", state="attached", timeout=60_000)
            times.append(round(time.perf_counter() - t, 3))
            rendered = tab.evaluate("window.evidenceNetwork.body.data.nodes.length")
            tab.close()
        context.close()
    shutil.rmtree(profile, ignore_errors=True)
    return {"nodes": ev.graph.number_of_nodes(), "edges": ev.graph.number_of_edges(),
            "rendered_nodes": rendered, "html_kb": round(html.stat().st_size / 1024),
            "write_html_s": written, "seconds": summary(times)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, help="dev questions to use (default: all 2,000)")
    ap.add_argument("--only", default="accuracy,expand,connect,page")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    from linking import EntityLinker

    base = kb.open(args.db)
    linker = EntityLinker(base)
    linker.link("warm up the linking index")
    dev = dev_questions(args.data, args.limit)
    only = set(args.only.split(","))
    out: dict[str, Any] = {"load_before": os.getloadavg(), "targets": TARGETS}
    if "expand" in only:
        out["expand"] = expansion(base, dev, 40, args.rounds)
        print("expand", json.dumps(out["expand"]), flush=True)
    if "connect" in only:
        out["connect"] = connecting(base, dev, 30, args.rounds)
        print("connect", json.dumps(out["connect"]), flush=True)
    if "page" in only:
        out["page"] = page(base, 5)
        print("page", json.dumps(out["page"]), flush=True)
    if "accuracy" in only:
        out["dev"] = accuracy(base, linker, dev)
        print("dev", json.dumps({k: v for k, v in out["dev"].items() if k != "misses"}),
              flush=True)
        own = own_questions(base, dev_questions(args.data, None))
        out["own"] = accuracy(base, linker, own)
        print("own", json.dumps({k: v for k, v in out["own"].items() if k != "misses"}),
              flush=True)
    out["load_after"] = os.getloadavg()
    print("load", out["load_before"], out["load_after"])
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
