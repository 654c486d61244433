"""What is left of an agent's or AI task's monthly budget, as a sensor."""

from decimal import Decimal
from typing import Any

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import entity_registry as er

from ..agents import agent_device_info
from ..const import DOMAIN
from .budget import TOKENS, Budget

_KEY = "budget_left"


def _unique_id(subentry: ConfigSubentry) -> str:
    return f"{subentry.subentry_id}-{_KEY}"


@callback
def remove_budget_sensor(hass: HomeAssistant, subentry: ConfigSubentry) -> None:
    """No budget any more: no sensor of it left, not even an unavailable one."""
    registry = er.async_get(hass)
    if entity_id := registry.async_get_entity_id(
        "sensor", DOMAIN, _unique_id(subentry)
    ):
        registry.async_remove(entity_id)


class BudgetLeftSensor(SensorEntity):
    """The budget left this period; what was spent and when it resets as attributes.

    The budget keeps (and saves) the figures; the sensor only shows them.
    """

    _attr_has_entity_name = True
    _attr_translation_key = _KEY
    _attr_should_poll = False

    def __init__(self, subentry: ConfigSubentry, budget: Budget) -> None:
        """Show one budget."""
        self._budget = budget
        self._attr_unique_id = _unique_id(subentry)
        self._attr_device_info = agent_device_info(subentry)
        self._attr_native_unit_of_measurement = budget.unit
        if budget.unit == TOKENS:
            self._attr_suggested_display_precision = 0
        else:
            self._attr_device_class = SensorDeviceClass.MONETARY
            self._attr_suggested_display_precision = 2

    async def async_added_to_hass(self) -> None:
        """Follow the budget."""
        await super().async_added_to_hass()
        self.async_on_remove(self._budget.add_listener(self.async_write_ha_state))

    @property
    def native_value(self) -> Decimal:
        """What is left."""
        return self._budget.left

    @property
    def extra_state_attributes(self) -> dict[str, Any]:
        """The budget, what was spent, the period."""
        budget = self._budget
        return {
            "budget": float(budget.limit),
            "spent": float(budget.spent),
            "used_up": budget.is_spent,
            "period_start": budget.start.isoformat(),
            "resets": budget.resets.isoformat(),
        }
