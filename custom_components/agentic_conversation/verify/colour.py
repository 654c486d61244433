"""A light's colour and colour temperature: what a call asks for, and what it shows.

A colour is compared as hue and saturation: every colour mode reports `hs_color`,
and a bulb clips a colour to its gamut and rounds it, so "near" is generous (red is
told from green or blue, not from orange): it tells a colour taken from one kept. A
white is any white the light makes, a colour temperature too. A colour temperature
is compared within the light's own range (asked 7000 K, a light that goes to 6500 K
shows 6500 K).
"""

from collections.abc import Mapping
from typing import Any

from homeassistant.util import color as color_util

COLOUR_KEYS = frozenset({"color_name", "rgb_color", "hs_color", "xy_color"})
"""A light's turn_on fields that ask for a colour."""

# A light's colour or colour temperature asked, and whether the light shows it.
# Degrees of hue and points of saturation (0-100) a shown colour may be off by: an
# early Hue bulb (gamut B) shows "green" at a hue of 66, saturation 74. Near enough
# to tell a colour taken from one kept (a blue asked for red is 120 degrees away).
_HUE_SLACK = 60.0
_SATURATION_SLACK = 35.0
# At most this saturation a colour asked is a white; a white shown, at most _PALE.
_WHITE = 20.0
_PALE = 30.0
_WHITE_MODES = frozenset({"color_temp", "white"})
# Kelvin a colour temperature may be off by, as a share of it (mireds are rounded).
_KELVIN_SLACK = 0.05


def asked_colour(data: Mapping[str, Any]) -> tuple[float, float] | None:
    """The (hue, saturation) a light's turn_on asks for, if it asks for a colour."""
    try:
        if (name := data.get("color_name")) is not None:
            return color_util.color_RGB_to_hs(*color_util.color_name_to_rgb(str(name)))
        if (rgb := _numbers(data.get("rgb_color"), 3)) is not None:
            return color_util.color_RGB_to_hs(*rgb)
        if (hs := _numbers(data.get("hs_color"), 2)) is not None:
            return hs[0], hs[1]
        if (xy := _numbers(data.get("xy_color"), 2)) is not None:
            return color_util.color_xy_to_hs(xy[0], xy[1])
    except ValueError, TypeError, ZeroDivisionError:
        return None  # HA rejects it too: nothing to see
    return None


def shows_colour(attributes: Mapping[str, Any], hue: float, saturation: float) -> bool:
    """Whether a light's state shows the colour (hue, saturation), near enough."""
    shown = _numbers(attributes.get("hs_color"), 2)
    if saturation <= _WHITE:
        if attributes.get("color_mode") in _WHITE_MODES:
            return True
        return shown is not None and shown[1] <= _PALE
    if shown is None:
        return False
    apart = abs(shown[0] - hue) % 360
    return (
        min(apart, 360 - apart) <= _HUE_SLACK
        and abs(shown[1] - saturation) <= _SATURATION_SLACK
    )


def shows_kelvin(attributes: Mapping[str, Any], kelvin: float) -> bool:
    """Whether a light shows the colour temperature, within the light's range."""
    shown = attributes.get("color_temp_kelvin")
    if isinstance(shown, bool) or not isinstance(shown, int | float):
        return False
    low, high = (
        attributes.get("min_color_temp_kelvin"),
        attributes.get("max_color_temp_kelvin"),
    )
    if isinstance(low, int | float) and not isinstance(low, bool):
        kelvin = max(kelvin, low)
    if isinstance(high, int | float) and not isinstance(high, bool):
        kelvin = min(kelvin, high)
    return abs(shown - kelvin) <= kelvin * _KELVIN_SLACK


def _numbers(value: Any, count: int) -> list[float] | None:
    """`count` numbers (a list or tuple of them), or None."""
    if not isinstance(value, list | tuple) or len(value) != count:
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return None
    return [float(v) for v in value]
