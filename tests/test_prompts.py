"""reasoning.prompts: rendering, recognizing, and lenient reply parsing."""

from __future__ import annotations

import pytest

from reasoning import prompts


@pytest.mark.parametrize("prompt, fields", [
    (prompts.ANSWER, {"question": "Who wrote Dune?"}),
    (prompts.COT, {"question": "Who wrote Dune?\nThink twice."}),
    (prompts.PARAPHRASE, {"question": "Who wrote Dune?"}),
    (prompts.TRANSLATE, {"language": "Chinese", "question": "Who wrote Dune?"}),
    (prompts.JUDGE, {"question1": "q1", "answer1": "Frank Herbert", "question2": "问题",
                     "answer2": "弗兰克·赫伯特"}),
])
def test_every_prompt_is_recognized_with_its_fields(prompt, fields):
    assert prompts.identify(prompt.render(**fields)) == (prompt.task, fields)


def test_other_messages_are_not_recognized():
    assert prompts.identify([{"role": "user", "content": "Question: x\nAnswer:"}]) is None
    msgs = prompts.ANSWER.render(question="x")
    msgs[0] = {"role": "system", "content": "something else"}
    assert prompts.identify(msgs) is None


@pytest.mark.parametrize("reply, answer", [
    ("Paris", "Paris"),
    ("  **Paris**.\n", "Paris"),
    ("Let me think.\nFrance's capital is Paris.\nAnswer: Paris", "Paris"),
    ("Step 1: answer: maybe Lyon\nFinal answer: \"Paris\".", "Paris"),
    ("答案：巴黎。", "巴黎"),
    ("Answer: The Beatles", "The Beatles"),
    ("", ""),
])
def test_extract_answer(reply, answer):
    assert prompts.extract_answer(reply) == answer


def test_clean_line_drops_labels_and_quotes():
    assert prompts.clean_line('Rewritten question: "Where is X?"\nmore') == "Where is X?"
    assert prompts.clean_line("\n\nTranslation: 请问：X？") == "请问：X？"


@pytest.mark.parametrize("reply, verdict", [
    ("True", True), ("true.", True), ("**True**", True), ("Yes, they agree.", True),
    ("TRUE - both say Paris", True), ("是", True), ("一致", True),
    ("False", False), ("false", False), ("No.", False), ("Not equivalent", False),
    ("**False** — different answers", False), ("不一致", False), ("否", False),
    ("The answer is False.", False), ("I think it's true", True),
    ("", None), ("Maybe", None), ("True or False? Hard to say", None),
])
def test_parse_bool_is_robust(reply, verdict):
    assert prompts.parse_bool(reply) is verdict


def test_normalize_answer():
    assert prompts.normalize_answer("The Beatles!") == "beatles"
    assert prompts.normalize_answer("  Zürich ") == prompts.normalize_answer("zurich")
    assert prompts.normalize_answer("São  Paulo.") == "sao paulo"


def test_languages():
    assert prompts.language_name("zh") == "Chinese"
    assert prompts.language_code("chinese") == "zh"
