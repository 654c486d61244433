"""What a turn's tool calls changed, to be told in words when the turn fails later."""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
import json
from typing import Any

from ..agent import ToolCallRecord
from .expected import Verb


@dataclass(frozen=True, slots=True)
class Action:
    """Something a tool did, to be told in words when the turn fails later.

    `kind` is what it did: a `Verb` (`turn_on`, `unlock` …) or a risk kind (`run`,
    `press` …), told by words/replies.py; or "speech" when the tool said it in words
    itself (an intent's own speech).
    """

    kind: str
    names: tuple[str, ...] = ()
    speech: str = ""


# Services whose result is told with their own verb (any domain's turn_on too).
_SERVICE_VERBS = {
    "turn_on": Verb.TURN_ON,
    "turn_off": Verb.TURN_OFF,
    "unlock": Verb.UNLOCK,
    "open": Verb.OPEN,
    "open_cover": Verb.OPEN,
    "open_valve": Verb.OPEN,
    "alarm_disarm": Verb.DISARM,
}
_INTENT_VERBS = {"HassTurnOn": Verb.TURN_ON, "HassTurnOff": Verb.TURN_OFF}


def actions_done(
    records: Sequence[ToolCallRecord],
    read_only: Collection[str] = (),
    intents: Mapping[str, str] | None = None,
) -> tuple[Action, ...]:
    """What the turn's successful tool calls changed, for telling the user.

    Only calls that changed something named count: reading a state, a search or the
    weather (tools in `read_only`, and intents that only answer a question) never do.
    `intents` gives the intent of each intent tool by the name it was offered under
    (offered_tools.intent_types).
    """
    done: list[Action] = []
    for record in records:
        if not record.ok or record.repeated or record.name in read_only:
            continue
        action = _action(record, intents or {})
        if action is not None and action not in done:
            done.append(action)
    return tuple(done)


def _action(record: ToolCallRecord, intents: Mapping[str, str]) -> Action | None:
    """The action of one successful call, from its result envelope."""
    try:
        envelope = json.loads(record.result)
    except ValueError:
        return None
    result = envelope.get("result") if isinstance(envelope, dict) else None
    if not isinstance(result, dict) or result.get("response_type") == "query_answer":
        return None
    speech = result.get("speech", {}).get("plain", {}).get("speech")
    if isinstance(speech, str) and speech.strip():
        return Action("speech", speech=speech.strip().rstrip(". "))
    names = _acted_on(result)
    if not names:
        return None
    service = (
        record.arguments.get("service") if isinstance(record.arguments, dict) else None
    )
    verb = _INTENT_VERBS.get(intents.get(record.name) or "") or _SERVICE_VERBS.get(
        str(service), Verb.OTHER
    )
    return Action(verb.value, names)


def _acted_on(result: dict[str, Any]) -> tuple[str, ...]:
    """Names of what a tool acted on: an intent's successes, or the changed states."""
    data = result.get("data")
    if isinstance(data, dict) and isinstance(data.get("success"), list):
        targets: list[Any] = data["success"]
    elif isinstance(result.get("states"), list):
        targets = result["states"]
    else:
        return ()
    names = (
        target.get("name") or target.get("entity_id")
        for target in targets
        if isinstance(target, dict)
    )
    return tuple(dict.fromkeys(str(name) for name in names if name))
