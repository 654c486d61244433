"""When Home Assistant cannot give the agent its tools or prompt, the user hears why.

HA's own words for these are English and say nothing of what to do ("Error preparing
LLM API", "Sorry, I had a problem with my template"); ours are in the user's language,
and the model is never asked.
"""

from typing import Any

import pytest

from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.components import conversation
from homeassistant.const import CONF_PROMPT
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import Unauthorized
from homeassistant.helpers import intent, llm

from tests.assist_pipeline import Door
from tests.fake_llm import FakeLLM
from tests.helpers import add_agent, converse, said, speech
from tests.test_conversation import FaultyAPI

# Instructions the options flow accepts (the template parses) that fail as they are
# rendered: a sensor that is gone has the state "unknown", no number.
BROKEN_PROMPT: dict[str, Any] = {
    CONF_PROMPT: "It is {{ states('sensor.outside') | float }} °C outside."
}
ADMIN_ONLY = {
    "en": "Only an administrator may use the tools this agent is set up with. An"
    " administrator can change that in the agent's settings.",
    "de": "Nur ein Administrator darf die Werkzeuge verwenden, mit denen dieser Agent"
    " eingerichtet ist. Ein Administrator kann das in den Einstellungen des Agenten"
    " ändern.",
}
API_GONE = {
    "en": "The tools this agent is set up with are not available right now, so I did"
    " nothing. An administrator can check the agent's settings.",
    "de": "Die Werkzeuge, mit denen dieser Agent eingerichtet ist, sind gerade nicht"
    " verfügbar, deshalb habe ich nichts getan. Ein Administrator kann die"
    " Einstellungen des Agenten prüfen.",
    "fr": "Les outils de cet agent ne sont pas disponibles pour le moment, je n'ai"
    " donc rien fait. Un administrateur peut vérifier les paramètres de l'agent.",
}
BROKEN_TEMPLATE = {
    "en": "My instructions template has an error, so I cannot answer. An"
    " administrator can fix it in the agent's settings.",
    "de": "Meine Anweisungsvorlage enthält einen Fehler, deshalb kann ich nicht"
    " antworten. Ein Administrator kann sie in den Einstellungen des Agenten"
    " korrigieren.",
    "fr": "Le modèle de mes instructions contient une erreur, je ne peux donc pas"
    " répondre. Un administrateur peut le corriger dans les paramètres de l'agent.",
}


class _AdminOnlyAPI(llm.API):
    """An HA LLM API that refuses a user who is no administrator itself.

    One HA marks `requires_admin` is never given to an agent's model
    (tests/test_unbounded_apis.py): only an API's own refusal reaches the user.
    """

    def __init__(self, hass: HomeAssistant) -> None:
        """Register as "admin_only"."""
        super().__init__(hass=hass, id="admin_only", name="Admin only")

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        """Refuse, as HA 2026.11 does for an API marked admin only."""
        raise Unauthorized(context=llm_context.context)


@pytest.mark.parametrize("language", ADMIN_ONLY)
async def test_an_admin_only_api_is_refused_in_words(
    ha_core: HomeAssistant, fake_llm: FakeLLM, language: str
) -> None:
    """A user who is no administrator hears why the agent cannot help, in their language."""
    hass = ha_core
    unregister = llm.async_register_api(hass, _AdminOnlyAPI(hass))
    agent = await add_agent(hass, fake_llm, apis=["admin_only"])
    user = await hass.auth.async_create_user("Guest", group_ids=[GROUP_ID_USER])

    result = await conversation.async_converse(
        hass, "unlock", None, Context(user_id=user.id), language, agent_id=agent
    )

    assert speech(result) == ADMIN_ONLY[language]
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert not fake_llm.requests
    unregister()


@pytest.mark.parametrize("language", API_GONE)
async def test_an_llm_api_removed_after_setup_is_told(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    caplog: pytest.LogCaptureFixture,
    language: str,
) -> None:
    """The integration behind the agent's tools was removed: said so, not "Error…"."""
    hass = ha_core
    unregister = llm.async_register_api(hass, FaultyAPI(hass))
    agent = await add_agent(hass, fake_llm, apis=["faulty"])
    unregister()

    result = await converse(hass, agent, "turn on the porch light", language=language)

    assert speech(result) == API_GONE[language]
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert result.conversation_id
    assert not fake_llm.requests
    # HA's log line names the API (ours would only repeat it).
    assert (
        "Error getting LLM API ['faulty'] for agentic_conversation: API faulty not found"
        in caplog.text
    )


@pytest.mark.parametrize("language", BROKEN_TEMPLATE)
async def test_a_broken_prompt_template_is_told(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    caplog: pytest.LogCaptureFixture,
    language: str,
) -> None:
    """Instructions that fail as they are rendered: told, with the detail in the log."""
    agent = await add_agent(ha_core, fake_llm, **BROKEN_PROMPT)

    result = await converse(ha_core, agent, "hello", language=language)

    assert speech(result) == BROKEN_TEMPLATE[language]
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert fake_llm.requests == []
    # HA's log line has the detail (ours would only repeat it).
    assert (
        "Error rendering prompt: ValueError: Template error: float got invalid input"
        " 'unknown'" in caplog.text
    )


async def test_a_broken_prompt_template_is_heard_through_every_door(
    ha_core: HomeAssistant, fake_llm: FakeLLM, door: Door
) -> None:
    """The dashboard gets the words and a conversation id; a satellite speaks them."""
    agent = await add_agent(ha_core, fake_llm, **BROKEN_PROMPT)
    ask = await door.open(ha_core, agent)

    result = await ask("hello", None)

    assert said(result) == BROKEN_TEMPLATE["en"]
    assert result["conversation_id"]
    if door.name == "pipeline":
        assert door.said == [BROKEN_TEMPLATE["en"]]
    assert fake_llm.requests == []
