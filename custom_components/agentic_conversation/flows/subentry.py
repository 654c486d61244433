"""What the agent and AI task flows share: one form, shown to add a subentry or change it."""

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntryState,
    ConfigSubentryFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_NAME

from ..runtime import AgenticConfigEntry


class SubentryFormFlow(ConfigSubentryFlow):
    """A subentry's form: its step ids, its stored values, its saving.

    One form under two step ids (`new_step`, `change_step`): a new subentry's form
    has a name field, and the titles differ.
    """

    new_step: ClassVar[str] = "user"
    change_step: ClassVar[str] = "reconfigure"

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Add one."""
        return await self._async_open(user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change one."""
        return await self._async_open(user_input)

    async def _async_open(
        self, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        """The form, once the connection is loaded (its models are known then)."""
        entry: AgenticConfigEntry = self._get_entry()
        if entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        return await self._async_form(entry, user_input)

    async def _async_form(
        self, entry: AgenticConfigEntry, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        """Show the form, or save what was entered."""
        raise NotImplementedError

    @property
    def _is_new(self) -> bool:
        return self.source == SOURCE_USER

    def _stored(self, defaults: Callable[[], Mapping[str, Any]]) -> dict[str, Any]:
        """The values the form starts from: the defaults of a new one, else its own."""
        if self._is_new:
            return dict(defaults())
        return dict(self._get_reconfigure_subentry().data)

    def _show(
        self,
        schema: Any,
        placeholders: Mapping[str, str],
        errors: dict[str, str] | None = None,
    ) -> SubentryFlowResult:
        """The form under the step id of adding or of changing."""
        return self.async_show_form(
            step_id=self.new_step if self._is_new else self.change_step,
            data_schema=schema,
            errors=errors,
            description_placeholders=placeholders,
        )

    def _save(
        self, entry: AgenticConfigEntry, options: dict[str, Any]
    ) -> SubentryFlowResult:
        """A new subentry, titled with its name; else the changed one, saved."""
        if self._is_new:
            name = options.pop(CONF_NAME)
            return self.async_create_entry(title=name, data=options)
        return self.async_update_and_abort(
            entry, self._get_reconfigure_subentry(), data=options
        )
