"""Token and cost sensors of an agent or AI task, kept across restarts."""

from decimal import Decimal

from homeassistant.components.sensor import (
    RestoreSensor,
    SensorDeviceClass,
    SensorStateClass,
)
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant, callback

from ..agent import Usage
from ..agents import agent_device_info
from .meter import UsageMeter
from .prices import Prices, cost, prices_of


def usage_sensors(
    hass: HomeAssistant, subentry: ConfigSubentry, meter: UsageMeter
) -> list[RestoreSensor]:
    """Input and output tokens; the cost too when a price is set."""
    sensors: list[RestoreSensor] = [
        TokenSensor(subentry, meter, "input_tokens"),
        TokenSensor(subentry, meter, "output_tokens"),
    ]
    if (prices := prices_of(subentry.data)) is not None:
        sensors.append(CostSensor(hass, subentry, meter, prices))
    return sensors


class _UsageSensor(RestoreSensor):
    """Adds each call's usage to the value restored at start."""

    _attr_has_entity_name = True
    _attr_entity_category = EntityCategory.DIAGNOSTIC
    _attr_should_poll = False

    def __init__(self, subentry: ConfigSubentry, meter: UsageMeter, key: str) -> None:
        self._meter = meter
        self._attr_translation_key = key
        self._attr_unique_id = f"{subentry.subentry_id}-{key}"
        self._attr_device_info = agent_device_info(subentry)
        self._attr_native_value = 0

    async def async_added_to_hass(self) -> None:
        """Go on from the last value; hear the meter."""
        await super().async_added_to_hass()
        if (last := await self.async_get_last_sensor_data()) is not None and isinstance(
            last.native_value, int | float | Decimal
        ):
            self._attr_native_value = last.native_value
        self.async_on_remove(self._meter.add_listener(self._add))

    def _amount(self, usage: Usage, prices: Prices | None) -> int | Decimal:
        raise NotImplementedError

    @callback
    def _add(self, usage: Usage, prices: Prices | None) -> None:
        value = self._attr_native_value
        assert isinstance(value, int | float | Decimal)
        amount = self._amount(usage, prices)
        self._attr_native_value = value + amount  # type: ignore[operator]
        self.async_write_ha_state()


class TokenSensor(_UsageSensor):
    """Tokens sent (input) or received (output), all calls counted."""

    _attr_state_class = SensorStateClass.TOTAL_INCREASING
    _attr_native_unit_of_measurement = "tokens"

    def _amount(self, usage: Usage, prices: Prices | None) -> int:
        if self._attr_translation_key == "input_tokens":
            return usage.input_tokens
        return usage.output_tokens


class CostSensor(_UsageSensor):
    """What the tokens cost at the prices per million set in the options.

    A fallback model with prices of its own (on its connection) is priced at those.
    """

    _attr_device_class = SensorDeviceClass.MONETARY
    _attr_state_class = SensorStateClass.TOTAL
    _attr_suggested_display_precision = 4

    def __init__(
        self,
        hass: HomeAssistant,
        subentry: ConfigSubentry,
        meter: UsageMeter,
        prices: Prices,
    ) -> None:
        """Price the meter's usage in the home's currency."""
        super().__init__(subentry, meter, "cost")
        self._attr_native_unit_of_measurement = hass.config.currency
        self._attr_native_value = Decimal(0)
        self._prices = prices

    def _amount(self, usage: Usage, prices: Prices | None) -> Decimal:
        return cost(usage, prices or self._prices)
