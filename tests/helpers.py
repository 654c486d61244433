"""Set-up and reading helpers shared by the tests: an agent, a turn, what was heard.

Each helper lives here once; a test file that needs other defaults wraps one in a line
(e.g. its own `_agent` with the APIs its home needs).
"""

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    setup_test_component_platform,
)

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import entity_registry as er, llm
from homeassistant.helpers.entity import Entity
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
)
from tests.fake_llm import MODEL, FakeLLM


async def add_agent(
    hass: HomeAssistant,
    server: FakeLLM | str,
    *,
    apis: Sequence[str] = (llm.LLM_API_ASSIST,),
    api_key: str | None = "sk-test",
    minor_version: int = 1,
    title: str = "Agent",
    background: bool = False,
    **options: Any,
) -> str:
    """Set up a connection to the server (or a base URL) with one agent; its entity id.

    `minor_version` is the version the entry was saved by (1 is migrated on set-up);
    `background` also waits for the background work set-up starts (the endpoint check
    that learns whether the model calls tools).
    """
    base_url = server.base_url if isinstance(server, FakeLLM) else server
    data: dict[str, Any] = {CONF_BASE_URL: base_url}
    if api_key is not None:
        data[CONF_API_KEY] = api_key
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=minor_version,
        data=data,
        subentries_data=[
            ConfigSubentryData(
                data={CONF_MODEL: MODEL, CONF_LLM_HASS_API: list(apis), **options},
                subentry_type="conversation",
                title=title,
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=background)
    return next(
        entity.entity_id
        for entity in er.async_entries_for_config_entry(
            er.async_get(hass), entry.entry_id
        )
        if entity.domain == conversation.DOMAIN
    )


async def converse(
    hass: HomeAssistant,
    agent: str,
    text: str,
    conversation_id: str | None = None,
    language: str = "en",
) -> conversation.ConversationResult:
    """One turn: these words to the agent, as typed in Assist."""
    return await conversation.async_converse(
        hass, text, conversation_id, Context(), language=language, agent_id=agent
    )


def said(result: dict[str, Any]) -> str:
    """The words of a result as the websocket API (or a door of door_to) gives it."""
    return str(result["response"]["speech"]["plain"]["speech"])


def speech(result: conversation.ConversationResult) -> str:
    """The words a turn's result speaks."""
    return str(result.response.speech["plain"]["speech"])


async def say(hass: HomeAssistant, agent: str, text: str, language: str = "en") -> str:
    """One turn in a new conversation; the words heard."""
    return speech(await converse(hass, agent, text, language=language))


def state_of(hass: HomeAssistant, entity_id: str) -> str:
    """An entity's state, which must exist."""
    state = hass.states.get(entity_id)
    assert state is not None, entity_id
    return state.state


async def async_test_platforms(
    hass: HomeAssistant,
    platforms: Mapping[str, Sequence[Entity]],
    *,
    hidden: Collection[Entity] = (),
) -> None:
    """Entities on HA's `test` platforms with Assist's intents; exposed but `hidden`."""
    for domain, entities in platforms.items():
        setup_test_component_platform(hass, domain, entities)
    for component in ("homeassistant", "intent", "conversation"):
        assert await async_setup_component(hass, component, {})
    for domain in platforms:
        assert await async_setup_component(hass, domain, {domain: {"platform": "test"}})
    await hass.async_block_till_done()
    for entities in platforms.values():
        for entity in entities:
            assert entity.entity_id is not None
            assert hass.states.get(entity.entity_id) is not None, entity.entity_id
            async_expose_entity(
                hass, conversation.DOMAIN, entity.entity_id, entity not in hidden
            )
