"""What a script, scene, automation or button does: its effects one step removed.

Read from what Home Assistant already knows: a script's or automation's actions (their
targets resolved as HA resolves them, templates rendered with the call's variables), a
scene's target states, the automations a button's press triggers, the risky entities on
a button's own device, and a button whose name says it opens a door or gate.
"""

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
import re
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.exceptions import TemplateError
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.group import expand_entity_ids
from homeassistant.helpers.target import (
    TargetSelection,
    async_extract_referenced_entity_ids,
)
from homeassistant.helpers.template import Template

# The service of a tool we cannot resolve (another integration's): on a lock, an alarm
# panel, a door-like cover or a valve it may be anything, so it is asked about.
UNKNOWN_SERVICE = "unknown"


@dataclass(frozen=True, slots=True)
class Effect:
    """One service Home Assistant would call on one entity."""

    entity_id: str
    domain: str
    service: str
    data: Mapping[str, Any]


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


# What runs each kind of runnable (HassTurnOn on a button presses it).
RUNS = {
    "script": frozenset({"turn_on", "toggle"}),
    "scene": frozenset({"turn_on"}),
    "automation": frozenset({"trigger"}),
    "button": frozenset({"press", "turn_on"}),
    "input_button": frozenset({"press", "turn_on"}),
}
# The service that runs each (a Repair asks what running one would do).
RUN_SERVICE = {
    "script": "turn_on",
    "scene": "turn_on",
    "automation": "trigger",
    "button": "press",
    "input_button": "press",
}
BUTTONS = frozenset({"button", "input_button"})
# A button named like this opens something that lets people in (en, de, nl).
OPENER_NAME = re.compile(
    r"garage|gate|door|opener|tor\b|tür|tuer|öffner|oeffner|deur|poort|hek",
    re.IGNORECASE,
)
# Pressing a button so named: the button itself is the risky effect.
PRESS_OPENER = "press_opener"
# Domains whose entities on a button's device make the button risky.
RISKY_DOMAINS = frozenset({"lock", "alarm_control_panel", "valve", "cover"})
# A device action's type, as the service it calls (device_automation action types).
_DEVICE_ACTIONS = {
    ("lock", "unlock"): "unlock",
    ("lock", "open"): "open",
    ("cover", "open"): "open_cover",
    ("cover", "set_position"): "set_cover_position",
    ("valve", "open"): "open_valve",
    ("valve", "set_position"): "set_valve_position",
    ("alarm_control_panel", "disarm"): "alarm_disarm",
}
# A scene's target state, as the service that reaches it.
_SCENE_STATES = {
    ("lock", "unlocked"): "unlock",
    ("lock", "open"): "open",
    ("cover", "open"): "open_cover",
    ("valve", "open"): "open_valve",
    ("alarm_control_panel", "disarmed"): "alarm_disarm",
}
_TARGET_KEYS = ("entity_id", "device_id", "area_id", "floor_id", "label_id")


def runs(effect: Effect) -> bool:
    """Whether an effect runs a script, scene, automation or button."""
    return effect.service in RUNS.get(effect.domain, ())


def action_effects(
    hass: HomeAssistant, actions: Any, variables: Mapping[str, Any]
) -> list[Effect]:
    """What a sequence of actions does (raw or validated, as a `Script` keeps it)."""
    return list(_actions(hass, _source(actions), variables))


def _source(value: Any) -> Any:
    """Validated actions as written: each `Template` back to its text."""
    if isinstance(value, Template):
        return value.template
    if isinstance(value, Mapping):
        return {key: _source(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_source(item) for item in value]
    return value


def runnable_effects(hass: HomeAssistant, effect: Effect) -> list[Effect]:
    """What running a runnable does, as far as Home Assistant can tell."""
    entity = _entity(hass, effect.domain, effect.entity_id)
    if effect.domain == "script":
        config = getattr(entity, "raw_config", None) or {}
        variables = effect.data.get("variables")
        return list(
            _actions(
                hass,
                config.get("sequence"),
                variables if isinstance(variables, Mapping) else {},
            )
        )
    if effect.domain == "automation":
        # A sentence trigger's run hands its actions `trigger` (sentence, slots).
        variables = effect.data.get("variables")
        return list(
            _actions(
                hass,
                _automation_actions(entity),
                variables if isinstance(variables, Mapping) else {},
            )
        )
    if effect.domain == "scene":
        return _scene_effects(entity)
    if effect.domain in BUTTONS:
        return _button_effects(hass, effect.entity_id)
    return []


def _entity(hass: HomeAssistant, domain: str, entity_id: str) -> Any:
    component = hass.data.get(domain)
    get_entity = getattr(component, "get_entity", None)
    return get_entity(entity_id) if get_entity is not None else None


def _automation_actions(entity: Any) -> Any:
    config = getattr(entity, "raw_config", None) or {}
    return config.get("actions", config.get("action"))


def _scene_effects(entity: Any) -> list[Effect]:
    """A Home Assistant scene's target states, as the services that reach them."""
    states = getattr(getattr(entity, "scene_config", None), "states", None) or {}
    effects = []
    for entity_id, state in states.items():
        domain = entity_id.split(".", 1)[0]
        value = str(getattr(state, "state", "")).lower()
        attributes = getattr(state, "attributes", {}) or {}
        service = _SCENE_STATES.get((domain, value))
        if service is None and domain in ("cover", "valve"):
            if "position" in attributes or "current_position" in attributes:
                service = f"set_{domain}_position"
        if service is None:
            service = {"on": "turn_on", "off": "turn_off"}.get(value, UNKNOWN_SERVICE)
        effects.append(Effect(entity_id, domain, service, dict(attributes)))
    return effects


def _button_effects(hass: HomeAssistant, entity_id: str) -> list[Effect]:
    """What pressing a button sets off: automations, its device, what it says it opens."""
    effects: list[Effect] = []
    state = hass.states.get(entity_id)
    entry = er.async_get(hass).async_get(entity_id)
    names = [state.name if state else "", entity_id]
    if entry is not None:
        names += [entry.original_name or "", entry.name or "", *map(str, entry.aliases)]
    if any(OPENER_NAME.search(name) for name in names if name):
        effects.append(Effect(entity_id, entity_id.split(".", 1)[0], PRESS_OPENER, {}))
    if entry is not None and entry.device_id:
        # A button of a garage door opener, a smart lock…: it may do anything to them.
        effects.extend(
            Effect(other.entity_id, other.domain, UNKNOWN_SERVICE, {})
            for other in er.async_entries_for_device(
                er.async_get(hass), entry.device_id
            )
            if other.domain in RISKY_DOMAINS
        )
    automations = hass.data.get("automation")
    for automation in getattr(automations, "entities", ()):
        config = getattr(automation, "raw_config", None) or {}
        triggers = config.get("triggers", config.get("trigger"))
        if entity_id in _strings(triggers):
            effects.append(Effect(automation.entity_id, "automation", "trigger", {}))
    return effects


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield from (part.strip().lower() for part in value.split(","))


def _actions(
    hass: HomeAssistant, config: Any, variables: Mapping[str, Any]
) -> Iterator[Effect]:
    """The service calls in a sequence of actions, nested ones included."""
    if isinstance(config, list | tuple):
        for item in config:
            yield from _actions(hass, item, variables)
        return
    if not isinstance(config, Mapping):
        return
    action = config.get("action", config.get("service"))
    if isinstance(action, str):
        yield from _service_action(hass, config, action, variables)
    elif (
        not {"condition", "trigger", "platform"} & config.keys()
        and isinstance(domain := config.get("domain"), str)
        and isinstance(kind := config.get("type"), str)
        and isinstance(entity_ref := config.get("entity_id"), str)
    ):
        # A device action: {"device_id", "domain": "lock", "type": "unlock", …}
        entity_id = er.async_resolve_entity_id(er.async_get(hass), entity_ref)
        if entity_id:
            service = _DEVICE_ACTIONS.get((domain, kind), kind)
            yield Effect(entity_id, domain, service, {})
    for key, value in config.items():
        if key not in ("target", "data", "data_template", "entity_id", "variables"):
            if isinstance(value, list | tuple | Mapping):
                yield from _actions(hass, value, variables)


def _service_action(
    hass: HomeAssistant,
    config: Mapping[str, Any],
    action: str,
    variables: Mapping[str, Any],
) -> Iterator[Effect]:
    rendered = _render(hass, action, variables)
    domain, _, service = (rendered or "").strip().lower().partition(".")
    if rendered is None or not service:
        # A template we cannot read: it may do anything to its targets.
        domain, service = "homeassistant", UNKNOWN_SERVICE
    data = config.get("data", config.get("data_template")) or {}
    data = data if isinstance(data, Mapping) else {}
    target: dict[str, list[str]] = {}
    for source in (config, config.get("target") or {}, data):
        if not isinstance(source, Mapping):
            continue
        for key in _TARGET_KEYS:
            for ref in _refs(hass, source.get(key), variables):
                target.setdefault(key, []).append(ref)
    if domain == "script" and service not in RUNS["script"] | {"turn_off"}:
        # script.<name> runs that script.
        yield Effect(f"script.{service}", "script", "turn_on", {"variables": data})
        return
    selected = async_extract_referenced_entity_ids(
        hass, TargetSelection(target), expand_group=False
    )
    entity_ids = expand_entity_ids(
        hass, selected.referenced | selected.indirectly_referenced
    )
    if domain == "script":
        data = {"variables": data.get("variables", data)}
    yield from service_effects(sorted(entity_ids), domain, service, data)


def _refs(hass: HomeAssistant, value: Any, variables: Mapping[str, Any]) -> list[str]:
    """Ids in a target field, templates rendered with the call's variables."""
    if isinstance(value, list | tuple):
        return [ref for item in value for ref in _refs(hass, item, variables)]
    if not isinstance(value, str):
        return []
    rendered = _render(hass, value, variables)
    if rendered is None:
        return []
    # A template may give a list ("{{ targets.entities }}"): read as its items.
    parts = (part.strip().strip("[]()'\" ").lower() for part in rendered.split(","))
    refs = [part for part in parts if part]
    registry = er.async_get(hass)
    return [er.async_resolve_entity_id(registry, ref) or ref for ref in refs]


def _render(hass: HomeAssistant, text: str, variables: Mapping[str, Any]) -> str | None:
    if "{" not in text:
        return text
    try:
        rendered = Template(text, hass).async_render(
            dict(variables), parse_result=False
        )
    except TemplateError, TypeError, ValueError:
        return None
    return str(rendered)
