"""Asking the user about held actions: kept for their yes; the question, as data.

The model route asks about what the model's calls held; the local-first step about an
intent Home Assistant recognised as risky. Both ask the same way. The same actions
asked for again right after an answer that was neither yes nor no are asked once more
with how to answer; after a second such answer they are dropped, and the user is told.
The question names the risky actions by kind, what scripts set off, then what the
same calls do besides ("and open Kitchen shutter"): a "no" leaves that undone too.
Only the risky part is restated consent (safety/answers.py).
"""

from collections.abc import Iterable

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant

from ..const import LOGGER
from ..ending import Ask, Done, Dropped, Question
from ..safety.confirmation import (
    MAX_UNCLEAR_ANSWERS,
    Asker,
    HeldAction,
    async_hold,
    unclear_answers,
)
from ..safety.effects import Effect
from ..safety.risk import RUNNABLE_KINDS, RiskKind
from ..verify.expected import Verb, service_expectation


def hold_and_ask(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    conversation_id: str,
    agent_id: str,
    actions: list[HeldAction],
    *,
    done: Done,
    pin: str | None,
) -> Question | Dropped:
    """Keep the actions for the asker's next words: the question, after what was done."""
    asker = Asker.of(user_input)
    unclear = unclear_answers(hass, conversation_id, asker, actions)
    if unclear >= MAX_UNCLEAR_ANSWERS:
        LOGGER.info(
            "Conversation %s: not asking about %s again after %d unclear answers",
            conversation_id,
            ", ".join(f"{a.tool_name} {a.entity_ids}" for a in actions),
            unclear,
        )
        return Dropped(done)
    pending = async_hold(
        hass,
        conversation_id,
        agent_id,
        actions,
        user_input.context,
        pin=pin,
        asker=asker,
        unclear=unclear,
    )
    return Question(
        tuple(asks(hass, actions)),
        done,
        needs_pin=pending.needs_pin,
        how_to_answer=unclear > 0,
    )


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
    """How what a held call does besides is asked about: its verb ("close", "run")."""
    if (runnable := RUNNABLE_KINDS.get(effect.domain)) is not None:
        return runnable.value
    expected = service_expectation(effect.domain, effect.service, effect.data)
    return (expected.verb if expected is not None else Verb.OTHER).value


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
