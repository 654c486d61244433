"""`get_weather` against a local fake of Open-Meteo, and from a weather entity."""

from homeassistant.core import HomeAssistant
from homeassistant.util.unit_system import US_CUSTOMARY_SYSTEM

from tests.fake_open_meteo import FakeOpenMeteo
from tests.tools.conftest import call


async def test_home_forecast_uses_the_home_coordinates(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """No location: the forecast is for the home's latitude and longitude."""
    home.config.latitude, home.config.longitude = 38.7223, -9.1393

    result = await call(home, "get_weather", {"days": 2})

    assert not result.error
    (request,) = fake_open_meteo.forecast_requests
    assert (request["latitude"], request["longitude"]) == ("38.7223", "-9.1393")
    assert request["forecast_days"] == "2"
    assert "temperature_unit" not in request
    assert fake_open_meteo.geocoding_requests == []
    assert result.data["current"]["conditions"] == "partly cloudy"
    tomorrow = result.data["daily"][1]
    assert tomorrow["conditions"] == "slight rain"
    assert tomorrow["precipitation_probability"] == 80
    assert result.data["units"]["temperature"] == "°C"


async def test_named_place_is_geocoded(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """'Lisbon' is looked up, then its forecast fetched; hourly on request."""
    result = await call(
        home, "get_weather", {"location": "Lisbon", "days": 1, "hourly": True}
    )

    assert result.data["location"] == "Lisbon, Lisbon, Portugal"
    assert fake_open_meteo.geocoding_requests[0]["name"] == "Lisbon"
    assert fake_open_meteo.forecast_requests[0]["latitude"] == "38.7167"
    assert len(result.data["hourly"]) == 24


async def test_unknown_place_says_so_with_guesses(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """A place the geocoder does not know: an error, with near guesses if any."""
    nowhere = await call(home, "get_weather", {"location": "Atlantis"})
    near = await call(home, "get_weather", {"location": "Paris Texas Nowhere"})

    assert nowhere.error
    assert "Unknown place" in nowhere.data["error"]
    assert "did_you_mean" not in nowhere.data
    assert near.error
    assert near.data["did_you_mean"] == ["Paris, Île-de-France, France"]
    assert fake_open_meteo.forecast_requests == []


async def test_service_down_is_a_clear_error(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """Open-Meteo answers 503: the model is told the service is not reachable."""
    fake_open_meteo.down = True

    result = await call(home, "get_weather", {"location": "Lisbon"})

    assert result.error
    assert "not reachable" in result.data["error"]


async def test_two_questions_one_upstream_call(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """The same forecast within 10 minutes comes from the cache."""
    first = await call(home, "get_weather", {"location": "Paris", "days": 3})
    second = await call(home, "get_weather", {"location": "Paris", "days": 3})

    assert first.data == second.data
    assert len(fake_open_meteo.forecast_requests) == 1
    assert len(fake_open_meteo.geocoding_requests) == 1


async def test_imperial_units_follow_home_assistant(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """A US customary home gets Fahrenheit, mph and inches."""
    home.config.units = US_CUSTOMARY_SYSTEM

    result = await call(home, "get_weather", {})

    request = fake_open_meteo.forecast_requests[0]
    assert request["temperature_unit"] == "fahrenheit"
    assert request["wind_speed_unit"] == "mph"
    assert request["precipitation_unit"] == "inch"
    assert result.data["units"]["temperature"] == "°F"


async def test_a_weather_entity_answers_for_home(
    home: HomeAssistant, fake_open_meteo: FakeOpenMeteo
) -> None:
    """With a weather entity chosen, home forecasts come from weather.get_forecasts."""
    result = await call(home, "get_weather", {"days": 2}, weather_entity="weather.home")

    assert not result.error, result.data
    assert result.data["source"] == "weather.home"
    assert result.data["current"]["conditions"] == "sunny"
    assert result.data["daily"][0]["condition"] == "rainy"
    assert fake_open_meteo.forecast_requests == []
    elsewhere = await call(
        home, "get_weather", {"location": "Lisbon"}, weather_entity="weather.home"
    )
    assert elsewhere.data["location"] == "Lisbon, Lisbon, Portugal"
