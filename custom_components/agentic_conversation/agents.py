"""A connection's agents (its conversation subentries) and the device each one has."""

from collections.abc import Iterator

from homeassistant.config_entries import ConfigEntry, ConfigSubentry
from homeassistant.helpers import device_registry as dr

from .const import CONF_MODEL, DOMAIN, SUBENTRY_CONVERSATION


def agent_subentries(entry: ConfigEntry) -> Iterator[ConfigSubentry]:
    """The agents of a connection."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_CONVERSATION:
            yield subentry


def agent_device_info(subentry: ConfigSubentry) -> dr.DeviceInfo:
    """The device of an agent: its conversation entity, route sensor, memory list."""
    return dr.DeviceInfo(
        identifiers={(DOMAIN, subentry.subentry_id)},
        name=subentry.title,
        manufacturer="Agentic Conversation",
        model=subentry.data.get(CONF_MODEL),
        entry_type=dr.DeviceEntryType.SERVICE,
    )
