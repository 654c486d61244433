"""One AI task: the agentic loop over the task's chat log, the answer checked."""

import asyncio
from dataclasses import replace
from typing import Any

from homeassistant.components import ai_task, conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.exceptions import HomeAssistantError

from ..agent import (
    AgenticLoop,
    LLMBadRequestError,
    LLMBudgetError,
    LLMError,
    LLMProvider,
    LoopLimits,
    StopReason,
)
from ..agent.messages import system_message, user_message
from ..const import (
    CONF_TASK_TIMEOUT,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TASK_TIMEOUT,
    DEFAULT_TOOL_TIMEOUT,
    DOMAIN,
    LOGGER,
)
from ..offered_tools import tool_specs
from ..redact import our_secrets, redact_url
from ..safety.confirmation import ConfirmationGate
from ..tool_dispatch import ChatLogToolDispatcher, no_tools
from ..tool_options import AgenticLLMContext, ToolOptions
from .attachments import async_user_content
from .structure import check, repair_instruction, response_format


async def async_generate_data(
    provider: LLMProvider,
    subentry: ConfigSubentry,
    task: ai_task.GenDataTask,
    chat_log: conversation.ChatLog,
    agent_id: str,
) -> ai_task.GenDataTaskResult:
    """Run the task; its answer, parsed and checked when a structure is given."""
    hass = chat_log.hass
    api = chat_log.llm_api
    if api is not None:
        # Nobody is there to confirm: a risky action (unlocking, opening) is held and
        # never runs; exposure binds every tool as in a conversation.
        context = AgenticLLMContext.extending(
            api.llm_context, ToolOptions(), gate=ConfirmationGate(hass)
        )
        api = replace(api, llm_context=context)
    timeout = float(subentry.data.get(CONF_TASK_TIMEOUT, DEFAULT_TASK_TIMEOUT))
    content = await async_user_content(hass, task.instructions, task.attachments)
    wanted = response_format(task.name, task.structure, api) if task.structure else None
    first = chat_log.content[0]
    system = first.content if isinstance(first, conversation.SystemContent) else None
    loop = AgenticLoop(
        provider,
        ChatLogToolDispatcher(api) if api else no_tools,
        LoopLimits(
            max_iterations=DEFAULT_MAX_ITERATIONS,
            tool_timeout=DEFAULT_TOOL_TIMEOUT,
            turn_timeout=timeout,
        ),
        system_prompt=system,
        response_format=wanted,
        secrets=our_secrets(hass),
    )
    started = asyncio.get_running_loop().time()
    result = await loop.run(content, [], tool_specs(api))
    if result.stop_reason is StopReason.CONFIRMATION:
        raise HomeAssistantError(
            translation_domain=DOMAIN, translation_key="task_action_held"
        )
    # After the iteration cap the text may be our own summary: not the model's data.
    if (
        result.error is not None
        or result.summarized
        or result.stop_reason not in (StopReason.FINAL, StopReason.ITERATION_CAP)
    ):
        raise _failed(
            result.error, images=content is not task.instructions, task=subentry.title
        )
    text = result.text
    data: Any = text
    if task.structure is not None:
        data, problem = check(text, task.structure)
        if problem is not None:
            # One repair round: the model hears what was wrong.
            LOGGER.info(
                "AI task %s: the answer was %s; asking again", task.name, problem
            )
            left = timeout - (asyncio.get_running_loop().time() - started)
            messages = [
                *([system_message(system)] if system else []),
                *result.messages,
                user_message(repair_instruction(problem)),
            ]
            try:
                response = await provider.complete(
                    messages, [], timeout=max(left, 1.0), response_format=wanted
                )
            except LLMError as err:
                raise _failed(err, images=False, task=subentry.title) from err
            text = response.text
            data, problem = check(text, task.structure)
            if problem is not None:
                raise HomeAssistantError(
                    translation_domain=DOMAIN,
                    translation_key="task_invalid_structure",
                    translation_placeholders={"error": problem[:500]},
                )
    chat_log.async_add_assistant_content_without_tools(
        conversation.AssistantContent(agent_id=agent_id, content=text)
    )
    return ai_task.GenDataTaskResult(
        conversation_id=chat_log.conversation_id, data=data
    )


def _failed(error: LLMError | None, *, images: bool, task: str) -> HomeAssistantError:
    """The task's failure in words; a server's complaint about images as it said."""
    if isinstance(error, LLMBudgetError):
        # Nothing was sent: the budget, not the model, refused it.
        return HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key="task_budget_spent",
            translation_placeholders={"name": task},
        )
    detail = redact_url(str(error)) if error is not None else "no answer"
    if images and isinstance(error, LLMBadRequestError):
        return HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key="task_images_refused",
            translation_placeholders={"error": detail[:500]},
        )
    return HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key="task_failed",
        translation_placeholders={"error": detail[:500]},
    )
