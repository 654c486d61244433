"""A fake of Open-Meteo's geocoding and forecast endpoints on 127.0.0.1.

Replies have the shape of recorded Open-Meteo responses; every request is counted so
tests can check the cache. Use with the `fake_open_meteo` fixture, which points our
client at it.
"""

from __future__ import annotations

from typing import Any, Self

from aiohttp import web

PLACES = {
    "lisbon": {
        "id": 2267057,
        "name": "Lisbon",
        "latitude": 38.71667,
        "longitude": -9.13333,
        "elevation": 45.0,
        "feature_code": "PPLC",
        "country_code": "PT",
        "timezone": "Europe/Lisbon",
        "country": "Portugal",
        "admin1": "Lisbon",
    },
    "paris": {
        "id": 2988507,
        "name": "Paris",
        "latitude": 48.85341,
        "longitude": 2.3488,
        "elevation": 42.0,
        "feature_code": "PPLC",
        "country_code": "FR",
        "timezone": "Europe/Paris",
        "country": "France",
        "admin1": "Île-de-France",
    },
}


class FakeOpenMeteo:
    """The fake server; `down` makes every endpoint answer 503."""

    def __init__(self) -> None:
        """Nothing listens until start()."""
        self.geocoding_requests: list[dict[str, str]] = []
        self.forecast_requests: list[dict[str, str]] = []
        self.down = False
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def geocoding_url(self) -> str:
        """The search endpoint."""
        return f"http://127.0.0.1:{self._port}/v1/search"

    @property
    def forecast_url(self) -> str:
        """The forecast endpoint."""
        return f"http://127.0.0.1:{self._port}/v1/forecast"

    async def __aenter__(self) -> Self:
        """Listen on a free loopback port."""
        app = web.Application()
        app.router.add_get("/v1/search", self._search)
        app.router.add_get("/v1/forecast", self._forecast)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Stop."""
        if self._runner is not None:
            await self._runner.cleanup()

    async def _search(self, request: web.Request) -> web.Response:
        self.geocoding_requests.append(dict(request.query))
        if self.down:
            return web.Response(status=503, text="Service Unavailable")
        name = request.query.get("name", "").lower()
        results = [place for key, place in PLACES.items() if key.startswith(name)]
        body: dict[str, Any] = {"generationtime_ms": 0.5}
        if results:
            body["results"] = results
        return web.json_response(body)

    async def _forecast(self, request: web.Request) -> web.Response:
        self.forecast_requests.append(dict(request.query))
        if self.down:
            return web.Response(status=503, text="Service Unavailable")
        query = request.query
        imperial = query.get("temperature_unit") == "fahrenheit"
        days = int(query.get("forecast_days", "1"))

        def t(celsius: float) -> float:
            return round(celsius * 9 / 5 + 32, 1) if imperial else celsius

        body: dict[str, Any] = {
            "latitude": float(query["latitude"]),
            "longitude": float(query["longitude"]),
            "timezone": "Europe/Lisbon",
            "current_units": {"temperature_2m": "°F" if imperial else "°C"},
            "current": {
                "time": "2026-11-22T15:00",
                "temperature_2m": t(17.0),
                "apparent_temperature": t(16.2),
                "relative_humidity_2m": 71,
                "precipitation": 0.0,
                "weather_code": 2,
                "wind_speed_10m": 12.4,
            },
            "daily_units": {
                "temperature_2m_max": "°F" if imperial else "°C",
                "precipitation_sum": "inch" if imperial else "mm",
                "wind_speed_10m_max": "mp/h" if imperial else "km/h",
            },
            "daily": {
                "time": [f"2026-11-{22 + i}" for i in range(days)],
                "weather_code": [2, 61, 3, 0, 1, 80, 95][:days],
                "temperature_2m_max": [t(18.0 + i) for i in range(days)],
                "temperature_2m_min": [t(11.0 + i) for i in range(days)],
                "precipitation_sum": [0.0, 4.2, 0.0, 0.0, 0.0, 1.1, 9.0][:days],
                "precipitation_probability_max": [5, 80, 10, 0, 0, 40, 90][:days],
                "wind_speed_10m_max": [20.1] * days,
                "sunrise": ["07:40"] * days,
                "sunset": ["17:20"] * days,
            },
        }
        if "hourly" in query:
            hours = 24 * days
            body["hourly"] = {
                "time": [f"2026-11-22T{h % 24:02d}:00" for h in range(hours)],
                "temperature_2m": [t(15.0)] * hours,
                "precipitation_probability": [10] * hours,
                "precipitation": [0.0] * hours,
                "weather_code": [1] * hours,
                "wind_speed_10m": [10.0] * hours,
            }
        return web.json_response(body)
