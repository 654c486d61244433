"""`get_entity_state`: the current state of exposed entities."""

from typing import Any

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.helpers import config_validation as cv, llm

from ..const import DOMAIN, TOOL_GET_ENTITY_STATE
from .entities import describe_entity, is_exposed


class GetEntityStateTool(llm.Tool):
    """States and useful attributes of the given exposed entities."""

    name = TOOL_GET_ENTITY_STATE
    description = (
        "Get the current state and main attributes of entities by entity_id "
        "(find ids with search_entities)."
    )
    parameters = probatio.Schema(
        {probatio.Required("entity_ids"): probatio.All(cv.ensure_list, [str])}
    )
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Describe each exposed entity; say which ids are unknown."""
        args = self.parameters(tool_input.tool_args)
        states: list[dict[str, Any]] = []
        unknown: list[str] = []
        for entity_id in args["entity_ids"]:
            entity_id = entity_id.strip().lower()
            state = hass.states.get(entity_id)
            # An unexposed entity is reported like a missing one: the model must not
            # learn what the user chose not to share.
            if state is None or not is_exposed(hass, entity_id):
                unknown.append(entity_id)
            else:
                states.append(describe_entity(hass, state))
        data: dict[str, Any] = {"states": states}
        if unknown:
            data["unknown_entity_ids"] = unknown
            data["hint"] = "Use search_entities to find the right entity_id."
        return llm.ToolResult(data=data, error=not states)
