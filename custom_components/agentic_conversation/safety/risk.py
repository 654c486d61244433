"""Which actions are risky: what a misheard sentence must never do without a "yes".

Risky by default: unlocking or opening a lock, disarming an alarm panel, opening a
cover of device class garage, gate or door, opening a valve; plus any action on the
entities the user lists for an agent; and running a script, scene, automation,
button or custom intent (intent_script) that sets off any of these (locking, closing
and arming stay free). Decided on
what Home Assistant would finally do to each entity (an intent's `HassTurnOff` on a
lock is an unlock), never on words.
"""

from collections.abc import Collection, Mapping
from enum import StrEnum
from typing import Any

from homeassistant.const import ATTR_DEVICE_CLASS
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm

from .effects import PRESS_OPENER, UNKNOWN_SERVICE, Effect, runnable_effects, runs
from .intent_actions import handler_effects

# Covers that let people in.
OPENING_COVER_CLASSES = frozenset({"garage", "gate", "door"})
_POSITION_KEYS = ("position", "current_position")
# Intents whose action on an entity is a plain service of the entity's own domain;
# locks, covers and valves have their own words for on and off.
_ON_OFF = {
    "lock": ("lock", "unlock"),
    "cover": ("open_cover", "close_cover"),
    "valve": ("open_valve", "close_valve"),
}
_SET_POSITION = {"cover": "set_cover_position", "valve": "set_valve_position"}


class RiskKind(StrEnum):
    """What a risky action does, in words the user is asked about."""

    UNLOCK = "unlock"
    OPEN = "open"
    DISARM = "disarm"
    TURN_ON = "turn_on"
    TURN_OFF = "turn_off"
    OTHER = "other"
    # A script, scene, automation or button that sets off a risky action.
    RUN = "run"
    ACTIVATE = "activate"
    PRESS = "press"


RUNNABLE_KINDS = {
    "script": RiskKind.RUN,
    "automation": RiskKind.RUN,
    "scene": RiskKind.ACTIVATE,
    "button": RiskKind.PRESS,
    "input_button": RiskKind.PRESS,
}
# How deep scripts that run scripts (that activate scenes…) are followed.
_MAX_DEPTH = 8


def risk_of(
    hass: HomeAssistant, effect: Effect, ask_before: Collection[str]
) -> RiskKind | None:
    """How an effect is risky, or None when it may run at once.

    Running a script, scene, automation or button is as risky as what it sets off.
    """
    if runs(effect) and risks_behind(hass, effect, ask_before):
        return RUNNABLE_KINDS[effect.domain]
    return _direct_risk(hass, effect, ask_before)


def risks_behind(
    hass: HomeAssistant,
    effect: Effect,
    ask_before: Collection[str],
    _seen: tuple[str, ...] = (),
) -> list[tuple[Effect, RiskKind]]:
    """The risky effects a runnable sets off, through runnables it runs in turn."""
    if not runs(effect) or effect.entity_id in _seen or len(_seen) >= _MAX_DEPTH:
        return []
    seen = (*_seen, effect.entity_id)
    found: list[tuple[Effect, RiskKind]] = []
    for inner in runnable_effects(hass, effect):
        if inner.service == PRESS_OPENER:
            found.append((inner, RiskKind.OPEN))
        elif runs(inner):
            found.extend(risks_behind(hass, inner, ask_before, seen))
        elif (kind := _direct_risk(hass, inner, ask_before)) is not None:
            found.append((inner, kind))
    return found


def _direct_risk(
    hass: HomeAssistant, effect: Effect, ask_before: Collection[str]
) -> RiskKind | None:
    """How an effect on the entity itself is risky."""
    state = hass.states.get(effect.entity_id)
    domain = effect.entity_id.split(".", 1)[0]
    service = effect.service
    if domain == "lock" and service in ("unlock", "open"):
        return RiskKind.UNLOCK if service == "unlock" else RiskKind.OPEN
    if domain == "alarm_control_panel" and service == "alarm_disarm":
        return RiskKind.DISARM
    if _opens(domain, state, service, effect.data):
        return RiskKind.OPEN
    if service == UNKNOWN_SERVICE and (
        domain in ("lock", "alarm_control_panel", "valve")
        or _opens(domain, state, "open_cover", {})
    ):
        return RiskKind.OTHER
    if effect.entity_id in ask_before:
        if service in ("turn_on", "turn_off"):
            return RiskKind(service)
        return RiskKind.OTHER
    return None


def _opens(
    domain: str, state: State | None, service: str, data: Mapping[str, Any]
) -> bool:
    """Whether a cover that lets people in, or a valve, would open."""
    if domain == "cover":
        device_class = state.attributes.get(ATTR_DEVICE_CLASS) if state else None
        if device_class not in OPENING_COVER_CLASSES:
            return False
    elif domain != "valve":
        return False
    if service in ("open_cover", "open_valve", "toggle"):
        return True
    if service in _SET_POSITION.values():
        position = next((data[k] for k in _POSITION_KEYS if k in data), None)
        try:
            return position is None or float(position) > 0
        except TypeError, ValueError:
            return True  # HA will reject it, but never guess in favour of acting
    return False


def intent_effects(
    hass: HomeAssistant,
    intent_type: str,
    arguments: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> list[Effect]:
    """What an intent would do, resolved the way its handler resolves its targets.

    A service intent acts on its matched entities; a custom intent (intent_script…)
    does what its actions do, or, unread, what its name says (intent_actions.py);
    others (timers, states, the date) have no effects. A target HA would not match
    has no effects either: the intent then fails on its own.
    """
    handler = next(
        (h for h in intent.async_get(hass) if h.intent_type == intent_type), None
    )
    if handler is None:
        return []
    slots = {
        key: {"value": value}
        for key, value in arguments.items()
        if not intent.is_blank_slot_value(value)
    }
    try:
        slots = handler.async_validate_slots(slots)
    except Exception:  # noqa: BLE001 - HA rejects such arguments too; nothing acts
        return []
    if not isinstance(handler, intent.DynamicServiceIntentHandler):
        # An intent_script, another integration's intent: what its actions do.
        return handler_effects(hass, handler, slots, llm_context)
    name = slots.get("name", {}).get("value")
    domains = handler.required_domains
    if "domain" in slots:
        domains = set(slots["domain"]["value"])
    constraints = intent.MatchTargetsConstraints(
        name=None if name == "all" else name,
        area_name=slots.get("area", {}).get("value"),
        floor_name=slots.get("floor", {}).get("value"),
        domains=domains,
        device_classes=set(slots["device_class"]["value"])
        if "device_class" in slots
        else None,
        assistant=llm_context.assistant,
        features=handler.required_features,
        states=handler.required_states,
    )
    if not constraints.has_constraints:
        return []
    result = intent.async_match_targets(
        hass, constraints, llm.async_get_match_preferences(hass, llm_context)
    )
    if not result.is_match:
        return []
    data = {key: slot["value"] for key, slot in slots.items()}
    return [
        Effect(
            state.entity_id,
            state.domain,
            _intent_service(intent_type, handler, state.domain),
            data,
        )
        for state in result.states
    ]


def _intent_service(
    intent_type: str, handler: intent.DynamicServiceIntentHandler, domain: str
) -> str:
    """The service an intent calls on an entity of a domain."""
    if intent_type in (intent.INTENT_TURN_ON, intent.INTENT_TURN_OFF):
        if domain in ("button", "input_button"):
            return "press"  # HassTurnOn presses a button
        on, off = _ON_OFF.get(domain, ("turn_on", "turn_off"))
        return on if intent_type == intent.INTENT_TURN_ON else off
    if intent_type == intent.INTENT_TOGGLE:
        return "toggle"
    if intent_type == intent.INTENT_SET_POSITION and domain in _SET_POSITION:
        return _SET_POSITION[domain]
    service = getattr(handler, "service", None)
    return service if isinstance(service, str) else UNKNOWN_SERVICE
