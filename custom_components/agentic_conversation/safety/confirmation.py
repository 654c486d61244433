"""Risky actions wait for the user's own "yes": the gate, and the actions it holds.

A `ConfirmationGate` lives for one turn. Every tool that acts asks it first, with what
Home Assistant would finally do (`risk.Effect`s); a risky call is held, not run. The
turn then asks the user; the held actions wait, per conversation, for the next
utterance (at most `CONFIRM_SECONDS`). Only that utterance, judged by our code, runs
them: through a gate that lets exactly those effects through. The utterance must come
from where the question went (the same device or satellite, the same user): words from
anyone else in the conversation are a new turn, and the held actions keep waiting.

An answer that is neither yes nor no drops them (it is a new request); when that very
request asks for the same actions again, the asker is told how to answer, and after a
second such answer they are dropped for good (`unclear_answers`), so nobody is asked
the same question forever.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from homeassistant.components import conversation
from homeassistant.core import CALLBACK_TYPE, Context, HomeAssistant, callback
from homeassistant.helpers.event import async_call_later
from homeassistant.util import dt as dt_util
from homeassistant.util.hass_dict import HassKey

from ..const import DOMAIN, LOGGER
from .effects import Effect
from .risk import RiskKind, risk_of, risks_behind

CONFIRM_SECONDS = 60
# Unclear answers after which the same actions are no longer asked about.
MAX_UNCLEAR_ANSWERS = 2
# Unclear answers remembered at most (of askers who never came back, the oldest go).
_MOST_UNCLEAR_KEPT = 100
_KEEP_EXPIRED_SECONDS = 600
EVENT_ACTION = f"{DOMAIN}_action"
# Told to the model in the held call's result.
HELD_MESSAGE = (
    "Not done: this action needs the user's own confirmation, and the user is being "
    "asked now. Do not call it again and do not say it was done."
)
# Domains where a PIN, when the agent has one, replaces "yes".
PIN_DOMAINS = frozenset({"lock", "alarm_control_panel"})


class Outcome(StrEnum):
    """What became of a risky action (the `outcome` of its event)."""

    HELD = "held"
    CONFIRMED = "confirmed"
    REFUSED = "refused"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class HeldAction:
    """A tool call that waits for the user's yes, and the risky effects it has."""

    tool_name: str
    arguments: dict[str, Any]
    risks: tuple[tuple[Effect, RiskKind], ...]
    # What each risky script, scene, automation or button sets off, by its entity id.
    behind: tuple[tuple[str, tuple[tuple[Effect, RiskKind], ...]], ...] = ()
    also: tuple[Effect, ...] = ()
    """What else the call does (nothing risky): it runs with the rest on a yes."""

    @property
    def entity_ids(self) -> tuple[str, ...]:
        """The entities the risky effects act on."""
        return tuple(dict.fromkeys(effect.entity_id for effect, _ in self.risks))


class ConfirmationGate:
    """Holds a turn's risky calls; a confirming turn's gate lets the held ones run."""

    def __init__(
        self,
        hass: HomeAssistant,
        ask_before: Iterable[str] = (),
        approved: Iterable[HeldAction] = (),
    ) -> None:
        """A gate for one turn; `approved` are the actions the user just confirmed."""
        self._hass = hass
        self._ask_before = frozenset(ask_before)
        self._approved = {
            (effect.entity_id, effect.service)
            for action in approved
            for effect, _ in action.risks
        }
        self.held: dict[str, HeldAction] = {}

    def review(
        self,
        call_id: str,
        tool_name: str,
        arguments: dict[str, Any],
        effects: Iterable[Effect],
    ) -> bool:
        """Whether a call may run now; a risky one is held (under its call id)."""
        effects = tuple(effects)
        risks = tuple(
            (effect, kind)
            for effect in effects
            if (kind := risk_of(self._hass, effect, self._ask_before)) is not None
            and (effect.entity_id, effect.service) not in self._approved
        )
        if not risks:
            return True
        LOGGER.info(
            "Holding %s for the user's confirmation: %s",
            tool_name,
            ", ".join(f"{e.domain}.{e.service} {e.entity_id}" for e, _ in risks),
        )
        behind = tuple(
            (effect.entity_id, tuple(inner))
            for effect, _ in risks
            if (inner := risks_behind(self._hass, effect, self._ask_before))
        )
        risky = {(effect.entity_id, effect.service) for effect, _ in risks}
        also = tuple(e for e in effects if (e.entity_id, e.service) not in risky)
        self.held[call_id] = HeldAction(tool_name, dict(arguments), risks, behind, also)
        return False


def gate_refuses(
    hass: HomeAssistant, effects: Iterable[Effect], ask_before: Iterable[str] = ()
) -> bool:
    """For callers with no gate (another agent, MCP): is any effect risky?"""
    return any(risk_of(hass, effect, frozenset(ask_before)) for effect in effects)


@dataclass(frozen=True, slots=True)
class Asker:
    """Who was asked: the device and satellite the request came from, and the user."""

    device_id: str | None
    satellite_id: str | None
    user_id: str | None

    @classmethod
    def of(cls, user_input: conversation.ConversationInput) -> Asker:
        """The asker of a request."""
        return cls(
            user_input.device_id,
            getattr(user_input, "satellite_id", None),
            user_input.context.user_id,
        )


@dataclass(slots=True)
class Pending:
    """The held actions of a conversation, waiting for the user's next words."""

    agent_id: str
    asker: Asker
    actions: list[HeldAction]
    context: Context
    needs_pin: bool
    expires: datetime
    cancel_timer: CALLBACK_TYPE | None = field(default=None, repr=False)
    expiry_reported: bool = False
    # Answers that were neither yes nor no, right before this question.
    unclear: int = 0

    @property
    def expired(self) -> bool:
        """Whether the user took too long."""
        return dt_util.utcnow() >= self.expires


# Keyed by conversation id and asker: two askers in one conversation wait apart.
type _Key = tuple[str, Asker]
DATA_PENDING: HassKey[dict[_Key, Pending]] = HassKey(f"{DOMAIN}_pending")
# The actions an asker just answered unclearly about, and how many times in a row;
# kept from the unclear answer until the asker's next turn.
DATA_UNCLEAR: HassKey[dict[_Key, tuple[frozenset[tuple[str, str]], int]]] = HassKey(
    f"{DOMAIN}_unclear"
)


def _store(hass: HomeAssistant) -> dict[_Key, Pending]:
    return hass.data.setdefault(DATA_PENDING, {})


def _unclear(hass: HomeAssistant) -> dict[_Key, tuple[frozenset[tuple[str, str]], int]]:
    return hass.data.setdefault(DATA_UNCLEAR, {})


def _effects_of(actions: Iterable[HeldAction]) -> frozenset[tuple[str, str]]:
    return frozenset(
        (effect.entity_id, effect.service)
        for action in actions
        for effect, _ in action.risks
    )


@callback
def async_note_unclear(
    hass: HomeAssistant, conversation_id: str, pending: Pending
) -> None:
    """The asker's answer was neither yes nor no: remember it for this turn."""
    kept = _unclear(hass)
    kept[(conversation_id, pending.asker)] = (
        _effects_of(pending.actions),
        pending.unclear + 1,
    )
    while len(kept) > _MOST_UNCLEAR_KEPT:
        del kept[next(iter(kept))]


@callback
def unclear_answers(
    hass: HomeAssistant, conversation_id: str, asker: Asker, actions: list[HeldAction]
) -> int:
    """How many unclear answers in a row came right before asking these actions again."""
    effects, count = _unclear(hass).get((conversation_id, asker), (frozenset(), 0))
    return count if effects == _effects_of(actions) else 0


@callback
def async_hold(
    hass: HomeAssistant,
    conversation_id: str,
    agent_id: str,
    actions: list[HeldAction],
    context: Context,
    *,
    pin: str | None,
    asker: Asker,
    unclear: int = 0,
) -> Pending:
    """Keep a turn's held actions for the asker's next utterance in the conversation."""
    key = (conversation_id, asker)
    _drop(hass, key, Outcome.REFUSED)  # a new question replaces the asker's last one
    # Expired ones stay a while, so a late "yes" hears that it expired.
    stale = dt_util.utcnow() - timedelta(seconds=_KEEP_EXPIRED_SECONDS)
    for other, old in list(_store(hass).items()):
        if old.expires < stale:
            del _store(hass)[other]
    needs_pin = bool(pin) and any(
        effect.domain in PIN_DOMAINS for action in actions for effect, _ in action.risks
    )
    pending = Pending(
        agent_id=agent_id,
        asker=asker,
        actions=actions,
        context=context,
        needs_pin=needs_pin,
        expires=dt_util.utcnow() + timedelta(seconds=CONFIRM_SECONDS),
        unclear=unclear,
    )

    @callback
    def _expire(_now: datetime) -> None:
        pending.cancel_timer = None
        if _store(hass).get(key) is pending:
            pending.expiry_reported = True
            fire_events(hass, conversation_id, pending, Outcome.EXPIRED)

    pending.cancel_timer = async_call_later(hass, CONFIRM_SECONDS, _expire)
    _store(hass)[key] = pending
    fire_events(hass, conversation_id, pending, Outcome.HELD)
    return pending


@callback
def async_take(
    hass: HomeAssistant, conversation_id: str, agent_id: str, asker: Asker
) -> Pending | None:
    """The actions this agent asked this asker about, removed from the store.

    Expired ones are reported as such (the caller still gets them, to say so). Another
    device's or user's words get nothing: what waits for the asker keeps waiting.
    """
    key = (conversation_id, asker)
    # An unclear answer counts only for the turn right after it.
    _unclear(hass).pop(key, None)
    pending = _store(hass).get(key)
    if pending is None or pending.agent_id != agent_id:
        if any(
            other[0] == conversation_id and held.agent_id == agent_id
            for other, held in _store(hass).items()
        ):
            LOGGER.info(
                "Conversation %s: words from another device or user; what waits for "
                "the one who was asked keeps waiting",
                conversation_id,
            )
        return None
    del _store(hass)[key]
    if pending.cancel_timer is not None:
        pending.cancel_timer()
        pending.cancel_timer = None
    if pending.expired and not pending.expiry_reported:
        pending.expiry_reported = True
        fire_events(hass, conversation_id, pending, Outcome.EXPIRED)
    return pending


@callback
def _drop(hass: HomeAssistant, key: _Key, outcome: Outcome) -> None:
    """Forget an asker's held actions, reporting why."""
    pending = _store(hass).pop(key, None)
    if pending is None:
        return
    if pending.cancel_timer is not None:
        pending.cancel_timer()
    if not pending.expiry_reported:
        fire_events(hass, key[0], pending, outcome)


@callback
def async_drop_agent(hass: HomeAssistant, agent_id: str) -> None:
    """Forget an agent's held actions (it is being removed or reloaded)."""
    for key, pending in list(_store(hass).items()):
        if pending.agent_id == agent_id:
            _drop(hass, key, Outcome.EXPIRED)


@callback
def fire_events(
    hass: HomeAssistant, conversation_id: str, pending: Pending, outcome: Outcome
) -> None:
    """One `agentic_conversation_action` event per held action (logbook entries)."""
    for action in pending.actions:
        hass.bus.async_fire(
            EVENT_ACTION,
            {
                "agent_id": pending.agent_id,
                "conversation_id": conversation_id,
                "outcome": outcome.value,
                "tool": action.tool_name,
                "actions": sorted({f"{e.domain}.{e.service}" for e, _ in action.risks}),
                "entity_ids": list(action.entity_ids),
            },
            context=pending.context,
        )
