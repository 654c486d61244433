"""Config flow: a connection to an OpenAI-compatible server, and its agents."""

from collections.abc import Mapping
import re
from typing import Any, Final, override

import probatio

from homeassistant.config_entries import (
    SOURCE_USER,
    ConfigEntry,
    ConfigEntryState,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_API_KEY, CONF_LLM_HASS_API, CONF_NAME, CONF_PROMPT
from homeassistant.core import HomeAssistant, callback
from homeassistant.data_entry_flow import section
from homeassistant.helpers import config_validation as cv, llm
from homeassistant.helpers.httpx_client import get_async_client
from homeassistant.helpers.selector import (
    BooleanSelector,
    EntitySelector,
    EntitySelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TemplateSelector,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .agent import LLMAuthError, LLMError, LLMForbiddenError, OpenAICompatibleProvider
from .const import (
    COMPACT_API_ID,
    CONF_ALLOWED_SERVICES,
    CONF_BASE_URL,
    CONF_CONFIRM_ENTITIES,
    CONF_CONFIRM_PIN,
    CONF_CONTEXT_WINDOW,
    CONF_CONVERSATION_EXPIRY,
    CONF_DEVICE_CONTINUITY,
    CONF_ENABLED_TOOLS,
    CONF_EXTRA_BODY,
    CONF_EXTRA_HEADERS,
    CONF_FALLBACK_MODEL,
    CONF_FIRST_TOKEN_TIMEOUT,
    CONF_HISTORY_TOKENS,
    CONF_LOCAL_FALLBACK,
    CONF_LOCAL_FIRST,
    CONF_MAX_CONVERSATIONS,
    CONF_MAX_ITERATIONS,
    CONF_MAX_TOKENS,
    CONF_MEMORY_SHARED,
    CONF_MODEL,
    CONF_RECOMMENDED,
    CONF_STREAM,
    CONF_TEMPERATURE,
    CONF_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER,
    CONF_WEATHER_ENTITY,
    DEFAULT_AGENT_NAME,
    DEFAULT_ALLOWED_SERVICES,
    DEFAULT_BASE_URL,
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_CONVERSATION_EXPIRY,
    DEFAULT_DEVICE_CONTINUITY,
    DEFAULT_ENABLED_TOOLS,
    DEFAULT_FIRST_TOKEN_TIMEOUT,
    DEFAULT_HISTORY_TOKENS,
    DEFAULT_LOCAL_FALLBACK,
    DEFAULT_LOCAL_FIRST,
    DEFAULT_MAX_CONVERSATIONS,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MEMORY_SHARED,
    DEFAULT_MODEL,
    DEFAULT_STREAM,
    DEFAULT_TEMPERATURE,
    DEFAULT_TOOL_TIMEOUT,
    DEFAULT_TURN_TIMEOUT,
    DEFAULT_WAIT_PHRASE_AFTER,
    DOMAIN,
    LLM_API_ID,
    LOGGER,
    MAX_CONVERSATION_EXPIRY,
    SUBENTRY_CONVERSATION,
    TOOL_NAMES,
)
from .provider_factory import fallback_choices
from .redact import redact_url
from .server.extras import ExtrasError, parse_body_extras, parse_header_extras

# Listing models is all validation needs; a server that takes longer is not usable.
VALIDATION_TIMEOUT = 10.0

_PASSWORD = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))
# A spoken confirmation PIN: ASCII digits only (str.isdigit also takes "²" or "٣").
_PIN = re.compile(r"[0-9]{4,10}")


def _connection_schema(base_url: str = DEFAULT_BASE_URL) -> probatio.Schema:
    return probatio.Schema(
        {
            probatio.Required(CONF_BASE_URL, default=base_url): TextSelector(
                TextSelectorConfig(type=TextSelectorType.URL)
            ),
            probatio.Optional(CONF_API_KEY): _PASSWORD,
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


# What the "recommended settings" switch sets, and hides: the memory and the limits
# and timing sections.
RECOMMENDED_OPTIONS: Final[Mapping[str, Any]] = {
    CONF_CONVERSATION_EXPIRY: DEFAULT_CONVERSATION_EXPIRY,
    CONF_MAX_CONVERSATIONS: DEFAULT_MAX_CONVERSATIONS,
    CONF_DEVICE_CONTINUITY: DEFAULT_DEVICE_CONTINUITY,
    CONF_MEMORY_SHARED: DEFAULT_MEMORY_SHARED,
    CONF_MAX_ITERATIONS: DEFAULT_MAX_ITERATIONS,
    CONF_TOOL_TIMEOUT: DEFAULT_TOOL_TIMEOUT,
    CONF_TURN_TIMEOUT: DEFAULT_TURN_TIMEOUT,
    CONF_FIRST_TOKEN_TIMEOUT: DEFAULT_FIRST_TOKEN_TIMEOUT,
    CONF_WAIT_PHRASE_AFTER: DEFAULT_WAIT_PHRASE_AFTER,
    CONF_TEMPERATURE: DEFAULT_TEMPERATURE,
    CONF_MAX_TOKENS: DEFAULT_MAX_TOKENS,
    CONF_HISTORY_TOKENS: DEFAULT_HISTORY_TOKENS,
    CONF_CONTEXT_WINDOW: DEFAULT_CONTEXT_WINDOW,
    CONF_STREAM: DEFAULT_STREAM,
}


def default_agent_options(models: list[str]) -> dict[str, Any]:
    """The options of the agent created with a new connection."""
    if DEFAULT_MODEL in models or not models:
        model = DEFAULT_MODEL
    else:
        model = models[0]
    return {
        CONF_MODEL: model,
        CONF_PROMPT: llm.DEFAULT_INSTRUCTIONS_PROMPT,
        # HA's intents and our tools, with a prompt that does not grow with the home
        # (the model searches for entities instead of reading a list of them).
        CONF_LLM_HASS_API: [COMPACT_API_ID],
        CONF_ALLOWED_SERVICES: list(DEFAULT_ALLOWED_SERVICES),
        CONF_ENABLED_TOOLS: list(DEFAULT_ENABLED_TOOLS),
        CONF_CONFIRM_ENTITIES: [],
        CONF_LOCAL_FALLBACK: DEFAULT_LOCAL_FALLBACK,
        CONF_LOCAL_FIRST: DEFAULT_LOCAL_FIRST,
        CONF_RECOMMENDED: True,
        **RECOMMENDED_OPTIONS,
    }


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
            data_schema=probatio.Schema({probatio.Optional(CONF_API_KEY): _PASSWORD}),
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
        """Agents are subentries of a connection."""
        return {SUBENTRY_CONVERSATION: AgentSubentryFlow}


class AgentSubentryFlow(ConfigSubentryFlow):
    """Create or change an agent: its model, prompt, tools and limits."""

    async def async_step_user(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Add an agent."""
        return await self.async_step_new_agent(user_input)

    async def async_step_new_agent(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """The form of a new agent."""
        return await self._async_agent_form(user_input)

    async def async_step_reconfigure(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """Change an agent."""
        return await self.async_step_set_options(user_input)

    async def async_step_set_options(
        self, user_input: dict[str, Any] | None = None
    ) -> SubentryFlowResult:
        """The form of an existing agent, titled with its name."""
        return await self._async_agent_form(user_input)

    async def _async_agent_form(
        self, user_input: dict[str, Any] | None
    ) -> SubentryFlowResult:
        """Show the sectioned form; save its values flat."""
        entry = self._get_entry()
        if entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="entry_not_loaded")
        is_new = self.source == SOURCE_USER
        placeholders = {"connection": entry.title}
        if is_new:
            stored: dict[str, Any] = {
                CONF_NAME: DEFAULT_AGENT_NAME,
                **default_agent_options(entry.runtime_data.models),
            }
        else:
            subentry = self._get_reconfigure_subentry()
            stored = dict(subentry.data)
            placeholders["agent"] = subentry.title

        def show(
            options: Mapping[str, Any],
            recommended: bool,
            errors: dict[str, str] | None = None,
            reveal: bool = False,
        ) -> SubentryFlowResult:
            schema = _agent_schema(
                self.hass,
                is_new,
                entry.runtime_data.models,
                tuning=not recommended,
                reveal=reveal,
            )
            suggested = _nest(schema, {**options, CONF_RECOMMENDED: recommended})
            form: dict[str, Any] = {
                "data_schema": self.add_suggested_values_to_schema(schema, suggested),
                "errors": _on_sections(schema, errors or {}),
                "description_placeholders": placeholders,
            }
            # Two steps, one form: the titles differ (a new agent has no name yet).
            if is_new:
                return self.async_show_form(step_id="new_agent", **form)
            return self.async_show_form(step_id="set_options", **form)

        if user_input is None:
            return show(stored, _is_recommended(stored))
        recommended = bool(user_input.get(CONF_RECOMMENDED, True))
        options = _flatten(user_input)
        if recommended:
            options.update(RECOMMENDED_OPTIONS)
        elif not TUNING_SECTIONS & user_input.keys():
            # Just switched off: the tuning sections appear with the agent's values.
            tuning = {k: stored[k] for k in RECOMMENDED_OPTIONS if k in stored}
            return show({**tuning, **options}, False, reveal=True)
        if errors := _check_agent_options(options):
            return show(options, recommended, errors)
        options[CONF_RECOMMENDED] = recommended
        if is_new:
            name = options.pop(CONF_NAME)
            return self.async_create_entry(title=name, data=options)
        return self.async_update_and_abort(
            entry, self._get_reconfigure_subentry(), data=options
        )


def _is_recommended(options: Mapping[str, Any]) -> bool:
    """The switch as saved; an agent saved before it existed: its values tell."""
    if CONF_RECOMMENDED in options:
        return bool(options[CONF_RECOMMENDED])
    return all(options.get(k, v) == v for k, v in RECOMMENDED_OPTIONS.items())


def _check_agent_options(options: dict[str, Any]) -> dict[str, str]:
    """Tidy the flat options in place; the errors by field."""
    errors: dict[str, str] = {}
    for optional in (CONF_LLM_HASS_API, CONF_FALLBACK_MODEL):
        if not options.get(optional):
            options.pop(optional, None)
    # An empty PIN means none: it is not stored.
    if pin := str(options.pop(CONF_CONFIRM_PIN, None) or "").strip():
        options[CONF_CONFIRM_PIN] = pin
        if not _PIN.fullmatch(pin):
            errors[CONF_CONFIRM_PIN] = "invalid_pin"
    if _overlapping_apis(options.get(CONF_LLM_HASS_API) or []):
        errors[CONF_LLM_HASS_API] = "compact_with_its_parts"
    if options[CONF_TURN_TIMEOUT] <= options[CONF_TOOL_TIMEOUT]:
        errors[CONF_TURN_TIMEOUT] = "turn_timeout_too_short"
    if options[CONF_CONTEXT_WINDOW] <= options[CONF_MAX_TOKENS]:
        errors[CONF_CONTEXT_WINDOW] = "context_window_too_small"
    for field, parse in (
        (CONF_EXTRA_BODY, parse_body_extras),
        (CONF_EXTRA_HEADERS, parse_header_extras),
    ):
        if not (text := str(options.pop(field, None) or "").strip()):
            continue  # none: not stored
        options[field] = text
        try:
            parse(text)
        except ExtrasError as err:
            errors.update({field: err.key})  # its keys: ExtrasError(...) in extras.py
    return errors


def _overlapping_apis(apis: list[str]) -> bool:
    """Compact home control already holds Assist's intents and our tools.

    With either beside it the model would get every tool twice, and two sets of
    instructions for controlling devices.
    """
    return COMPACT_API_ID in apis and bool({llm.LLM_API_ASSIST, LLM_API_ID} & set(apis))


# The agent form's sections; the runtime reads their fields flat.
SECTION_MODEL: Final = "model_and_instructions"
SECTION_CONTROL: Final = "control_and_safety"
SECTION_FALLBACK: Final = "fallback"
SECTION_MEMORY: Final = "memory"
SECTION_LIMITS: Final = "limits_and_timing"
SECTION_SERVER: Final = "server_extras"
SECTIONS: Final = frozenset(
    {
        SECTION_MODEL,
        SECTION_CONTROL,
        SECTION_FALLBACK,
        SECTION_MEMORY,
        SECTION_LIMITS,
        SECTION_SERVER,
    }
)
# Hidden while the recommended settings are on.
TUNING_SECTIONS: Final = frozenset({SECTION_MEMORY, SECTION_LIMITS})


def _flatten(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """The form's sections as one flat mapping, without the switch."""
    flat: dict[str, Any] = {}
    for key, value in user_input.items():
        if key in SECTIONS:
            flat.update(value)
        elif key != CONF_RECOMMENDED:
            flat[key] = value
    return flat


def _fields(schema: probatio.Schema) -> dict[str, str | None]:
    """Each field of the form and its section (None: at the top)."""
    where: dict[str, str | None] = {}
    for key, value in schema.schema.items():
        if isinstance(value, section):
            where.update(dict.fromkeys(map(str, value.schema.schema), str(key)))
        else:
            where[str(key)] = None
    return where


def _nest(schema: probatio.Schema, flat: Mapping[str, Any]) -> dict[str, Any]:
    """Flat values as the sectioned form's suggested values."""
    nested: dict[str, Any] = {name: {} for name in map(str, schema.schema)}
    for field, where in _fields(schema).items():
        if field in flat:
            if where is None:
                nested[field] = flat[field]
            else:
                nested[where][field] = flat[field]
    return nested


def _on_sections(schema: probatio.Schema, errors: Mapping[str, str]) -> dict[str, str]:
    """Errors by field, keyed by the field's section: where the frontend shows them."""
    where = _fields(schema)
    placed: dict[str, str] = {}
    for field, error in errors.items():
        placed.setdefault(where.get(field) or field, error)
    return placed


def _agent_schema(
    hass: HomeAssistant,
    is_new: bool,
    models: list[str],
    *,
    tuning: bool,
    reveal: bool = False,
) -> probatio.Schema:
    """The agent form in sections; values come in as suggested values.

    tuning: show the memory and limits sections (the recommended switch is off);
    reveal: show them open (it was just switched off).
    """
    model: dict[Any, Any] = {}
    if is_new:
        model[probatio.Required(CONF_NAME)] = str
    model.update(
        {
            probatio.Required(CONF_MODEL): SelectSelector(
                SelectSelectorConfig(
                    options=sorted(models), custom_value=True, sort=False
                )
            ),
            probatio.Optional(CONF_PROMPT): TemplateSelector(),
        }
    )
    apis = [
        SelectOptionDict(label=api.name, value=api.id)
        for api in llm.async_get_apis(hass)
    ]
    control = {
        probatio.Optional(CONF_LLM_HASS_API): SelectSelector(
            SelectSelectorConfig(options=apis, multiple=True)
        ),
        probatio.Required(
            CONF_ENABLED_TOOLS, default=list(DEFAULT_ENABLED_TOOLS)
        ): SelectSelector(
            SelectSelectorConfig(
                options=list(TOOL_NAMES),
                multiple=True,
                translation_key=CONF_ENABLED_TOOLS,
            )
        ),
        probatio.Required(
            CONF_ALLOWED_SERVICES, default=list(DEFAULT_ALLOWED_SERVICES)
        ): SelectSelector(
            SelectSelectorConfig(
                options=list(DEFAULT_ALLOWED_SERVICES),
                multiple=True,
                custom_value=True,
                mode=SelectSelectorMode.DROPDOWN,
            )
        ),
        probatio.Optional(CONF_WEATHER_ENTITY): EntitySelector(
            EntitySelectorConfig(domain="weather")
        ),
        probatio.Optional(CONF_CONFIRM_ENTITIES, default=[]): EntitySelector(
            EntitySelectorConfig(multiple=True)
        ),
        # Pre-filled (masked) on reconfigure, so that saving keeps it.
        probatio.Optional(CONF_CONFIRM_PIN): _PASSWORD,
        probatio.Required(
            CONF_LOCAL_FIRST, default=DEFAULT_LOCAL_FIRST
        ): BooleanSelector(),
    }
    fallback = {
        probatio.Optional(CONF_FALLBACK_MODEL): SelectSelector(
            SelectSelectorConfig(
                options=fallback_choices(hass), custom_value=True, sort=False
            )
        ),
        probatio.Required(
            CONF_LOCAL_FALLBACK, default=DEFAULT_LOCAL_FALLBACK
        ): BooleanSelector(),
    }
    # Optional and empty unless a server needs them: not under the recommended switch.
    json_text = TextSelector(TextSelectorConfig(multiline=True))
    server = {
        probatio.Optional(CONF_EXTRA_BODY): json_text,
        probatio.Optional(CONF_EXTRA_HEADERS): json_text,
    }
    schema: dict[Any, Any] = {
        probatio.Required(SECTION_MODEL): _section(model, collapsed=False),
        probatio.Required(SECTION_CONTROL): _section(control, collapsed=False),
        probatio.Required(SECTION_FALLBACK): _section(fallback, collapsed=True),
        probatio.Required(CONF_RECOMMENDED, default=True): BooleanSelector(),
    }
    if tuning:
        schema[probatio.Required(SECTION_MEMORY)] = _section(
            _memory_fields(), collapsed=not reveal
        )
        schema[probatio.Required(SECTION_LIMITS)] = _section(
            _limits_fields(), collapsed=not reveal
        )
    schema[probatio.Required(SECTION_SERVER)] = _section(server, collapsed=True)
    return probatio.Schema(schema)


def _memory_fields() -> dict[Any, Any]:
    """The memory section: kept conversations and household memory."""
    return {
        probatio.Required(
            CONF_CONVERSATION_EXPIRY, default=DEFAULT_CONVERSATION_EXPIRY
        ): _whole_number(low=0, high=MAX_CONVERSATION_EXPIRY, unit="min"),
        probatio.Required(
            CONF_MAX_CONVERSATIONS, default=DEFAULT_MAX_CONVERSATIONS
        ): _whole_number(low=1, high=10_000),
        probatio.Required(
            CONF_DEVICE_CONTINUITY, default=DEFAULT_DEVICE_CONTINUITY
        ): BooleanSelector(),
        probatio.Required(
            CONF_MEMORY_SHARED, default=DEFAULT_MEMORY_SHARED
        ): BooleanSelector(),
    }


def _limits_fields() -> dict[Any, Any]:
    """The limits and timing section."""
    return {
        probatio.Required(
            CONF_MAX_ITERATIONS, default=DEFAULT_MAX_ITERATIONS
        ): _whole_number(low=1, high=50),
        probatio.Required(
            CONF_TOOL_TIMEOUT, default=DEFAULT_TOOL_TIMEOUT
        ): _whole_number(low=1, high=300, unit="s"),
        probatio.Required(
            CONF_TURN_TIMEOUT, default=DEFAULT_TURN_TIMEOUT
        ): _whole_number(low=5, high=600, unit="s"),
        probatio.Required(
            CONF_FIRST_TOKEN_TIMEOUT, default=DEFAULT_FIRST_TOKEN_TIMEOUT
        ): _whole_number(low=0, high=120, unit="s"),
        probatio.Required(
            CONF_WAIT_PHRASE_AFTER, default=DEFAULT_WAIT_PHRASE_AFTER
        ): _whole_number(low=0, high=60, unit="s"),
        probatio.Required(
            CONF_TEMPERATURE, default=DEFAULT_TEMPERATURE
        ): NumberSelector(NumberSelectorConfig(min=0, max=2, step=0.05)),
        probatio.Required(CONF_MAX_TOKENS, default=DEFAULT_MAX_TOKENS): _whole_number(
            low=16, high=65536
        ),
        probatio.Required(
            CONF_HISTORY_TOKENS, default=DEFAULT_HISTORY_TOKENS
        ): _whole_number(low=0, high=1_000_000, step=100),
        probatio.Required(
            CONF_CONTEXT_WINDOW, default=DEFAULT_CONTEXT_WINDOW
        ): _whole_number(low=512, high=10_000_000),
        probatio.Required(CONF_STREAM, default=DEFAULT_STREAM): BooleanSelector(),
    }


def _section(fields: dict[Any, Any], *, collapsed: bool) -> section:
    return section(probatio.Schema(fields), {"collapsed": collapsed})


def _whole_number(
    *, low: int, high: int, step: int = 1, unit: str | None = None
) -> probatio.All[int]:
    """A number box whose value is stored as an int (the UI gives floats)."""
    config = NumberSelectorConfig(
        min=low, max=high, step=step, mode=NumberSelectorMode.BOX
    )
    if unit is not None:
        config["unit_of_measurement"] = unit
    return probatio.All(NumberSelector(config), probatio.Coerce(int))
