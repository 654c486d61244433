"""The budgets of a connection's agents and AI tasks: started with it, gone with it."""

from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir

from ..const import CONF_BUDGET, DOMAIN, LOGGER
from .budget import Budget, budget_of, issue_id, store


async def async_forget_budgets(hass: HomeAssistant, subentry_ids: list[str]) -> None:
    """The connection is deleted: what its agents and AI tasks spent goes too."""
    for subentry_id in subentry_ids:
        await store(hass, subentry_id).async_remove()
        ir.async_delete_issue(hass, DOMAIN, issue_id(subentry_id))


async def async_start_budgets(
    hass: HomeAssistant,
    subentries: list[ConfigSubentry],
) -> dict[str, Budget]:
    """The budgets of a connection's agents and AI tasks that have one, started.

    The Repair of one that has no budget any more (or is gone) goes.
    """
    known = {
        subentry_id
        for entry in hass.config_entries.async_entries(DOMAIN)
        for subentry_id in entry.subentries
    }
    for issue in list(ir.async_get(hass).issues.values()):
        if (
            issue.domain == DOMAIN
            and issue.issue_id.startswith(issue_id(""))
            and issue.issue_id.removeprefix(issue_id("")) not in known
        ):
            ir.async_delete_issue(hass, DOMAIN, issue.issue_id)
    budgets: dict[str, Budget] = {}
    for subentry in subentries:
        if (limit := budget_of(subentry.data.get(CONF_BUDGET))) is None:
            if subentry.data.get(CONF_BUDGET):
                LOGGER.warning(
                    "%s: ignoring the budget %r, not an amount",
                    subentry.title,
                    subentry.data[CONF_BUDGET],
                )
            ir.async_delete_issue(hass, DOMAIN, issue_id(subentry.subentry_id))
            continue
        budget = Budget(hass, subentry, limit)
        budgets[subentry.subentry_id] = budget
        await budget.async_start()
    return budgets
