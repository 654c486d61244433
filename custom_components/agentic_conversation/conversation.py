"""The conversation agents: one entity per `conversation` subentry."""

from dataclasses import replace
from typing import Literal

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .agent import LLMProvider, safe_text
from .agents import agent_device_info, agent_subentries
from .const import CONF_VERIFY_TIMEOUT, DEFAULT_VERIFY_TIMEOUT
from .ending import Problem
from .kept.turns import ConversationTurns
from .prompt_warmup import async_rewarm_later
from .provider_factory import build_provider
from .runtime import AgenticConfigEntry
from .safety.confirmation import async_drop_agent
from .safety.unbounded_apis import async_check_agent, async_forget_agent
from .turn import TurnContext, async_handle_turn
from .turn.reply import async_problem_result
from .verify.watch import EffectWatch

# The agent handles conversations concurrently; nothing is polled.
PARALLEL_UPDATES = 0

# HA 2026.11+ refuses a message to a conversation still answering another one.
_BUSY_ERRORS: tuple[type[Exception], ...] = tuple(
    error
    for error in (getattr(conversation, "ConversationBusyError", None),)
    if error is not None
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add an agent for each conversation subentry of the connection."""
    for subentry in agent_subentries(entry):
        async_add_entities(
            [AgenticConversationEntity(hass, entry, subentry)],
            config_subentry_id=subentry.subentry_id,
        )


class AgenticConversationEntity(conversation.ConversationEntity):
    """An agent that answers by calling the LLM and the tools it asks for."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supports_streaming = True

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AgenticConfigEntry,
        subentry: ConfigSubentry,
    ) -> None:
        """Set up the agent of a subentry."""
        self.entry = entry
        self.subentry = subentry
        self._attr_unique_id = subentry.subentry_id
        self._attr_device_info = agent_device_info(subentry)
        if subentry.data.get(CONF_LLM_HASS_API):
            self._attr_supported_features = (
                conversation.ConversationEntityFeature.CONTROL
            )
        # One provider per agent, over the connection's shared client; the entity is
        # rebuilt when the agent's options change.
        self._provider: LLMProvider = build_provider(hass, entry, subentry)
        self._turns = ConversationTurns()

    async def async_added_to_hass(self) -> None:
        """Its Repair now, if it is set up with an API beyond exposure."""
        await super().async_added_to_hass()
        async_check_agent(self.hass, self.subentry)

    async def async_will_remove_from_hass(self) -> None:
        """Held actions die with the agent: a reloaded agent asks again."""
        async_drop_agent(self.hass, self.entity_id)
        async_forget_agent(self.hass, self.subentry)
        await super().async_will_remove_from_hass()

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Any language the model speaks."""
        return MATCH_ALL

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        """Answer one user message; a conversation busy with another gets words too."""
        # Text enters here (HA's chat log, our store, the request): made encodable.
        user_input = replace(
            user_input,
            text=safe_text(user_input.text),
            extra_system_prompt=user_input.extra_system_prompt
            and safe_text(user_input.extra_system_prompt),
        )
        try:
            async with self._turns.one_at_a_time(
                ("conversation", user_input.conversation_id)
                if user_input.conversation_id
                else ("device", user_input.device_id)
                if user_input.device_id
                else None
            ):
                return await super().async_process(user_input)
        except _BUSY_ERRORS:
            return await async_problem_result(
                self.hass, user_input, Problem.CONVERSATION_BUSY
            )

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer one user message; always with something to say."""
        try:
            return await async_handle_turn(
                TurnContext(
                    self.hass,
                    self.entry,
                    self.subentry,
                    self._provider,
                    self.entity_id,
                    user_input,
                    chat_log,
                    EffectWatch(
                        self.hass,
                        float(
                            self.subentry.data.get(
                                CONF_VERIFY_TIMEOUT, DEFAULT_VERIFY_TIMEOUT
                            )
                        ),
                    ),
                ),
            )
        finally:
            async_rewarm_later(self.hass, self.entry, self.subentry)
