"""Home Assistant's default agent run behind our guard: its private pieces, in one place.

PRIVATE API: HA offers only strict matching publicly (`async_handle_intents`); its
fuzzy matching, gazetteer fallback and multi-intent handling live in private methods
of `DefaultAgent`. Every use of them is here (and running a confirmed sentence
trigger, sentence_triggers.py), mirroring `DefaultAgent._async_handle_message`
(2026.10/2026.11); tests/test_local_route_private_api.py fails loudly if they change.
"""

from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
import re
from typing import Any

from gazetteer_matcher.config import normalize_tokens
from hassil.models import UnmatchedTextEntity
from hassil.recognize import MISSING_ENTITY, RecognizeResult

from homeassistant.components import conversation
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent

from .understanding.stage import Execute
from .verify.note import note_intent
from .verify.watch import EffectWatch

type IntentGuard = Callable[
    [str, dict[str, Any]], Awaitable[intent.IntentResponse | None]
]
# Whether a recognised sentence trigger (HA's `SentenceTriggerResult`) may run now.
type TriggerGuard = Callable[[Any], bool]
# Asked with the intents of a reading that left some of the words out (HA's gazetteer:
# "turn on the desk lamp at 7 pm" as HassTurnOn of the desk lamp) and those words; a
# response ends the reading there, nothing of it run.
type LooseGuard = Callable[[list[str], list[str]], intent.IntentResponse | None]

# The guard of the turn asking; HA's own turns (no guard) run as they always do.
_GUARD: ContextVar[IntentGuard | None] = ContextVar("agentic_local_guard", default=None)
_LOOSE: ContextVar[LooseGuard | None] = ContextVar("agentic_loose_guard", default=None)
# Where the turn asking notes what the intents it let run targeted (verify/).
_EFFECTS: ContextVar[EffectWatch | None] = ContextVar(
    "agentic_local_effects", default=None
)
# Slots whose words name a place or a device: unknown to HA, they name nothing.
_NAMING_SLOTS = frozenset({"name", "area", "floor"})
# Longer, the words HA took for a name are a sentence ("turn off the lights when I
# leave"): not a command for a device that is not there.
_NAME_WORDS = 2
# A slot HA's response template names: "{{ slots.area }}".
_SLOT_IN_WORDS = re.compile(r"slots\.(\w+)")


@contextmanager
def guarded(
    guard: IntentGuard,
    effects: EffectWatch | None = None,
    loose: LooseGuard | None = None,
) -> Iterator[None]:
    """Every intent the default agent runs in this block passes `guard` first.

    `loose`: asked first about a reading that left words out.
    """
    token = _GUARD.set(guard)
    watching = _EFFECTS.set(effects)
    reading = _LOOSE.set(loose)
    try:
        yield
    finally:
        _GUARD.reset(token)
        _EFFECTS.reset(watching)
        _LOOSE.reset(reading)


async def async_default_agent_response(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    trigger_guard: TriggerGuard | None = None,
) -> tuple[intent.IntentResponse | None, tuple[str, str] | None]:
    """The default agent's own handling of a message, minus its final chat-log entry.

    With the intent HA read the words as and the name, when they name a device HA
    knows nothing by, exposed or not ("turn on the dishwasher": `HassTurnOn`,
    "dishwasher"; its answer then names only the user's words). A sentence trigger
    runs only when `trigger_guard` lets it (None: held back).
    """
    agent: Any = get_agent_manager(hass).default_agent
    if agent is None:
        return None, None
    _install_guard(agent)
    if (
        trigger := await agent.async_recognize_sentence_trigger(user_input)
    ) is not None:
        if trigger_guard is not None and not trigger_guard(trigger):
            return None, None
        said: str = await agent._handle_trigger_result(trigger, user_input, chat_log)  # noqa: SLF001
        response = intent.IntentResponse(
            language=user_input.language or hass.config.language
        )
        response.async_set_speech(said)
        return response, None
    result = await agent.async_recognize_intent(user_input)
    if result is None or result.unmatched_entities:
        gazetteer = await agent._async_gazetteer_fallback(result, user_input, chat_log)  # noqa: SLF001
        if gazetteer is not None:
            return gazetteer, None
    response = await agent._async_process_intent_result(result, user_input, chat_log)  # noqa: SLF001
    return response, _named_unknown(result)


def _named_unknown(result: RecognizeResult | None) -> tuple[str, str] | None:
    """The intent read and the device name, if HA knows no device by that name.

    Only names of a name's length: "the dishwasher", not "the charm and tell me a
    joke" (nor "the lights when I leave" read as a floor).
    """
    if result is None:
        return None
    unknown = {
        slot: entity.text.strip()
        for slot, entity in result.unmatched_entities.items()
        if slot in _NAMING_SLOTS
        and isinstance(entity, UnmatchedTextEntity)
        and entity.text != MISSING_ENTITY
    }
    if "name" not in unknown or any(
        len(text.split()) > _NAME_WORDS for text in unknown.values()
    ):
        return None
    return result.intent.name, unknown["name"]


def executor(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
) -> Execute:
    """Run one intent the way the default agent runs what it recognised.

    `_async_execute_intent` writes the call and its result into the chat log, adds
    the satellite's area, runs the intent (exposure checked) and words its response;
    our guard sits in front of it.
    """

    async def execute(
        name: str,
        slots: dict[str, Any],
        speech_slots: dict[str, Any],
        response_keys: Sequence[str],
    ) -> intent.IntentResponse:
        agent: Any = get_agent_manager(hass).default_agent
        language = user_input.language or hass.config.language
        lang_intents = await agent.async_get_or_load_intents(language)
        # HA's words for it: the first of these keys its responses have whose slots
        # we fill, else its first.
        templates = lang_intents.intent_responses.get(name, {})
        key = next(
            (
                k
                for k in response_keys
                if k in templates and _fillable(str(templates[k]), speech_slots)
            ),
            None,
        )
        _install_guard(agent)
        return await agent._async_execute_intent(  # type: ignore[no-any-return]  # noqa: SLF001
            name,
            slots,
            speech_slots,
            key or next(iter(templates), None),
            user_input,
            chat_log,
            lang_intents,
        )

    return execute


def _fillable(template: str, speech_slots: dict[str, Any]) -> bool:
    """Whether every slot HA's words name is one we have ("{{ slots.area }}")."""
    return all(slot in speech_slots for slot in _SLOT_IN_WORDS.findall(template))


def _install_guard(agent: Any) -> None:
    """Put our guards in front of every intent the default agent executes (once)."""
    _install_loose_guard(agent)
    execute = agent._async_execute_intent  # noqa: SLF001
    if getattr(execute, "_agentic_guarded", False):
        return

    async def run_guarded(
        intent_name: str, slots: dict[str, Any], *args: Any, **kwargs: Any
    ) -> intent.IntentResponse:
        if (guard := _GUARD.get()) is not None and (
            refused := await guard(intent_name, slots)
        ) is not None:
            return refused
        response: intent.IntentResponse = await execute(
            intent_name, slots, *args, **kwargs
        )
        if (
            (effects := _EFFECTS.get()) is not None
            and response.response_type is intent.IntentResponseType.ACTION_DONE
        ):
            values = {slot: value.get("value") for slot, value in slots.items()}
            note_intent(effects, intent_name, values, response.as_dict()["data"])
        return response

    run_guarded._agentic_guarded = True  # type: ignore[attr-defined]  # noqa: SLF001
    agent._async_execute_intent = run_guarded  # noqa: SLF001


def _install_loose_guard(agent: Any) -> None:
    """Put the loose guard in front of the gazetteer's readings (once).

    Its frames tell which of the user's words they left unexplained ("7", "pm",
    "tomorrow"); a reading that explains them all passes as before.
    """
    process = agent._async_process_frames  # noqa: SLF001
    if getattr(process, "_agentic_guarded", False):
        return

    async def read_guarded(
        matcher: Any,
        frames: list[Any],
        user_input: conversation.ConversationInput,
        *args: Any,
        **kwargs: Any,
    ) -> intent.IntentResponse:
        if (
            (loose := _LOOSE.get()) is not None
            and (left_out := _left_out(frames, user_input.text))
            and (refused := loose([str(frame.intent) for frame in frames], left_out))
            is not None
        ):
            return refused
        response: intent.IntentResponse = await process(
            matcher, frames, user_input, *args, **kwargs
        )
        return response

    read_guarded._agentic_guarded = True  # type: ignore[attr-defined]  # noqa: SLF001
    agent._async_process_frames = read_guarded  # noqa: SLF001


def _left_out(frames: list[Any], text: str) -> list[str]:
    """The words of `text` the gazetteer's frames leave unexplained, in its tokens."""
    indexes = [index for frame in frames for index in frame.unexplained_tokens]
    if not indexes:  # most readings explain every word: no need to split it again
        return []
    tokens = normalize_tokens(text)
    return [tokens[index].text for index in indexes if index < len(tokens)]
