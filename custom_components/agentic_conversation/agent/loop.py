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
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
import inspect
import logging
import time

from .errors import LLMError, LLMTimeoutError
from .events import (
    LLMCallStarted,
    LoopEvent,
    LoopFinished,
    TextDelta,
    ToolCallsRequested,
)
from .limits import LoopLimits
from .messages import Message, canonical_arguments, user_message, with_system_prompt
from .provider import LLMProvider, LLMResponse
from .result import LoopResult, StopReason
from .tool_calls import (
    ToolCallRecord,
    ToolDispatcher,
    ToolSpec,
    cancelled_record,
    execute_tool_call,
    repeated_record,
)
from .turn import Turn

_LOGGER = logging.getLogger(__name__)

type EventCallback = Callable[[LoopEvent], Awaitable[None] | None]

FINAL_ANSWER_INSTRUCTION = (
    "You have used all the tool calls allowed for this request. Do not call any more "
    "tools. Answer the user now, using only what you have learned so far, and say "
    "briefly what you could not do."
)
REFUSAL_TEXT = "I can't help with that request."
CUT_OFF_TEXT = "Sorry, my answer was cut off."
REPEATED_NOTE = (
    "This exact call was already made in this request; this is its earlier result. "
    "It was not run again."
)
REPEATED_AGAIN_NOTE = (
    "This exact call was already made twice in this request; this is its earlier "
    "result. Stop calling it and answer the user."
)
CANCELLED_ERROR = "cancelled"
DEADLINE_ERROR = "The request ran out of time before this tool finished."

# The third identical call in a turn ends the tool phase.
REPEAT_LIMIT = 3
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
    ) -> None:
        """Initialise.

        Args:
            provider: The LLM.
            dispatcher: Runs the tools the LLM calls.
            limits: Bounds of each turn.
            system_prompt: Sent first; replaces a system message found in history.
        """
        self._provider = provider
        self._dispatcher = dispatcher
        self._limits = limits
        self._system_prompt = system_prompt

    async def run(
        self,
        user_text: str,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        on_event: EventCallback | None = None,
    ) -> LoopResult:
        """Run one turn.

        Args:
            user_text: What the user said.
            history: Earlier messages, oldest first; not modified.
            tools: The tools the LLM may call.
            on_event: Called with each `LoopEvent`; may be async. Text is streamed
                only when it is given.

        Returns:
            The outcome; LLM errors, the deadline and the cap are stop reasons.

        Raises:
            asyncio.CancelledError: The turn was cancelled; a `LoopFinished` with
                stop reason CANCELLED was emitted first.
        """
        loop = asyncio.get_running_loop()
        turn = Turn(with_system_prompt(history, self._system_prompt), user_text, tools)
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
        user_text: str,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
    ) -> AsyncGenerator[LoopEvent]:
        """Run one turn, yielding its events; the last one is `LoopFinished`.

        Closing the iterator early cancels the turn.
        """
        queue: asyncio.Queue[LoopEvent | None] = asyncio.Queue()
        task = asyncio.create_task(
            self.run(user_text, history, tools, on_event=queue.put_nowait)
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
            # LLM_INFERENCE
            try:
                response = await self._call_llm(turn, deadline, emit, on_delta)
            except LLMError as err:
                _LOGGER.warning("LLM call failed: %r", err)
                turn.fail(StopReason.LLM_ERROR, err)
                return
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
                # RESPONSE_COMPOSITION
                turn.finish(_answer_text(response), StopReason.FINAL)
                return
            # TOOL_EXECUTION and RESULT_AGGREGATION
            await emit(ToolCallsRequested(turn.iterations, list(response.tool_calls)))
            await self._run_tools(turn, response, emit)
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
    ) -> LLMResponse:
        """One LLM call, given the time left in the turn."""
        loop = asyncio.get_running_loop()
        turn.iterations += 1
        await emit(LLMCallStarted(turn.iterations))
        try:
            response = await self._provider.complete(
                turn.outgoing(extra),
                turn.tools,
                tool_choice=tool_choice,
                on_delta=on_delta,
                timeout=max(deadline - loop.time(), 0.0),
            )
        except LLMTimeoutError as err:
            if loop.time() + _DEADLINE_SLACK >= deadline:
                raise _DeadlineReached(err) from err
            raise
        turn.finish_reason = response.finish_reason
        if response.finish_reason not in _KNOWN_FINISH_REASONS:
            _LOGGER.warning(
                "Unexpected finish reason %r from the LLM; treating it as a normal end",
                response.finish_reason,
            )
        return response

    async def _run_tools(
        self,
        turn: Turn,
        response: LLMResponse,
        emit: Callable[[LoopEvent], Awaitable[None]],
    ) -> None:
        """Run the calls of one response concurrently; results go in request order.

        An identical call made earlier in the turn (or earlier in this response) is
        answered with that call's result instead of running again.
        """
        calls = response.tool_calls
        turn.open_tool_phase(response.text, calls)
        pending: dict[asyncio.Task[ToolCallRecord], int] = {}
        first_in_batch: dict[tuple[str, str], int] = {}
        duplicates: dict[int, list[int]] = {}
        answered_now: list[int] = []
        for index, call in enumerate(calls):
            key = (call.name, canonical_arguments(call.arguments))
            turn.requests[key] += 1
            if turn.requests[key] >= REPEAT_LIMIT:
                turn.repeat_limit_hit = True
            if key in turn.answered:
                turn.slots[index] = repeated_record(
                    call, turn.answered[key], self._repeat_note(turn, key)
                )
                answered_now.append(index)
            elif key in first_in_batch:
                duplicates.setdefault(first_in_batch[key], []).append(index)
            else:
                first_in_batch[key] = index
                _LOGGER.debug("Tool call %s %s(%s)", call.id, call.name, call.arguments)
                task = asyncio.create_task(
                    execute_tool_call(
                        call,
                        self._dispatcher,
                        turn.offered,
                        tool_timeout=self._limits.tool_timeout,
                        max_result_chars=self._limits.max_tool_result_chars,
                    ),
                    name=f"agentic tool {call.name}",
                )
                pending[task] = index
        try:
            for index in answered_now:
                await emit(turn.report(index))
            while pending:
                done, _ = await asyncio.wait(
                    pending, return_when=asyncio.FIRST_COMPLETED
                )
                for task in sorted(done, key=pending.__getitem__):
                    index = pending.pop(task)
                    call = calls[index]
                    key = (call.name, canonical_arguments(call.arguments))
                    if task.cancelled():  # the tool cancelled itself
                        record = cancelled_record(
                            call, CANCELLED_ERROR, time.monotonic()
                        )
                    else:
                        record = task.result()
                    turn.slots[index] = record
                    turn.answered[key] = record
                    twins = duplicates.pop(index, [])
                    for twin in twins:
                        turn.slots[twin] = repeated_record(
                            calls[twin], record, self._repeat_note(turn, key)
                        )
                    await emit(turn.report(index))
                    for twin in twins:
                        await emit(turn.report(twin))
        finally:
            # Cancelled or out of time: stop the tools still running. Their results
            # are filled in by whoever handles the interruption.
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)
        turn.close_tool_phase(CANCELLED_ERROR)  # every call has its result by now

    @staticmethod
    def _repeat_note(turn: Turn, key: tuple[str, str]) -> str:
        if turn.requests[key] >= REPEAT_LIMIT:
            return REPEATED_AGAIN_NOTE
        return REPEATED_NOTE

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
        if response.tool_calls and response.finish_reason != "content_filter":
            _LOGGER.warning(
                "The LLM asked for %d tool calls when told to answer; ignoring them",
                len(response.tool_calls),
            )
            turn.finish(
                summarize(turn.records), StopReason.ITERATION_CAP, summarized=True
            )
        elif not response.text.strip() and response.finish_reason != "content_filter":
            turn.finish(
                summarize(turn.records), StopReason.ITERATION_CAP, summarized=True
            )
        else:
            turn.finish(_answer_text(response), StopReason.ITERATION_CAP)

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


def _answer_text(response: LLMResponse) -> str:
    """The final answer of a response, by its finish reason."""
    if response.finish_reason == "content_filter":
        return REFUSAL_TEXT
    if response.finish_reason == "length":
        if response.tool_calls:
            _LOGGER.warning(
                "The LLM ran out of tokens while calling tools; not running them"
            )
        return response.text or CUT_OFF_TEXT
    return response.text


def summarize(records: Sequence[ToolCallRecord]) -> str:
    """A short English account of what a turn did and did not do, for the cap."""
    done = _names(r for r in records if r.ok and not r.repeated)
    failed = _names(r for r in records if not r.ok and not r.repeated)
    parts = ["I couldn't finish this request within the steps allowed."]
    if done:
        parts.append(f"Done: {done}.")
    if failed:
        parts.append(f"Not done: {failed}.")
    if not done and not failed:
        parts.append("Nothing was done.")
    return " ".join(parts)


def _names(records: Iterable[ToolCallRecord]) -> str:
    counts = Counter(record.name for record in records)
    return ", ".join(
        name if count == 1 else f"{name} ({count} times)"
        for name, count in counts.items()
    )
