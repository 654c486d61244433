"""A server that is up but set up wrongly: a Repair per agent naming the fix.

The fault is read from the server's own error (`agent.server_errors`). The Repair is
raised on the first such error of the agent's model and cleared by its next answer.
"""

import math

from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir

from ..agent import LLMError
from ..agent.server_errors import server_problem
from ..const import (
    CONF_BASE_URL,
    CONF_MAX_TOKENS,
    CONF_MODEL,
    DEFAULT_MAX_TOKENS,
    DOMAIN,
    LOGGER,
)
from ..redact import redact_url
from ..runtime import AgenticConfigEntry

ISSUE_PREFIX = "server_fault_"
# Context sizes are set in steps like these (llama.cpp -c, Ollama num_ctx).
_CONTEXT_STEP = 1024


def issue_id(subentry_id: str) -> str:
    """The Repair of one agent's server fault."""
    return f"{ISSUE_PREFIX}{subentry_id}"


@callback
def async_note_outcome(
    hass: HomeAssistant,
    entry: AgenticConfigEntry,
    subentry: ConfigSubentry,
    error: LLMError | None,
) -> None:
    """Raise the agent's Repair for a known set-up fault; clear it on an answer."""
    if error is None:
        ir.async_delete_issue(hass, DOMAIN, issue_id(subentry.subentry_id))
        return
    if (problem := server_problem(error)) is None:
        return
    LOGGER.warning(
        "The LLM server of agent %s is set up wrongly (%s): %s",
        subentry.title,
        problem.fix,
        redact_url(str(error)),
    )
    answer = int(subentry.data.get(CONF_MAX_TOKENS, DEFAULT_MAX_TOKENS))
    needed = problem.numbers.get("needed")
    context = problem.numbers.get("context")
    wanted = (needed or 2 * (context or _CONTEXT_STEP)) + answer
    ir.async_create_issue(
        hass,
        DOMAIN,
        issue_id(subentry.subentry_id),
        is_fixable=False,
        severity=ir.IssueSeverity.ERROR,
        translation_key=problem.fix,
        translation_placeholders={
            "agent": subentry.title,
            "model": str(subentry.data.get(CONF_MODEL, "")),
            "base_url": redact_url(entry.data[CONF_BASE_URL]),
            "needed": str(needed) if needed else "?",
            "context": str(context) if context else "?",
            "suggested": str(math.ceil(wanted / _CONTEXT_STEP) * _CONTEXT_STEP),
        },
    )
