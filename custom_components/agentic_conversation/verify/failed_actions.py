"""What a turn's actions tried and failed to do, and why, for telling the user.

Small models say "Done." after an error. The reply stage does not let them: when an
action failed and no later try did it, the user hears what failed (and what worked),
in their language, instead of the model's words.
"""

from collections.abc import Collection, Sequence
from dataclasses import dataclass
import json
import re
from typing import Any

from ..agent import LoopResult, Message, ToolCallRecord
from ..agent.tool_calls import AMBIGUOUS_TOOL, UNKNOWN_TOOL

# HA's intent match failure for a name (redone on exposed entities only, so a hidden
# name reads the same): the name the model sent is what was not found.
_NAME_NOT_MATCHED = "No entities matched the name"
# A name the model sent is said back: short, one line.
_MAX_NAME_CHARS = 60
_SPACE = re.compile(r"\s+")
# Arguments that name what a call acts on (any tool's, ours or a made-up one's).
_TARGET_KEYS = frozenset(
    {"name", "area", "floor", "entity_id", "device_id", "area_id", "floor_id"}
)
_ENTITY_ID = re.compile(r"[a-z_]+\.[a-z0-9_]+")


@dataclass(frozen=True, slots=True)
class Failure:
    """An action that failed; `unmatched`: the name that matched nothing, if so."""

    unmatched: str = ""
    unknown_tool: bool = False
    """The model called a tool that does not exist: nothing was done."""
    targets: frozenset[str] = frozenset()
    """What the call's arguments named (entity ids, names, areas)."""


def actions_failed(
    result: LoopResult, read_only: Collection[str], before: Sequence[Failure] = ()
) -> tuple[Failure, ...]:
    """The actions of the turn that failed and were not done by a later try.

    `before`: what failed before the model's turn (HA's own run of the command),
    counted while the model did nothing after it.

    An action is a call of any tool that is not read-only: one we do not offer is
    an attempt that did nothing. A failure counts unless a later round did it after
    all: a successful call that acted on what the failed one targeted (the name not
    found, the entities, area or floor it named), or, when it named nothing, a
    successful call of the same tool.
    """
    rounds = _rounds(result.messages, len(result.tool_calls))
    failures: list[Failure] = []
    for index, record in enumerate(result.tool_calls):
        if not is_failed_action(record, read_only):
            continue
        failure = Failure(
            unmatched_name(record),
            unknown_tool=str(record.error or "").startswith(
                (UNKNOWN_TOOL, AMBIGUOUS_TOOL)
            ),
            targets=frozenset(_targets(record.arguments)),
        )
        later = [
            other
            for position, other in enumerate(result.tool_calls)
            if rounds[position] > rounds[index]
            and other.ok
            and other.name not in read_only
        ]
        if any(_did_it(failure, record, other) for other in later):
            continue
        if failure not in failures:
            failures.append(failure)
    if all(record.name in read_only for record in result.tool_calls):
        failures.extend(before)
    return tuple(failures)


def is_failed_action(record: ToolCallRecord, read_only: Collection[str]) -> bool:
    """Whether a call tried to change something (or called no tool) and failed."""
    return not record.ok and not record.held and record.name not in read_only


def unmatched_name(record: ToolCallRecord) -> str:
    """The name that matched nothing, as the tool's error says ("" if that is not why).

    The tool's error data names it (`unmatched`); an intent's match failure on its
    `name` argument says the same.
    """
    envelope = _envelope(record.result)
    name: Any = envelope.get("unmatched")
    if (
        not isinstance(name, str)
        and _NAME_NOT_MATCHED in str(record.error or "")
        and isinstance(record.arguments, dict)
    ):
        name = record.arguments.get("name")
    if not isinstance(name, str):
        return ""
    return _SPACE.sub(" ", name).strip()[:_MAX_NAME_CHARS].strip()


def _did_it(failure: Failure, failed: ToolCallRecord, later: ToolCallRecord) -> bool:
    """Whether a later successful call acted on what the failed one targeted."""
    targets = {failure.unmatched} if failure.unmatched else set(failure.targets)
    if not targets:
        return later.name == failed.name
    said = f"{later.result} {json.dumps(later.arguments, ensure_ascii=False)}"
    return all(target.casefold() in said.casefold() for target in targets)


def _targets(arguments: Any) -> set[str]:
    """What a call's arguments name as its target: entity ids, names, areas, floors."""
    found: set[str] = set()
    if isinstance(arguments, dict):
        for key, value in arguments.items():
            if key in _TARGET_KEYS and isinstance(value, str) and value.strip():
                found.add(value.strip())
            else:
                found |= _targets(value)
    elif isinstance(arguments, list):
        for item in arguments:
            if isinstance(item, str) and _ENTITY_ID.fullmatch(item.strip()):
                found.add(item.strip())
            else:
                found |= _targets(item)
    return found


def _rounds(messages: Sequence[Message], calls: int) -> list[int]:
    """The LLM round of each of the turn's calls (they are in request order)."""
    rounds: list[int] = []
    for number, message in enumerate(
        m for m in messages if m.get("role") == "assistant" and m.get("tool_calls")
    ):
        rounds.extend([number] * len(message["tool_calls"]))
    # Should the messages not tell (cut history), every call is of one round.
    return rounds if len(rounds) == calls else [0] * calls


def _envelope(result: str) -> dict[str, Any]:
    try:
        envelope = json.loads(result)
    except ValueError:
        return {}
    if not isinstance(envelope, dict):
        return {}
    # The hint may sit in the tool's own error data (a JSON text in `error`).
    if isinstance(error := envelope.get("error"), str) and error.lstrip().startswith(
        ("{", "ToolReportedError: {")
    ):
        try:
            data = json.loads(error[error.index("{") :])
        except ValueError:
            data = None
        if isinstance(data, dict):
            return {**data, **envelope}
    return envelope
