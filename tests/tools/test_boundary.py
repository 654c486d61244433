"""Exposure is a hard boundary: attacks a hostile model could try on `call_service`.

After each attack the unexposed entities must not have changed, and the result must
not name them (an unexposed entity named by the model is reported like an unknown one).
"""

import json
import re
from typing import Any

import probatio
import pytest

from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import device_registry as dr, entity_registry as er, llm
from homeassistant.helpers.service import async_set_service_schema
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import LLM_API_ID
from custom_components.agentic_conversation.tools.service_target import (
    SOME_UNAVAILABLE,
    ResolvedCall,
    resolve_call,
)
from tests.tools.conftest import Result, act, context, state_of

# What a model must never learn about: ids and names of unexposed entities.
HIDDEN = {
    "light.kitchen_strip": "Kitchen strip",
    "light.garage_light": "Garage light",
    "script.garage_light_on": "Garage light on",
    "group.hidden_porch": "hidden_porch",
}
ON = {"entity_id": "light.porch_light"}


def assert_hidden(result: Result) -> None:
    """The result names no unexposed entity, by id or by name."""
    text = json.dumps(result.data).lower()
    for entity_id, name in HIDDEN.items():
        assert entity_id not in text
        assert name.lower() not in text


def assert_untouched(hass: HomeAssistant) -> None:
    """The unexposed lights are still off (the unexposed script turns one on)."""
    assert state_of(hass, "light.kitchen_strip") == "off"
    assert state_of(hass, "light.garage_light") == "off"


def _device(hass: HomeAssistant, name: str) -> str:
    """The id of "Garage hub" or "Kitchen bar"."""
    member = {"Garage hub": "light.garage_light", "Kitchen bar": "light.kitchen_light"}
    entry = er.async_get(hass).async_get(member[name])
    assert entry is not None
    assert entry.device_id is not None
    device = dr.async_get(hass).async_get(entry.device_id)
    assert device is not None
    assert device.name == name
    return device.id


def _same_but_id(leaked: Result, unknown: Result, hidden: str, fake: str) -> None:
    """A named unexposed entity reads exactly as an entity that does not exist."""
    assert leaked.error
    assert json.dumps(leaked.data).replace(hidden, fake) == json.dumps(unknown.data)


def _garage_to_x(value: Any) -> str:
    """As JSON, with the unexposed garage light renamed to one that does not exist."""
    return re.sub("garage", "x", json.dumps(value), flags=re.IGNORECASE)


# --- Targets smuggled in data ---------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("entity_id", "light.garage_light"),
        ("entity_id", "all"),
        (" Entity_ID ", "light.garage_light"),
        ("device_id", "Garage hub"),
        ("area_id", "garage"),
        ("floor_id", "ground_floor"),
        ("label_id", "night"),
    ],
)
async def test_target_keys_in_data_are_refused(
    home: HomeAssistant, key: str, value: str
) -> None:
    """Next to an exposed light, any target key in data refuses the whole call."""
    if key == "device_id":
        value = _device(home, value)
    result = await act(home, "light.turn_on", ON, {key: value})

    assert result.error
    assert "Targets go in target" in result.data["error"]
    assert value not in result.data["error"]
    assert state_of(home, "light.porch_light") == "off"
    assert state_of(home, "light.kitchen_light") == "off"
    assert_untouched(home)
    assert_hidden(result)


@pytest.mark.parametrize(
    "data",
    [
        {"flash": "light.garage_light"},
        {"flash": "light.porch_light, LIGHT.Garage_Light"},
        {"flash": ["light.porch_light", "light.garage_light"]},
        {"flash": {"light.garage_light": "on"}},
        {"flash": {"nested": [{"deeper": " light.garage_light "}]}},
    ],
)
async def test_entity_ids_anywhere_in_data_must_be_exposed(
    home: HomeAssistant, data: dict[str, Any]
) -> None:
    """Entity ids in data (lists, comma lists, keys, nested) are read like HA would."""
    result = await act(home, "light.turn_on", ON, data)
    unknown = await act(home, "light.turn_on", ON, json.loads(_garage_to_x(data)))

    assert result.error
    assert "Unknown entity in data" in result.data["error"]
    assert _garage_to_x(result.data) == json.dumps(unknown.data)
    assert state_of(home, "light.porch_light") == "off"
    assert_untouched(home)


async def test_a_registry_id_in_data_is_an_entity_too(home: HomeAssistant) -> None:
    """HA takes an entity registry id for its entity: so do we."""
    entry = er.async_get(home).async_get("light.garage_light")
    exposed = er.async_get(home).async_get("light.porch_light")
    assert entry is not None
    assert exposed is not None
    result = await act(home, "light.turn_on", ON, {"flash": entry.id})
    schema_error = await act(home, "light.turn_on", ON, {"flash": exposed.id})

    assert "Unknown entity in data" in result.data["error"]
    assert_hidden(result)
    assert_untouched(home)
    # An exposed entity passes our check; the service's schema then has its say.
    assert "Invalid data for light.turn_on" in schema_error.data["error"]


async def test_services_that_take_entities_in_data_are_refused(
    home: HomeAssistant,
) -> None:
    """group.set and scene.create act on entities named in data, never a target."""
    assert await async_setup_component(home, "scene", {})
    await home.async_block_till_done()
    group_set = await act(
        home,
        "group.set",
        {},
        {"object_id": "mine", "entities": ["light.garage_light"]},
        allowed_services=("group",),
    )
    scene = await act(
        home,
        "scene.create",
        ON,
        {"scene_id": "mine", "snapshot_entities": ["light.garage_light"]},
    )

    for result in (group_set, scene):
        assert result.error
        assert "does not act on a target" in result.data["error"]
        assert_hidden(result)
    assert home.states.get("group.mine") is None
    assert home.states.get("scene.mine") is None


# --- Areas, floors, labels, devices, groups ----------------------------------------


@pytest.mark.parametrize(
    ("target", "changed"),
    [
        ({"area_id": "kitchen"}, "light.kitchen_light"),
        ({"floor_id": "ground_floor"}, "light.kitchen_light"),
        ({"label_id": "night"}, "light.porch_light"),
        ({"device_id": "Kitchen bar"}, "light.kitchen_light"),
        ({"entity_id": "group.outside"}, "light.porch_light"),
    ],
)
async def test_a_mixed_target_acts_on_its_exposed_members_only(
    home: HomeAssistant, target: dict[str, str], changed: str
) -> None:
    """Exposed members change, unexposed ones stay; the note names none of them."""
    if "device_id" in target:
        target = {"device_id": _device(home, target["device_id"])}
    result = await act(home, "light.turn_on", target)

    assert not result.error
    assert state_of(home, changed) == "on"
    assert [s["entity_id"] for s in result.data["states"]] == [changed]
    assert result.data["note"] == SOME_UNAVAILABLE
    assert_untouched(home)
    assert_hidden(result)


async def test_a_target_with_nothing_exposed(home: HomeAssistant) -> None:
    """The garage hub's only light is unexposed: nothing happens, and it says why."""
    result = await act(
        home, "light.turn_on", {"device_id": _device(home, "Garage hub")}
    )

    assert result.error
    assert SOME_UNAVAILABLE in result.data["error"]
    assert_untouched(home)
    assert_hidden(result)


async def test_homeassistant_turn_on_acts_on_exposed_allowed_entities_only(
    home: HomeAssistant,
) -> None:
    """Across domains: the kitchen light and coffee machine, never the strip."""
    allowed = ("homeassistant.turn_on", "light", "switch")
    result = await act(
        home, "homeassistant.turn_on", {"area_id": "kitchen"}, allowed_services=allowed
    )

    assert not result.error
    assert state_of(home, "light.kitchen_light") == "on"
    assert state_of(home, "switch.coffee_machine") == "on"
    assert result.data["note"] == SOME_UNAVAILABLE
    assert_untouched(home)
    assert_hidden(result)


async def test_homeassistant_turn_on_keeps_to_the_allow_list(
    home: HomeAssistant,
) -> None:
    """homeassistant.turn_on calls switch.turn_on: not without switches allowed."""
    allowed = ("homeassistant.turn_on", "light")
    result = await act(
        home, "homeassistant.turn_on", {"area_id": "kitchen"}, allowed_services=allowed
    )
    group = await act(
        home,
        "homeassistant.turn_on",
        {"entity_id": "group.outside"},
        allowed_services=allowed,
    )

    assert state_of(home, "light.kitchen_light") == "on"
    assert state_of(home, "switch.coffee_machine") == "off"
    assert result.data["note"] == SOME_UNAVAILABLE
    assert state_of(home, "light.porch_light") == "on"
    assert group.data["note"] == SOME_UNAVAILABLE
    assert_untouched(home)
    assert_hidden(group)


@pytest.mark.parametrize(
    ("service", "target"),
    [
        ("restart", {}),
        ("stop", {}),
        ("reload_all", {}),
        ("update_entity", ON),
        ("reload_config_entry", ON),
    ],
)
async def test_homeassistant_services_beyond_a_target_are_refused(
    home: HomeAssistant, service: str, target: dict[str, str]
) -> None:
    """Even with every homeassistant.* service allowed."""
    result = await act(
        home, f"homeassistant.{service}", target, allowed_services=("homeassistant",)
    )

    assert result.error
    assert "acts on Home Assistant itself" in result.data["error"]
    assert home.is_running


# --- Scripts ------------------------------------------------------------------


async def test_per_script_services_are_refused(home: HomeAssistant) -> None:
    """script.<name> skips the script's entity: refused alike, exposed or not."""
    exposed = await act(home, "script.open_garage", {"entity_id": "script.open_garage"})
    hidden = await act(home, "script.garage_light_on", {})
    unknown = await act(home, "script.nope", {})

    assert exposed.error
    assert "script.turn_on" in exposed.data["error"]
    assert exposed.data == hidden.data == unknown.data
    assert state_of(home, "cover.garage_door") == "closed"
    assert_untouched(home)
    assert_hidden(hidden)


async def test_scripts_run_with_script_turn_on_when_exposed(
    home: HomeAssistant,
) -> None:
    """The exposed script runs; the unexposed one reads as unknown and stays idle."""
    opened = await act(home, "script.turn_on", {"entity_id": "script.open_garage"})
    hidden = await act(home, "script.turn_on", {"entity_id": "script.garage_light_on"})
    unknown = await act(home, "script.turn_on", {"entity_id": "script.nope"})

    assert not opened.error
    assert state_of(home, "cover.garage_door") == "open"
    _same_but_id(hidden, unknown, "script.garage_light_on", "script.nope")
    assert_untouched(home)


# --- Named entities, malformed targets --------------------------------------------


@pytest.mark.parametrize(
    ("hidden", "fake"),
    [
        ("light.garage_light", "light.nope"),
        ("LIGHT.Garage_Light ", "LIGHT.Nope "),
        ("group.hidden_porch", "group.nope"),
    ],
)
async def test_a_named_unexposed_entity_reads_as_unknown(
    home: HomeAssistant, hidden: str, fake: str
) -> None:
    """Same answer as for an id that does not exist; nothing changes."""
    leaked = await act(home, "light.turn_on", {"entity_id": [hidden]})
    unknown = await act(home, "light.turn_on", {"entity_id": [fake]})
    with_exposed = await act(
        home, "light.turn_on", {"entity_id": ["light.porch_light", hidden]}
    )

    _same_but_id(leaked, unknown, hidden.strip().lower(), fake.strip().lower())
    assert with_exposed.error
    assert state_of(home, "light.porch_light") == "off"
    assert_untouched(home)


@pytest.mark.parametrize(
    "target",
    [
        {"entity_id": "all"},
        {"entity_id": ["light.porch_light", "ALL"]},
        {"area_id": "all"},
        {"entity_id": "none"},
    ],
)
async def test_all_is_never_everything(home: HomeAssistant, target: Any) -> None:
    """`all` would reach every light in HA: refused, no light changes."""
    result = await act(home, "light.turn_on", target)

    assert result.error
    assert "'all' and 'none' are not targets" in result.data["error"]
    assert state_of(home, "light.porch_light") == "off"
    assert state_of(home, "light.kitchen_light") == "off"
    assert_untouched(home)


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ({}, "No target"),
        ({"entity_id": []}, "No target"),
        ({"entity_id": [], "area_id": []}, "No target"),
        ({"entity_id": "light.porch light"}, "Unknown target"),
        ({"area_id": "attic"}, "Unknown target: area attic"),
        ({"floor_id": "cellar"}, "Unknown target: floor cellar"),
        ({"label_id": "secret"}, "Unknown target: label secret"),
        ({"device_id": "0123"}, "Unknown target: device 0123"),
        ({"entity_id": "switch.coffee_machine"}, "Nothing in the target"),
    ],
)
async def test_empty_and_unknown_targets(
    home: HomeAssistant, target: Any, error: str
) -> None:
    """Clear errors; nothing changes."""
    result = await act(home, "light.turn_on", target)

    assert result.error
    assert error in result.data["error"]
    assert_untouched(home)
    assert_hidden(result)


async def test_ids_are_read_as_hass_spells_them(home: HomeAssistant) -> None:
    """Spaces and capitals around an exposed id are forgiven."""
    result = await act(home, "light.turn_on", {"entity_id": " LIGHT.Porch_Light "})

    assert not result.error
    assert state_of(home, "light.porch_light") == "on"


@pytest.mark.parametrize(
    "target",
    [
        "light.garage_light",
        ["light.garage_light"],
        {"entity_id": {"entity_id": "light.garage_light"}},
        {"entity_id": [["light.garage_light"]]},
        {"entity_id": 5},
        {"entities": ["light.garage_light"]},
    ],
)
async def test_malformed_targets_are_refused(home: HomeAssistant, target: Any) -> None:
    """resolve_call refuses what is not a target; the tool's schema, before it runs."""
    resolved = await resolve_call(
        home, context(), "light", "turn_on", target=target, data={}
    )
    api = await llm.async_get_api(home, LLM_API_ID, context())

    assert isinstance(resolved, llm.ToolResult)
    assert resolved.error
    assert "Invalid target" in str(resolved.data["error"])
    with pytest.raises(probatio.Invalid):
        await api.async_call_tool(
            llm.ToolInput(
                tool_name="call_service",
                tool_args={"domain": "light", "service": "turn_on", "target": target},
            )
        )
    assert_untouched(home)


async def test_resolve_call_returns_the_final_exposed_entities(
    home: HomeAssistant,
) -> None:
    """What the confirmation step will see: ids, data, and whether some were left."""
    resolved = await resolve_call(
        home,
        context(),
        " Light ",
        "TURN_ON",
        target={"floor_id": "ground_floor"},
        data={"brightness_pct": 20},
    )

    assert resolved == ResolvedCall(
        "light", "turn_on", ("light.kitchen_light",), {"brightness_pct": 20}, True
    )
    assert state_of(home, "light.kitchen_light") == "off"
    not_data = await resolve_call(
        home, context(), "light", "turn_on", target=ON, data=[]
    )
    assert isinstance(not_data, llm.ToolResult)
    assert not_data.error


# --- Services of their own kind ---------------------------------------------------


async def test_a_service_without_a_target_is_refused(home: HomeAssistant) -> None:
    """input_boolean.reload is allowed by `input_*`, but acts on no target."""
    result = await act(home, "input_boolean.reload", {"entity_id": "input_boolean.x"})

    assert result.error
    assert "does not act on a target" in result.data["error"]


async def test_device_and_area_fields_and_error_messages(home: HomeAssistant) -> None:
    """A service whose fields take places is refused them; its errors are scrubbed."""

    async def sparkle(call: ServiceCall) -> None:
        raise HomeAssistantError(
            "light.garage_light is in the way of light.porch_light"
        )

    home.services.async_register("light", "sparkle", sparkle)
    async_set_service_schema(
        home,
        "light",
        "sparkle",
        {
            "target": {"entity": [{"domain": "light"}]},
            "fields": {
                "room": {"selector": {"area": {}}},
                "plain": None,
                "advanced": {
                    "collapsed": True,
                    "fields": {"where": {"selector": {"floor": {}}}},
                },
            },
        },
    )
    room = await act(home, "light.sparkle", ON, {"room": "garage"})
    where = await act(home, "light.sparkle", ON, {"where": "ground_floor"})
    failed = await act(home, "light.sparkle", ON)

    assert "may not give devices or places in data: room" in room.data["error"]
    assert "where" in where.data["error"]
    assert "light.sparkle failed" in failed.data["error"]
    assert "light.porch_light" in failed.data["error"]
    for result in (room, where, failed):
        assert_hidden(result)


async def test_tool_annotations(home: HomeAssistant) -> None:
    """call_service is the one tool that writes; the others only read."""
    api = await llm.async_get_api(home, LLM_API_ID, context())
    annotations = {tool.name: tool.annotations for tool in api.tools}

    assert annotations["call_service"] == llm.ToolAnnotations(
        read_only=False, destructive=True, idempotent=False, open_world=False
    )
    for name in ("search_entities", "get_entity_state", "get_weather"):
        assert annotations[name].read_only
        assert not annotations[name].destructive
