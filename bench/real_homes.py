"""Ten homes and fifty commands for bench/real_model.py, built like real homes.

The names are the kind people post on the Home Assistant community forum and in their
shared configurations: brand and model names left as the integration made them (Hue,
Shelly, IKEA, Nuki, Roborock, Sonos), an area word in some names and not in others,
British and American words, to-do lists with long names. The commands are said as
people say them, not as the acceptance table's sentences.

An entity is "domain.object_id|Name|Area|device_class|initial state"; a command is
(sentence, {entity id: the state it should end in}); a to-do list's state is "+word"
(an item with that word added). A lock unlocked, a garage door, gate or door opened
is risky: the right way there is a question first, then "yes".
"""

from typing import NamedTuple


class Command(NamedTuple):
    """A sentence and the states it should leave."""

    text: str
    expect: dict[str, str]


HOMES: dict[str, str] = {
    "terrace": """
light.hue_ambiance_1|Kitchen Ceiling|Kitchen||off
light.hue_go|Hue Go|Living Room||off
light.floor_lamp|Floor Lamp|Living Room||on
switch.shelly_plug_s_1|Kettle|Kitchen|outlet|off
cover.fyrtur_bedroom|Bedroom Blind|Bedroom|blind|open
lock.nuki_smart_lock|Nuki Smart Lock|Hallway||unlocked
vacuum.roborock_s7|Roborock S7|Living Room||docked
todo.groceries|Groceries|||
""",
    "bungalow": """
light.living_room_main|Living Room Main|Living Room||off
light.tv_backlight|TV Backlight|Living Room||off
light.porch|Porch Light|Front Garden||off
switch.christmas_tree|Christmas Tree|Living Room|outlet|off
cover.garage_door|Garage Door|Garage|garage|closed
lock.back_door|Back Door|Kitchen||locked
climate.hallway_thermostat|Hallway Thermostat|Hallway||19
todo.family_chores|Family chores|||
""",
    "flat": """
light.shelly_dimmer_2|Ceiling|Lounge||off
light.bedroom_ceiling|Bedroom Ceiling|Bedroom||on
light.bedside_left|Bedside Left|Bedroom||off
light.bedside_right|Bedside Right|Bedroom||off
fan.dyson_pure_cool|Dyson Pure Cool|Bedroom||off
switch.tplink_hs100|Dehumidifier|Bathroom|outlet|on
vacuum.eufy_robovac|RoboVac|Lounge||docked
todo.shopping_list|Shopping List|||
""",
    "semi": """
light.kitchen_island|Kitchen Island|Kitchen||off
light.kitchen_under_cabinet|Under Cabinet|Kitchen||off
light.dining_table|Dining Table Pendant|Dining Room||on
cover.lounge_curtains|Lounge Curtains|Lounge|curtain|closed
cover.velux_skylight|Velux Skylight|Landing|window|closed
switch.irrigation_back|Back Lawn Sprinkler|Back Garden||off
switch.hot_tub_heater|Hot Tub Heater|Back Garden||off
lock.yale_conexis|Yale Conexis L1|Porch||unlocked
""",
    "farmhouse": """
light.barn|Barn Lights|Barn||off
light.yard_flood|Floodlight|Yard||off
light.mudroom|Mudroom|Mudroom||on
switch.well_pump|Well Pump|Utility Room||off
switch.chicken_coop_heat_lamp|Heat Lamp|Chicken Coop||off
cover.gate|Driveway Gate|Driveway|gate|closed
fan.attic_fan|Whole House Fan|Attic||off
todo.hardware_store|Hardware store list|||
""",
    "townhouse": """
light.philips_hue_play_1|Hue Play 1|Media Room||off
light.office_desk|Desk Lamp|Office||off
light.office_ceiling|Office Ceiling|Office||on
switch.media_room_amp|Amplifier|Media Room||off
fan.office_fan|Tower Fan|Office||off
cover.office_blinds|Office Blinds|Office|blind|open
vacuum.deebot_t9|DEEBOT T9|Upstairs Hall||docked
climate.ecobee|Ecobee|Living Room||21
""",
    "cottage": """
light.wall_lights|Wall Lights|Snug||off
light.log_burner_lamp|Lamp by the log burner|Snug||off
light.bathroom|Bathroom|Bathroom||off
switch.towel_rail|Towel Rail|Bathroom||off
switch.immersion|Immersion Heater|Airing Cupboard||off
cover.garage|Up and over door|Garage|garage|closed
lock.front_door_lock|Front door lock|Porch||locked
todo.weekly_shop|Weekly shop|||
""",
    "loft": """
light.led_strip_kitchen|LED Strip|Kitchen||off
light.pendant_lights|Pendant Lights|Kitchen||on
light.nanoleaf_shapes|Nanoleaf Shapes|Studio||off
switch.espresso_machine|Espresso Machine|Kitchen||off
fan.ceiling_fan_studio|Ceiling Fan|Studio||off
switch.record_player|Record Player|Studio||off
vacuum.roomba_i7|Roomba|Studio||docked
todo.todo_list|To-do|||
""",
    "family": """
light.kids_room_night_light|Night Light|Kids Room||off
light.kids_room_ceiling|Kids Room Ceiling|Kids Room||on
light.playroom|Playroom|Playroom||off
light.hallway_motion|Hallway|Hallway||off
switch.baby_monitor|Baby Monitor|Kids Room||off
cover.kids_room_shutter|Shutter|Kids Room|shutter|open
switch.front_sprinklers|Front Yard Zone 1|Front Yard||off
todo.school_stuff|School things to buy|||
""",
    "duplex": """
light.upstairs_landing|Landing|Upstairs||off
light.downstairs_hall|Hall|Downstairs||on
light.garage_strip|Garage Strip Light|Garage||off
switch.garage_freezer|Chest Freezer|Garage||on
cover.garage_main|Main Garage Door|Garage|garage|closed
cover.patio_awning|Awning|Patio|awning|closed
lock.patio_door|Patio Slider|Patio||unlocked
vacuum.shark|Shark|Downstairs||docked
""",
}

COMMANDS: dict[str, list[Command]] = {
    "terrace": [
        Command("turn on the kitchen light", {"light.hue_ambiance_1": "on"}),
        Command("put the kettle on", {"switch.shelly_plug_s_1": "on"}),
        Command("lower the bedroom blind", {"cover.fyrtur_bedroom": "closed"}),
        Command("lock the front door", {"lock.nuki_smart_lock": "locked"}),
        Command("start the hoover", {"vacuum.roborock_s7": "cleaning"}),
    ],
    "bungalow": [
        Command("switch on the porch light", {"light.porch": "on"}),
        Command("turn the christmas tree on", {"switch.christmas_tree": "on"}),
        Command("open the garage", {"cover.garage_door": "open"}),
        Command("set the heating to 21 degrees", {"climate.hallway_thermostat": "21"}),
        Command("add take out the bins to the chores", {"todo.family_chores": "+bins"}),
    ],
    "flat": [
        Command(
            "turn on the ceiling light in the lounge", {"light.shelly_dimmer_2": "on"}
        ),
        Command("turn off the bedroom light", {"light.bedroom_ceiling": "off"}),
        Command("turn on the fan in the bedroom", {"fan.dyson_pure_cool": "on"}),
        Command("vacuum the lounge", {"vacuum.eufy_robovac": "cleaning"}),
        Command("put oat milk on the shopping list", {"todo.shopping_list": "+oat"}),
    ],
    "semi": [
        Command("turn on the island lights", {"light.kitchen_island": "on"}),
        Command("open the curtains in the lounge", {"cover.lounge_curtains": "open"}),
        Command("water the back lawn", {"switch.irrigation_back": "on"}),
        Command("turn off the dining room light", {"light.dining_table": "off"}),
        Command("lock the porch door", {"lock.yale_conexis": "locked"}),
    ],
    "farmhouse": [
        Command("turn on the lights in the barn", {"light.barn": "on"}),
        Command("switch on the floodlight", {"light.yard_flood": "on"}),
        Command(
            "turn on the heat lamp for the chickens",
            {"switch.chicken_coop_heat_lamp": "on"},
        ),
        Command("start the well pump", {"switch.well_pump": "on"}),
        Command(
            "add fence staples to the hardware list",
            {"todo.hardware_store": "+staples"},
        ),
    ],
    "townhouse": [
        Command("turn on the desk lamp", {"light.office_desk": "on"}),
        Command("turn on the fan in the office", {"fan.office_fan": "on"}),
        Command("close the blinds in the office", {"cover.office_blinds": "closed"}),
        Command("set the thermostat to 19", {"climate.ecobee": "19"}),
        Command("start the vacuum", {"vacuum.deebot_t9": "cleaning"}),
    ],
    "cottage": [
        Command("turn on the lamp in the snug", {"light.log_burner_lamp": "on"}),
        Command("switch on the towel rail", {"switch.towel_rail": "on"}),
        Command("turn the immersion on", {"switch.immersion": "on"}),
        Command("open the garage door", {"cover.garage": "open"}),
        Command("add teabags to the weekly shop", {"todo.weekly_shop": "+teabags"}),
    ],
    "loft": [
        Command("turn on the led strip", {"light.led_strip_kitchen": "on"}),
        Command("turn on the espresso machine", {"switch.espresso_machine": "on"}),
        Command("turn on the fan in the studio", {"fan.ceiling_fan_studio": "on"}),
        Command("run the roomba", {"vacuum.roomba_i7": "cleaning"}),
        Command(
            "add call the landlord to my to-do list", {"todo.todo_list": "+landlord"}
        ),
    ],
    "family": [
        Command("turn on the night light", {"light.kids_room_night_light": "on"}),
        Command(
            "close the shutter in the kids room", {"cover.kids_room_shutter": "closed"}
        ),
        Command("turn on the baby monitor", {"switch.baby_monitor": "on"}),
        Command("water the front yard", {"switch.front_sprinklers": "on"}),
        Command("add glue sticks to the school list", {"todo.school_stuff": "+glue"}),
    ],
    "duplex": [
        Command("turn on the light in the garage", {"light.garage_strip": "on"}),
        Command("open the main garage door", {"cover.garage_main": "open"}),
        Command("open the awning", {"cover.patio_awning": "open"}),
        Command("lock the patio door", {"lock.patio_door": "locked"}),
        Command("vacuum downstairs", {"vacuum.shark": "cleaning"}),
    ],
}
