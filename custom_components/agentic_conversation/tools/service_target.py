"""What a `call_service` call acts on: the exposed entities, or a refusal saying why.

Exposure is a hard boundary. `resolve_call` turns whatever the model sent into the
exposed entity ids Home Assistant will finally act on, or refuses, so no area, device,
floor, label, group or data field can carry the call to an entity the user did not
expose. Nothing here changes anything.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

import probatio

from homeassistant.const import ENTITY_MATCH_ALL, ENTITY_MATCH_NONE
from homeassistant.core import HomeAssistant
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

from ..tool_options import tool_options_of
from .argument_checks import FIND_IDS, TARGET_KEYS, is_exposed_entity, refuse_data
from .entities import is_exposed
from .errors import refuse

# Services that act on any domain's entities; of them only these act on their target
# alone (restart, reload_all, update_entity… act on Home Assistant or whole entries).
_CROSS_DOMAIN = "homeassistant"
_TARGETED_ONLY = frozenset({"turn_on", "turn_off", "toggle"})
_ID_LIST = probatio.All(cv.ensure_list, [str])
TARGET_SCHEMA = probatio.Schema(
    {probatio.Optional(key): _ID_LIST for key in TARGET_KEYS}
)
SOME_UNAVAILABLE = (
    "Some devices there are not available to the assistant; they were left as they "
    "were."
)


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
    if (refused := refuse_data(hass, data, description)) is not None:
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
            hint=FIND_IDS,
        )
    if not any(target.values()):
        return refuse(
            "No target: give entity_id, area_id, floor_id, label_id or device_id in "
            "target.",
            hint=FIND_IDS,
        )
    return _resolve_target(hass, allowed, domain, service, target=target, data=data)


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


def _normalize(target: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Ids as HA spells them: lowercase, no surrounding spaces."""
    return {key: [i.strip().lower() for i in ids] for key, ids in target.items()}


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
        *(e for e in sorted(selected.referenced) if not is_exposed_entity(hass, e)),
    ]
    if unknown:
        return refuse("Unknown target: " + ", ".join(unknown) + ".", hint=FIND_IDS)
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
            hint=FIND_IDS,
        )
    return ResolvedCall(domain, service, tuple(entity_ids), data, some_unavailable)
