"""`remember`, `forget` and `recall`: facts our agent keeps between conversations.

The facts are in the agent's memory (kept/memory.py), which reaches the tools through our
agent's LLM context. Other callers (an MCP client, another integration's agent) have no
memory and are not offered the tools (llm_api.py); called anyway, they answer an error.
"""

import re
from typing import Any

import probatio

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from ..const import DOMAIN, TOOL_FORGET, TOOL_RECALL, TOOL_REMEMBER
from ..kept.memory import MAX_FACT_CHARS, AgentMemory, Fact, MemoryLimitError
from ..tool_options import memory_of
from .errors import refuse

HOUSEHOLD = "household"
USER = "user"
# Enough for "what do you remember?"; the rest is reached with a query.
RECALL_LIMIT = 30

NOT_OUR_AGENT = (
    "Memory is only kept by Agentic Conversation's own agents; this assistant has none."
)
NO_USER = (
    "The speaker is not a known Home Assistant user here, so there is no personal "
    "memory; only the household's."
)
_RECALL_HINT = "Use recall to list the remembered facts and their ids."


def _scope(fact: Fact) -> str:
    return HOUSEHOLD if fact.user_id is None else USER


def _shown(fact: Fact) -> dict[str, Any]:
    return {"id": fact.id, "fact": fact.text, "scope": _scope(fact)}


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


class _MemoryTool(llm.Tool):
    """What the three tools share: the memory of the agent asking."""

    integration = DOMAIN

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> llm.ToolResult:
        """Run on our agent's memory; an error for anyone else."""
        memory = memory_of(llm_context)
        if memory is None:
            return refuse(NOT_OUR_AGENT)
        args = self.parameters(tool_input.tool_args)
        user_id = llm_context.context.user_id if llm_context.context else None
        return await self._async_run(memory, user_id, args)

    async def _async_run(
        self, memory: AgentMemory, user_id: str | None, args: dict[str, Any]
    ) -> llm.ToolResult:
        raise NotImplementedError


class RememberTool(_MemoryTool):
    """Keep a short fact for later conversations."""

    name = TOOL_REMEMBER
    description = (
        "Remember a fact the user asks you to remember: one self-contained sentence of "
        f"at most {MAX_FACT_CHARS} characters, e.g. 'The bins go out on Thursday'. "
        "scope 'household' (default): for everyone; 'user': only for the user speaking "
        "(their own preferences)."
    )
    parameters = probatio.Schema(
        {
            probatio.Required("fact"): str,
            probatio.Optional("scope", default=HOUSEHOLD): probatio.In(
                [HOUSEHOLD, USER]
            ),
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=False, destructive=False, idempotent=True, open_world=False
    )

    async def _async_run(
        self, memory: AgentMemory, user_id: str | None, args: dict[str, Any]
    ) -> llm.ToolResult:
        """Add the fact, unless it is known already."""
        if args["scope"] == USER and user_id is None:
            return refuse(NO_USER, hint="Remember it with scope 'household' instead.")
        owner = user_id if args["scope"] == USER else None
        try:
            fact, added = await memory.memory.async_add(
                memory.pool, args["fact"], owner
            )
        except MemoryLimitError as err:
            return refuse(str(err))
        data: dict[str, Any] = {"remembered": _shown(fact)}
        if not added:
            data["note"] = "This was already remembered."
        return llm.ToolResult(data=data)


class ForgetTool(_MemoryTool):
    """Forget a fact, by id or by its words."""

    name = TOOL_FORGET
    description = (
        "Forget a remembered fact: by its id (from recall), or by text, words of the "
        "fact (e.g. 'bins'). If several facts match, the answer lists them: call "
        "again with the right id."
    )
    parameters = probatio.Schema(
        {probatio.Optional("id"): str, probatio.Optional("text"): str}
    )
    annotations = llm.ToolAnnotations(
        read_only=False, destructive=True, idempotent=False, open_world=False
    )

    async def _async_run(
        self, memory: AgentMemory, user_id: str | None, args: dict[str, Any]
    ) -> llm.ToolResult:
        """Remove the one fact meant; say so when that is not clear."""
        # Another user's personal facts are out of reach, as if they did not exist.
        facts = memory.visible(user_id)
        fact_id = str(args.get("id") or "").strip()
        text = str(args.get("text") or "").strip()
        if fact_id:
            matches = [fact for fact in facts if fact.id == fact_id]
            if not matches:
                return refuse(
                    f"No remembered fact has the id {fact_id!r}.", hint=_RECALL_HINT
                )
        elif text:
            matches = _matching(facts, text)
            if not matches:
                return refuse(
                    f"Nothing remembered matches {text!r}.", hint=_RECALL_HINT
                )
        else:
            return refuse("Say which fact to forget: give its id or its text.")
        if len(matches) > 1:
            return refuse(
                f"Several remembered facts match {text!r}; nothing was forgotten.",
                matches=[_shown(fact) for fact in matches],
                hint="Call forget again with the id of the fact to forget.",
            )
        await memory.memory.async_remove_facts(memory.pool, [matches[0].id])
        return llm.ToolResult(data={"forgot": _shown(matches[0])})


def _matching(facts: list[Fact], text: str) -> list[Fact]:
    """The facts a text means: the same text, else containing it, else best by words."""
    needle = " ".join(text.split()).casefold()
    if same := [fact for fact in facts if fact.text.casefold() == needle]:
        return same
    if containing := [fact for fact in facts if needle in fact.text.casefold()]:
        return containing
    # "that Anna is vegetarian" means "Anna is vegetarian": the facts sharing the
    # most words with the text, if they share at least half of them.
    words = _words(needle)
    overlap = {fact.id: len(words & _words(fact.text)) for fact in facts}
    best = max(overlap.values(), default=0)
    if not words or best * 2 < len(words):
        return []
    return [fact for fact in facts if overlap[fact.id] == best]


class RecallTool(_MemoryTool):
    """List what is remembered."""

    name = TOOL_RECALL
    description = (
        "List remembered facts, newest first, with their ids. query: only facts "
        "containing any of these words. scope 'user': only about the user speaking ('what do "
        "you remember about me?'); 'household': only the household's."
    )
    parameters = probatio.Schema(
        {
            probatio.Optional("query"): str,
            probatio.Optional("scope"): probatio.Any(None, HOUSEHOLD, USER),
        }
    )
    annotations = llm.ToolAnnotations(
        read_only=True, destructive=False, idempotent=True, open_world=False
    )

    async def _async_run(
        self, memory: AgentMemory, user_id: str | None, args: dict[str, Any]
    ) -> llm.ToolResult:
        """The visible facts that fit the query and scope."""
        scope = args.get("scope")
        if scope == USER and user_id is None:
            return refuse(NO_USER)
        facts = [
            fact
            for fact in memory.visible(user_id)
            if scope is None or _scope(fact) == scope
        ]
        if words := _words(str(args.get("query") or "")):
            facts = [fact for fact in facts if words & _words(fact.text)]
        data: dict[str, Any] = {
            "facts": [_shown(fact) for fact in facts[:RECALL_LIMIT]]
        }
        if len(facts) > RECALL_LIMIT:
            data["more"] = len(facts) - RECALL_LIMIT
            data["hint"] = "Older facts are left out; narrow the list with query."
        if not facts:
            data["note"] = "Nothing is remembered that fits."
        return llm.ToolResult(data=data)
