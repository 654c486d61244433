"""Which field of a service call an entity shows, and where: its state or an attribute.

Data only, read by `expected.py`: services that set one thing the entity reports.
"""

# (domain, service) → (the field it sets, the attribute that shows it).
SETTINGS = {
    ("fan", "set_preset_mode"): ("preset_mode", "preset_mode"),
    ("fan", "oscillate"): ("oscillating", "oscillating"),
    ("fan", "set_direction"): ("direction", "direction"),
    ("climate", "set_fan_mode"): ("fan_mode", "fan_mode"),
    ("climate", "set_preset_mode"): ("preset_mode", "preset_mode"),
    ("climate", "set_swing_mode"): ("swing_mode", "swing_mode"),
    ("humidifier", "set_mode"): ("mode", "mode"),
    ("media_player", "volume_mute"): ("is_volume_muted", "is_volume_muted"),
    ("media_player", "select_source"): ("source", "source"),
    ("media_player", "select_sound_mode"): ("sound_mode", "sound_mode"),
    ("media_player", "shuffle_set"): ("shuffle", "shuffle"),
    ("media_player", "repeat_set"): ("repeat", "repeat"),
}
# (domain, service) → (the field, the attribute showing it, how near it must be).
NUMBERS = {
    ("climate", "set_humidity"): ("humidity", "humidity", 0.5),
    ("humidifier", "set_humidity"): ("humidity", "humidity", 0.5),
    ("water_heater", "set_temperature"): ("temperature", "temperature", 0.05),
    ("cover", "set_cover_tilt_position"): (
        "tilt_position",
        "current_tilt_position",
        0,
    ),
}
# (domain, service) → the field whose value is the state it leaves.
STATE_SETTERS = {
    ("input_number", "set_value"): "value",
    ("number", "set_value"): "value",
    ("input_text", "set_value"): "value",
    ("text", "set_value"): "value",
    ("input_select", "select_option"): "option",
    ("select", "select_option"): "option",
    ("climate", "set_hvac_mode"): "hvac_mode",
    ("water_heater", "set_operation_mode"): "operation_mode",
}
TILTS = {("cover", "open_cover_tilt"): 100, ("cover", "close_cover_tilt"): 0}
BOOLEANS = frozenset({"is_volume_muted", "oscillating", "shuffle"})
ARMED = {
    "alarm_arm_away": "armed_away",
    "alarm_arm_home": "armed_home",
    "alarm_arm_night": "armed_night",
    "alarm_arm_vacation": "armed_vacation",
    "alarm_arm_custom_bypass": "armed_custom_bypass",
}
