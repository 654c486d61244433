"""More of the public set for bench/local_understanding.py.

Every other category whose home it builds (the files: bench/understanding_homes.py).

Commands may carry a fourth field, the states set before each agent hears them
("entity=state,…", as the test's `setup` says); expected values beyond a new state
say what the service call must carry: brightness:N (percent), color:NAME,
position:N, volume:N (percent), muted, next.
"""

HOME7_DK: dict[str, object] = {
    "areas": {
        "living_room": "Living Room",
        "kitchen": "Kitchen",
        "bedroom_1": "Bedroom 1",
        "bedroom_2": "Bedroom 2",
        "rooftop_terrace": "Rooftop Terrace",
    },
    "floors": {},
    "entities": """
light.living_room_light|Living Room Light|living_room
climate.living_room_thermostat|Living Room Thermostat|living_room
cover.smart_curtain|Smart Curtain|living_room
light.kitchen_light|Kitchen Light|kitchen
switch.coffee_maker|Coffee Maker|kitchen
light.bedroom_1_light|Bedroom 1 Light|bedroom_1
climate.bedroom_1_thermostat|Bedroom 1 Thermostat|bedroom_1
light.bedroom_2_light|Bedroom 2 Light|bedroom_2
climate.bedroom_2_thermostat|Bedroom 2 Thermostat|bedroom_2
light.terrace_light|Terrace Light|rooftop_terrace
binary_sensor.terrace_motion_sensor|Terrace Motion Sensor|rooftop_terrace
media_player.outdoor_speakers|Outdoor Speakers|rooftop_terrace
""",
}
# Attributes an entity has beyond its domain's (bench/local_understanding.py STATES).
ATTRIBUTES: dict[str, dict[str, object]] = {
    # intents/en/light_HassLightSet.yaml sets the lamp up on, dimmed, in colour.
    "light.bedroom_lamp": {
        "supported_color_modes": ["rgb"],
        "color_mode": "rgb",
        "brightness": 102,
        "rgb_color": [0, 0, 255],
    },
    # home1-us/_fixtures.yaml: the garage door opener's cover is a garage door.
    "cover.garage_door_opener": {"device_class": "garage", "supported_features": 3},
    "cover.smart_curtain": {"device_class": "blind"},
}
# Light states set before a command (on, as each HassLightSet test's setup says).
_LAMP_ON = "light.bedroom_lamp=on"


def _many(home: str, expected: str, sentences: str, setup: str = "") -> list[str]:
    return [
        f"{home}|{line.strip()}|{expected}|{setup}"
        for line in sentences.strip().splitlines()
        if line.strip()
    ]


MORE_COMMANDS: list[str] = [
    # intents/en/light_HassLightSet.yaml
    *_many(
        "intents-en",
        "light.bedroom_lamp=brightness:50",
        """
        set the bedroom lamp brightness to 50%
        change the brightness of bedroom lamp to 50 percent
        set the bedroom lamp to 50% brightness
        change bedroom lamp to 50%
        brightness bedroom lamp 50%
        bedroom lamp brightness 50%
        bedroom lamp 50%
        turn bedroom lamp to 50%
        set the brightness in the bedroom to 50%
        change the brightness of bedroom to 50 percent
        set the bedroom brightness to 50%
        change the bedroom to 50% brightness
        set bedroom to 50%
        bedroom brightness 50%
        bedroom 50%
        turn bedroom to 50%
        set all the lights in the bedroom to 50%
        set the lights of the bedroom to 50% brightness
        """,
        _LAMP_ON,
    ),
    *_many(
        "intents-en",
        "light.bedroom_lamp=brightness:100",
        """
        set the bedroom lamp brightness to max
        change the brightness of bedroom lamp to the highest
        set the bedroom lamp to maximum brightness
        bedroom lamp to maximum brightness
        bedroom lamp maximum brightness
        set the brightness in the bedroom to max
        change the brightness of bedroom to the highest
        set the bedroom brightness to the max
        change the bedroom to maximum brightness
        bedroom to maximum brightness
        bedroom maximum brightness
        """,
        _LAMP_ON,
    ),
    *_many(
        "intents-en",
        "light.bedroom_lamp=brightness:1",
        """
        set the bedroom lamp brightness to the lowest
        change the brightness of bedroom lamp to lowest
        set the bedroom lamp to minimum brightness
        set the brightness in the bedroom to the lowest
        change the brightness of bedroom to lowest
        set the bedroom brightness to the minimum
        change the bedroom to minimum brightness
        """,
        _LAMP_ON,
    ),
    *_many(
        "intents-en",
        "light.bedroom_lamp=color:red",
        """
        set the bedroom lamp color to red
        change the bedroom lamp to red
        set bedroom lamp to red
        change the color of bedroom lamp to red
        set the color of the bedroom lamp to red
        bedroom lamp red
        Turn bedroom lamp red
        set the bedroom color to red
        change the color of the bedroom to red
        bedroom color red
        bedroom red
        set the color of all the lights in the bedroom to red
        """,
        _LAMP_ON,
    ),
    # intents/en/cover_HassSetPosition.yaml
    *_many(
        "intents-en",
        "cover.bedroom=position:50",
        "set bedroom curtain to 50%",
        "cover.bedroom=open",
    ),
    *_many(
        "intents-en",
        "cover.bedroom=position:50",
        """
        set the curtain in the bedroom to 50%
        open the curtains to 50% in the bedroom
        """,
        "cover.bedroom=closed",
    ),
    # home1-us/cover-garage.yaml ("Close the garage door" is listed twice: once here)
    *_many(
        "home1-us",
        "cover.garage_door_opener=closed",
        "Close the garage door",
        "cover.garage_door_opener=open",
    ),
    *_many(
        "home1-us",
        "cover.garage_door_opener=open",
        """
        Please open the garage door
        Open the garage door
        """,
        "cover.garage_door_opener=closed",
    ),
    # home1-us/smart-lock.yaml
    *_many(
        "home1-us",
        "lock.smart_lock=locked",
        """
        Lock smart lock
        Lock the front door lock
        Lock the entry lock
        Lock the smart lock
        """,
        "lock.smart_lock=unlocked",
    ),
    # The rear door lock is locked already (the fixture): locking it too is no change.
    *_many(
        "home1-us",
        "lock.smart_lock=locked,lock.rear_door_lock=locked",
        "Lock all the locks",
        "lock.smart_lock=unlocked",
    ),
    *_many(
        "home1-us",
        "lock.smart_lock=unlocked",
        """
        Unlock smart lock
        Unlock the entry lock
        Unlock the smart lock
        Unlock all the doors
        """,
        "lock.smart_lock=locked",
    ),
    # home7-dk/cover-curtain.yaml
    *_many(
        "home7-dk",
        "cover.smart_curtain=open",
        """
        Open the smart curtain
        Open the living room smart curtain
        Open the living room curtains
        """,
        "cover.smart_curtain=closed",
    ),
    *_many(
        "home7-dk",
        "cover.smart_curtain=closed",
        """
        Close the smart cutains
        Close the living room curtain
        Close the curtains
        """,
        "cover.smart_curtain=open",
    ),
    *_many(
        "home7-dk",
        "cover.smart_curtain=position:50",
        """
        Set the smart curtain to 50%
        Set the living room curtains to 50%
        """,
        "cover.smart_curtain=closed",
    ),
    # home7-dk/media-player.yaml
    *_many(
        "home7-dk",
        "media_player.outdoor_speakers=paused",
        """
        Pause Outdoor Speakers
        Pause the music
        Pause the music outside
        Pause the Rooftop Terrace music
        Stop the Outdoor Speakers
        Stop the music
        """,
        "media_player.outdoor_speakers=playing",
    ),
    *_many(
        "home7-dk",
        "media_player.outdoor_speakers=playing",
        """
        Resume Outdoor Speakers
        Resume playing the music
        Unpause the Outdoor Speakers
        Unpause the Rooftop Terrace music
        """,
        "media_player.outdoor_speakers=paused",
    ),
    *_many(
        "home7-dk",
        "media_player.outdoor_speakers=next",
        """
        Skip song on outdoor speakers
        Skip to the next track on the outdoor speakers
        Next song
        Skip to the next track
        """,
        "media_player.outdoor_speakers=playing",
    ),
    *_many(
        "home7-dk",
        "media_player.outdoor_speakers=volume:50",
        """
        Set outdoor speakers volume to 50%
        Turn the volume down to 50%
        """,
        "media_player.outdoor_speakers=playing",
    ),
    *_many(
        "home7-dk",
        "media_player.outdoor_speakers=muted",
        """
        Mute the outdoor speakers
        Mute the music
        """,
        "media_player.outdoor_speakers=playing",
    ),
]
