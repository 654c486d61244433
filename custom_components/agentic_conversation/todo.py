"""Each agent's memory as a To-do list: one item per fact, to read, edit, add, delete."""

from collections.abc import Iterator
from contextlib import contextmanager

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.todo.const import TodoItemStatus, TodoListEntityFeature
from homeassistant.components.todo.entity import TodoItem, TodoListEntity
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .agents import agent_device_info, agent_subentries
from .const import DOMAIN
from .kept.memory import AgentMemory, MemoryLimitError, agent_memory
from .runtime import AgenticConfigEntry

# Changes come from the memory, not from polling.
PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the memory list of each agent of the connection."""
    for subentry in agent_subentries(entry):
        async_add_entities(
            [AgentMemoryList(agent_memory(entry, subentry), subentry)],
            update_before_add=True,
            config_subentry_id=subentry.subentry_id,
        )


class AgentMemoryList(TodoListEntity):
    """What an agent remembers; checking an item off forgets it."""

    _attr_has_entity_name = True
    _attr_translation_key = "memory"
    _attr_should_poll = False
    _attr_supported_features = (
        TodoListEntityFeature.CREATE_TODO_ITEM
        | TodoListEntityFeature.UPDATE_TODO_ITEM
        | TodoListEntityFeature.DELETE_TODO_ITEM
    )

    def __init__(self, memory: AgentMemory, subentry: ConfigSubentry) -> None:
        """The list of an agent, on the agent's device."""
        self._memory = memory
        self._attr_unique_id = f"{subentry.subentry_id}_memory"
        self._attr_device_info = agent_device_info(subentry)

    async def async_added_to_hass(self) -> None:
        """Follow the memory; keep the list away from other assistants by default."""
        await super().async_added_to_hass()
        self.async_on_remove(
            self._memory.memory.async_listen(self._memory.pool, self._async_changed)
        )
        # To-do lists are exposed to Assist by default, which would show one agent's
        # memory (personal facts too) to every agent. The user may still expose it.
        entity = er.async_get(self.hass).async_get(self.entity_id)
        if entity is None or "should_expose" not in entity.options.get(
            "conversation", {}
        ):
            async_expose_entity(self.hass, "conversation", self.entity_id, False)

    @callback
    def _async_changed(self) -> None:
        self.async_schedule_update_ha_state(force_refresh=True)

    async def async_update(self) -> None:
        """One item per fact, newest first; a personal fact shows whose it is."""
        names: dict[str, str] = {}
        for fact in self._memory.memory.facts(self._memory.pool):
            if fact.user_id is not None and fact.user_id not in names:
                user = await self.hass.auth.async_get_user(fact.user_id)
                names[fact.user_id] = (user.name or "") if user else ""
        self._attr_todo_items = [
            TodoItem(
                summary=fact.text,
                uid=fact.id,
                status=TodoItemStatus.NEEDS_ACTION,
                description=names.get(fact.user_id or "") or None,
            )
            for fact in self._memory.memory.facts(self._memory.pool)
        ]

    async def async_create_todo_item(self, item: TodoItem) -> None:
        """Remember a fact for the household."""
        with _as_service_error():
            await self._memory.memory.async_add(
                self._memory.pool, item.summary or "", None
            )

    async def async_update_todo_item(self, item: TodoItem) -> None:
        """Change a fact's words; checking it off forgets it."""
        if item.uid is None:
            return
        if item.status == TodoItemStatus.COMPLETED:
            await self._memory.memory.async_remove_facts(self._memory.pool, [item.uid])
            return
        with _as_service_error():
            await self._memory.memory.async_edit(
                self._memory.pool, item.uid, item.summary or ""
            )

    async def async_delete_todo_items(self, uids: list[str]) -> None:
        """Forget facts."""
        await self._memory.memory.async_remove_facts(self._memory.pool, uids)


@contextmanager
def _as_service_error() -> Iterator[None]:
    """Turn a fact that cannot be kept into a translated service error."""
    try:
        yield
    except MemoryLimitError as err:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key=err.key,
            translation_placeholders=err.placeholders,
        ) from err
