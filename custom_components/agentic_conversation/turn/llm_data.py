"""The turn's tools and prompt: HA's LLM APIs, our tool options, memory, the gate."""

from homeassistant.components import conversation
from homeassistant.const import CONF_LLM_HASS_API, CONF_PROMPT
from homeassistant.exceptions import TemplateError, Unauthorized

from ..agent.describer import Describer
from ..const import (
    CONF_CAMERA_DESCRIBER,
    CONF_CONFIRM_ENTITIES,
    CONF_MODEL,
    CONF_TOOL_TIMEOUT,
    DEFAULT_TOOL_TIMEOUT,
    DOMAIN,
)
from ..ending import Ending, Fallback, Problem
from ..kept.memory import agent_memory, join_prompts, memory_prompt, without_facts
from ..provider_factory import describer_provider
from ..safety.confirmation import ConfirmationGate
from ..safety.unbounded_apis import async_left_out
from ..sentence_triggers import TRIGGER_TOOL, SentenceTriggerTool
from ..tasks.attachments import async_model_sees_images
from ..tool_options import AgenticLLMContext, ToolOptions, api_ids, unbounded_selected
from ..tools.camera import any_camera_exposed
from .context import TurnContext
from .settle import Held

# Why HA could not give the chat log its tools and prompt, by the error behind it;
# any other: the agent's LLM API is gone or failed to start.
_LLM_DATA_PROBLEMS = (
    # An admin-only LLM API (HA 2026.11+) and a user who is no admin.
    (Unauthorized, Problem.LLM_API_UNAUTHORIZED),
    # The agent's instructions template does not render.
    (TemplateError, Problem.PROMPT_TEMPLATE),
)


async def async_provide_llm_data(turn: TurnContext, held: Held | None) -> Ending | None:
    """Give the chat log its tools and system prompt; an Ending when HA cannot."""
    options, user_input, chat_log = turn.subentry.data, turn.user_input, turn.chat_log
    # Only the held actions the user's words approved pass this turn's gate.
    gate = ConfirmationGate(
        turn.hass,
        options.get(CONF_CONFIRM_ENTITIES) or (),
        approved=held.approved if held is not None else (),
    )
    # HA's own LLM context (with agent_id since 2026.11), plus what our tools
    # read: the agent's tool options and this turn's confirmation gate.
    # Asked (once per model) only where there is a camera to look through.
    sees_images = (
        await async_model_sees_images(turn.entry, str(options.get(CONF_MODEL)))
        if any_camera_exposed(turn.hass)
        else None
    )
    llm_context = AgenticLLMContext.extending(
        user_input.as_llm_context(DOMAIN),
        ToolOptions.from_options(options, sees_images=sees_images),
        gate=gate,
        memory=agent_memory(turn.entry, turn.subentry),
        describer=_describer(turn) if sees_images is False else None,
        effects=turn.effects,
    )
    # The caller's extra prompt lasts the conversation; facts are read every turn.
    # HA keeps the joined text: while the facts are unchanged, HA 2026.11+ keeps
    # the system prompt as it was (cacheable); when they change, it is rebuilt.
    extra = user_input.extra_system_prompt or without_facts(
        chat_log.extra_system_prompt
    )
    facts = memory_prompt(turn.entry, turn.subentry, user_input.context.user_id)
    try:
        await chat_log.async_provide_llm_data(
            llm_context,
            _bounded_apis(turn),
            options.get(CONF_PROMPT),
            join_prompts(extra, facts),
        )
    except conversation.ConverseError as err:
        # HA has logged the detail; its words are English and do not say what to do.
        problem = next(
            (p for kind, p in _LLM_DATA_PROBLEMS if isinstance(err.__cause__, kind)),
            Problem.LLM_API_UNAVAILABLE,
        )
        return Ending(Fallback(problem))
    if chat_log.llm_api is not None and any(
        action.tool_name == TRIGGER_TOOL
        for action in (held.approved if held is not None else ())
    ):
        # A held sentence trigger the user said yes to: its tool, for this turn only.
        chat_log.llm_api.tools.append(SentenceTriggerTool())
    return None


def _bounded_apis(turn: TurnContext) -> list[str] | None:
    """The agent's APIs, never one whose tools reach past exposure (None: none)."""
    value = turn.subentry.data.get(CONF_LLM_HASS_API)
    if left_out := unbounded_selected(turn.hass, value):
        async_left_out(turn.hass, turn.subentry, left_out)
    return [api for api in api_ids(value) if api not in left_out] or None


def _describer(turn: TurnContext) -> Describer | None:
    """The agent's describing model, for its model that cannot see; None if unset."""
    model = str(turn.subentry.data.get(CONF_CAMERA_DESCRIBER) or "").strip()
    if not model:
        return None
    return Describer(
        describer_provider(turn.entry, turn.subentry, model),
        model,
        turn.user_input.text,
        float(turn.subentry.data.get(CONF_TOOL_TIMEOUT, DEFAULT_TOOL_TIMEOUT)),
    )
