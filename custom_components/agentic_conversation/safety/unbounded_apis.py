"""LLM APIs exposure does not bound: never offered to an agent's model.

Home Assistant marks such an API `requires_admin` (its own "Home Assistant" API since
2026.11): its tools read and act on any entity, exposed or not (a template renders any
state, an action takes any target, history and logs name anything). Exposure is our
hard boundary, so the agent form does not list them, and an agent saved with one
leaves it out of every turn (`turn/llm_data.py`); its Repair says so, until the
agent's options drop it.
"""

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir, llm

from ..const import DOMAIN, LOGGER
from ..tool_options import unbounded, unbounded_selected

ISSUE_KEY = "unbounded_api"


def offered_apis(hass: HomeAssistant) -> list[llm.API]:
    """The APIs an agent may be given."""
    return [api for api in llm.async_get_apis(hass) if not unbounded(api)]


@callback
def async_check_agent(hass: HomeAssistant, agent: ConfigSubentry) -> None:
    """Raise the agent's Repair if it is set up with such an API, else clear it."""
    left_out = unbounded_selected(hass, agent.data.get(CONF_LLM_HASS_API))
    if not left_out:
        ir.async_delete_issue(hass, DOMAIN, _issue_id(agent))
        return
    async_left_out(hass, agent, left_out)


@callback
def async_left_out(
    hass: HomeAssistant, agent: ConfigSubentry, left_out: dict[str, str]
) -> None:
    """The agent's APIs (names by id) a turn leaves out: logged once, its Repair."""
    issue_id = _issue_id(agent)
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
            "apis": ", ".join(left_out.values()),
        },
    )


@callback
def async_forget_agent(hass: HomeAssistant, agent: ConfigSubentry) -> None:
    """The agent is gone (or set up again): so is its Repair."""
    ir.async_delete_issue(hass, DOMAIN, _issue_id(agent))


def _issue_id(agent: ConfigSubentry) -> str:
    return f"{ISSUE_KEY}_{agent.subentry_id}"
