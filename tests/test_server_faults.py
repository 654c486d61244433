"""A server that is up but set up wrongly: the light still goes on, the cause is heard.

A Repair names the fix until the server answers again.
"""

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir

from custom_components.agentic_conversation.const import DOMAIN
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import say as _say, state_of as _state
from tests.server_replies import SETUP_ERRORS, setup_reply
from tests.test_local_route import LIGHT, _agent, home

__all__ = ["home"]  # the fixture: an exposed porch light and front door

# What the user hears before Home Assistant's own agent's words, per fault.
PREFACES = {
    "vllm_tool_parser": "The model server is set up without tool calling, so Home"
    " Assistant's own assistant answered: ",
    "llamacpp_jinja": "The model server is set up without tool calling, so Home"
    " Assistant's own assistant answered: ",
    "model_without_tools": "The model server is set up without tool calling, so Home"
    " Assistant's own assistant answered: ",
    "context_size": "This request is too long for the model's context size, so Home"
    " Assistant's own assistant answered: ",
    "ollama_pull": "The model isn't installed on the server, so Home Assistant's own"
    " assistant answered: ",
    "model_missing": "The model isn't installed on the server, so Home Assistant's own"
    " assistant answered: ",
}


def _fault_issue(hass: HomeAssistant) -> ir.IssueEntry | None:
    entry = hass.config_entries.async_entries(DOMAIN)[0]
    (subentry_id,) = entry.subentries
    return ir.async_get(hass).async_get_issue(DOMAIN, f"server_fault_{subentry_id}")


@pytest.mark.parametrize("name", SETUP_ERRORS)
async def test_a_misconfigured_server_gets_a_repair_and_the_light_goes_on(
    home: HomeAssistant, fake_llm: FakeLLM, name: str
) -> None:
    """The local route acts, the cause is said, the Repair names the fix; then cleared."""
    hass = home
    status, _, fix, figures = SETUP_ERRORS[name]
    agent = await _agent(hass, fake_llm.base_url)
    await hass.async_block_till_done(wait_background_tasks=True)
    # A 5xx is retried once.
    fake_llm.script([setup_reply(name)] * (2 if status >= 500 else 1))

    speech = await _say(hass, agent, "turn on the porch light")

    assert _state(hass, LIGHT) == "on"
    assert speech == PREFACES[fix] + "Turned on the light"
    issue = _fault_issue(hass)
    assert issue is not None
    assert issue.translation_key == fix
    placeholders = issue.translation_placeholders or {}
    assert placeholders["agent"] == "Agent"
    assert figures.items() <= placeholders.items()

    # The admin fixed the server: the next answer clears the Repair.
    fake_llm.script([Reply.text("Hello!")])
    assert await _say(hass, agent, "hello") == "Hello!"
    assert _fault_issue(hass) is None


async def test_without_the_local_route_the_cause_is_said(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Local route off: the true cause and where the fix is, nothing switched."""
    hass = home
    agent = await _agent(hass, fake_llm.base_url, local_fallback=False)
    await hass.async_block_till_done(wait_background_tasks=True)
    fake_llm.script([setup_reply("vllm no tool parser")])

    speech = await _say(hass, agent, "turn on the porch light")

    assert speech == (
        "The model server is set up without tool calling, so I can't act."
        " Settings, Repairs says how to fix it."
    )
    assert _state(hass, LIGHT) == "off"
    assert _fault_issue(hass) is not None
