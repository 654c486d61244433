"""A model in a loop: its answer ends before the first sentence it says again.

Small models repeat a sentence up to their token limit ("The weather is lovely, too."
forty times, tried on the dev server's model); a satellite would read it for minutes.
What was said before the repeat is heard, kept, and sent back to the model. So do
they repeat a word or a few within a sentence ("French French French …"): the words
that go round are said once.
"""

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.words.loops import cut_repeats
from custom_components.agentic_conversation.words.speech import SpeechStreamCleaner
from tests.assist_pipeline import RecordingTTS, open_satellite, run_pipeline
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, converse, speech

_EN_SAID = (
    "I'm here to help.\n\nThe weather is lovely, and it's a beautiful day.\n\n"
    "The weather is lovely, too, and it's a beautiful day."
)
# A loop as small models write it, what of it is heard, and the sentence said again.
LOOPS = {
    "en": (
        _EN_SAID + "\n\nThe weather is lovely, too, and it's a beautiful day." * 40,
        _EN_SAID,
        "the weather is lovely, too, and it's a beautiful day.",
    ),
    "de": (
        "Ich habe eine neue Antwort. Las ganefallen, dass ich aufwölle. " * 30,
        "Ich habe eine neue Antwort. Las ganefallen, dass ich aufwölle.",
        "ich habe eine neue antwort.",
    ),
    "fr": (
        "La lumière de la cuisine.\nLa cuisine est un lieu de lumière.\n" * 25,
        "La lumière de la cuisine.\nLa cuisine est un lieu de lumière.",
        "la lumière de la cuisine.",
    ),
}


# Loops within a sentence, as small models write them, and what of them is heard.
WORD_LOOPS = {
    "en": (
        "I speak English and French" + " French" * 400 + ".",
        "I speak English and French",
        "french",
    ),
    "de": (
        "Ich schalte das Licht in der Küche ein" + ", in der Küche ein" * 60 + ".",
        "Ich schalte das Licht in der Küche ein,",
        "in der küche ein",
    ),
    "fr": (
        "D'accord, la lumière du salon est allumée" + " allumée" * 8,
        "D'accord, la lumière du salon est allumée",
        "allumée",
    ),
}


@pytest.fixture
def language() -> str:
    """The satellite's language (tests parametrize this)."""
    return "en"


@pytest.fixture
async def satellite(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    language: str,
) -> AsyncGenerator[Any]:
    """A websocket client whose preferred pipeline is our agent and the recorder."""
    agent = await add_agent(ha_core, fake_llm)
    ws = await open_satellite(ha_core, hass_ws_client, agent, language)
    yield ws
    await ws.close()


# Each kind of loop: its examples, what the log says the model did, the stream's pieces.
KINDS = {
    "sentence": (LOOPS, "a sentence again", 5),
    "words": (WORD_LOOPS, "the same words again and again", 3),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("language", ["en", "de", "fr"])
async def test_a_satellite_hears_the_loop_once_and_it_is_kept_so(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    recorder: RecordingTTS,
    satellite: Any,
    hass_client: ClientSessionGenerator,
    *,
    kind: str,
    language: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Streamed in pieces: heard up to the repeat, logged once, kept as heard."""
    loops, what, chunk_size = KINDS[kind]
    loop, heard, repeated = loops[language]
    fake_llm.script([Reply.text(loop, chunk_size=chunk_size), Reply.text("Okay.")])
    http = await hass_client()

    output, _ = await run_pipeline(ha_core, satellite, http, "hello", language)

    assert recorder.said == [heard]
    assert output["response"]["speech"]["plain"]["speech"] == heard
    cuts = [r.getMessage() for r in caplog.records if "The model said" in r.message]
    cut = (
        f"The model said {what} ({repeated!r}): its answer is cut there, "
        f"after {len(heard)} characters; the rest is not spoken"
    )
    assert cuts == [cut]
    await run_pipeline(
        ha_core, satellite, http, "thanks", conversation_id=output["conversation_id"]
    )
    history = fake_llm.requests[-1]["messages"]
    assert [m["content"] for m in history if m["role"] == "assistant"] == [heard]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("language", ["en", "de", "fr"])
async def test_a_loop_answered_whole_is_said_once(
    ha_core: HomeAssistant, fake_llm: FakeLLM, kind: str, language: str
) -> None:
    """Without streaming (or over text) the answer is cut the same way."""
    agent = await add_agent(ha_core, fake_llm, stream=False)
    loop, heard, _ = KINDS[kind][0][language]
    fake_llm.script([Reply.text(loop)])

    result = await converse(ha_core, agent, "hello", language=language)

    assert speech(result) == heard


@pytest.mark.parametrize(
    ("kind", "chunk_size", "fewest", "most"),
    [
        # 2,322 characters: 465 chunks and the end. The repeat is whole at 177
        # characters, and the HA side reads it a chunk or so later.
        ("sentence", 5, len(LOOPS["en"][1]) // 5, 100),
        # 2,828 characters: 404 chunks. The sixth "French" ends at 61 characters.
        ("words", 7, 61 // 7, 40),
    ],
)
async def test_the_model_is_stopped_once_its_loop_is_heard(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    *,
    kind: str,
    chunk_size: int,
    fewest: int,
    most: int,
) -> None:
    """Its stream is closed soon after the loop: the model does not write on."""
    agent = await add_agent(ha_core, fake_llm)
    loop, heard, _ = KINDS[kind][0]["en"]
    fake_llm.script([Reply.text(loop, chunk_size=chunk_size).paced(0.005)])

    result = await converse(ha_core, agent, "hello")

    assert speech(result) == heard
    async with asyncio.timeout(5):  # the server sees it at its next chunk
        left = await fake_llm.wait_for_left()
    assert len(left) == 1
    assert fewest < left[0] < most


async def test_thoughts_that_go_round_are_not_the_answer(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A sentence the model thinks twice is no repeat: the answer after it is said."""
    agent = await add_agent(ha_core, fake_llm)
    thought = "Let me check the lights once more. "
    fake_llm.script(
        [Reply.text(f"<think>{thought * 3}</think>All the lights are off now.")]
    )

    result = await converse(ha_core, agent, "are the lights off?")

    assert speech(result) == "All the lights are off now."


@pytest.mark.parametrize(
    "answer",
    [
        "Yes. Yes, it is. Yes.",  # short sentences may well come twice
        "OK. OK, OK.",
        "Milk\nEggs\nMilk\nBread",  # so may a list's items
        # Alike at the start, then different: both are said.
        "The kitchen light is on. The kitchen light is dimmed to half.",
        "The porch light is on.\nThe porch light is on, and so is the hall light.",
        # The same words in another sentence are no repeat.
        "It is sunny today! It is sunny today, they say.",
        "Version 2.5 is installed. Version 2.5 is installed on the hub too.",
        # Words said again a few times, or twice over, are no loop.
        "Ha ha ha ha ha! That's a good one.",
        "It is very, very, very cold today.",
        "No, no, no, no, that is not what I meant.",
        "The week: rain, rain, rain, rain, rain, sun, rain.",
        "Tick tock, tick tock. Time is up.",
        "Knock knock. Who's there? Knock knock.",
        "The hall light, the hall light and the porch light are on.",
        "Turn on the light in the kitchen, then the light in the hall.",
        "Sehr, sehr, sehr gut! Das Licht ist an, das Licht ist aus.",
        "Il fait beau, beau, beau aujourd'hui.",
        "你好我好大家好" * 10,  # no spaces between words: nothing is looked for
    ],
)
@pytest.mark.parametrize("chunk_size", [1, 4, 1000])
def test_answers_that_are_no_loop_are_said_whole(answer: str, chunk_size: int) -> None:
    """Streamed in any pieces, an answer without a repeated sentence passes whole."""
    cleaner = SpeechStreamCleaner(budget=8192)
    pieces = [answer[i : i + chunk_size] for i in range(0, len(answer), chunk_size)]

    spoken = "".join(cleaner.feed(piece) for piece in pieces) + cleaner.flush()

    assert spoken == answer
    assert cut_repeats(answer) == answer


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 8, 13, 64, 10_000])
def test_a_loop_is_cut_alike_in_any_pieces(chunk_size: int) -> None:
    """Every cut of the stream gives the same words; the first of them pass at once."""
    loop, heard, _ = LOOPS["en"]
    cleaner = SpeechStreamCleaner(budget=8192)
    pieces = [loop[i : i + chunk_size] for i in range(0, len(loop), chunk_size)]

    said = [cleaner.feed(piece) for piece in pieces]

    assert "".join(said) + cleaner.flush() == heard
    if chunk_size < 10:  # "I'm here" is on its way before its sentence ends
        assert "".join(said[: 12 // chunk_size + 1]).startswith("I'm")


@pytest.mark.parametrize("chunk_size", [1, 3, 1000])
def test_a_loop_of_short_lines_ends_at_the_third_time(chunk_size: int) -> None:
    """SmolLM2's joke: a short line may come twice, the third time ends the answer."""
    years = ["2019", "2020", "2020", "2022", *["2022"] * 3, *["2024"] * 50]
    joke = "\n\n".join(f"A: {year}\n{year}: {year}" for year in years)
    cleaner = SpeechStreamCleaner(budget=8192)
    pieces = [joke[i : i + chunk_size] for i in range(0, len(joke), chunk_size)]

    spoken = "".join(cleaner.feed(piece) for piece in pieces) + cleaner.flush()

    assert spoken == (
        "A: 2019\n2019: 2019\n\nA: 2020\n2020: 2020\n\nA: 2020\n2020: 2020\n\n"
        "A: 2022\n2022: 2022\n\nA: 2022\n2022: 2022"
    )


@pytest.mark.parametrize(
    ("loop", "heard"),
    [
        (WORD_LOOPS["en"][0], WORD_LOOPS["en"][1]),
        (WORD_LOOPS["de"][0], WORD_LOOPS["de"][1]),
        (WORD_LOOPS["fr"][0], WORD_LOOPS["fr"][1]),
        ("Ha ha ha ha ha ha ha ha ha ha", "Ha"),
        (
            "Sure! Turning on the lights, the lights, the lights, the lights",
            "Sure! Turning on the lights,",
        ),
        ("OK. 2024, 2024, 2024, 2024, 2024, 2024, 2024, 2024", "OK. 2024,"),
        # A short sentence said a third time is cut as a sentence, as before.
        ("Done. Done. " + "Done. " * 10, "Done. Done."),
        (
            "One two three four five six seven eight " * 3,
            "One two three four five six seven eight",
        ),
    ],
    ids=["en", "de", "fr", "laughter", "two words", "numbers", "short", "eight words"],
)
@pytest.mark.parametrize("chunk_size", [1, 2, 5, 13, 10_000])
def test_words_that_go_round_are_said_once_in_any_pieces(
    loop: str, heard: str, chunk_size: int
) -> None:
    """Words that repeat the few before them wait; once they loop, they are said once."""
    cleaner = SpeechStreamCleaner(budget=8192)
    pieces = [loop[i : i + chunk_size] for i in range(0, len(loop), chunk_size)]

    spoken = "".join(cleaner.feed(piece) for piece in pieces) + cleaner.flush()

    assert spoken == heard
    assert cut_repeats(loop).rstrip() == heard


def test_words_wait_only_while_they_repeat_the_words_before() -> None:
    """The rest is on its way at once; a repeat that goes on no further is said."""
    pieces = ["Turning on the ", "lights, the ", "lights, the ", "kitchen light. "]
    cleaner = SpeechStreamCleaner(budget=8192)

    said = [cleaner.feed(piece) for piece in pieces]

    # ("the" waits for the next word; the last two characters for the next piece)
    assert said == ["Turning on", " the lights,", "", " the lights, the kitchen"]
    assert cleaner.flush() == " light."


def test_a_loop_of_ten_megabytes_is_cut_at_once() -> None:
    """A huge answer in one piece, and in many: the same few words, found quickly."""
    sentence = "The light of the light of the kitchen is a place of light. "
    huge = "Hello there, I can help with that. " + sentence * (10_000_000 // 60)
    cleaner = SpeechStreamCleaner(budget=8192)

    streamed = "".join(
        cleaner.feed(huge[i : i + 4000]) for i in range(0, len(huge), 4000)
    )

    expected = "Hello there, I can help with that. " + sentence.strip()
    assert streamed + cleaner.flush() == expected
    assert cut_repeats(huge) == expected


def test_text_without_spaces_streamed_in_pieces_passes_whole() -> None:
    """2 MB of Chinese in 4,000-character pieces: no word to repeat, all of it said."""
    text = "你好我好大家好" * 300_000
    cleaner = SpeechStreamCleaner()

    said = [cleaner.feed(text[i : i + 4000]) for i in range(0, len(text), 4000)]

    assert "".join(said) + cleaner.flush() == text
    assert all(said[1:])  # each piece passes as it comes (but a token's tail)


def test_an_endless_sentence_streamed_in_pieces_passes_at_once() -> None:
    """1 MB with no sentence's end, in 4-character pieces: each passes as it comes.

    Too long to be a loop's, it is not kept; a loop after it is cut as usual.
    """
    endless = " ".join(f"step {n} and" for n in range(1_000_000 // 12))
    cleaner = SpeechStreamCleaner()  # no budget: every piece is looked at
    pieces = [endless[i : i + 4] for i in range(0, len(endless), 4)]

    said = [cleaner.feed(piece) for piece in pieces]

    assert "".join(said) + cleaner.flush() == endless.strip()
    loop = "And so it went on and on. " * 3
    assert cut_repeats(endless[:5000] + ". " + loop) == (
        endless[:5000] + ". And so it went on and on."
    )
