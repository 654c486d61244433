"""Local first: what Home Assistant's own agent understands is done without the model.

One stage, run before the model when the agent option "Handle commands Home Assistant
understands first" (`local_first`) is on, or when the endpoint check found that the
model cannot call tools (whatever the option: such a model must not say it did). The
local route's full recognition runs in the user's language with the satellite's area:
- a recognised, non-risky command that succeeds is answered at once, no model call;
  one HA handles without words ("never mind") ends the turn quietly, as HA's agent does;
- a risky one is not run: it is held and asked exactly as the model route asks, and a
  "yes" runs it through the offered intent tool (the settle stage);
- a command that failed is told in HA's words when the model cannot act (it could not
  do better); anything else (not recognised, no such device, ambiguous) goes to the
  model as if the option were off: the attempt leaves nothing in the chat log (a
  command naming a device HA knows nothing by: if the model does nothing either, HA's
  "not aware of any device called …" is said, not the model's claim);
- a state question or a media search goes to a model that can act, not run, as HA's
  own pipeline leaves them to the agent: "is anyone at the front door?" is then looked
  at (a camera, the door's sensors), not answered "No" from the people's zones.

Recognition runs against a copy of the chat log; only a handled turn's intent calls
and results are written into the real one (under the names the model is offered), so
the next model request knows what was done.
"""

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

import probatio

from homeassistant.components import conversation
from homeassistant.components.weather.const import INTENT_GET_WEATHER
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.util.ulid import ulid_now

from ..agent import Route, ToolCallRecord
from ..basic_assistant import (
    FOR_THE_MODEL,
    LocalOutcome,
    LocalStatus,
    async_home_answer,
    async_run_local_route,
)
from ..const import CONF_CONFIRM_ENTITIES, CONF_CONFIRM_PIN, CONF_LOCAL_FIRST
from ..ending import Done, Ending, HomeSaid, NotAsked, Phrase, Question, Words
from ..languages import understood
from ..offered_tools import intent_types
from ..safety.confirmation import HeldAction
from ..safety.risk import intent_effects
from ..sentence_triggers import TRIGGER_TOOL
from ..tool_options import gate_of
from ..tools.entities import is_exposed
from ..understanding.stage import async_names_nothing
from ..verify.done_actions import Action
from ..verify.expected import ACTING_INTENTS
from ..verify.failed_actions import Failure
from ..verify.outcome import Reason
from .ask import hold_and_ask
from .context import TurnContext

# HA's questions about the house it may place nowhere ("the temperature in the
# garage"), and what they ask of: the model's to look for, not to guess. (A command
# placed nowhere is the model's too, to act on what it may find: not to claim.)
_QUESTIONS = {
    intent.INTENT_GET_TEMPERATURE: Platform.CLIMATE,
    INTENT_GET_WEATHER: Platform.WEATHER,
}
HANDLED = "Home Assistant understood the command"
ASKED = "Home Assistant understood a risky command: asked first"
NOT_ASKED = "Home Assistant understood a risky command: no answer words to ask in"
FAILED = "Home Assistant understood the command, which failed; the model cannot act"
DROPPED = "Home Assistant understood a risky command: dropped after unclear answers"
WHICH = "Our understanding found two or three devices: asked which"
OURS = "Our understanding placed the command; Home Assistant's intent ran it"
UNREAD = "Home Assistant read a command leaving words out; the model cannot act"
# Said then: the model's chat would claim done what nobody did.
CANNOT_ACT = "local_model_cannot_act"


def local_first(turn: TurnContext) -> bool:
    """The agent tries Home Assistant's recognition first (and may act at all).

    Agents saved before the option existed go to the model, unless it cannot act.
    """
    return turn.chat_log.llm_api is not None and (
        bool(turn.subentry.data.get(CONF_LOCAL_FIRST, False)) or model_cannot_act(turn)
    )


def model_cannot_act(turn: TurnContext) -> bool:
    """The endpoint check found that the agent's model ignores tools."""
    found = turn.entry.runtime_data.capabilities.get(turn.subentry.subentry_id)
    return found is not None and found.tools is False


@dataclass(frozen=True, slots=True)
class ForTheModel:
    """Not handled here: the model's turn.

    `state_question`: HA read the words as one state question ("is the desk lamp
    on?"), which the model must answer from the house (`async_home_answer`);
    `home_words`: HA's words for a question about the house it found nothing for
    ("Sorry, I am not aware of any climate in the Garage area"), said if the model
    reads nothing either, or for a command naming a device neither HA nor our reading
    knows (`command`: "… any device called dishwasher"), said if the model does
    nothing either; `did`: what came before the question in a compound command
    ran (never run it again); `failed`: HA ran the command and it failed (a cover
    that cannot open), told so unless the model acts after it.
    """

    state_question: bool = False
    did: bool = False
    home_words: str | None = None
    command: bool = False
    failed: tuple[Failure, ...] = ()

    @property
    def about_the_house(self) -> bool:
        """A question only the house answers, or a command only an action does."""
        return self.state_question or self.home_words is not None

    def guessed(
        self, calls: Sequence[ToolCallRecord], read_only: Collection[str]
    ) -> bool:
        """Answered without what the words need: a reading, or for a command an action.

        "Done." for a dishwasher there is not claims what nothing did.
        """
        if self.command:
            return all(call.name in read_only for call in calls)
        return self.about_the_house and not calls


async def async_handle_locally(turn: TurnContext) -> Ending | ForTheModel:
    """The turn handled by Home Assistant's recognition, or the model's turn."""
    api = turn.chat_log.llm_api
    if api is None:
        return ForTheModel()
    chat_log = turn.chat_log
    scratch = conversation.ChatLog(
        turn.hass, chat_log.conversation_id, content=list(chat_log.content)
    )
    outcome = await async_run_local_route(
        turn.hass,
        turn.user_input,
        scratch,
        turn.subentry.data.get(CONF_CONFIRM_ENTITIES) or (),
        for_the_model=() if model_cannot_act(turn) else FOR_THE_MODEL,
        effects=turn.effects,
    )
    added = scratch.content[len(chat_log.content) :]
    if outcome.status is LocalStatus.FOR_THE_MODEL:
        # What a compound command did before the question is done: the model knows.
        # (The question itself was not run, so it left nothing to copy.)
        _copy(chat_log, api, added)
    if outcome.status is LocalStatus.DONE or (
        outcome.status is LocalStatus.FAILED
        and outcome.speech
        and model_cannot_act(turn)
    ):
        _copy(chat_log, api, added)
        done = OURS if outcome.ours else HANDLED
        _report(turn, done if outcome.status is LocalStatus.DONE else FAILED)
        # No speech ("never mind"): HA's agent ends the turn silently, and so do we.
        if outcome.speech:
            # HA's words only when the house shows them true (its error for a run
            # that failed names no device: the devices are told instead).
            return Ending(
                HomeSaid(
                    outcome.speech,
                    tuple(await turn.effects.async_wait()),
                    fits=not outcome.narrowed,
                )
            )
        return Ending(Words(outcome.speech or ""))
    if outcome.status is LocalStatus.ASKED and outcome.speech:
        _report(turn, WHICH)  # nothing ran: the answer comes next turn
        return Ending(Words(outcome.speech), asked=True)
    if outcome.status is LocalStatus.RISKY and (
        actions := _held_actions(turn, api, outcome)
    ):
        _copy(chat_log, api, added)  # what a compound command did before it
        if not understood(turn.user_input.language):
            # No yes/no words to judge an answer by: nothing is held, as the model
            # route does with the same action.
            _report(turn, NOT_ASKED)
            return Ending(NotAsked(Done(actions=_done(added))))
        question = hold_and_ask(
            turn.hass,
            turn.user_input,
            chat_log.conversation_id,
            turn.agent_id,
            actions,
            done=Done(actions=_done(added)),
            pin=turn.subentry.data.get(CONF_CONFIRM_PIN) or None,
        )
        asked = isinstance(question, Question)
        _report(turn, ASKED if asked else DROPPED)
        return Ending(question, asked=asked)
    if ACTING_INTENTS.intersection(outcome.unread):
        # "Turn off everything in the living room", read as its TV: not what was
        # said, and the model cannot do what was ("Your request has been fulfilled").
        _report(turn, UNREAD)
        return Ending(Phrase(CANNOT_ACT))
    chat_log.async_trace(
        {"local_first": outcome.status.value, "intents": outcome.intents}
    )
    command = await _no_such_device(turn, outcome)
    return ForTheModel(
        outcome.status is LocalStatus.FOR_THE_MODEL
        and outcome.intents == [intent.INTENT_GET_STATE],
        did=outcome.status is LocalStatus.FOR_THE_MODEL
        and any(isinstance(c, conversation.ToolResultContent) for c in added),
        home_words=outcome.speech if command else _found_nothing(turn, outcome),
        command=command,
        # HA ran it and answered with its error (not: its agent broke on the words);
        # told by its devices when the watch knows them.
        failed=(Failure(),)
        if outcome.status is LocalStatus.FAILED
        and outcome.speech
        and not any(e.reason is Reason.ERROR for e in turn.effects.effects)
        else (),
    )


async def _no_such_device(turn: TurnContext, outcome: LocalOutcome) -> bool:
    """A command for a device neither HA nor our reading knows by its name.

    Then HA's words name only the user's ("… any device called dishwasher"): no
    device, exposed or not, has the name, and none exposed fits it by our words.
    """
    if outcome.unplaced is None or outcome.intents or not outcome.speech:
        return False
    intent_type, name = outcome.unplaced
    return intent_type in ACTING_INTENTS and await async_names_nothing(
        turn.hass, turn.user_input.language or turn.hass.config.language, name
    )


def _found_nothing(turn: TurnContext, outcome: LocalOutcome) -> str | None:
    """HA's words for a question it ran and found nothing for, if they hide nothing.

    Its match errors tell of entities that are not exposed ("Sorry, Garage heater is
    not exposed", "no climate in the Garage area is exposed"): where the question's
    kind has any, its words are not said.
    """
    if (
        outcome.speech is None
        or outcome.status is not LocalStatus.NO_TARGET
        or not outcome.intents  # without a run, the words may be a misreading
        or not set(outcome.intents) <= _QUESTIONS.keys()
    ):
        return None
    domains = {_QUESTIONS[name] for name in outcome.intents}
    if any(
        not is_exposed(turn.hass, state.entity_id)
        for state in turn.hass.states.async_all(domains)
    ):
        return None
    return outcome.speech


async def async_state_answer(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
) -> str | None:
    """Home Assistant's own answer to a state question, read from the house now."""
    scratch = conversation.ChatLog(
        hass, chat_log.conversation_id, content=list(chat_log.content)
    )
    return await async_home_answer(hass, user_input, scratch)


def _held_actions(
    turn: TurnContext, api: llm.APIInstance, outcome: LocalOutcome
) -> list[HeldAction]:
    """The risky intents as calls of the offered intent tools, held by the turn's gate.

    Empty when one cannot be offered that way: the model then has the words.
    """
    gate = gate_of(api.llm_context)
    offered = {intent: name for name, intent in intent_types(api).items()}
    tools = {tool.name: tool for tool in api.tools}
    if gate is None:
        return []
    actions: list[HeldAction] = []
    for intent_type, slots in outcome.held:
        if intent_type == TRIGGER_TOOL:
            # An automation's sentence: a "yes" runs it with SentenceTriggerTool.
            call_id = ulid_now()
            if gate.review(call_id, TRIGGER_TOOL, slots, outcome.trigger_effects):
                return []
            actions.append(gate.held.pop(call_id))
            continue
        tool = tools.get(offered.get(intent_type, ""))
        if tool is None:
            return []
        fields = {name for key in tool.parameters.schema for name in _names(key)}
        try:
            arguments: dict[str, Any] = tool.parameters(
                {key: value for key, value in slots.items() if key in fields}
            )
        except probatio.Invalid:
            return []
        effects = intent_effects(turn.hass, intent_type, arguments, api.llm_context)
        call_id = ulid_now()
        if gate.review(call_id, tool.name, arguments, effects):
            return []  # the gate sees nothing risky in it as a tool call
        actions.append(gate.held.pop(call_id))
    return actions


def _names(key: Any) -> set[str]:
    """The argument names of a schema key (a marker, or `Any` of several names)."""
    name = getattr(key, "schema", key)
    if isinstance(name, str):
        return {name}
    return {v for v in getattr(key, "validators", ()) if isinstance(v, str)}


def _copy(
    chat_log: conversation.ChatLog,
    api: llm.APIInstance,
    added: Sequence[conversation.Content],
) -> None:
    """The recognised intents' calls and results, under the names the model knows."""
    offered = {intent: name for name, intent in intent_types(api).items()}
    for content in added:
        if isinstance(content, conversation.AssistantContent) and content.tool_calls:
            content = replace(
                content,
                tool_calls=[
                    replace(call, tool_name=offered.get(call.tool_name, call.tool_name))
                    for call in content.tool_calls
                ],
            )
        elif isinstance(content, conversation.ToolResultContent):
            content = replace(
                content, tool_name=offered.get(content.tool_name, content.tool_name)
            )
        elif not isinstance(content, conversation.AssistantContent):
            continue
        chat_log.async_add_assistant_content_without_tools(content)


def _done(added: Sequence[conversation.Content]) -> tuple[Action, ...]:
    """What the intents before a risky one did, in Home Assistant's words."""
    done: list[Action] = []
    for content in added:
        if not isinstance(content, conversation.ToolResultContent):
            continue
        data: Any = content.result.data
        speech = (
            data.get("speech", {}).get("plain", {}).get("speech")
            if isinstance(data, dict)
            else None
        )
        said = speech.strip().rstrip(". ") if isinstance(speech, str) else ""
        # Each of "all the windows" is told alike ("Closing"): said once.
        if said and Action("speech", speech=said) not in done:
            done.append(Action("speech", speech=said))
    return tuple(done)


def _report(turn: TurnContext, reason: str) -> None:
    """The Route sensor and the trace: this turn was handled locally."""
    if (
        state := turn.entry.runtime_data.routes.get(turn.subentry.subentry_id)
    ) is not None:
        state.report(Route.LOCAL, reason=reason)
    turn.chat_log.async_trace({"route": Route.LOCAL.value, "reason": reason})
