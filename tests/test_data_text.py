"""Data in an answer is recognised from its first characters and never spoken."""

import pytest

from custom_components.agentic_conversation.words.data_text import DataGate, split_data
from custom_components.agentic_conversation.words.speech import (
    SpeechStreamCleaner,
    clean_for_speech,
)

ENVELOPE = (
    '{"success": false, "error": "Unknown tool: todoHassAddItem", "valid_tools": '
    '["call_ser'
)

# (answer, what is spoken, the data blocks held back)
CASES = [
    (ENVELOPE, "", [ENVELOPE]),
    (
        '{"light": "Porch light", "state": "on"}',
        "",
        ['{"light": "Porch light", "state": "on"}'],
    ),
    (
        '[{"name": "Porch light", "state": "off"}]',
        "",
        ['[{"name": "Porch light", "state": "off"}]'],
    ),
    ('  [ "a", "b" ]', "", ['  [ "a", "b" ]']),
    ("[1, 2, 3]", "", ["[1, 2, 3]"]),
    (
        "```yaml\nlights:\n  porch: off\n```",
        "",
        ["```yaml\nlights:\n  porch: off\n```"],
    ),
    ("~~~\nx = 1\n~~~", "", ["~~~\nx = 1\n~~~"]),
    (
        "success: false\nerror: Unknown tool",
        "",
        ["success: false\nerror: Unknown tool"],
    ),
    ("lights:\n  - porch\n  - kitchen", "", ["lights:\n  - porch\n  - kitchen"]),
    ("state: on", "", ["state: on"]),
    ("- entity_id: light.porch", "", ["- entity_id: light.porch"]),
    (
        'Sure, here you go:\n```json\n{"a": 1}\n```\nAnything else?',
        "Sure, here you go:\nAnything else?",
        ['```json\n{"a": 1}\n```\n'],
    ),
    (
        'The light is on. {"state": "on"} Bye.',
        "The light is on.  Bye.",
        ['{"state": "on"}'],
    ),
    (
        "success: true\nresult: done\n\nThe porch light is on.",
        "The porch light is on.",
        ["success: true\nresult: done\n\n"],
    ),
    # A wrapped prose answer is spoken; data in a text fence is not.
    ("```\nThe porch light is on.\n```", "The porch light is on.\n", []),
    ('```text\n{"a": 1}\n```', "", ['```text\n{"a": 1}\n```']),
    # Prose that only looks like a start of data.
    ("note: the light is on.", "note: the light is on.", []),
    ("Note: 21 degrees.", "Note: 21 degrees.", []),
    ("http://example.com is the page", "http://example.com is the page", []),
    ("[redacted] is your key", "[redacted] is your key", []),
    ("[Porch light](http://x) is on", "[Porch light](http://x) is on", []),
    ("- Kitchen: on\n- Porch: off", "- Kitchen: on\n- Porch: off", []),
    ("- kitchen: on\n- porch: off", "- kitchen: on\n- porch: off", []),
    ("10:30 is the alarm", "10:30 is the alarm", []),
    ("I don't know {x} or [y]", "I don't know {x} or [y]", []),
    ("snake_case_name stays", "snake_case_name stays", []),
    ("okay, it is on", "okay, it is on", []),
    ("", "", []),
]


@pytest.mark.parametrize(("answer", "spoken", "blocks"), CASES)
def test_an_answer_is_split_into_its_prose_and_its_data(
    answer: str, spoken: str, blocks: list[str]
) -> None:
    """The prose is what may be spoken; the data blocks are kept for words."""
    assert split_data(answer) == (spoken, blocks)


@pytest.mark.parametrize(("answer", "spoken", "blocks"), CASES)
def test_a_streamed_answer_speaks_the_same_prose_in_pieces_of_any_size(
    answer: str, spoken: str, blocks: list[str]
) -> None:
    """However the answer is cut, the stream speaks what the whole text would."""
    for size in range(1, len(answer) + 1):
        gate = DataGate()
        heard = "".join(
            gate.feed(answer[i : i + size]) for i in range(0, len(answer), size)
        )
        assert heard + gate.flush() == spoken, size
        assert gate.blocks == blocks, size


@pytest.mark.parametrize(
    "answer",
    [
        ENVELOPE,
        '{"light": "Porch light", "state": "on"}',
        "```yaml\nlights:\n  porch: off\n```",
        '[{"name": "Porch light"}]',
        "success: false\nerror: x",
    ],
)
def test_nothing_of_data_is_released_before_the_answer_ends(answer: str) -> None:
    """From its first characters on, data is held: a streaming TTS gets none of it."""
    for size in (1, 2, 3, 5):
        cleaner = SpeechStreamCleaner()
        heard = [
            cleaner.feed(answer[i : i + size]) for i in range(0, len(answer), size)
        ]
        assert "".join(heard) == ""
        assert cleaner.flush() == ""
        assert cleaner.data


def test_an_ordinary_answer_streams_at_once() -> None:
    """No latency for words: each piece is released as it comes (but a token's tail)."""
    cleaner = SpeechStreamCleaner()
    assert cleaner.feed("The porch light ") == "The porch lig"
    assert cleaner.feed("is on now.") == "ht is on n"
    assert cleaner.flush() == "ow."
    assert not cleaner.data


def test_prose_after_a_data_block_is_spoken() -> None:
    """Text before data streams; the rest of the message waits for its end."""
    cleaner = SpeechStreamCleaner()
    heard = cleaner.feed("Here is the state of the porch.\n{") + cleaner.feed(
        '"state": "on"}\nIt is on.'
    )
    assert heard == "Here is the state of the porch."
    # The block's own line is left empty.
    assert cleaner.flush() == "\n\nIt is on."
    assert cleaner.data


def test_a_whole_answer_that_is_data_is_cleaned_to_nothing() -> None:
    """The finished answer's cleaning drops data too (and keeps the prose)."""
    assert clean_for_speech(ENVELOPE) == ""
    assert clean_for_speech("<think>plan</think>\n```yaml\na: 1\n```") == ""
    assert clean_for_speech('Done. {"state": "on"}') == "Done."


def test_a_huge_data_answer_is_held_whole() -> None:
    """10 MB of JSON that never closes: nothing spoken, one block, no crash."""
    huge = '{"result": [' + '"x", ' * 2_000_000
    gate = DataGate()
    heard = "".join(gate.feed(huge[i : i + 65536]) for i in range(0, len(huge), 65536))
    assert heard + gate.flush() == ""
    assert gate.blocks == [huge]
