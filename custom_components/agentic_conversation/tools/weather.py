"""`get_weather`: forecasts for home or anywhere, from Open-Meteo or a weather entity."""

from typing import Any

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.util.hass_dict import HassKey
from homeassistant.util.unit_system import US_CUSTOMARY_SYSTEM

from ..const import DOMAIN, LOGGER, TOOL_GET_WEATHER
from ..tool_options import tool_options_of
from .errors import refuse
from .open_meteo import WEATHER_CODES, OpenMeteo, Place, WeatherServiceError

DATA_OPEN_METEO: HassKey[OpenMeteo] = HassKey(f"{DOMAIN}_open_meteo")
HOURS_SHOWN = 24
_HOME_WORDS = {"", "home", "here", "house"}


def _client(hass: HomeAssistant) -> OpenMeteo:
    if (client := hass.data.get(DATA_OPEN_METEO)) is None:
        client = hass.data[DATA_OPEN_METEO] = OpenMeteo(async_get_clientsession(hass))
    return client


class GetWeatherTool(llm.Tool):
    """Current weather and forecast for home or a named place."""

    name = TOOL_GET_WEATHER
    description = (
        "Current weather and forecast: at home without a location, else at a city or "
        "place ('Lisbon', 'Paris, France'). days: 1 to 7 (ask for 2 to know about "
        "tomorrow). hourly: also the next hours."
    )
    parameters = probatio.Schema(
        {
            probatio.Optional("location"): probatio.Any(None, str),
            probatio.Optional("days", default=1): probatio.All(
                probatio.Coerce(int), probatio.Range(min=1, max=7)
            ),
            probatio.Optional("hourly", default=False): bool,
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=True
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Forecast from the configured weather entity (home) or Open-Meteo."""
        args = self.parameters(tool_input.tool_args)
        location = str(args.get("location") or "").strip()
        days: int = args["days"]
        hourly: bool = args["hourly"]
        at_home = location.lower() in _HOME_WORDS
        entity_id = tool_options_of(llm_context).weather_entity
        if at_home and entity_id:
            return await _from_entity(hass, entity_id, days, hourly)
        client = _client(hass)
        imperial = hass.config.units is US_CUSTOMARY_SYSTEM
        try:
            if at_home:
                place = Place(
                    hass.config.location_name or "home",
                    hass.config.latitude,
                    hass.config.longitude,
                )
            else:
                places = await client.geocode(location, llm_context.language or "en")
                if not places:
                    return await _unknown_place(client, location)
                place = places[0]
            forecast = await client.forecast(
                place.latitude,
                place.longitude,
                days=days,
                hourly=hourly,
                imperial=imperial,
            )
        except WeatherServiceError as err:
            LOGGER.warning("Open-Meteo failed: %s", err)
            return refuse(
                "The weather service is not reachable right now; try again later."
            )
        return llm.ToolResult(data=_summarise(place, forecast, days, hourly))


async def _unknown_place(client: OpenMeteo, location: str) -> llm.ToolResult:
    """An error for a place the geocoder does not know, with near guesses if any."""
    guesses: list[str] = []
    words = location.replace(",", " ").split()
    # The first word alone often finds what a misspelt or over-specific name missed.
    if len(words) > 1:
        guesses = [p.label for p in await client.geocode(words[0])]
    hints: dict[str, Any] = {"did_you_mean": guesses} if guesses else {}
    return refuse(f"Unknown place: {location!r}.", **hints)


def _summarise(
    place: Place, forecast: dict[str, Any], days: int, hourly: bool
) -> dict[str, Any]:
    """The forecast, compact: conditions in words, one entry per day (and hour)."""
    units = forecast.get("daily_units") or {}
    current = forecast.get("current") or {}
    daily = forecast.get("daily") or {}
    result: dict[str, Any] = {
        "location": place.label,
        "units": {
            "temperature": units.get("temperature_2m_max"),
            "precipitation": units.get("precipitation_sum"),
            "wind_speed": units.get("wind_speed_10m_max"),
        },
        "current": {
            "conditions": WEATHER_CODES.get(current.get("weather_code", -1)),
            "temperature": current.get("temperature_2m"),
            "feels_like": current.get("apparent_temperature"),
            "humidity": current.get("relative_humidity_2m"),
            "wind_speed": current.get("wind_speed_10m"),
        },
        "daily": [
            {
                "date": date,
                "conditions": WEATHER_CODES.get(_at(daily, "weather_code", i, -1)),
                "temperature_max": _at(daily, "temperature_2m_max", i),
                "temperature_min": _at(daily, "temperature_2m_min", i),
                "precipitation": _at(daily, "precipitation_sum", i),
                "precipitation_probability": _at(
                    daily, "precipitation_probability_max", i
                ),
                "wind_speed_max": _at(daily, "wind_speed_10m_max", i),
            }
            for i, date in enumerate((daily.get("time") or [])[:days])
        ],
    }
    if hourly and (hours := forecast.get("hourly")):
        result["hourly"] = [
            {
                "time": time,
                "conditions": WEATHER_CODES.get(_at(hours, "weather_code", i, -1)),
                "temperature": _at(hours, "temperature_2m", i),
                "precipitation_probability": _at(hours, "precipitation_probability", i),
            }
            for i, time in enumerate((hours.get("time") or [])[:HOURS_SHOWN])
        ]
    return result


def _at(series: dict[str, Any], key: str, index: int, default: Any = None) -> Any:
    values = series.get(key) or []
    return values[index] if index < len(values) else default


async def _from_entity(
    hass: HomeAssistant, entity_id: str, days: int, hourly: bool
) -> llm.ToolResult:
    """Home weather from the user's own weather entity."""
    state = hass.states.get(entity_id)
    if state is None:
        return refuse(f"The weather entity {entity_id} does not exist.")
    kind = "hourly" if hourly else "daily"
    try:
        response = await hass.services.async_call(
            "weather",
            "get_forecasts",
            {"entity_id": entity_id, "type": kind},
            blocking=True,
            return_response=True,
        )
    except (HomeAssistantError, probatio.Invalid) as err:
        return refuse(f"{entity_id} has no {kind} forecast: {err}")
    entity_response = (response or {}).get(entity_id)
    forecast = (
        entity_response.get("forecast", []) if isinstance(entity_response, dict) else []
    )
    limit = HOURS_SHOWN if hourly else days
    return llm.ToolResult(
        data={
            "location": "home",
            "source": entity_id,
            "current": {
                "conditions": state.state,
                **{
                    key: state.attributes[key]
                    for key in (
                        "temperature",
                        "temperature_unit",
                        "humidity",
                        "wind_speed",
                        "wind_speed_unit",
                        "precipitation_unit",
                    )
                    if key in state.attributes
                },
            },
            kind: forecast[:limit] if isinstance(forecast, list) else [],
        }
    )
