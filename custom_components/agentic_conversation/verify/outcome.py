"""What became of each entity an action targeted: done, not done (and why), or sent."""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .expected import Verb


class Status(StrEnum):
    """How an entity's state answered the action."""

    DONE = "done"
    NOT_DONE = "not_done"
    SENT = "sent"
    """Its state cannot show it (a button, a scene, an assumed state): sent, not done."""


class Reason(StrEnum):
    """Why an entity is not done."""

    UNAVAILABLE = "unavailable"
    ERROR = "error"
    STILL = "still"
    """At the deadline it was in the state it had when the action ran."""
    OTHER_STATE = "other_state"
    """It changed, but not to the state the action implies."""


@dataclass(frozen=True, slots=True)
class EntityEffect:
    """One targeted entity, and what its state says."""

    entity_id: str
    name: str
    verb: Verb
    status: Status
    reason: Reason | None = None
    state: str = ""
    """Its state at the deadline (for "it is still locked")."""


def all_done(effects: Sequence[EntityEffect]) -> bool:
    """Whether the house shows every targeted entity done."""
    return all(effect.status is Status.DONE for effect in effects)


def summary(effects: Sequence[EntityEffect]) -> str:
    """A short account for the Route sensor and logs: "2 done, 1 not done"."""
    counts = dict.fromkeys(Status, 0)
    for effect in effects:
        counts[effect.status] += 1
    parts = [
        f"{count} {status.value.replace('_', ' ')}"
        for status, count in counts.items()
        if count
    ]
    return ", ".join(parts) or "nothing to verify"
