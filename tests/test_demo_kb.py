"""The bundled demo KB: big enough, multilingual, consistent with real Wikidata data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from kb.mirror import MirrorKB
from store.demo import DEMO_KB
from store.mirror import Mirror
from store.normalize import normalize

MAIN_ENTITIES = ["Q937", "Q7186", "Q38104", "Q44585", "Q183", "Q142", "Q64", "Q90"]


def demo_entities() -> list[dict]:
    lines = DEMO_KB.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[" and lines[-1] == "]"
    return [json.loads(line.rstrip(",")) for line in lines[1:-1]]


def test_demo_is_big_enough_and_closed(demo_mirror_path):
    with Mirror(demo_mirror_path) as m:
        stats = m.stats()
    assert stats["entities"] >= 200 and stats["statements"] >= 600
    base = MirrorKB(demo_mirror_path)
    known = {e["id"] for e in demo_entities()}
    for e in demo_entities():
        for claims in e.get("claims", {}).values():
            for c in claims:
                v = c["mainsnak"].get("datavalue", {}).get("value")
                if isinstance(v, dict) and "id" in v:
                    assert v["id"] in known, f"{e['id']} points to {v['id']}, not in the demo"
    assert base.entity("Q7186").label() == "Marie Curie"


def test_main_entities_have_labels_in_en_de_fr_zh(demo_mirror_path):
    base = MirrorKB(demo_mirror_path)
    for qid in MAIN_ENTITIES:
        assert {"en", "de", "fr", "zh"} <= set(base.entity(qid).labels), qid


def test_demo_is_in_wikidata_dump_format_and_regenerates_identically():
    assert len(demo_entities()) >= 200
    check = subprocess.run([sys.executable, str(DEMO_KB.with_name("build_demo.py")), "--check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_demo_facts_are_queryable(demo_mirror_path):
    base = MirrorKB(demo_mirror_path)
    awards = {s.value.value: s for s in base.statements("Q7186", "P166")}
    assert {"Q38104", "Q44585"} <= set(awards)
    years = {q.value.value[:4] for q in awards["Q44585"].qualifiers if q.property == "P585"}
    assert years == {"1911"}
    assert base.search("Einstein")[0].id == "Q937"
    assert base.search("爱因斯坦", lang="zh")[0].id == "Q937"


def test_demo_qids_agree_with_the_real_slice(slice_mirror_path):
    """Every demo QID the slice also has names the same thing. The slice's English labels
    are sometimes T-REx surface forms ("Physics" for Q38104, the Nobel Prize in Physics), so
    the check is that the two share a name: the slice's label or one of its English aliases
    equals the demo's label or one of the demo's English aliases. A wrong QID shares none."""
    slice_kb = MirrorKB(slice_mirror_path)
    in_slice = same_label = 0
    disagreements = []
    for e in demo_entities():
        try:
            theirs = slice_kb.entity(e["id"])
        except LookupError:
            continue
        in_slice += 1
        ours_label = e["labels"]["en"]["value"]
        if theirs.labels.get("en") == ours_label:
            same_label += 1
            continue
        ours = {normalize(ours_label)} | {normalize(a["value"])
                                          for a in e.get("aliases", {}).get("en", [])}
        names = {normalize(n) for n in [theirs.labels.get("en", ""),
                                        *theirs.aliases.get("en", ())] if n}
        if not ours & names:
            disagreements.append((e["id"], ours_label, theirs.labels.get("en")))
    assert in_slice >= 400
    assert disagreements == []
    assert same_label >= 0.7 * in_slice


def test_shipped_demo_questions_are_what_the_builder_writes(tmp_path):
    """The demo question file is derived from the demo KB: a change to either must rebuild it
    (``python bench/make_demo_questions.py``), or the simulated LLM's catalog goes stale."""
    from store.demo import DEMO_QUESTIONS

    out = tmp_path / "questions.jsonl"
    script = Path(__file__).resolve().parents[1] / "bench" / "make_demo_questions.py"
    builder = [sys.executable, str(script), str(out)]
    subprocess.run(builder, check=True, capture_output=True, timeout=120)
    assert out.read_bytes() == DEMO_QUESTIONS.read_bytes()
