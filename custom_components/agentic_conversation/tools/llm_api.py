"""Our tools as a Home Assistant LLM API, selectable for any agent (ours or another's)."""

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import LLM_API_ID
from ..tool_options import tool_options_of
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


class AgenticToolsAPI(llm.API):
    """search_entities, get_entity_state, call_service and get_weather."""

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
            )
            if tool.name in enabled
        ]
        return llm.APIInstance(
            api=self, api_prompt=API_PROMPT, llm_context=llm_context, tools=tools
        )
