"""What the house showed of a turn's actions, in words: done, sent, not done and why.

"I unlocked Front door; I sent the command to Doorbell; Slow door did not unlock: it
is still locked." Done entities are named together with their verb; each one not done
gets its own clause with the reason its state gives.
"""

from collections.abc import Collection, Sequence

from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

from ..agent import ToolCallRecord
from ..languages import base_language
from ..verify.done_actions import Action, actions_done
from ..verify.expected import Verb
from ..verify.failed_actions import Failure
from ..verify.outcome import EntityEffect, Reason, Status
from .replies import (
    async_render_done,
    async_render_failed,
    async_strings,
    joined,
    lower_first,
)

_REASON_KEYS = {
    Reason.UNAVAILABLE: "reason_unavailable",
    Reason.ERROR: "reason_error",
    Reason.STILL: "reason_still",
    Reason.OTHER_STATE: "reason_now",
}
# What was not done, by its verb (keys spelled out: tests/test_packaging.py finds them).
_NOT_DONE_KEYS = {
    Verb.TURN_ON: "not_done_turn_on",
    Verb.TURN_OFF: "not_done_turn_off",
    Verb.UNLOCK: "not_done_unlock",
    Verb.LOCK: "not_done_lock",
    Verb.OPEN: "not_done_open",
    Verb.CLOSE: "not_done_close",
    Verb.DISARM: "not_done_disarm",
    Verb.ARM: "not_done_arm",
    Verb.OTHER: "not_done_other",
}
_ENGLISH = {
    "sent_action": "I sent the command to {names}",
    "not_done": "{name} did not change: {reason}",
    "reason_unavailable": "it is unavailable",
    "reason_error": "Home Assistant reported an error",
    "reason_still": "it is still {state}",
    "reason_now": "it is {state}",
}


async def async_effect_actions(
    hass: HomeAssistant, language: str, effects: Sequence[EntityEffect]
) -> list[Action]:
    """The effects as actions to tell: done by verb, then sent, then each not done."""
    strings = await async_strings(hass, language)
    done: dict[Verb, list[str]] = {}
    sent: list[str] = []
    for effect in effects:
        if effect.status is Status.DONE:
            done.setdefault(effect.verb, []).append(effect.name)
        elif effect.status is Status.SENT:
            sent.append(effect.name)
    actions = [Action(verb.value, tuple(names)) for verb, names in done.items()]
    if sent:
        template = strings.get("sent_action") or _ENGLISH["sent_action"]
        actions.append(
            Action("speech", speech=template.format(names=joined(sent, strings)))
        )
    states = await _async_state_words(hass, language, effects)
    for effect in effects:
        if effect.status is not Status.NOT_DONE:
            continue
        key = _REASON_KEYS[effect.reason or Reason.STILL]
        state = states.get((effect.entity_id.split(".", 1)[0], effect.state))
        reason = (strings.get(key) or _ENGLISH[key]).format(state=state or effect.state)
        template = strings.get(_NOT_DONE_KEYS[effect.verb]) or _ENGLISH["not_done"]
        actions.append(
            Action("speech", speech=template.format(name=effect.name, reason=reason))
        )
    return actions


async def _async_state_words(
    hass: HomeAssistant, language: str, effects: Sequence[EntityEffect]
) -> dict[tuple[str, str], str]:
    """Each (domain, state) in the user's language, as Home Assistant shows it."""
    wanted = {
        (effect.entity_id.split(".", 1)[0], effect.state)
        for effect in effects
        if effect.status is Status.NOT_DONE and effect.state
    }
    if not wanted:
        return {}
    domains = {domain for domain, _state in wanted}
    translations = await async_get_translations(
        hass, base_language(language) or "en", "entity_component", domains
    )
    words: dict[tuple[str, str], str] = {}
    for domain, state in wanted:
        word = translations.get(f"component.{domain}.entity_component._.state.{state}")
        if word:
            words[(domain, state)] = lower_first(word)
    return words


async def async_told_actions(
    hass: HomeAssistant,
    language: str,
    effects: Sequence[EntityEffect],
    records: Sequence[ToolCallRecord],
    read_only: Collection[str] = (),
) -> list[Action]:
    """What a turn's actions did as the house shows it, and what tools said they did.

    An intent that answered in its own words (a shopping list item added) is told in
    them; what entities show comes from their states, not from the tools' results.
    """
    spoken = [
        action for action in actions_done(records, read_only) if action.kind == "speech"
    ]
    return [*await async_effect_actions(hass, language, effects), *spoken]


async def async_render_outcome(
    hass: HomeAssistant,
    language: str,
    actions: Sequence[Action],
    failures: Sequence[Failure],
    question: str = "",
) -> str:
    """What was done and what was not, then the model's closing question if any."""
    if failures:
        return await async_render_failed(hass, language, failures, actions, question)
    told = await async_render_done(hass, language, actions)
    return f"{told} {question}" if question else told
