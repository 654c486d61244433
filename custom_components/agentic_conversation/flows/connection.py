"""The connection flow: a server's address and key, checked by listing its models."""

from collections.abc import Mapping
from typing import Any, override

import probatio

from homeassistant.config_entries import (
    ConfigEntry,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryFlow,
)
from homeassistant.const import CONF_API_KEY
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.httpx_client import get_async_client
from homeassistant.helpers.selector import (
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from ..agent import LLMAuthError, LLMError, LLMForbiddenError, OpenAICompatibleProvider
from ..const import (
    CONF_BASE_URL,
    DEFAULT_AGENT_NAME,
    DEFAULT_BASE_URL,
    DOMAIN,
    LOGGER,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
)
from ..redact import redact_url
from .agent import AgentSubentryFlow
from .agent_schema import default_agent_options
from .ai_task import AiTaskSubentryFlow
from .form import PASSWORD

# Listing models is all validation needs; a server that takes longer is not usable.
VALIDATION_TIMEOUT = 10.0


def _connection_schema(base_url: str = DEFAULT_BASE_URL) -> probatio.Schema:
    return probatio.Schema(
        {
            probatio.Required(CONF_BASE_URL, default=base_url): TextSelector(
                TextSelectorConfig(type=TextSelectorType.URL)
            ),
            probatio.Optional(CONF_API_KEY): PASSWORD,
        }
    )


def _clean_connection(user_input: Mapping[str, Any]) -> dict[str, str]:
    """The entry data for a form's input: a tidy URL, a key only if one was given."""
    data = {CONF_BASE_URL: str(user_input[CONF_BASE_URL]).strip().rstrip("/")}
    if api_key := str(user_input.get(CONF_API_KEY) or "").strip():
        data[CONF_API_KEY] = api_key
    return data


async def async_list_models(hass: HomeAssistant, data: Mapping[str, Any]) -> list[str]:
    """The models a server offers; raises LLMError if it cannot be asked."""
    provider = OpenAICompatibleProvider(
        base_url=data[CONF_BASE_URL],
        api_key=data.get(CONF_API_KEY),
        model="",
        timeout=VALIDATION_TIMEOUT,
        http_client=get_async_client(hass),
    )
    return await provider.async_list_models()


async def _async_validate(
    hass: HomeAssistant, data: Mapping[str, Any]
) -> tuple[list[str], dict[str, str]]:
    """List the server's models; form errors if that fails."""
    url = data[CONF_BASE_URL]
    try:
        cv.url(url)
    except probatio.Invalid:
        return [], {"base": "invalid_url"}
    try:
        models = await async_list_models(hass, data)
    except LLMAuthError:
        return [], {"base": "invalid_auth"}
    except LLMForbiddenError as err:
        LOGGER.info("%s refused to list models: %s", redact_url(url), err)
        return [], {"base": "forbidden"}
    except LLMError as err:
        LOGGER.info("Cannot connect to %s: %s", redact_url(url), redact_url(str(err)))
        return [], {"base": "cannot_connect"}
    except Exception:  # noqa: BLE001 - anything else is shown as "unknown", logged
        LOGGER.exception("Unexpected error validating %s", redact_url(url))
        return [], {"base": "unknown"}
    return models, {}


class AgenticConversationConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up a connection to an OpenAI-compatible server."""

    VERSION = 1
    # 1.2: integer options stored as ints (async_migrate_entry).
    MINOR_VERSION = 2

    @override
    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Ask for the server's address and key; check them by listing models."""
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _clean_connection(user_input)
            self._async_abort_entries_match(data)
            models, errors = await _async_validate(self.hass, data)
            if not errors:
                return self.async_create_entry(
                    title=redact_url(data[CONF_BASE_URL]),
                    data=data,
                    subentries=[
                        {
                            "subentry_type": SUBENTRY_CONVERSATION,
                            "data": default_agent_options(models),
                            "title": DEFAULT_AGENT_NAME,
                            "unique_id": None,
                        }
                    ],
                )
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(
                _connection_schema(), user_input
            ),
            errors=errors,
        )

    async def async_step_reauth(
        self, entry_data: Mapping[str, Any]
    ) -> ConfigFlowResult:
        """The server refused the key: ask for a new one."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Take the new key, check it, and reload the connection."""
        entry = self._get_reauth_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _clean_connection({**entry.data, **user_input})
            _, errors = await _async_validate(self.hass, data)
            if not errors:
                return self.async_update_reload_and_abort(entry, data=data)
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=probatio.Schema({probatio.Optional(CONF_API_KEY): PASSWORD}),
            description_placeholders={
                CONF_BASE_URL: redact_url(entry.data[CONF_BASE_URL])
            },
            errors=errors,
        )

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Change the server address or key of a connection."""
        entry = self._get_reconfigure_entry()
        errors: dict[str, str] = {}
        if user_input is not None:
            data = _clean_connection(user_input)
            if CONF_API_KEY not in data and CONF_API_KEY in entry.data:
                # The key field is never pre-filled: left blank, the stored key stays.
                data[CONF_API_KEY] = entry.data[CONF_API_KEY]
            self._async_abort_entries_match(data)
            _, errors = await _async_validate(self.hass, data)
            if not errors:
                return self.async_update_reload_and_abort(
                    entry, data=data, title=redact_url(data[CONF_BASE_URL])
                )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                _connection_schema(entry.data[CONF_BASE_URL]),
                user_input or {CONF_BASE_URL: entry.data[CONF_BASE_URL]},
            ),
            errors=errors,
        )

    @classmethod
    @callback
    @override
    def async_get_supported_subentry_types(
        cls, config_entry: ConfigEntry
    ) -> dict[str, type[ConfigSubentryFlow]]:
        """Agents and AI tasks are subentries of a connection."""
        return {
            SUBENTRY_CONVERSATION: AgentSubentryFlow,
            SUBENTRY_AI_TASK: AiTaskSubentryFlow,
        }
