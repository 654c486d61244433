"""Fitting each request into the context window: the fitter alone, then in the loop."""

from collections.abc import Sequence
import copy
import json
from typing import Any

import pytest

from custom_components.agentic_conversation.agent import (
    AgenticLoop,
    LLMResponse,
    LoopFinished,
    LoopLimits,
    Message,
    OpenAICompatibleProvider,
    StopReason,
    ToolCall,
    ToolSpec,
)
from custom_components.agentic_conversation.agent.context_budget import (
    CHARS_PER_TOKEN,
    HISTORY_RESULT_CHARS,
    MIN_RESULT_CHARS,
    ContextFitter,
    ContextTooSmallError,
    budget_chars,
    fair_cap,
    fit_request,
    message_size,
    shorten,
    tools_size,
)
from custom_components.agentic_conversation.agent.messages import (
    assistant_message,
    system_message,
    tool_message,
    user_message,
)
from tests.fake_llm import FakeLLM, Reply

from .common import Dispatcher, Events, assert_consistent, spec
from .test_loop_inprocess import ScriptedProvider

MARKER = "…[shortened to fit the context"
TOOLS = [spec("get_state"), spec("call_service")]


def exchange(n: int, result: str = "on") -> list[Message]:
    """One earlier exchange: question, tool call, its result, answer."""
    return [
        user_message(f"question {n}"),
        assistant_message("", [(f"h{n}", "get_state", {"entity": f"light.l{n}"})]),
        tool_message(f"h{n}", json.dumps({"success": True, "result": result})),
        assistant_message(f"answer {n}"),
    ]


def history(turns: int, result: str = "on") -> list[Message]:
    """Earlier exchanges, oldest first."""
    return [m for n in range(turns) for m in exchange(n, result)]


def this_turn(*results: str, text: str = "turn it off") -> list[Message]:
    """This turn so far: the user message and one round of calls with results."""
    messages = [user_message(text)]
    if results:
        messages.append(
            assistant_message(
                "", [(f"c{i}", "get_state", {"i": i}) for i in range(len(results))]
            )
        )
        messages += [tool_message(f"c{i}", r) for i, r in enumerate(results)]
    return messages


def sent_size(messages: list[Message], tools: list[ToolSpec]) -> int:
    """What a server receives: the messages list and the tools list, as JSON."""
    size = len(json.dumps(messages, ensure_ascii=False))
    if tools:
        size += len(json.dumps([t.to_openai() for t in tools], ensure_ascii=False))
    return size


def total(messages: list[Message], tools: list[ToolSpec]) -> int:
    """The size the fitter counts."""
    return sum(map(message_size, messages)) + tools_size(tools)


def test_budget_chars() -> None:
    """The window less the answer's room, at 4 characters per token."""
    assert CHARS_PER_TOKEN == 4
    assert budget_chars(8192, 1024) == 7168 * 4
    assert budget_chars(100, 100) == 0


def test_counted_size_covers_what_is_sent() -> None:
    """The count is never below the JSON a server receives."""
    messages = [system_message("sys"), *history(3), *this_turn("x" * 50)]
    assert sent_size(messages, TOOLS) <= total(messages, TOOLS)
    assert total([], []) == 0


def test_fits_whole_when_it_fits() -> None:
    """Under the budget nothing changes, and the prefix keeps its system prompt."""
    prefix = [system_message("sys"), *history(2)]
    current = this_turn('{"success": true}')

    assert fit_request(prefix, current, TOOLS, 10**6) == [*prefix, *current]


def test_budget_exactly_at_the_edge() -> None:
    """A request of exactly the budget is sent whole; one character less trims it."""
    prefix = [system_message("sys"), *history(3)]
    current = this_turn('{"success": true}')
    edge = total([*prefix, *current], TOOLS)

    assert fit_request(prefix, current, TOOLS, edge) == [*prefix, *current]
    trimmed = fit_request(prefix, current, TOOLS, edge - 1)
    assert trimmed == [prefix[0], *history(3)[4:], *current]
    assert total(trimmed, TOOLS) <= edge - 1


def test_the_least_at_the_edge() -> None:
    """No history fits: this turn alone, at exactly its size, then too small."""
    current = this_turn()
    least = total([system_message("sys"), *current], [])

    assert fit_request([system_message("sys"), *history(5)], current, [], least) == [
        system_message("sys"),
        *current,
    ]
    with pytest.raises(ContextTooSmallError) as raised:
        fit_request([system_message("sys")], current, [], least - 1)
    assert raised.value.needed == least
    assert raised.value.budget == least - 1
    assert "needs at least" in str(raised.value)


def test_oldest_history_goes_first_keeping_whole_exchanges() -> None:
    """A 50-exchange history: the newest exchanges that fit, each whole."""
    prefix = [system_message("You control a house."), *history(50)]
    current = this_turn()
    budget = total([prefix[0], *history(50)[-40:], *current], TOOLS)

    sent = fit_request(prefix, current, TOOLS, budget)

    assert sent == [prefix[0], *history(50)[-40:], *current]
    assert_consistent(sent)
    assert sent_size(sent, TOOLS) <= budget


def test_no_history() -> None:
    """Without history the turn is sent as is, or shortened, or too small."""
    current = this_turn("r" * 5000)

    assert fit_request([], current, [], 10**6) == current
    sent = fit_request([], current, [], 2000)
    assert sent[:2] == current[:2]
    assert MARKER in sent[2]["content"]
    assert total(sent, []) <= 2000
    with pytest.raises(ContextTooSmallError):
        fit_request([], current, [], 100)


def test_a_single_huge_tool_result() -> None:
    """A megabyte result shrinks to the room left; the call keeps its result."""
    huge = json.dumps({"success": True, "result": "x" * 1_000_000})
    prefix = [system_message("sys"), *history(20)]
    current = this_turn(huge)

    sent = fit_request(prefix, current, TOOLS, 6000)

    result = sent[-1]
    assert result["tool_call_id"] == "c0"
    assert result["content"].startswith('{"success": true, "result": "xxx')
    assert result["content"].endswith("chars left out]")
    assert total(sent, TOOLS) <= 6000
    assert sent_size(sent, TOOLS) <= 6000
    assert_consistent(sent)
    # It was a result longer than half the room: shortened, and the previous
    # exchange is still there for "it".
    assert sent[-7:-3] == history(20)[-4:]
    assert current[-1]["content"] == huge  # the caller's message is untouched


def test_many_tool_calls_in_one_message() -> None:
    """40 results of mixed sizes: all present, in order; small ones whole."""
    results = [
        json.dumps({"success": True, "result": ("y" * 2000) if i % 4 == 0 else i})
        for i in range(40)
    ]
    current = this_turn(*results)
    before = copy.deepcopy(current)

    sent = fit_request([system_message("sys"), *history(5)], current, TOOLS, 12_000)

    assert current == before
    assert_consistent(sent)
    tool_messages = [m for m in sent if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages][-40:] == [
        f"c{i}" for i in range(40)
    ]
    for i, message in enumerate(tool_messages[-40:]):
        if i % 4:
            assert message == current[2 + i]
        else:
            assert MARKER in message["content"]
    assert total(sent, TOOLS) <= 12_000


def test_many_huge_results_too_small() -> None:
    """Each result keeps a minimum; when those do not fit, the context is too small."""
    current = this_turn(*("z" * 5000 for _ in range(30)))
    least = total(this_turn(), []) + total([current[1]], [])

    with pytest.raises(ContextTooSmallError) as raised:
        fit_request([], current, [], least + 30 * MIN_RESULT_CHARS - 1)
    assert raised.value.needed == least + 30 * MIN_RESULT_CHARS
    sent = fit_request([], current, [], least + 30 * MIN_RESULT_CHARS)
    assert all(message_size(m) <= MIN_RESULT_CHARS for m in sent if m["role"] == "tool")


def test_history_results_are_shortened_before_exchanges_are_dropped() -> None:
    """Long results of earlier exchanges shrink first; then all exchanges fit."""
    prefix = [system_message("sys"), *history(6, result="w" * 3000)]
    current = this_turn()
    short = [
        shorten(m, HISTORY_RESULT_CHARS) if m["role"] == "tool" else m
        for m in prefix[1:]
    ]
    budget = total([prefix[0], *short, *current], TOOLS)

    sent = fit_request(prefix, current, TOOLS, budget)

    assert sent == [prefix[0], *short, *current]
    assert all(MARKER in m["content"] for m in sent if m["role"] == "tool")


def test_a_huge_previous_exchange_is_dropped() -> None:
    """The previous exchange is kept only when it fits."""
    big = [user_message("p" * 5000), assistant_message("ok")]

    sent = fit_request([*history(2), *big], this_turn(), [], 1000)

    assert sent == this_turn()


def test_history_without_system_prompt_or_leading_user_message() -> None:
    """Whatever comes before the first user message is the oldest exchange."""
    prefix = [assistant_message("Hello, I am your house."), *history(1)]
    current = this_turn()

    sent = fit_request(prefix, current, [], total([*history(1), *current], []))

    assert sent == [*history(1), *current]


@pytest.mark.parametrize("limit", [60, 120, 200, 301, 777])
@pytest.mark.parametrize(
    "content",
    ['"quoted" ' * 200, "line\n" * 300, "ümlaut 🏠 " * 150, "\x00\x01" * 400, ""],
)
def test_shorten_stays_within_its_limit(content: str, limit: int) -> None:
    """Escaped and non-ASCII characters are counted as sent."""
    message = tool_message("call", content)

    short = shorten(message, limit)

    assert short["tool_call_id"] == "call"
    assert MARKER in short["content"]
    if message_size(shorten(message, 0)) <= limit:
        assert message_size(short) <= limit
        assert content.startswith(short["content"].split("…[")[0])
    else:
        assert short == shorten(message, 0)


def test_fair_cap() -> None:
    """Small items stay whole; big ones share what is left."""
    assert fair_cap([], 0) is None
    assert fair_cap([], -5) is None
    assert fair_cap([10, 20], 30) is None
    assert fair_cap([10, 100, 100], 110) == 50
    assert fair_cap([10, 100], 5) == 2
    assert fair_cap([10, 100], -5) == 0


def test_the_fitter_shortens_only_the_history_it_looks_at() -> None:
    """A long history and a small window: only the newest exchanges are shortened."""
    fitter = ContextFitter([system_message("s"), *history(30, "v" * 2000)], TOOLS, 3000)

    first = fitter.fit(this_turn())
    again = fitter.fit(this_turn("r" * 3000))

    looked_at = len(fitter.shortened)
    assert 1 < looked_at < 10
    assert first[1]["role"] == again[1]["role"] == "user"
    assert total(first, TOOLS) <= 3000
    assert total(again, TOOLS) <= 3000


def test_list_size_is_the_sum_of_message_sizes() -> None:
    """One encoding of the list counts the same as the messages one by one."""
    messages = [system_message('ü "x"'), *history(3), *this_turn("é" * 40)]

    assert total(messages, []) == sum(message_size(m) for m in messages)
    assert ContextFitter(messages, [], 0).history_size == sum(
        message_size(m) for m in messages[1:]
    )


class RecordingProvider(ScriptedProvider):
    """A scripted provider that keeps the messages of every request."""

    def __init__(self, *steps: LLMResponse) -> None:
        """Initialise with the steps."""
        super().__init__(*steps)
        self.sent: list[list[Message]] = []

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        **kwargs: Any,
    ) -> LLMResponse:
        """Record, then the next step."""
        self.sent.append(list(messages))
        return await super().complete(messages, tools, **kwargs)


async def test_every_call_of_the_turn_is_fitted() -> None:
    """The tool results grow the turn: the second call is fitted again."""

    async def get_state() -> str:
        return "s" * 20_000

    provider = RecordingProvider(
        LLMResponse("", [ToolCall("c0", "get_state", {})], "tool_calls"),
        LLMResponse("It is off.", [], "stop"),
    )
    tools = Dispatcher(get_state=get_state)
    limits = LoopLimits(context_tokens=2000, answer_tokens=500)
    loop = AgenticLoop(provider, tools, limits, system_prompt="sys")

    result = await loop.run("is it on?", history(50), tools.specs)

    assert result.stop_reason is StopReason.FINAL
    budget = budget_chars(2000, 500)
    for messages in provider.sent:
        assert sent_size(messages, tools.specs) <= budget
        assert_consistent(messages)
    assert provider.sent[0][-1] == user_message("is it on?")
    assert provider.sent[1][-3] == user_message("is it on?")
    assert provider.sent[1][-1]["tool_call_id"] == "c0"
    assert MARKER in provider.sent[1][-1]["content"]
    assert provider.sent[1][-7] == user_message("question 49")  # previous exchange
    # History and the turn's own messages are left whole.
    assert result.messages[2]["content"].startswith('{"success": true')
    assert MARKER not in result.messages[2]["content"]


async def test_too_small_ends_the_turn_without_calling_the_llm() -> None:
    """Not even the system prompt and the tools fit: a stop reason, no LLM call."""
    provider = RecordingProvider()

    async def get_state() -> None:
        return None

    tools = Dispatcher(get_state=get_state)
    events = Events()
    loop = AgenticLoop(
        provider,
        tools,
        LoopLimits(context_tokens=1024, answer_tokens=1000),
        system_prompt="s" * 200,
    )

    result = await loop.run("hi", history(3), tools.specs, on_event=events)

    assert provider.sent == []
    assert result.stop_reason is StopReason.CONTEXT_TOO_SMALL
    assert result.iterations == 0
    assert result.text == ""
    assert result.messages == [user_message("hi")]
    assert events.kinds == ["LoopFinished"]
    assert isinstance(events.items[-1], LoopFinished)


async def test_too_small_after_tools_keeps_the_completed_round() -> None:
    """The turn grows past the window: it ends consistent, with what was done."""

    async def get_state(i: int) -> str:
        return "ok"

    calls = [ToolCall(f"c{i}", "get_state", {"i": i}) for i in range(12)]
    provider = RecordingProvider(LLMResponse("", calls, "tool_calls"))
    tools = Dispatcher(get_state=get_state)
    loop = AgenticLoop(
        provider, tools, LoopLimits(context_tokens=400, answer_tokens=100)
    )

    result = await loop.run("check all", [], tools.specs)

    assert len(provider.sent) == 1
    assert result.stop_reason is StopReason.CONTEXT_TOO_SMALL
    assert result.iterations == 1
    assert len(result.tool_calls) == 12
    assert_consistent(result.messages)


async def test_the_final_answer_call_is_fitted_too(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """At the iteration cap the extra instruction counts; the server gets it fitted."""

    async def get_state() -> str:
        return "q" * 9000

    fake_llm.script([Reply.tool_calls([("get_state", {})]), Reply.text("It is on.")])
    tools = Dispatcher(get_state=get_state)
    limits = LoopLimits(max_iterations=1, context_tokens=1500, answer_tokens=256)
    loop = AgenticLoop(provider, tools, limits, system_prompt="sys")
    result = await loop.run("is it on?", history(50, "e" * 900), tools.specs)

    assert result.text == "It is on."
    budget = budget_chars(1500, 256)
    for request in fake_llm.requests:
        assert sent_size(request["messages"], tools.specs) <= budget
        assert_consistent(request["messages"])
    final = fake_llm.requests[-1]["messages"]
    assert final[-1]["role"] == "user"  # the final-answer instruction
    assert final[-2]["tool_call_id"] == final[-3]["tool_calls"][0]["id"]
    assert MARKER in final[-2]["content"]
    assert {"role": "user", "content": "question 49"} in final
