"""A connection's agents (its conversation subentries) and the device each one has."""

from collections.abc import Iterator

from homeassistant.config_entries import ConfigEntry, ConfigSubentry
from homeassistant.helpers import device_registry as dr

from .const import CONF_MODEL, DOMAIN, SUBENTRY_AI_TASK, SUBENTRY_CONVERSATION


def agent_subentries(entry: ConfigEntry) -> Iterator[ConfigSubentry]:
    """The agents of a connection."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_CONVERSATION:
            yield subentry


def task_subentries(entry: ConfigEntry) -> Iterator[ConfigSubentry]:
    """The AI Task entities of a connection."""
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_AI_TASK:
            yield subentry


def metered_subentries(entry: ConfigEntry) -> Iterator[ConfigSubentry]:
    """The agents and AI tasks: each counts its token usage."""
    yield from agent_subentries(entry)
    yield from task_subentries(entry)


def agent_device_info(subentry: ConfigSubentry) -> dr.DeviceInfo:
    """The device of an agent (or AI task): its entity, its sensors, its memory list."""
    return dr.DeviceInfo(
        identifiers={(DOMAIN, subentry.subentry_id)},
        name=subentry.title,
        manufacturer="Agentic Conversation",
        model=subentry.data.get(CONF_MODEL),
        entry_type=dr.DeviceEntryType.SERVICE,
    )
