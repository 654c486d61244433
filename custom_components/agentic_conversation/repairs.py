"""Repairs: fix an agent whose model ignores tools, or pipelines that bypass it."""

from typing import Any

import probatio

from homeassistant.components.repairs import (
    ConfirmRepairFlow,
    RepairsFlow,
    RepairsFlowResult,
)
from homeassistant.config_entries import ConfigEntryState, ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers.selector import SelectSelector, SelectSelectorConfig

from .const import CONF_BASE_URL, CONF_MODEL, DOMAIN
from .endpoint_check import async_calls_tools
from .redact import redact_url
from .runtime import AgenticConfigEntry
from .safety.pipelines import ISSUE_ID as PREFER_LOCAL_ISSUE, PreferLocalFlow


async def async_create_fix_flow(
    hass: HomeAssistant, issue_id: str, data: dict[str, Any] | None
) -> RepairsFlow:
    """The fix flow of an issue: prefer-local pipelines, a file set aside, tools."""
    if issue_id == PREFER_LOCAL_ISSUE:
        return PreferLocalFlow()
    data = data or {}
    if data.get("set_aside"):
        return ConfirmRepairFlow()
    return ToolsUnsupportedFlow(str(data.get("entry_id")), str(data.get("subentry_id")))


class ToolsUnsupportedFlow(RepairsFlow):
    """Switch the agent to a model that calls tools, or make it chat-only."""

    def __init__(self, entry_id: str, subentry_id: str) -> None:
        """For one agent of one connection."""
        self._entry_id = entry_id
        self._subentry_id = subentry_id

    def _agent(self) -> tuple[AgenticConfigEntry, ConfigSubentry] | None:
        """The connection (loaded) and the agent, if both are still there."""
        entry: AgenticConfigEntry | None = self.hass.config_entries.async_get_entry(
            self._entry_id
        )
        if (
            entry is None
            or entry.domain != DOMAIN
            or entry.state is not ConfigEntryState.LOADED
            or self._subentry_id not in entry.subentries
        ):
            return None
        return entry, entry.subentries[self._subentry_id]

    @staticmethod
    def _placeholders(
        entry: AgenticConfigEntry, agent: ConfigSubentry
    ) -> dict[str, str]:
        return {
            "agent": agent.title,
            "model": str(agent.data.get(CONF_MODEL)),
            "base_url": redact_url(entry.data[CONF_BASE_URL]),
        }

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Offer the two ways out."""
        if (found := self._agent()) is None:
            return self.async_abort(reason="agent_gone")
        return self.async_show_menu(
            step_id="init",
            menu_options=["change_model", "chat_only"],
            description_placeholders=self._placeholders(*found),
        )

    async def async_step_change_model(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Pick another model of the server; it is saved once it calls a tool."""
        if (found := self._agent()) is None:
            return self.async_abort(reason="agent_gone")
        entry, agent = found
        errors: dict[str, str] = {}
        if user_input is not None:
            model = str(user_input[CONF_MODEL]).strip()
            if await async_calls_tools(entry, model) is False:
                errors[CONF_MODEL] = "model_ignores_tools"
            else:
                self._save(entry, agent, {**agent.data, CONF_MODEL: model})
                return self.async_create_entry(data={})
        current = agent.data.get(CONF_MODEL)
        others = sorted(m for m in entry.runtime_data.models if m != current)
        return self.async_show_form(
            step_id="change_model",
            data_schema=probatio.Schema(
                {
                    probatio.Required(CONF_MODEL): SelectSelector(
                        SelectSelectorConfig(
                            options=others, custom_value=True, sort=False
                        )
                    )
                }
            ),
            errors=errors,
            description_placeholders=self._placeholders(entry, agent),
        )

    async def async_step_chat_only(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Clear the agent's Home Assistant APIs: it chats and no longer acts."""
        if (found := self._agent()) is None:
            return self.async_abort(reason="agent_gone")
        entry, agent = found
        if user_input is not None:
            data = {k: v for k, v in agent.data.items() if k != CONF_LLM_HASS_API}
            self._save(entry, agent, data)
            return self.async_create_entry(data={})
        return self.async_show_form(
            step_id="chat_only",
            data_schema=probatio.Schema({}),
            description_placeholders=self._placeholders(entry, agent),
        )

    def _save(
        self, entry: AgenticConfigEntry, agent: ConfigSubentry, data: dict[str, Any]
    ) -> None:
        """Change the agent; the connection reloads and checks it again."""
        self.hass.config_entries.async_update_subentry(entry, agent, data=data)
