"""Each agent's route as a diagnostic sensor (primary, fallback, local or down); usage.

Each agent and AI task with a budget has a sensor of what is left of it.
"""

from typing import Any

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .agent import Route, RouteState
from .agents import agent_device_info, agent_subentries, metered_subentries
from .redact import Redactor, redactor
from .runtime import AgenticConfigEntry
from .usage.budget_sensor import BudgetLeftSensor, remove_budget_sensor
from .usage.meter import UsageMeter
from .usage.sensors import usage_sensors

# Updated when a route reports; nothing is polled.
PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add a route sensor for each agent of the connection."""
    for subentry in agent_subentries(entry):
        state = entry.runtime_data.routes.setdefault(subentry.subentry_id, RouteState())
        async_add_entities(
            [RouteSensor(subentry, state, redactor(entry.data))],
            config_subentry_id=subentry.subentry_id,
        )
    for subentry in metered_subentries(entry):
        meter = entry.runtime_data.usage.setdefault(subentry.subentry_id, UsageMeter())
        sensors: list[SensorEntity] = [*usage_sensors(hass, subentry, meter)]
        if (budget := entry.runtime_data.budgets.get(subentry.subentry_id)) is not None:
            sensors.append(BudgetLeftSensor(subentry, budget))
        else:
            remove_budget_sensor(hass, subentry)  # the budget was removed
        async_add_entities(sensors, config_subentry_id=subentry.subentry_id)


class RouteSensor(SensorEntity):
    """Who answers the agent: `ok` (its model), `fallback`, `local` or `down`."""

    _attr_has_entity_name = True
    _attr_translation_key = "route"
    _attr_device_class = SensorDeviceClass.ENUM
    _attr_options = [route.value for route in Route]
    _attr_entity_category = EntityCategory.DIAGNOSTIC
    _attr_should_poll = False

    def __init__(
        self, subentry: ConfigSubentry, state: RouteState, redact: Redactor
    ) -> None:
        """Show the route of one agent, without the connection's secrets."""
        self._state = state
        self._redact = redact
        self._attr_unique_id = f"{subentry.subentry_id}-route"
        self._attr_device_info = agent_device_info(subentry)

    async def async_added_to_hass(self) -> None:
        """Follow the route's reports."""
        await super().async_added_to_hass()
        self.async_on_remove(self._state.add_listener(self.async_write_ha_state))

    @property
    def native_value(self) -> str:
        """The route."""
        return self._state.route.value

    @property
    def extra_state_attributes(self) -> dict[str, Any]:
        """The last error, why the primary did not answer last, how it calls tools."""
        return {
            "last_error": self._shown(self._state.last_error),
            "reason": self._shown(self._state.reason),
            # The server passes tool calls through as text: its parser is not set up.
            "calls_as_text": self._state.calls_as_text,
            # Tool calls the model got slightly wrong and we read as it meant.
            "repaired_calls": self._state.repaired_calls,
            "last_repair": self._shown(self._state.last_repair),
            # What the entities' states showed of the last turn's actions.
            "last_verified": self._state.last_verified,
        }

    def _shown(self, text: str | None) -> str | None:
        """Errors may name the server's URL or echo its key: not in the UI."""
        return None if text is None else self._redact(text)
