"""An answer that was only data, put into words: what it says, or the turn's outcome.

The data itself is never spoken (`data_text.py`). When the model echoed our own result
of a failed call (`{"success": false, "error": …}`) and a call did fail, the user hears
what failed, as the calls' own results say (an echo is never believed alone); any
other data (an object, an array, a YAML or code block) tells the user what the turn
did, or that the answer could not be put into words. The model is not asked again:
the turn's own records already say what happened, and a second call could answer
with data again.
"""

from collections.abc import Awaitable, Callable, Collection, Sequence
import json
import re
from typing import Any

import json_repair
import yaml

from homeassistant.core import HomeAssistant

from ..agent import LoopResult, StopReason, ToolCallRecord
from ..agent.reasoning_text import without_reasoning
from ..const import LOGGER
from ..verify.done_actions import Action
from ..verify.failed_actions import Failure, unmatched_name
from .data_text import ENVELOPE_KEYS, split_data
from .replies import async_phrase, async_render_done, async_render_failed

# Failures of our loop, not of Home Assistant (agent/tool_calls.py, agent/loop.py):
# a tool the model made up, arguments it got wrong, a tool that ran out of time.
_LOOP_ERRORS = (
    "Unknown tool",
    "Ambiguous tool name",
    "Invalid arguments",
    "The arguments are not",
    "The tool did not finish",
    "The request ran out of time",
    "cancelled",
)
# Data longer than this is not parsed: it says nothing we could tell in a sentence.
_MAX_DATA_CHARS = 20_000
# Words that end so lead to what follows: the data, never said.
_LEADING = (":", "：")
# YAML anchors and aliases can grow a small text into a huge value: not read.
_YAML_ALIAS = re.compile(r"[&*][^\s&*]")


async def async_data_words(
    hass: HomeAssistant,
    language: str,
    result: LoopResult,
    answer: str,
    told_done: Callable[[], Awaitable[Sequence[Action]]],
    *,
    read_only: Collection[str] = (),
) -> str | None:
    """The words for a final answer that was data, or words leading to it (else None).

    `answer`: what is left of it to speak, said before ours when it ends on a colon
    ("Here is the state:"); `told_done`: what the turn's calls changed (worded only
    for an answer that is data); `read_only`: the
    tools that only read. A failed action is told before this (`actions_failed`), so
    one failing here was done by a later try: only the model's slips and failed reads
    are told.
    """
    if (
        (answer.strip() and not answer.rstrip().endswith(_LEADING))
        or result.summarized
        or result.stop_reason not in (StopReason.FINAL, StopReason.ITERATION_CAP)
    ):
        return None
    _, blocks = split_data(without_reasoning(result.text))
    if not blocks:
        return None
    done = await told_done()
    failed = [
        record
        for record in result.tool_calls
        if not record.ok
        and not record.held
        and (_slip(record) or record.name in read_only)
    ]
    if failed and any(
        _is_failure_envelope(value) for block in blocks for value in _values(block)
    ):
        # Our failure result echoed: what failed is told from the calls themselves.
        words = await _async_failed(hass, language, failed, done)
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


async def _async_failed(
    hass: HomeAssistant,
    language: str,
    failed: Sequence[ToolCallRecord],
    done: Sequence[Action],
) -> str:
    """What failed: a name not found, the model's slip, or an error of the home."""
    names = dict.fromkeys(name for record in failed if (name := unmatched_name(record)))
    if names:
        return await async_render_failed(
            hass, language, [Failure(name) for name in names], done
        )
    if all(_slip(record) for record in failed):
        # Only the model's own slips: nothing in the home failed.
        if not done:
            return await async_phrase(hass, language, "data_answer_failed")
        rest = await async_phrase(hass, language, "data_answer_failed_rest")
        return f"{await async_render_done(hass, language, done)} {rest}"
    return await async_render_failed(hass, language, [Failure()], done)


def _slip(record: ToolCallRecord) -> bool:
    """Whether a call failed by the model's own slip, not in the home."""
    return str(record.error or "").startswith(_LOOP_ERRORS)


def _is_failure_envelope(value: Any) -> bool:
    """Whether a value reads as one of our results of a failed call."""
    if not isinstance(value, dict) or not ENVELOPE_KEYS & set(value):
        return False
    return value.get("success") is False or (
        value.get("success") is not True and bool(value.get("error"))
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
