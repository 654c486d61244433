"""What the user is asked about held actions: each kind, the names, and the rest.

The risky actions first, by kind ("unlock Front door"), each script or scene with
what it sets off; then what the same calls do besides ("and open Kitchen shutter"):
a "no" leaves that undone too, so the question names it. Only the risky part is
restated consent (safety/answers.py): "open the shutter" is no yes to the garage.
"""

from collections.abc import Iterable
from typing import NamedTuple

from homeassistant.core import HomeAssistant

from .confirmation import HeldAction
from .effects import Effect
from .risk import RUNNABLE_KINDS, RiskKind


class Ask(NamedTuple):
    """One kind of action, the names it acts on, and what runnables set off."""

    kind: str
    names: list[str]
    # (runnable's name, [(kind, names)]) for each script, scene… among the names.
    does: list[tuple[str, list[tuple[str, list[str]]]]]
    risky: bool = True
    """False: what a held call does besides (a "no" leaves it undone too)."""


# What a held call does besides its risky part, asked about by its service.
_ALSO_KINDS = {
    "turn_on": "turn_on",
    "turn_off": "turn_off",
    "open_cover": "open",
    "open_valve": "open",
    "close_cover": "close",
    "close_valve": "close",
    "lock": "lock",
    "press": "press",
}


def asks(hass: HomeAssistant, actions: Iterable[HeldAction]) -> list[Ask]:
    """What to ask the user about, in order: each script or scene with what it does.

    The risky actions first, then what the same calls do besides: a "no" leaves
    that undone too, so the question names it.
    """
    actions = list(actions)
    grouped: dict[str, Ask] = {}
    for action in actions:
        behind = dict(action.behind)
        for effect, kind in action.risks:
            ask = grouped.setdefault(kind.value, Ask(kind.value, [], []))
            if (name := _name(hass, effect.entity_id)) in ask.names:
                continue
            ask.names.append(name)
            inner = [
                (inner_effect, inner_kind)
                for inner_effect, inner_kind in behind.get(effect.entity_id, ())
                if inner_effect.entity_id != effect.entity_id
            ]
            if inner:
                ask.does.append((name, _grouped_names(hass, inner)))
    besides: dict[str, Ask] = {}
    for action in actions:
        for effect in action.also:
            how = _also_kind(effect)
            ask = besides.setdefault(how, Ask(how, [], [], risky=False))
            if (name := _name(hass, effect.entity_id)) not in ask.names:
                ask.names.append(name)
    return [*grouped.values(), *besides.values()]


def _also_kind(effect: Effect) -> str:
    """How what a held call does besides is asked about ("close", "run")."""
    if (runnable := RUNNABLE_KINDS.get(effect.domain)) is not None:
        return runnable.value
    return _ALSO_KINDS.get(effect.service, "other")


def _grouped_names(
    hass: HomeAssistant, risks: Iterable[tuple[Effect, RiskKind]]
) -> list[tuple[str, list[str]]]:
    grouped: dict[str, list[str]] = {}
    for effect, kind in risks:
        names = grouped.setdefault(kind.value, [])
        if (name := _name(hass, effect.entity_id)) not in names:
            names.append(name)
    return list(grouped.items())


def _name(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    return state.name if state else entity_id
