"""Every language we ship: the question, its yes, its no, its PIN, and the LLM-down reply.

One story per language, on the front door of test_confirmation's home: each step checks
the exact words heard (from that language's translations file) and the lock's state.
"""

import json
import logging
from pathlib import Path

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er

from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_BASE_URL,
    CONF_CONFIRM_PIN,
    CONF_LOCAL_FALLBACK,
    CONF_MODEL,
    DOMAIN,
)
from custom_components.agentic_conversation.languages import ANSWER_WORDS, LANGUAGES
from custom_components.agentic_conversation.languages.numbers import async_load
from custom_components.agentic_conversation.safety.answers import (
    Answer,
    classify,
    spoken_digits,
)
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import state_of as _state
from tests.test_confirmation import (  # the one home with a front door
    LOCK,
    NEW_AGENT_APIS,
    _unlock_call,
    home,
)

__all__ = ["home"]

TRANSLATIONS = (
    Path(__file__).parent.parent / "custom_components" / DOMAIN / "translations"
)
PIN = "4711"
# What a user says, per language: yes, no, a wrong PIN (1234) and the right one (4711).
SAYS: dict[str, tuple[str, str, str, str]] = {
    "en": ("Yes, please.", "No.", "one two three four", "forty-seven eleven"),
    "de": ("Ja, bitte!", "Nein.", "eins zwei drei vier", "siebenundvierzig elf"),
    "nl": ("Ja graag.", "Nee.", "een twee drie vier", "zevenenveertig elf"),
    "fr": ("Oui.", "Surtout pas !", "un deux trois quatre", "quarante-sept onze"),
    "es": ("Sí.", "No, gracias.", "uno dos tres cuatro", "cuarenta y siete once"),
    "it": ("Sì.", "No.", "uno due tre quattro", "quarantasette undici"),
    "pl": ("Tak.", "Nie.", "jeden dwa trzy cztery", "czterdzieści siedem jedenaście"),
    "pt": ("Sim.", "Não.", "um dois três quatro", "quarenta e sete onze"),
    "sv": ("Ja tack.", "Nej.", "ett två tre fyra", "fyrtiosju elva"),
    "da": ("Ja.", "Nej tak.", "en to tre fire", "syvogfyrre elleve"),
    "nb": ("Ja.", "Nei.", "en to tre fire", "førtisju elleve"),
    "fi": ("Kyllä.", "Ei.", "yksi kaksi kolme neljä", "neljäkymmentäseitsemän yksitoista"),
    "cs": ("Ano.", "Ne.", "jedna dva tři čtyři", "čtyřicet sedm jedenáct"),
    "ru": ("Да.", "Нет.", "один два три четыре", "сорок семь одиннадцать"),
    "uk": ("Так.", "Ні.", "один два три чотири", "сорок сім одинадцять"),
    "ca": ("Sí.", "No.", "u dos tres quatre", "quaranta-set onze"),
}  # fmt: skip
# More of what people answer, each with what it means.
ANSWERS: list[tuple[str, str, Answer]] = [
    ("fr", "ouais", Answer.YES),
    ("fr", "Vas-y !", Answer.YES),
    ("fr", "d’accord", Answer.YES),
    ("fr", "non merci", Answer.NO),
    ("fr", "surtout pas", Answer.NO),
    ("es", "si", Answer.YES),
    ("es", "¡Dale!", Answer.YES),
    ("es", "ni hablar", Answer.NO),
    ("it", "si", Answer.YES),
    ("it", "Va bene.", Answer.YES),
    ("it", "lascia perdere", Answer.NO),
    ("pl", "jasne", Answer.YES),
    ("pl", "w żadnym wypadku", Answer.NO),
    ("pt", "pode", Answer.YES),
    ("pt", "nao", Answer.NO),
    ("sv", "kör", Answer.YES),
    ("da", "nej", Answer.NO),
    ("nb", "jepp", Answer.YES),
    ("fi", "joo", Answer.YES),
    ("fi", "älä", Answer.NO),
    ("cs", "jasně", Answer.YES),
    ("ru", "давай", Answer.YES),
    ("ru", "не надо", Answer.NO),
    ("uk", "авжеж", Answer.YES),
    ("uk", "ні", Answer.NO),
    ("ca", "i tant", Answer.YES),
    ("ca", "de cap manera", Answer.NO),
    # English is understood everywhere; another language's yes is not
    ("fr", "okay", Answer.YES),
    ("fr", "ja", Answer.OTHER),
    ("de", "oui", Answer.OTHER),
    # a yes with more in it is a new request
    ("fr", "oui et ouvre aussi le garage", Answer.OTHER),
    ("es", "sí pero primero apaga la luz", Answer.OTHER),
    ("ru", "да нет наверное", Answer.OTHER),
    # Czech "no" is "well…": taken as the English no, so nothing runs
    ("cs", "no", Answer.NO),
    # a regional variant answers in its base language
    ("pt-BR", "sim", Answer.YES),
    ("fr-CA", "oui", Answer.YES),
    ("es-419", "no", Answer.NO),
    ("nb-NO", "ja", Answer.YES),
    ("no", "nei", Answer.NO),
]


def _strings(language: str) -> dict[str, str]:
    """The spoken phrases of a language's translations file, by key."""
    tree = json.loads((TRANSLATIONS / f"{language}.json").read_text(encoding="utf-8"))
    return {key: value["message"] for key, value in tree["exceptions"].items()}


async def _agents(hass: HomeAssistant, server: FakeLLM) -> tuple[str, str]:
    """Two agents of one connection: one confirms with a yes, one with the PIN."""
    common = {
        CONF_MODEL: MODEL,
        CONF_LLM_HASS_API: NEW_AGENT_APIS,
        CONF_ALLOWED_SERVICES: ["lock"],
        CONF_LOCAL_FALLBACK: False,
    }
    entry = MockConfigEntry(
        domain=DOMAIN,
        data={CONF_BASE_URL: server.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(
                data={**common, CONF_CONFIRM_PIN: pin} if pin else common,
                subentry_type="conversation",
                title=title,
                unique_id=None,
            )
            for title, pin in (("Yes agent", None), ("PIN agent", PIN))
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    registry = er.async_get(hass)
    by_title = {
        subentry.title: registry.async_get_entity_id(
            conversation.DOMAIN, DOMAIN, subentry_id
        )
        for subentry_id, subentry in entry.subentries.items()
    }
    yes_agent, pin_agent = by_title["Yes agent"], by_title["PIN agent"]
    assert yes_agent and pin_agent
    return yes_agent, pin_agent


class _User:
    """Someone talking to an agent in one language; remembers the conversation."""

    def __init__(
        self, hass: HomeAssistant, language: str, device_id: str | None = None
    ) -> None:
        self.hass = hass
        self.language = language
        self.device_id = device_id
        self.conversation_id: str | None = None
        self.listened = False  # whether the last answer kept the microphone open

    async def says(self, agent: str, text: str, *, new: bool = False) -> str:
        result = await conversation.async_converse(
            self.hass,
            text,
            None if new else self.conversation_id,
            Context(),
            language=self.language,
            agent_id=agent,
            device_id=self.device_id,
        )
        self.conversation_id = result.conversation_id
        self.listened = result.continue_conversation
        return str(result.response.speech["plain"]["speech"])


async def _relock(hass: HomeAssistant) -> None:
    await hass.services.async_call(
        "input_boolean", "turn_on", {"entity_id": "input_boolean.front_door"}, True
    )
    assert _state(hass, LOCK) == "locked"


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_whole_story_in_each_language(
    home: HomeAssistant, fake_llm: FakeLLM, language: str
) -> None:
    """Asked in the language; its no keeps the door locked, its yes and PIN unlock it."""
    hass = home
    yes_agent, pin_agent = await _agents(hass, fake_llm)
    words = _strings(language)
    yes, no, wrong_pin, right_pin = SAYS[language]
    question = words["confirm_question"].format(
        actions=words["action_unlock"].format(names="Front door")
    )
    unlocked = f"{words['done_unlock'].format(names='Front door')}."
    fake_llm.script(
        [await _unlock_call(hass) for _ in range(4)]
        + [Reply.error(500), Reply.error(500)]
    )
    user = _User(hass, language)

    # ask → no → not done
    assert await user.says(yes_agent, "…", new=True) == question
    assert await user.says(yes_agent, no) == words["confirmation_declined"]
    assert _state(hass, LOCK) == "locked"

    # ask → yes → done
    assert await user.says(yes_agent, "…", new=True) == question
    assert await user.says(yes_agent, yes) == unlocked
    assert _state(hass, LOCK) == "unlocked"
    await _relock(hass)

    # ask → wrong PIN → not done; ask → right PIN, in words → done
    with_pin = f"{question} {words['confirm_pin_prompt']}"
    assert await user.says(pin_agent, "…", new=True) == with_pin
    assert await user.says(pin_agent, wrong_pin) == words["confirmation_wrong_pin"]
    assert _state(hass, LOCK) == "locked"
    assert await user.says(pin_agent, "…", new=True) == with_pin
    assert await user.says(pin_agent, right_pin) == unlocked
    assert _state(hass, LOCK) == "unlocked"
    assert (
        len(fake_llm.requests) == 4
    )  # the answers were ours to judge, not the model's

    # the LLM down: the failure in the language
    assert await user.says(yes_agent, "…", new=True) == words["llm_server_error"]


@pytest.mark.parametrize(
    ("variant", "base"),
    [("de-CH", "de"), ("pt-BR", "pt"), ("fr-CA", "fr"), ("es-419", "es"), ("en-GB", "en")],
)  # fmt: skip
async def test_a_regional_variant_speaks_its_base_language(
    home: HomeAssistant, fake_llm: FakeLLM, variant: str, base: str
) -> None:
    """de-CH is asked in German and unlocks on "ja"; likewise pt-BR, fr-CA, es-419, en-GB."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    words = _strings(base)
    fake_llm.script([await _unlock_call(hass)])
    user = _User(hass, variant)

    assert await user.says(yes_agent, "…") == words["confirm_question"].format(
        actions=words["action_unlock"].format(names="Front door")
    )
    assert await user.says(yes_agent, SAYS[base][0]) == (
        f"{words['done_unlock'].format(names='Front door')}."
    )
    assert _state(hass, LOCK) == "unlocked"


async def test_a_language_we_cannot_judge_runs_nothing(
    home: HomeAssistant, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    """Hungarian: not asked (we could not judge "igen"), told so in English, logged."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    fake_llm.script([await _unlock_call(hass), Reply.text("Mit?")])
    user = _User(hass, "hu")

    with caplog.at_level(logging.WARNING):
        said = await user.says(yes_agent, "Nyisd ki a bejárati ajtót")

    assert said == _strings("en")["confirmation_language_missing"]
    assert _state(hass, LOCK) == "locked"
    assert "no yes/no words for language 'hu'" in caplog.text
    # nothing is held: a yes now is a new request for the model, and unlocks nothing
    assert await user.says(yes_agent, "yes") == "Mit?"
    assert _state(hass, LOCK) == "locked"
    assert len(fake_llm.requests) == 2


@pytest.mark.parametrize(("language", "text", "meaning"), ANSWERS)
def test_what_answers_mean(language: str, text: str, meaning: Answer) -> None:
    """Common phrasings per language, and what is not an answer."""
    assert classify(text, language) is meaning


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_phrase_is_both_yes_and_no(language: str) -> None:
    """With English merged in, a language's yes and no never overlap."""
    words, english = ANSWER_WORDS[language], ANSWER_WORDS["en"]
    yes = words.affirm | words.consent
    assert yes & words.deny == set()
    assert (english.affirm | english.consent) & words.deny == set()
    for phrase in words.affirm:
        assert classify(phrase, language) is Answer.YES, phrase
    for phrase in words.deny:
        assert classify(phrase, language) is Answer.NO, phrase


@pytest.mark.parametrize(
    ("language", "text", "digits"),
    [
        ("en", "twenty one", "21"),  # one number, not 2 then 1
        ("en", "two one", "21"),
        ("en", "4 seven 1 eleven", "47111"),
        ("en", "oh seven", "07"),
        ("de", "zwo null", "20"),
        ("fr", "quatre-vingt-dix-neuf", "99"),
        ("fr", "dix sept", "17"),
        ("es", "veintiuno", "21"),
        ("pl", "dwadzieścia jeden", "21"),
        ("ru", "двадцать одна", "21"),  # any gender and case
        ("nb-NO", "tjueen", "21"),  # accents optional: "tjueén"
        ("fi", "kaksikymmentäyksi", "21"),
        ("cs", "sedm", "7"),
        ("fr", "seven", ""),  # another language's number words are not ours
        ("en", "٤٧", ""),  # only the digits 0-9
        ("it", "il codice è quattro sette uno uno", "4711"),
    ],
)
async def test_spoken_pins(
    hass: HomeAssistant, language: str, text: str, digits: str
) -> None:
    """Digits, digit words, or pairs: the digits the user meant."""
    await async_load(hass, language)

    assert spoken_digits(text, language) == digits


def test_says_covers_every_language() -> None:
    """The story above runs for each language we ship."""
    assert set(SAYS) == set(LANGUAGES)
    assert len(LANGUAGES) == 16
