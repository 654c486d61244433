"""What an action targeted, noted in the turn's watch: intents, services, scripts."""

from collections.abc import Iterable, Mapping
from typing import Any

from homeassistant.core import HomeAssistant

from .expected import ACTING_INTENTS, Verb, intent_expectation, service_expectation
from .watch import EffectWatch


def note_intent(
    watch: EffectWatch,
    intent_type: str,
    slots: Mapping[str, Any],
    data: Mapping[str, Any],
) -> None:
    """An intent's result (`IntentResponse.as_dict()["data"]`): its entity targets.

    Entities in `failed` did not get the service (an area whose entities all failed
    is told entity by entity); those in `success` must show it in their state. An
    answer to a question, or an intent that does not act on states, notes nothing.
    HA pairs each entity with the calls in the order they complete
    (`asyncio.as_completed`), so of several, `failed` may name the wrong one: one
    whose state shows the action done is judged by its state.
    """
    if intent_type not in ACTING_INTENTS or data.get("code") is not None:
        return
    for key, succeeded in (("success", True), ("failed", False)):
        for target in _entity_targets(data.get(key)):
            entity_id, name = target
            expectation = intent_expectation(
                intent_type, entity_id.split(".", 1)[0], slots
            )
            if succeeded:
                watch.expect(entity_id, expectation, name)
            else:
                verb = expectation.verb if expectation is not None else Verb.OTHER
                watch.failed(entity_id, verb, name, shown=expectation)


def note_service(
    hass: HomeAssistant,
    watch: EffectWatch,
    service: str,
    data: Mapping[str, Any],
    entity_ids: Iterable[str],
) -> None:
    """A service call about to be made on these entities (their states are before)."""
    for entity_id in entity_ids:
        state = hass.states.get(entity_id)
        watch.expect(
            entity_id,
            service_expectation(
                entity_id.split(".", 1)[0],
                service,
                data,
                state.state if state is not None else None,
            ),
        )


def note_failed_intent(
    watch: EffectWatch,
    intent_type: str,
    slots: Mapping[str, Any],
    entity_ids: Iterable[str],
) -> None:
    """The intent's run failed on these targets: each is judged by its state."""
    if intent_type not in ACTING_INTENTS:
        return
    for entity_id in entity_ids:
        expectation = intent_expectation(intent_type, entity_id.split(".", 1)[0], slots)
        verb = expectation.verb if expectation is not None else Verb.OTHER
        watch.failed(entity_id, verb, shown=expectation)


def note_failed_service(
    watch: EffectWatch,
    service: str,
    data: Mapping[str, Any],
    entity_ids: Iterable[str],
) -> None:
    """The service call reported an error: none of its entities is done."""
    for entity_id in entity_ids:
        expectation = service_expectation(entity_id.split(".", 1)[0], service, data)
        watch.failed(
            entity_id, expectation.verb if expectation is not None else Verb.OTHER
        )


def _entity_targets(targets: Any) -> list[tuple[str, str]]:
    """The (entity id, name) of an intent result's entity targets."""
    if not isinstance(targets, list):
        return []
    return [
        (entity_id, str(target.get("name") or entity_id))
        for target in targets
        if isinstance(target, Mapping)
        and target.get("type") == "entity"
        and isinstance(entity_id := target.get("id"), str)
        and "." in entity_id
    ]
