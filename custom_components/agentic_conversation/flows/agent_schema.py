"""The agent form: its sections and fields, its defaults and its checks."""

from collections.abc import Mapping
import re
from typing import Any, Final

import probatio

from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME, CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.helpers.selector import (
    BooleanSelector,
    EntitySelector,
    EntitySelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TemplateSelector,
    TextSelector,
    TextSelectorConfig,
)

from ..const import (
    COMPACT_API_ID,
    CONF_ALLOWED_SERVICES,
    CONF_CAMERA_DESCRIBER,
    CONF_CAMERA_IMAGE_QUALITY,
    CONF_CAMERA_IMAGE_SIZE,
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    CONF_CONTEXT_WINDOW,
    CONF_CONVERSATION_EXPIRY,
    CONF_DEVICE_CONTINUITY,
    CONF_ENABLED_TOOLS,
    CONF_EXTRA_BODY,
    CONF_EXTRA_HEADERS,
    CONF_FALLBACK_MODEL,
    CONF_FIRST_TOKEN_TIMEOUT,
    CONF_HISTORY_TOKENS,
    CONF_LOCAL_FALLBACK,
    CONF_LOCAL_FIRST,
    CONF_MAX_CONVERSATIONS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY_SHARED,
    CONF_MODEL,
    CONF_RECOMMENDED,
    CONF_STREAM,
    CONF_TEMPERATURE,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    CONF_VERIFY_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER,
    CONF_WEATHER_ENTITY,
    DEFAULT_ALLOWED_SERVICES,
    DEFAULT_CAMERA_IMAGE_QUALITY,
    DEFAULT_CAMERA_IMAGE_SIZE,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_CONVERSATION_EXPIRY,
    DEFAULT_DEVICE_CONTINUITY,
    DEFAULT_ENABLED_TOOLS,
    DEFAULT_FIRST_TOKEN_TIMEOUT,
    DEFAULT_HISTORY_TOKENS,
    DEFAULT_LOCAL_FALLBACK,
    DEFAULT_LOCAL_FIRST,
    DEFAULT_MAX_CONVERSATIONS,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MEMORY_SHARED,
    DEFAULT_MODEL,
    DEFAULT_STREAM,
    DEFAULT_TEMPERATURE,
    DEFAULT_TOOL_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    DEFAULT_VERIFY_TIMEOUT,
    DEFAULT_WAIT_PHRASE_AFTER,
    LLM_API_ID,
    MAX_CONVERSATION_EXPIRY,
    TOOL_NAMES,
)
from ..provider_factory import fallback_choices
from ..safety.unbounded_apis import offered_apis
from ..server.extras import ExtrasError, parse_body_extras, parse_header_extras
from .form import PASSWORD, form_section, model_choice, whole_number
from .prices import price_fields, tidy_prices

# A spoken confirmation PIN: ASCII digits only (str.isdigit also takes "²" or "٣").
PIN = re.compile(r"[0-9]{4,10}")

# What the "recommended settings" switch sets, and hides: the memory and the limits
# and timing sections.
RECOMMENDED_OPTIONS: Final[Mapping[str, Any]] = {
    CONF_CONVERSATION_EXPIRY: DEFAULT_CONVERSATION_EXPIRY,
    CONF_MAX_CONVERSATIONS: DEFAULT_MAX_CONVERSATIONS,
    CONF_DEVICE_CONTINUITY: DEFAULT_DEVICE_CONTINUITY,
    CONF_MEMORY_SHARED: DEFAULT_MEMORY_SHARED,
    CONF_MAX_ITERATIONS: DEFAULT_MAX_ITERATIONS,
    CONF_TOOL_TIMEOUT: DEFAULT_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT: DEFAULT_TURN_TIMEOUT,
    CONF_FIRST_TOKEN_TIMEOUT: DEFAULT_FIRST_TOKEN_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER: DEFAULT_WAIT_PHRASE_AFTER,
    CONF_VERIFY_TIMEOUT: DEFAULT_VERIFY_TIMEOUT,
    CONF_CAMERA_IMAGE_SIZE: DEFAULT_CAMERA_IMAGE_SIZE,
    CONF_CAMERA_IMAGE_QUALITY: DEFAULT_CAMERA_IMAGE_QUALITY,
    CONF_TEMPERATURE: DEFAULT_TEMPERATURE,
    CONF_MAX_TOKENS: DEFAULT_MAX_TOKENS,
    CONF_HISTORY_TOKENS: DEFAULT_HISTORY_TOKENS,
    CONF_CONTEXT_WINDOW: DEFAULT_CONTEXT_WINDOW,
    CONF_STREAM: DEFAULT_STREAM,
}


def default_model(models: list[str]) -> str:
    """The model a new agent or AI task starts with: ours if offered, else the first."""
    if DEFAULT_MODEL in models or not models:
        return DEFAULT_MODEL
    return models[0]


def default_agent_options(models: list[str]) -> dict[str, Any]:
    """The options of the agent created with a new connection."""
    return {
        CONF_MODEL: default_model(models),
        CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
        # HA's intents and our tools, with a prompt that does not grow with the home
        # (the model searches for entities instead of reading a list of them).
        CONF_LLM_HASS_API: [COMPACT_API_ID],
        CONF_ALLOWED_SERVICES: list(DEFAULT_ALLOWED_SERVICES),
        CONF_ENABLED_TOOLS: list(DEFAULT_ENABLED_TOOLS),
        CONF_CONFIRM_ENTITIES: [],
        CONF_LOCAL_FALLBACK: DEFAULT_LOCAL_FALLBACK,
        CONF_LOCAL_FIRST: DEFAULT_LOCAL_FIRST,
        CONF_RECOMMENDED: True,
        **RECOMMENDED_OPTIONS,
    }


def is_recommended(options: Mapping[str, Any]) -> bool:
    """The switch as saved; an agent saved before it existed: its values tell."""
    if CONF_RECOMMENDED in options:
        return bool(options[CONF_RECOMMENDED])
    return all(options.get(k, v) == v for k, v in RECOMMENDED_OPTIONS.items())


def check_agent_options(options: dict[str, Any]) -> dict[str, str]:
    """Tidy the flat options in place; the errors by field."""
    errors: dict[str, str] = {}
    tidy_prices(options)
    for optional in (CONF_LLM_HASS_API, CONF_FALLBACK_MODEL, CONF_CAMERA_DESCRIBER):
        if not options.get(optional):
            options.pop(optional, None)
    # An empty PIN means none: it is not stored.
    if pin := str(options.pop(CONF_CONFIRM_PIN, None) or "").strip():
        options[CONF_CONFIRM_PIN] = pin
        if not PIN.fullmatch(pin):
            errors[CONF_CONFIRM_PIN] = "invalid_pin"
    if overlapping_apis(options.get(CONF_LLM_HASS_API) or []):
        errors[CONF_LLM_HASS_API] = "compact_with_its_parts"
    if options[CONF_TURN_TIMEOUT] <= options[CONF_TOOL_TIMEOUT]:
        errors[CONF_TURN_TIMEOUT] = "turn_timeout_too_short"
    if options[CONF_CONTEXT_WINDOW] <= options[CONF_MAX_TOKENS]:
        errors[CONF_CONTEXT_WINDOW] = "context_window_too_small"
    for field, parse in (
        (CONF_EXTRA_BODY, parse_body_extras),
        (CONF_EXTRA_HEADERS, parse_header_extras),
    ):
        if not (text := str(options.pop(field, None) or "").strip()):
            continue  # none: not stored
        options[field] = text
        try:
            parse(text)
        except ExtrasError as err:
            errors.update({field: err.key})  # its keys: ExtrasError(...) in extras.py
    return errors


def overlapping_apis(apis: list[str]) -> bool:
    """Compact home control already holds Assist's intents and our tools.

    With either beside it the model would get every tool twice, and two sets of
    instructions for controlling devices.
    """
    return COMPACT_API_ID in apis and bool({llm.LLM_API_ASSIST, LLM_API_ID} & set(apis))


# The agent form's sections; the runtime reads their fields flat.
SECTION_MODEL: Final = "model_and_instructions"
SECTION_CONTROL: Final = "control_and_safety"
SECTION_FALLBACK: Final = "fallback"
SECTION_MEMORY: Final = "memory"
SECTION_LIMITS: Final = "limits_and_timing"
SECTION_SERVER: Final = "server_extras"
SECTION_USAGE: Final = "usage"
SECTIONS: Final = frozenset(
    {
        SECTION_MODEL,
        SECTION_CONTROL,
        SECTION_FALLBACK,
        SECTION_MEMORY,
        SECTION_LIMITS,
        SECTION_SERVER,
        SECTION_USAGE,
    }
)
# Hidden while the recommended settings are on.
TUNING_SECTIONS: Final = frozenset({SECTION_MEMORY, SECTION_LIMITS})


def agent_schema(
    hass: HomeAssistant,
    is_new: bool,
    models: list[str],
    *,
    tuning: bool,
    reveal: bool = False,
) -> probatio.Schema:
    """The agent form in sections; values come in as suggested values.

    tuning: show the memory and limits sections (the recommended switch is off);
    reveal: show them open (it was just switched off).
    """
    model: dict[Any, Any] = {}
    if is_new:
        model[probatio.Required(CONF_NAME)] = str
    model.update(
        {
            probatio.Required(CONF_MODEL): model_choice(sorted(models)),
            probatio.Optional(CONF_PROMPT): TemplateSelector(),
        }
    )
    apis = [
        SelectOptionDict(label=api.name, value=api.id) for api in offered_apis(hass)
    ]
    control = {
        probatio.Optional(CONF_LLM_HASS_API): SelectSelector(
            SelectSelectorConfig(options=apis, multiple=True)
        ),
        probatio.Required(
            CONF_ENABLED_TOOLS, default=list(DEFAULT_ENABLED_TOOLS)
        ): SelectSelector(
            SelectSelectorConfig(
                options=list(TOOL_NAMES),
                multiple=True,
                translation_key=CONF_ENABLED_TOOLS,
            )
        ),
        probatio.Required(
            CONF_ALLOWED_SERVICES, default=list(DEFAULT_ALLOWED_SERVICES)
        ): SelectSelector(
            SelectSelectorConfig(
                options=list(DEFAULT_ALLOWED_SERVICES),
                multiple=True,
                custom_value=True,
                mode=SelectSelectorMode.DROPDOWN,
            )
        ),
        probatio.Optional(CONF_WEATHER_ENTITY): EntitySelector(
            EntitySelectorConfig(domain="weather")
        ),
        probatio.Optional(CONF_CONFIRM_ENTITIES, default=[]): EntitySelector(
            EntitySelectorConfig(multiple=True)
        ),
        # Pre-filled (masked) on reconfigure, so that saving keeps it.
        probatio.Optional(CONF_CONFIRM_PIN): PASSWORD,
        probatio.Required(
            CONF_LOCAL_FIRST, default=DEFAULT_LOCAL_FIRST
        ): BooleanSelector(),
    }
    fallback = {
        probatio.Optional(CONF_FALLBACK_MODEL): model_choice(fallback_choices(hass)),
        probatio.Required(
            CONF_LOCAL_FALLBACK, default=DEFAULT_LOCAL_FALLBACK
        ): BooleanSelector(),
    }
    # Optional and empty unless a server needs them: not under the recommended switch.
    json_text = TextSelector(TextSelectorConfig(multiline=True))
    server = {
        probatio.Optional(CONF_EXTRA_BODY): json_text,
        probatio.Optional(CONF_EXTRA_HEADERS): json_text,
    }
    schema: dict[Any, Any] = {
        probatio.Required(SECTION_MODEL): form_section(model, collapsed=False),
        probatio.Required(SECTION_CONTROL): form_section(control, collapsed=False),
        probatio.Required(SECTION_FALLBACK): form_section(fallback, collapsed=True),
        probatio.Required(CONF_RECOMMENDED, default=True): BooleanSelector(),
    }
    if tuning:
        schema[probatio.Required(SECTION_MEMORY)] = form_section(
            memory_fields(), collapsed=not reveal
        )
        schema[probatio.Required(SECTION_LIMITS)] = form_section(
            limits_fields(models), collapsed=not reveal
        )
    schema[probatio.Required(SECTION_SERVER)] = form_section(server, collapsed=True)
    schema[probatio.Required(SECTION_USAGE)] = form_section(
        price_fields(), collapsed=True
    )
    return probatio.Schema(schema)


def memory_fields() -> dict[Any, Any]:
    """The memory section: kept conversations and household memory."""
    return {
        probatio.Required(
            CONF_CONVERSATION_EXPIRY, default=DEFAULT_CONVERSATION_EXPIRY
        ): whole_number(low=0, high=MAX_CONVERSATION_EXPIRY, unit="min"),
        probatio.Required(
            CONF_MAX_CONVERSATIONS, default=DEFAULT_MAX_CONVERSATIONS
        ): whole_number(low=1, high=10_000),
        probatio.Required(
            CONF_DEVICE_CONTINUITY, default=DEFAULT_DEVICE_CONTINUITY
        ): BooleanSelector(),
        probatio.Required(
            CONF_MEMORY_SHARED, default=DEFAULT_MEMORY_SHARED
        ): BooleanSelector(),
    }


def limits_fields(models: list[str]) -> dict[Any, Any]:
    """The limits and timing section; `models`: the connection's, to describe pictures."""
    return {
        probatio.Required(
            CONF_MAX_ITERATIONS, default=DEFAULT_MAX_ITERATIONS
        ): whole_number(low=1, high=50),
        probatio.Required(
            CONF_TOOL_TIMEOUT, default=DEFAULT_TOOL_TIMEOUT
        ): whole_number(low=1, high=300, unit="s"),
        probatio.Required(
            CONF_TURN_TIMEOUT, default=DEFAULT_TURN_TIMEOUT
        ): whole_number(low=5, high=600, unit="s"),
        probatio.Required(
            CONF_FIRST_TOKEN_TIMEOUT, default=DEFAULT_FIRST_TOKEN_TIMEOUT
        ): whole_number(low=0, high=120, unit="s"),
        probatio.Required(
            CONF_WAIT_PHRASE_AFTER, default=DEFAULT_WAIT_PHRASE_AFTER
        ): whole_number(low=0, high=60, unit="s"),
        probatio.Required(
            CONF_VERIFY_TIMEOUT, default=DEFAULT_VERIFY_TIMEOUT
        ): probatio.All(
            NumberSelector(
                NumberSelectorConfig(
                    min=0,
                    max=30,
                    step=0.5,
                    unit_of_measurement="s",
                    mode=NumberSelectorMode.BOX,
                )
            ),
            probatio.Coerce(float),
        ),
        probatio.Required(
            CONF_CAMERA_IMAGE_SIZE, default=DEFAULT_CAMERA_IMAGE_SIZE
        ): whole_number(low=256, high=2048, step=64, unit="px"),
        probatio.Required(
            CONF_CAMERA_IMAGE_QUALITY, default=DEFAULT_CAMERA_IMAGE_QUALITY
        ): whole_number(low=30, high=95),
        probatio.Optional(CONF_CAMERA_DESCRIBER): model_choice(sorted(models)),
        probatio.Required(
            CONF_TEMPERATURE, default=DEFAULT_TEMPERATURE
        ): NumberSelector(NumberSelectorConfig(min=0, max=2, step=0.05)),
        probatio.Required(CONF_MAX_TOKENS, default=DEFAULT_MAX_TOKENS): whole_number(
            low=16, high=65536
        ),
        probatio.Required(
            CONF_HISTORY_TOKENS, default=DEFAULT_HISTORY_TOKENS
        ): whole_number(low=0, high=1_000_000, step=100),
        probatio.Required(
            CONF_CONTEXT_WINDOW, default=DEFAULT_CONTEXT_WINDOW
        ): whole_number(low=512, high=10_000_000),
        probatio.Required(CONF_STREAM, default=DEFAULT_STREAM): BooleanSelector(),
    }
