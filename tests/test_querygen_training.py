"""The trained generator: CoK's contrastive sequences and mask (token by token), the loss,
optimizer steps that lower it, train → save → load → generate for a causal and a seq2seq
model built from configs here (nothing downloaded), resuming, and the CLI."""

from __future__ import annotations

import json

import pytest

from querygen.contrastive import encode, masked_nll, prompt, segments
from querygen.dataset import Example, canonical, read_examples, to_label_level, write_examples
from querygen.negatives import Negative

torch = pytest.importorskip("torch", reason="the transformers extra is not installed")
transformers = pytest.importorskip("transformers",
                                   reason="the transformers extra is not installed")

from querygen.training import (TrainingError, TrainOptions, batch_loss,  # noqa: E402
                               build_tokenizer, causal_features, scratch_model,
                               seq2seq_features, train)
from querygen.trained import TrainedGenerator  # noqa: E402

# one thread: on a shared two-core machine, torch's thread pool spends most of its time
# waiting for cores (10x slower per step under load)
torch.set_num_threads(1)

NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie", "Niels Bohr",
         "Lise Meitner", "Emmy Noether", "Paul Dirac"]


def example(i: int) -> Example:
    name = NAMES[i % len(NAMES)]
    gold = f"SELECT ?x WHERE {{ wd:/{name}/ wdt:/employer/ ?x . }}"
    return Example(f"Who employed {name}?", gold, "", (
        Negative("unlinked", gold.replace(f"wd:/{name}/", f"/{name}/"), ""),
        Negative("wrong_entity", gold.replace(name, "Paris"), ""),
        Negative("misspelled", gold.replace(name, name[:-1] + name[-1] * 2), ""),
        Negative("wrong_property", f"SELECT ?x WHERE {{ ?x wdt:/employer/ wd:/{name}/ . }}",
                 "")))


EXAMPLES = [example(i) for i in range(len(NAMES))]


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer([t for e in EXAMPLES for t, _ in segments(e)], vocab_size=400)


def test_sequence_layout_is_the_papers():
    text = "".join(t for t, _ in segments(EXAMPLES[0]))
    assert text.startswith("Question: Who employed Ada Lovelace?\nCorrect query: SELECT")
    assert "\nIncorrect query 1: SELECT ?x WHERE { /Ada Lovelace/" in text
    assert text.count("Incorrect query") == 4 and text.endswith(". }\n")


def test_mask_is_one_exactly_on_query_tokens(tokenizer):
    ex = EXAMPLES[1]
    ids, mask = causal_features(ex, tokenizer, max_length=1024)
    assert ids[0] == tokenizer.bos_token_id and mask[0] == 0
    assert len(ids) == len(mask)
    queries = [t for t, q in segments(ex) if q]
    context = [t for t, q in segments(ex) if not q]
    # token by token: the masked tokens spell the queries, the others the instruction
    # and the markers, in order
    on = tokenizer.decode([i for i, m in zip(ids, mask) if m])
    off = tokenizer.decode([i for i, m in zip(ids[1:], mask[1:]) if not m])
    assert on == "".join(queries) and off == "".join(context)
    # and each maximal run of 1s is one whole query, its newline included
    runs, current = [], []
    for i, m in zip(ids, mask):
        if m:
            current.append(i)
        elif current:
            runs.append(tokenizer.decode(current))
            current = []
    runs.append(tokenizer.decode(current))
    assert runs == queries and all(r.endswith("\n") for r in runs)


def test_encode_masks_per_part():
    ids, mask = encode([("ab", False), ("cde", True), ("f", False)], lambda t: [ord(c) for c in t])
    assert ids == [97, 98, 99, 100, 101, 102] and mask == [0, 0, 1, 1, 1, 0]


def test_seq2seq_features_split_question_and_queries(tokenizer):
    enc, dec, mask = seq2seq_features(EXAMPLES[2], tokenizer, max_length=1024)
    assert tokenizer.decode(enc, skip_special_tokens=True) == prompt(EXAMPLES[2].question)
    assert tokenizer.decode(dec).startswith("Correct query: SELECT")
    assert tokenizer.decode([i for i, m in zip(dec, mask) if m]) == "".join(
        t for t, q in segments(EXAMPLES[2]) if q)


def test_masked_nll_is_the_papers_sum_over_query_tokens():
    torch.manual_seed(0)
    logits = torch.randn(1, 5, 7)
    targets = torch.tensor([[1, 2, 3, 4, 5]])
    mask = torch.tensor([[0, 1, 1, 0, 1]])
    logp = torch.log_softmax(logits, -1)[0]
    expected = -(logp[1, 2] + logp[2, 3] + logp[4, 5]) / 3
    assert torch.allclose(masked_nll(logits, targets, mask), expected)
    # what the instruction's positions predict does not count
    changed = logits.clone()
    changed[0, 0] += 100.0
    changed[0, 3] -= 50.0
    assert torch.allclose(masked_nll(changed, targets, mask), expected)


def test_a_few_optimizer_steps_lower_the_loss(tokenizer):
    torch.manual_seed(0)
    model = scratch_model(tokenizer, "tiny", max_length=256)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    batch = EXAMPLES[:4]
    with torch.no_grad():
        before = float(batch_loss(model, tokenizer, batch, False, 256))
    for _ in range(8):
        loss = batch_loss(model, tokenizer, batch, False, 256)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        after = float(batch_loss(model, tokenizer, batch, False, 256))
    assert after < before * 0.8


def test_train_save_load_generate_round_trip(tmp_path):
    out = tmp_path / "gen"
    result = train(EXAMPLES, out, from_scratch=True,
                   options=TrainOptions(epochs=40, batch_size=8, size="tiny", vocab_size=400,
                                        learning_rate=1e-2, warmup_steps=5, save_every=0))
    assert result.steps == 40 and result.last_loss < result.first_loss / 3
    meta = json.loads((out / "querygen.json").read_text())
    assert meta["step"] == 40 and meta["seq2seq"] is False
    gen = TrainedGenerator(out)
    one = gen.generate("Who employed Grace Hopper?")
    assert len(one) == 1 and one[0].startswith("SELECT ?x WHERE {")
    assert one[0] == canonical(one[0])
    three = gen.generate("Who employed Grace Hopper?", n=3)
    assert 1 <= len(three) <= 3 and len(set(three)) == len(three)
    with pytest.raises(ValueError):
        gen.generate("  ")


def test_resume_continues_and_a_full_folder_is_not_overwritten(tmp_path):
    out = tmp_path / "gen"
    opts = dict(batch_size=4, size="tiny", vocab_size=300, save_every=0)
    first = train(EXAMPLES, out, from_scratch=True, options=TrainOptions(max_steps=3, **opts))
    assert first.steps == 3
    with pytest.raises(TrainingError, match="not empty"):
        train(EXAMPLES, out, from_scratch=True, options=TrainOptions(max_steps=3, **opts))
    again = train(EXAMPLES, out, from_scratch=True, resume=True,
                  options=TrainOptions(max_steps=5, **opts))
    assert again.steps == 5 and len(again.losses) == 5
    with pytest.raises(TrainingError, match="no training examples"):
        train([], tmp_path / "x", from_scratch=True)
    with pytest.raises(TrainingError, match="not a model checkpoint"):
        train(EXAMPLES, tmp_path / "y", model_path=tmp_path)


def test_a_local_seq2seq_checkpoint_trains_and_generates(tmp_path, tokenizer):
    config = transformers.T5Config(vocab_size=len(tokenizer), d_model=32, d_ff=64, d_kv=8,
                                   num_layers=1, num_heads=2,
                                   pad_token_id=tokenizer.pad_token_id,
                                   eos_token_id=tokenizer.eos_token_id,
                                   decoder_start_token_id=tokenizer.pad_token_id)
    base = tmp_path / "t5"
    transformers.T5ForConditionalGeneration(config).save_pretrained(base)
    tokenizer.save_pretrained(base)
    out = tmp_path / "tuned"
    result = train(EXAMPLES, out, model_path=base,
                   options=TrainOptions(max_steps=12, batch_size=4, learning_rate=1e-2,
                                        warmup_steps=1, save_every=0))
    assert result.last_loss < result.first_loss
    gen = TrainedGenerator(out)
    assert gen.seq2seq and len(gen.generate("Who employed Alan Turing?")) <= 1


def test_dataset_rewrites_gold_queries_at_label_level(demo_mirror_path, tmp_path):
    import kb as kbmod

    from querygen.dataset import build_examples, read_pairs
    demo = kbmod.open(demo_mirror_path)
    q = ("PREFIX wd: <http://www.wikidata.org/entity/> "
         "PREFIX wdt: <http://www.wikidata.org/prop/direct/> "
         "SELECT ?x WHERE { wd:Q7186 wdt:P108 ?x . }")
    assert to_label_level(q, demo) == "SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x . }"
    with pytest.raises(LookupError):
        to_label_level("SELECT ?x WHERE { wd:Q999999999 wdt:P108 ?x }", demo)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"question": "Who employed Marie Curie?", "sparql": q}) + "\n"
                     + json.dumps({"question": "Where was Marie Curie born?",
                                   "subject": "Q7186", "property": "P19"}) + "\n"
                     + json.dumps({"question": "?", "sparql": "SELECT ?x { wd:Q999999999 "
                                   "wdt:P19 ?x }"}) + "\n", encoding="utf-8")
    examples = list(build_examples(read_pairs(pairs), demo))
    assert [e.query for e in examples] == [
        "SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x . }",
        "SELECT ?x WHERE { wd:/Marie Curie/ wdt:/place of birth/ ?x . }"]
    assert all(len(e.negatives) == 4 for e in examples)
    path = tmp_path / "train.jsonl"
    write_examples(examples, path)
    assert read_examples(path) == examples


def test_cli_dataset_train_generate(run, demo_mirror_path, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    rows = [{"question": f"Where was {n} born?", "subject": s, "property": "P19"}
            for n, s in (("Marie Curie", "Q7186"), ("Pierre Curie", "Q37463"))]
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    data = tmp_path / "train.jsonl"
    r = run("querygen", "dataset", str(pairs), "--db", str(demo_mirror_path), "--out", str(data),
            "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["examples"] == 2
    # the linker's entities are in each example, for the model's instruction
    assert [e.entities[:1] for e in read_examples(data)] == [("Marie Curie",),
                                                             ("Pierre Curie",)]
    plain = tmp_path / "plain.jsonl"
    r = run("querygen", "dataset", str(pairs), "--db", str(demo_mirror_path), "--out",
            str(plain), "--no-entities")
    assert r.exit_code == 0 and all(e.entities is None for e in read_examples(plain))
    out = tmp_path / "model"
    r = run("querygen", "train", "--data", str(data), "--out", str(out), "--from-scratch",
            "--size", "tiny", "--max-steps", "3", "--batch-size", "2", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["steps"] == 3
    r = run("querygen", "train", "--data", str(data), "--out", str(out), "--from-scratch")
    assert r.exit_code == 1 and "--resume" in r.output
    r = run("querygen", "generate", "Where was Marie Curie born?", "--model", str(out),
            "--db", str(demo_mirror_path), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["question"].startswith("Where")
    r = run("querygen", "generate", "x", "--model", str(tmp_path / "none"))
    assert r.exit_code == 1 and "no trained generator" in r.output


# -- GGUF checkpoints (the packaged SmolLM2 is one) -------------------------------------------

#: a Llama layer's weights and their names in a GGUF file (llama.cpp's)
GGUF_NAMES = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
              "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
              "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
              "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}


def write_gguf(path, model, tokenizer) -> None:
    """``model`` (a Llama with tied embeddings, as SmolLM2 is) and ``tokenizer`` (byte-level
    BPE) written as a float32 GGUF file the way llama.cpp's converter writes one: q and k
    rows permuted for its rotary layout, the tokenizer's vocabulary and merges as metadata."""
    gguf = pytest.importorskip("gguf", reason="the gguf package is not installed")
    cfg = model.config
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(cfg.num_hidden_layers)
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_rope_freq_base(cfg.rope_parameters["rope_theta"])
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_rope_dimension_count(cfg.hidden_size // cfg.num_attention_heads)
    w.add_vocab_size(cfg.vocab_size)
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
    special = set(tokenizer.all_special_ids)
    merges = json.loads(tokenizer.backend_tokenizer.to_str())["model"]["merges"]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list([t for t, _ in vocab])
    w.add_token_types([3 if i in special else 1 for _, i in vocab])
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in merges])
    w.add_bos_token_id(tokenizer.bos_token_id)
    w.add_eos_token_id(tokenizer.eos_token_id)
    w.add_pad_token_id(tokenizer.pad_token_id)
    w.add_add_bos_token(False)

    def permute(t, heads):
        return t.reshape(heads, 2, t.shape[0] // heads // 2, *t.shape[1:]).swapaxes(
            1, 2).reshape(t.shape)

    state = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    w.add_tensor("token_embd.weight", state["model.embed_tokens.weight"])
    w.add_tensor("output_norm.weight", state["model.norm.weight"])
    for n in range(cfg.num_hidden_layers):
        for hf, name in GGUF_NAMES.items():
            t = state[f"model.layers.{n}.{hf}.weight"]
            if name == "attn_q":
                t = permute(t, cfg.num_attention_heads)
            elif name == "attn_k":
                t = permute(t, cfg.num_key_value_heads)
            w.add_tensor(f"blk.{n}.{name}.weight", t)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory, tokenizer):
    """(the .gguf file, the Llama it holds) — a tiny model built from a config here."""
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32,
                                      intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2,
                                      max_position_embeddings=512, tie_word_embeddings=True,
                                      bos_token_id=tokenizer.bos_token_id,
                                      eos_token_id=tokenizer.eos_token_id,
                                      pad_token_id=tokenizer.pad_token_id)
    model = transformers.LlamaForCausalLM(config).eval()
    path = tmp_path_factory.mktemp("gguf") / "tiny-llama.F32.gguf"
    write_gguf(path, model, tokenizer)
    return path, model


def test_a_gguf_file_or_its_folder_loads_as_the_same_float_model(tiny_gguf, tokenizer):
    from querygen.training import gguf_location, load_model

    path, original = tiny_gguf
    assert gguf_location(path) == (path.parent, path.name)
    assert gguf_location(path.parent) == (path.parent, path.name)
    ids = torch.tensor([[tokenizer.bos_token_id, 5, 17, 42, 99, 7]])
    with torch.no_grad():
        expected = original(input_ids=ids).logits
    for where in (path, path.parent):
        model, tok, seq2seq = load_model(where)
        # (transformers adds an <|endoftext|> of its own to a GGUF vocabulary without one)
        assert not seq2seq and tokenizer.get_vocab().items() <= tok.get_vocab().items()
        assert tok.pad_token is not None
        with torch.no_grad():
            got = model.eval()(input_ids=ids).logits
        assert got.dtype == torch.float32
        assert torch.allclose(got, expected, atol=1e-5)


def test_a_gguf_checkpoint_fine_tunes_and_generates(tiny_gguf, tmp_path):
    path, _ = tiny_gguf
    out = tmp_path / "tuned"
    result = train(EXAMPLES, out, model_path=path,
                   options=TrainOptions(epochs=10, max_steps=15, batch_size=4, learning_rate=1e-2,
                                        warmup_steps=1, save_every=0))
    assert result.steps == 15 and result.last_loss < result.first_loss
    meta = json.loads((out / "querygen.json").read_text())
    assert meta["base"] == str(path) and not meta["seq2seq"]
    # written with save_pretrained: the trained generator loads it like any checkpoint
    assert (out / "config.json").is_file()
    gen = TrainedGenerator(out)
    assert len(gen.generate("Who employed Alan Turing?")) <= 1


def test_paths_that_hold_no_single_model_are_refused_with_the_fix(tiny_gguf, tmp_path):
    from querygen.training import gguf_location, load_model

    path, _ = tiny_gguf
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a.gguf", "b.gguf"):
        (two / name).write_bytes(path.read_bytes())
    with pytest.raises(TrainingError, match="holds 2 .gguf files.*pass the .gguf file"):
        gguf_location(two)
    assert gguf_location(two / "b.gguf") == (two, "b.gguf")
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(TrainingError, match="not a model checkpoint.*weights.bin"):
        load_model(tmp_path / "weights.bin")
    with pytest.raises(TrainingError, match="there is no model"):
        load_model(tmp_path / "absent")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.gguf").write_bytes(b"GGUF not really")
    with pytest.raises(TrainingError, match="cannot load the model at .*broken.gguf"):
        load_model(bad)


def test_cli_trains_from_a_gguf_file(run, tiny_gguf, tmp_path):
    path, _ = tiny_gguf
    data = tmp_path / "train.jsonl"
    write_examples(EXAMPLES, data)
    out = tmp_path / "model"
    r = run("querygen", "train", "--data", str(data), "--out", str(out), "--model",
            str(path), "--max-steps", "2", "--batch-size", "2", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["steps"] == 2 and (out / "config.json").is_file()
    r = run("querygen", "train", "--data", str(data), "--out", str(tmp_path / "m2"),
            "--model", str(data))
    assert r.exit_code == 1 and "not a model checkpoint" in r.output


def test_the_default_learning_rate_suits_scratch_and_fine_tuning(tiny_gguf, tmp_path):
    from querygen.training import FINE_TUNE_LR, SCRATCH_LR

    opts = dict(max_steps=1, batch_size=2, size="tiny", vocab_size=300, save_every=0)
    train(EXAMPLES, tmp_path / "s", from_scratch=True, options=TrainOptions(**opts))
    train(EXAMPLES, tmp_path / "f", model_path=tiny_gguf[0], options=TrainOptions(**opts))
    used = [json.loads((tmp_path / d / "querygen.json").read_text())["options"]
            ["learning_rate"] for d in ("s", "f")]
    assert used == [SCRATCH_LR, FINE_TUNE_LR] and FINE_TUNE_LR < SCRATCH_LR
