"""Each language of our understanding is data: its file reads, its sentences compile.

A sentence is read as HA's intent and the words of its device, whatever the home
calls it; words that are not a command ("the vacuum", a question) are no reading.
"""

import pytest

from custom_components.agentic_conversation.understanding.reading import (
    MAX_CHARS,
    reader,
)
from custom_components.agentic_conversation.understanding.words import (
    language_words,
    supported,
)


@pytest.mark.parametrize(
    ("language", "text", "intent", "name"),
    [
        ("en", "stop vacuuming", "HassVacuumReturnToBase", "vacuuming"),
        ("en", "ceiling fan on", "HassTurnOn", "fan"),  # "on" makes it a command
        ("en", "add milk to my groceries", "HassListAddItem", "groceries"),
        ("de", "starte den Staubsauger", "HassVacuumStart", "staubsauger"),
        ("de", "mach den Ventilator an", "HassTurnOn", "ventilator"),
        ("fr", "démarre l'aspirateur", "HassVacuumStart", "aspirateur"),
        ("es", "inicia la aspiradora", "HassVacuumStart", "aspiradora"),
        ("nl", "start de stofzuiger", "HassVacuumStart", "stofzuiger"),
        ("it", "avvia l'aspirapolvere", "HassVacuumStart", "aspirapolvere"),
        ("de-CH", "starte den Staubsauger", "HassVacuumStart", "staubsauger"),
    ],
)
def test_a_sentence_is_read_in_its_language(
    language: str, text: str, intent: str, name: str
) -> None:
    """The intent, and the device's words as said (articles may come with them)."""
    sentences = reader(language)
    assert sentences is not None
    readings = {
        (r.intent, r.name.split()[-1].split("'")[-1]) for r in sentences.read(text)
    }
    assert (intent, name) in readings


@pytest.mark.parametrize("language", ["en", "de", "fr", "es", "nl", "it"])
def test_every_language_has_device_words_and_skip_words(language: str) -> None:
    """Lights, fans and vacuums have words in each language; articles name nothing."""
    words = language_words(language)
    assert words is not None
    assert {"light", "fan", "vacuum", "todo"} <= set(words.device_words)
    assert words.skip
    assert words.plural_endings


@pytest.mark.parametrize(
    "text",
    [
        "the vacuum",  # a name, no verb
        "is the vacuum cleaning",  # a question
        "tell me a joke",
        "start the vacuum " * (MAX_CHARS // 10),  # longer than any command
    ],
)
def test_no_command_no_reading_that_acts(text: str) -> None:
    """Nothing in these is a verb we act on with a device after it."""
    sentences = reader("en")
    assert sentences is not None
    found = sentences.read(text)
    assert [r for r in found if r.name in {"vacuum", "the vacuum"}] == []


def test_a_language_without_a_file_is_not_read() -> None:
    """Polish has no file here: HA's own recognition only."""
    assert not supported("pl")
    assert reader("pl") is None
