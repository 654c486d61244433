"""A real Home Assistant for benchmarks, with our agent (and others) on a fake LLM.

Uses pytest-homeassistant-custom-component's test instance (no network) outside
pytest, in a temporary config folder, and tests/fake_llm.py as the zero-latency server.
"""

import asyncio
from collections.abc import AsyncIterator
import contextlib
from pathlib import Path
import platform
import shutil
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_homeassistant_custom_component.common import (  # noqa: E402
    MockConfigEntry,
    async_test_home_assistant,
)

from homeassistant import loader  # noqa: E402
from homeassistant.components import conversation  # noqa: E402
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity  # noqa: E402
from homeassistant.config_entries import ConfigSubentryData  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.setup import async_setup_component  # noqa: E402

from custom_components.agentic_conversation.const import (  # noqa: E402
    CONF_BASE_URL,
    CONF_MODEL,
    DOMAIN,
)
from tests.fake_llm import MODEL, FakeLLM  # noqa: E402


def machine() -> str:
    """One line about where the figures come from."""
    return (
        f"{platform.machine()}, {__import__('os').cpu_count()} CPUs,"
        f" Python {platform.python_version()}"
    )


@contextlib.asynccontextmanager
async def home_with_server() -> AsyncIterator[tuple[HomeAssistant, FakeLLM]]:
    """A running hass that can load our integration, and the fake LLM.

    Its config folder is its own: the plugin's default one is shared with the test
    suite, which a bench's files (the shopping list's) would change.
    """
    config_dir = await asyncio.to_thread(tempfile.mkdtemp, prefix="agentic-bench-")
    try:
        async with (
            async_test_home_assistant(config_dir=config_dir) as hass,
            FakeLLM() as server,
        ):
            hass.data.pop(loader.DATA_CUSTOM_COMPONENTS, None)
            for component in ("homeassistant", "conversation", "intent"):
                assert await async_setup_component(hass, component, {})
            yield hass, server
            await hass.async_stop(force=True)
    finally:
        await asyncio.to_thread(shutil.rmtree, config_dir, True)


async def add_agent(
    hass: HomeAssistant,
    server: FakeLLM,
    options: dict[str, Any] | None = None,
    *,
    domain: str = DOMAIN,
) -> str:
    """A connection with one agent; returns the new conversation entity id."""
    before = set(hass.states.async_entity_ids("conversation"))
    if domain == DOMAIN:
        data: dict[str, Any] = {CONF_BASE_URL: server.base_url}
        agent: dict[str, Any] = {CONF_MODEL: MODEL, **(options or {})}
    else:  # HA core's llama_cpp, on the same server
        data = {"base_url": server.base_url}
        agent = {"chat_model": MODEL, "recommended": True, **(options or {})}
    entry = MockConfigEntry(
        domain=domain,
        data=data,
        subentries_data=[
            ConfigSubentryData(
                data=agent, subentry_type="conversation", title=domain, unique_id=None
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    (added,) = set(hass.states.async_entity_ids("conversation")) - before
    return added


def expose_sensors(hass: HomeAssistant, start: int, stop: int) -> None:
    """Exposed sensors probe_<start>…probe_<stop-1>, with names and units."""
    for i in range(start, stop):
        entity_id = f"sensor.probe_{i}"
        hass.states.async_set(
            entity_id,
            "21.5",
            {"friendly_name": f"Room {i} temperature", "unit_of_measurement": "°C"},
        )
        async_expose_entity(hass, "conversation", entity_id, True)


async def timed_turn(hass: HomeAssistant, agent: str, text: str) -> float:
    """Seconds one English turn takes, from the words to the result with speech."""
    started = time.perf_counter()
    result = await conversation.async_converse(
        hass, text, None, Context(), language="en", agent_id=agent
    )
    elapsed = time.perf_counter() - started
    assert result.response.speech["plain"]["speech"], result
    return elapsed
