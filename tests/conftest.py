"""Fixtures shared by the tests: a real Home Assistant with our integration loadable."""

import asyncio
from collections.abc import AsyncIterator, Iterator
import gc
import logging
import os

import pytest
from pytest_homeassistant_custom_component.typing import (
    ClientSessionGenerator,
    WebSocketGenerator,
)

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from tests.assist_pipeline import DOORS, Door, RecordingTTS, recording_tts
from tests.fake_llm import FakeLLM

# The test plugin logs at INFO, which makes SQLAlchemy log every statement the recorder
# runs (slow, and printed by pytest-xdist's workers); no test reads those lines.
logging.getLogger("sqlalchemy.engine").setLevel(logging.WARNING)


@pytest.fixture(autouse=True)
async def enable_event_loop_debug() -> None:
    """The loop in asyncio's debug mode only with AGENTIC_ASYNCIO_DEBUG=1 (unlike the plugin).

    In debug mode CPython's C futures record the whole stack, source lines read from
    disk, at every future and task made: a third of the suite's time, measured. What it
    would catch is checked without it: Home Assistant's own `async_*` methods verify
    they run in the event loop's thread, a coroutine never awaited still warns, and
    the test plugin still fails a test that leaves tasks or timers behind.
    """
    if os.environ.get("AGENTIC_ASYNCIO_DEBUG") == "1":
        asyncio.get_running_loop().set_debug(True)


@pytest.fixture(autouse=True)
def _close_collected_async_generators() -> Iterator[None]:
    """After `hass` is torn down, close the async generators its end let go of.

    Set up before the test's own fixtures, so torn down after them (hass included) and
    before the test plugin's check for lingering tasks: an openai SSE generator freed
    when hass stops would otherwise be closed in a task that check finds (it did, now
    and then, on a busy machine). ha_core does the same for what is freed before.
    """
    yield
    gc.collect()
    loop = asyncio.get_event_loop()
    for _ in range(5):
        loop.run_until_complete(asyncio.sleep(0))
    # What survived this full collection is kept for the session (Home Assistant's
    # test instances stay referenced from module-level state): freeze it, so the next
    # test's collections scan only that test's objects. Unfrozen, each collection
    # walked every earlier test's home and took seconds by the end of a run.
    gc.freeze()


@pytest.fixture
async def ha_core(
    hass: HomeAssistant, enable_custom_integrations: None
) -> AsyncIterator[HomeAssistant]:
    """A hass that can load our integration, with the core `homeassistant` integration set up.

    Conversation agents depend on it (exposed entities live there), as in a real install.
    """
    assert await async_setup_component(hass, "homeassistant", {})
    await hass.async_block_till_done()
    yield hass
    # Let background work finish (the integration's endpoint check), then: the openai
    # SDK leaves its SSE parser generators open after `[DONE]`; asyncio
    # closes them in tasks when they are collected. Collect and let those tasks run
    # now, before the plugin's check for tasks left over by the test.
    await hass.async_block_till_done(wait_background_tasks=True)
    gc.collect()
    for _ in range(5):
        await asyncio.sleep(0)
    # Closing such a generator may wait on its HTTP response's transport: let those
    # closing tasks finish rather than count a few loop turns.
    closing = [
        task
        for task in asyncio.all_tasks()
        if task is not asyncio.current_task()
        and "async_generator_athrow" in repr(task.get_coro())
    ]
    if closing:
        await asyncio.wait(closing, timeout=5)


@pytest.fixture
async def fake_llm(socket_enabled: None) -> AsyncIterator[FakeLLM]:
    """A running fake OpenAI-compatible server on loopback."""
    async with FakeLLM() as server:
        yield server


@pytest.fixture
async def recorder(ha_core: HomeAssistant) -> AsyncIterator[RecordingTTS]:
    """A recording streaming TTS entity (`tts.recorder`), as a satellite's engine."""
    async with recording_tts(ha_core) as engine:
        yield engine


@pytest.fixture(params=DOORS)
def door(
    request: pytest.FixtureRequest,
    recorder: RecordingTTS,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
) -> Door:
    """Each door a user talks through; fewer with `parametrize("door", [...], indirect=True)`."""
    return Door(request.param, recorder, hass_ws_client, hass_client)


@pytest.fixture
def no_retry_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed LLM call is retried at once, not after half a second of real time."""
    # By name: importing the integration here, before coverage starts in each
    # pytest-xdist worker, would leave its module-level lines unmeasured.
    monkeypatch.setattr(
        "custom_components.agentic_conversation.agent.resilient_provider.RETRY_BASE_DELAY",
        0.0,
    )
