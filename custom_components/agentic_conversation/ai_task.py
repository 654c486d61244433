"""The AI Task entities: one per `ai_task_data` subentry of a connection."""

from homeassistant.components import ai_task, conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .agent import LLMProvider
from .agents import agent_device_info, task_subentries
from .const import CONF_MODEL
from .provider_factory import build_provider
from .runtime import AgenticConfigEntry
from .tasks.attachments import async_model_sees_images, refuse_images
from .tasks.run import async_generate_data

# Tasks run concurrently; nothing is polled.
PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add an AI Task entity for each of the connection's AI task subentries."""
    for subentry in task_subentries(entry):
        async_add_entities(
            [AgenticTaskEntity(hass, entry, subentry)],
            config_subentry_id=subentry.subentry_id,
        )


class AgenticTaskEntity(ai_task.AITaskEntity):
    """Generates data (text or structured, from images too) with the task's model."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supported_features = (
        ai_task.AITaskEntityFeature.GENERATE_DATA
        | ai_task.AITaskEntityFeature.SUPPORT_ATTACHMENTS
    )

    def __init__(
        self, hass: HomeAssistant, entry: AgenticConfigEntry, subentry: ConfigSubentry
    ) -> None:
        """Set up the task of a subentry, with its model, fallback and retries."""
        self.subentry = subentry
        self._entry = entry
        # Whether the model sees images, as its server says: asked at the first image.
        self._sees_images: bool | None = None
        self._asked = False
        self._attr_unique_id = subentry.subentry_id
        self._attr_device_info = agent_device_info(subentry)
        self._provider: LLMProvider = build_provider(hass, entry, subentry)

    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        """Run the task; a clear error if it cannot be done."""
        if task.attachments:
            model = str(self.subentry.data.get(CONF_MODEL))
            if not self._asked:
                self._asked = True
                self._sees_images = await async_model_sees_images(self._entry, model)
            if self._sees_images is False:
                raise refuse_images(model)
        return await async_generate_data(
            self._provider, self.subentry, task, chat_log, self.entity_id
        )
