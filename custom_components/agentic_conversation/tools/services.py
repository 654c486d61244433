"""`call_service`: act on exposed entities, within the agent's allow-list.

Exposure is a hard boundary. `resolve_call` turns whatever the model sent into the
exposed entity ids Home Assistant will finally act on, or refuses; `run_call` then calls
the service with those ids only, so no area, device, floor, label, group or data field
can carry the call to an entity the user did not expose.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
import re
from typing import Any

import probatio

from homeassistant.const import (
    ATTR_AREA_ID,
    ATTR_DEVICE_ID,
    ATTR_ENTITY_ID,
    ATTR_FLOOR_ID,
    ATTR_LABEL_ID,
    ENTITY_MATCH_ALL,
    ENTITY_MATCH_NONE,
)
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import config_validation as cv, llm
from homeassistant.helpers.group import expand_entity_ids
from homeassistant.helpers.service import (
    async_get_all_descriptions,
    async_get_cached_service_description,
)
from homeassistant.helpers.target import (
    TargetSelection,
    async_extract_referenced_entity_ids,
)

from ..const import DOMAIN, TOOL_CALL_SERVICE
from ..safety.confirmation import HELD_MESSAGE, gate_refuses
from ..safety.effects import service_effects
from ..tool_options import gate_of, tool_options_of
from .entities import describe_entity, entity_refs, is_exposed, resolve_entity_ref
from .errors import refuse

TARGET_KEYS = (
    ATTR_ENTITY_ID,
    ATTR_DEVICE_ID,
    ATTR_AREA_ID,
    ATTR_FLOOR_ID,
    ATTR_LABEL_ID,
)
# Services that act on any domain's entities; of them only these act on their target
# alone (restart, reload_all, update_entity… act on Home Assistant or whole entries).
_CROSS_DOMAIN = "homeassistant"
_TARGETED_ONLY = frozenset({"turn_on", "turn_off", "toggle"})
# Field selectors that name devices or places: those belong in target.
_ID_SELECTORS = frozenset({"target", "device", "area", "floor", "label"})
_ENTITY_ID_IN_TEXT = re.compile(r"\b[a-z][a-z0-9_]*\.[a-z0-9_]+\b")
_ID_LIST = probatio.All(cv.ensure_list, [str])
TARGET_SCHEMA = probatio.Schema(
    {probatio.Optional(key): _ID_LIST for key in TARGET_KEYS}
)
SOME_UNAVAILABLE = (
    "Some devices there are not available to the assistant; they were left as they "
    "were."
)
_FIND_IDS = "Use search_entities to find entity ids."


def is_allowed(patterns: tuple[str, ...], domain: str, service: str) -> bool:
    """Whether `domain.service` is on the allow-list (patterns like `light`, `input_*`)."""
    return any(
        fnmatchcase(domain, pattern) or fnmatchcase(f"{domain}.{service}", pattern)
        for pattern in patterns
    )


@dataclass(frozen=True, slots=True)
class ResolvedCall:
    """A service call checked against exposure: what Home Assistant will act on."""

    domain: str
    service: str
    entity_ids: tuple[str, ...]  # exposed, final: groups already expanded
    data: dict[str, Any]  # the service's own fields, no target keys
    some_unavailable: bool  # the target held entities the assistant may not control


async def resolve_call(
    hass: HomeAssistant,
    llm_context: llm.LLMContext,
    domain: str,
    service: str,
    *,
    target: Any,
    data: Any,
) -> ResolvedCall | llm.ToolResult:
    """The exposed entities a call acts on, or an error result saying why not.

    Nothing here changes anything; an error result never names or describes an
    entity that is not exposed (one named explicitly is reported as unknown).
    """
    domain = str(domain).strip().lower()
    service = str(service).strip().lower()
    allowed = tool_options_of(llm_context).allowed_services
    if not is_allowed(allowed, domain, service):
        return refuse(
            f"{domain}.{service} is not allowed for this assistant.",
            allowed=list(allowed),
        )
    # Before looking the service up, so that script.<name> tells nothing of <name>.
    if (refused := _refuse_service(domain, service)) is not None:
        return refused
    if not hass.services.has_service(domain, service):
        return refuse(f"There is no action {domain}.{service}.")
    description = await _description(hass, domain, service)
    if "target" not in description:
        return refuse(
            f"{domain}.{service} does not act on a target of devices, so the "
            "assistant may not call it."
        )
    if not isinstance(data, dict):
        return refuse("data must be an object of the action's fields.")
    if (refused := _refuse_data(hass, data, description)) is not None:
        return refused
    try:
        target = _normalize(TARGET_SCHEMA(target if target is not None else {}))
    except probatio.Invalid as err:
        return refuse(
            f"Invalid target: {err}. Give lists of ids under "
            + ", ".join(TARGET_KEYS)
            + "."
        )
    if any(
        i in (ENTITY_MATCH_ALL, ENTITY_MATCH_NONE)
        for ids in target.values()
        for i in ids
    ):
        return refuse(
            "'all' and 'none' are not targets: name the entities, areas, floors or "
            "labels to act on.",
            hint=_FIND_IDS,
        )
    if not any(target.values()):
        return refuse(
            "No target: give entity_id, area_id, floor_id, label_id or device_id in "
            "target.",
            hint=_FIND_IDS,
        )
    return _resolve_target(hass, allowed, domain, service, target=target, data=data)


async def run_call(
    hass: HomeAssistant, llm_context: llm.LLMContext, call: ResolvedCall
) -> llm.ToolResult:
    """Make a resolved call; returns the new states of its entities."""
    try:
        await hass.services.async_call(
            call.domain,
            call.service,
            {**call.data, ATTR_ENTITY_ID: list(call.entity_ids)},
            blocking=True,
            context=llm_context.context,
        )
    except probatio.Invalid as err:
        return refuse(
            f"Invalid data for {call.domain}.{call.service}: {_scrub(hass, str(err))}"
        )
    except HomeAssistantError as err:
        return refuse(f"{call.domain}.{call.service} failed: {_scrub(hass, str(err))}")
    data: dict[str, Any] = {
        "success": True,
        "states": [
            describe_entity(hass, state)
            for entity_id in call.entity_ids
            if (state := hass.states.get(entity_id)) is not None
        ],
    }
    if call.some_unavailable:
        data["note"] = SOME_UNAVAILABLE
    return llm.ToolResult(data=data)


class CallServiceTool(llm.Tool):
    """Call a Home Assistant action (service) on exposed entities."""

    name = TOOL_CALL_SERVICE
    description = (
        "Call a Home Assistant action, e.g. domain 'light', service 'turn_on', target "
        "{'entity_id': ['light.kitchen']}, data {'brightness_pct': 50}. Targets "
        "(entity, area, floor, label or device ids) go in target, never in data. Run a "
        "script with script.turn_on. Returns the new states."
    )
    parameters = probatio.Schema(
        {
            probatio.Required("domain"): str,
            probatio.Required("service"): str,
            probatio.Optional("target", default=dict): TARGET_SCHEMA,
            probatio.Optional("data", default=dict): dict,
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=False, destructive=True, idempotent=False, open_world=False
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Resolve the call against exposure and the allow-list, then make it."""
        args = self.parameters(tool_input.tool_args)
        resolved = await resolve_call(
            hass,
            llm_context,
            args["domain"],
            args["service"],
            target=args["target"],
            data=args["data"],
        )
        if isinstance(resolved, llm.ToolResult):
            return resolved
        # Risky effects wait for the user's own yes, checked on the final targets.
        effects = service_effects(
            resolved.entity_ids, resolved.domain, resolved.service, resolved.data
        )
        gate = gate_of(llm_context)
        if gate is None:
            if gate_refuses(hass, effects):
                return refuse(
                    "This action needs the user's own confirmation, which this "
                    "assistant cannot ask for. Nothing was changed."
                )
        elif not gate.review(tool_input.id, self.name, tool_input.tool_args, effects):
            return refuse(HELD_MESSAGE, needs_user_confirmation=True)
        return await run_call(hass, llm_context, resolved)


async def _description(
    hass: HomeAssistant, domain: str, service: str
) -> Mapping[str, Any]:
    """The service's description (services.yaml or registered); {} if it has none."""
    description = async_get_cached_service_description(hass, domain, service)
    if description is None:
        description = (
            (await async_get_all_descriptions(hass)).get(domain, {}).get(service)
        )
    return description or {}


def _refuse_service(domain: str, service: str) -> llm.ToolResult | None:
    """Refuse services that act beyond their target whatever it is."""
    if domain == "script" and service not in _TARGETED_ONLY:
        # script.<name> runs a script without its entity, so exposure cannot apply.
        return refuse(
            "Scripts cannot be called as script.<name>: run one with script.turn_on "
            "and the script's entity_id in target.",
            hint="Use search_entities with domain 'script' to find exposed scripts.",
        )
    if domain == _CROSS_DOMAIN and service not in _TARGETED_ONLY:
        return refuse(
            f"{domain}.{service} acts on Home Assistant itself, not on exposed "
            "devices; the assistant may not call it."
        )
    return None


def _refuse_data(
    hass: HomeAssistant, data: Mapping[str, Any], description: Mapping[str, Any]
) -> llm.ToolResult | None:
    """Refuse data that could reach entities outside the resolved target."""
    if keys := sorted(k for k in data if str(k).strip().lower() in TARGET_KEYS):
        return refuse(
            "Targets go in target, not in data: move "
            + ", ".join(map(str, keys))
            + " to target."
        )
    if fields := sorted(_id_fields(description.get("fields") or {}) & set(data)):
        return refuse(
            "The assistant may not give devices or places in data: "
            + ", ".join(fields)
            + ". Put them in target."
        )
    # Only what HA itself would read as an entity: lowercased, comma lists split.
    unknown = sorted(
        {
            ref
            for ref in entity_refs(data)
            if not _is_exposed_entity(hass, resolve_entity_ref(hass, ref))
        }
    )
    if unknown:
        return refuse(
            "Unknown entity in data: " + ", ".join(unknown) + ".", hint=_FIND_IDS
        )
    return None


def refuse_arguments(
    hass: HomeAssistant, arguments: Mapping[str, Any], fields: Mapping[str, Any]
) -> llm.ToolResult | None:
    """Any other tool's arguments (a script's fields too), checked like `data` above.

    Entity ids (and registry ids) must name exposed entities; devices and places, which
    exposure cannot filter here, are refused. `fields` are the tool's field
    descriptions (a script's), if any.
    """
    places = sorted(
        {
            str(key)
            for key in _keys(arguments)
            if str(key).strip().lower() in TARGET_KEYS
        }
        - {ATTR_ENTITY_ID}
        | (_id_fields(fields) & set(arguments))
    )
    if places:
        return refuse(
            "The assistant may not give devices or places to this tool: "
            + ", ".join(places)
            + "."
        )
    unknown = sorted(
        {
            ref
            for ref in entity_refs(arguments)
            if _may_be_entity(hass, ref)
            and not _is_exposed_entity(hass, resolve_entity_ref(hass, ref))
        }
    )
    if unknown:
        return refuse("Unknown entity: " + ", ".join(unknown) + ".", hint=_FIND_IDS)
    return None


def _keys(value: Any) -> set[Any]:
    """Every key in nested data."""
    if isinstance(value, Mapping):
        return set(value) | {k for item in value.values() for k in _keys(item)}
    if isinstance(value, list | tuple):
        return {k for item in value for k in _keys(item)}
    return set()


def _may_be_entity(hass: HomeAssistant, ref: str) -> bool:
    """Whether a ref could name an entity: a registry id, or of a domain HA has.

    "st.louis" for a weather place is not an entity; "lock.x" is, hidden or missing.
    """
    domain, dot, _ = ref.partition(".")
    return not dot or domain in hass.config.components


def _id_fields(fields: Mapping[str, Any]) -> set[str]:
    """Fields whose selector names devices, areas, floors or labels."""
    found: set[str] = set()
    for name, field in fields.items():
        if not isinstance(field, Mapping):
            continue
        if isinstance(section := field.get("fields"), Mapping):
            found |= _id_fields(section)
        elif _ID_SELECTORS & set(field.get("selector") or {}):
            found.add(name)
    return found


def _normalize(target: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Ids as HA spells them: lowercase, no surrounding spaces."""
    return {key: [i.strip().lower() for i in ids] for key, ids in target.items()}


def _is_exposed_entity(hass: HomeAssistant, entity_id: str) -> bool:
    return hass.states.get(entity_id) is not None and is_exposed(hass, entity_id)


def _resolve_target(
    hass: HomeAssistant,
    allowed: tuple[str, ...],
    domain: str,
    service: str,
    *,
    target: dict[str, list[str]],
    data: dict[str, Any],
) -> ResolvedCall | llm.ToolResult:
    """Expand the target as HA would and keep the exposed entities the call fits."""
    selected = async_extract_referenced_entity_ids(
        hass, TargetSelection(target), expand_group=False
    )
    # Named entities: an unexposed one is reported exactly like one that does not exist.
    unknown = [
        *(f"area {a}" for a in sorted(selected.missing_areas)),
        *(f"floor {f}" for f in sorted(selected.missing_floors)),
        *(f"label {lb}" for lb in sorted(selected.missing_labels)),
        *(f"device {d}" for d in sorted(selected.missing_devices)),
        *(e for e in sorted(selected.referenced) if not _is_exposed_entity(hass, e)),
    ]
    if unknown:
        return refuse("Unknown target: " + ", ".join(unknown) + ".", hint=_FIND_IDS)
    cross_domain = domain == _CROSS_DOMAIN
    entity_ids: list[str] = []
    some_unavailable = False
    # HA replaces groups by their members when it calls a service, so the members are
    # what must be exposed. An entity that acts on others itself (a light group, a
    # script) is the user's to expose, like any entity.
    for entity_id in sorted(
        expand_entity_ids(hass, selected.referenced | selected.indirectly_referenced)
    ):
        entity_domain = entity_id.split(".", 1)[0]
        if cross_domain:
            # homeassistant.turn_on calls <domain>.turn_on for each entity's domain.
            fits = entity_domain != _CROSS_DOMAIN and hass.services.has_service(
                entity_domain, service
            )
        else:
            fits = entity_domain == domain
        if not fits or hass.states.get(entity_id) is None:
            continue
        if is_exposed(hass, entity_id) and (
            not cross_domain or is_allowed(allowed, entity_domain, service)
        ):
            entity_ids.append(entity_id)
        else:
            some_unavailable = True
    if not entity_ids:
        return refuse(
            f"Nothing in the target can be controlled with {domain}.{service}."
            + (f" {SOME_UNAVAILABLE}" if some_unavailable else ""),
            hint=_FIND_IDS,
        )
    return ResolvedCall(domain, service, tuple(entity_ids), data, some_unavailable)


def _scrub(hass: HomeAssistant, text: str) -> str:
    """An error message with any unexposed entity's id taken out."""

    def hide(match: re.Match[str]) -> str:
        entity_id = match[0]
        if hass.states.get(entity_id) is not None and not is_exposed(hass, entity_id):
            return "(a device not available to the assistant)"
        return entity_id

    return _ENTITY_ID_IN_TEXT.sub(hide, text)
