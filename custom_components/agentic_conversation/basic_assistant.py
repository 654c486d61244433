"""Home Assistant's own agent, run for us: the local-first stage, and when no LLM answers.

The full recognition of HA's default agent — sentence triggers, fuzzy matching, the
gazetteer's names and compound commands ("turn on X and then turn off Y"), the
satellite's area, the user's language — runs offline, so "turn on the porch light"
still turns it on. Each intent it recognises, and each sentence trigger (judged by
what its automation does, sentence_triggers.py), passes our risk filter first: a
risky one (unlocking, opening the garage…) is never run this way: the local-first
stage holds and asks it, and with no LLM answering the user hears that it needs the
AI service. A command its recognizer does not place is read by our own understanding
(understanding/), which runs HA's intent the same way, behind the same guard.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.media_player.const import INTENT_MEDIA_SEARCH_AND_PLAY
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent

from .const import DOMAIN, LOGGER
from .default_agent import async_default_agent_response, executor, guarded
from .named_in_area import area_without_name, one_named
from .safety.effects import Effect
from .safety.risk import intent_effects, risk_of
from .sentence_triggers import TRIGGER_TOOL, trigger_effects
from .tools.entities import exposed_entities
from .understanding.stage import async_answer_choice, async_understand
from .understanding.words import language_words
from .verify.note import note_failed_intent
from .verify.watch import EffectWatch
from .words.replies import async_phrase

NEEDS_MODEL = "local_needs_model"
# Words HA's gazetteer (English only) may leave out of a sentence without changing it.
_FILLERS = frozenset(
    {"hey", "hi", "hello", "ok", "okay", "thanks", "thank", "you", "now", "just"}
)

# What Home Assistant's own voice pipeline, preferring local handling, still leaves to
# a conversation agent: a state question, which its sentences misread ("is anyone at
# the front door?" is asked of the people's zones: "No"), and a media search.
FOR_THE_MODEL = frozenset({intent.INTENT_GET_STATE, INTENT_MEDIA_SEARCH_AND_PLAY})


class LocalStatus(StrEnum):
    """How HA's own agent ended; a caller decides "answered" or "give to the model"."""

    DONE = "done"  # an automation, an answer, or every intent ran
    RISKY = "risky"  # at least one recognised intent needs the model: none of it ran
    NO_MATCH = "no_match"  # no sentence matched
    NO_TARGET = "no_target"  # an intent matched, its names or area did not (ambiguous)
    FAILED = "failed"  # an intent matched and failed while it ran
    FOR_THE_MODEL = "for_the_model"  # one the caller leaves to the model: not run
    ASKED = "asked"  # our understanding found two or three: which one? (nothing ran)


@dataclass
class LocalOutcome:
    """What HA's own agent recognised, did and said."""

    status: LocalStatus
    speech: str | None = None
    intents: list[str] = field(default_factory=list)  # every one recognised, in order
    risky: list[str] = field(default_factory=list)  # those held back
    held: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Each intent held back, with its slot values: what a "yes" would run.

    A held sentence trigger is (`TRIGGER_TOOL`, {"sentence": …}).
    """
    trigger_effects: list[Effect] = field(default_factory=list)
    """What a held sentence trigger would set off (its automations)."""
    ours: bool = False
    """Our understanding placed the command, not HA's recognizer."""
    narrowed: bool = False
    """Run on the one device the words name, not all HA's sentence meant: HA's words
    ("Turned on the lights") say more than ran."""
    unread: tuple[str, ...] = ()
    """The intents HA read leaving words out, not run: no model reads them."""
    unplaced: tuple[str, str] | None = None
    """The intent HA read the words as and the device name it knows nothing by
    (nothing ran): "turn on the dishwasher" is (`HassTurnOn`, "dishwasher")."""

    @property
    def answered(self) -> bool:
        """Whether the user has heard something worth ending the turn with."""
        return self.speech is not None and self.status in (
            LocalStatus.DONE,
            LocalStatus.RISKY,
            LocalStatus.FAILED,
            LocalStatus.ASKED,
        )


async def async_run_local_route(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    ask_before: Iterable[str],
    for_the_model: Iterable[str] = (),
    *,
    effects: EffectWatch | None = None,
) -> LocalOutcome:
    """Let HA's default agent recognise and run the words, each intent risk-checked.

    An intent in `for_the_model` is not run: the outcome says so (what ran before it
    in a compound command stays done); with any, neither is a reading of HA's that
    left words out (besides fillers), and without any such a reading is not run at
    all (no model acts: the words are not understood). What each intent that ran
    targeted is noted in `effects`.
    """
    asked_before = frozenset(ask_before)
    left_to_model = frozenset(for_the_model)
    llm_context = user_input.as_llm_context(DOMAIN)
    language = user_input.language or hass.config.language
    recognised: list[str] = []
    held: list[tuple[str, dict[str, Any]]] = []
    left: list[str] = []
    unread: list[str] = []  # read leaving words out, with no model to read them
    held_effects: list[Effect] = []
    ran: list[tuple[str, dict[str, Any], list[Effect]]] = []  # let through, in order
    narrowed_to_one = False

    def trigger_guard(trigger: Any) -> bool:
        # An automation's sentence ("open sesame") is as risky as what it sets off.
        recognised.append(TRIGGER_TOOL)
        effects = trigger_effects(hass, trigger, user_input)
        if not any(risk_of(hass, effect, asked_before) for effect in effects):
            return True
        LOGGER.info("Not letting the basic assistant run the sentence trigger")
        held.append((TRIGGER_TOOL, {"sentence": user_input.text}))
        held_effects.extend(effects)
        return False

    async def guard(name: str, slots: dict[str, Any]) -> intent.IntentResponse | None:
        nonlocal narrowed_to_one
        recognised.append(name)
        if (
            narrowed := await _async_one_named(hass, name, slots, user_input)
        ) is not None:
            # "The lamp in the snug": HA would run it on all the snug's lights; the
            # words name one of them, and HA runs it on that one (slots are this
            # execution's own: HA builds them anew for each intent).
            slots.clear()
            slots.update(narrowed)
            narrowed_to_one = True
        if name in left_to_model:
            left.append(name)
            return _refusal(language)
        arguments = {slot: value.get("value") for slot, value in slots.items()}
        effects = intent_effects(hass, name, arguments, llm_context)
        if not any(risk_of(hass, effect, asked_before) for effect in effects):
            ran.append((name, arguments, effects))
            return None
        LOGGER.info("Not letting the basic assistant run %s: it needs the model", name)
        held.append((name, arguments))
        return _refusal(language, await async_phrase(hass, language, NEEDS_MODEL))

    def loose(intents: list[str], left_out: list[str]) -> intent.IntentResponse | None:
        # HA's gazetteer read the words leaving some out: "don't turn on the desk lamp"
        # as turning it on, "… at 7 pm" now, "the weather tomorrow" as today's. What
        # it would run is not what was said: a model that acts reads them all; with
        # none, it is not understood.
        if set(left_out) <= _FILLERS:
            return None
        LOGGER.info(
            "Home Assistant's reading (%s) left out %s: not run",
            ", ".join(intents),
            left_out,
        )
        recognised.extend(intents)
        (left if left_to_model else unread).extend(intents)
        if left_to_model:
            return _refusal(language)
        return _refusal(language, code=intent.IntentResponseErrorCode.NO_INTENT_MATCH)

    execute = executor(hass, user_input, chat_log)
    unplaced: tuple[str, str] | None = None
    try:
        with guarded(guard, effects, loose):
            # The answer to our "which one?" first: HA would read "the bedroom fan"
            # as "turn on the bedroom fan".
            ours = await async_answer_choice(hass, user_input, chat_log, execute)
            tried = len(chat_log.content)
            if ours is not None:
                response = ours.response
            else:
                response, unplaced = await async_default_agent_response(
                    hass, user_input, chat_log, trigger_guard
                )
            if ours is None and not (held or left or unread) and _not_placed(response):
                # HA did not place it: our reading and entity search, HA's intent.
                failed = len(chat_log.content)
                ours = await async_understand(hass, user_input, chat_log, execute)
                if ours is not None or held:
                    # HA's failed attempt ("no doors in this area") is not what the
                    # turn did: neither a done action before the question nor the
                    # result's kind, nor the model's history.
                    _drop_failed(chat_log, tried, failed)
                if ours and ours.response:
                    response, unplaced = ours.response, None
    except Exception:  # noqa: BLE001 - the route of last resort must not break the turn
        LOGGER.exception("Home Assistant's own agent failed")
        return LocalOutcome(LocalStatus.FAILED, None, recognised, _names(held), held)
    if effects is not None and ran and not (held or left):
        # HA's error for a run that failed names no device. Our run of each by its
        # name names those that failed; else HA stopped at the intent that failed,
        # the last one let through, and the devices it targeted did not get it.
        name, arguments, targets = ran[-1]
        named = ours.response.failed_results if ours and ours.response else []
        if named:
            note_failed_intent(effects, name, arguments, (t.id for t in named if t.id))
        elif _failed_run(response):
            note_failed_intent(effects, name, arguments, (e.entity_id for e in targets))
    if held:
        # The default agent stops a compound command at its first refused intent:
        # what came before it ran, nothing after it did; the user hears what is missing.
        refusal = await async_phrase(hass, language, NEEDS_MODEL)
        return LocalOutcome(
            LocalStatus.RISKY, refusal, recognised, _names(held), held, held_effects
        )
    if left:
        return LocalOutcome(LocalStatus.FOR_THE_MODEL, None, recognised)
    if ours is not None and ours.question is not None:
        return LocalOutcome(LocalStatus.ASKED, ours.question, recognised)
    if response is None:
        return LocalOutcome(LocalStatus.NO_MATCH, None, recognised)
    text = _speech_of(response)
    if response.response_type is not intent.IntentResponseType.ERROR:
        return LocalOutcome(
            LocalStatus.DONE,
            text,
            recognised,
            ours=ours is not None,
            narrowed=narrowed_to_one,
        )
    LOGGER.info("The basic assistant answered with an error: %s", text)
    status = {
        intent.IntentResponseErrorCode.NO_INTENT_MATCH: LocalStatus.NO_MATCH,
        intent.IntentResponseErrorCode.NO_VALID_TARGETS: LocalStatus.NO_TARGET,
    }.get(response.error_code, LocalStatus.FAILED)  # type: ignore[arg-type]
    return LocalOutcome(
        status, text, recognised, unread=tuple(unread), unplaced=unplaced
    )


async def async_home_answer(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
) -> str | None:
    """HA's own answer ("No, off") if the words are one state question; nothing runs.

    `chat_log`: a scratch copy (the default agent writes its intent call there).
    """
    recognised: list[str] = []
    language = user_input.language or hass.config.language

    async def only_states(name: str, _: dict[str, Any]) -> intent.IntentResponse | None:
        recognised.append(name)
        return None if name == intent.INTENT_GET_STATE else _refusal(language)

    try:
        with guarded(only_states):
            response, _ = await async_default_agent_response(
                hass, user_input, chat_log, lambda _trigger: False
            )
    except Exception:  # noqa: BLE001 - the model's answer stands
        LOGGER.exception("Home Assistant's own agent failed to answer a state question")
        return None
    if (
        recognised != [intent.INTENT_GET_STATE]
        or response is None
        or response.response_type is intent.IntentResponseType.ERROR
    ):
        return None
    return _speech_of(response)


def _refusal(
    language: str,
    speech: str = "",
    code: intent.IntentResponseErrorCode = intent.IntentResponseErrorCode.FAILED_TO_HANDLE,
) -> intent.IntentResponse:
    """An intent not run: the default agent stops there (and says `speech`).

    `NO_INTENT_MATCH`: as if no sentence matched (the route says what follows).
    """
    refused = intent.IntentResponse(language=language)
    refused.async_set_error(code, speech)
    return refused


def _speech_of(response: intent.IntentResponse) -> str | None:
    """A response's plain speech, if it says anything."""
    speech = response.speech.get("plain", {}).get("speech")
    return speech.strip() if isinstance(speech, str) and speech.strip() else None


async def _async_one_named(
    hass: HomeAssistant,
    name: str,
    slots: dict[str, Any],
    user_input: conversation.ConversationInput,
) -> dict[str, Any] | None:
    """The slots narrowed to the one device of the area the words name, if any."""
    if area_without_name(name, slots) is None:
        return None  # most intents: no language data read, no entity listed
    language = user_input.language or hass.config.language
    known = await hass.async_add_executor_job(language_words, language)
    if known is None:
        return None  # without the language's words that name nothing, never guess
    return one_named(name, slots, user_input.text, exposed_entities(hass), known)


def _drop_failed(chat_log: conversation.ChatLog, start: int, end: int) -> None:
    """The failed intents among the chat log's entries start:end, call and result."""
    span = chat_log.content[start:end]
    failed = {
        content.tool_call_id
        for content in span
        if isinstance(content, conversation.ToolResultContent)
        and isinstance(content.result.data, dict)
        and content.result.data.get("response_type")
        == intent.IntentResponseType.ERROR.value
    }
    chat_log.content[start:end] = [
        content
        for content in span
        if not (
            isinstance(content, conversation.ToolResultContent)
            and content.tool_call_id in failed
        )
        and not (
            isinstance(content, conversation.AssistantContent)
            and content.tool_calls
            and all(call.id in failed for call in content.tool_calls)
        )
    ]


def _names(held: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [name for name, _arguments in held]


def _not_placed(response: intent.IntentResponse | None) -> bool:
    """HA's agent matched no sentence, or not the device it names."""
    return response is None or (
        response.response_type is intent.IntentResponseType.ERROR
        and response.error_code
        in (
            intent.IntentResponseErrorCode.NO_INTENT_MATCH,
            intent.IntentResponseErrorCode.NO_VALID_TARGETS,
        )
    )


def _failed_run(response: intent.IntentResponse | None) -> bool:
    """HA ran an intent and it failed (not: it found nothing to run it on)."""
    return (
        response is not None
        and response.response_type is intent.IntentResponseType.ERROR
        and response.error_code is intent.IntentResponseErrorCode.FAILED_TO_HANDLE
    )
