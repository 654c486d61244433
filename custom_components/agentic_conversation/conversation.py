"""The conversation agents: one entity per `conversation` subentry."""

from typing import Literal

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT, MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import Unauthorized
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .agent import LLMProvider, Message
from .agents import agent_device_info, agent_subentries
from .basic_assistant import async_ask_basic_assistant
from .chat_history import content_to_messages
from .confirmation import Asker, ConfirmationGate, Pending, async_drop_agent, async_take
from .confirmation_turn import Judgement, Verdict, async_settle, judge
from .const import (
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    CONF_DEVICE_CONTINUITY,
    CONF_TOOL_TIMEOUT,
    DEFAULT_DEVICE_CONTINUITY,
    DEFAULT_TOOL_TIMEOUT,
    DOMAIN,
)
from .conversation_store import limits_of
from .conversation_turn import async_run_turn, error_result
from .memory import agent_memory, join_prompts, memory_prompt, without_facts
from .provider_factory import build_provider
from .replies import Fallback, Problem, async_render
from .runtime import AgenticConfigEntry
from .tool_options import AgenticLLMContext, ToolOptions

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

    async def async_will_remove_from_hass(self) -> None:
        """Held actions die with the agent: a reloaded agent asks again."""
        async_drop_agent(self.hass, self.entity_id)
        await super().async_will_remove_from_hass()

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Any language the model speaks."""
        return MATCH_ALL

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        """Answer one user message; a conversation busy with another gets words too."""
        try:
            return await super().async_process(user_input)
        except _BUSY_ERRORS:
            speech = await async_render(
                self.hass, user_input.language, Fallback(Problem.CONVERSATION_BUSY)
            )
            return error_result(user_input, speech, user_input.conversation_id)

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Answer one user message; always with something to say."""
        options = self.subentry.data
        pin = options.get(CONF_CONFIRM_PIN) or None
        # Actions held last turn wait for these words; our code judges them.
        pending = async_take(
            self.hass, chat_log.conversation_id, self.entity_id, Asker.of(user_input)
        )
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
        # HA's own LLM context (with agent_id since 2026.11), plus what our tools
        # read: the agent's tool options and this turn's confirmation gate.
        llm_context = AgenticLLMContext.extending(
            user_input.as_llm_context(DOMAIN),
            ToolOptions.from_options(options),
            gate=gate,
            memory=agent_memory(self.entry, self.subentry),
        )
        # The caller's extra prompt lasts the conversation; facts are read every turn.
        # HA keeps the joined text: while the facts are unchanged, HA 2026.11+ keeps
        # the system prompt as it was (cacheable); when they change, it is rebuilt.
        extra = user_input.extra_system_prompt or without_facts(
            chat_log.extra_system_prompt
        )
        facts = memory_prompt(self.entry, self.subentry, user_input.context.user_id)
        try:
            await chat_log.async_provide_llm_data(
                llm_context,
                options.get(CONF_LLM_HASS_API),
                options.get(CONF_PROMPT),
                join_prompts(extra, facts),
            )
        except conversation.ConverseError as err:
            if not isinstance(err.__cause__, Unauthorized):
                return err.as_conversation_result()
            # An admin-only LLM API (HA 2026.11+) and a user who is no admin: HA
            # reports it in English, without saying why.
            speech = await async_render(
                self.hass, user_input.language, Fallback(Problem.LLM_API_UNAUTHORIZED)
            )
            chat_log.async_add_assistant_content_without_tools(
                conversation.AssistantContent(agent_id=self.entity_id, content=speech)
            )
            return error_result(user_input, speech, chat_log.conversation_id)
        # The history is ours: it outlives HA's chat log (idle minutes, restarts).
        store = self.entry.runtime_data.conversations
        limits = limits_of(options)
        continuity = options.get(CONF_DEVICE_CONTINUITY, DEFAULT_DEVICE_CONTINUITY)
        kept = store.find(
            self.subentry.subentry_id,
            [user_input.conversation_id, chat_log.conversation_id],
            user_input.device_id
            if continuity and user_input.conversation_id is None
            else None,
            limits,
        )
        start = len(chat_log.content) - 1  # this turn's user message
        earlier = (
            kept[1].messages
            if kept
            else content_to_messages(chat_log.content[1:start], self.entity_id)
        )
        try:
            return await self._async_answer(
                user_input, chat_log, pending, judgement, earlier
            )
        finally:
            # Whatever the turn added to the chat log (also when cancelled) is kept.
            store.async_record(
                self.subentry.subentry_id,
                chat_log.conversation_id,
                [*earlier, *content_to_messages(chat_log.content[start:])],
                device_id=user_input.device_id,
                limits=limits,
                replaces=kept[0] if kept else None,
            )

    async def _async_answer(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        pending: Pending | None,
        judgement: Judgement | None,
        history: list[Message],
    ) -> conversation.ConversationResult:
        """Settle held actions with the user's words, else run a turn of the loop."""
        options = self.subentry.data
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
        capabilities = self.entry.runtime_data.capabilities.get(
            self.subentry.subentry_id
        )
        if (
            capabilities is not None
            and capabilities.tools is False
            and chat_log.llm_api
        ):
            # A model that cannot act must not be the one that says it did: commands
            # go to HA's own agent first, only what it does not understand to the LLM.
            said = await async_ask_basic_assistant(
                self.hass,
                user_input,
                chat_log,
                options.get(CONF_CONFIRM_ENTITIES) or (),
            )
            if said is not None:
                chat_log.async_trace(
                    {"route": "local", "reason": "the model ignores tools"}
                )
                return conversation.async_get_result_from_chat_log(user_input, chat_log)
        return await async_run_turn(
            self.hass,
            self.entry,
            self.subentry,
            self._provider,
            self.entity_id,
            user_input,
            chat_log,
            history=history,
        )
