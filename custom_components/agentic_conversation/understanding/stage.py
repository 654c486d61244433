"""Our understanding after Home Assistant's: run HA's own intent on what we resolved.

When HA's recognizer fails on a command, the sentence is read with our language data
(reading.py), its object resolved with our entity search (resolve.py), and HA's own
intent run for it through the default agent (the caller's `execute`: the same risk
guard, chat-log entries, exposure check and words as any recognised command). Before
it runs, HA's own matching of the slots we give it must find exactly the entities we
resolved: a wrong device is worse than a "Sorry".

With two or three candidates the user is asked which; the answer, next turn, is read
against those candidates only (`async_answer_choice`).
"""

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
import time
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.vacuum.const import VacuumEntityFeature
from homeassistant.const import ATTR_DEVICE_CLASS
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    intent,
)
from homeassistant.util.hass_dict import HassKey

from ..const import DOMAIN, LOGGER
from ..tools.entities import ASSISTANT, EntityInfo, exposed_entities
from ..tools.search_words import async_load
from ..words.replies import async_phrase
from .cleaning import area_floors, area_list, resolve_cleaning
from .reading import CLEAN_AREA, Reading, reader
from .resolve import Resolved, begins_alike, covering, resolve, resolve_unnamed
from .together import together
from .words import LanguageWords, language_words

# How long a "which one?" waits for its answer.
CHOICE_SECONDS = 300.0
# HassTurnOn and HassTurnOff take the domain as a slot; other intents have their own.
_DOMAIN_SLOT = frozenset({"HassTurnOn", "HassTurnOff"})

type Execute = Callable[
    [str, dict[str, Any], dict[str, Any], Sequence[str]],
    Awaitable[intent.IntentResponse],
]
"""Runs an intent with its slots, speech slots and response keys (the first found)."""


@dataclass(frozen=True, slots=True)
class Understood:
    """What our understanding did: HA's response to the intent run, or a question."""

    response: intent.IntentResponse | None = None
    question: str | None = None


@dataclass(frozen=True, slots=True)
class _Choice:
    """A question asked: the intent waits for which of these entities."""

    resolved: Resolved
    language: str
    until: float


_CHOICES: HassKey[dict[str, _Choice]] = HassKey(f"{DOMAIN}_understanding_choices")


async def async_words(hass: HomeAssistant, language: str) -> LanguageWords | None:
    """A language's words and compiled sentences, read off the event loop once."""
    if language in _WARM:
        return language_words(language)  # read before: cached, no file touched
    words = await hass.async_add_executor_job(language_words, language)
    if words is not None:
        await hass.async_add_executor_job(_warm, language)
        await async_load(hass, language)
    _WARM.add(language)
    return words


_WARM: set[str] = set()


def _warm(language: str) -> None:
    """Compile a language's sentences; hassil builds its matchers on the first read."""
    if (sentences := reader(language)) is not None:
        sentences.read("turn on the light")


async def async_understand(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    execute: Execute,
) -> Understood | None:
    """HA's intent for what our reading of the words found, or None: not sure."""
    language = user_input.language or hass.config.language
    words = await async_words(hass, language)
    sentences = reader(language) if words is not None else None
    if words is None or sentences is None:
        return None
    readings: Sequence[Reading] = sentences.read(user_input.text, area_list(hass))
    if not readings:
        return None
    entities = exposed_entities(hass)
    here = _satellite_area(hass, user_input)
    found = [
        resolved
        for resolved in (
            resolve(readings, entities, words, here),
            resolve_cleaning(readings, entities, words, area_floors(hass)),
            resolve_unnamed(readings, entities, here),
        )
        if resolved is not None
    ]
    if len(found) != 1:
        return None  # nothing fits, or two ways of reading it: not sure
    (resolved,) = found
    if resolved.ask:
        question = await _async_question(hass, language, resolved.entities)
        hass.data.setdefault(_CHOICES, {})[chat_log.conversation_id] = _Choice(
            resolved, language, time.monotonic() + CHOICE_SECONDS
        )
        LOGGER.info(
            "Asked which one for %s: %s",
            resolved.intent,
            ", ".join(e.entity_id for e in resolved.entities),
        )
        return Understood(question=question)
    return await _async_run(hass, resolved, execute)


async def async_names_nothing(hass: HomeAssistant, language: str, name: str) -> bool:
    """Whether our reading of a device name finds no exposed device (False: unsure).

    Without our words for the language, a name none of whose words begins like a
    word of an exposed device's name or place (an inflected "zmywarkę" is "Zmywarka").
    """
    words = await async_words(hass, language)
    if words is None:
        return not begins_alike(exposed_entities(hass), name)
    return not covering(exposed_entities(hass), name, words)


async def async_answer_choice(
    hass: HomeAssistant,
    user_input: conversation.ConversationInput,
    chat_log: conversation.ChatLog,
    execute: Execute,
) -> Understood | None:
    """The intent asked about last turn, on the one the answer names; else None.

    The question is answered or forgotten now, whatever the words.
    """
    choice = hass.data.get(_CHOICES, {}).pop(chat_log.conversation_id, None)
    if choice is None or choice.until < time.monotonic():
        return None
    words = await async_words(hass, choice.language)
    if words is None:
        return None
    current = {e.entity_id: e for e in exposed_entities(hass)}
    still = [
        current[e.entity_id] for e in choice.resolved.entities if e.entity_id in current
    ]
    answer = words.answer_key(user_input.text)
    if still and (
        answer in words.all_answers
        or (len(still) == 2 and answer in words.both_answers)
    ):
        # "All of them", "both": each one asked about, like "all the fans".
        every = replace(choice.resolved, entities=tuple(still), ask=False, every=True)
        return await _async_run(hass, replace(every, group=len(still) > 1), execute)
    named = covering(still, user_input.text, words, by_place=True)
    if len(named) != 1:
        return None
    return await _async_run(
        hass, replace(choice.resolved, entities=(named[0],), ask=False), execute
    )


async def _async_run(
    hass: HomeAssistant, resolved: Resolved, execute: Execute
) -> Understood | None:
    """HA's intent with slots HA's own matching resolves to exactly our entities."""
    slots: dict[str, Any] | None = None
    if resolved.intent == CLEAN_AREA:
        slots = _area_slots(hass, resolved)
        if slots is None:  # a vacuum that cannot clean one area: HA's start
            resolved = replace(
                resolved, intent="HassVacuumStart", response=None, area_id=None
            )
    if slots is None:
        slots = _slots(hass, resolved)
    if slots is None and resolved.every and resolved.group:
        # "All the windows", which no place or class names alone: each by its name.
        return await _async_run_each(hass, resolved, execute)
    if slots is None:
        LOGGER.info(
            "Not running %s: its slots would not name exactly %s",
            resolved.intent,
            [e.entity_id for e in resolved.entities],
        )
        return None
    return Understood(response=await _async_execute(resolved, slots, execute))


async def _async_run_each(
    hass: HomeAssistant, resolved: Resolved, execute: Execute
) -> Understood | None:
    """HA's intent on each of them by its own name; None if one cannot be named.

    All are run (a risky one is held by the guard, the rest still run); the
    answer tells what was done and names each one that failed.
    """
    named: list[tuple[Resolved, dict[str, Any]]] = []
    for entity in resolved.entities:
        one = replace(resolved, entities=(entity,), group=False)
        if (slots := _slots(hass, one)) is None:
            LOGGER.info(
                "Not running %s: %s cannot be named alone",
                resolved.intent,
                entity.entity_id,
            )
            return None
        named.append((one, slots))
    responses = [await _async_execute(one, slots, execute) for one, slots in named]
    return Understood(response=together(responses, resolved.entities))


async def _async_execute(
    resolved: Resolved, slots: dict[str, Any], execute: Execute
) -> intent.IntentResponse:
    """HA's intent with these slots, in HA's words for what was read."""
    speech_slots = {
        name: value.get("text") or value["value"] for name, value in slots.items()
    }
    if resolved.group:
        # HA's words for one device ("Ho spento {{ slots.name }}") where a language
        # has none for all of them: the names, never an empty slot.
        speech_slots.setdefault("name", ", ".join(_spoken(resolved.entities)))
    # HA's words for the sentence read, else for the device's kind ("Closing" for a
    # valve), else its default.
    domain = resolved.entities[0].domain
    keys = [resolved.response or domain, domain, "default"]
    kind = {"light": "lights", "fan": "fans"}.get(domain)
    if resolved.group and not {"area", "floor"} & slots.keys():
        # "Turned off all of the fans", "Closing the blinds": HA's words for all,
        # else its words for them in a place that need no place ("Turned on the
        # fans"); a key whose words need a slot we lack is passed over.
        classes = [f"{domain}_device_class"] if "device_class" in slots else []
        places = [kind, f"{kind}_area", f"{kind}_floor"] if kind else []
        keys[:0] = [f"{domain}_all", *classes, *places]
    elif resolved.group:
        # "Turned on the lights", as HA says for its own area and floor sentences.
        place = "floor" if "floor" in slots else "area"
        keys.insert(0, f"{kind}_{place}")
    return await execute(resolved.intent, slots, speech_slots, keys)


def _slots(hass: HomeAssistant, resolved: Resolved) -> dict[str, Any] | None:
    """The slots that name the entities to HA, checked with HA's own matching."""
    wanted = {e.entity_id for e in resolved.entities}
    first = resolved.entities[0]
    extra: dict[str, Any] = {}
    if resolved.intent in _DOMAIN_SLOT or resolved.group:
        # A group by area alone would let HA's handler act on every kind in it.
        extra["domain"] = {"value": [first.domain]}
    if resolved.item is not None:
        extra["item"] = {"value": resolved.item, "text": resolved.item}
    for slot, level in resolved.levels:
        extra[slot] = {"value": level, "text": str(level)}
    options: list[dict[str, Any]] = []
    if resolved.group:
        if first.area_id and all(e.area_id == first.area_id for e in resolved.entities):
            options.append({"area": {"value": first.area_id, "text": first.area}})
        if first.floor and all(e.floor == first.floor for e in resolved.entities):
            options.append({"floor": {"value": first.floor, "text": first.floor}})
        # All of them wherever they are ("all the fans"), or all of a kind ("all the
        # blinds"): only when HA's matching finds exactly these.
        if (kind := _device_class(resolved.entities)) is not None:
            options.append({"device_class": {"value": [kind], "text": kind}})
        options.append({})
    else:
        name = {"name": {"value": first.name, "text": first.name}}
        options.append(name)
        if first.area_id:
            options.append(
                name | {"area": {"value": first.area_id, "text": first.area}}
            )
    for option in options:
        if _matches(hass, option | extra, resolved.entities[0].domain) == wanted:
            return option | extra
    return None


def _area_slots(hass: HomeAssistant, resolved: Resolved) -> dict[str, Any] | None:
    """HassVacuumCleanArea's slots, when the vacuum cleans by area and HA finds both.

    HA's handler takes every area called so and the vacuums its name matches (the
    area's own first): both must be exactly ours.
    """
    (vacuum,) = resolved.entities
    features = int(vacuum.state.attributes.get("supported_features") or 0)
    area = ar.async_get(hass).async_get_area(resolved.area_id or "")
    if area is None or not features & VacuumEntityFeature.CLEAN_AREA:
        return None
    areas = {a.id for a in intent.find_areas(area.name, ar.async_get(hass))}
    result = intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(
            name=vacuum.name,
            domains={"vacuum"},
            features=VacuumEntityFeature.CLEAN_AREA,
            assistant=ASSISTANT,
        ),
        intent.MatchTargetsPreferences(area_id=area.id, floor_id=area.floor_id),
    )
    found = {state.entity_id for state in result.states} if result.is_match else set()
    if areas != {area.id} or found != {vacuum.entity_id}:
        return None
    return {
        "area": {"value": area.name, "text": area.name},
        "name": {"value": vacuum.name, "text": vacuum.name},
    }


def _device_class(entities: Sequence[EntityInfo]) -> str | None:
    """The device class all these entities share, if they do."""
    kinds = {e.state.attributes.get(ATTR_DEVICE_CLASS) for e in entities}
    return kind if len(kinds) == 1 and isinstance(kind := kinds.pop(), str) else None


def _matches(hass: HomeAssistant, slots: dict[str, Any], domain: str) -> set[str]:
    """The entity ids HA's intent matching finds for these slots."""
    kinds = slots.get("device_class", {}).get("value")
    result = intent.async_match_targets(
        hass,
        intent.MatchTargetsConstraints(
            name=slots.get("name", {}).get("value"),
            area_name=slots.get("area", {}).get("value"),
            floor_name=slots.get("floor", {}).get("value"),
            domains={domain},
            device_classes=set(kinds) if kinds else None,
            assistant=ASSISTANT,
        ),
    )
    return {state.entity_id for state in result.states} if result.is_match else set()


def _satellite_area(
    hass: HomeAssistant, user_input: conversation.ConversationInput
) -> str | None:
    """The area of the satellite (or device) the words came from."""
    if user_input.satellite_id and (
        entry := er.async_get(hass).async_get(user_input.satellite_id)
    ):
        if entry.area_id:
            return entry.area_id
        device_id: str | None = entry.device_id
    else:
        device_id = user_input.device_id
    if device_id is None:
        return None
    device = dr.async_get(hass).async_get(device_id)
    return dr.async_get_effective_area_id(hass, device) if device else None


async def _async_question(
    hass: HomeAssistant, language: str, entities: Sequence[EntityInfo]
) -> str:
    """The question, "Kitchen fan or Bedroom fan?"."""
    spoken = _spoken(entities)
    template = await async_phrase(hass, language, "which_one")
    return template.replace("{rest}", ", ".join(spoken[:-1])).replace(
        "{last}", spoken[-1]
    )


def _spoken(entities: Sequence[EntityInfo]) -> list[str]:
    """Their names, with the area where a name repeats ("Kitchen Fan", "Bedroom Fan")."""
    names = [e.name for e in entities]
    return [
        f"{e.area} {e.name}"
        if names.count(e.name) > 1
        and e.area
        and e.area.casefold() not in e.name.casefold()
        else e.name
        for e in entities
    ]


def async_forget_choices(hass: HomeAssistant) -> None:
    """Drop every question waiting for its answer (tests, unload)."""
    hass.data.pop(_CHOICES, None)
