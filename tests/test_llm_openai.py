"""OpenAIChatLLM over HTTP: the real ``openai`` client against a loopback server."""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

from kb.errors import LLMConfigError, LLMHTTPError, LLMRateLimited, LLMTimeout, LLMUnreachable
from tests.openai_server import ChatServer

pytest.importorskip("openai", reason="the openai package is not installed: "
                                     "pip install 'kgground[openai]'")
from reasoning.llm.openai_chat import OpenAIChatLLM  # noqa: E402

USER = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"}]


def llm_for(server: ChatServer, **kw) -> OpenAIChatLLM:
    kw.setdefault("max_retries", 2)
    return OpenAIChatLLM("test-model", base_url=server.base_url, api_key="k", **kw)


def test_a_completion_sends_the_request_as_the_protocol_says():
    with ChatServer() as server:
        llm = llm_for(server)
        out = llm.complete(USER, temperature=0.3, max_tokens=12, stop=["\n"])
        assert out == ["reply 0 to Capital of France?"]
        body = server.requests[0]
        assert body["model"] == "test-model"
        assert body["messages"] == USER
        assert (body["temperature"], body["max_tokens"], body["stop"]) == (0.3, 12, ["\n"])
        assert "n" not in body
        u = llm.usage
        assert (u.calls, u.completions, u.prompt_tokens, u.completion_tokens) == (1, 1, 7, 3)


def test_n_completions_in_one_request_when_the_server_honours_n():
    with ChatServer() as server:
        llm = llm_for(server)
        assert llm.complete(USER, n=4, temperature=0.7) == [
            f"reply {i} to Capital of France?" for i in range(4)]
        assert len(server.requests) == 1 and server.requests[0]["n"] == 4
        assert llm.ignores_n is False


def test_a_server_ignoring_n_gets_the_rest_as_concurrent_requests_and_is_remembered():
    with ChatServer(honour_n=False, delay=0.05) as server:
        llm = llm_for(server)
        assert len(llm.complete(USER, n=5, temperature=0.7)) == 5
        assert llm.ignores_n is True
        assert [b.get("n", 1) for b in server.requests] == [5, 1, 1, 1, 1]
        assert server.max_in_flight >= 2                 # the four ran concurrently
        server.requests.clear()
        assert len(llm.complete(USER, n=3, temperature=0.7)) == 3
        assert [b.get("n", 1) for b in server.requests] == [1, 1, 1]


def test_429_and_500_are_retried():
    with ChatServer(plan=[429, 500, 503]) as server:
        llm = llm_for(server, max_retries=3)
        assert llm.complete(USER) == ["reply 0 to Capital of France?"]
        assert server.statuses == [429, 500, 503, 200]


def test_rate_limited_after_the_retries_is_a_typed_error():
    with ChatServer(plan=[429] * 10) as server:
        llm = llm_for(server, max_retries=2)
        with pytest.raises(LLMRateLimited) as err:
            llm.complete(USER)
        assert len(server.requests) == 3
        assert "429" in str(err.value) and "max_concurrency" in str(err.value)
        assert llm.usage.errors == 1


def test_server_errors_after_the_retries_carry_status_and_body():
    with ChatServer(plan=[500] * 10) as server:
        with pytest.raises(LLMHTTPError) as err:
            llm_for(server, max_retries=1).complete(USER)
        assert err.value.status == 500 and "simulated 500" in err.value.body


def test_a_bad_key_is_not_retried_and_says_how_to_fix_it():
    with ChatServer(plan=[401]) as server:
        with pytest.raises(LLMHTTPError) as err:
            llm_for(server).complete(USER)
        assert err.value.status == 401 and "OPENAI_API_KEY" in str(err.value)
        assert len(server.requests) == 1


def test_timeout_is_a_typed_error():
    with ChatServer(delay=1.0) as server:
        with pytest.raises(LLMTimeout, match="timeout"):
            llm_for(server, timeout=0.2, max_retries=0).complete(USER)


def test_an_unreachable_server_is_a_typed_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = OpenAIChatLLM("m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k",
                        max_retries=0)
    with pytest.raises(LLMUnreachable, match="cannot connect"):
        llm.complete(USER)


def test_concurrency_is_bounded_across_threads():
    with ChatServer(delay=0.05) as server:
        llm = llm_for(server, max_concurrency=2)
        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(lambda _: llm.complete(USER), range(6)))
        assert len(results) == 6 and server.max_in_flight <= 2


def test_base_url_and_key_from_the_standard_environment(monkeypatch):
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "from-env")
        llm = OpenAIChatLLM("env-model")
        assert llm.complete(USER) == ["reply 0 to Capital of France?"]
        assert llm.base_url == server.base_url


def test_own_server_needs_no_key_but_openai_does(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with ChatServer() as server:
        assert OpenAIChatLLM("m", base_url=server.base_url).complete(USER)
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        OpenAIChatLLM("gpt-4o-mini")
    with pytest.raises(LLMConfigError, match="model"):
        OpenAIChatLLM("", base_url="http://127.0.0.1:1/v1")


def test_a_rowen_gate_over_http_with_two_servers():
    """rowen-hybrid end to end over the wire: the model and the verifier are two servers
    (the verifier ignores n), the judge is the model; every call goes over HTTP."""
    from reasoning import prompts
    from reasoning.gates import make_gate

    def play(answer):
        def reply(body, i):
            if "random number" in body["messages"][-1]["content"]:
                return str(7919 * body["seed"])          # the sampling probe: it samples
            task, f = prompts.identify(body["messages"])
            if task == "paraphrase":
                return f"Rewritten question: variant {i}: {f['question']}"
            if task == "translate":
                return f"请问：{f['question']}"
            if task == "answer":
                return answer
            if task == "judge":
                same = prompts.normalize_answer(f["answer1"]) == \
                    prompts.normalize_answer(f["answer2"])
                return "True" if same else "**False**"
            raise AssertionError(task)
        return reply

    with ChatServer(play("Paris"), delay=0.02) as main, \
            ChatServer(play("Lyon"), honour_n=False, delay=0.02) as other:
        model = OpenAIChatLLM("main", base_url=main.base_url, api_key="k")
        verifier = OpenAIChatLLM("verifier", base_url=other.base_url, api_key="k")
        d = make_gate("rowen-hybrid", model, verifier=verifier).decide("Capital of France?")
        assert d.scores == {"z_cl": 1.0, "z_cm": 0.0, "z_hybrid": 1.0} and d.consult is True
        # two sampling probes, 1 + 3k calls, the judge's probe and 2k judge calls
        assert len(main.requests) == 2 + 1 + 3 * 6 + 1 + 12 and len(other.requests) == 6
        assert main.requests[2]["n"] == 6 and main.requests[2]["temperature"] == 1.0
        assert main.max_in_flight > 1                       # stages ran concurrently


def test_a_server_that_ignores_the_temperature_is_detected_and_cok_refuses():
    """A server that decodes greedily at any temperature (transformers serve does, for a
    model whose generation config does not sample) gives identical samples: the gates that
    measure their agreement say they cannot run, instead of always agreeing."""
    from reasoning import prompts
    from reasoning.gates import make_gate

    def greedy(body, i):
        if "random number" in body["messages"][-1]["content"]:
            return "4821937605"                 # the same whatever the seed
        return "Answer: Paris"
    with ChatServer(greedy, honour_n=False) as server:
        llm = OpenAIChatLLM("m", base_url=server.base_url, api_key="k")
        assert llm.sampling_works() is False
        with pytest.raises(LLMConfigError, match="ignores the temperature"):
            make_gate("cok", llm).decide("Capital of France?")
        probes = [r for r in server.requests if "random number" in
                  r["messages"][-1]["content"]]
        assert [r["seed"] for r in probes] == [1, 2] and len(server.requests) == 2
        assert not prompts.identify(probes[0]["messages"])
