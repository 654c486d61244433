"""`call_service`: acts on exposed entities, never on others, within the allow-list."""

from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from tests.tools.conftest import Result, call


async def _act(
    hass: HomeAssistant,
    action: str,
    target: dict[str, Any],
    data: dict[str, Any] | None = None,
    **options: Any,
) -> Result:
    """Call `call_service` for "domain.service" on a target."""
    domain, service = action.split(".")
    args = {"domain": domain, "service": service, "target": target}
    if data is not None:
        args["data"] = data
    return await call(hass, "call_service", args, **options)


def _state(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    assert state is not None
    return state.state


async def test_turns_on_an_exposed_light_and_returns_its_state(
    home: HomeAssistant,
) -> None:
    """The light really goes on, and the model sees its new state."""
    result = await _act(home, "light.turn_on", {"entity_id": "light.porch_light"})

    assert not result.error
    assert _state(home, "light.porch_light") == "on"
    assert result.data["states"] == [
        {
            "entity_id": "light.porch_light",
            "name": "Porch light",
            "area": "Porch",
            "domain": "light",
            "state": "on",
        }
    ]


async def test_refuses_an_unexposed_entity_by_id(home: HomeAssistant) -> None:
    """Asking for an unexposed light by id changes nothing and says why."""
    result = await _act(home, "light.turn_on", {"entity_id": ["light.garage_light"]})

    assert result.error
    assert "light.garage_light" in result.data["error"]
    assert "Not exposed" in result.data["error"]
    assert _state(home, "light.garage_light") == "off"


async def test_an_area_never_reaches_an_unexposed_entity(home: HomeAssistant) -> None:
    """The kitchen has an unexposed strip: the whole call is refused, nothing changes."""
    result = await _act(home, "light.turn_on", {"area_id": ["kitchen"]})

    assert result.error
    assert "light.kitchen_strip" in result.data["error"]
    assert _state(home, "light.kitchen_light") == "off"
    assert _state(home, "light.kitchen_strip") == "off"


async def test_a_device_never_reaches_an_unexposed_entity(home: HomeAssistant) -> None:
    """The garage hub holds an unexposed light: refused by device too."""
    entry = er.async_get(home).async_get("light.garage_light")
    assert entry is not None
    device_id = entry.device_id
    result = await _act(home, "light.turn_on", {"device_id": device_id})

    assert result.error
    assert "light.garage_light" in result.data["error"]
    assert _state(home, "light.garage_light") == "off"


async def test_an_area_of_exposed_entities_works(home: HomeAssistant) -> None:
    """By area, when everything it holds in that domain is exposed."""
    result = await _act(home, "switch.turn_on", {"area_id": "kitchen"})

    assert not result.error
    assert _state(home, "switch.coffee_machine") == "on"


async def test_refuses_a_domain_not_on_the_allow_list(home: HomeAssistant) -> None:
    """Locks are left out by default: the front door stays locked… or unlocked."""
    result = await _act(home, "lock.unlock", {"entity_id": "lock.front_door"})

    assert result.error
    assert "not allowed" in result.data["error"]
    assert "light" in result.data["allowed"]


async def test_an_agent_can_allow_a_single_service(home: HomeAssistant) -> None:
    """An allow-list entry like `lock.lock` allows exactly that service."""
    target = {"entity_id": "lock.front_door"}
    allowed = ("lock.lock",)
    locked = await _act(home, "lock.lock", target, allowed_services=allowed)
    unlocked = await _act(home, "lock.unlock", target, allowed_services=allowed)

    assert not locked.error
    assert _state(home, "lock.front_door") == "locked"
    assert unlocked.error


async def test_a_service_schema_error_comes_back_as_an_error_result(
    home: HomeAssistant,
) -> None:
    """Bad data for the service: the model gets the service's own complaint."""
    result = await _act(
        home,
        "light.turn_on",
        {"entity_id": "light.porch_light"},
        {"brightness_pct": "very bright"},
    )

    assert result.error
    assert "Invalid data for light.turn_on" in result.data["error"]
    assert "brightness_pct" in result.data["error"]
    assert _state(home, "light.porch_light") == "off"


async def test_unknown_service_and_missing_target(home: HomeAssistant) -> None:
    """Clear errors for a service that does not exist and for no target at all."""
    no_service = await _act(home, "light.explode", {"entity_id": "light.porch_light"})
    no_target = await call(
        home, "call_service", {"domain": "light", "service": "turn_on"}
    )
    unknown = await _act(home, "light.turn_on", {"entity_id": "light.nope"})

    assert "no action light.explode" in no_service.data["error"]
    assert "No target" in no_target.data["error"]
    assert "light.nope" in unknown.data["error"]
