"""Which exposed entities a reading means: one, one clear group, a few to ask about.

Our entity search (tools/search.py) ranks the object's words against names, aliases,
device words, areas and floors; an entity counts only when it answers every word (not
by its entity id alone) and its domain fits the verb. Then:
- exactly one fits: that one;
- several, and exactly one in the satellite's area: that one, as HA prefers it;
- several of one domain in one area or on one floor, named in the plural ("the
  upstairs lights"): the group;
- every one of several ("all the fans", "every window"): all of them, if of one
  domain other than lights (never "which one?": the words said all);
- two or three: the user is asked which;
- otherwise, or when readings disagree: nothing (the model's, or HA's "Sorry").
A device must support what the intent asks of it (a position, a volume, the next
track). A sentence that names no device ("next song") means the home's only media
player that can do it, else the only one of those playing (`resolve_unnamed`).
"Outside" ("pause the music outside") names no area: where the words name nothing
as said, they are read again among the devices whose name or area is out of doors
("Outdoor Speakers", the patio's lights), without that word.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from os.path import commonprefix
from typing import Any

from homeassistant.components.cover.const import CoverEntityFeature
from homeassistant.components.media_player.const import (
    MediaPlayerEntityFeature,
    MediaPlayerState,
)
from homeassistant.components.valve.const import ValveEntityFeature
from homeassistant.const import ATTR_DEVICE_CLASS

from ..tools.entities import EntityInfo
from ..tools.search import profile_of, scored
from ..tools.search_words import device_kinds, fold, same_word, stem, words
from .reading import UNNAMED, Reading
from .words import LanguageWords

MAX_CHOICES = 3
# Domains whose device words fit all of their entities alike (a TV and a speaker are
# both "media players"): named by their own names only.
NAME_ONLY = frozenset({"media_player"})
# What a device must support for the intent, by domain (HA's handlers need it too).
FEATURES: dict[str, dict[str, int]] = {
    "HassSetPosition": {
        "cover": CoverEntityFeature.SET_POSITION,
        "valve": ValveEntityFeature.SET_POSITION,
    },
    "HassSetVolume": {"media_player": MediaPlayerEntityFeature.VOLUME_SET},
    "HassMediaNext": {"media_player": MediaPlayerEntityFeature.NEXT_TRACK},
    "HassMediaPrevious": {"media_player": MediaPlayerEntityFeature.PREVIOUS_TRACK},
}


# A verb that mutes in some languages' data and turns off (on) in plain speech: when
# a sentence reads as both, it is the plain one.
_PLAIN_VERBS = {
    "HassMediaPlayerMute": "HassTurnOff",
    "HassMediaPlayerUnmute": "HassTurnOn",
}


@dataclass(frozen=True, slots=True)
class Resolved:
    """What to run or ask: an intent on entities, or a question between them."""

    intent: str
    entities: tuple[EntityInfo, ...]
    response: str | None
    item: str | None = None
    group: bool = False  # all of them, by their area or floor
    every: bool = False  # all of them, wherever they are ("all the fans")
    ask: bool = False  # which one of them?
    area_id: str | None = None  # the area to clean (HassVacuumCleanArea)
    levels: tuple[tuple[str, int], ...] = ()  # ("position", 50)


def object_words(text: str, language: LanguageWords) -> str:
    """The object's words without those that name nothing (articles, "my", "all")."""
    return " ".join(
        w for w in words(text) if w not in language.skip and w not in language.every
    )


def covering(
    entities: Sequence[EntityInfo],
    text: str,
    language: LanguageWords,
    domains: frozenset[str] | None = None,
    *,
    by_place: bool = False,
) -> list[EntityInfo]:
    """The entities that answer every word of the text, of these domains.

    One of the words must name the entity itself (its name, an alias, or a device
    word of its domain): a place alone ("turn on the kitchen") names no device. A
    media player is named by its own name only: "TV", "speaker" and "music" are
    device words of every media player; those of a device class name the players of
    that class ("the TV"); where the home exposes just one, the words that fit any
    player ("the music") name it.
    If exactly one of them is called just what the text says, it is that one.
    `by_place`: a place alone will do (an answer to "which one?").
    """
    query = object_words(text, language)
    count, ranked = scored(entities, query, language.language, by_id=False)
    kinds = [e.domain for e in entities]
    sole = frozenset(d for d in NAME_ONLY if kinds.count(d) == 1)
    if not count:
        return []
    found = [
        entity
        for covered, _score, entity in ranked
        if covered == count
        and (domains is None or entity.domain in domains)
        and (by_place or _names_it(entity, query, language, sole))
    ]
    exact = [e for e in found if query in (n.casefold() for n in (e.name, *e.aliases))]
    return exact if len(exact) == 1 else found


def begins_alike(entities: Sequence[EntityInfo], text: str) -> bool:
    """Whether a word of the text begins like a word of a device's name or place.

    For a language we have no words for: its endings are not known, so a word is
    taken for another that shares all but its last three letters (at least four).
    """
    said = {fold(word) for word in words(text) if len(word) >= 4}
    for entity in entities:
        names = (entity.name, *entity.aliases, entity.area or "", *entity.area_aliases)
        for word in (fold(word) for name in names for word in words(name)):
            for other in said:
                shared = len(commonprefix((word, other)))
                if shared >= max(4, min(len(word), len(other)) - 3):
                    return True
    return False


def _names_it(
    entity: EntityInfo,
    query: str,
    words_of_language: LanguageWords,
    sole: frozenset[str],
) -> bool:
    """Whether a word of the query is the entity's name word or its device word.

    For a media player, each of its device words must be in its name as well, but
    for a word of its device class ("TV") and a word that fits any player when it
    is the home's only one (`sole`).
    """
    language = words_of_language.language
    any_one = words_of_language.only_one.get(entity.domain, frozenset())
    words_of = profile_of(entity)
    # A word of its place in its name ("Kitchen ceiling") names the place.
    name_stems = words_of.name_stems - words_of.area_stems - words_of.floor_stems
    named = False
    for word in words(query):
        word_stem = stem(word)
        in_name = same_word(word_stem, name_stems)
        kind = any(
            domain == entity.domain for domain, _ in device_kinds(word_stem, language)
        )
        if kind and not in_name and entity.domain in NAME_ONLY:
            if not _of_its_class(entity, word_stem, words_of_language) and (
                entity.domain not in sole or word not in any_one
            ):
                return False
        named = named or in_name or kind
    return named


def _of_its_class(entity: EntityInfo, word_stem: str, language: LanguageWords) -> bool:
    """Whether the word names the entity's device class ("TV" for a TV)."""
    device_class = entity.state.attributes.get(ATTR_DEVICE_CLASS)
    phrases = language.class_words.get(entity.domain, {}).get(str(device_class), ())
    return any(stem(phrase) == word_stem for phrase in phrases)


def resolve(
    readings: Sequence[Reading],
    entities: Sequence[EntityInfo],
    language: LanguageWords,
    satellite_area: str | None,
) -> Resolved | None:
    """The one thing the readings mean in this home, or None.

    Where a level was read ("to 50%"), a reading that left it in its object ("open
    the curtains to 50% in …" as opening them) misses part of the command: not used.
    """
    if any(reading.levels for reading in readings):
        readings = [reading for reading in readings if reading.levels]
    fits: dict[tuple[Any, ...], list[tuple[Reading, list[EntityInfo]]]] = {}
    for reading in readings:
        if reading.area is not None or not reading.name:
            continue  # cleaning an area (cleaning.py), or no device named
        if reading.item is not None and not reading.item.strip():
            continue
        able = [e for e in entities if supports(reading.intent, e)]
        matches = covering(able, reading.name, language, reading.domains)
        if not matches and (outside := _outside(reading.name, able, language)):
            matches = covering(outside[1], outside[0], language, reading.domains)
        if matches:
            fits.setdefault((reading.intent, reading.item, reading.levels), []).append(
                (reading, matches)
            )
    for quieter, plain in _PLAIN_VERBS.items():
        # Italian "spegni la tv" is HA's mute too ("spegni [l'audio]"): turn it off.
        if any(key[0] == plain for key in fits):
            fits = {key: value for key, value in fits.items() if key[0] != quieter}
    if len(fits) != 1:
        return None  # nothing fits, or readings of different intents: not sure
    # Readings of one intent that take more or fewer of the words ("the shopping
    # list", "the shopping"): the narrowest, when each narrows the next.
    (found,) = fits.values()
    found.sort(key=lambda pair: len(pair[1]))
    for (_, narrow), (_, wide) in zip(found, found[1:], strict=False):
        if not {e.entity_id for e in narrow} <= {e.entity_id for e in wide}:
            return None
    reading, matches = found[0]
    resolved = Resolved(
        reading.intent, (), reading.response, reading.item, levels=reading.levels
    )
    if reading.item is None and _says_every(reading.name, language):
        # "All the fans": each one, wherever it is; never "which one?". Lights: HA
        # has its own "all the lights", and "all the lamps" may mean only some.
        return _every(resolved, matches)
    if len(matches) == 1:
        return _with(resolved, matches)
    here = [e for e in matches if satellite_area and e.area_id == satellite_area]
    if len(here) == 1:
        return _with(resolved, here)
    if reading.item is None and _plural(reading.name, language):
        # "The fans": those in the satellite's room when it has several, else all
        # of them (in one place: as a group), never "which one?".
        them = here if len(here) > 1 else matches
        if _group(them):
            return replace(resolved, entities=tuple(them), group=True)
        if (every := _every(resolved, them)) is not None:
            return every
    if len(matches) <= MAX_CHOICES:
        return replace(resolved, entities=tuple(matches), ask=True)
    return None


def _every(resolved: Resolved, matches: list[EntityInfo]) -> Resolved | None:
    """Each of them, wherever it is, if of one domain other than lights."""
    domains = {e.domain for e in matches}
    if len(domains) != 1 or "light" in domains:
        return None
    return replace(
        resolved, entities=tuple(matches), group=len(matches) > 1, every=True
    )


def _outside(
    text: str, entities: Sequence[EntityInfo], language: LanguageWords
) -> tuple[str, list[EntityInfo]] | None:
    """The words without "outside", and the entities out of doors; None if not said."""
    said = words(text)
    if not any(word in language.outside for word in said):
        return None
    rest = " ".join(word for word in said if word not in language.outside)
    out = [e for e in entities if _out_of_doors(e, language.outdoor_places)]
    return (rest, out) if rest.strip() and out else None


def _out_of_doors(entity: EntityInfo, places: tuple[str, ...]) -> bool:
    """Whether a word of its name or area is out of doors ("Gartenlicht" too).

    A compound counts by a place word of five letters or more at its start or end;
    "Garderobe" is not a garden.
    """
    profile = profile_of(entity)
    found = profile.name_stems | profile.area_stems
    for place in places:
        whole = fold(place)
        if whole in found or stem(place) in found:
            return True
        if len(whole) >= 5 and any(
            len(word) > len(whole) and (word.startswith(whole) or word.endswith(whole))
            for word in found
        ):
            return True
    return False


def supports(intent: str, entity: EntityInfo) -> bool:
    """Whether the entity can do what the intent asks (FEATURES)."""
    needed = FEATURES.get(intent, {}).get(entity.domain)
    if needed is None:
        return True
    features = int(entity.state.attributes.get("supported_features") or 0)
    return features & needed == needed


def resolve_unnamed(
    readings: Sequence[Reading],
    entities: Sequence[EntityInfo],
    satellite_area: str | None,
) -> Resolved | None:
    """The one player a sentence naming none means ("next song"), or None.

    The home's only exposed one that can do it, else the only one of those playing.
    Where the satellite's area has such players, only they are meant (Home
    Assistant's own reading, which failed on them: a paused one is not skipped over
    for one playing elsewhere).
    """
    found: dict[tuple[str, tuple[tuple[str, int], ...]], Resolved] = {}
    for reading in readings:
        if reading.intent not in UNNAMED or reading.name or reading.area is not None:
            continue
        able = [
            e
            for e in entities
            if e.domain in reading.domains and supports(reading.intent, e)
        ]
        if here := [e for e in able if satellite_area and e.area_id == satellite_area]:
            able = here
        if len(able) > 1:
            able = [e for e in able if e.state.state == MediaPlayerState.PLAYING]
        if len(able) == 1:
            found[(reading.intent, reading.levels)] = Resolved(
                reading.intent, tuple(able), reading.response, levels=reading.levels
            )
    if len(found) != 1:
        return None  # no player sure, or two readings disagree
    (resolved,) = found.values()
    return resolved


def _with(resolved: Resolved, entities: list[EntityInfo]) -> Resolved:
    return replace(resolved, entities=tuple(entities))


def _group(entities: Sequence[EntityInfo]) -> bool:
    """All of one domain, and all in one area or all on one floor."""
    if len({e.domain for e in entities}) != 1:
        return False
    areas = {e.area_id for e in entities}
    floors = {e.floor for e in entities}
    return (len(areas) == 1 and None not in areas) or (
        len(floors) == 1 and None not in floors
    )


def _says_every(text: str, language: LanguageWords) -> bool:
    """Whether the object says every one of them ("all the fans", "jede Lampe")."""
    return any(word in language.every for word in words(text))


def _plural(text: str, language: LanguageWords) -> bool:
    """Whether the object names its device in the plural ("lights", "Lampen", "TVs")."""
    for word in words(text):
        word_stem = stem(word)
        stemmed = word != word_stem and device_kinds(word_stem, language.language)
        for end in language.plural_endings:
            if not end or not word.endswith(end) or len(word) <= len(end):
                continue
            if stemmed or device_kinds(stem(word[: -len(end)]), language.language):
                return True
    return False
