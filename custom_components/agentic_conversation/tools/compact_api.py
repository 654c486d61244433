"""Compact home control: Assist's intents and our tools, without the entity list.

Assist's prompt lists every exposed entity (about 50 characters each), so a request
grows with the home. This API offers Assist's own tools (HA's `IntentTool`s, live
context included; `original_tool` unwraps them, so the confirmation gate knows them)
and ours, with Assist's instructions minus that list: the model finds entities with
search_entities instead. get_entity_state is left out: search_entities and live
context already give states, and a third way to read one only costs room. Live
context is told as what it adds to search_entities (the states of many devices at
once), in fewer words than HA's. Served without our agent's confirmation gate (over
MCP, to another agent), an intent that would do something risky (HassTurnOff on a
lock, an intent_script that unlocks) is refused, as call_service refuses: nobody is
there to ask.
"""

from homeassistant.components.homeassistant import llm as home_llm
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util.json import JsonObjectType

from ..const import COMPACT_API_ID, TOOL_GET_ENTITY_STATE
from ..safety.confirmation import gate_refuses
from ..safety.risk import intent_effects
from ..tool_options import gate_of
from .errors import refuse
from .llm_api import ACT_WITH_INTENTS, WEATHER_PROMPT, agentic_tools, with_memory_prompt

COMPACT_PROMPT = (
    "Devices are not listed here: find them with search_entities, which gives their "
    "exact names and states: search with the user's words for the thing and place; "
    f"several results may all be meant. {ACT_WITH_INTENTS} {WEATHER_PROMPT}"
)
LIVE_CONTEXT_DESCRIPTION = (
    "The current states of many devices and sensors at once, e.g. every light in an "
    "area; filter by name, domain or area."
)


class CompactHomeAPI(llm.API):
    """Assist's intents and our tools, for a prompt that does not grow with the home."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register under our compact id."""
        super().__init__(hass=hass, id=COMPACT_API_ID, name="Compact home control")

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Assist's instance, built with this context, without its entity overview."""
        assist = await llm.async_get_api(self.hass, llm.LLM_API_ASSIST, llm_context)
        ours = [
            tool
            for tool in agentic_tools(self.hass, llm_context)
            if tool.name != TOOL_GET_ENTITY_STATE
        ]
        names = {tool.name for tool in ours}
        prompt = "\n".join(
            part
            for part in (
                _without_overview(self.hass, assist.api_prompt, llm_context),
                with_memory_prompt(COMPACT_PROMPT, llm_context),
            )
            if part
        )
        return llm.APIInstance(
            api=self,
            api_prompt=prompt,
            llm_context=llm_context,
            tools=[_ours(tool) for tool in assist.tools if tool.name not in names]
            + ours,
            custom_serializer=assist.custom_serializer,
        )


class DescribedTool(llm.Tool):
    """Another API's tool under its own name, described in our words."""

    def __init__(self, tool: llm.Tool, description: str) -> None:
        """Wrap `tool`; `original_tool` unwraps it again."""
        self.tool = tool
        self.name = tool.name
        self.title = tool.title
        self.description = description
        self.parameters = tool.parameters
        self.annotations = tool.annotations
        self.integration = tool.integration

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult | JsonObjectType:
        """Call the wrapped tool."""
        return await self.tool.async_call(hass, tool_input, llm_context)


class GuardedIntentTool(DescribedTool):
    """An Assist intent that, where no gate can ask the user, refuses a risky call."""

    def __init__(self, tool: llm.IntentTool) -> None:
        """Wrap an intent tool under its own name and description."""
        super().__init__(tool, tool.description or "")
        self.intent_type = tool.intent_type

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult | JsonObjectType:
        """Our agent's dispatcher asked its gate already; anyone else is refused."""
        if gate_of(llm_context) is None and gate_refuses(
            hass,
            intent_effects(hass, self.intent_type, tool_input.tool_args, llm_context),
        ):
            return refuse(
                "This action needs the user's own confirmation, which this "
                "assistant cannot ask for. Nothing was changed."
            )
        return await self.tool.async_call(hass, tool_input, llm_context)


def _ours(tool: llm.Tool) -> llm.Tool:
    """An Assist tool as this API offers it: live context described, intents guarded."""
    if isinstance(tool, home_llm.GetLiveContextTool):
        return DescribedTool(tool, LIVE_CONTEXT_DESCRIPTION)
    if isinstance(tool, llm.IntentTool):
        return GuardedIntentTool(tool)
    return tool


def _without_overview(
    hass: HomeAssistant, prompt: str, llm_context: llm.LLMContext
) -> str:
    """Assist's prompt less the part of HA's `homeassistant` LLM platform.

    That part is the static overview of every exposed entity (or, with none, a hint
    to expose some) and how to read live context; the rest (how to call intents, the
    satellite's area, timers) stays. Assist joins its platforms' parts with newlines;
    the part is found as that platform gives it for the same context.
    """
    overview = home_llm.async_get_tools(hass, llm_context, llm.LLM_API_ASSIST)
    if overview is None or not overview.prompt or overview.prompt not in prompt:
        return prompt
    before, _, after = prompt.partition(overview.prompt)
    return "\n".join(part for part in (before.strip("\n"), after.strip("\n")) if part)
