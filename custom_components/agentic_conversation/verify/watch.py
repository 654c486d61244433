"""The turn's watch on what its actions targeted: state changes, one deadline.

Each state-changing action notes the entities it targeted with what it implies
(`expect`); those already there are done at once. The others are followed by state
change listeners, and `async_wait` waits for all of them at once until the turn's
deadline: `seconds` after the last action was sent. A turn whose devices answer at
once waits for nothing.
"""

import asyncio
from collections.abc import Callable

from homeassistant.const import ATTR_ASSUMED_STATE
from homeassistant.core import Event, EventStateChangedData, HomeAssistant, callback
from homeassistant.helpers.event import async_track_state_change_event

from .expected import UNAVAILABLE, Expectation, Verb
from .outcome import EntityEffect, Reason, Status, all_done


class _Pending:
    """An entity not yet at the state its action implies."""

    __slots__ = ("changed", "expectation", "name", "unsubscribe")

    def __init__(
        self, name: str, expectation: Expectation, unsubscribe: Callable[[], None]
    ) -> None:
        self.name = name
        self.expectation = expectation
        self.unsubscribe = unsubscribe
        self.changed = False


class EffectWatch:
    """What the turn's actions did to the entities they targeted."""

    def __init__(self, hass: HomeAssistant, seconds: float) -> None:
        """Watch with this deadline after the last action (0: no wait)."""
        self._hass = hass
        self._seconds = max(0.0, seconds)
        self._deadline = 0.0
        self._effects: dict[str, EntityEffect] = {}
        self._pending: dict[str, _Pending] = {}
        self._wake = asyncio.Event()
        self.waited = 0.0
        """Seconds this turn spent waiting for states, for the trace."""
        self.noted = 0
        """Targets noted so far: an action that noted none is told by its result."""

    @property
    def effects(self) -> list[EntityEffect]:
        """What is known so far, in the order of each entity's last action."""
        return list(self._effects.values())

    @property
    def settled(self) -> bool:
        """No entity is still awaited."""
        return not self._pending

    def expect(
        self, entity_id: str, expectation: Expectation | None, name: str | None = None
    ) -> None:
        """An action targeted this entity; None: its effect cannot be seen."""
        self.noted += 1
        state = self._hass.states.get(entity_id)
        name = name or (state.name if state is not None else entity_id)
        verb = expectation.verb if expectation is not None else Verb.OTHER
        self._forget(entity_id)
        if expectation is None or (
            state is not None and state.attributes.get(ATTR_ASSUMED_STATE)
        ):
            self._set(EntityEffect(entity_id, name, verb, Status.SENT))
            return
        if state is None or state.state in UNAVAILABLE:
            # Home Assistant skips an unavailable entity: nothing was done.
            self._set(
                EntityEffect(entity_id, name, verb, Status.NOT_DONE, Reason.UNAVAILABLE)
            )
            return
        if expectation.met(state.state, state.attributes):
            self._set(EntityEffect(entity_id, name, verb, Status.DONE))
            return
        self._deadline = self._hass.loop.time() + self._seconds
        self._set(EntityEffect(entity_id, name, verb, Status.NOT_DONE))
        self._pending[entity_id] = _Pending(
            name,
            expectation,
            async_track_state_change_event(self._hass, [entity_id], self._changed),
        )

    def failed(
        self,
        entity_id: str,
        verb: Verb,
        name: str | None = None,
        shown: Expectation | None = None,
    ) -> None:
        """An action on this entity reported an error.

        `shown`: what the action implies, when the report may name the wrong entity
        (HA's `failed` list): if the state shows it, the entity is judged by it.
        """
        state = self._hass.states.get(entity_id)
        if (
            shown is not None
            and state is not None
            and shown.met(state.state, state.attributes)
        ):
            self.expect(entity_id, shown, name)
            return
        self.noted += 1
        name = name or (state.name if state is not None else entity_id)
        self._forget(entity_id)
        self._set(
            EntityEffect(
                entity_id,
                name,
                verb,
                Status.NOT_DONE,
                Reason.ERROR,
                state.state if state is not None else "",
            )
        )

    async def async_wait(self) -> list[EntityEffect]:
        """Wait (until the deadline at most) for every awaited entity; the effects."""
        loop = self._hass.loop
        started = loop.time()
        while self._pending and (left := self._deadline - loop.time()) > 0:
            self._wake.clear()
            try:
                async with asyncio.timeout(left):
                    await self._wake.wait()
            except TimeoutError:
                break
        self.waited += loop.time() - started
        for entity_id in list(self._pending):
            self._give_up(entity_id)
        return self.effects

    @property
    def all_done(self) -> bool:
        """Every entity targeted so far shows its action done."""
        return all_done(self.effects)

    def close(self) -> None:
        """Stop listening (the turn is over)."""
        for entity_id in list(self._pending):
            self._pending.pop(entity_id).unsubscribe()

    @callback
    def _changed(self, event: Event[EventStateChangedData]) -> None:
        entity_id = event.data["entity_id"]
        if (pending := self._pending.get(entity_id)) is None:
            return
        pending.changed = True
        new = event.data["new_state"]
        if new is not None and pending.expectation.met(new.state, new.attributes):
            self._forget(entity_id)
            self._effects[entity_id] = EntityEffect(
                entity_id, pending.name, pending.expectation.verb, Status.DONE
            )
            if not self._pending:
                self._wake.set()

    def _give_up(self, entity_id: str) -> None:
        """The deadline passed: not done, and why the state says."""
        pending = self._pending[entity_id]
        self._forget(entity_id)
        state = self._hass.states.get(entity_id)
        current = state.state if state is not None else ""
        if state is None or current in UNAVAILABLE:
            reason = Reason.UNAVAILABLE
        else:
            reason = Reason.OTHER_STATE if pending.changed else Reason.STILL
        verb = pending.expectation.verb
        if current in pending.expectation.states:
            # On, but not at the brightness or colour asked: it "did not change".
            verb = Verb.OTHER
        self._effects[entity_id] = EntityEffect(
            entity_id,
            pending.name,
            verb,
            Status.NOT_DONE,
            reason,
            current,
        )

    def _set(self, effect: EntityEffect) -> None:
        # A later action on the same entity replaces what an earlier one left.
        self._effects.pop(effect.entity_id, None)
        self._effects[effect.entity_id] = effect

    def _forget(self, entity_id: str) -> None:
        if (pending := self._pending.pop(entity_id, None)) is not None:
            pending.unsubscribe()
