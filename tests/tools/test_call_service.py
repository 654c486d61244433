"""`call_service`: acts on exposed entities, never on others, within the allow-list."""

from homeassistant.core import HomeAssistant

from tests.tools.conftest import act, call, state_of


async def test_turns_on_an_exposed_light_and_returns_its_state(
    home: HomeAssistant,
) -> None:
    """The light really goes on, and the model sees its new state."""
    result = await act(home, "light.turn_on", {"entity_id": "light.porch_light"})

    assert not result.error
    assert state_of(home, "light.porch_light") == "on"
    assert result.data["states"] == [
        {
            "entity_id": "light.porch_light",
            "name": "Porch light",
            "area": "Porch",
            "domain": "light",
            "state": "on",
        }
    ]


async def test_an_area_of_exposed_entities_works(home: HomeAssistant) -> None:
    """By area, when everything it holds in that domain is exposed."""
    result = await act(home, "switch.turn_on", {"area_id": "kitchen"})

    assert not result.error
    assert state_of(home, "switch.coffee_machine") == "on"
    assert "note" not in result.data  # the unexposed strip is a light, not a switch


async def test_refuses_a_domain_not_on_the_allow_list(home: HomeAssistant) -> None:
    """Locks are left out by default: the front door stays locked… or unlocked."""
    result = await act(home, "lock.unlock", {"entity_id": "lock.front_door"})

    assert result.error
    assert "not allowed" in result.data["error"]
    assert "light" in result.data["allowed"]


async def test_an_agent_can_allow_a_single_service(home: HomeAssistant) -> None:
    """An allow-list entry like `lock.lock` allows exactly that service."""
    target = {"entity_id": "lock.front_door"}
    allowed = ("lock.lock",)
    locked = await act(home, "lock.lock", target, allowed_services=allowed)
    unlocked = await act(home, "lock.unlock", target, allowed_services=allowed)

    assert not locked.error
    assert state_of(home, "lock.front_door") == "locked"
    assert unlocked.error


async def test_a_service_schema_error_comes_back_as_an_error_result(
    home: HomeAssistant,
) -> None:
    """Bad data for the service: the model gets the service's own complaint."""
    result = await act(
        home,
        "light.turn_on",
        {"entity_id": "light.porch_light"},
        {"brightness_pct": "very bright"},
    )

    assert result.error
    assert "Invalid data for light.turn_on" in result.data["error"]
    assert "brightness_pct" in result.data["error"]
    assert state_of(home, "light.porch_light") == "off"


async def test_unknown_service_and_missing_target(home: HomeAssistant) -> None:
    """Clear errors for a service that does not exist and for no target at all."""
    no_service = await act(home, "light.explode", {"entity_id": "light.porch_light"})
    no_target = await call(
        home, "call_service", {"domain": "light", "service": "turn_on"}
    )
    unknown = await act(home, "light.turn_on", {"entity_id": "light.nope"})

    assert "no action light.explode" in no_service.data["error"]
    assert "No target" in no_target.data["error"]
    assert "light.nope" in unknown.data["error"]
