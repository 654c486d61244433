"""`search_entities`: find exposed entities by the words people use for them.

With this tool the model does not need every entity in its prompt: the request stays
the same size whether a home exposes ten entities or a thousand.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import DOMAIN, TOOL_SEARCH_ENTITIES
from .entities import EntityInfo, exposed_entities
from .search_words import (
    FLOOR_WORDS,
    STOP_WORDS,
    Kind,
    async_load,
    device_kinds,
    same_word,
    stem,
    stems,
    words,
)

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
# What one query word is worth when an entity has it: in its name (or alias), as its
# domain, as its device class, in its area, on its floor, in its entity id.
NAME, DOMAIN_HIT, CLASS_HIT, PLACE, ID_HIT = 10, 5, 3, 4, 2
# Cover classes people mix up (a "blind" may be a shade or a curtain to its
# integration); a word for one of these names no cover of another ("curtains" is
# never the garage door).
_COVER_FAMILIES = (
    frozenset({"curtain", "blind", "shade", "shutter", "awning"}),
    frozenset({"door", "garage", "gate"}),
    frozenset({"window"}),
    frozenset({"damper"}),
)


@dataclass(frozen=True, slots=True)
class Term:
    """One word of the query, in every role it can play."""

    stem: str
    kinds: frozenset[Kind]
    floor: str | None  # "up", "ground", "below"

    def kind_points(self, domain: str, device_class: Any) -> int:
        """Points for an entity of this domain and class: its class named scores more."""
        if domain == "cover" and device_class and not self._may_be(device_class):
            return 0
        return max(
            (
                DOMAIN_HIT + (CLASS_HIT if kind_class else 0)
                for kind_domain, kind_class in self.kinds
                if kind_domain == domain and kind_class in (None, device_class)
            ),
            default=0,
        )

    def _may_be(self, cover_class: str) -> bool:
        """Whether the cover classes this word names (if any) may mean this one."""
        named = {kind_class for domain, kind_class in self.kinds if domain == "cover"}
        if None not in named or len(named) == 1:
            return True  # no class named, or only classes: the table decides
        near = next((f for f in _COVER_FAMILIES if cover_class in f), {cover_class})
        return bool(named & near)


def terms(query: str, language: str) -> list[Term]:
    """The query's words that may name something, each once."""
    found: dict[str, Term] = {}
    for word in words(query):
        if word in STOP_WORDS or (
            len(word) < 3 and word not in FLOOR_WORDS and word not in {"tv", "ac"}
        ):
            continue
        word_stem = stem(word)
        if word_stem not in found:
            found[word_stem] = Term(
                word_stem, device_kinds(word_stem, language), FLOOR_WORDS.get(word)
            )
    return list(found.values())


@dataclass(frozen=True, slots=True, eq=False)
class Profile:
    """An entity's words, stemmed once and kept while its names stay the same.

    Profiles compare by identity: one is made per entity's fields, so a home's tuple
    of them is hashed and compared in a pass (`home_words`).
    """

    domain: str
    names: tuple[str, ...]
    name_stems: frozenset[str]
    area_stems: frozenset[str]
    floor_stems: frozenset[str]
    id_stems: frozenset[str]
    all_stems: frozenset[str]


def profile_of(entity: EntityInfo) -> Profile:
    """An entity's profile, cached by the entity's fields as they are.

    This runs for every entity on every search: no tuples of names joined anew.
    """
    return profile(
        entity.entity_id,
        entity.name,
        entity.aliases,
        entity.area,
        entity.area_aliases,
        entity.floor,
        entity.floor_aliases,
    )


@lru_cache(maxsize=8192)
def profile(  # noqa: PLR0917 - the cache's key: the fields a profile is made of
    entity_id: str,
    name: str,
    aliases: tuple[str, ...],
    area: str | None,
    area_aliases: tuple[str, ...],
    floor: str | None,
    floor_aliases: tuple[str, ...],
) -> Profile:
    """The stems of an entity's names, area, floor and id."""
    folded = tuple(n.casefold() for n in (name, *aliases) if n)
    domain, _, object_id = entity_id.partition(".")
    name_stems = frozenset().union(*(stems(n) for n in folded))
    area_stems = frozenset().union(
        *(stems(a.casefold()) for a in (area, *area_aliases) if a)
    )
    floor_stems = frozenset().union(
        *(stems(f.casefold()) for f in (floor, *floor_aliases) if f)
    )
    return Profile(
        domain=domain,
        names=folded,
        name_stems=name_stems,
        area_stems=area_stems,
        floor_stems=floor_stems,
        id_stems=stems(object_id),
        all_stems=name_stems | area_stems | floor_stems | stems(object_id),
    )


@lru_cache(maxsize=8)
def home_words(
    profiles: tuple[Profile, ...],
) -> tuple[frozenset[str], frozenset[str]]:
    """Every floor stem and every name stem of these entities, gathered once for them."""
    return (
        frozenset().union(*(p.floor_stems for p in profiles)),
        frozenset().union(*(p.name_stems for p in profiles)),
    )


def rank(
    entity: EntityInfo,
    words_of: Profile,
    query: str,
    query_terms: list[Term],
    *,
    named: dict[str, frozenset[str]],
    floor_words: set[str],
    by_id: bool = True,
) -> tuple[int, int]:
    """How many of the query's words an entity answers, and how well.

    Each word counts once however it matches, but its points add up: a word in the
    name that is also the entity's domain ("lock smart lock") ranks the lock first.
    """
    score = 0
    if query in words_of.names or query == entity.entity_id:
        score += 100
    elif any(name in query for name in words_of.names):
        score += 20  # the sentence says the whole name
    device_class = entity.state.attributes.get("device_class")
    covered = 0
    for term in query_terms:
        hit = 0 if words_of.name_stems.isdisjoint(named[term.stem]) else NAME
        if term.kinds:
            hit += term.kind_points(words_of.domain, device_class)
        if term.stem in words_of.area_stems:
            hit += PLACE
        elif hit and any(
            term.stem.startswith(area) for area in words_of.area_stems if len(area) > 3
        ):
            # "Schlafzimmerlicht": a light, and in the Schlafzimmer: two words in one.
            hit += PLACE
            covered += 1
        if term.stem in words_of.floor_stems or (
            term.stem not in floor_words and _on_floor(entity.floor_level, term.floor)
        ):
            hit += PLACE
        if not hit and by_id and term.stem in words_of.id_stems:
            hit += ID_HIT
        if hit:
            covered += 1
            score += hit
    return covered, score


@lru_cache(maxsize=256)
def named_by(term: str, vocabulary: frozenset[str]) -> frozenset[str]:
    """The words of a home's names that a query word names."""
    return frozenset(word for word in vocabulary if same_word(term, (word,)))


def _on_floor(level: int | None, where: str | None) -> bool:
    if level is None or where is None:
        return False
    return {"up": level > 0, "ground": level == 0, "below": level < 0}[where]


class SearchEntitiesTool(llm.Tool):
    """Find exposed entities; returns ids, names, areas and states."""

    name = TOOL_SEARCH_ENTITIES
    description = (
        "Find devices, sensors and lists. Query: the user's words for the thing and "
        "the place, e.g. 'lights upstairs', 'kitchen blinds'. Returns the best "
        "matches with their states, and total_matches: several may all be meant."
    )
    parameters = probatio.Schema(
        {
            probatio.Optional("query", default=""): str,
            probatio.Optional("domain"): str,
            probatio.Optional("area"): str,
            probatio.Optional("floor"): str,
            probatio.Optional("limit", default=DEFAULT_LIMIT): probatio.All(
                int, probatio.Range(min=1, max=MAX_LIMIT)
            ),
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    )
    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Rank the exposed entities against the query."""
        args = self.parameters(tool_input.tool_args)
        query = str(args["query"]).strip().casefold()
        await async_load(hass, llm_context.language or "en")
        matches = find(
            exposed_entities(hass),
            query,
            llm_context.language or "en",
            domain=str(args.get("domain") or "").strip().lower() or None,
            area=str(args.get("area") or "").strip().casefold() or None,
            floor=str(args.get("floor") or "").strip().casefold() or None,
        )
        data: dict[str, Any] = {
            "entities": [entity.as_dict() for entity in matches[: args["limit"]]],
            "total_matches": len(matches),
        }
        if not matches:
            data["hint"] = (
                "Nothing exposed matches. Try fewer words, another name, or no domain."
            )
        return llm.ToolResult(data=data)


def find(
    entities: Iterable[EntityInfo],
    query: str,
    language: str,
    *,
    domain: str | None = None,
    area: str | None = None,
    floor: str | None = None,
) -> list[EntityInfo]:
    """The entities a query means, best first.

    The matches answer the most of the query's words; among them the best first,
    then by name and id, so that equal scores always come back in the same order.
    """
    _words, ranked = scored(
        entities, query, language, domain=domain, area=area, floor=floor
    )
    best = max((covered for covered, _, _ in ranked), default=0)
    return [entity for covered, _, entity in ranked if covered == best]


def scored(
    entities: Iterable[EntityInfo],
    query: str,
    language: str,
    *,
    domain: str | None = None,
    area: str | None = None,
    floor: str | None = None,
    by_id: bool = True,
) -> tuple[int, list[tuple[int, int, EntityInfo]]]:
    """The query's words that may name something, and the entities answering them.

    Returns how many such words there are, and (words answered, score, entity) for
    each entity that answers one or more, best first.

    Without `by_id`, a word found only in an entity's id answers nothing.
    """
    query = query.strip().casefold()
    query_terms = terms(query, language)
    entities = list(entities)
    profiles = tuple(profile_of(entity) for entity in entities)
    floor_stems, vocabulary = home_words(profiles)
    # A floor named "Upstairs" is what "upstairs" means, not every upper floor.
    floor_words = {t.stem for t in query_terms if t.floor and t.stem in floor_stems}
    by_level = any(t.floor and t.stem not in floor_words for t in query_terms)
    # The home's name words each query word names, found once for all entities.
    named = {t.stem: named_by(t.stem, vocabulary) for t in query_terms}
    wanted = frozenset().union({t.stem for t in query_terms}, *named.values())
    kinds = {kind_domain for t in query_terms for kind_domain, _ in t.kinds}
    ranked: list[tuple[int, int, EntityInfo]] = []
    for entity, words_of in zip(entities, profiles, strict=True):
        if query_terms and not (
            words_of.domain in kinds
            or not words_of.all_stems.isdisjoint(wanted)
            or (by_level and entity.floor_level is not None)
        ):
            continue  # nothing in the query can match it
        if domain and entity.domain != domain:
            continue
        if area and not (
            area == entity.area_id or _in_place(entity.area, entity.area_aliases, area)
        ):
            continue
        if floor and not _in_place(entity.floor, entity.floor_aliases, floor):
            continue
        covered, score = (
            rank(
                entity,
                words_of,
                query,
                query_terms,
                named=named,
                floor_words=floor_words,
                by_id=by_id,
            )
            if query_terms
            else (1, 0)
        )
        if covered:
            ranked.append((covered, score, entity))
    ranked.sort(
        key=lambda item: (
            -item[0],
            -item[1],
            item[2].name.casefold(),
            item[2].entity_id,
        )
    )
    return len(query_terms), ranked


def _in_place(name: str | None, aliases: tuple[str, ...], place: str) -> bool:
    """Whether an area or floor filter names this area or floor."""
    names = [n.casefold() for n in (name or "", *aliases) if n]
    return any(place == n or stem(place) in stems(n) or n in place for n in names)
