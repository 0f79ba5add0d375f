"""``TransformersLLM``: a local Hugging Face causal LM (a folder with config, weights and
tokenizer), CPU or GPU.

    pip install 'kgground[transformers]'
    llm = TransformersLLM("/models/Qwen2.5-0.5B-Instruct")        # device="auto": GPU if any

- The prompt is the tokenizer's chat template when it has one (``add_generation_prompt``);
  otherwise the messages are written as ``Role: content`` lines followed by ``Assistant:``.
- ``temperature == 0`` decodes greedily (the same reply each time); above 0 it samples, ``n``
  sequences at once. ``seed`` makes sampling reproducible.
- ``max_tokens`` defaults to ``max_new_tokens`` (256); ``stop`` strings cut the text after
  generation (they are not part of the reply).
- Nothing is downloaded: the folder must hold the model (``local_files_only``); a missing
  folder or file is an ``LLMConfigError`` saying so.
- One generation at a time per instance (a lock): a model is not safe to share between
  concurrent ``generate`` calls.
"""

from __future__ import annotations

import threading
from pathlib import Path

from reasoning.llm.base import BaseLLM, Generation, Request, apply_stop
from store.errors import LLMConfigError, LLMError, require

PURPOSE = "the local transformers LLM backend"


class TransformersLLM(BaseLLM):
    def __init__(self, path: str | Path, *, device: str = "auto", dtype: str | None = None,
                 max_new_tokens: int = 256, seed: int | None = None,
                 trust_remote_code: bool = False):
        super().__init__()
        self.path = Path(path).expanduser()
        self.model = f"hf:{self.path}"
        if not (self.path / "config.json").is_file():
            raise LLMConfigError(f"no model folder at {self.path} (config.json is missing)",
                                 backend=self.model,
                                 fix="pass the folder that save_pretrained wrote (config, "
                                     "weights and tokenizer files); nothing is downloaded")
        torch = require("torch", "transformers", PURPOSE)
        transformers = require("transformers", "transformers", PURPOSE)
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device, self.max_new_tokens, self.seed = device, max_new_tokens, seed
        kwargs: dict = {"local_files_only": True, "trust_remote_code": trust_remote_code}
        if dtype:
            kwargs["dtype"] = getattr(torch, dtype)
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, **{
                k: v for k, v in kwargs.items() if k != "dtype"})
            self.lm = transformers.AutoModelForCausalLM.from_pretrained(self.path, **kwargs)
        except (OSError, ValueError) as exc:
            raise LLMConfigError(f"cannot load the model: {exc}", backend=self.model,
                                 fix="check that the folder holds a causal LM and its "
                                     "tokenizer") from exc
        self.lm.to(device)
        self.lm.eval()
        self._torch = torch
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TransformersLLM({str(self.path)!r}, device={self.device!r})"

    def prompt_text(self, request: Request) -> str:
        """The text the model continues: the chat template's, or plain role lines."""
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(request.message_dicts(), tokenize=False,
                                                      add_generation_prompt=True)
        lines = [f"{role.capitalize()}: {content}" for role, content in request.messages]
        return "\n".join(lines) + "\nAssistant:"

    def _generate(self, request: Request) -> Generation:
        torch = self._torch
        text = self.prompt_text(request)
        inputs = self.tokenizer(text, return_tensors="pt", add_special_tokens=False)
        inputs = {k: v.to(self.device) for k, v in inputs.items()}
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
            try:
                out = self.lm.generate(**inputs, **params)
            except (RuntimeError, ValueError) as exc:
                raise LLMError(f"generation failed: {exc}", backend=self.model) from exc
        new = out[:, prompt_len:]
        texts = [apply_stop(t, request.stop)
                 for t in self.tokenizer.batch_decode(new, skip_special_tokens=True)]
        if not sample:
            texts = texts * request.n
        return Generation(texts, int(prompt_len), int(new.numel()))

    def _pad_id(self) -> int | None:
        tok = self.tokenizer
        if tok.pad_token_id is not None:
            return tok.pad_token_id
        return tok.eos_token_id
