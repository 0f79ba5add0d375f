"""The trained generator with the linker's entities: the instruction's ``Entities:`` line
is context (mask 0, token by token), the from-scratch tokenizer spells a name the same way
where it is read and where it is written, decoding constrained to the given labels (byte
by byte, on a real tokenizer and a model trained here), and the errors when the pieces do
not fit together."""

from __future__ import annotations

import pytest

from querygen.constrained import LabelTrie, SlotConstraint, token_bytes
from querygen.contrastive import linked_entities, prompt, segments
from querygen.dataset import Example
from querygen.negatives import Negative
from querygen.terms import lex

torch = pytest.importorskip("torch", reason="the transformers extra is not installed")
pytest.importorskip("transformers", reason="the transformers extra is not installed")

from querygen.training import (TrainingError, TrainOptions, build_tokenizer,  # noqa: E402
                               causal_features, train)
from querygen.trained import TrainedGenerator  # noqa: E402

torch.set_num_threads(1)

NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Marie Curie", "Niels Bohr",
         "Lise Meitner", "Emmy Noether", "Paul Dirac"]
PROPS = ["employer", "place of birth"]


def example(i: int, with_entities: bool = True) -> Example:
    name, prop = NAMES[i % len(NAMES)], PROPS[i % 2]
    gold = f"SELECT ?x WHERE {{ wd:/{name}/ wdt:/{prop}/ ?x . }}"
    words = "Who employed {}?" if prop == "employer" else "Where was {} born?"
    return Example(words.format(name), gold, "", (
        Negative("unlinked", gold.replace(f"wd:/{name}/", f"/{name}/"), ""),
        Negative("wrong_entity", gold.replace(name, "Paris"), ""),
        Negative("misspelled", gold.replace(name, name[:-1] + name[-1] * 2), ""),
        Negative("wrong_property", f"SELECT ?x WHERE {{ ?x wdt:/{prop}/ wd:/{name}/ . }}",
                 "")), entities=(name,) if with_entities else None)


EXAMPLES = [example(i) for i in range(16)]


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer([t for e in EXAMPLES for t, _ in segments(e)], vocab_size=500)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("qgen") / "model"
    train(EXAMPLES, out, from_scratch=True,
          options=TrainOptions(epochs=60, batch_size=8, size="tiny", vocab_size=500,
                               learning_rate=1e-2, warmup_steps=5, save_every=0))
    return out


def test_entities_line_is_instruction_not_target(tokenizer):
    ex = EXAMPLES[4]
    text = "".join(t for t, _ in segments(ex))
    assert text.startswith("Question: Who employed Niels Bohr?\nEntities: Niels Bohr\n"
                           "Correct query: SELECT")
    ids, mask = causal_features(ex, tokenizer, max_length=1024)
    on = tokenizer.decode([i for i, m in zip(ids, mask) if m])
    off = tokenizer.decode([i for i, m in zip(ids[1:], mask[1:]) if not m])
    assert on == "".join(t for t, q in segments(ex) if q)
    assert off.startswith(prompt(ex.question, ex.entities) + "Correct query:")
    # token by token: every token of the instruction (the Entities line included) is 0
    n = len(tokenizer(prompt(ex.question, ex.entities), add_special_tokens=False)["input_ids"])
    assert mask[:n + 1] == [0] * (n + 1) and tokenizer.decode(ids[1:n + 1]) == prompt(
        ex.question, ex.entities)
    assert prompt("Q?", []) == "Question: Q?\nEntities:\n" and prompt("Q?") == "Question: Q?\n"


def test_a_name_is_spelled_alike_where_read_and_where_written(tokenizer):
    ex = EXAMPLES[5]
    ids = tokenizer(prompt(ex.question, ex.entities) + "Correct query: " + ex.query,
                    add_special_tokens=False)["input_ids"]
    pieces = [tokenizer.decode([i]) for i in ids]
    text = "".join(pieces)
    read_at = text.index("Entities: ") + len("Entities: ")
    written_at = text.index("wd:/") + len("wd:/")

    def tokens_from(offset: int) -> list[str]:
        pos, out = 0, []
        for p in pieces:
            if pos >= offset and sum(map(len, out)) < len("Lise Meitner"):
                out.append(p)
            pos += len(p)
        return out

    assert tokens_from(read_at) == tokens_from(written_at)
    assert "".join(tokens_from(read_at)) == "Lise Meitner"


def test_label_trie_escapes_like_a_slot():
    trie = LabelTrie(["AC/DC", "Ada", "Ada", " ", ""])
    assert len(trie) == 2
    assert trie.walk(b"AC\\/D") is not None and trie.walk(b"AC/") is None
    assert trie.walk(b"Ada") is not None and trie.walk(b"Adb") is None


def test_constraint_allows_only_continuations_of_labels(tokenizer):
    pieces = token_bytes(tokenizer)
    # byte-level: every ordinary token's bytes decode back to the token's text
    some = [i for i, p in enumerate(pieces) if p][:50]
    assert all(pieces[i].decode("utf-8", "replace") == tokenizer.decode([i]) for i in some
               if pieces[i].isascii())
    labels = ["Ada Lovelace", "Alan Turing"]
    start_text = "SELECT ?x WHERE { wd:/A"
    ids = tokenizer(start_text, add_special_tokens=False)["input_ids"]
    constraint = SlotConstraint(pieces, 0, entities=LabelTrie(labels),
                                properties=LabelTrie(["employer"]))
    scores = torch.zeros(1, len(pieces))
    out = constraint(torch.tensor([ids]), scores.clone())
    allowed = [i for i in range(len(pieces)) if out[0, i] > float("-inf")]
    assert allowed, "some token must continue a label"
    for i in allowed:
        after = b"A" + pieces[i]
        assert any(lab.encode().startswith(after.split(b"/")[0]) for lab in labels)
        if b"/" in after:                    # a label may only close when complete
            assert after.split(b"/")[0].decode() in labels
    # the whole label is reachable, and a token leaving every label is masked
    ada = tokenizer("da Lovelace", add_special_tokens=False)["input_ids"][0]
    assert ada in allowed or any(pieces[i] == b"d" for i in allowed)
    zed = [i for i, p in enumerate(pieces) if p == b"Z"]
    assert zed and out[0, zed[0]] == float("-inf")
    # a property slot is held to the property labels, outside slots nothing changes
    ids = tokenizer("SELECT ?x WHERE { wd:/Ada Lovelace/ wdt:/", add_special_tokens=False)[
        "input_ids"]
    out = constraint(torch.tensor([ids]), torch.zeros(1, len(pieces)))
    assert all(b"employer/".startswith(pieces[i]) or pieces[i].startswith(b"employer/")
               or b"employer".startswith(pieces[i])
               for i in range(len(pieces)) if out[0, i] > float("-inf"))
    ids = tokenizer("SELECT ?x WHERE { wd:/Ada Lovelace/ ", add_special_tokens=False)[
        "input_ids"]
    assert torch.equal(constraint(torch.tensor([ids]), torch.ones(1, len(pieces))),
                       torch.ones(1, len(pieces)))


def _entity_slots(query: str) -> list[str]:
    return [t.label for t in lex(query) if t.kind == "slot" and t.prefix == "wd"]


def test_trained_generator_is_held_to_the_given_entities(trained):
    gen = TrainedGenerator(trained)
    assert gen.uses_entities
    asked = [("Who employed Grace Hopper?", ["Emmy Noether"]),
             ("Where was Ada Lovelace born?", ["Ada Lovelace"]),
             ("Who employed Rosalind Franklin?", ["Rosalind Franklin"])]
    slots = []
    for question, entities in asked:
        for q in gen.generate(question, entities=entities, n=3):
            # whatever the question says, an entity slot holds one of the given labels
            assert set(_entity_slots(q)) <= set(entities), q
            slots += _entity_slots(q)
    assert "Emmy Noether" in slots and "Ada Lovelace" in slots
    # without the constraint the model writes what it likes (here: the question's name)
    loose = TrainedGenerator(trained, constrain=False)
    written = loose.generate("Who employed Grace Hopper?", entities=["Emmy Noether"], n=3)
    assert any(set(_entity_slots(q)) - {"Emmy Noether"} for q in written)


def test_a_model_trained_with_entities_needs_them(trained):
    with pytest.raises(TrainingError, match="no linker was given"):
        TrainedGenerator(trained).generate("Who employed Grace Hopper?")


def test_examples_with_and_without_entities_do_not_mix(tmp_path):
    mixed = EXAMPLES[:2] + [example(5, with_entities=False)]
    with pytest.raises(TrainingError, match="some examples list"):
        train(mixed, tmp_path / "m", from_scratch=True,
              options=TrainOptions(max_steps=1, size="tiny", vocab_size=300))
    plain = [example(i, with_entities=False) for i in range(4)]
    train(plain, tmp_path / "p", from_scratch=True,
          options=TrainOptions(max_steps=1, size="tiny", vocab_size=300, save_every=0))
    with pytest.raises(TrainingError, match="trained without the question's entities"):
        train(EXAMPLES[:4], tmp_path / "p", from_scratch=True, resume=True,
              options=TrainOptions(max_steps=2, size="tiny", vocab_size=300))


def test_linked_entities_on_a_real_kb(demo_mirror_path):
    import kb as kbmod
    from linking import EntityLinker

    linker = EntityLinker(kbmod.open(demo_mirror_path))
    found = linked_entities(linker, "Who employed Marie Curie?")
    assert found[:1] == ["Marie Curie"]
    assert linked_entities(linker, "Who?") == []
