"""`call_service`: act on exposed entities, within the agent's allow-list.

`resolve_call` (service_target.py) turns whatever the model sent into the exposed
entity ids Home Assistant will act on, or refuses; risky effects wait for the user's
yes; `run_call` then calls the service with those ids only.
"""

import re
from typing import Any

import probatio

from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from ..const import DOMAIN, TOOL_CALL_SERVICE
from ..safety.confirmation import HELD_MESSAGE, gate_refuses
from ..safety.effects import service_effects
from ..tool_options import effects_of, gate_of
from ..verify.note import note_failed_service, note_service
from .entities import describe_entity, is_exposed
from .errors import refuse
from .service_target import SOME_UNAVAILABLE, TARGET_SCHEMA, ResolvedCall, resolve_call

_ENTITY_ID_IN_TEXT = re.compile(r"\b[a-z][a-z0-9_]*\.[a-z0-9_]+\b")


async def run_call(
    hass: HomeAssistant, llm_context: llm.LLMContext, call: ResolvedCall
) -> llm.ToolResult:
    """Make a resolved call; returns the new states of its entities."""
    # Noted before the call: a toggle implies the opposite of the state before it.
    if (watch := effects_of(llm_context)) is not None:
        note_service(hass, watch, call.service, call.data, call.entity_ids)
    try:
        await hass.services.async_call(
            call.domain,
            call.service,
            {**call.data, ATTR_ENTITY_ID: list(call.entity_ids)},
            blocking=True,
            context=llm_context.context,
        )
    except Exception as err:
        if watch is not None:
            note_failed_service(watch, call.service, call.data, call.entity_ids)
        if isinstance(err, probatio.Invalid):
            return refuse(
                f"Invalid data for {call.domain}.{call.service}: "
                f"{_scrub(hass, str(err))}"
            )
        if isinstance(err, HomeAssistantError):
            return refuse(
                f"{call.domain}.{call.service} failed: {_scrub(hass, str(err))}"
            )
        raise
    data: dict[str, Any] = {
        "success": True,
        "states": [
            describe_entity(hass, state)
            for entity_id in call.entity_ids
            if (state := hass.states.get(entity_id)) is not None
        ],
    }
    if call.some_unavailable:
        data["note"] = SOME_UNAVAILABLE
    return llm.ToolResult(data=data)


class CallServiceTool(llm.Tool):
    """Call a Home Assistant action (service) on exposed entities."""

    name = TOOL_CALL_SERVICE
    description = (
        "Call a Home Assistant action, e.g. domain 'light', service 'turn_on', target "
        "{'entity_id': ['light.kitchen']}, data {'brightness_pct': 50}. Targets "
        "(entity, area, floor, label or device ids) go in target, never in data. Run a "
        "script with script.turn_on. Returns the new states."
    )
    parameters = probatio.Schema(
        {
            probatio.Required("domain"): str,
            probatio.Required("service"): str,
            probatio.Optional("target", default=dict): TARGET_SCHEMA,
            probatio.Optional("data", default=dict): dict,
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=False, destructive=True, idempotent=False, open_world=False
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Resolve the call against exposure and the allow-list, then make it."""
        args = self.parameters(tool_input.tool_args)
        resolved = await resolve_call(
            hass,
            llm_context,
            args["domain"],
            args["service"],
            target=args["target"],
            data=args["data"],
        )
        if isinstance(resolved, llm.ToolResult):
            return resolved
        # Risky effects wait for the user's own yes, checked on the final targets.
        effects = service_effects(
            resolved.entity_ids, resolved.domain, resolved.service, resolved.data
        )
        gate = gate_of(llm_context)
        if gate is None:
            if gate_refuses(hass, effects):
                return refuse(
                    "This action needs the user's own confirmation, which this "
                    "assistant cannot ask for. Nothing was changed."
                )
        elif not gate.review(tool_input.id, self.name, tool_input.tool_args, effects):
            return refuse(HELD_MESSAGE, needs_user_confirmation=True)
        return await run_call(hass, llm_context, resolved)


def _scrub(hass: HomeAssistant, text: str) -> str:
    """An error message with any unexposed entity's id taken out."""

    def hide(match: re.Match[str]) -> str:
        entity_id = match[0]
        if hass.states.get(entity_id) is not None and not is_exposed(hass, entity_id):
            return "(a device not available to the assistant)"
        return entity_id

    return _ENTITY_ID_IN_TEXT.sub(hide, text)
