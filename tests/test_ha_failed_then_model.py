"""Home Assistant understood the command and it failed: the model's "Done." is not heard.

"Open the pergola roof" on a roof that only tilts: with local first, HA's own agent
reads it, runs its intent and the cover refuses (`open_cover` is not supported). The
model then had the turn, and its "Done, the roof is open." was heard while the roof
stayed shut. Now, while the model does nothing after HA's failed run, the user hears
which device did not do it ("Pergola roof did not open: …"; HA's error names none:
the devices its intent targeted are told) and the model's closing question, if it
asks one; when the model acts on it itself (it tilts the roof), the roof decides.
"""

from typing import Any

import pytest

from homeassistant.components import conversation
from homeassistant.components.cover import CoverDeviceClass, CoverEntity
from homeassistant.components.cover.const import CoverEntityFeature
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.config_flow import default_agent_options
from custom_components.agentic_conversation.const import (
    CONF_ALLOWED_SERVICES,
    CONF_LOCAL_FIRST,
    CONF_VERIFY_TIMEOUT,
)
from tests.across_releases import offered_name
from tests.fake_llm import FakeLLM, Reply, closed_port_url
from tests.helpers import add_agent, async_test_platforms, converse, speech

ROOF = "cover.pergola_roof"
APIS = default_agent_options([])["llm_hass_api"]


class Shutter(CoverEntity):
    """A cover that opens and closes at once."""

    _attr_supported_features = CoverEntityFeature.OPEN | CoverEntityFeature.CLOSE

    def __init__(
        self, name: str, *, closed: bool, device_class: CoverDeviceClass | None = None
    ) -> None:
        """Open or closed, of its class."""
        self._attr_name = name
        self._attr_unique_id = name.lower().replace(" ", "_")
        self._attr_is_closed = closed
        self._attr_device_class = device_class

    async def async_close_cover(self, **_: Any) -> None:
        """Closed."""
        self._attr_is_closed = True
        self.async_write_ha_state()


class Roof(CoverEntity):
    """A pergola roof: its slats tilt; it cannot open."""

    _attr_supported_features = (
        CoverEntityFeature.OPEN_TILT | CoverEntityFeature.CLOSE_TILT
    )
    _attr_name = "Pergola roof"
    _attr_unique_id = "pergola_roof"
    _attr_current_cover_tilt_position = 0
    _attr_is_closed = True

    async def async_open_cover_tilt(self, **_: Any) -> None:
        """The slats open."""
        self._attr_current_cover_tilt_position = 100
        self._attr_is_closed = False
        self.async_write_ha_state()


@pytest.fixture
async def local(ha_core: HomeAssistant, fake_llm: FakeLLM) -> str:
    """The roof, exposed; an agent with local first that may call cover services."""
    hass = ha_core
    await async_test_platforms(hass, {"cover": [Roof()]})
    options: dict[str, Any] = {
        CONF_LOCAL_FIRST: True,
        CONF_ALLOWED_SERVICES: ["cover"],
        CONF_VERIFY_TIMEOUT: 0.5,
    }
    return await add_agent(hass, fake_llm, apis=APIS, **options)


def _roof(hass: HomeAssistant) -> tuple[str, int]:
    state = hass.states.get(ROOF)
    assert state is not None
    return state.state, int(state.attributes["current_tilt_position"])


@pytest.mark.parametrize(
    ("language", "text", "heard"),
    [
        ("en", "open the pergola roof", "Pergola roof did not open: Home Assistant reported an error."),
        ("de", "öffne Pergola roof", "Pergola roof hat sich nicht geöffnet: Home Assistant hat einen Fehler gemeldet."),
        ("fr", "ouvre Pergola roof", "Pergola roof ne s'est pas ouvert : Home Assistant a signalé une erreur."),
    ],
)  # fmt: skip
async def test_the_models_done_after_has_failure_is_not_heard(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    *,
    language: str,
    text: str,
    heard: str,
) -> None:
    """HA's run failed, the model did nothing and said done: the failure is heard."""
    hass = ha_core
    fake_llm.script([Reply.text("Done, the roof is open.")])

    result = await converse(hass, local, text, language=language)

    assert speech(result) == heard
    assert _roof(hass) == ("closed", 0)
    assert len(fake_llm.requests) == 1


async def test_the_models_question_follows_the_failure(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """The model offers another way: heard after what failed; nothing moved."""
    hass = ha_core
    fake_llm.script([Reply.text("It only tilts. Shall I tilt it open instead?")])

    result = await converse(hass, local, "open the pergola roof")

    assert speech(result) == (
        "Pergola roof did not open: Home Assistant reported an error."
        " Shall I tilt it open instead?"
    )
    assert _roof(hass) == ("closed", 0)


async def test_the_model_that_tilts_the_roof_is_heard(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """After HA's failure the model tilts the slats: the roof shows it, its words stand."""
    hass = ha_core
    call_service = await offered_name(hass, APIS, "call_service")
    tilt = {
        "domain": "cover",
        "service": "open_cover_tilt",
        "target": {"entity_id": ROOF},
    }
    fake_llm.script(
        [
            Reply.tool_calls([(call_service, tilt)]),
            Reply.text("The roof only tilts, so I opened its slats."),
        ]
    )

    result = await converse(hass, local, "open the pergola roof")

    assert speech(result) == "The roof only tilts, so I opened its slats."
    assert _roof(hass) == ("open", 100)


async def test_all_the_covers_closed_though_ha_names_a_closed_one_failed(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The roof cannot close; HA's `failed` may name another: every cover is shut.

    HA pairs its calls with the covers in the order the calls complete, so the
    roof's refusal can be put on the shed door, which was shut already. The user
    hears HA's words, not that a shut door "did not close".
    """
    hass = ha_core
    covers = [
        Shutter("Shed door", closed=True),
        Roof(),
        Shutter("Hall blind", closed=False),
    ]
    await async_test_platforms(hass, {"cover": covers})
    ids = ("cover.shed_door", ROOF, "cover.hall_blind")
    options: dict[str, Any] = {CONF_LOCAL_FIRST: True, CONF_VERIFY_TIMEOUT: 0.5}
    agent = await add_agent(hass, fake_llm, **options)

    result = await converse(hass, agent, "close all the covers")

    assert speech(result) == "Closing"
    assert [hass.states.get(e).state for e in ids] == ["closed"] * 3  # type: ignore[union-attr]
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("route", "heard"),
    [
        ("down", "The AI service isn't available, so I used the basic assistant: Pergola roof did not open: Home Assistant reported an error."),
        ("cannot act", "Pergola roof did not open: Home Assistant reported an error."),
    ],
)  # fmt: skip
async def test_without_a_model_that_acts_the_device_is_told(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    local: str,
    socket_enabled: None,
    *,
    route: str,
    heard: str,
) -> None:
    """No model, or one that cannot call tools: not HA's "An unexpected error occurred"."""
    hass = ha_core
    if route == "down":
        agent = await add_agent(hass, closed_port_url(), minor_version=2, title="Down")
    else:
        fake_llm.probe_tool_reply = Reply.text("I cannot call tools.")
        agent = await add_agent(
            hass, fake_llm, title="Chat", background=True, local_first=False
        )
        await hass.async_block_till_done(wait_background_tasks=True)  # the probe

    result = await converse(hass, agent, "open the pergola roof")

    assert speech(result) == heard
    assert _roof(hass) == ("closed", 0)
    asked = [m for r in fake_llm.requests for m in r["messages"] if m["role"] == "user"]
    assert "open the pergola roof" not in [m["content"] for m in asked]  # HA's run


async def test_in_a_compound_command_what_ran_is_told_first(
    ha_core: HomeAssistant, fake_llm: FakeLLM, local: str
) -> None:
    """The porch light turned on, then the roof refused: both are told, by name."""
    hass = ha_core
    switched = {"porch_light": {"name": "Porch light"}}
    assert await async_setup_component(
        hass, "input_boolean", {"input_boolean": switched}
    )
    async_expose_entity(hass, conversation.DOMAIN, "input_boolean.porch_light", True)
    fake_llm.script([Reply.text("Done.")])

    result = await converse(
        hass, local, "turn on the porch light and open the pergola roof"
    )

    assert speech(result) == (
        "I turned on Porch light; Pergola roof did not open: Home Assistant reported"
        " an error."
    )
    assert hass.states.get("input_boolean.porch_light").state == "on"  # type: ignore[union-attr]
    assert _roof(hass) == ("closed", 0)
