"""The AI task flow: add or change an AI Task entity (model, deadline, prices)."""

from typing import Any

import probatio

from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntryState,
    ConfigSubentryFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_NAME

from ..const import (
    CONF_FALLBACK_MODEL,
    CONF_MODEL,
    CONF_TASK_TIMEOUT,
    DEFAULT_AI_TASK_NAME,
    DEFAULT_TASK_TIMEOUT,
)
from ..provider_factory import fallback_choices
from .agent_schema import default_model
from .form import model_choice, whole_number
from .prices import price_fields, tidy_prices


class AiTaskSubentryFlow(ConfigSubentryFlow):
    """Create or change an AI task: its model, fallback, deadline and prices."""

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Add an AI task."""
        return await self._async_form(user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change an AI task."""
        return await self._async_form(user_input)

    async def _async_form(
        self, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        entry = self._get_entry()
        if entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        is_new = self.source == SOURCE_USER
        models = sorted(entry.runtime_data.models)
        if user_input is not None:
            options = dict(user_input)
            if not options.get(CONF_FALLBACK_MODEL):
                options.pop(CONF_FALLBACK_MODEL, None)
            tidy_prices(options)
            if is_new:
                name = options.pop(CONF_NAME)
                return self.async_create_entry(title=name, data=options)
            return self.async_update_and_abort(
                entry, self._get_reconfigure_subentry(), data=options
            )
        if is_new:
            stored: dict[str, Any] = {
                CONF_NAME: DEFAULT_AI_TASK_NAME,
                CONF_MODEL: default_model(models),
                CONF_TASK_TIMEOUT: DEFAULT_TASK_TIMEOUT,
            }
        else:
            stored = dict(self._get_reconfigure_subentry().data)
        fields: dict[Any, Any] = {}
        if is_new:
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
        placeholders = {"connection": entry.title}
        # Two steps, one form: a new task has a name field.
        if is_new:
            return self.async_show_form(
                step_id="user",
                data_schema=schema,
                description_placeholders=placeholders,
            )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=schema,
            description_placeholders=placeholders,
        )
