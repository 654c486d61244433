"""Which actions are risky: what a misheard sentence must never do without a "yes".

Risky by default: unlocking or opening a lock, disarming an alarm panel, opening a
cover of device class garage, gate or door, opening a valve; plus any action on the
entities the user lists for an agent. Decided on what Home Assistant would finally do
to each entity (an intent's `HassTurnOff` on a lock is an unlock), never on words.
"""

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from homeassistant.const import ATTR_DEVICE_CLASS
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import intent, llm

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
# The service of a tool we cannot resolve (another integration's): on a lock, an alarm
# panel, a door-like cover or a valve it may be anything, so it is asked about.
UNKNOWN_SERVICE = "unknown"


class RiskKind(StrEnum):
    """What a risky action does, in words the user is asked about."""

    UNLOCK = "unlock"
    OPEN = "open"
    DISARM = "disarm"
    TURN_ON = "turn_on"
    TURN_OFF = "turn_off"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Effect:
    """One service Home Assistant would call on one entity."""

    entity_id: str
    domain: str
    service: str
    data: Mapping[str, Any]


def risk_of(
    hass: HomeAssistant, effect: Effect, ask_before: Collection[str]
) -> RiskKind | None:
    """How an effect is risky, or None when it may run at once."""
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


def service_effects(
    entity_ids: Iterable[str], domain: str, service: str, data: Mapping[str, Any]
) -> list[Effect]:
    """The effects of a service call on entities (`homeassistant.*` per domain)."""
    effects = []
    for entity_id in entity_ids:
        entity_domain = entity_id.split(".", 1)[0]
        own = domain if domain != "homeassistant" else entity_domain
        effects.append(Effect(entity_id, own, service, data))
    return effects


def intent_effects(
    hass: HomeAssistant,
    intent_type: str,
    arguments: Mapping[str, Any],
    llm_context: llm.LLMContext,
) -> list[Effect]:
    """What an intent would do, resolved the way its handler resolves its targets.

    Only intents that call services on matched entities act; others (timers, states,
    the date) have no effects. A target HA would not match has no effects either: the
    intent then fails on its own.
    """
    handler = next(
        (h for h in intent.async_get(hass) if h.intent_type == intent_type), None
    )
    if not isinstance(handler, intent.DynamicServiceIntentHandler):
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
        on, off = _ON_OFF.get(domain, ("turn_on", "turn_off"))
        return on if intent_type == intent.INTENT_TURN_ON else off
    if intent_type == intent.INTENT_TOGGLE:
        return "toggle"
    if intent_type == intent.INTENT_SET_POSITION and domain in _SET_POSITION:
        return _SET_POSITION[domain]
    service = getattr(handler, "service", None)
    return service if isinstance(service, str) else UNKNOWN_SERVICE
