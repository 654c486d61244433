"""A small Open-Meteo client: geocoding and forecasts, no API key, cached 10 minutes."""

import asyncio
from dataclasses import dataclass, field
import time
from typing import Any

import aiohttp

# Module constants so tests can point them at a local fake.
GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
REQUEST_TIMEOUT = 10.0
CACHE_SECONDS = 600.0

CURRENT = "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,weather_code,wind_speed_10m"
DAILY = (
    "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,"
    "precipitation_probability_max,wind_speed_10m_max,sunrise,sunset"
)
HOURLY = (
    "temperature_2m,precipitation_probability,precipitation,weather_code,wind_speed_10m"
)

# WMO weather interpretation codes, as Open-Meteo documents them.
WEATHER_CODES = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "depositing rime fog",
    51: "light drizzle",
    53: "moderate drizzle",
    55: "dense drizzle",
    56: "light freezing drizzle",
    57: "dense freezing drizzle",
    61: "slight rain",
    63: "moderate rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "heavy freezing rain",
    71: "slight snow",
    73: "moderate snow",
    75: "heavy snow",
    77: "snow grains",
    80: "slight rain showers",
    81: "moderate rain showers",
    82: "violent rain showers",
    85: "slight snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with slight hail",
    99: "thunderstorm with heavy hail",
}


class WeatherServiceError(Exception):
    """Open-Meteo could not be reached or answered with an error."""


@dataclass(frozen=True, slots=True)
class Place:
    """A geocoded place."""

    name: str
    latitude: float
    longitude: float
    country: str | None = None
    admin: str | None = None

    @property
    def label(self) -> str:
        """A label like "Lisbon, Lisbon, Portugal"."""
        return ", ".join(p for p in (self.name, self.admin, self.country) if p)


@dataclass(slots=True)
class OpenMeteo:
    """Open-Meteo over a shared aiohttp session, with a per-request cache."""

    session: aiohttp.ClientSession
    _cache: dict[tuple[Any, ...], tuple[float, Any]] = field(default_factory=dict)

    async def geocode(self, name: str, language: str = "en") -> list[Place]:
        """Places matching a name, best first (empty if none)."""
        data = await self._get(
            GEOCODING_URL,
            {"name": name, "count": 5, "language": language, "format": "json"},
        )
        return [
            Place(
                name=item["name"],
                latitude=float(item["latitude"]),
                longitude=float(item["longitude"]),
                country=item.get("country"),
                admin=item.get("admin1"),
            )
            for item in data.get("results") or []
            if isinstance(item, dict) and "latitude" in item and "longitude" in item
        ]

    async def forecast(
        self,
        latitude: float,
        longitude: float,
        *,
        days: int,
        hourly: bool,
        imperial: bool,
    ) -> dict[str, Any]:
        """Current conditions and a daily (and optionally hourly) forecast."""
        params: dict[str, Any] = {
            "latitude": round(latitude, 4),
            "longitude": round(longitude, 4),
            "current": CURRENT,
            "daily": DAILY,
            "forecast_days": days,
            "timezone": "auto",
        }
        if hourly:
            params["hourly"] = HOURLY
        if imperial:
            params.update(
                temperature_unit="fahrenheit",
                wind_speed_unit="mph",
                precipitation_unit="inch",
            )
        result: dict[str, Any] = await self._get(FORECAST_URL, params)
        return result

    async def _get(self, url: str, params: dict[str, Any]) -> Any:
        key = (url, *sorted(params.items()))
        now = time.monotonic()
        if (cached := self._cache.get(key)) and cached[0] > now:
            return cached[1]
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT):
                response = await self.session.get(url, params=params)
                if response.status >= 400:
                    detail = (await response.text())[:200]
                    raise WeatherServiceError(f"HTTP {response.status}: {detail}")
                data = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as err:
            raise WeatherServiceError(str(err) or type(err).__name__) from err
        self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
        self._cache[key] = (now + CACHE_SECONDS, data)
        return data
