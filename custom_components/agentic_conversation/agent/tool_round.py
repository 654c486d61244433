"""TOOL_EXECUTION and RESULT_AGGREGATION: the tool calls of one LLM response.

A call starts as soon as it is complete, often while the model still streams the
next one; results still go back in the order the model asked.
"""

import asyncio
from collections.abc import Awaitable, Callable
import logging
import time

from .events import LoopEvent
from .limits import LoopLimits
from .messages import canonical_arguments
from .provider import ToolCall
from .tool_calls import (
    ShowingDispatcher,
    ToolCallRecord,
    ToolDispatcher,
    cancelled_record,
    execute_tool_call,
    repeated_record,
)
from .turn import REPEAT_LIMIT, Turn

_LOGGER = logging.getLogger(__name__)

CANCELLED_ERROR = "cancelled"

type Emit = Callable[[LoopEvent], Awaitable[None]]
type _Key = tuple[str, str]


class ToolRound:
    """Starts each call once complete; reports them once the response is.

    An identical call made earlier in the turn (or earlier in this response) is
    answered with that call's result instead of running again.
    """

    def __init__(
        self, turn: Turn, dispatcher: ToolDispatcher, limits: LoopLimits
    ) -> None:
        """A round of the turn's current LLM call."""
        self._turn = turn
        self._dispatcher = dispatcher
        self._limits = limits
        self.started: list[ToolCall] = []
        self._keys: dict[str, _Key] = {}
        self._tasks: dict[str, asyncio.Task[ToolCallRecord]] = {}
        self._answered: dict[str, ToolCallRecord] = {}  # from an earlier round
        self._first: dict[_Key, str] = {}
        self._twins: dict[str, list[str]] = {}

    def start(self, call: ToolCall) -> None:
        """Plan one complete call: run it, answer it from before, or wait for its twin."""
        turn = self._turn
        key = (call.name, canonical_arguments(call.arguments))
        self.started.append(call)
        self._keys[call.id] = key
        turn.requests[key] += 1
        if turn.requests[key] >= REPEAT_LIMIT:
            turn.repeat_limit_hit = True
        if key in turn.answered:
            self._answered[call.id] = repeated_record(
                call, turn.answered[key], turn.repeat_note(key)
            )
        elif key in self._first:
            self._twins[self._first[key]].append(call.id)
        else:
            self._first[key] = call.id
            self._twins[call.id] = []
            _LOGGER.debug("Tool call %s %s(%s)", call.id, call.name, call.arguments)
            self._tasks[call.id] = asyncio.create_task(
                execute_tool_call(
                    call,
                    self._dispatcher,
                    turn.offered,
                    tool_timeout=self._limits.tool_timeout,
                    max_result_chars=self._limits.max_tool_result_chars,
                ),
                name=f"agentic tool {call.name}",
                # Runs now up to its first real wait, as HA starts its tasks: a tool
                # that answers at once costs no trip through the event loop.
                eager_start=True,
            )

    async def finish(self, text: str, calls: list[ToolCall], emit: Emit) -> None:
        """Run the calls not started yet, then report all in completion order.

        Results are appended in request order; on cancellation (or the deadline) the
        tools still running are stopped and their results left to the handler.
        """
        for call in calls:
            if call.id not in self._keys:
                self.start(call)
        turn = self._turn
        turn.open_tool_phase(text, calls)
        position = {call.id: index for index, call in enumerate(calls)}
        pending = {task: call_id for call_id, task in self._tasks.items()}
        try:
            await emit(turn.announce())
            for call_id, record in self._answered.items():
                turn.slots[position[call_id]] = record
                await emit(turn.report(position[call_id]))
            while pending:
                # Those done already (often: they started while the model streamed)
                # are taken without a trip through the event loop.
                done = {task for task in pending if task.done()} or (
                    await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                )[0]
                for task in sorted(done, key=lambda t: position[pending[t]]):
                    await self._settle(task, pending.pop(task), position, emit)
        finally:
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)
        turn.close_tool_phase(CANCELLED_ERROR)  # every call has its result by now
        if isinstance(self._dispatcher, ShowingDispatcher):
            turn.show(self._dispatcher.take_snapshots())

    async def _settle(
        self,
        task: asyncio.Task[ToolCallRecord],
        call_id: str,
        position: dict[str, int],
        emit: Emit,
    ) -> None:
        """File a finished call's record, and its twins', and report them."""
        turn = self._turn
        index = position[call_id]
        call = turn.open_calls[index]
        key = self._keys[call_id]
        if task.cancelled():  # the tool cancelled itself
            record = cancelled_record(call, CANCELLED_ERROR, time.monotonic())
        else:
            record = task.result()
        turn.slots[index] = record
        turn.answered[key] = record
        twins = [position[twin] for twin in self._twins[call_id]]
        for twin in twins:
            turn.slots[twin] = repeated_record(
                turn.open_calls[twin], record, turn.repeat_note(key)
            )
        await emit(turn.report(index))
        for twin in twins:
            await emit(turn.report(twin))

    async def finish_started(self, emit: Emit) -> None:
        """The response will not come: let the started tools finish and report them."""
        if self.started:
            await self.finish("", list(self.started), emit)

    async def abandon(self) -> None:
        """The response will not come: stop the started tools, keep what finished.

        Opens the tool phase with the started calls so that whoever handles the
        interruption closes it (and reports it).
        """
        if not self.started:
            return
        for task in self._tasks.values():
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks.values())
        turn = self._turn
        turn.open_tool_phase("", self.started)
        position = {call.id: index for index, call in enumerate(self.started)}
        for call_id, record in self._answered.items():
            turn.slots[position[call_id]] = record
        for call_id, task in self._tasks.items():
            if task.cancelled():
                continue  # the handler says why
            record = task.result()
            turn.slots[position[call_id]] = record
            for twin in self._twins[call_id]:
                turn.slots[position[twin]] = repeated_record(
                    turn.open_calls[position[twin]],
                    record,
                    turn.repeat_note(self._keys[call_id]),
                )
