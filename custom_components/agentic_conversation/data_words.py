"""An answer that was only data, put into words: what it says, or the turn's outcome.

The data itself is never spoken (`data_text.py`). When the model echoed our own tool
result (`{"success": false, "error": …}`), the user hears what failed; any other data
(an object, an array, a YAML or code block) tells the user what the turn did, or that
the answer could not be put into words. The model is not asked again: the turn's own
records already say what happened, and a second call could answer with data again.
"""

from collections.abc import Sequence
from dataclasses import dataclass
import json
import re
from typing import Any

import json_repair
import yaml

from homeassistant.core import HomeAssistant

from .agent import LoopResult, StopReason
from .const import LOGGER
from .data_text import ENVELOPE_KEYS, split_data
from .done_actions import Action
from .failed_actions import Failure
from .replies import async_phrase, async_render_done, async_render_failed
from .speech import strip_reasoning

# Failures of our loop, not of Home Assistant (agent/tool_calls.py, agent/loop.py):
# a tool the model made up, arguments it got wrong, a tool that ran out of time.
_LOOP_ERRORS = (
    "Unknown tool",
    "Invalid arguments",
    "The arguments are not",
    "The tool did not finish",
    "The request ran out of time",
    "cancelled",
)
# Data longer than this is not parsed: it says nothing we could tell in a sentence.
_MAX_DATA_CHARS = 20_000
_MAX_NAME_CHARS = 60
# Words that end so lead to what follows: the data, never said.
_LEADING = (":", "：")
# YAML anchors and aliases can grow a small text into a huge value: not read.
_YAML_ALIAS = re.compile(r"[&*][^\s&*]")


async def async_data_words(
    hass: HomeAssistant,
    language: str,
    result: LoopResult,
    answer: str,
    done: Sequence[Action],
) -> str | None:
    """The words for a final answer that was data, or words leading to it (else None).

    `answer`: what is left of it to speak, said before ours when it ends on a colon
    ("Here is the state:"); `done`: what the turn's calls changed.
    """
    if (
        (answer.strip() and not answer.rstrip().endswith(_LEADING))
        or result.summarized
        or result.stop_reason not in (StopReason.FINAL, StopReason.ITERATION_CAP)
    ):
        return None
    _, blocks = split_data(strip_reasoning(result.text))
    if not blocks:
        return None
    failures = [
        echoed
        for block in blocks
        for value in _values(block)
        if (echoed := _echoed_failure(value)) is not None
    ]
    if failures:
        words = await _async_failed(hass, language, failures, done)
    elif done:
        words = await async_render_done(hass, language, done)
    else:
        words = await async_phrase(hass, language, "data_answer_unspoken")
    LOGGER.warning(
        "The model answered with data instead of words (%s); saying: %r",
        result.text[:200],
        words,
    )
    return words


@dataclass(frozen=True, slots=True)
class _Echoed:
    """A failure envelope of ours the model echoed."""

    failure: Failure
    slip: bool = False
    """Our loop's own error (a made-up tool, wrong arguments): nothing in the home."""


async def _async_failed(
    hass: HomeAssistant,
    language: str,
    echoed: Sequence[_Echoed],
    done: Sequence[Action],
) -> str:
    """What failed: a name not found, an error of Home Assistant, or the model's slip."""
    if all(item.slip for item in echoed):
        if not done:
            return await async_phrase(hass, language, "data_answer_failed")
        rest = await async_phrase(hass, language, "data_answer_failed_rest")
        return f"{await async_render_done(hass, language, done)} {rest}"
    told = dict.fromkeys(item.failure for item in echoed if not item.slip)
    return await async_render_failed(hass, language, list(told), done)


def _echoed_failure(value: Any) -> _Echoed | None:
    """The failure a value tells, if it is one of our failure envelopes."""
    if not isinstance(value, dict) or not ENVELOPE_KEYS & set(value):
        return None
    success, error = value.get("success"), value.get("error")
    if success is True or (success is not False and not error):
        return None
    unmatched = value.get("unmatched")
    if isinstance(unmatched, str) and unmatched.strip():
        return _Echoed(Failure(" ".join(unmatched.split())[:_MAX_NAME_CHARS].strip()))
    return _Echoed(
        Failure(), slip=isinstance(error, str) and error.startswith(_LOOP_ERRORS)
    )


def _values(block: str) -> list[Any]:
    """The data a block holds (its dicts, also inside a list); [] if unreadable."""
    body = block.strip()
    if body.startswith(("```", "~~~")):
        body = body[3:].partition("\n")[2].rstrip().removesuffix(body[:3])
    if not body.strip() or len(body) > _MAX_DATA_CHARS:
        return []
    value = _parse(body)
    return list(value) if isinstance(value, list) else [value]


def _parse(body: str) -> Any:
    """JSON, as small models write it (cut off, single quotes), else YAML."""
    try:
        return json.loads(body)
    except ValueError, RecursionError:
        pass
    if body.lstrip().startswith(("{", "[")):
        try:
            return json_repair.loads(body)
        except Exception:  # noqa: BLE001 - a lenient parser's failure: no data
            return None
    if _YAML_ALIAS.search(body):
        return None
    try:
        return yaml.safe_load(body)
    except yaml.YAMLError, RecursionError:
        return None
