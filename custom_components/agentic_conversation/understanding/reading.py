"""Reading a command: the verb (an HA intent and the domains it fits) and its object.

HA's own sentences for the intents we act on, and ours beside them, are matched with
the device name as a wildcard: "start the vacuum" is HassVacuumStart of "the vacuum",
whatever the home calls it. Only sentences that name a device are used (an area, a
floor or "here" stay HA's, whose recognizer already failed on them), and a sentence
that is nothing but the name ("[the] {name}") is not a command. The one exception is
cleaning an area ("clean the living room"): its area is one of the home's areas, by
name or alias, given with each read.
"""

from dataclasses import dataclass
from functools import cache
import logging
import re
from typing import Any

from hassil import Intents
from hassil.intents import SlotList, TextSlotList, WildcardSlotList
from hassil.recognize import recognize_all

from .words import language_words

_LOGGER = logging.getLogger(__name__)
_WORD = re.compile(r"\w+")

# The intents we act on, and the domains each fits when its sentence does not say.
INTENTS: dict[str, tuple[str, ...]] = {
    "HassTurnOn": ("light", "switch", "fan", "input_boolean"),
    "HassTurnOff": ("light", "switch", "fan", "input_boolean"),
    "HassVacuumStart": ("vacuum",),
    "HassVacuumReturnToBase": ("vacuum",),
    "HassVacuumCleanArea": ("vacuum",),
    "HassLawnMowerStartMowing": ("lawn_mower",),
    "HassLawnMowerDock": ("lawn_mower",),
    "HassListAddItem": ("todo",),
    "HassMediaPause": ("media_player",),
    "HassMediaUnpause": ("media_player",),
    "HassMediaPlayerMute": ("media_player",),
    "HassSetPosition": ("cover", "valve"),
    "HassSetVolume": ("media_player",),
    "HassMediaNext": ("media_player",),
    "HassMediaPrevious": ("media_player",),
}
# Intents whose sentences may name no device ("next song", "turn the volume down to
# 50%"): HA reads them for the satellite's area only; we read them for the one player
# that fits (resolve.py).
UNNAMED = frozenset({"HassMediaNext", "HassMediaPrevious", "HassSetVolume"})
# The levels a sentence carries to its intent (HA's slot names, 0 to 100).
LEVELS = ("position", "volume_level")
# Longer than any command: matching a wildcard costs more the longer the text.
MAX_CHARS = 200
# Wildcard lists HA's sentences use besides the name (what is added to a list).
_ITEM_LISTS = ("todo_list_item", "shopping_list_item")
# The intent whose sentences name an area, not a device (the device is optional).
CLEAN_AREA = "HassVacuumCleanArea"
# Stands for a rule that must never match (a word nobody says).
_NEVER = "agenticneverheard"


@dataclass(frozen=True, slots=True)
class Reading:
    """One way to read a sentence: an intent, its domains, the object's words."""

    intent: str
    domains: frozenset[str]
    name: str
    item: str | None
    response: str | None
    area: str | None = None  # the area id of "clean the living room"
    levels: tuple[tuple[str, int], ...] = ()  # ("position", 50)


class Reader:
    """A language's sentences, compiled once."""

    def __init__(
        self,
        intents: Intents,
        lists: dict[str, SlotList],
        skip: frozenset[str],
    ) -> None:
        """Keep the compiled sentences, their wildcard lists, the words to skip."""
        self._intents = intents
        self._lists = lists
        self._skip = skip

    def _words(self, text: str) -> list[str]:
        """The words that may name something (no articles, no "my")."""
        return [w for w in _WORD.findall(text.casefold()) if w not in self._skip]

    def read(self, text: str, areas: SlotList | None = None) -> list[Reading]:
        """Every reading of the text, each once (none of a text past MAX_CHARS).

        `areas`: the home's areas (their ids as values), for cleaning an area.
        """
        if len(text) > MAX_CHARS:
            return []
        said = self._words(text)
        readings: dict[tuple[Any, ...], Reading] = {}
        lists = self._lists if areas is None else self._lists | {"area": areas}
        for result in recognize_all(
            text,
            self._intents,
            slot_lists=lists,
            language=self._language,
            default_response=None,  # the stage picks HA's words when none is named
        ):
            area = result.entities.get("area")
            if (area is not None) != (result.intent.name == CLEAN_AREA):
                continue  # a device in an area is HA's business; cleaning needs one
            name = result.entities.get("name")
            metadata = result.intent_metadata or {}
            if name is None and (area is not None or metadata.get("agentic_unnamed")):
                object_text = ""  # "clean the kitchen", "next song": resolve.py
            elif name is None or not isinstance(name.value, str):
                continue
            else:
                object_text = " ".join(name.value.casefold().split()).strip(" .!?")
                if (place := result.entities.get("place")) is not None:
                    # "the curtains to 50% in the bedroom": the place is the name's
                    object_text = f"{object_text} {str(place.value).casefold()}"
                    object_text = object_text.strip(" .!?")
                if not object_text or self._words(object_text) == said:
                    continue  # no verb: "the kitchen fan" is a name, not a command
            item = result.entities.get("item")
            domains = metadata.get("agentic_domains") or INTENTS[result.intent.name]
            levels = _levels(result.entities)
            if levels is None:
                continue
            reading = Reading(
                intent=result.intent.name,
                domains=frozenset(domains),
                name=object_text,
                item=str(item.value).strip() if item is not None else None,
                response=result.response,
                area=str(area.value) if area is not None else None,
                levels=levels,
            )
            key = (
                reading.intent,
                reading.domains,
                reading.name,
                reading.item,
                reading.area,
                reading.levels,
            )
            readings.setdefault(key, reading)
        return list(readings.values())

    @property
    def _language(self) -> str:
        return str(self._intents.language)


def _levels(entities: dict[str, Any]) -> tuple[tuple[str, int], ...] | None:
    """The levels read ("to 50%"), or None when one is not a number from 0 to 100."""
    levels: list[tuple[str, int]] = []
    for slot in LEVELS:
        if (entity := entities.get(slot)) is None:
            continue
        value = entity.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if not 0 <= value <= 100:
            return None
        levels.append((slot, int(value)))
    return tuple(levels)


@cache
def reader(language: str) -> Reader | None:
    """The compiled sentences of a language (blocking: run it in the executor)."""
    words = language_words(language)
    if words is None:
        return None
    ha = words.ha
    blocks: dict[str, list[dict[str, Any]]] = {}
    for intent_name, intent in (ha.get("intents") or {}).items():
        if intent_name not in INTENTS:
            continue
        for block in intent.get("data", []):
            if (usable := _usable(block, intent_name, words.here_rules)) is not None:
                blocks.setdefault(intent_name, []).append(usable)
    for block in words.sentences:
        intent_name = str(block.get("intent"))
        if intent_name not in INTENTS:
            continue
        blocks.setdefault(intent_name, []).append(
            {
                "sentences": list(block.get("sentences", [])),
                "metadata": {
                    "agentic_domains": list(block.get("domains", [])),
                    "agentic_unnamed": intent_name in UNNAMED
                    and bool(block.get("unnamed")),
                },
            }
        )
    data = {
        "language": words.language,
        "intents": {name: {"data": data} for name, data in blocks.items()},
        "expansion_rules": ha.get("expansion_rules", {}),
        "skip_words": ha.get("skip_words", []),
        "lists": dict(ha.get("lists") or {}),
    }
    for name in _ITEM_LISTS:
        data["lists"].setdefault(name, {"wildcard": True})
    try:
        intents = Intents.from_dict(data)
    except Exception:  # noqa: BLE001 - a language's data must not break a turn
        _LOGGER.exception("Sentences for %s could not be read", words.language)
        return None
    # Areas and floors are HA's business (its recognizer failed on them): a rule
    # that refers to one matches nothing here.
    return Reader(
        intents,
        {
            "name": WildcardSlotList("name"),
            "place": WildcardSlotList("place"),
            "area": TextSlotList("area", []),
            "floor": TextSlotList("floor", []),
        },
        words.skip,
    )


def _usable(
    block: dict[str, Any], intent_name: str, here: tuple[str, ...]
) -> dict[str, Any] | None:
    """An HA sentence block that names a device, with the domains it fits.

    For an intent that may name none (UNNAMED), HA's block for the satellite's area
    is read too, but never a sentence that says "here" (`here`: those rules).
    """
    sentences = [str(s) for s in block.get("sentences", [])]
    context = block.get("requires_context") or {}
    unnamed = intent_name in UNNAMED and context == {"area": {"slot": True}}
    if ("area" in context or "floor" in context) and not unnamed:
        return None  # "here": the satellite's area, HA's own business
    if unnamed:
        sentences = [s for s in sentences if not _mentions(s, "name", "area", "floor")]
        for rule in here:  # "here" said: not read; left out: read
            sentences = [s.replace(f"<{rule}>", _NEVER) for s in sentences]
    else:
        sentences = [
            s
            for s in sentences
            if "{floor}" not in s
            and (
                intent_name == CLEAN_AREA
                or (_mentions(s, "name") and "{area}" not in s)
            )
        ]
    if not sentences:
        return None
    domains = context.get("domain") or (block.get("slots") or {}).get("domain")
    if isinstance(domains, str):
        domains = [domains]
    return {
        "sentences": sentences,
        "response": block.get("response"),
        "metadata": {
            "agentic_domains": list(domains or INTENTS[intent_name]),
            "agentic_unnamed": unnamed,
        },
    }


def _mentions(sentence: str, *slots: str) -> bool:
    """Whether a sentence has one of these slots (German rules wrap them: <name>)."""
    return any(f"{{{slot}}}" in sentence or f"<{slot}>" in sentence for slot in slots)
