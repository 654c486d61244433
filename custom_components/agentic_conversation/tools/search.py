"""`search_entities`: find exposed entities by name, alias, id, area or domain.

With this tool the model does not need every entity in its prompt: the request stays
the same size whether a home exposes ten entities or a thousand.
"""

import re
from typing import Any

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import DOMAIN, TOOL_SEARCH_ENTITIES
from .entities import EntityInfo, exposed_entities

_WORD = re.compile(r"\w+")
DEFAULT_LIMIT = 10
MAX_LIMIT = 50


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def _score(entity: EntityInfo, query: str, words: set[str]) -> int:
    """How well an entity matches the query; 0 is no match."""
    names = [entity.name.lower(), *(a.lower() for a in entity.aliases)]
    if query in names or query == entity.entity_id:
        return 100
    score = 0
    if any(query in name for name in names) or query in entity.entity_id:
        score += 40
    name_words = set().union(*(_words(n) for n in names))
    area_words = set().union(
        *(_words(a) for a in (entity.area or "", *entity.area_aliases))
    )
    id_words = _words(entity.entity_id)
    for word in words:
        if word in name_words:
            score += 10
        elif word in area_words:
            score += 6
        elif word in id_words:
            score += 4
    return score


class SearchEntitiesTool(llm.Tool):
    """Find exposed entities; returns ids, names, areas and states."""

    name = TOOL_SEARCH_ENTITIES
    description = (
        "Find devices and sensors in the home by name, alias, area or type. Use it to "
        "get the exact name or entity_id before reading or controlling something. "
        "Returns the best matches with their current state."
    )
    parameters = probatio.Schema(
        {
            probatio.Optional("query", default=""): str,
            probatio.Optional("domain"): str,
            probatio.Optional("area"): str,
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
        query = str(args["query"]).strip().lower()
        words = _words(query)
        domain = str(args.get("domain") or "").strip().lower() or None
        area = str(args.get("area") or "").strip().lower() or None
        ranked: list[tuple[int, EntityInfo]] = []
        for entity in exposed_entities(hass):
            if domain and entity.domain != domain:
                continue
            if area and not _in_area(entity, area):
                continue
            score = _score(entity, query, words) if query else 1
            if score:
                ranked.append((score, entity))
        ranked.sort(key=lambda item: (-item[0], item[1].name))
        matches: list[dict[str, Any]] = [
            entity.as_dict() for _, entity in ranked[: args["limit"]]
        ]
        data: dict[str, Any] = {"entities": matches, "total_matches": len(ranked)}
        if not matches:
            data["hint"] = (
                "Nothing exposed matches. Try fewer words, another name, or no domain."
            )
        return llm.ToolResult(data=data)


def _in_area(entity: EntityInfo, area: str) -> bool:
    names = [n.lower() for n in (entity.area or "", *entity.area_aliases) if n]
    return area == (entity.area_id or "").lower() or any(
        area == name or area in _words(name) or name in area for name in names
    )
