"""The agent form in sections, as the frontend fills and submits it."""

from collections.abc import Mapping
from typing import Any

from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME, CONF_PROMPT
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import section

from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_BUDGET,
    CONF_BUDGET_DAY,
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
    CONF_PRICE_INPUT,
    CONF_PRICE_OUTPUT,
    CONF_RECOMMENDED,
    CONF_STREAM,
    CONF_TEMPERATURE,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    CONF_VERIFY_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER,
    CONF_WEATHER_ENTITY,
)

MODEL_SECTION = "model_and_instructions"
CONTROL = "control_and_safety"
FALLBACK = "fallback"
MEMORY = "memory"
LIMITS = "limits_and_timing"
SERVER = "server_extras"
USAGE = "usage"
TUNING = (MEMORY, LIMITS)
# Where each option is in the form: written out here, not taken from the code.
SECTION_OF: dict[str, str] = {
    CONF_NAME: MODEL_SECTION,
    CONF_MODEL: MODEL_SECTION,
    CONF_PROMPT: MODEL_SECTION,
    CONF_LLM_HASS_API: CONTROL,
    CONF_ENABLED_TOOLS: CONTROL,
    CONF_ALLOWED_SERVICES: CONTROL,
    CONF_WEATHER_ENTITY: CONTROL,
    CONF_CONFIRM_ENTITIES: CONTROL,
    CONF_CONFIRM_PIN: CONTROL,
    CONF_LOCAL_FIRST: CONTROL,
    CONF_FALLBACK_MODEL: FALLBACK,
    CONF_LOCAL_FALLBACK: FALLBACK,
    CONF_CONVERSATION_EXPIRY: MEMORY,
    CONF_MAX_CONVERSATIONS: MEMORY,
    CONF_DEVICE_CONTINUITY: MEMORY,
    CONF_MEMORY_SHARED: MEMORY,
    CONF_MAX_ITERATIONS: LIMITS,
    CONF_TOOL_TIMEOUT: LIMITS,
    CONF_TURN_TIMEOUT: LIMITS,
    CONF_FIRST_TOKEN_TIMEOUT: LIMITS,
    CONF_WAIT_PHRASE_AFTER: LIMITS,
    CONF_VERIFY_TIMEOUT: LIMITS,
    CONF_CAMERA_IMAGE_SIZE: LIMITS,
    CONF_CAMERA_IMAGE_QUALITY: LIMITS,
    CONF_CAMERA_DESCRIBER: LIMITS,
    CONF_TEMPERATURE: LIMITS,
    CONF_MAX_TOKENS: LIMITS,
    CONF_HISTORY_TOKENS: LIMITS,
    CONF_CONTEXT_WINDOW: LIMITS,
    CONF_STREAM: LIMITS,
    CONF_EXTRA_BODY: SERVER,
    CONF_EXTRA_HEADERS: SERVER,
    CONF_PRICE_INPUT: USAGE,
    CONF_PRICE_OUTPUT: USAGE,
    CONF_BUDGET: USAGE,
    CONF_BUDGET_DAY: USAGE,
}


def sections(result: Mapping[str, Any]) -> dict[str, section]:
    """The sections of a shown form, by name."""
    schema = result["data_schema"]
    assert schema is not None
    return {
        str(key): value
        for key, value in schema.schema.items()
        if isinstance(value, section)
    }


def shown(result: Mapping[str, Any]) -> dict[str, Any]:
    """The form's suggested values, flat (the switch included)."""
    schema = result["data_schema"]
    assert schema is not None
    values: dict[str, Any] = {}
    for key, value in schema.schema.items():
        markers = value.schema.schema if isinstance(value, section) else {key: None}
        for marker in markers:
            if "suggested_value" in (marker.description or {}):
                values[str(marker)] = marker.description["suggested_value"]
    return values


def selectors(result: Mapping[str, Any]) -> dict[str, Any]:
    """Each field's selector, flat."""
    found: dict[str, Any] = {}
    for form_section in sections(result).values():
        found.update({str(k): v for k, v in form_section.schema.schema.items()})
    return found


def nest(
    flat: Mapping[str, Any], *, recommended: bool, tuning: bool | None = None
) -> dict[str, Any]:
    """Flat options as the sectioned input the frontend sends.

    tuning: whether the form shows the tuning sections (default: when not recommended).
    """
    if tuning is None:
        tuning = not recommended
    nested: dict[str, Any] = {
        name: {} for name in {*SECTION_OF.values()} if tuning or name not in TUNING
    }
    for key, value in flat.items():
        if key == CONF_RECOMMENDED:
            continue
        where = SECTION_OF[key]
        if where in nested:
            nested[where][key] = value
    return {**nested, CONF_RECOMMENDED: recommended}


async def submit(
    hass: HomeAssistant,
    result: Mapping[str, Any],
    flat: Mapping[str, Any],
    *,
    recommended: bool = False,
) -> Any:
    """Fill the form with flat options; with the switch off, open its sections first."""
    tuning = LIMITS in sections(result)
    if not recommended and not tuning:
        result = await hass.config_entries.subentries.async_configure(
            result["flow_id"], nest(flat, recommended=False, tuning=False)
        )
        assert result["errors"] == {}
        assert LIMITS in sections(result)
        tuning = True
    return await hass.config_entries.subentries.async_configure(
        result["flow_id"], nest(flat, recommended=recommended, tuning=tuning)
    )
