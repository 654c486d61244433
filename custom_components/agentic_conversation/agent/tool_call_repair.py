"""Tool names and arguments as small models slip on them, read as they plainly meant.

Only what is unambiguous is repaired: a name that fits exactly one offered tool once
case, surrounding space, a `functions.` prefix and any namespace are set aside, or
with its namespace glued on (`intentHassTurnOff`, the `__` lost to markdown);
arguments wrapped in `arguments`/`parameters`/`input` or encoded once more as a JSON
string. Namespaces are never spelled out here: Home Assistant prefixes merged tools
(`assist__intent__HassTurnOn`, `intent__HassTurnOn`) differently between releases.
"""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
import json
from typing import Any

# What models put before a tool's name (OpenAI's harmony format says `functions.`).
_PREFIXES = ("functions.",)
# Home Assistant's namespace separator in merged tool names.
_NAMESPACE = "__"
# Keys a model wraps a call's arguments in.
_WRAPPERS = ("arguments", "parameters", "input")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """How a tool name the model sent reads against the offered names.

    Attributes:
        name: The offered tool it names, or None.
        fits: The offered tools it could name, when more than one does.
    """

    name: str | None
    fits: tuple[str, ...] = ()


def _folded(name: str) -> str:
    """A tool name without case, surrounding space and a known prefix."""
    folded = name.strip().casefold()
    for prefix in _PREFIXES:
        folded = folded.removeprefix(prefix)
    return folded


def _base(name: str) -> str:
    """A tool name without case, a known prefix and any namespace."""
    return _folded(name).rsplit(_NAMESPACE, 1)[-1].strip()


def match_tool_name(name: str, offered: Collection[str]) -> NameMatch:
    """The offered tool a name means, if exactly one fits."""
    if name in offered:
        return NameMatch(name)
    folded = _folded(name)
    # The whole name first: `Assist__Intent__HassTurnOn` is one tool even where
    # another API's HassTurnOn is offered too.
    if len(same := sorted(o for o in offered if o.casefold() == folded)) == 1:
        return NameMatch(same[0])
    base = _base(name)
    fits = sorted(o for o in offered if base and _base(o) == base)
    if not fits:
        # The namespace glued on (`intentHassTurnOff`): markdown took the `__` of
        # `intent__HassTurnOff` for emphasis.
        glued = folded.replace(_NAMESPACE, "")
        fits = sorted(o for o in offered if glued and glued in _glued_forms(o))
    if len(fits) == 1:
        return NameMatch(fits[0])
    return NameMatch(None, tuple(fits))


def _glued_forms(name: str) -> set[str]:
    """`a__b__c` as `abc`, `bc` (folded): its namespaces glued on, outer ones left out."""
    parts = _folded(name).split(_NAMESPACE)
    return {"".join(parts[start:]) for start in range(len(parts) - 1)}


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """A call's arguments out of the wrapper a model put them in."""

    arguments: dict[str, Any]
    repairs: tuple[str, ...] = ()


def unwrap_arguments(arguments: dict[str, Any], takes: Collection[str]) -> Unwrapped:
    """Arguments wrapped in one key the tool does not take, or encoded as a string.

    `{"arguments": {...}}`, `{"parameters": "{...}"}` or `{"input": null}` are the
    inner object (null: none). Anything else is returned as it is.
    """
    if len(arguments) != 1:
        return Unwrapped(arguments)
    ((key, value),) = arguments.items()
    if key not in _WRAPPERS or key in takes:
        return Unwrapped(arguments)
    if value is None:
        return Unwrapped({}, (f"arguments were null inside {key!r}",))
    encoded = isinstance(value, str)
    if encoded:
        try:
            value = json.loads(value)
        except ValueError:
            return Unwrapped(arguments)
    if not isinstance(value, Mapping):
        return Unwrapped(arguments)
    how = f"arguments were wrapped in {key!r}" + (
        " as a JSON string" if encoded else ""
    )
    return Unwrapped(dict(value), (how,))
