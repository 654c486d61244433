"""What a custom intent does: its handler's actions, or what its name says it does.

An `intent_script` (or any handler that keeps its actions as a `Script`, a list of
actions or one action) is read like a script: its actions, their targets rendered with
the slots the handler gives them (the matched `targets` too), so one that unlocks the
front door is asked about and one that turns on a light runs at once. A handler whose
actions cannot be read is judged by its name and description: one that says it
unlocks, opens or disarms may do it to any exposed lock, door-like cover, valve or
alarm panel, so in a home with one it is asked about (never run unasked on a guess).
"""

from collections.abc import Mapping
import re
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import ATTR_DEVICE_CLASS
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm, script

from .effects import UNKNOWN_SERVICE, Effect, action_effects

# What a handler may keep its actions under (intent_script: config["action"]).
_ACTION_KEYS = ("action", "actions", "sequence", "script")
# An intent named or described like this may let people in, in the languages we
# speak: unlock, open, disarm (and their stems: öffne, ouvre, abre, apri, otwórz…).
OPENER_WORDS = re.compile(
    r"unlock|open|disarm|unbolt|"
    r"entriegel|entsperr|aufschlie|aufsperr|öffne|oeffne|unscharf|"
    r"ontgrendel|ontsluit|openen|uitschakel|"
    r"ouvr|déverrouill|deverrouill|désarm|desarm|"
    r"abr[aei]|desbloque|destranc|"
    r"sblocc|apri|disinnesc|"
    r"otw[oó]r|otwier|odblok|odrygl|rozbr|"
    r"otev[rř]|otvír|otevír|odemk|odemyk|odjist|"
    r"откр|отпер|отпир|отомкн|разблок|снять с охран|сними с охран|"
    r"відчин|відкр|відімк|відмик|розблок|"
    r"lås upp|låsa upp|lås op|låse op|åpne|åbn|öppna|avaa|avata|aukaise",
    re.IGNORECASE,
)
# Covers that let people in (risk.OPENING_COVER_CLASSES; kept apart to avoid a cycle).
_OPENING_COVERS = frozenset({"garage", "gate", "door"})
_RISKY_DOMAINS = ("lock", "alarm_control_panel", "valve")


def handler_effects(
    hass: HomeAssistant,
    handler: intent.IntentHandler,
    slots: dict[str, Any],
    llm_context: llm.LLMContext,
) -> list[Effect]:
    """What a handler that is not a plain service intent would do with these slots."""
    actions = readable_actions(handler)
    if actions is None:
        return _by_its_name(hass, handler)
    if not actions:
        return []
    variables: dict[str, Any] = {key: slot["value"] for key, slot in slots.items()}
    if targets := _targets(hass, variables, llm_context):
        variables["targets"] = targets
    return action_effects(hass, actions, variables)


def readable_actions(handler: intent.IntentHandler) -> list[Any] | None:
    """The actions a handler runs, or None when it does not show them.

    An intent_script keeps its configuration (its actions, once loaded, as a
    `Script`); one without actions only speaks.
    """
    config = getattr(handler, "config", None)
    places: list[Any] = []
    if isinstance(config, Mapping):
        places += [config.get(key) for key in _ACTION_KEYS]
    places += [getattr(handler, key, None) for key in _ACTION_KEYS]
    for found in places:
        if isinstance(found, script.Script):
            return list(found.sequence)
        if isinstance(found, list | tuple) and all(
            isinstance(item, Mapping) for item in found
        ):
            return list(found)
        if isinstance(found, Mapping) and ("action" in found or "service" in found):
            return [found]
    # A configured handler with none of them only answers (speech, a card).
    return [] if isinstance(config, Mapping) else None


def _targets(
    hass: HomeAssistant, variables: Mapping[str, Any], llm_context: llm.LLMContext
) -> dict[str, list[str]]:
    """The `targets` an intent_script hands its actions, matched as it matches them."""
    constraints = intent.MatchTargetsConstraints(
        name=variables.get("name"),
        area_name=variables.get("area"),
        floor_name=variables.get("floor"),
        domains=set(variables["domain"]) if "domain" in variables else None,
        device_classes=set(variables["device_class"])
        if "device_class" in variables
        else None,
        assistant=llm_context.assistant,
    )
    if not constraints.has_constraints:
        return {}
    try:
        result = intent.async_match_targets(
            hass, constraints, llm.async_get_match_preferences(hass, llm_context)
        )
    except Exception:  # noqa: BLE001 - HA fails such slots too; nothing more is known
        return {}
    if not result.is_match:
        return {}
    targets: dict[str, list[str]] = {}
    if result.states:
        targets["entities"] = [state.entity_id for state in result.states]
    if result.areas:
        targets["areas"] = [area.id for area in result.areas]
    if result.floors:
        targets["floors"] = [floor.floor_id for floor in result.floors]
    return targets


def _by_its_name(hass: HomeAssistant, handler: intent.IntentHandler) -> list[Effect]:
    """An unread handler that says it opens may do so to whatever could let people in."""
    said = f"{handler.intent_type} {getattr(handler, 'description', None) or ''}"
    if not OPENER_WORDS.search(said):
        return []
    return exposed_openers(hass)


def exposed_openers(hass: HomeAssistant) -> list[Effect]:
    """Anything done to each exposed lock, door-like cover, valve or alarm panel.

    In entity id order: the question names them the same way every time.
    """
    return [
        Effect(state.entity_id, state.domain, UNKNOWN_SERVICE, {})
        for state in sorted(hass.states.async_all(), key=lambda s: s.entity_id)
        if (
            state.domain in _RISKY_DOMAINS
            or (
                state.domain == "cover"
                and state.attributes.get(ATTR_DEVICE_CLASS) in _OPENING_COVERS
            )
        )
        and async_should_expose(hass, "conversation", state.entity_id)
    ]
