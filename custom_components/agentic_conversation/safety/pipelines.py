"""Voice pipelines that bypass our confirmation: prefer-local on, a risky entity exposed.

A pipeline with "Prefer handling commands locally" sends each sentence to Home
Assistant's own agent first, which unlocks or opens at once; no integration can step
in there. So we look: at setup and whenever pipelines, exposure or our agents change,
a fixable Repair names each such pipeline of our agents; its fix turns prefer-local
off for them, and may instead hand the speed to the agents themselves: their own
"Handle commands Home Assistant understands first" is fast too, and asks before a risky
action. The Repair goes once none is left (or the user may ignore it).
"""

from collections.abc import Iterable, Iterator
from typing import Any

import probatio

from homeassistant.components.assist_pipeline import (
    Pipeline,
    async_get_pipelines,
    async_update_pipeline,
)
from homeassistant.components.assist_pipeline.runtime import KEY_ASSIST_PIPELINE
from homeassistant.components.homeassistant.exposed_entities import (
    async_listen_entity_updates,
    async_should_expose,
)
from homeassistant.components.repairs import RepairsFlow, RepairsFlowResult
from homeassistant.config_entries import ConfigEntry, ConfigSubentry
from homeassistant.const import EVENT_COMPONENT_LOADED
from homeassistant.core import Event, HomeAssistant, callback
from homeassistant.helpers import entity_registry as er, issue_registry as ir
from homeassistant.helpers.start import async_at_started
from homeassistant.setup import EventComponentLoaded
from homeassistant.util.hass_dict import HassKey

from ..const import CONF_CONFIRM_ENTITIES, CONF_LOCAL_FIRST, DOMAIN, LOGGER
from .effects import RUN_SERVICE, Effect
from .risk import OPENING_COVER_CLASSES, risks_behind

ISSUE_ID = "prefer_local_risky"
ASSISTANT = "conversation"  # whose exposure settings HA's own agent follows
# Entities HA's own agent must not act on unasked (risk.py's default list).
_RISKY_DOMAINS = frozenset({"lock", "alarm_control_panel", "valve"})
# How many risky entities the Repair names as examples.
_SHOWN = 5
_WATCHING: HassKey[bool] = HassKey(f"{DOMAIN}_pipeline_watch")


def risky_pipelines(hass: HomeAssistant) -> tuple[list[Pipeline], list[str]]:
    """Our agents' prefer-local pipelines, and the exposed risky entities' names.

    Both empty when nothing is at risk.
    """
    if KEY_ASSIST_PIPELINE not in hass.data:
        return [], []
    agents = _our_agents(hass)
    pipelines = [
        pipeline
        for pipeline in async_get_pipelines(hass)
        if pipeline.prefer_local_intents and pipeline.conversation_engine in agents
    ]
    if not pipelines:
        return [], []
    ask_before = {
        entity_id
        for pipeline in pipelines
        for entity_id in agents[pipeline.conversation_engine]
    }
    names = _risky_exposed(hass, ask_before)
    return (pipelines, names) if names else ([], [])


def _our_agents(hass: HomeAssistant) -> dict[str, list[str]]:
    """Our agents' conversation entity ids, each with its "ask before" entities."""
    agents: dict[str, list[str]] = {}
    for entity_id, _entry, subentry in _agent_entities(hass):
        confirm = subentry.data.get(CONF_CONFIRM_ENTITIES) if subentry else None
        agents[entity_id] = list(confirm or [])
    return agents


def _agent_entities(
    hass: HomeAssistant,
) -> Iterator[tuple[str, ConfigEntry | None, ConfigSubentry | None]]:
    """Each of our conversation entities, with its connection and agent (if found)."""
    for entity in er.async_get(hass).entities.values():
        if entity.platform != DOMAIN or entity.domain != "conversation":
            continue
        entry = hass.config_entries.async_get_entry(entity.config_entry_id or "")
        subentry = (
            entry.subentries.get(entity.config_subentry_id or "") if entry else None
        )
        yield entity.entity_id, entry, subentry


def _risky_exposed(hass: HomeAssistant, ask_before: Iterable[str]) -> list[str]:
    """Exposed entities HA's own agent would act on without a yes, by name."""
    asked = frozenset(ask_before)
    names = []
    for state in hass.states.async_all():
        domain = state.domain
        risky = (
            domain in _RISKY_DOMAINS
            or (
                domain == "cover"
                and state.attributes.get("device_class") in OPENING_COVER_CLASSES
            )
            or state.entity_id in asked
            or (
                domain in RUN_SERVICE
                and bool(
                    risks_behind(
                        hass,
                        Effect(state.entity_id, domain, RUN_SERVICE[domain], {}),
                        asked,
                    )
                )
            )
        )
        if risky and async_should_expose(hass, ASSISTANT, state.entity_id):
            names.append(state.name)
    return sorted(names, key=str.casefold)


@callback
def async_check_pipelines(hass: HomeAssistant) -> None:
    """Raise, update or clear the Repair."""
    pipelines, names = risky_pipelines(hass)
    if not pipelines:
        ir.async_delete_issue(hass, DOMAIN, ISSUE_ID)
        return
    shown = _shown(names)
    LOGGER.warning(
        "Voice pipelines %s prefer local handling: Home Assistant's own agent acts "
        "on %s without asking",
        ", ".join(p.name for p in pipelines),
        shown,
    )
    ir.async_create_issue(
        hass,
        DOMAIN,
        ISSUE_ID,
        is_fixable=True,
        is_persistent=False,
        severity=ir.IssueSeverity.WARNING,
        translation_key=ISSUE_ID,
        translation_placeholders={
            "pipelines": ", ".join(p.name for p in pipelines),
            "entities": shown,
            # For the fix that hands the speed to the agents themselves.
            "agents": ", ".join(_agent_names(hass, pipelines)),
        },
    )


@callback
def async_watch_pipelines(hass: HomeAssistant) -> None:
    """Check now, and again whenever pipelines, exposure or HA's start change things."""
    async_check_pipelines(hass)
    if hass.data.get(_WATCHING):
        return
    hass.data[_WATCHING] = True
    if KEY_ASSIST_PIPELINE not in hass.data:
        # Voice assistants set up after us (or never): watch once they are.
        @callback
        def _loaded(event: Event[EventComponentLoaded]) -> None:
            if event.data["component"] == "assist_pipeline":
                unsub()
                hass.data[_WATCHING] = False
                async_watch_pipelines(hass)

        unsub = hass.bus.async_listen(EVENT_COMPONENT_LOADED, _loaded)
        return

    async def _pipelines_changed(*_args: Any) -> None:
        async_check_pipelines(hass)

    @callback
    def _changed(*_args: Any) -> None:
        async_check_pipelines(hass)

    hass.data[KEY_ASSIST_PIPELINE].pipeline_store.async_add_listener(_pipelines_changed)
    async_listen_entity_updates(hass, ASSISTANT, _changed)
    # Entities set up after us (a lock of a slower integration) count too.
    async_at_started(hass, _changed)


class PreferLocalFlow(RepairsFlow):
    """Turn prefer-local off for the Repair's pipelines, maybe handing its speed over.

    The agents' own local first is as fast for plain commands and asks before a risky
    action.
    """

    async def async_step_init(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """What is at risk (the Repair shows only this flow), and the ways out."""
        pipelines, names = risky_pipelines(self.hass)
        if not pipelines:
            return self.async_abort(reason="already_fixed")
        return self.async_show_menu(
            step_id="init",
            menu_options=["use_local_first", "turn_off_prefer_local"],
            description_placeholders=_placeholders(pipelines)
            | {"entities": _shown(names)},
        )

    async def async_step_use_local_first(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Confirm, then switch the agents' local first on and prefer-local off."""
        pipelines, _ = risky_pipelines(self.hass)
        if user_input is None:
            return self.async_show_form(
                step_id="use_local_first",
                data_schema=probatio.Schema({}),
                description_placeholders=_placeholders(pipelines)
                | {"agents": ", ".join(_agent_names(self.hass, pipelines))},
            )
        engines = {pipeline.conversation_engine for pipeline in pipelines}
        for entity_id, entry, subentry in list(_agent_entities(self.hass)):
            if entity_id not in engines or entry is None or subentry is None:
                continue
            if not subentry.data.get(CONF_LOCAL_FIRST):
                LOGGER.info("Agent %s now handles commands locally", subentry.title)
                self.hass.config_entries.async_update_subentry(
                    entry, subentry, data={**subentry.data, CONF_LOCAL_FIRST: True}
                )
        return await self._async_turn_off(pipelines)

    async def async_step_turn_off_prefer_local(
        self, user_input: dict[str, Any] | None = None
    ) -> RepairsFlowResult:
        """Confirm, then turn "Prefer handling commands locally" off."""
        pipelines, _ = risky_pipelines(self.hass)
        if user_input is None:
            return self.async_show_form(
                step_id="turn_off_prefer_local",
                data_schema=probatio.Schema({}),
                description_placeholders=_placeholders(pipelines),
            )
        return await self._async_turn_off(pipelines)

    async def _async_turn_off(self, pipelines: list[Pipeline]) -> RepairsFlowResult:
        for pipeline in pipelines:
            await async_update_pipeline(self.hass, pipeline, prefer_local_intents=False)
        LOGGER.info(
            "Turned off prefer-local handling for %s",
            ", ".join(p.name for p in pipelines),
        )
        async_check_pipelines(self.hass)
        return self.async_create_entry(data={})


def _shown(names: list[str]) -> str:
    """The first few risky entities' names, for the Repair and the log."""
    return ", ".join(names[:_SHOWN]) + (" …" if len(names) > _SHOWN else "")


def _placeholders(pipelines: Iterable[Pipeline]) -> dict[str, str]:
    return {"pipelines": ", ".join(p.name for p in pipelines)}


def _agent_names(hass: HomeAssistant, pipelines: Iterable[Pipeline]) -> list[str]:
    """The titles of the agents these pipelines use."""
    engines = {pipeline.conversation_engine for pipeline in pipelines}
    return sorted(
        {
            subentry.title
            for entity_id, _entry, subentry in _agent_entities(hass)
            if entity_id in engines and subentry is not None
        },
        key=str.casefold,
    )
