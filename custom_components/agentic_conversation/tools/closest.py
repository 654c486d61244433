"""The exposed names closest to a name that matched nothing, for the model's next try.

The search tool's matching finds names that share a word ("porch" → Porch light); the
standard library's difflib finds misspellings ("porch lihgt"). Only exposed entities
are ever named, so the answer is the same whether the name was hidden or missing.
"""

import difflib

from homeassistant.core import HomeAssistant

from .entities import exposed_entities
from .search import find
from .search_words import async_load

CLOSEST = 3
# A name longer than this is no name: only its start is quoted and looked up.
NAME_CHARS = 120
# How alike a misspelt name must be (difflib's ratio) to be offered at all.
_CUTOFF = 0.6


async def async_closest_names(
    hass: HomeAssistant, text: str, language: str
) -> list[str]:
    """Up to `CLOSEST` names of exposed entities a model may have meant by `text`."""
    text = text[:NAME_CHARS]
    await async_load(hass, language)
    exposed = exposed_entities(hass)
    found = [entity.name for entity in find(exposed, text, language)]
    if not found:
        names = {entity.name.casefold(): entity.name for entity in exposed}
        found = [
            names[close]
            for close in difflib.get_close_matches(
                text.strip().casefold(), names, n=CLOSEST, cutoff=_CUTOFF
            )
        ]
    return list(dict.fromkeys(found))[:CLOSEST]
