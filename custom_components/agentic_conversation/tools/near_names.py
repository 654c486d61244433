"""A name a small model got nearly right, read as the one exposed entity it fits.

Home Assistant's intents match a name exactly (an entity's name or an alias). Small
models send names nearly right: the object id ("hue_go"); the name without its area
word ("Island" for Kitchen Island in the Kitchen) or with it ("Lounge ceiling" for
Ceiling in the Lounge); the area for the one device of that kind there ("Kitchen", or
"kitchen light" with the light's domain); part of the name where the intent acts on
one kind only ("chores" for the to-do list Family chores). Compared as sets of words,
in any language. Only when exactly one exposed entity fits is the name read as it;
otherwise nothing changes and a failed match feeds the closest names back.
"""

from collections.abc import Collection, Iterable
import re

from .entities import EntityInfo

_WORD = re.compile(r"\w+")


def words(text: str | None) -> frozenset[str]:
    """The words of a name, case folded."""
    return frozenset(_WORD.findall(text.casefold())) if text else frozenset()


def near_entity(
    entities: Iterable[EntityInfo],
    name: str,
    area: str | None,
    domains: Collection[str],
    *,
    one_kind: bool = False,
) -> EntityInfo | None:
    """The one exposed entity `name` (and `area`) nearly names, of `domains` if any.

    `one_kind`: the intent acts on `domains` alone (a to-do list's, a vacuum's), so
    part of a name is enough.
    """
    sent = words(name) | words(area)
    if not sent:
        return None
    pool = list(entities)
    if any(words(name) == words(n) for e in pool for n in (e.name, *e.aliases)):
        return None  # Home Assistant matches the name as sent
    if domains:
        pool = [e for e in pool if e.domain in domains]
    object_id = name.strip().casefold()
    fits = [
        e
        for e in pool
        if e.entity_id.partition(".")[2] == object_id
        or _fits(e, sent, part_of_name=one_kind and bool(domains))
    ]
    return fits[0] if len(fits) == 1 else None


def named_entity(entities: Iterable[EntityInfo], name: str) -> EntityInfo | None:
    """The one exposed entity with this name (or alias), if only one has it."""
    sent = words(name)
    if not sent:
        return None
    named = [e for e in entities if any(sent == words(n) for n in (e.name, *e.aliases))]
    return named[0] if len(named) == 1 else None


def _fits(entity: EntityInfo, sent: frozenset[str], *, part_of_name: bool) -> bool:
    place = frozenset().union(*(words(a) for a in (entity.area, *entity.area_aliases)))
    kind = {entity.domain, f"{entity.domain}s"}
    if device_class := entity.state.attributes.get("device_class"):
        kind |= {str(device_class), f"{device_class}s"}
    rest = sent - place
    in_area = bool(place) and place <= sent
    for own in (words(n) for n in (entity.name, *entity.aliases)):
        if (own_rest := own - place) and rest == own_rest:
            return True  # the name with or without its area's words
        if rest and (in_area or part_of_name) and rest < own:
            return True  # part of the name, with its area or of the one kind
    # The area (all its words said) for its one device of the kind.
    return in_area and (not rest or (len(rest) == 1 and rest <= kind))
