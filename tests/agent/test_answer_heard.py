"""A listener that has heard enough ends the model's answer: its stream is closed.

The HA side says so for a model in a loop (a sentence said again) or one far past its
length; the loop asks `heard` with the LLM call's number as the text streams. The fake
server tells where the client hung up (`left`), not how long anything took.
"""

from custom_components.agentic_conversation.agent import (
    AgenticLoop,
    OpenAICompatibleProvider,
    StopReason,
    TextDelta,
)
from tests.fake_llm import FakeLLM, Reply

from .common import Dispatcher, Events, weather

LONG = "".join(f"Sentence number {n:03d} of a long answer. " for n in range(200))


def _said(events: Events) -> str:
    return "".join(event.text for event in events.of(TextDelta))


async def test_an_answer_heard_enough_ends_there_and_the_model_stops(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Heard enough after 100 characters: the answer is those, the stream closed."""
    fake_llm.script([Reply.text(LONG, chunk_size=10).paced(0.005)])
    events = Events()

    result = await AgenticLoop(provider, Dispatcher()).run(
        "talk", [], [], on_event=events, heard=lambda _: len(_said(events)) >= 100
    )

    assert _said(events) == LONG[:100]
    assert result.text == LONG[:100]
    assert result.stop_reason is StopReason.FINAL
    assert result.messages[-1] == {"role": "assistant", "content": LONG[:100]}
    left = await fake_llm.wait_for_left()
    assert len(left) == 1
    assert left[0] < 300  # of 801 chunks and the end


async def test_only_the_call_heard_enough_is_ended(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """What was heard of one call does not end the next: its answer comes whole."""
    tools = Dispatcher(weather=weather)
    fake_llm.script(
        [
            Reply.tool_calls([("weather", {"city": "Paris"})]),
            Reply.text(LONG, chunk_size=400),
        ]
    )
    events = Events()

    result = await AgenticLoop(provider, tools).run(
        "weather?", [], tools.specs, on_event=events, heard=lambda call: call == 1
    )

    assert tools.calls == [("weather", {"city": "Paris"})]
    assert _said(events) == LONG
    assert result.text == LONG
    assert fake_llm.left == []
