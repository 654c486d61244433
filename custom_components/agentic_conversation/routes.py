"""Each agent's route state, and the background check that closes an open breaker.

A primary skipped after repeated failures is asked for its models every
`BREAKER_COOLDOWN` seconds (a server down at start-up: sooner at first); when it
answers, the agent uses it again, and its endpoint is checked anew.
"""

from datetime import datetime

from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.helpers.event import async_call_later

from .agent import LLMAuthError, LLMError, OpenAICompatibleProvider, Route, RouteState
from .agents import agent_subentries
from .const import CONF_BASE_URL, CONF_MODEL, DOMAIN, LOGGER
from .endpoint_check import async_check_agent
from .redact import redact_url
from .runtime import AgenticConfigEntry, async_remember_models

BREAKER_COOLDOWN = 60.0
"""Seconds between checks of a skipped primary."""
FIRST_CHECK_AFTER_BOOT = 10.0
"""Seconds to the first check of a server down at start-up; doubled up to the cooldown
(it may be booting after the same power cut)."""
CHECK_TIMEOUT = 10.0


@callback
def async_setup_routes(
    hass: HomeAssistant, entry: AgenticConfigEntry, *, down: LLMError | None = None
) -> None:
    """A route state for every agent of the connection, its breaker checked.

    `down`: the server did not answer at start-up; the agents skip it until it does.
    """
    for subentry in agent_subentries(entry):
        state = entry.runtime_data.routes.setdefault(subentry.subentry_id, RouteState())
        check = _PrimaryCheck(hass, entry, subentry, state)
        if down is not None:
            check.start_down(down)


class _PrimaryCheck:
    """Checks an agent's skipped primary until it answers, then closes the breaker."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AgenticConfigEntry,
        subentry: ConfigSubentry,
        state: RouteState,
    ) -> None:
        self._hass = hass
        self._entry = entry
        self._subentry = subentry
        self._state = state
        self._cancel: CALLBACK_TYPE | None = None
        self._delay = BREAKER_COOLDOWN
        state.breaker.on_open = self._schedule
        entry.async_on_unload(self._stop)

    @callback
    def start_down(self, error: LLMError) -> None:
        """The server did not answer at start-up: skip it, check it soon and often."""
        because = f"the server did not answer at start-up: {error}"
        self._delay = FIRST_CHECK_AFTER_BOOT
        self._state.breaker.trip(error, because)
        self._state.report(Route.DOWN, reason=because, error=str(error))

    @callback
    def _schedule(self) -> None:
        self._stop()
        self._cancel = async_call_later(self._hass, self._delay, self._fire)
        self._delay = min(self._delay * 2, BREAKER_COOLDOWN)

    @callback
    def _stop(self) -> None:
        if self._cancel is not None:
            self._cancel()
            self._cancel = None

    @callback
    def _fire(self, _now: datetime) -> None:
        self._cancel = None
        self._entry.async_create_background_task(
            self._hass,
            self._async_check(),
            f"{DOMAIN} primary check for {self._subentry.title}",
        )

    async def _async_check(self) -> None:
        provider = OpenAICompatibleProvider(
            base_url=self._entry.data[CONF_BASE_URL],
            api_key=None,
            model=self._subentry.data.get(CONF_MODEL, ""),
            timeout=CHECK_TIMEOUT,
            client=self._entry.runtime_data.client,
        )
        try:
            models = await provider.async_list_models()
        except LLMError as err:
            LOGGER.debug(
                "Primary of agent %s still failing: %s",
                self._subentry.title,
                redact_url(str(err)),
            )
            if isinstance(err, LLMAuthError):
                self._entry.async_start_reauth(self._hass)
            self._schedule()
            return
        self._delay = BREAKER_COOLDOWN
        self._state.breaker.close()
        self._state.report(Route.OK)
        runtime = self._entry.runtime_data
        if models != runtime.models:
            runtime.models = models
            await async_remember_models(self._hass, self._entry.entry_id, models)
        # The server is back, maybe with another model loaded: what can it do now?
        await async_check_agent(self._hass, self._entry, self._subentry)
