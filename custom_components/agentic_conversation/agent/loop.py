"""The agentic loop: ask the LLM, run the tools it asks for, repeat, answer.

One turn is a small state machine:

    RECEIVE_INPUT -> LLM_INFERENCE -> TOOL_DECISION -+-> TOOL_EXECUTION
                          ^                          |        |
                          +---- RESULT_AGGREGATION <-+--------+
                                                     |
                                                     +-> RESPONSE_COMPOSITION -> OUTPUT

bounded by `LoopLimits`. LLM errors, the deadline and the iteration cap are stop reasons,
never exceptions; cancellation is reported and then re-raised.
"""

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
import inspect
import logging
from typing import Any

from .composition import FINAL_ANSWER_INSTRUCTION, compose, summarize
from .context_budget import ContextTooSmallError
from .credentials import Redactor
from .errors import LLMError, LLMTimeoutError
from .events import LLMCallStarted, LoopEvent, LoopFinished, TextDelta
from .limits import LoopLimits
from .messages import Message, UserContent, user_message
from .provider import AnswerHeard, LLMProvider, LLMResponse, ToolCall, ToolCallCallback
from .result import LoopResult, StopReason
from .tool_calls import ToolDispatcher, ToolSpec
from .tool_round import CANCELLED_ERROR, ToolRound
from .turn import REPEAT_LIMIT, Turn

_LOGGER = logging.getLogger(__name__)

type EventCallback = Callable[[LoopEvent], Awaitable[None] | None]

DEADLINE_ERROR = "The request ran out of time before this tool finished."

# Finish reasons that need no warning; any other is logged and treated like "stop".
_KNOWN_FINISH_REASONS = {
    "stop",
    "tool_calls",
    "function_call",
    "length",
    "content_filter",
    None,
}
# An LLM timeout this close to the turn deadline is the deadline: the loop gives the
# provider the remaining time, and timers may fire a hair early.
_DEADLINE_SLACK = 0.05


class _DeadlineReached(Exception):
    """The provider timed out because the turn's remaining time ran out."""

    def __init__(self, error: LLMError) -> None:
        super().__init__(str(error))
        self.error = error


class AgenticLoop:
    """Runs turns of a conversation against an LLM, with tools.

    Stateless between turns: the caller keeps the history and appends
    `LoopResult.messages` to it.
    """

    def __init__(
        self,
        provider: LLMProvider,
        dispatcher: ToolDispatcher,
        limits: LoopLimits = LoopLimits(),
        system_prompt: str | None = None,
        response_format: Mapping[str, Any] | None = None,
        *,
        secrets: Redactor = Redactor(),
    ) -> None:
        """Initialise.

        Args:
            provider: The LLM.
            dispatcher: Runs the tools the LLM calls.
            limits: Bounds of each turn.
            system_prompt: Sent first; replaces a system message found in history.
            response_format: The answers' format (structured output), on every call.
            secrets: Our own secrets, taken out of all the model says (its text, as
                it streams too, and its tool arguments) before anyone hears, runs
                or keeps it.
        """
        self._provider = provider
        self._dispatcher = dispatcher
        self._limits = limits
        self._system_prompt = system_prompt
        self._response_format = response_format
        self._secrets = secrets

    async def run(
        self,
        user_text: UserContent,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_event: EventCallback | None = None,
        heard: Callable[[int], bool] | None = None,
    ) -> LoopResult:
        """Run one turn.

        Args:
            user_text: What the user said.
            history: Earlier messages, oldest first; not modified.
            tools: The tools the LLM may call.
            on_event: Called with each `LoopEvent`; may be async. Text is streamed
                only when it is given.
            heard: Asked with the LLM call's number (`LLMCallStarted.iteration`) as
                its text streams; True: the listener has heard enough of that
                answer (a loop, or past its length), which ends there.

        Returns:
            The outcome; LLM errors, the deadline and the cap are stop reasons.

        Raises:
            asyncio.CancelledError: The turn was cancelled; a `LoopFinished` with
                stop reason CANCELLED was emitted first.
        """
        loop = asyncio.get_running_loop()
        turn = Turn(history, self._system_prompt, user_text, tools, self._limits)
        turn.heard = heard
        deadline = loop.time() + self._limits.turn_timeout

        async def emit(event: LoopEvent) -> None:
            if on_event is not None:
                awaitable = on_event(event)
                if inspect.isawaitable(awaitable):
                    await awaitable

        async def on_delta(text: str) -> None:
            await emit(TextDelta(text))

        scope = asyncio.timeout_at(deadline)
        try:
            try:
                async with scope:
                    await self._drive(
                        turn, deadline, emit, on_delta if on_event else None
                    )
            except TimeoutError:
                if not scope.expired():
                    raise
                error = LLMTimeoutError(
                    f"turn deadline of {self._limits.turn_timeout:g} s reached"
                )
                await self._deadline(turn, error, emit)
            except _DeadlineReached as reached:
                await self._deadline(turn, reached.error, emit)
            except ContextTooSmallError:
                turn.fail(StopReason.CONTEXT_TOO_SMALL, None)
        except asyncio.CancelledError:
            _LOGGER.debug("Turn cancelled after %d iterations", turn.iterations)
            for event in turn.close_tool_phase(CANCELLED_ERROR):
                await emit(event)
            turn.fail(StopReason.CANCELLED, None)
            await emit(LoopFinished(turn.result()))
            raise
        result = turn.result()
        await emit(LoopFinished(result))
        return result

    async def stream(
        self,
        user_text: UserContent,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        heard: Callable[[int], bool] | None = None,
    ) -> AsyncGenerator[LoopEvent]:
        """Run one turn, yielding its events; the last one is `LoopFinished`.

        Closing the iterator early cancels the turn; `heard` as for `run`.
        """
        queue: asyncio.Queue[LoopEvent | None] = asyncio.Queue()
        task = asyncio.create_task(
            self.run(user_text, history, tools, on_event=queue.put_nowait, heard=heard),
            eager_start=True,
        )
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            await task  # re-raises what ended the turn abnormally
        finally:
            if not task.done():
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    current = asyncio.current_task()
                    if current is not None and current.cancelling():
                        raise

    async def _drive(
        self,
        turn: Turn,
        deadline: float,
        emit: Callable[[LoopEvent], Awaitable[None]],
        on_delta: Callable[[str], Awaitable[None]] | None,
    ) -> None:
        """The states from LLM_INFERENCE to OUTPUT."""
        limits = self._limits
        while True:
            if turn.iterations >= limits.max_iterations:
                _LOGGER.warning(
                    "Reached the limit of %d iterations; asking for a final answer"
                    " without tools",
                    limits.max_iterations,
                )
                await self._final_answer(turn, deadline, emit, on_delta)
                return
            # LLM_INFERENCE; TOOL_EXECUTION starts as each call is complete
            tools = ToolRound(turn, self._dispatcher, limits)
            try:
                response = await self._call_llm(
                    turn, deadline, emit, on_delta, on_tool_call=tools.start
                )
            except LLMError as err:
                _LOGGER.warning("LLM call failed: %r", err)
                await tools.finish_started(emit)  # they run: what they did is told
                turn.fail(StopReason.LLM_ERROR, err)
                return
            except BaseException:
                await tools.abandon()  # cancelled or out of time
                raise
            _LOGGER.info(
                "iteration %d/%d, %d tool calls",
                turn.iterations,
                limits.max_iterations,
                len(response.tool_calls),
            )
            # TOOL_DECISION
            if not response.tool_calls or response.finish_reason in (
                "length",
                "content_filter",
            ):
                # RESPONSE_COMPOSITION (calls complete while it streamed have run)
                await tools.finish_started(emit)
                turn.finish(*compose(response, StopReason.FINAL))
                return
            # TOOL_EXECUTION and RESULT_AGGREGATION
            await tools.finish(response.text, response.tool_calls, emit)
            if any(record.held for record in turn.records):
                # The user decides, not the model: ask before anything else happens.
                turn.fail(StopReason.CONFIRMATION, None)
                return
            if turn.repeat_limit_hit:
                _LOGGER.warning(
                    "The same tool call was requested %d times; asking for a final"
                    " answer without tools",
                    REPEAT_LIMIT,
                )
                await self._final_answer(turn, deadline, emit, on_delta)
                return

    async def _call_llm(
        self,
        turn: Turn,
        deadline: float,
        emit: Callable[[LoopEvent], Awaitable[None]],
        on_delta: Callable[[str], Awaitable[None]] | None,
        *,
        tool_choice: str | None = None,
        extra: Sequence[Message] = (),
        on_tool_call: ToolCallCallback | None = None,
    ) -> LLMResponse:
        """One LLM call, given the time left in the turn."""
        loop = asyncio.get_running_loop()
        messages = turn.outgoing(extra)  # before counting: a call that cannot be made
        turn.iterations += 1
        await emit(LLMCallStarted(turn.iterations))
        secrets = self._secrets
        said = secrets.stream()

        async def redacted_delta(text: str) -> None:
            if turn.heard is not None and turn.heard(turn.iterations):
                raise AnswerHeard
            if (piece := said.feed(text)) and on_delta is not None:
                await on_delta(piece)

        def redacted_call(call: ToolCall) -> None:
            if on_tool_call is not None:
                on_tool_call(_redacted_call(call, secrets))

        try:
            response = await self._provider.complete(
                messages,
                turn.tools,
                tool_choice=tool_choice,
                on_delta=redacted_delta if on_delta is not None else None,
                on_tool_call=redacted_call if on_tool_call is not None else None,
                timeout=max(deadline - loop.time(), 0.0),
                response_format=self._response_format,
            )
        except LLMTimeoutError as err:
            if loop.time() + _DEADLINE_SLACK >= deadline:
                raise _DeadlineReached(err) from err
            raise
        if (rest := said.flush()) and on_delta is not None:
            await on_delta(rest)
        response = replace(
            response,
            text=secrets.in_words(response.text),
            tool_calls=[_redacted_call(call, secrets) for call in response.tool_calls],
        )
        turn.finish_reason = response.finish_reason
        if response.finish_reason not in _KNOWN_FINISH_REASONS:
            _LOGGER.warning(
                "Unexpected finish reason %r from the LLM; treating it as a normal end",
                response.finish_reason,
            )
        return response

    async def _final_answer(
        self,
        turn: Turn,
        deadline: float,
        emit: Callable[[LoopEvent], Awaitable[None]],
        on_delta: Callable[[str], Awaitable[None]] | None,
    ) -> None:
        """One last LLM call without tools; a summary if even that gives no answer."""
        try:
            response = await self._call_llm(
                turn,
                deadline,
                emit,
                on_delta,
                tool_choice="none",
                extra=[user_message(FINAL_ANSWER_INSTRUCTION)],
            )
        except LLMError as err:
            _LOGGER.warning("Final answer call failed: %r", err)
            turn.error = err
            turn.finish(
                summarize(turn.records), StopReason.ITERATION_CAP, summarized=True
            )
            return
        if response.finish_reason == "content_filter" or (
            response.text.strip() and not response.tool_calls
        ):
            turn.finish(*compose(response, StopReason.ITERATION_CAP))
            return
        if response.tool_calls:
            _LOGGER.warning(
                "The LLM asked for %d tool calls when told to answer; ignoring them",
                len(response.tool_calls),
            )
        turn.finish(summarize(turn.records), StopReason.ITERATION_CAP, summarized=True)

    async def _deadline(
        self,
        turn: Turn,
        error: LLMError,
        emit: Callable[[LoopEvent], Awaitable[None]],
    ) -> None:
        """End the turn at its deadline, keeping the completed steps."""
        _LOGGER.warning("Turn stopped at its deadline: %s", error)
        for event in turn.close_tool_phase(DEADLINE_ERROR):
            await emit(event)
        turn.fail(StopReason.DEADLINE, error)


def _redacted_call(call: ToolCall, secrets: Redactor) -> ToolCall:
    """The call with our secrets out of its arguments."""
    return replace(call, arguments=secrets.in_data(call.arguments))
