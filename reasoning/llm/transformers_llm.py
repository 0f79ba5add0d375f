"""``TransformersLLM``: a local Hugging Face causal LM, CPU or GPU.

    pip install 'kgground[transformers]'
    llm = TransformersLLM("/models/Qwen2.5-0.5B-Instruct")        # device="auto": GPU if any
    llm = TransformersLLM("/models/smollm2.Q4_1.gguf")             # a GGUF file (or its folder)
    llm = llm_from_spec("local")                                   # the packaged SmolLM2

- ``path``: a folder that ``save_pretrained`` wrote (config, weights, tokenizer), a
  ``.gguf`` file, or a folder holding one ``.gguf``. A GGUF is converted once into a
  transformers folder in the user cache (``reasoning.llm.local.converted_folder``;
  ``cache_dir`` overrides where) and loaded from there.
- The prompt is the tokenizer's chat template when it has one (``add_generation_prompt``);
  otherwise the messages are written as ``Role: content`` lines followed by ``Assistant:``.
- ``temperature == 0`` decodes greedily (the same reply each time); above 0 it samples, ``n``
  sequences at once. ``seed`` makes sampling reproducible.
- ``max_tokens`` defaults to ``max_new_tokens`` (256); ``stop`` strings cut the text after
  generation (they are not part of the reply).
- ``complete_scored`` (the greedy reply with its tokens' log-probabilities) and ``score``
  (the log-probabilities of given continuations, nothing generated): see
  ``reasoning.llm.likelihood``. ``score`` runs the prompt once and the continuations as one
  batch on its cached keys and values.
- ``threads``: torch's CPU threads (``reasoning.llm.local.default_threads()`` when None; 0
  leaves torch's setting alone). torch's thread count is one per process: setting it here
  sets it for the whole process.
- A model is loaded once per process: instances for the same folder, device and dtype
  share the weights (and one lock: one generation at a time per model, since a model is
  not safe to share between concurrent ``generate`` calls).
- Nothing is downloaded (``local_files_only``); a missing folder or file is an
  ``LLMConfigError`` saying so.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasoning.llm.base import BaseLLM, Generation, Message, Request, apply_stop
from reasoning.llm.likelihood import ScoredReply
from store.errors import LLMConfigError, LLMError, require

PURPOSE = "the local transformers LLM backend"


@dataclass
class _Loaded:
    tokenizer: Any
    lm: Any
    lock: threading.Lock


_LOADED: dict[tuple[str, str, str | None], _Loaded] = {}
_LOADING = threading.Lock()


class TransformersLLM(BaseLLM):
    supports_scoring = True
    _stop_strings_work = True

    def __init__(self, path: str | Path, *, device: str = "auto", dtype: str | None = None,
                 max_new_tokens: int = 256, seed: int | None = None,
                 trust_remote_code: bool = False, threads: int | None = None,
                 cache_dir: str | Path | None = None, model: str | None = None):
        super().__init__()
        from reasoning.llm.local import converted_folder, default_threads, find_gguf

        self.path = Path(path).expanduser()
        self.model = model or f"hf:{self.path}"
        gguf = find_gguf(self.path)
        folder = converted_folder(gguf, cache_dir) if gguf is not None else self.path
        if not (folder / "config.json").is_file():
            raise LLMConfigError(f"no model folder at {self.path} (config.json is missing)",
                                 backend=self.model,
                                 fix="pass the folder that save_pretrained wrote (config, "
                                     "weights and tokenizer files), or a .gguf file; "
                                     "nothing is downloaded")
        self.folder = folder
        torch = require("torch", "transformers", PURPOSE)
        require("transformers", "transformers", PURPOSE)
        threads = default_threads() if threads is None else threads
        if threads < 0:
            raise LLMConfigError("threads must be 0 (torch's own setting) or more",
                                 backend=self.model, got=threads)
        if threads:
            torch.set_num_threads(threads)
        self.threads = torch.get_num_threads()
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device, self.max_new_tokens, self.seed = device, max_new_tokens, seed
        loaded = _load(folder, device, dtype, trust_remote_code, self.model)
        self.tokenizer, self.lm, self._lock = loaded.tokenizer, loaded.lm, loaded.lock
        self._torch = torch

    def __repr__(self) -> str:
        return f"TransformersLLM({str(self.path)!r}, device={self.device!r})"

    def prompt_text(self, request: Request) -> str:
        """The text the model continues: the chat template's, or plain role lines."""
        return self._prompt(request.message_dicts())

    def _prompt(self, messages: list[dict[str, str]]) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                      add_generation_prompt=True)
        lines = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
        return "\n".join(lines) + "\nAssistant:"

    def _encode(self, text: str) -> Any:
        inputs = self.tokenizer(text, return_tensors="pt", add_special_tokens=False)
        return {k: v.to(self.device) for k, v in inputs.items()}

    def _generate(self, request: Request) -> Generation:
        torch = self._torch
        inputs = self._encode(self.prompt_text(request))
        prompt_len = inputs["input_ids"].shape[1]
        sample = request.temperature > 0
        params: dict = {"max_new_tokens": request.max_tokens or self.max_new_tokens,
                        "do_sample": sample,
                        # greedy decoding gives one sequence; it is repeated n times below
                        "num_return_sequences": request.n if sample else 1,
                        "pad_token_id": self._pad_id()}
        if sample:
            params.update(temperature=request.temperature, top_k=0, top_p=1.0)
        with self._lock, torch.inference_mode():
            if self.seed is not None:
                torch.manual_seed(self.seed)
            out = self._run(inputs, params, request)
        new = out[:, prompt_len:]
        texts = [apply_stop(t, request.stop)
                 for t in self.tokenizer.batch_decode(new, skip_special_tokens=True)]
        if not sample:
            texts = texts * request.n
        return Generation(texts, int(prompt_len), int(new.numel()))

    # -- probabilities (reasoning.llm.likelihood) ---------------------------------------------
    def complete_scored(self, messages: Sequence[Message], *, max_tokens: int | None = None,
                        stop: str | Sequence[str] | None = None) -> ScoredReply:
        """The greedy reply, with each generated token's log-probability (end-of-reply and
        other special tokens left out); cut at ``stop`` like ``complete``."""
        torch = self._torch
        request = Request.build(self.model, messages, max_tokens=max_tokens, stop=stop)
        inputs = self._encode(self.prompt_text(request))
        prompt_len = inputs["input_ids"].shape[1]
        cap = request.max_tokens or self.max_new_tokens
        with self._lock, torch.inference_mode():
            out = self._run(inputs, {"max_new_tokens": cap, "do_sample": False,
                                     "pad_token_id": self._pad_id(), "output_logits": True,
                                     "return_dict_in_generate": True}, request)
        ids = out.sequences[0, prompt_len:].tolist()
        logprobs = [float(torch.log_softmax(step[0].float(), -1)[i])
                    for step, i in zip(out.logits, ids)]
        special = set(self.tokenizer.all_special_ids)
        kept = [(i, lp) for i, lp in zip(ids, logprobs) if i not in special]
        tokens = [self.tokenizer.decode([i]) for i, _ in kept]
        text = "".join(tokens)
        cut = apply_stop(text, request.stop)
        if len(cut) < len(text):
            pos, keep = 0, 0
            while keep < len(tokens) and pos < len(cut):
                pos += len(tokens[keep])
                keep += 1
            tokens, kept = tokens[:keep], kept[:keep]
        self._meter.add(completions=1, prompt_tokens=prompt_len, completion_tokens=len(ids))
        ended = bool(ids) and ids[-1] in special
        return ScoredReply(cut, tuple(tokens), tuple(lp for _, lp in kept),
                           truncated=not ended and len(ids) >= cap)

    def score(self, messages: Sequence[Message],
              continuations: Sequence[str]) -> list[tuple[float, ...]]:
        """For each continuation, its tokens' log-probabilities as the start of the
        assistant's reply to ``messages``: the prompt is run once, the continuations as
        one batch on its cached keys and values."""
        torch = self._torch
        if not continuations:
            return []
        request = Request.build(self.model, messages)
        prompt = self._encode(self.prompt_text(request))["input_ids"]
        conts = [self.tokenizer(c, add_special_tokens=False)["input_ids"] or
                 [self._pad_id() or 0] for c in continuations]
        width = max(len(c) for c in conts)
        pad = self._pad_id() or 0
        batch = torch.tensor([c + [pad] * (width - len(c)) for c in conts], device=self.device)
        mask = torch.tensor([[1] * len(c) + [0] * (width - len(c)) for c in conts],
                            device=self.device)
        n = len(conts)
        with self._lock, torch.inference_mode():
            try:
                first = self.lm(input_ids=prompt, use_cache=True)
                cache = getattr(first, "cache", None) or first.past_key_values
                cache.batch_repeat_interleave(n)
                attention = torch.cat([torch.ones(n, prompt.shape[1], dtype=mask.dtype,
                                                  device=self.device), mask], dim=1)
                rest = self.lm(input_ids=batch, attention_mask=attention, use_cache=False,
                               **{self._cache_arg(): cache})
            except (RuntimeError, ValueError) as exc:
                raise LLMError(f"scoring failed: {exc}", backend=self.model) from exc
            # the logits that predict each continuation token: the prompt's last, then the
            # continuation's own but its last
            logits = torch.cat([first.logits[:, -1:].expand(n, -1, -1),
                                rest.logits[:, :-1]], dim=1).float()
            logprobs = torch.log_softmax(logits, -1).gather(2, batch.unsqueeze(2))[..., 0]
        self._meter.add(completions=n, prompt_tokens=int(prompt.shape[1]),
                        completion_tokens=int(mask.sum()))
        return [tuple(float(x) for x in logprobs[i, :len(c)]) for i, c in enumerate(conts)]

    def _cache_arg(self) -> str:
        """The forward's name for cached keys and values (``cache`` in newer transformers,
        ``past_key_values`` before)."""
        import inspect
        return "cache" if "cache" in inspect.signature(self.lm.forward).parameters \
            else "past_key_values"

    def _run(self, inputs: dict, params: dict, request: Request) -> Any:
        """``generate``, stopping at the request's stop strings where the tokenizer lets
        transformers find them (a saving only: the text is cut at them afterwards; some
        tokenizers cannot map strings to tokens, and then generation runs to the cap)."""
        stopping = {"stop_strings": list(request.stop), "tokenizer": self.tokenizer} \
            if request.stop and self._stop_strings_work else {}
        try:
            return self.lm.generate(**inputs, **params, **stopping)
        except (RuntimeError, ValueError) as exc:
            if stopping:
                self._stop_strings_work = False
                return self._run(inputs, params, request)
            raise LLMError(f"generation failed: {exc}", backend=self.model) from exc

    def _pad_id(self) -> int | None:
        tok = self.tokenizer
        if tok.pad_token_id is not None:
            return tok.pad_token_id
        return tok.eos_token_id


def _load(folder: Path, device: str, dtype: str | None, trust_remote_code: bool,
          backend: str) -> _Loaded:
    """The tokenizer and model of ``folder`` on ``device``, loaded once per process."""
    key = (str(folder.resolve()), device, dtype)
    with _LOADING:
        if key in _LOADED:
            return _LOADED[key]
        torch = require("torch", "transformers", PURPOSE)
        transformers = require("transformers", "transformers", PURPOSE)
        kwargs: dict = {"local_files_only": True, "trust_remote_code": trust_remote_code}
        if dtype:
            kwargs["dtype"] = getattr(torch, dtype)
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, **{
                k: v for k, v in kwargs.items() if k != "dtype"})
            lm = transformers.AutoModelForCausalLM.from_pretrained(folder, **kwargs)
        except (OSError, ValueError) as exc:
            raise LLMConfigError(f"cannot load the model: {exc}", backend=backend,
                                 fix="check that the folder holds a causal LM and its "
                                     "tokenizer") from exc
        lm.to(device)
        lm.eval()
        _LOADED[key] = _Loaded(tokenizer, lm, threading.Lock())
        return _LOADED[key]
