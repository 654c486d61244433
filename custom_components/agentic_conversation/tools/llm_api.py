"""Our tools as a Home Assistant LLM API, selectable for any agent (ours or another's)."""

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import LLM_API_ID, MEMORY_TOOLS, TOOL_LOOK_AT_CAMERA
from ..tool_options import describer_of, memory_of, snapshots_of, tool_options_of
from .camera import LookAtCameraTool, any_camera_exposed
from .memory import ForgetTool, RecallTool, RememberTool
from .search import SearchEntitiesTool
from .services import CallServiceTool
from .state import GetEntityStateTool
from .weather import GetWeatherTool

# How to act and read states: each prompt gives exactly one way (tested), since a model
# told two ways to do one thing follows either.
ACT_WITH_SERVICES = "Use call_service to act and get_entity_state to check states."
ACT_WITH_INTENTS = (
    "Control devices with the intent tools; use call_service only for what no "
    "intent tool does."
)
WEATHER_PROMPT = (
    "get_weather answers weather questions for home or any place in the world."
)
API_PROMPT = (
    "You can see and control this home with tools. Find devices with search_entities "
    "(by name, area or type) before reading or changing them; never guess entity ids. "
    f"{ACT_WITH_SERVICES} Only exposed devices can be found or controlled. "
    f"{WEATHER_PROMPT}"
)
# Next to Assist, whose own instructions say how to control devices and read states.
BESIDE_ASSIST_PROMPT = f"{ACT_WITH_INTENTS} {WEATHER_PROMPT}"
MEMORY_PROMPT = (
    "When the user asks you to remember something for later, save it with remember "
    "as one short sentence; forget removes a fact, recall lists them."
)


def agentic_tools(hass: HomeAssistant, llm_context: llm.LLMContext) -> list[llm.Tool]:
    """The tools this agent enabled (all, for callers that are not our agents).

    The memory tools only where there is a memory: our agent's turn. An MCP client
    (HA's mcp_server) or another integration's agent would only get an error from them.
    The camera tool only in our agent's turn (which shows the picture), with a camera
    exposed, for a model whose server does not say it is blind, or one that has a
    model on its connection to describe the picture for it.
    """
    options = tool_options_of(llm_context)
    enabled = options.enabled_tools
    if memory_of(llm_context) is None:
        enabled -= set(MEMORY_TOOLS)
    if (
        snapshots_of(llm_context) is None
        or (options.sees_images is False and describer_of(llm_context) is None)
        or (TOOL_LOOK_AT_CAMERA in enabled and not any_camera_exposed(hass))
    ):
        enabled -= {TOOL_LOOK_AT_CAMERA}
    return [
        tool
        for tool in (
            SearchEntitiesTool(),
            GetEntityStateTool(),
            CallServiceTool(),
            GetWeatherTool(),
            LookAtCameraTool(),
            RememberTool(),
            ForgetTool(),
            RecallTool(),
        )
        if tool.name in enabled
    ]


def with_memory_prompt(prompt: str, llm_context: llm.LLMContext) -> str:
    """The prompt, and how to remember when this agent has a memory to use."""
    enabled = tool_options_of(llm_context).enabled_tools
    if memory_of(llm_context) is not None and enabled & set(MEMORY_TOOLS):
        return f"{prompt} {MEMORY_PROMPT}"
    return prompt


class AgenticToolsAPI(llm.API):
    """search_entities, get_entity_state, call_service, get_weather and memory."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register under our id."""
        super().__init__(hass=hass, id=LLM_API_ID, name="Agentic Conversation tools")

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Our tools; instructions that defer to Assist's when the agent has both."""
        beside_assist = llm.LLM_API_ASSIST in tool_options_of(llm_context).apis
        prompt = BESIDE_ASSIST_PROMPT if beside_assist else API_PROMPT
        return llm.APIInstance(
            api=self,
            api_prompt=with_memory_prompt(prompt, llm_context),
            llm_context=llm_context,
            tools=agentic_tools(self.hass, llm_context),
        )
