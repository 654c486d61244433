"""A local server's prompt cache gets the agent's prompt and tools before the first turn.

bench/real_model.py measured a first turn on a CPU paying for the whole prompt (tens of
seconds). The agent sends exactly the prefix a turn will send (system prompt, tools)
for one token when its start-up check is done, and again after it has been idle; only
on a server that tells its context size (llama.cpp, Ollama), never on a cloud API.
"""

from datetime import timedelta

from pytest_homeassistant_custom_component.common import async_fire_time_changed

from homeassistant.core import HomeAssistant
from homeassistant.util import dt as dt_util

from custom_components.agentic_conversation.prompt_warmup import REWARM_AFTER
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, say
from tests.server_replies import LLAMA_CPP_PROPS


def _prefix(body: dict[str, object]) -> tuple[object, object]:
    """The part of a request a server's prompt cache can keep: system and tools."""
    messages = body["messages"]
    assert isinstance(messages, list)
    return messages[0], body.get("tools")


async def test_the_first_turn_finds_its_prompt_warm(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Warmed once at start with the very prefix of the turn; again after idling."""
    hass = ha_core
    fake_llm.props_body = LLAMA_CPP_PROPS
    agent = await add_agent(hass, fake_llm, background=True)

    (warm,) = fake_llm.warm_requests
    assert fake_llm.requests == []
    assert warm.get("max_tokens", warm.get("max_completion_tokens")) == 1
    assert warm["messages"][0]["role"] == "system"

    fake_llm.script([Reply.text("Hi there.")])
    assert await say(hass, agent, "hello") == "Hi there."
    assert _prefix(fake_llm.requests[0]) == _prefix(warm)
    assert len(fake_llm.warm_requests) == 1

    # Idle: warmed again once, with the same prefix; not before the time is up.
    async_fire_time_changed(
        hass, dt_util.utcnow() + timedelta(seconds=REWARM_AFTER - 5)
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert len(fake_llm.warm_requests) == 1
    async_fire_time_changed(
        hass, dt_util.utcnow() + timedelta(seconds=REWARM_AFTER + 5)
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert len(fake_llm.warm_requests) == 2
    assert _prefix(fake_llm.warm_requests[1]) == _prefix(warm)
    async_fire_time_changed(
        hass, dt_util.utcnow() + timedelta(seconds=3 * REWARM_AFTER)
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert len(fake_llm.warm_requests) == 2


async def test_a_server_that_does_not_tell_its_context_is_not_warmed(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A cloud API (no /props, no /api/show) caches itself and would bill a warm-up."""
    hass = ha_core
    agent = await add_agent(hass, fake_llm, background=True)
    fake_llm.script([Reply.text("Hi there.")])
    assert await say(hass, agent, "hello") == "Hi there."
    async_fire_time_changed(
        hass, dt_util.utcnow() + timedelta(seconds=REWARM_AFTER + 5)
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert fake_llm.warm_requests == []


async def test_a_model_that_cannot_call_tools_is_not_warmed(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Its commands go to Home Assistant's own agent: its prompt is not needed."""
    hass = ha_core
    fake_llm.props_body = LLAMA_CPP_PROPS
    fake_llm.probe_tool_reply = Reply.text("I cannot do that.")
    await add_agent(hass, fake_llm, background=True)
    assert fake_llm.warm_requests == []
