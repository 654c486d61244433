"""Homes and commands for bench/local_understanding.py, from a public source.

From allenporter/home-assistant-datasets (datasets/assist), the evaluation set
people use to compare conversation agents on Home Assistant: each home's devices,
areas and floors as its `_fixtures.yaml` has them (sensors left out unless a command
could confuse them), and each command as its YAML test says it, with the entities it
changes. Every command of these files (bench/understanding_more.py holds the second
half):
- home1-us: vacuum.yaml, cover-garage.yaml, smart-lock.yaml;
- home2-ru: water-valve.yaml;
- home5-cn: fan.yaml;
- home7-dk: cover-curtain.yaml, media-player.yaml;
- intents/en: fan_HassTurnOn.yaml, homeassistant_HassTurnOn.yaml,
  light_HassTurnOn.yaml, light_HassTurnOff.yaml, light_HassLightSet.yaml,
  cover_HassSetPosition.yaml, vacuum_HassVacuumStart.yaml, valve_HassTurnOff.yaml,
  todo_HassListAddItem.yaml.
Left out: home1-us/media-player.yaml (its tests need a nest_hub the fixtures do not
have, and a satellite's device), dom1-pl (Polish; this bench speaks English), and
the suburban/urban homes (no fixtures to build them from).

An entity is "domain.object_id|Name|area id"; a command is
"home|sentence|entity=expected,…[|entity=state,…]" where expected is the new state
(on, off, cleaning, returning, open, closed, locked, unlocked, paused, playing), +1
(an item added to a list), or what the call carries (understanding_more.py); the
last field, states set before the command.
"""

from bench.understanding_more import ATTRIBUTES, HOME7_DK, MORE_COMMANDS

HOMES: dict[str, dict[str, object]] = {
    "home1-us": {
        "areas": {
            "kitchen": "Kitchen",
            "living_room": "Living Room",
            "game_room": "Game Room",
            "backyard": "Backyard",
            "entry": "Entry",
            "garage": "Garage",
            "bedroom_1": "Bedroom 1",
            "bedroom_2": "Bedroom 2",
            "bedroom_3": "Bedroom 3",
            "master_bedroom": "Master Bedroom",
        },
        "floors": {},
        "entities": """
light.kitchen_light|Kitchen Light|kitchen
climate.thermostat|Thermostat|kitchen
sensor.thermostat_temperature|Thermostat Temperature|kitchen
light.living_room_light|Living Room Light|living_room
binary_sensor.living_room_motion_sensor|Living Room Motion Sensor|living_room
vacuum.roborock_downstairs|Roborock Downstairs|living_room
light.game_room_light|Game Room Light|game_room
media_player.smart_speaker|Smart Speaker|game_room
light.backyard_light|Backyard Light|backyard
binary_sensor.backyard_camera_motion|Backyard Camera Motion|backyard
lock.smart_lock|Smart Lock|entry
binary_sensor.smart_lock|Smart Lock|entry
cover.garage_door_opener|Garage Door Opener|garage
light.garage_door_opener|Garage Door Opener|garage
lock.rear_door_lock|Rear Door Lock|garage
light.bedroom_1_light|Bedroom 1 Light|bedroom_1
light.bedroom_2_light|Bedroom 2 Light|bedroom_2
light.bedroom_3_light|Bedroom 3 Light|bedroom_3
light.master_bedroom_light|Master Bedroom Light|master_bedroom
cover.master_bedroom_smart_blinds|Master Bedroom Smart Blinds|master_bedroom
""",
    },
    "home2-ru": {
        "areas": {
            "kitchen": "Kitchen",
            "living_room": "Living Room",
            "dining_room": "Dining Room",
            "bedroom_1": "Bedroom 1",
            "bedroom_2": "Bedroom 2",
            "bedroom_3": "Bedroom 3",
            "bedroom_4": "Bedroom 4",
            "front_yard": "Front yard",
            "garage": "Garage",
        },
        "floors": {},
        "entities": """
light.kitchen_light|Kitchen Light|kitchen
climate.thermostat|Thermostat|kitchen
switch.coffee_maker|Coffee Maker|kitchen
light.living_room_light|Living Room Light|living_room
light.dining_room_light|Dining Room Light|dining_room
light.bedroom_1_light|Bedroom 1 Light|bedroom_1
light.bedroom_2_light|Bedroom 2 Light|bedroom_2
light.bedroom_3_light|Bedroom 3 Light|bedroom_3
light.bedroom_4_light|Bedroom 4 Light|bedroom_4
light.garden_light|Garden Light|front_yard
valve.irrigation_valve|Irrigation Valve|front_yard
sensor.irrigation_valve_battery|Irrigation Valve Battery|front_yard
cover.garage_door|Garage Door|garage
light.garage_door|Garage Door|garage
binary_sensor.garage_camera_motion|Garage Camera Motion|garage
""",
    },
    "home5-cn": {
        "areas": {
            "living_room": "Living Room",
            "kitchenette": "Kitchenette",
            "bedroom_1": "Bedroom 1",
            "bedroom_2": "Bedroom 2",
            "front_porch": "Front Porch",
        },
        "floors": {},
        "entities": """
light.living_room_light|Living Room Light|living_room
sensor.wood_stove_temperature|Wood Stove Temperature Sensor Temperature|living_room
light.kitchenette_light|Kitchenette Light|kitchenette
light.bedroom_1_light|Bedroom 1 Light|bedroom_1
fan.bedroom_fan|Bedroom Fan|bedroom_1
light.bedroom_2_light|Bedroom 2 Light|bedroom_2
light.porch_light|Porch Light|front_porch
binary_sensor.motion_sensor|Motion Sensor|front_porch
""",
    },
    "home7-dk": HOME7_DK,
    "intents-en": {
        "areas": {
            "kitchen": "Kitchen",
            "living_room": "Living Room",
            "bedroom": "Bedroom",
            "garage": "Garage",
            "entrance": "Entrance",
            "office": "Office",
        },
        # area -> floor
        "floors": {
            "kitchen": "First Floor",
            "living_room": "First Floor",
            "garage": "First Floor",
            "entrance": "First Floor",
            "bedroom": "Second Floor",
            "office": "Basement",
        },
        "entities": """
light.bedroom_lamp|Bedroom Lamp|bedroom
switch.bedroom|Bedroom Switch|bedroom
switch.kitchen|Kitchen Switch|kitchen
light.kitchen_countertop|Kitchen countertop|kitchen
light.kitchen_ceiling|Kitchen ceiling|kitchen
light.kitchen_cabinets|Kitchen cabinets|kitchen
fan.ceiling|Ceiling Fan|living_room
cover.curtain_left|Curtain Left|living_room
cover.curtain_right|Curtain Right|living_room
cover.bedroom|Bedroom Curtain|bedroom
light.living_room_lamp|Living Room Lamp|living_room
light.garage|Garage Light|garage
light.play_corner|Play Corner|living_room
climate.thermostat|Thermostat|living_room
lock.front_door|Front Door|entrance
lock.back_door|Back Door|
valve.main_valve|Main Valve|
media_player.tv|TV|living_room
vacuum.rover|Rover|
todo.trader_joes|Trader Joe's|
""",
    },
}

_LIVING = "light.living_room_lamp=on,light.play_corner=on"
_FIRST_ON = (
    "light.living_room_lamp=on,light.play_corner=on,light.garage=on,"
    "light.kitchen_countertop=on,light.kitchen_ceiling=on,light.kitchen_cabinets=on"
)
_FIRST_OFF = _FIRST_ON.replace("=on", "=off")
_KITCHEN_OFF = (
    "light.kitchen_countertop=off,light.kitchen_ceiling=off,light.kitchen_cabinets=off"
)


def _many(home: str, expected: str, sentences: str) -> list[str]:
    return [
        f"{home}|{line.strip()}|{expected}"
        for line in sentences.strip().splitlines()
        if line.strip()
    ]


COMMANDS: list[str] = [
    # home1-us/vacuum.yaml
    *_many(
        "home1-us",
        "vacuum.roborock_downstairs=cleaning",
        """
        Start Roborock Downstairs
        Start Roborock Downstairs vacuum
        Start Roborock
        Start the vacuum
        Start vacuuming
        Vacuum downstairs
        Clean the living room
        """,
    ),
    *_many(
        "home1-us",
        "vacuum.roborock_downstairs=returning",
        """
        Return Roborock Downstairs to base
        Roborock Downstairs return to base
        Roborock return to base
        Vacuum return to base
        Stop Roborock Downstairs
        Stop the vacuum
        Stop vacuuming
        Stop the downstairs vacuum
        """,
    ),
    # home2-ru/water-valve.yaml (opening is risky: asked, see RISKY)
    *_many(
        "home2-ru",
        "valve.irrigation_valve=open",
        """
        open the front yard valve
        open the irrigation valve
        turn on the water in the front yard
        water the front yard
        water the garden
        """,
    ),
    *_many(
        "home2-ru",
        "valve.irrigation_valve=closed",
        """
        close the front yard valve
        close the irrigation valve
        turn off the water in the front yard
        """,
    ),
    # home5-cn/fan.yaml
    *_many(
        "home5-cn",
        "fan.bedroom_fan=on",
        """
        Turn on the bedroom 1 fan
        Turn on the bedroom fan
        Turn on the fan in the bedroom
        Turn on the fans
        """,
    ),
    *_many(
        "home5-cn",
        "fan.bedroom_fan=off",
        """
        Turn off the bedroom fan
        Turn off all the fans
        """,
    ),
    # intents/en/fan_HassTurnOn.yaml, homeassistant_HassTurnOn.yaml
    *_many(
        "intents-en",
        "fan.ceiling=on",
        """
        turn on the fan in the living room
        turn on all fans in the living room
        turn on all the fans in the living room
        turn on the living room fan
        turn on living room fans
        turn living room fan on
        turn living room fans on
        turn all living room fans on
        turn all the living room fans on
        all living room fans on
        living room fans on
        activate living room fans
        turn on ceiling fan
        turn on the ceiling fan
        turn ceiling fan on
        turn the ceiling fan on
        ceiling fan on
        activate ceiling fan
        """,
    ),
    *_many(
        "intents-en",
        "light.play_corner=on",
        """
        turn on play corner lights
        play corner light on
        """,
    ),
    # intents/en/light_HassTurnOn.yaml
    *_many(
        "intents-en",
        _LIVING,
        """
        turn on all the lights in the living room
        turn on all the lights in living room
        turn on the light in the living room
        turn on the light in living room
        turn on the lights in the living room
        turn on the lights in living room
        turn on all living room lights
        turn on living room light
        turn on living room lights
        turn on the living room light
        turn on all the living room lights
        turn all the lights in the living room on
        turn all the lights in living room on
        turn lights in the living room on
        turn the lighting in the living room on
        turn the lights in living room on
        turn the light in the living room on
        turn the light in living room on
        turn the living room lights on
        living room lights on
        activate living room lights
        lights living room on
        living room lighting on
        """,
    ),
    *_many(
        "intents-en",
        _FIRST_ON,
        """
        Turn on all the lights on the first floor
        Turn on all the lights first floor
        Switch on all first floor lights
        Turn first floor lights on
        First floor lights on
        Activate all first floor lights
        Activate all lights on the first floor
        """,
    ),
    # intents/en/light_HassTurnOff.yaml
    *_many(
        "intents-en",
        _KITCHEN_OFF,
        """
        turn off all the lights in the kitchen
        turn off all the lights in kitchen
        turn off the light in the kitchen
        turn off the light in kitchen
        turn off the lights in the kitchen
        turn off lighting in kitchen
        turn off all kitchen lights
        turn off kitchen light
        turn off kitchen lights
        turn off the kitchen light
        turn off all the kitchen lights
        turn all the lights in the kitchen off
        turn all the lights in kitchen off
        turn lights in the kitchen off
        turn the lights in the kitchen off
        turn the lights in kitchen off
        turn the light in the kitchen off
        turn the light in kitchen off
        turn the kitchen lights off
        kitchen lighting off
        deactivate kitchen lights
        """,
    ),
    *_many(
        "intents-en",
        _FIRST_OFF,
        """
        Turn off all the lights on the first floor
        Turn off all the lights first floor
        Switch off all first floor lights
        Turn first floor lights off
        First floor lights off
        Deactivate all first floor lights
        Deactivate all lights on the first floor
        """,
    ),
    # intents/en/vacuum_HassVacuumStart.yaml, valve_HassTurnOff.yaml,
    # todo_HassListAddItem.yaml
    "intents-en|start rover|vacuum.rover=cleaning",
    "intents-en|close the main valve|valve.main_valve=closed",
    "intents-en|add apples to my trader joe's list|todo.trader_joes=+1",
    "intents-en|put apples on the trader joe's list|todo.trader_joes=+1",
]
COMMANDS += MORE_COMMANDS
__all__ = ["ATTRIBUTES", "COMMANDS", "HOMES", "risky"]


def risky(expected: dict[str, str]) -> bool:
    """Locks, garage doors, and a valve opening: counted apart from the base."""
    return any(
        entity_id.startswith(("lock.", "cover.garage"))
        or (entity_id.startswith("valve.") and state == "open")
        for entity_id, state in expected.items()
    )
