"""The AI task flow: add or change an AI Task entity (model, deadline, prices)."""

from typing import Any

import probatio

from homeassistant.config_entries import SubentryFlowResult
from homeassistant.const import CONF_NAME

from ..const import (
    CONF_FALLBACK_MODEL,
    CONF_MODEL,
    CONF_TASK_TIMEOUT,
    DEFAULT_AI_TASK_NAME,
    DEFAULT_TASK_TIMEOUT,
)
from ..provider_factory import fallback_choices
from ..runtime import AgenticConfigEntry
from .agent_schema import default_model
from .form import model_choice, whole_number
from .prices import price_fields, tidy_prices
from .subentry import SubentryFormFlow


class AiTaskSubentryFlow(SubentryFormFlow):
    """Create or change an AI task: its model, fallback, deadline and prices."""

    async def _async_form(
        self, entry: AgenticConfigEntry, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        models = sorted(entry.runtime_data.models)
        if user_input is not None:
            options = dict(user_input)
            if not options.get(CONF_FALLBACK_MODEL):
                options.pop(CONF_FALLBACK_MODEL, None)
            tidy_prices(options)
            return self._save(entry, options)
        stored = self._stored(
            lambda: {
                CONF_NAME: DEFAULT_AI_TASK_NAME,
                CONF_MODEL: default_model(models),
                CONF_TASK_TIMEOUT: DEFAULT_TASK_TIMEOUT,
            }
        )
        fields: dict[Any, Any] = {}
        if self._is_new:
            fields[probatio.Required(CONF_NAME)] = str
        fields.update(
            {
                probatio.Required(CONF_MODEL): model_choice(models),
                probatio.Optional(CONF_FALLBACK_MODEL): model_choice(
                    fallback_choices(self.hass)
                ),
                probatio.Required(
                    CONF_TASK_TIMEOUT, default=DEFAULT_TASK_TIMEOUT
                ): whole_number(low=5, high=900, unit="s"),
                **price_fields(),
            }
        )
        schema = self.add_suggested_values_to_schema(probatio.Schema(fields), stored)
        return self._show(schema, {"connection": entry.title})
