"""Natural answers, heard end to end in every language: what the user hears, the lock.

Through `async_converse` with the scripted model, on test_confirmation's front door:
a natural yes and a restating yes unlock it, a natural no keeps it locked, "yes, and
also …" is a new request, the model asking again is answered with how to answer and
then dropped, a stranger's natural yes does nothing, and a PIN inside a natural answer
is what counts.
"""

import pytest

from homeassistant.core import HomeAssistant

from custom_components.agentic_conversation.languages import LANGUAGES
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import state_of as _state
from tests.natural_answers import NATURAL
from tests.test_confirmation import LOCK, _unlock_call
from tests.test_languages import PIN, _agents, _relock, _strings, _User, home

__all__ = ["home"]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_natural_answers_in_each_language(
    home: HomeAssistant, fake_llm: FakeLLM, language: str
) -> None:
    """Each step checks the exact words heard and the lock's state."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    words, natural = _strings(language), NATURAL[language]
    unlock = words["action_unlock"].format(names="Front door")
    question = words["confirm_question"].format(actions=unlock)
    unlocked = f"{words['done_unlock'].format(names='Front door')}."
    fake_llm.script([await _unlock_call(hass) for _ in range(6)])
    user = _User(hass, language)

    # a natural yes, and a yes that restates the action: unlocked
    for yes in (natural.yes[0], natural.restating):
        assert await user.says(yes_agent, "…", new=True) == question
        assert await user.says(yes_agent, yes) == unlocked
        assert _state(hass, LOCK) == "unlocked"
        await _relock(hass)

    # a natural no: declined, still locked
    assert await user.says(yes_agent, "…", new=True) == question
    assert await user.says(yes_agent, natural.no[0]) == words["confirmation_declined"]
    assert _state(hass, LOCK) == "locked"

    # "yes, and also …" goes to the model as a new request; it asks again
    assert await user.says(yes_agent, "…", new=True) == question
    reask = words["confirm_reask"].format(actions=unlock)
    assert await user.says(yes_agent, natural.also) == reask
    assert user.listened  # a satellite listens for the answer
    assert fake_llm.requests[-1]["messages"][-1] == {
        "role": "user",
        "content": natural.also,
    }
    assert _state(hass, LOCK) == "locked"
    # still neither yes nor no, and asked again: dropped, and said so
    assert (
        await user.says(yes_agent, natural.other[1]) == (words["confirmation_dropped"])
    )
    assert not user.listened
    assert _state(hass, LOCK) == "locked"
    assert len(fake_llm.requests) == 6


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_strangers_natural_yes_and_a_pin_inside_an_answer(
    home: HomeAssistant, fake_llm: FakeLLM, language: str
) -> None:
    """Another device's "yes, go ahead" is a new request; "yes, <PIN>" unlocks."""
    hass = home
    yes_agent, pin_agent = await _agents(hass, fake_llm)
    words, natural = _strings(language), NATURAL[language]
    question = words["confirm_question"].format(
        actions=words["action_unlock"].format(names="Front door")
    )
    unlocked = f"{words['done_unlock'].format(names='Front door')}."
    fake_llm.script(
        [await _unlock_call(hass), Reply.text("?")]
        + [await _unlock_call(hass) for _ in range(3)]
    )
    user = _User(hass, language, device_id="kitchen_satellite")
    stranger = _User(hass, language, device_id="hall_satellite")

    assert await user.says(yes_agent, "…", new=True) == question
    stranger.conversation_id = user.conversation_id
    assert await stranger.says(yes_agent, natural.yes[1]) == "?"  # the model's
    assert _state(hass, LOCK) == "locked"
    assert await user.says(yes_agent, natural.yes[1]) == unlocked
    assert _state(hass, LOCK) == "unlocked"
    await _relock(hass)

    # with a PIN: a no around it declines, a wrong one inside a yes is not a yes
    with_pin = f"{question} {words['confirm_pin_prompt']}"
    assert await user.says(pin_agent, "…", new=True) == with_pin
    assert (
        await user.says(pin_agent, f"{natural.no[0]} {PIN}")
        == (words["confirmation_declined"])
    )
    assert await user.says(pin_agent, "…", new=True) == with_pin
    assert (
        await user.says(pin_agent, f"{natural.yes[0]} 1234")
        == (words["confirmation_wrong_pin"])
    )
    assert _state(hass, LOCK) == "locked"
    assert await user.says(pin_agent, "…", new=True) == with_pin
    assert await user.says(pin_agent, f"{natural.yes[0]} {PIN}") == unlocked
    assert _state(hass, LOCK) == "unlocked"
    assert len(fake_llm.requests) == 5


async def test_after_the_reask_a_yes_still_unlocks(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Told how to answer, the user says yes: unlocked; the next question is plain."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    fake_llm.script([await _unlock_call(hass) for _ in range(3)])
    user = _User(hass, "en")

    assert await user.says(yes_agent, "unlock the door") == "Shall I unlock Front door?"
    assert await user.says(yes_agent, "hmm, what?") == (
        "Say yes to unlock Front door, or no."
    )
    assert await user.says(yes_agent, "Yeah, sure.") == "I unlocked Front door."
    assert _state(hass, LOCK) == "unlocked"
    await _relock(hass)
    # a settled question leaves nothing behind: asked again, it is the plain question
    assert await user.says(yes_agent, "unlock the door") == "Shall I unlock Front door?"
    assert await user.says(yes_agent, "nope") == "Okay, I won't."
    assert _state(hass, LOCK) == "locked"


async def test_the_reask_with_a_pin(home: HomeAssistant, fake_llm: FakeLLM) -> None:
    """With a PIN, the re-ask says to say the PIN; the PIN then unlocks."""
    hass = home
    _, pin_agent = await _agents(hass, fake_llm)
    fake_llm.script([await _unlock_call(hass) for _ in range(2)])
    user = _User(hass, "en")

    assert await user.says(pin_agent, "unlock the door") == (
        "Shall I unlock Front door? Please say the PIN to confirm."
    )
    assert await user.says(pin_agent, "which door?") == (
        "Say the PIN to unlock Front door, or no."
    )
    assert await user.says(pin_agent, "okay, forty-seven eleven") == (
        "I unlocked Front door."
    )
    assert _state(hass, LOCK) == "unlocked"


async def test_another_request_between_is_asked_plainly(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Only the same actions asked right after an unclear answer get the re-ask."""
    hass = home
    yes_agent, _ = await _agents(hass, fake_llm)
    fake_llm.script(
        [await _unlock_call(hass), Reply.text("It is noon."), await _unlock_call(hass)]
    )
    user = _User(hass, "en")

    assert await user.says(yes_agent, "unlock the door") == "Shall I unlock Front door?"
    assert await user.says(yes_agent, "what time is it?") == "It is noon."
    assert await user.says(yes_agent, "unlock the door") == "Shall I unlock Front door?"
    assert _state(hass, LOCK) == "locked"
