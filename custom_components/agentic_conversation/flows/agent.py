"""The agent flow: add or change an agent (its model, prompt, tools and limits)."""

from collections.abc import Mapping
from typing import Any

from homeassistant.config_entries import SubentryFlowResult
from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME

from ..const import CONF_RECOMMENDED, DEFAULT_AGENT_NAME
from ..runtime import AgenticConfigEntry
from ..tool_options import api_ids, unbounded_selected
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
from .subentry import SubentryFormFlow


class AgentSubentryFlow(SubentryFormFlow):
    """Create or change an agent: its model, prompt, tools and limits."""

    # Two steps, one form: the titles differ (a new agent has no name yet).
    new_step = "new_agent"
    change_step = "set_options"

    async def async_step_new_agent(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """The form of a new agent."""
        return await self._async_open(user_input)

    async def async_step_set_options(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """The form of an existing agent, titled with its name."""
        return await self._async_open(user_input)

    async def _async_form(
        self, entry: AgenticConfigEntry, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        """Show the sectioned form; save its values flat."""
        is_new = self._is_new
        placeholders = {"connection": entry.title}
        stored = self._stored(
            lambda: {
                CONF_NAME: DEFAULT_AGENT_NAME,
                **default_agent_options(entry.runtime_data.models),
            }
        )
        if apis := api_ids(stored.get(CONF_LLM_HASS_API)):
            # The form does not offer an API exposure does not bound: not suggested.
            unbounded = unbounded_selected(self.hass, apis)
            stored[CONF_LLM_HASS_API] = [api for api in apis if api not in unbounded]
        if not is_new:
            placeholders["agent"] = self._get_reconfigure_subentry().title

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
            return self._show(
                self.add_suggested_values_to_schema(schema, suggested),
                placeholders,
                on_sections(schema, errors or {}),
            )

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
        return self._save(entry, options)
