"""Home Assistant's own agent as a route: when no LLM answers, or cannot act.

Sentence triggers and HA's built-in intents (strict matching on exposed entities)
work offline, so "turn on the porch light" still turns it on. A command that would be
a risky action (unlocking, opening the garage…) is never run this way: the
confirmation the agent asks for needs the agent.
"""

from collections.abc import Iterable

from hassil.recognize import RecognizeResult

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent

from .const import DOMAIN, LOGGER
from .risk import intent_effects, risk_of


async def async_ask_basic_assistant(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    ask_before: Iterable[str],
) -> str | None:
    """What HA's built-in agent says to these words; None if it did not understand."""
    asked_before = frozenset(ask_before)
    llm_context = user_input.as_llm_context(DOMAIN)

    def risky(result: RecognizeResult) -> bool:
        arguments = {name: slot.value for name, slot in result.entities.items()}
        effects = intent_effects(hass, result.intent.name, arguments, llm_context)
        if any(risk_of(hass, effect, asked_before) for effect in effects):
            LOGGER.info(
                "Not letting the basic assistant run %s: it needs a confirmation",
                result.intent.name,
            )
            return True
        return False

    try:
        if (
            said := await conversation.async_handle_sentence_triggers(
                hass, user_input, chat_log
            )
        ) is not None:
            return said
        response = await conversation.async_handle_intents(
            hass, user_input, chat_log, intent_filter=risky
        )
    except Exception:  # noqa: BLE001 - the route of last resort must not break the turn
        LOGGER.exception("Home Assistant's own agent failed")
        return None
    if response is None:
        return None
    speech = response.speech.get("plain", {}).get("speech")
    if not isinstance(speech, str) or not speech.strip():
        return None
    if response.response_type is intent.IntentResponseType.ERROR:
        LOGGER.info("The basic assistant answered with an error: %s", speech)
    return speech.strip()
