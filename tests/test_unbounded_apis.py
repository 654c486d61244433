"""An LLM API exposure does not bound is never given to an agent's model.

Home Assistant 2026.11's own "Home Assistant" API (administrators only) renders any
template and calls any action on any target. An administrator's agent set up with it
read a lock hidden from Assist ("['Front door'] ['locked']") through
`homeassistant__render_template`. Such an API (HA marks it `requires_admin`) is not
offered by the agent form, and an agent saved with one leaves it out of every turn,
with a Repair that says so.
"""

import json
import logging
from typing import Any

import probatio
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import InvalidData
from homeassistant.helpers import issue_registry as ir, llm
from homeassistant.util.json import JsonObjectType

from custom_components.agentic_conversation.const import DOMAIN
from tests.acceptance.home import async_build_home, states
from tests.agent_form import selectors, shown, submit
from tests.fake_llm import FakeLLM, Reply
from tests.helpers import add_agent, speech

BEYOND = "beyond_exposure"
HIDDEN = "lock.front_door"


class _ReadAnything(llm.Tool):
    name = "read_anything"
    description = "The name and state of every lock."
    parameters = probatio.Schema({})

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: Any
    ) -> JsonObjectType:
        """Every lock, exposed or not."""
        return {s.name: s.state for s in hass.states.async_all("lock")}


class _BeyondExposureAPI(llm.API):
    """An API for administrators whose tool reads any entity."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Register as "beyond_exposure", marked as HA marks its own admin API."""
        super().__init__(hass=hass, id=BEYOND, name="Beyond exposure")
        self.requires_admin = True

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """The instance with the tool."""
        return llm.APIInstance(
            api=self,
            api_prompt="Read anything.",
            llm_context=llm_context,
            tools=[_ReadAnything()],
        )


@pytest.fixture
async def home(ha_core: HomeAssistant) -> HomeAssistant:
    """The acceptance home, its front door lock hidden from Assist."""
    await async_build_home(ha_core)
    async_expose_entity(ha_core, conversation.DOMAIN, HIDDEN, False)
    return ha_core


async def _as_admin(hass: HomeAssistant, agent: str, text: str) -> str:
    admin = await hass.auth.async_create_user("Admin", group_ids=["system-admin"])
    result = await conversation.async_converse(
        hass, text, None, Context(user_id=admin.id), "en", agent_id=agent
    )
    return speech(result)


def _issue(hass: HomeAssistant) -> ir.IssueEntry | None:
    (entry,) = hass.config_entries.async_entries(DOMAIN)
    (agent,) = entry.subentries
    return ir.async_get(hass).async_get_issue(DOMAIN, f"unbounded_api_{agent}")


async def test_an_agent_saved_with_one_leaves_it_out(
    home: HomeAssistant, fake_llm: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    """The model never gets its tool or prompt; the rest works; a Repair tells."""
    hass = home
    unregister = llm.async_register_api(hass, _BeyondExposureAPI(hass))
    agent = await add_agent(
        hass, fake_llm, apis=[llm.LLM_API_ASSIST, BEYOND], local_first=False
    )
    turn_on = next(  # HA 2026.10 prefixes every tool of a merged API, 2026.11 not
        t["function"]["name"]
        for t in (await _offered(hass, fake_llm, agent))
        if t["function"]["name"].endswith("HassTurnOn")
    )
    fake_llm.script(
        [
            Reply.tool_calls([(turn_on, {"name": "Kitchen ceiling"})]),
            Reply.text("Done."),
        ]
    )
    before = states(hass)

    heard = await _as_admin(hass, agent, "turn on the kitchen ceiling")

    assert heard == "Done."
    assert states(hass) == before | {"light.kitchen_ceiling": "on"}
    request = json.dumps(fake_llm.requests[-2])
    assert "read_anything" not in request
    assert "Read anything." not in request
    assert "Front door" not in request
    issue = _issue(hass)
    assert issue is not None
    assert issue.translation_key == "unbounded_api"
    assert issue.translation_placeholders == {
        "agent": "Agent",
        "apis": "Beyond exposure",
    }
    assert issue.is_fixable is False
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        (
            "Agent Agent is set up with beyond_exposure, whose tools are not bounded"
            " by exposure to Assist; it is left out"
        )
    ]

    # The agent's options drop it: the Repair goes.
    (entry,) = hass.config_entries.async_entries(DOMAIN)
    (subentry,) = entry.subentries.values()
    hass.config_entries.async_update_subentry(
        entry,
        subentry,
        data={**subentry.data, CONF_LLM_HASS_API: [llm.LLM_API_ASSIST]},
    )
    await hass.async_block_till_done()
    assert _issue(hass) is None
    unregister()


async def _offered(
    hass: HomeAssistant, fake_llm: FakeLLM, agent: str
) -> list[dict[str, Any]]:
    """The tools the model is offered (one turn, answered with words)."""
    fake_llm.script([Reply.text("Hello.")])
    assert await _as_admin(hass, agent, "hello") == "Hello."
    tools: list[dict[str, Any]] = fake_llm.requests[-1]["tools"]
    return tools


async def test_an_agent_with_only_that_api_chats(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Nothing else selected: the model gets no tools at all."""
    hass = home
    unregister = llm.async_register_api(hass, _BeyondExposureAPI(hass))
    agent = await add_agent(hass, fake_llm, apis=[BEYOND], local_first=False)
    fake_llm.script([Reply.text("Which lock do you mean?")])

    heard = await _as_admin(hass, agent, "what locks are there")

    assert heard == "Which lock do you mean?"
    assert "tools" not in fake_llm.requests[-1]
    assert "Front door" not in json.dumps(fake_llm.requests[-1])
    assert _issue(hass) is not None
    unregister()


async def test_the_form_does_not_offer_it(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Not in the choices; an agent saved with it is shown and saved without it."""
    hass = home
    unregister = llm.async_register_api(hass, _BeyondExposureAPI(hass))
    await add_agent(hass, fake_llm, apis=[llm.LLM_API_ASSIST, BEYOND])
    (entry,) = hass.config_entries.async_entries(DOMAIN)
    assert isinstance(entry, MockConfigEntry)
    (subentry,) = entry.subentries.values()

    result = await entry.start_subentry_reconfigure_flow(hass, subentry.subentry_id)

    choices = selectors(result)[CONF_LLM_HASS_API].config["options"]
    offered = {choice["value"] for choice in choices}
    assert llm.LLM_API_ASSIST in offered
    assert BEYOND not in offered
    assert shown(result)[CONF_LLM_HASS_API] == [llm.LLM_API_ASSIST]
    # Sent anyway (a hand-made request): refused, and nothing is saved.
    with pytest.raises(InvalidData):
        await submit(
            hass,
            result,
            {**shown(result), CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, BEYOND]},
        )
    assert entry.subentries[subentry.subentry_id].data[CONF_LLM_HASS_API] == [
        llm.LLM_API_ASSIST,
        BEYOND,
    ]
    result = await entry.start_subentry_reconfigure_flow(hass, subentry.subentry_id)
    result = await submit(hass, result, {**shown(result)})
    assert result["reason"] == "reconfigure_successful"
    assert entry.subentries[subentry.subentry_id].data[CONF_LLM_HASS_API] == [
        llm.LLM_API_ASSIST
    ]
    await hass.async_block_till_done()
    assert _issue(hass) is None
    unregister()


@pytest.mark.skipif(
    not hasattr(llm, "LLM_API_HOME_ASSISTANT"), reason="HA's own admin API: 2026.11+"
)
async def test_home_assistants_own_admin_api_is_left_out(
    home: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Its template tool is not offered: a call of it reads nothing, acts on nothing."""
    hass = home
    own = str(getattr(llm, "LLM_API_HOME_ASSISTANT", ""))
    agent = await add_agent(
        hass, fake_llm, apis=[llm.LLM_API_ASSIST, own], local_first=False
    )
    offered = {t["function"]["name"] for t in await _offered(hass, fake_llm, agent)}
    template = "{{ states.lock | map(attribute='name') | list }}"
    fake_llm.script(
        [
            Reply.tool_calls(
                [("homeassistant__render_template", {"template": template})]
            ),
            Reply.text("There are no locks."),
        ]
    )

    heard = await _as_admin(hass, agent, "what locks are there")

    assert (
        not {"homeassistant__render_template", "homeassistant__call_action"} & offered
    )
    # A call of a tool not offered is an attempted action that did not happen.
    assert heard == "I couldn't do that: there is no such action."
    assert "Front door" not in json.dumps(fake_llm.requests[-1])
    assert states(hass)[HIDDEN] == "locked"
    assert _issue(hass) is not None
