"""TransformersLLM on a tiny GPT-2 built from a config in the test (no downloads)."""

from __future__ import annotations

import pytest

from kb.errors import LLMConfigError

torch = pytest.importorskip("torch", reason="pip install 'kgground[transformers]'")
transformers = pytest.importorskip("transformers", reason="pip install 'kgground[transformers]'")
tokenizers = pytest.importorskip("tokenizers")

from reasoning.llm.transformers_llm import TransformersLLM  # noqa: E402

WORDS = ("what is the capital of france paris lyon river seine answer question user "
         "assistant system be brief").split()
TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
            "{% if add_generation_prompt %}<|assistant|> {% endif %}")


def build_model(folder, *, chat_template: str | None = TEMPLATE):
    vocab = {w: i for i, w in enumerate(["[UNK]", "[PAD]", "[EOS]", "<|user|>", "<|system|>",
                                         "<|assistant|>", "?", ":", *WORDS])}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tok.decoder = tokenizers.decoders.WordPiece()       # joins tokens with spaces
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]",
                                                pad_token="[PAD]", eos_token="[EOS]")
    if chat_template:
        fast.chat_template = chat_template
    fast.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(vocab), n_positions=128, n_embd=32,
                                     n_layer=1, n_head=2, eos_token_id=2, pad_token_id=1,
                                     bos_token_id=2)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_model(tmp_path_factory.mktemp("tiny-gpt2"))


USER = [{"role": "system", "content": "be brief"},
        {"role": "user", "content": "what is the capital of france ?"}]


def test_greedy_is_deterministic_and_honours_n(model_dir):
    llm = TransformersLLM(model_dir, device="cpu", max_new_tokens=6)
    a = llm.complete(USER)
    assert len(a) == 1 and a[0].strip()
    assert llm.complete(USER) == a
    assert llm.complete(USER, n=3) == a * 3
    u = llm.usage
    assert u.calls == 3 and u.completions == 5 and u.prompt_tokens > 0


def test_the_chat_template_shapes_the_prompt(model_dir, tmp_path):
    llm = TransformersLLM(model_dir, device="cpu")
    from reasoning.llm.base import Request
    req = Request.build(llm.model, USER)
    assert llm.prompt_text(req) == ("<|system|> be brief <|user|> what is the capital of "
                                    "france ? <|assistant|> ")
    plain = TransformersLLM(build_model(tmp_path / "plain", chat_template=None), device="cpu")
    assert plain.prompt_text(req).endswith("User: what is the capital of france ?\nAssistant:")
    out = plain.complete(USER, max_tokens=3)
    assert len(out) == 1 and len(out[0].split()) <= 3


def test_sampling_gives_n_sequences_reproducible_with_a_seed(model_dir):
    llm = TransformersLLM(model_dir, device="cpu", max_new_tokens=8, seed=1)
    a = llm.complete(USER, n=4, temperature=1.5)
    assert len(a) == 4 and len(set(a)) > 1              # a random tiny model: varied samples
    assert llm.complete(USER, n=4, temperature=1.5) == a


def test_max_tokens_and_stop(model_dir):
    llm = TransformersLLM(model_dir, device="cpu", seed=3)
    out = llm.complete(USER, max_tokens=5, temperature=1.0)[0]
    assert 1 <= len(out.split()) <= 5
    word = out.split()[1] if len(out.split()) > 1 else out.split()[0]
    cut = TransformersLLM(model_dir, device="cpu", seed=3).complete(
        USER, max_tokens=5, temperature=1.0, stop=[word])[0]
    assert word not in cut and out.startswith(cut)


def test_a_missing_folder_says_what_to_pass(tmp_path):
    with pytest.raises(LLMConfigError, match="config.json"):
        TransformersLLM(tmp_path / "nothing")
