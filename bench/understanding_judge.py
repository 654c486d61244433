"""How bench/local_understanding.py judges a command: the calls made, what they carry.

The bench's entities are bare states: each obeys a call at once (NEW_STATE,
ATTRIBUTE_OF), so what checks the house after a command sees it done.
"""

from typing import Any

from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.core import Event, HomeAssistant, callback

# The service each expected state is reached by.
SERVICES = {
    "on": {"turn_on"},
    "off": {"turn_off"},
    "cleaning": {"start"},
    "returning": {"return_to_base", "stop"},
    "open": {"open_valve", "open_cover"},
    "closed": {"close_valve", "close_cover"},
    "locked": {"lock"},
    "unlocked": {"unlock"},
    "paused": {"media_pause"},
    "playing": {"media_play"},
    "next": {"media_next_track"},
    "muted": {"volume_mute"},
}
# The state a bare entity takes when told (bench devices obey at once).
NEW_STATE = {
    "turn_on": "on",
    "turn_off": "off",
    "start": "cleaning",
    "return_to_base": "returning",
    "stop": "idle",
    "open_cover": "open",
    "close_cover": "closed",
    "open_valve": "open",
    "close_valve": "closed",
    "lock": "locked",
    "unlock": "unlocked",
    "media_pause": "paused",
    "media_play": "playing",
    "media_stop": "idle",
}
ATTRIBUTE_OF = {
    "rgb_color": "rgb_color",
    "position": "current_position",
    "volume_level": "volume_level",
    "is_volume_muted": "is_volume_muted",
}
# What a call must carry, by the kind of value expected ("brightness:50").
CARRIED = {
    "brightness": ("turn_on", "brightness_pct"),
    "color": ("turn_on", "color_name"),
    "position": ("set_cover_position", "position"),
    "volume": ("volume_set", "volume_level"),
}


class Calls:
    """The service calls made to entities, as (service, entity id, data)."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Listen to every service call."""
        self.hass = hass
        self.made: list[tuple[str, str, dict[str, Any]]] = []
        hass.bus.async_listen(EVENT_CALL_SERVICE, self._heard)

    @callback
    def _heard(self, event: Event) -> None:
        data = event.data.get("service_data") or {}
        targets = data.get("entity_id") or []
        service = str(event.data["service"])
        for entity_id in [targets] if isinstance(targets, str) else targets:
            self.made.append((service, str(entity_id), dict(data)))
            self._obey(service, str(entity_id), data)

    def _obey(self, service: str, entity_id: str, data: dict[str, Any]) -> None:
        """The device does what it is told, at once (the entities are bare states)."""
        if (current := self.hass.states.get(entity_id)) is None:
            return
        attributes = dict(current.attributes)
        for field, attribute in ATTRIBUTE_OF.items():
            if field in data:
                attributes[attribute] = data[field]
        if "brightness_pct" in data:
            attributes["brightness"] = round(data["brightness_pct"] * 255 / 100)
        state = NEW_STATE.get(service, current.state)
        if service == "set_cover_position":
            state = "open" if data.get("position") else "closed"
        self.hass.states.async_set(entity_id, state, attributes)


def carries(want: str, calls: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether a call to the entity does what the expected value says."""
    kind, _, value = want.partition(":")
    if kind == "muted":
        return any(s == "volume_mute" and d.get("is_volume_muted") for s, d in calls)
    if kind not in CARRIED:
        return any(service in SERVICES[want] for service, _data in calls)
    service, field = CARRIED[kind]
    for made, data in calls:
        if made != service:
            continue
        carried = data.get(field)
        if kind == "color":
            if carried == value or data.get("rgb_color") in ([255, 0, 0], (255, 0, 0)):
                return True
        elif kind == "brightness" and carried is None and "brightness" in data:
            if round(data["brightness"] * 100 / 255) == int(value) or (
                int(value) == 1 and data["brightness"] <= 3
            ):
                return True
        elif kind == "volume" and carried is not None:
            if abs(float(carried) - int(value) / 100) < 0.01:
                return True
        elif carried is not None and int(carried) == int(value):
            return True
    return False
