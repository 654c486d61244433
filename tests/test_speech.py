"""Answers are cleaned for a voice: no reasoning, markdown or emoji reach TTS."""

import pytest

from custom_components.agentic_conversation.speech import (
    SpeechStreamCleaner,
    clean_for_speech,
    strip_reasoning,
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
        ("```yaml\nfoo: bar\n```", "foo: bar"),
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
    assert strip_reasoning("plan the call</think>The door is locked.") == (
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
