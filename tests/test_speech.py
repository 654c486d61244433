"""Answers are cleaned for a voice: no reasoning, markdown or emoji reach TTS."""

import pytest

from custom_components.agentic_conversation.agent.reasoning_text import (
    without_reasoning,
)
from custom_components.agentic_conversation.words.speech import (
    SpeechStreamCleaner,
    clean_for_speech,
    speech_budget,
)


@pytest.mark.parametrize(
    ("raw", "spoken"),
    [
        ("The light is **on**.", "The light is on."),
        (
            "<think>user wants light</think>Done, the light is on.",
            "Done, the light is on.",
        ),
        ("<think>\nplan\n</think>\n\nIt is 21 °C.", "It is 21 °C."),
        (
            "## Weather\n- Today: *sunny*\n- Tomorrow: rain",
            "Weather\nToday: sunny\nTomorrow: rain",
        ),
        ("1. Kitchen\n2. Porch", "Kitchen\nPorch"),
        ("See [the docs](https://example.com) 🌞👍", "See the docs"),
        ("Use `light.turn_on`.", "Use light.turn_on."),
        ("```yaml\nfoo: bar\n```", ""),  # data: never spoken (data_text.py)
        ("```\nThe light is on.\n```", "The light is on."),
        ("| Room | Temp |\n|---|---|\n| Kitchen | 21 |", "Room, Temp\nKitchen, 21"),
        ("It is 5 - 6 degrees, feels like 3.", "It is 5 - 6 degrees, feels like 3."),
        ("snake_case_name stays", "snake_case_name stays"),
        ("<think>never closed", ""),
    ],
)
def test_clean_for_speech(raw: str, spoken: str) -> None:
    """What a TTS engine would be given for typical model output."""
    assert clean_for_speech(raw) == spoken


def test_stray_closing_tag_drops_the_reasoning_before_it() -> None:
    """Some servers strip the opening <think> but send the closing one."""
    assert without_reasoning("plan the call</think>The door is locked.") == (
        "The door is locked."
    )


def _stream(chunks: list[str]) -> str:
    cleaner = SpeechStreamCleaner()
    return "".join(cleaner.feed(chunk) for chunk in chunks) + cleaner.flush()


@pytest.mark.parametrize(
    ("chunks", "spoken"),
    [
        (
            ["<thi", "nk>secret", " plan</th", "ink>\n", "The light ", "is **on**."],
            "The light is on.",
        ),
        (["It is 5 ", "- 6 degrees."], "It is 5 - 6 degrees."),
        (["- first\n", "- second"], "first\nsecond"),
        (["Bold **wo", "rd** here"], "Bold word here"),
        (["a < b and ", "c"], "a < b and c"),
        (["<think>unfinished"], ""),
    ],
)
def test_stream_cleaner_handles_tokens_split_across_deltas(
    chunks: list[str], spoken: str
) -> None:
    """Deltas are cleaned as they arrive, even when a tag or token is split."""
    assert _stream(chunks) == spoken


def test_stream_cleaner_releases_text_before_the_stream_ends() -> None:
    """TTS can start early: text is released during the stream, not only at flush."""
    cleaner = SpeechStreamCleaner()
    released = cleaner.feed("Turning on the kitchen light now.\n")
    assert released == "Turning on the kitchen light now."
    # the newline was held back until words followed it
    assert cleaner.feed("Done") == "\nD"
    assert cleaner.flush() == "one"


def test_stream_never_ends_in_whitespace_left_by_a_removed_emoji() -> None:
    """A trailing emoji or blank line leaves no dangling space in what TTS gets."""
    cleaner = SpeechStreamCleaner()
    spoken = cleaner.feed("Hello there! ") + cleaner.feed("\U0001f44b\n\n")
    assert spoken + cleaner.flush() == "Hello there!"


def _sentences(count: int) -> str:
    """`count` different sentences of one length (a sentence said twice is cut)."""
    return "".join(
        f"Light {number:06d} is on and the heating is set to twenty degrees. "
        for number in range(count)
    )


SENTENCE_CHARS = len(_sentences(1))


def test_a_reply_past_its_budget_is_cut_at_a_sentence_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 10 MB answer to a 1024-token request: 8192 characters at most, whole sentences."""
    budget = speech_budget(1024)
    assert budget == 8192
    huge = _sentences(10_000_000 // SENTENCE_CHARS)

    spoken = clean_for_speech(huge, budget)

    assert spoken == _sentences(budget // SENTENCE_CHARS).strip()
    assert "longer than the agent asked for" in caplog.text
    assert clean_for_speech(_sentences(3), budget) == _sentences(3).strip()
    assert speech_budget(0) is None


def test_a_streamed_reply_past_its_budget_stops_at_a_sentence_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Streamed in small deltas: the speech stops after the last whole sentence."""
    cleaner = SpeechStreamCleaner(budget=1000)
    text = _sentences(200)
    deltas = [text[i : i + 7] for i in range(0, len(text), 7)]

    spoken = "".join(cleaner.feed(delta) for delta in deltas) + cleaner.flush()

    assert spoken == _sentences(1000 // SENTENCE_CHARS).strip()
    assert "cut after" in caplog.text


def test_a_streamed_reply_within_its_budget_is_spoken_whole() -> None:
    """Near the end of the budget sentences wait until they are whole, then are said."""
    text = _sentences(3) + "Done."
    cleaner = SpeechStreamCleaner(budget=len(text))
    head, tail = text[:-3], text[-3:]

    before = "".join(cleaner.feed(head[i : i + 5]) for i in range(0, len(head), 5))

    assert before == _sentences(3).strip()  # "Do" waits for its sentence's end
    assert before + cleaner.feed(tail) + cleaner.flush() == text


# Every family's reasoning markup (agent/reasoning_text.py), with the answer after it.
FAMILIES = [
    "<think>\nThe user wants the porch.\n</think>\n\n",
    "<thinking>The user wants the porch.</thinking>",
    "<reasoning>The user wants the porch.</reasoning>\n",
    "[THINK]The user wants the porch.[/THINK]",
    "<seed:think>The user wants the porch.</seed:think>",
    "<|START_THINKING|>The user wants the porch.<|END_THINKING|>",
    "◁think▷The user wants the porch.◁/think▷",
    "<|begin_of_thought|>The user wants the porch.<|end_of_thought|>\n",
    "<|channel|>analysis<|message|>The user wants the porch.<|end|>",
    "The user wants the porch.</think>\n",  # the template opened the block
    "The user wants the porch.[/THINK]",
]
ANSWER = "The porch light is on."


@pytest.mark.parametrize("reasoning", FAMILIES)
def test_every_familys_reasoning_is_not_spoken(reasoning: str) -> None:
    """Whole or streamed in pieces of three, only the answer after it is heard."""
    raw = reasoning + ANSWER
    assert clean_for_speech(raw) == ANSWER
    assert _stream([raw]) == ANSWER
    if not reasoning.startswith("The user"):  # a block opened in the stream
        assert _stream([raw[i : i + 3] for i in range(0, len(raw), 3)]) == ANSWER
        unclosed = "It is on. " + reasoning[: reasoning.index("porch")]
        assert clean_for_speech(unclosed) == "It is on."
        assert _stream(list(unclosed)) == "It is on."


_SPLIT = "Sure. [THINK]porch, [maybe] kitchen[/THINK] The porch light is on."


@pytest.mark.parametrize("first", range(1, len(_SPLIT)))
def test_a_reasoning_block_split_at_any_point_is_not_spoken(first: int) -> None:
    """Two deltas, cut anywhere (inside a tag too): the same words are heard."""
    assert _stream([_SPLIT[:first], _SPLIT[first:]]) == "Sure. The porch light is on."


@pytest.mark.parametrize("first", range(1, len("</think>") + 1))
def test_a_closing_tag_first_drops_what_came_before_it(first: int) -> None:
    """The block was opened in the prompt: its end, even cut, is not spoken."""
    raw = "\n</think>\n\nThe porch light is on."
    cut = raw.index("</think>") + first
    assert _stream([raw[:cut], raw[cut:]]) == "The porch light is on."
    # in one delta, what came before the closing tag is dropped with it
    assert _stream(["wants the porch</think>", "\nThe porch light is on."]) == (
        "The porch light is on."
    )


def test_ordinary_text_is_released_at_once() -> None:
    """Text that cannot begin a tag is not held back for one."""
    cleaner = SpeechStreamCleaner()
    # the last three characters may be half a markdown token; `[` may begin `[THINK]`
    assert cleaner.feed("The porch light is on. It reads 5 [") == (
        "The porch light is on. It reads"
    )
    assert cleaner.feed("approx.] degrees.\n") == " 5 [approx.] degrees."
    assert cleaner.flush() == ""


def test_strange_and_huge_text_is_cleaned_without_raising() -> None:
    """Lone surrogates and 10 MB, whole and streamed, in time linear in the text."""
    huge = "\ud800<think>" + "[THINK]◁" * 1_300_000 + "</think>OK \udfff"
    assert clean_for_speech(huge) == "\ud800OK \udfff"
    cleaner = SpeechStreamCleaner()
    streamed = "".join(
        cleaner.feed(huge[i : i + 4096]) for i in range(0, len(huge), 4096)
    )
    assert streamed + cleaner.flush() == "\ud800OK \udfff"


def _stream_opened(chunks: list[str]) -> tuple[list[str], str]:
    """Each delta's spoken words, and the end's, for a model whose template opens reasoning."""
    cleaner = SpeechStreamCleaner(reasoning_opened=True)
    return [cleaner.feed(chunk) for chunk in chunks], cleaner.flush()


@pytest.mark.parametrize("first", range(1, len("</think>") + 1))
def test_reasoning_opened_in_the_prompt_is_never_streamed(first: int) -> None:
    """Known to open its reasoning in the prompt: nothing is said before its end shows."""
    raw = "The user wants the porch light. I will say so.</think>\n\nIt is on."
    cut = raw.index("</think>") + first
    fed, end = _stream_opened(
        ["The user wants", raw[len("The user wants") : cut], raw[cut:]]
    )
    assert fed[:2] == ["", ""]
    assert "".join(fed) + end == "It is on."


@pytest.mark.parametrize(
    ("chunks", "spoken"),
    [
        # No reasoning this time: all of it is said, at the end.
        (["The porch ", "light is on."], "The porch light is on."),
        # The model opened the block itself: what it wrote before it is the answer.
        (["Sure. <thi", "nk>plan</think> The light is on."], "Sure. The light is on."),
        # An empty block opened in the prompt.
        (["</think>", "\n\nDone."], "Done."),
    ],
)
def test_reasoning_opened_in_the_prompt_other_answers(
    chunks: list[str], spoken: str
) -> None:
    """What such a model writes without a block's end, or with its own block."""
    fed, end = _stream_opened(chunks)
    assert "".join(fed) + end == spoken
