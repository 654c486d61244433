"""The conversation agents: one entity per `conversation` subentry."""

from typing import Literal

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT, MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from . import AgenticConfigEntry
from .agent import OpenAICompatibleProvider
from .confirmation import ConfirmationGate, async_drop_agent, async_take
from .confirmation_turn import Verdict, async_settle, judge
from .const import (
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    CONF_MODEL,
    CONF_TOOL_TIMEOUT,
    DEFAULT_TOOL_TIMEOUT,
    DOMAIN,
    SUBENTRY_CONVERSATION,
)
from .conversation_turn import async_run_turn
from .memory import agent_memory, join_prompts, memory_prompt
from .provider_factory import build_provider
from .tool_options import AgenticLLMContext, ToolOptions

# The agent handles conversations concurrently; nothing is polled.
PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add an agent for each conversation subentry of the connection."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type != SUBENTRY_CONVERSATION:
            continue
        async_add_entities(
            [AgenticConversationEntity(entry, subentry)],
            config_subentry_id=subentry.subentry_id,
        )


class AgenticConversationEntity(conversation.ConversationEntity):
    """An agent that answers by calling the LLM and the tools it asks for."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supports_streaming = True

    def __init__(self, entry: AgenticConfigEntry, subentry: ConfigSubentry) -> None:
        """Set up the agent of a subentry."""
        self.entry = entry
        self.subentry = subentry
        self._attr_unique_id = subentry.subentry_id
        self._attr_device_info = dr.DeviceInfo(
            identifiers={(DOMAIN, subentry.subentry_id)},
            name=subentry.title,
            manufacturer="Agentic Conversation",
            model=subentry.data.get(CONF_MODEL),
            entry_type=dr.DeviceEntryType.SERVICE,
        )
        if subentry.data.get(CONF_LLM_HASS_API):
            self._attr_supported_features = (
                conversation.ConversationEntityFeature.CONTROL
            )
        # One provider per agent, over the connection's shared client; the entity is
        # rebuilt when the agent's options change.
        self._provider: OpenAICompatibleProvider = build_provider(entry, subentry)

    async def async_will_remove_from_hass(self) -> None:
        """Held actions die with the agent: a reloaded agent asks again."""
        async_drop_agent(self.hass, self.entity_id)
        await super().async_will_remove_from_hass()

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Any language the model speaks."""
        return MATCH_ALL

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer one user message; always with something to say."""
        options = self.subentry.data
        pin = options.get(CONF_CONFIRM_PIN) or None
        # Actions held last turn wait for these words; our code judges them.
        pending = async_take(self.hass, chat_log.conversation_id, self.entity_id)
        judgement = (
            judge(pending, user_input.text, user_input.language, pin)
            if pending is not None
            else None
        )
        gate = ConfirmationGate(
            self.hass,
            options.get(CONF_CONFIRM_ENTITIES) or (),
            approved=pending.actions
            if pending is not None
            and judgement is not None
            and judgement.verdict is Verdict.RUN
            else (),
        )
        # Our own tools read the agent's tool options and its gate from this context.
        llm_context = AgenticLLMContext(
            platform=DOMAIN,
            context=user_input.context,
            language=user_input.language,
            assistant=conversation.DOMAIN,
            device_id=user_input.device_id,
            tool_options=ToolOptions.from_options(options),
            gate=gate,
            memory=agent_memory(self.entry, self.subentry),
        )
        # The caller's extra prompt lasts the conversation; facts are read every turn.
        extra = user_input.extra_system_prompt or chat_log.extra_system_prompt
        facts = memory_prompt(self.entry, self.subentry, user_input.context.user_id)
        try:
            await chat_log.async_provide_llm_data(
                llm_context,
                options.get(CONF_LLM_HASS_API),
                options.get(CONF_PROMPT),
                join_prompts(extra, facts),
            )
        except conversation.ConverseError as err:
            return err.as_conversation_result()
        chat_log.extra_system_prompt = extra
        if pending is not None and judgement is not None:
            settled = await async_settle(
                self.hass,
                pending,
                judgement,
                user_input,
                chat_log,
                agent_id=self.entity_id,
                tool_timeout=float(
                    options.get(CONF_TOOL_TIMEOUT, DEFAULT_TOOL_TIMEOUT)
                ),
            )
            if settled is not None:
                return settled
        return await async_run_turn(
            self.hass,
            self.entry,
            self.subentry,
            self._provider,
            self.entity_id,
            user_input,
            chat_log,
        )
