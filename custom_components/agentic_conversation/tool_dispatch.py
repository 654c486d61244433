"""The loop's tool dispatcher over a chat log's HA LLM API (Assist, ours, any other).

Every call has its arguments checked against exposure (any entity id in them, a
script's fields included) and passes the turn's confirmation gate, with what it would
do: an intent's targets resolved as HA will resolve them, the script a script's tool
runs, the entities another tool names. `call_service` checks and reviews its own,
exactly resolved, targets. An intent's failure to match reads the same whether the
name is hidden or missing.

Before any of that, `prepare` repairs the plain slips of small models in a call's
arguments (see agent/tool_call_repair.py and tools/intent_arguments.py); every refusal
names what would work: the arguments a tool takes, the closest exposed names.
"""

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

import probatio

from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.helpers.service import async_get_cached_service_description

from .agent import (
    EntityCall,
    PreparedCall,
    ToolHeldError,
    ToolRefusedError,
    ToolValidationError,
)
from .agent.tool_call_repair import unwrap_arguments
from .offered_tools import original_tool
from .safety.confirmation import HELD_MESSAGE
from .safety.effects import UNKNOWN_SERVICE, Effect, runnable_effects
from .safety.risk import intent_effects
from .tool_options import effects_of, gate_of, snapshots_of
from .tools.argument_checks import refuse_arguments
from .tools.camera import LookAtCameraTool
from .tools.closest import NAME_CHARS, async_closest_names
from .tools.entities import entity_refs, is_exposed, resolve_entity_ref
from .tools.entity_as_tool import entity_call
from .tools.intent_arguments import async_intent_arguments, refused
from .tools.services import CallServiceTool
from .tools.state import GetEntityStateTool
from .verify.note import note_intent

# Match failures that name what the model sent and matched nothing.
_UNMATCHED = {
    intent.MatchFailedReason.NAME: "name",
    intent.MatchFailedReason.INVALID_AREA: "area",
    intent.MatchFailedReason.INVALID_FLOOR: "floor",
}


class ChatLogToolDispatcher:
    """Runs the loop's tool calls through the chat log's HA LLM API (Assist, ours…)."""

    def __init__(self, api: llm.APIInstance) -> None:
        """Dispatch to the tools of this API instance."""
        self._api = api

    async def prepare(self, name: str, arguments: dict[str, Any]) -> PreparedCall:
        """A call's arguments as its tool takes them, plain slips repaired."""
        tool = self._tool(name)
        if tool is None or (takes := taken_keys(tool.parameters)) is None:
            return PreparedCall(arguments)
        unwrapped = unwrap_arguments(arguments, takes)
        if not isinstance(original_tool(tool), llm.IntentTool):
            return PreparedCall(unwrapped.arguments, unwrapped.repairs)
        hass = self._api.api.hass
        prepared = await async_intent_arguments(
            hass,
            unwrapped.arguments,
            takes,
            self._language,
            intent_platforms(hass, original_tool(tool)),
        )
        return PreparedCall(
            prepared.arguments, unwrapped.repairs + prepared.repairs, prepared.ignored
        )

    def entity_call(
        self, name: str, arguments: dict[str, Any], offered: Collection[str]
    ) -> EntityCall | None:
        """An exposed entity's id sent as a tool's name, read as the intent it means."""
        return entity_call(self._api.api.hass, name, arguments, offered)

    async def __call__(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call a tool; bad arguments and error results raise, the loop reports them."""
        # HA does not check arguments against a tool's schema: do it here, so every
        # tool (Assist's, ours, another integration's) gets validated arguments and
        # the model a clear error.
        tool = self._tool(name)
        sent = arguments
        if tool is not None:
            try:
                arguments = tool.parameters(arguments)
            except probatio.Invalid as err:
                raise ToolValidationError(
                    str(err), **arguments_taken(tool.parameters)
                ) from err
        # An intent's handler validates its slots itself, and its value schemas may
        # convert (HassSetVolume: 50 → 0.5): it gets what the model sent, not our
        # converted copy (0.5 would become 0).
        tool_input = llm.ToolInput(
            tool_name=name,
            tool_args=sent
            if tool is not None and isinstance(original_tool(tool), llm.IntentTool)
            else arguments,
            external=True,
        )
        if tool is not None and (refusal := self._boundary(tool, arguments)):
            raise await self._guided(refusal.data)
        gate = gate_of(self._api.llm_context)
        if (
            gate is not None
            and tool is not None
            and (effects := self._effects(tool, arguments)) is not None
            and not gate.review(tool_input.id, name, arguments, effects)
        ):
            raise ToolHeldError(HELD_MESSAGE)
        try:
            result = await self._api.async_call_tool(tool_input)
        except probatio.Invalid as err:
            raise ToolValidationError(str(err)) from err
        except intent.MatchFailedError as err:
            raise await self._match_failed(err) from None
        except intent.IntentHandleError as err:
            # e.g. "Service handler cannot target all devices": no target given.
            raise refused(
                {
                    "error": str(err),
                    **arguments_taken(tool.parameters if tool else None),
                }
            ) from None
        if gate is not None and tool_input.id in gate.held:
            # Held by the tool itself: keep it under the offered name it was called by.
            gate.held[tool_input.id] = replace(
                gate.held[tool_input.id], tool_name=name, arguments=arguments
            )
            raise ToolHeldError(HELD_MESSAGE)
        if result.error:
            raise await self._guided(result.data)
        if tool is not None:
            self._note_effects(tool, sent, result.data)
        return result.data

    def _note_effects(self, tool: llm.Tool, arguments: Any, data: Any) -> None:
        """What an intent or a script's tool targeted, for the turn's watch.

        `call_service` notes its own, exactly resolved, targets.
        """
        if (watch := effects_of(self._api.llm_context)) is None:
            return
        tool = original_tool(tool)
        if isinstance(tool, llm.IntentTool) and isinstance(data, dict):
            if data.get("response_type") == "action_done" and isinstance(
                outcome := data.get("data"), dict
            ):
                note_intent(watch, tool.intent_type, arguments, outcome)
        elif (script := script_of(tool)) is not None and not (
            isinstance(data, dict) and data.get("result")
        ):
            # A script's state cannot show what it did: "sent". One that answered
            # (its response) was a question: its answer is the model's to tell.
            watch.expect(script, None)

    def take_snapshots(self) -> list[tuple[str, dict[str, Any]]]:
        """The pictures the turn's tools took since last asked, handed over once."""
        snapshots = snapshots_of(self._api.llm_context)
        if not snapshots:
            return []
        taken = [(snapshot.label, snapshot.part) for snapshot in snapshots]
        snapshots.clear()
        return taken

    @property
    def _language(self) -> str:
        return self._api.llm_context.language or "en"

    def _tool(self, name: str) -> llm.Tool | None:
        return next((t for t in self._api.tools if t.name == name), None)

    async def _guided(self, data: Any) -> ToolRefusedError:
        """A tool's error result as a refusal; an unmatched name gets the closest."""
        if not isinstance(data, dict):
            data = {"error": str(data)}
        if (
            isinstance(unmatched := data.get("unmatched"), str)
            and "closest" not in data
        ):
            data = {
                **data,
                "unmatched": unmatched[:NAME_CHARS],
                "closest": await async_closest_names(
                    self._api.api.hass, unmatched, self._language
                ),
            }
        return refused(data)

    async def _match_failed(self, err: intent.MatchFailedError) -> ToolRefusedError:
        """An intent's match failure, told as if unexposed entities did not exist."""
        failed = as_if_hidden_were_missing(self._api.api.hass, err)
        data: dict[str, Any] = {"error": str(failed)}
        reason = failed.result.no_match_reason
        slot = _UNMATCHED.get(reason) if reason is not None else None
        sent = {
            "name": failed.constraints.name,
            "area": failed.constraints.area_name,
            "floor": failed.constraints.floor_name,
        }.get(slot or "")
        if not sent:
            return refused(data)
        data["unmatched"] = sent
        if reason is not intent.MatchFailedReason.NAME:
            return refused(data)  # an area or floor: the model has their list
        data["hint"] = "Use one of the closest names, or search_entities."
        return await self._guided(data)

    def _boundary(
        self, tool: llm.Tool, arguments: dict[str, Any]
    ) -> llm.ToolResult | None:
        """Exposure, for every tool's arguments: refused as call_service's data is."""
        tool = original_tool(tool)
        if isinstance(tool, CallServiceTool | GetEntityStateTool | LookAtCameraTool):
            return None  # they check (and report) each entity themselves
        hass = self._api.api.hass
        fields: Mapping[str, Any] = {}
        if (script := script_of(tool)) is not None:
            description = async_get_cached_service_description(
                hass, "script", script.split(".", 1)[1]
            )
            fields = (description or {}).get("fields") or {}
        return refuse_arguments(hass, arguments, fields)

    def _effects(
        self, tool: llm.Tool, arguments: dict[str, Any]
    ) -> list[Effect] | None:
        """What a call would do, for the gate; None when the tool asks the gate itself."""
        tool = original_tool(tool)
        hass = self._api.api.hass
        if isinstance(tool, CallServiceTool):
            return None
        if isinstance(tool, llm.IntentTool):
            return intent_effects(
                hass, tool.intent_type, arguments, self._api.llm_context
            )
        if tool.annotations.read_only:
            return []
        # The same reading of entity ids (and registry ids) as call_service's data.
        entity_ids = {resolve_entity_ref(hass, ref) for ref in entity_refs(arguments)}
        effects: list[Effect] = []
        if (script := script_of(tool)) is not None:
            # A script's own tool runs it, its fields as its variables: what the
            # script does with an entity it is given is known, not guessed.
            effects.append(
                Effect(script, "script", "turn_on", {"variables": arguments})
            )
            entity_ids -= {e.entity_id for e in runnable_effects(hass, effects[0])}
        effects.extend(
            Effect(entity_id, entity_id.split(".", 1)[0], UNKNOWN_SERVICE, arguments)
            for entity_id in sorted(entity_ids)
            if hass.states.get(entity_id) is not None and is_exposed(hass, entity_id)
        )
        return effects


def intent_platforms(hass: HomeAssistant, tool: llm.Tool) -> frozenset[str]:
    """The only domains an intent tool acts on, where its handler says."""
    intent_type = getattr(tool, "intent_type", None)
    for handler in intent.async_get(hass):
        if handler.intent_type == intent_type:
            found = getattr(handler, "required_domains", None) or handler.platforms
            return frozenset(found or ())
    return frozenset()


def taken_keys(schema: Any) -> set[str] | None:
    """The argument names a tool's schema takes; None if it is not a plain mapping."""
    keys = getattr(schema, "schema", None)
    if not isinstance(keys, dict):
        return None
    return {name for key in keys for name in _key_names(key)}


def arguments_taken(schema: Any) -> dict[str, Any]:
    """What a refusal of bad arguments tells the model a tool takes."""
    keys = getattr(schema, "schema", None)
    if not isinstance(keys, dict):
        return {}
    return {
        "arguments_taken": sorted({n for key in keys for n in _key_names(key)}),
        "required": sorted(str(k) for k in keys if isinstance(k, probatio.Required)),
    }


def _key_names(key: Any) -> list[str]:
    """The names a schema key stands for: `Optional("x")` is x, `Any("a", "b")` a, b."""
    if isinstance(key, probatio.Marker):
        return _key_names(key.schema)
    if isinstance(validators := getattr(key, "validators", None), list | tuple):
        return [name for item in validators for name in _key_names(item)]
    return [str(key)]


def script_of(tool: llm.Tool) -> str | None:
    """The script entity a script's own tool (`script__<name>`) runs, if it is one."""
    if isinstance(tool, llm.ActionTool) and tool.name.startswith("script__"):
        return f"script.{tool.name.removeprefix('script__')}"
    return None


def as_if_hidden_were_missing(
    hass: HomeAssistant, err: intent.MatchFailedError
) -> intent.MatchFailedError:
    """An intent's match failure as it would read if unexposed entities did not exist.

    HA says "No matching entities are exposed to the assistant" where a name matched
    only hidden entities, and hidden entities can change which other check fails
    first: the match is redone on the exposed entities alone.
    """
    assistant = err.constraints.assistant
    if assistant is None:
        return err
    exposed = [
        state
        for state in hass.states.async_all()
        if async_should_expose(hass, assistant, state.entity_id)
    ]
    result = intent.async_match_targets(hass, err.constraints, err.preferences, exposed)
    if result.is_match:
        return err
    return intent.MatchFailedError(result, err.constraints, err.preferences)


async def no_tools(name: str, arguments: dict[str, Any]) -> Any:
    """The dispatcher of an agent without an LLM API: the loop never offers tools."""
    raise ToolValidationError(f"No tools are available (asked for {name})")
