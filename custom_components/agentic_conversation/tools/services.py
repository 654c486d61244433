"""`call_service`: act on exposed entities, within the agent's allow-list.

Targets (entity, area and device ids) are resolved to entities here and the service is
called with entity ids only, so an area or a device never carries the call to an entity
the user did not expose.
"""

from fnmatch import fnmatchcase
from typing import Any

import probatio

from homeassistant.const import ATTR_AREA_ID, ATTR_DEVICE_ID, ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import config_validation as cv, llm
from homeassistant.helpers.target import (
    TargetSelection,
    async_extract_referenced_entity_ids,
)

from ..const import DOMAIN, TOOL_CALL_SERVICE
from ..tool_options import tool_options_of
from .entities import describe_entity, is_exposed
from .errors import refuse

# Services that act on any domain's entities.
_CROSS_DOMAIN = "homeassistant"
_ID_LIST = probatio.All(cv.ensure_list, [str])


def is_allowed(patterns: tuple[str, ...], domain: str, service: str) -> bool:
    """Whether `domain.service` is on the allow-list (patterns like `light`, `input_*`)."""
    return any(
        fnmatchcase(domain, pattern) or fnmatchcase(f"{domain}.{service}", pattern)
        for pattern in patterns
    )


class CallServiceTool(llm.Tool):
    """Call a Home Assistant action (service) on exposed entities."""

    name = TOOL_CALL_SERVICE
    description = (
        "Call a Home Assistant action (service), e.g. domain 'light', service "
        "'turn_on', target {'entity_id': ['light.kitchen']}, data {'brightness_pct': "
        "50}. Targets may be entity, area or device ids; only exposed entities can be "
        "controlled. Returns the new states of the targeted entities."
    )
    parameters = probatio.Schema(
        {
            probatio.Required("domain"): str,
            probatio.Required("service"): str,
            probatio.Optional("target", default=dict): {
                probatio.Optional(ATTR_ENTITY_ID): _ID_LIST,
                probatio.Optional(ATTR_AREA_ID): _ID_LIST,
                probatio.Optional(ATTR_DEVICE_ID): _ID_LIST,
            },
            probatio.Optional("data", default=dict): dict,
        }
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Check the call against exposure and the allow-list, then make it."""
        args = self.parameters(tool_input.tool_args)
        domain = str(args["domain"]).strip().lower()
        service = str(args["service"]).strip().lower()
        allowed = tool_options_of(llm_context).allowed_services
        if not is_allowed(allowed, domain, service):
            return refuse(
                f"{domain}.{service} is not allowed for this assistant.",
                allowed=list(allowed),
            )
        if not hass.services.has_service(domain, service):
            return refuse(f"There is no action {domain}.{service}.")
        target = args["target"]
        if not target:
            return refuse(
                "No target: give entity_id, area_id or device_id in target.",
                hint="Use search_entities to find entity ids.",
            )
        selected = async_extract_referenced_entity_ids(hass, TargetSelection(target))
        missing = [
            *(f"area {a}" for a in sorted(selected.missing_areas)),
            *(f"device {d}" for d in sorted(selected.missing_devices)),
        ]
        entity_ids = sorted(
            entity_id
            for entity_id in selected.referenced | selected.indirectly_referenced
            if domain == _CROSS_DOMAIN or entity_id.split(".", 1)[0] == domain
        )
        unexposed = [e for e in entity_ids if not is_exposed(hass, e)]
        unknown = [e for e in entity_ids if hass.states.get(e) is None]
        if missing or unknown:
            return refuse(
                "Unknown target: " + ", ".join([*missing, *unknown]) + ".",
                hint="Use search_entities to find entity ids.",
            )
        if unexposed:
            # Named, so the model can tell the user what it may not touch; the user
            # decides what is exposed.
            return refuse(
                "Not exposed to the assistant, so it cannot be controlled: "
                + ", ".join(unexposed)
                + ". Nothing was changed."
            )
        if not entity_ids:
            return refuse(f"The target has no {domain} entities.")
        try:
            await hass.services.async_call(
                domain,
                service,
                {**args["data"], ATTR_ENTITY_ID: entity_ids},
                blocking=True,
                context=llm_context.context,
            )
        except probatio.Invalid as err:
            return refuse(f"Invalid data for {domain}.{service}: {err}")
        except HomeAssistantError as err:
            return refuse(f"{domain}.{service} failed: {err}")
        states: list[Any] = [
            describe_entity(hass, state)
            for entity_id in entity_ids
            if (state := hass.states.get(entity_id)) is not None
        ]
        return llm.ToolResult(data={"success": True, "states": states})
