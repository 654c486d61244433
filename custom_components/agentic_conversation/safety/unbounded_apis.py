"""LLM APIs exposure does not bound: never offered to an agent's model.

Home Assistant marks such an API `requires_admin` (its own "Home Assistant" API since
2026.11): its tools read and act on any entity, exposed or not (a template renders any
state, an action takes any target, history and logs name anything). Exposure is our
hard boundary, so the agent form does not list them, and an agent saved with one
leaves it out of every turn; its Repair says so, until the agent's options drop it.
"""

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir, llm

from ..const import DOMAIN, LOGGER
from ..tool_options import api_ids

ISSUE_KEY = "unbounded_api"


def unbounded(api: llm.API) -> bool:
    """Whether the API's tools reach beyond what is exposed (HA: admin only)."""
    return bool(getattr(api, "requires_admin", False))


def offered_apis(hass: HomeAssistant) -> list[llm.API]:
    """The APIs an agent may be given."""
    return [api for api in llm.async_get_apis(hass) if not unbounded(api)]


def unbounded_names(hass: HomeAssistant) -> dict[str, str]:
    """The registered APIs an agent is never given: their names by id."""
    return {api.id: api.name for api in llm.async_get_apis(hass) if unbounded(api)}


@callback
def async_bounded_apis(hass: HomeAssistant, agent: ConfigSubentry) -> list[str] | None:
    """The agent's APIs a turn may use (None: none); the Repair raised or cleared."""
    selected = api_ids(agent.data.get(CONF_LLM_HASS_API))
    names = unbounded_names(hass)
    left_out = [api_id for api_id in selected if api_id in names]
    issue_id = _issue_id(agent)
    if not left_out:
        ir.async_delete_issue(hass, DOMAIN, issue_id)
        return selected or None
    if ir.async_get(hass).async_get_issue(DOMAIN, issue_id) is None:
        LOGGER.warning(
            "Agent %s is set up with %s, whose tools are not bounded by exposure to "
            "Assist; it is left out",
            agent.title,
            ", ".join(left_out),
        )
    ir.async_create_issue(
        hass,
        DOMAIN,
        issue_id,
        is_fixable=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key=ISSUE_KEY,
        translation_placeholders={
            "agent": agent.title,
            "apis": ", ".join(names[api_id] for api_id in left_out),
        },
    )
    kept = [api_id for api_id in selected if api_id not in names]
    return kept or None


@callback
def async_forget_agent(hass: HomeAssistant, agent: ConfigSubentry) -> None:
    """The agent is gone (or set up again): so is its Repair."""
    ir.async_delete_issue(hass, DOMAIN, _issue_id(agent))


def _issue_id(agent: ConfigSubentry) -> str:
    return f"{ISSUE_KEY}_{agent.subentry_id}"
