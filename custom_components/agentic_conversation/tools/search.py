"""`search_entities`: find exposed entities by the words people use for them.

With this tool the model does not need every entity in its prompt: the request stays
the same size whether a home exposes ten entities or a thousand.
"""

from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Term:
    """One word of the query, in every role it can play."""

    stem: str
    kinds: frozenset[Kind]
    floor: str | None  # "up", "ground", "below"


def terms(query: str, language: str) -> list[Term]:
    """The query's words that may name something, each once."""
    found: dict[str, Term] = {}
    for word in words(query):
        if word in STOP_WORDS or (len(word) < 3 and word not in {"tv", "ac"}):
            continue
        word_stem = stem(word)
        if word_stem not in found:
            found[word_stem] = Term(
                word_stem, device_kinds(word_stem, language), FLOOR_WORDS.get(word)
            )
    return list(found.values())


def rank(entity: EntityInfo, query: str, query_terms: list[Term]) -> tuple[int, int]:
    """How many of the query's words an entity answers, and how well."""
    names = [entity.name.casefold(), *(a.casefold() for a in entity.aliases)]
    score = 0
    if query in names or query == entity.entity_id:
        score += 100
    elif any(name and name in query for name in names):
        score += 20  # the sentence says the whole name
    name_stems = set().union(*(stems(n) for n in names))
    area_stems = set().union(
        *(stems(a.casefold()) for a in (entity.area or "", *entity.area_aliases))
    )
    floor_stems = set().union(
        *(stems(f.casefold()) for f in (entity.floor or "", *entity.floor_aliases))
    )
    id_stems = stems(entity.entity_id.split(".", 1)[1])
    device_class = entity.state.attributes.get("device_class")
    covered = 0
    for term in query_terms:
        hit = 0
        if same_word(term.stem, name_stems):
            hit += NAME
        for domain, kind_class in term.kinds:
            if domain == entity.domain and kind_class in (None, device_class):
                hit += DOMAIN_HIT + (CLASS_HIT if kind_class else 0)
                break
        if term.stem in area_stems:
            hit += PLACE
        if term.stem in floor_stems or _on_floor(entity.floor_level, term.floor):
            hit += PLACE
        if not hit and term.stem in id_stems:
            hit += ID_HIT
        if hit:
            covered += 1
            score += hit
    return covered, score


def _on_floor(level: int | None, where: str | None) -> bool:
    if level is None or where is None:
        return False
    return {"up": level > 0, "ground": level == 0, "below": level < 0}[where]


class SearchEntitiesTool(llm.Tool):
    """Find exposed entities; returns ids, names, areas and states."""

    name = TOOL_SEARCH_ENTITIES
    description = (
        "Find devices, sensors, lists and media players in the home. Put in the "
        "query the words the user said for the thing and the place, e.g. "
        "'lights upstairs', 'kitchen blinds', 'music living room', 'shopping list', "
        "in the user's language. Returns the entities that match best, each with its "
        "current state, and total_matches: when several match (e.g. 'all the lights "
        "upstairs'), all of them may be meant; act on each that fits."
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
        query_terms = terms(query, llm_context.language or "en")
        domain = str(args.get("domain") or "").strip().lower() or None
        area = str(args.get("area") or "").strip().casefold() or None
        floor = str(args.get("floor") or "").strip().casefold() or None
        ranked: list[tuple[int, int, EntityInfo]] = []
        for entity in exposed_entities(hass):
            if domain and entity.domain != domain:
                continue
            if area and not (
                area == entity.area_id
                or _in_place(entity.area, entity.area_aliases, area)
            ):
                continue
            if floor and not _in_place(entity.floor, entity.floor_aliases, floor):
                continue
            covered, score = rank(entity, query, query_terms) if query_terms else (1, 0)
            if covered:
                ranked.append((covered, score, entity))
        # The matches answer the most words; among them the best first, then by
        # name and id so that equal scores always come back in the same order.
        best = max((covered for covered, _, _ in ranked), default=0)
        matches = sorted(
            (item for item in ranked if item[0] == best),
            key=lambda item: (-item[1], item[2].name.casefold(), item[2].entity_id),
        )
        data: dict[str, Any] = {
            "entities": [entity.as_dict() for *_, entity in matches[: args["limit"]]],
            "total_matches": len(matches),
        }
        if not matches:
            data["hint"] = (
                "Nothing exposed matches. Try fewer words, another name, or no domain."
            )
        return llm.ToolResult(data=data)


def _in_place(name: str | None, aliases: tuple[str, ...], place: str) -> bool:
    """Whether an area or floor filter names this area or floor."""
    names = [n.casefold() for n in (name or "", *aliases) if n]
    return any(place == n or stem(place) in stems(n) or n in place for n in names)
