"""Our tools as a Home Assistant LLM API, selectable for any agent (ours or another's)."""

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import LLM_API_ID, MEMORY_TOOLS
from ..tool_options import memory_of, tool_options_of
from .memory import ForgetTool, RecallTool, RememberTool
from .search import SearchEntitiesTool
from .services import CallServiceTool
from .state import GetEntityStateTool
from .weather import GetWeatherTool

API_PROMPT = (
    "You can see and control this home with tools. Find devices with search_entities "
    "(by name, area or type) before reading or changing them; never guess entity ids. "
    "Use call_service to act and get_entity_state to check states. Only exposed "
    "devices can be found or controlled. get_weather answers weather questions for "
    "home or any place in the world."
)
MEMORY_PROMPT = (
    "When the user asks you to remember something for later, save it with remember "
    "as one short sentence; forget removes a fact, recall lists them."
)


class AgenticToolsAPI(llm.API):
    """search_entities, get_entity_state, call_service, get_weather and memory."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register under our id."""
        super().__init__(hass=hass, id=LLM_API_ID, name="Agentic Conversation tools")

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """The tools this agent enabled (all, for callers that are not our agents)."""
        enabled = tool_options_of(llm_context).enabled_tools
        tools: list[llm.Tool] = [
            tool
            for tool in (
                SearchEntitiesTool(),
                GetEntityStateTool(),
                CallServiceTool(),
                GetWeatherTool(),
                RememberTool(),
                ForgetTool(),
                RecallTool(),
            )
            if tool.name in enabled
        ]
        prompt = API_PROMPT
        if memory_of(llm_context) is not None and enabled & set(MEMORY_TOOLS):
            prompt = f"{API_PROMPT} {MEMORY_PROMPT}"
        return llm.APIInstance(
            api=self, api_prompt=prompt, llm_context=llm_context, tools=tools
        )
