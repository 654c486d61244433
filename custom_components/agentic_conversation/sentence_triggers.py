"""Sentence triggers: what an automation's `conversation` trigger sets off, and a yes.

Home Assistant's own agent runs a sentence trigger ("open sesame") by calling the
automations registered for it, outside any intent. Its sentences are matched back to
the automations whose `conversation` trigger has exactly those sentences, and running
them is judged like triggering those automations (by what their actions do, with the
sentence's `trigger` variables). A sentence trigger we cannot map to an automation
(another integration's, a blueprint's) may do anything: in a home with an exposed lock,
door-like cover, valve or alarm panel it is asked about, never run unasked.

After a "yes", `SentenceTriggerTool` (offered for that turn only) recognises the
sentence again and runs HA's own trigger handling with it: the automations get the
same `trigger` variables and check their own conditions, as if the sentence had run
unasked; the automation's `trigger` service would skip both.
"""

from collections.abc import Iterator, Mapping
from typing import Any

import probatio

from homeassistant.components import conversation
from homeassistant.components.conversation.agent_manager import get_agent_manager
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util.json import JsonObjectType
from homeassistant.util.ulid import ulid_now

from .const import DOMAIN, LOGGER
from .safety.confirmation import gate_refuses
from .safety.effects import Effect
from .safety.intent_actions import exposed_openers
from .tool_options import gate_of

# The held action's tool: offered only on the turn that answers its question.
TRIGGER_TOOL = "run_sentence_trigger"
_CONVERSATION = "conversation"


def trigger_effects(
    hass: HomeAssistant, trigger: Any, user_input: conversation.ConversationInput
) -> list[Effect]:
    """What running a recognised sentence trigger would set off.

    `trigger` is the default agent's `SentenceTriggerResult`.
    """
    automations = list(_sentence_automations(hass))
    effects: list[Effect] = []
    for result in trigger.matched_triggers.values():
        sentences = _sentences(result)
        found = [entity_id for entity_id, said in automations if said == sentences]
        if not found:
            LOGGER.debug("Sentence trigger %s: no automation of ours", sentences)
            return exposed_openers(hass)
        slots = {
            name: getattr(entity, "value", None)
            for name, entity in getattr(result, "entities", {}).items()
        }
        variables = {
            "trigger": {
                "platform": _CONVERSATION,
                "sentence": user_input.text,
                "slots": slots,
                "device_id": user_input.device_id,
                "satellite_id": user_input.satellite_id,
            }
        }
        effects.extend(
            Effect(entity_id, "automation", "trigger", {"variables": variables})
            for entity_id in found
        )
    return effects


def _sentences(result: Any) -> frozenset[str]:
    """The sentences of one matched trigger (hassil's parsed copies keep the text)."""
    intent = getattr(result, "intent", None)
    return frozenset(
        sentence.text.strip()
        for data in getattr(intent, "data", ())
        for sentence in data.sentences
        if isinstance(sentence.text, str)
    )


def _sentence_automations(hass: HomeAssistant) -> Iterator[tuple[str, frozenset[str]]]:
    """Each enabled automation's conversation triggers, as their sets of sentences."""
    for automation in getattr(hass.data.get("automation"), "entities", ()):
        if not getattr(automation, "is_on", False):
            continue  # its triggers are not registered
        config = getattr(automation, "raw_config", None) or {}
        triggers = config.get("triggers", config.get("trigger"))
        if isinstance(triggers, Mapping):
            triggers = [triggers]
        for trigger in triggers if isinstance(triggers, list) else ():
            if not isinstance(trigger, Mapping) or _CONVERSATION not in (
                trigger.get("trigger"),
                trigger.get("platform"),
            ):
                continue
            command = trigger.get("command")
            commands = [command] if isinstance(command, str) else command or []
            yield (
                automation.entity_id,
                frozenset(str(text).strip() for text in commands),
            )


class SentenceTriggerTool(llm.Tool):
    """Runs the sentence trigger the user just said yes to."""

    name = TRIGGER_TOOL
    description = "Run the automations a sentence the user said sets off."
    parameters = probatio.Schema({probatio.Required("sentence"): str})
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult | JsonObjectType:
        """Recognise the sentence again; run it as HA's agent would, if still allowed."""
        sentence = str(self.parameters(tool_input.tool_args)["sentence"])
        user_input = conversation.ConversationInput(
            text=sentence,
            context=llm_context.context or Context(),
            conversation_id=None,
            device_id=llm_context.device_id,
            satellite_id=None,
            language=llm_context.language or hass.config.language,
            agent_id=conversation.HOME_ASSISTANT_AGENT,
        )
        agent: Any = get_agent_manager(hass).default_agent
        trigger = (
            await agent.async_recognize_sentence_trigger(user_input) if agent else None
        )
        if trigger is None:
            return llm.ToolResult(
                data={"error": "No automation is set off by this sentence any more."},
                error=True,
            )
        # What it sets off now must be what the user said yes to (the gate lets
        # exactly that through); anything else is held or refused.
        effects = trigger_effects(hass, trigger, user_input)
        gate = gate_of(llm_context)
        if gate is not None:
            if not gate.review(tool_input.id, self.name, tool_input.tool_args, effects):
                return {}  # held: the dispatcher reports it
        elif gate_refuses(hass, effects):
            return llm.ToolResult(data={"error": "Needs the user's yes."}, error=True)
        scratch = conversation.ChatLog(hass, ulid_now())
        said = await agent._handle_trigger_result(trigger, user_input, scratch)  # noqa: SLF001
        return llm.ToolResult(data={"response": said})
