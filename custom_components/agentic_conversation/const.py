"""Constants for the Agentic Conversation integration."""

import logging
from typing import Final

DOMAIN: Final = "agentic_conversation"
LOGGER = logging.getLogger(__package__)

# The connection (config entry)
CONF_BASE_URL: Final = "base_url"
DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"

# An agent (conversation subentry); prompt and llm_hass_api use HA's own keys
SUBENTRY_CONVERSATION: Final = "conversation"
SUBENTRY_AI_TASK: Final = "ai_task_data"
DEFAULT_AI_TASK_NAME: Final = "AI Task"
# An AI task's own deadline (a camera image takes a vision model a while).
CONF_TASK_TIMEOUT: Final = "task_timeout"
DEFAULT_TASK_TIMEOUT: Final = 120
# Optional prices per million tokens, for the cost sensor.
CONF_PRICE_INPUT: Final = "price_input"
CONF_PRICE_OUTPUT: Final = "price_output"
# The optional monthly budget (in the prices' currency, or tokens without a price) and
# the day of the month its period starts on.
CONF_BUDGET: Final = "monthly_budget"
CONF_BUDGET_DAY: Final = "budget_start_day"
DEFAULT_BUDGET_DAY: Final = 1
# Fired at 80 % and 100 % of a budget, once each per period.
EVENT_BUDGET: Final = "agentic_conversation_budget"
DEFAULT_AGENT_NAME: Final = "Agentic Conversation"
CONF_MODEL: Final = "model"
CONF_MAX_ITERATIONS: Final = "max_iterations"
CONF_TOOL_TIMEOUT: Final = "tool_timeout"
CONF_TURN_TIMEOUT: Final = "turn_timeout"
CONF_TEMPERATURE: Final = "temperature"
CONF_MAX_TOKENS: Final = "max_tokens"
CONF_HISTORY_TOKENS: Final = "history_tokens"
CONF_CONTEXT_WINDOW: Final = "context_window"
CONF_STREAM: Final = "stream"
# Per-agent JSON text: extra request body fields and headers (server/extras.py).
CONF_EXTRA_BODY: Final = "extra_body"
CONF_EXTRA_HEADERS: Final = "extra_headers"

DEFAULT_MODEL: Final = "gpt-4o-mini"
DEFAULT_MAX_ITERATIONS: Final = 10
DEFAULT_TOOL_TIMEOUT: Final = 10
DEFAULT_TURN_TIMEOUT: Final = 60
DEFAULT_TEMPERATURE: Final = 0.7
DEFAULT_MAX_TOKENS: Final = 1024
DEFAULT_HISTORY_TOKENS: Final = 4000
# Tokens; a common size for local servers (llama.cpp, Ollama with a raised num_ctx).
DEFAULT_CONTEXT_WINDOW: Final = 16384
DEFAULT_STREAM: Final = True
# Options stored and sent as whole numbers (timeouts in seconds), though UI number
# fields give floats: servers reject e.g. "max_tokens": 1024.0.
# Conversations we keep: idle expiry in minutes (0: until the limits push them out),
# how many per agent, and whether a device without a conversation id continues its last.
CONF_CONVERSATION_EXPIRY: Final = "conversation_expiry"
CONF_MAX_CONVERSATIONS: Final = "max_conversations"
CONF_DEVICE_CONTINUITY: Final = "device_continuity"
DEFAULT_CONVERSATION_EXPIRY: Final = 5
MAX_CONVERSATION_EXPIRY: Final = 24 * 60
DEFAULT_MAX_CONVERSATIONS: Final = 100
DEFAULT_DEVICE_CONTINUITY: Final = False
# A fallback model, "<connection entry id>:<model>" or a model of the agent's own
# connection, used when the primary says nothing for first_token_timeout seconds.
CONF_FALLBACK_MODEL: Final = "fallback_model"
CONF_FIRST_TOKEN_TIMEOUT: Final = "first_token_timeout"
DEFAULT_FIRST_TOKEN_TIMEOUT: Final = 5

# When no LLM answers, Home Assistant's own agent handles the words (no risky actions).
CONF_LOCAL_FALLBACK: Final = "local_fallback"
DEFAULT_LOCAL_FALLBACK: Final = True
# Each turn first tries what Home Assistant's own agent recognises: a plain command is
# done without the model, a risky one is asked, anything else goes to the model. On for
# new agents (docs/configuration.md says why); an agent saved before it existed keeps
# going to the model until it is switched on.
CONF_LOCAL_FIRST: Final = "local_first"
DEFAULT_LOCAL_FIRST: Final = True
# Of the turn timeout, kept for Home Assistant's own agent when no model answered.
LOCAL_ROUTE_SECONDS: Final = 2.0

# Seconds tools may run with nothing said before a short "One moment." (0: never).
CONF_WAIT_PHRASE_AFTER: Final = "wait_phrase_after"
DEFAULT_WAIT_PHRASE_AFTER: Final = 0
# Seconds a turn waits, at most, for what its actions target to show the state they
# imply (one deadline after the last action, for all of them at once); after it, an
# action not shown is told as not done. Devices that answer at once cost no wait.
CONF_VERIFY_TIMEOUT: Final = "verify_timeout"
DEFAULT_VERIFY_TIMEOUT: Final = 2.0
# A camera snapshot for the model (look_at_camera): its longer side and JPEG quality.
CONF_CAMERA_IMAGE_SIZE: Final = "camera_image_size"
DEFAULT_CAMERA_IMAGE_SIZE: Final = 768
CONF_CAMERA_IMAGE_QUALITY: Final = "camera_image_quality"
DEFAULT_CAMERA_IMAGE_QUALITY: Final = 75
# A model on the agent's connection that describes a snapshot for an agent whose own
# model cannot see (unset: none, and such an agent is not offered look_at_camera).
CONF_CAMERA_DESCRIBER: Final = "camera_describing_model"
# The agent form's switch: on, the memory and limits sections are hidden and their
# options are saved at the defaults (RECOMMENDED_OPTIONS in config_flow.py).
CONF_RECOMMENDED: Final = "recommended"

INTEGER_OPTIONS: Final = (
    CONF_MAX_ITERATIONS,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    CONF_MAX_TOKENS,
    CONF_HISTORY_TOKENS,
    CONF_CONVERSATION_EXPIRY,
    CONF_MAX_CONVERSATIONS,
    CONF_CONTEXT_WINDOW,
    CONF_FIRST_TOKEN_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER,
    CONF_CAMERA_IMAGE_SIZE,
    CONF_CAMERA_IMAGE_QUALITY,
)

# Our own tools (the `agentic_conversation` HA LLM API) and their per-agent options
LLM_API_ID: Final = DOMAIN
# Assist's intents and our tools in one API, without the list of exposed entities in
# the prompt (the model searches): the default of new agents.
COMPACT_API_ID: Final = f"{DOMAIN}_compact"
CONF_ALLOWED_SERVICES: Final = "allowed_services"
CONF_WEATHER_ENTITY: Final = "weather_entity"
CONF_ENABLED_TOOLS: Final = "enabled_tools"

# Risky actions wait for the user's own "yes" (or PIN): extra entities per agent, and
# an optional spoken PIN that replaces "yes" for locks and alarm panels.
CONF_CONFIRM_ENTITIES: Final = "confirm_entities"
CONF_CONFIRM_PIN: Final = "confirm_pin"

# Household memory: facts the agent keeps (kept/memory.py); agents that turn sharing on use
# one memory of their connection instead of their own.
CONF_MEMORY_SHARED: Final = "memory_shared"
DEFAULT_MEMORY_SHARED: Final = False

TOOL_SEARCH_ENTITIES: Final = "search_entities"
TOOL_GET_ENTITY_STATE: Final = "get_entity_state"
TOOL_CALL_SERVICE: Final = "call_service"
TOOL_GET_WEATHER: Final = "get_weather"
TOOL_REMEMBER: Final = "remember"
TOOL_FORGET: Final = "forget"
TOOL_RECALL: Final = "recall"
TOOL_LOOK_AT_CAMERA: Final = "look_at_camera"
MEMORY_TOOLS: Final = (TOOL_REMEMBER, TOOL_FORGET, TOOL_RECALL)
TOOL_NAMES: Final = (
    TOOL_SEARCH_ENTITIES,
    TOOL_GET_ENTITY_STATE,
    TOOL_CALL_SERVICE,
    TOOL_GET_WEATHER,
    TOOL_LOOK_AT_CAMERA,
    *MEMORY_TOOLS,
)
DEFAULT_ENABLED_TOOLS: Final = TOOL_NAMES
# Domains `call_service` may act on, `domain` or `domain.service` patterns (fnmatch).
# Locks, alarm panels and the like are left out on purpose: a misheard word must not
# open the front door.
DEFAULT_ALLOWED_SERVICES: Final = (
    "light",
    "switch",
    "fan",
    "cover",
    "climate",
    "media_player",
    "scene",
    "script",
    "input_*",
    "vacuum",
)
