"""The LLM contract (reasoning.llm.base) and ScriptedLLM."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from kb.errors import InvalidRequest, LLMBadReply, LLMConfigError
from reasoning.llm import LLM, Request, ScriptedLLM

USER = [{"role": "user", "content": "What is the capital of France?"}]


def test_list_script_hands_out_replies_in_order_and_honours_n():
    llm = ScriptedLLM(["a", "b", "c", "d"])
    assert isinstance(llm, LLM)
    assert llm.complete(USER) == ["a"]
    assert llm.complete(USER, n=3) == ["b", "c", "d"]
    with pytest.raises(LLMBadReply, match="used up"):
        llm.complete(USER)
    u = llm.usage
    assert (u.calls, u.completions, u.errors) == (3, 4, 1)


def test_list_script_cycles_when_asked():
    llm = ScriptedLLM(["x", "y"], cycle=True)
    assert llm.complete(USER, n=5) == ["x", "y", "x", "y", "x"]


def test_mapping_script_matches_substrings_in_order_with_default():
    llm = ScriptedLLM({"capital": "Paris", "river": ["Seine", "Loire"]}, default="?")
    assert llm.complete(USER) == ["Paris"]
    river = [{"role": "user", "content": "Name a river"}]
    assert llm.complete(river, n=3) == ["Seine", "Loire", "Seine"]
    assert llm.complete(river) == ["Loire"]          # the key's position carries over calls
    assert llm.complete([{"role": "user", "content": "hello"}]) == ["?"]
    # system messages count as part of the prompt
    sys_only = [{"role": "system", "content": "about a river"},
                {"role": "user", "content": "go"}]
    assert llm.complete(sys_only) == ["Seine"]


def test_mapping_script_without_default_names_the_keys():
    llm = ScriptedLLM({"capital": "Paris"})
    with pytest.raises(LLMBadReply) as err:
        llm.complete([{"role": "user", "content": "unrelated"}])
    assert "capital" in str(err.value) and "default" in str(err.value)


def test_function_script_sees_the_prompt_index_and_call():
    seen = []

    def fn(p):
        seen.append((p.index, p.call, p.temperature, p.n))
        return f"{p.last_user[:4]}-{p.index}-{p.call}"
    llm = ScriptedLLM(fn)
    assert llm.complete(USER, n=2, temperature=0.7) == ["What-0-0", "What-1-0"]
    assert llm.complete(USER) == ["What-0-1"]
    assert seen == [(0, 0, 0.7, 2), (1, 0, 0.7, 2), (0, 1, 0.0, 1)]


def test_function_returning_a_non_string_is_a_bad_reply():
    with pytest.raises(LLMBadReply):
        ScriptedLLM(lambda p: None).complete(USER)


def test_stop_and_max_tokens_shape_replies():
    llm = ScriptedLLM(["one two three\nfour five"], cycle=True)
    assert llm.complete(USER, stop="\n") == ["one two three"]
    assert llm.complete(USER, stop=["three", "two"]) == ["one "]
    assert llm.complete(USER, max_tokens=2) == ["one two"]


@pytest.mark.parametrize("kwargs, what", [
    ({"n": 0}, "n must be"), ({"temperature": -1}, "temperature"),
    ({"max_tokens": 0}, "max_tokens"), ({"stop": [""]}, "stop"),
])
def test_invalid_calls_are_refused_with_the_reason(kwargs, what):
    with pytest.raises(InvalidRequest, match=what):
        ScriptedLLM(["x"]).complete(USER, **kwargs)


@pytest.mark.parametrize("messages", ["hello", [], [{"role": "robot", "content": "x"}],
                                      [{"role": "user"}]])
def test_malformed_messages_are_refused(messages):
    with pytest.raises(InvalidRequest):
        ScriptedLLM(["x"]).complete(messages)


def test_bad_scripts_are_refused_at_construction():
    with pytest.raises(LLMConfigError):
        ScriptedLLM(42)
    with pytest.raises(LLMConfigError):
        ScriptedLLM({"k": []})


def test_delay_is_per_call_and_concurrent_calls_overlap():
    llm = ScriptedLLM(lambda p: "ok", delay=0.1)
    start = time.perf_counter()
    assert llm.complete(USER, n=5) == ["ok"] * 5
    assert 0.09 <= time.perf_counter() - start < 0.3
    start = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda _: llm.complete(USER), range(8))) == [["ok"]] * 8
    assert time.perf_counter() - start < 0.5        # 8 sequential calls would take 0.8 s


def test_list_script_is_thread_safe():
    replies = [str(i) for i in range(400)]
    llm = ScriptedLLM(replies)
    out, lock = [], threading.Lock()

    def worker():
        for _ in range(50):
            r = llm.complete(USER)[0]
            with lock:
                out.append(r)
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out, key=int) == replies          # each reply handed out exactly once
    assert len(llm.history) == 400


def test_request_key_is_stable_and_sensitive():
    a = Request.build("m", USER, temperature=0.5)
    assert a.key() == Request.build("m", list(USER), temperature=0.5).key()
    assert a.key() != Request.build("m", USER, temperature=0.6).key()
    assert a.key() != Request.build("m2", USER, temperature=0.5).key()
    assert a.key() != Request.build("m", USER, temperature=0.5, n=2).key()
