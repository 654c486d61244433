"""The agent flow: add or change an agent (its model, prompt, tools and limits)."""

from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntryState,
    ConfigSubentryFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_NAME

from ..const import CONF_RECOMMENDED, DEFAULT_AGENT_NAME
from .agent_schema import (
    RECOMMENDED_OPTIONS,
    SECTIONS,
    TUNING_SECTIONS,
    agent_schema,
    check_agent_options,
    default_agent_options,
    is_recommended,
)
from .form import flatten, nest, on_sections


class AgentSubentryFlow(ConfigSubentryFlow):
    """Create or change an agent: its model, prompt, tools and limits."""

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Add an agent."""
        return await self.async_step_new_agent(user_input)

    async def async_step_new_agent(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """The form of a new agent."""
        return await self._async_agent_form(user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change an agent."""
        return await self.async_step_set_options(user_input)

    async def async_step_set_options(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """The form of an existing agent, titled with its name."""
        return await self._async_agent_form(user_input)

    async def _async_agent_form(
        self, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        """Show the sectioned form; save its values flat."""
        entry = self._get_entry()
        if entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        is_new = self.source == SOURCE_USER
        placeholders = {"connection": entry.title}
        if is_new:
            stored: dict[str, Any] = {
                CONF_NAME: DEFAULT_AGENT_NAME,
                **default_agent_options(entry.runtime_data.models),
            }
        else:
            subentry = self._get_reconfigure_subentry()
            stored = dict(subentry.data)
            placeholders["agent"] = subentry.title

        def show(
            options: Mapping[str, Any],
            recommended: bool,
            errors: dict[str, str] | None = None,
            reveal: bool = False,
        ) -> SubentryFlowResult:
            schema = agent_schema(
                self.hass,
                is_new,
                entry.runtime_data.models,
                tuning=not recommended,
                reveal=reveal,
            )
            suggested = nest(schema, {**options, CONF_RECOMMENDED: recommended})
            form: dict[str, Any] = {
                "data_schema": self.add_suggested_values_to_schema(schema, suggested),
                "errors": on_sections(schema, errors or {}),
                "description_placeholders": placeholders,
            }
            # Two steps, one form: the titles differ (a new agent has no name yet).
            if is_new:
                return self.async_show_form(step_id="new_agent", **form)
            return self.async_show_form(step_id="set_options", **form)

        if user_input is None:
            return show(stored, is_recommended(stored))
        recommended = bool(user_input.get(CONF_RECOMMENDED, True))
        options = flatten(user_input, SECTIONS, drop=CONF_RECOMMENDED)
        if recommended:
            options.update(RECOMMENDED_OPTIONS)
        elif not TUNING_SECTIONS & user_input.keys():
            # Just switched off: the tuning sections appear with the agent's values.
            tuning = {k: stored[k] for k in RECOMMENDED_OPTIONS if k in stored}
            return show({**tuning, **options}, False, reveal=True)
        if errors := check_agent_options(options):
            return show(options, recommended, errors)
        options[CONF_RECOMMENDED] = recommended
        if is_new:
            name = options.pop(CONF_NAME)
            return self.async_create_entry(title=name, data=options)
        return self.async_update_and_abort(
            entry, self._get_reconfigure_subentry(), data=options
        )
