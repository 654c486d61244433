"""Tool calls written as text: recovered through the real provider, never spoken.

Each format is what a server sends when its tool parser is not set up (fixtures of
real model output: Hermes/Qwen, bare JSON, Mistral, Llama 3, a fenced block, a call
after a reasoning block). Only offered tools with parsing arguments count; a call
inside reasoning, or with words after it, is an answer.
"""

from collections.abc import AsyncIterator

import pytest

from custom_components.agentic_conversation.agent import OpenAICompatibleProvider
from custom_components.agentic_conversation.agent.held_text import HeldText
from custom_components.agentic_conversation.agent.text_tool_calls import (
    recover_tool_calls,
)
from tests.fake_llm import MODEL, FakeLLM, Reply

from .common import spec

TOOLS = [spec("assist__HassTurnOn"), spec("get_weather")]
ARGS = '{"name": "Porch light"}'

# What models write when the server passes calls through as text.
WRITTEN_CALLS = {
    "hermes": f'<tool_call>\n{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}\n'
    "</tool_call>",
    "bare json": f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}',
    "mistral": f'[TOOL_CALLS][{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}]',
    "mistral args": f"[TOOL_CALLS]assist__HassTurnOn[ARGS]{ARGS}",
    "llama 3": f'<|python_tag|>{{"name": "assist__HassTurnOn", "parameters": {ARGS}}}'
    "<|eom_id|>",
    "fenced json": f'```json\n{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}\n```',
    "after reasoning": "<think>The user wants the light on.</think>\n<tool_call>"
    f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}</tool_call>',
    "after reasoning opened by the template": "The user wants the light on.</think>"
    f'\n<tool_call>{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}</tool_call>',
    "arguments as string": '<tool_call>{"name": "assist__HassTurnOn", '
    '"arguments": "{\\"name\\": \\"Porch light\\"}"}</tool_call>',
    "openai shape": '[{"type": "function", "function": {"name": "assist__HassTurnOn",'
    f' "arguments": {ARGS}}}}}]',
    "unprefixed name": f'<tool_call>{{"name": "HassTurnOn", "arguments": {ARGS}}}'
    "</tool_call>",
    "pythonic": '[assist__HassTurnOn(name="Porch light")]',
    "pythonic bare": 'HassTurnOn(name="Porch light")',
    "pythonic fenced": '```python\n[HassTurnOn(name="Porch light")]\n```',
    "pythonic after python_tag": '<|python_tag|>[HassTurnOn(name="Porch light")]',
    "python dict": "{'name': 'HassTurnOn', 'arguments': {'name': 'Porch light'}}",
    "trailing comma": '{"name": "HassTurnOn", "arguments": {"name": "Porch light",},}',
    "single quotes": "<tool_call>{'name': 'HassTurnOn', 'arguments': "
    "{'name': 'Porch light'}}</tool_call>",
    "comment": '{"name": "HassTurnOn", // the porch\n "arguments": '
    '{"name": "Porch light"} /* on */}',
    "end token": f'{{"name": "HassTurnOn", "arguments": {ARGS}}}<|eot_id|>',
    "fenced, end token": f'```json\n{{"name": "HassTurnOn", "arguments": {ARGS}}}\n```'
    "<|im_end|>",
}


@pytest.fixture(params=[True, False], ids=["streamed", "whole"])
async def stream(request: pytest.FixtureRequest) -> bool:
    """Whether the provider streams answers (servers may not)."""
    return bool(request.param)


@pytest.fixture
async def provider(
    fake_llm: FakeLLM, stream: bool
) -> AsyncIterator[OpenAICompatibleProvider]:
    """The real provider, streaming or not."""
    llm = OpenAICompatibleProvider(
        base_url=fake_llm.base_url, api_key=None, model=MODEL, stream=stream
    )
    await llm.async_prepare()
    yield llm
    await llm.close()


@pytest.mark.parametrize("form", WRITTEN_CALLS)
async def test_a_written_call_is_a_call_and_not_said(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, form: str, stream: bool
) -> None:
    """The call is recovered with its arguments; no piece of it reaches the speaker.

    (Reasoning before it streams as usual: the speech cleaner drops it.)
    """
    fake_llm.script([Reply.text(WRITTEN_CALLS[form], chunk_size=4)])
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "turn on the porch light"}],
        TOOLS,
        on_delta=said.append,
    )

    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("assist__HassTurnOn", {"name": "Porch light"})
    ]
    assert response.calls_from_text
    # Reasoning streams as it comes (the speech cleaner drops it); the call is held.
    before, _, call = WRITTEN_CALLS[form].rpartition("</think>")
    reasoning = before + "</think>" if call and before and stream else ""
    assert "".join(said).strip() == reasoning.strip()
    assert response.text == ""


async def test_text_before_a_written_call_is_said_at_once(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """Words before the call stream as usual; the call itself is held and recovered."""
    fake_llm.script(
        [Reply.text("Sure, one moment. " + WRITTEN_CALLS["hermes"], chunk_size=5)]
    )
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "turn on the porch light"}],
        TOOLS,
        on_delta=said.append,
    )

    assert "".join(said).rstrip() == "Sure, one moment."
    assert response.text == "Sure, one moment."
    assert [c.name for c in response.tool_calls] == ["assist__HassTurnOn"]


@pytest.mark.parametrize(
    "answer",
    [
        '<tool_call>{"name": "assist__HassTurnOn", "arguments": [1]}</tool_call>',
        "<tool_call>{not json at all</tool_call>",
        '{"temperature": 21, "unit": "C"}',  # JSON, but no call
        "Use ```ls``` to list files.",
        "[Music] playing now.",
        # JSON data with a "name" is no call of a tool we do not know.
        '{"name": "Alice", "age": 3}',
        # A call shown as an example, with words around it: an answer.
        (
            "To switch it on I would send this call: ```json\n"
            f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}\n```'
            " Shall I do that?"
        ),
        # Pythonic, but not literals only, or positional: never run.
        "HassTurnOn(name=x)",
        '[HassTurnOn(name=__import__("os").getcwd())]',
        # A call while thinking is a thought; words after a call show it.
        (
            "<think>I could call <tool_call>"
            f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}</tool_call></think>'
            "Shall I turn it on?"
        ),
        (
            "The answer opened by the template: <tool_call>"
            f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}</tool_call></think>OK?'
        ),
        f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}} is the call I would make.',
        (
            f'<tool_call>{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}</tool_call>'
            " would turn it on."
        ),
        f'{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}\nThe light is now on.',
        'HassTurnOn("Porch light")',
        "Done.",
    ],
)
async def test_text_that_is_no_offered_call_stays_the_answer(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, answer: str, stream: bool
) -> None:
    """Not a call of an offered tool: said whole, in order, no call made up."""
    fake_llm.script([Reply.text(answer, chunk_size=3)])
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "hi"}], TOOLS, on_delta=said.append
    )

    assert response.tool_calls == []
    assert not response.calls_from_text
    assert response.text == answer
    assert "".join(said) == answer


@pytest.mark.parametrize("stream", [True], ids=["streamed"])
async def test_without_tools_nothing_is_held(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider
) -> None:
    """No tools offered: JSON is just the answer, streamed as it comes."""
    fake_llm.script([Reply.text(WRITTEN_CALLS["bare json"], chunk_size=4)])
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "hi"}], [], on_delta=said.append
    )

    assert response.tool_calls == []
    assert len(said) > 1
    assert "".join(said) == WRITTEN_CALLS["bare json"]


def test_several_written_calls_are_all_recovered() -> None:
    """Two Hermes blocks, or a Mistral list of two: both calls, in order."""
    two = (
        '<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>\n'
        f'<tool_call>{{"name": "assist__HassTurnOn", "arguments": {ARGS}}}</tool_call>'
    )
    offered = [t.name for t in TOOLS]
    found = recover_tool_calls(two, offered)
    assert found is not None
    assert [c.name for c in found.calls] == ["get_weather", "assist__HassTurnOn"]
    assert found.text == ""
    ids = {c.id for c in found.calls}
    assert len(ids) == 2

    # One unknown name among them: both are calls (the loop tells the model that
    # one tool does not exist), none is spoken.
    bad = two.replace("get_weather", "rm_rf")
    found = recover_tool_calls(bad, offered)
    assert found is not None
    assert [c.name for c in found.calls] == ["rm_rf", "assist__HassTurnOn"]
    assert found.text == ""


def test_several_pythonic_calls_are_all_recovered() -> None:
    """`[f(a="x"), g()]`: both calls, in order, with JSON's words read as literals."""
    found = recover_tool_calls(
        '[HassTurnOn(name="Porch light", brightness=40, on=true), get_weather()]',
        [t.name for t in TOOLS],
    )
    assert found is not None
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("assist__HassTurnOn", {"name": "Porch light", "brightness": 40, "on": True}),
        ("get_weather", {}),
    ]


def test_an_ambiguous_short_name_is_not_guessed() -> None:
    """`HassTurnOn` ending two offered names: kept as written, for the model to fix."""
    offered = ["assist__HassTurnOn", "other__HassTurnOn"]
    found = recover_tool_calls(WRITTEN_CALLS["unprefixed name"], offered)
    assert found is not None
    assert [c.name for c in found.calls] == ["HassTurnOn"]


@pytest.mark.parametrize(
    "answer",
    [
        (
            '<tool_call>{"name": "lock_unlock", "arguments": {"name": "Front door"}}'
            "</tool_call>"
        ),
        '[TOOL_CALLS][{"name": "lock_unlock", "arguments": {"name": "Front door"}}]',
        '<|python_tag|>{"name": "lock_unlock", "parameters": {"name": "Front door"}}',
        '{"name": "lock_unlock", "arguments": {"name": "Front door"}}',
        '[lock_unlock(name="Front door")]',
    ],
)
async def test_a_well_formed_call_of_an_unoffered_tool_is_a_call(
    fake_llm: FakeLLM, provider: OpenAICompatibleProvider, answer: str
) -> None:
    """An envelope, or an answer that is only the call: a call, nothing of it said.

    (The loop answers it as an unknown tool.)
    """
    fake_llm.script([Reply.text(answer, chunk_size=3)])
    said: list[str] = []

    response = await provider.complete(
        [{"role": "user", "content": "unlock the door"}], TOOLS, on_delta=said.append
    )

    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("lock_unlock", {"name": "Front door"})
    ]
    assert said == []
    assert response.text == ""


def test_held_text_releases_what_was_no_call() -> None:
    """Held text comes back whole at the end; normal text passes at once."""
    held = HeldText()
    assert held.feed("<") == ""
    assert held.feed("b>bold</b> and [") == "<b>bold</b> and "
    assert held.feed("x] done") == "[x] done"
    assert held.release() == ""

    held = HeldText()
    assert held.feed("  ") == "  "
    assert held.feed("{") == ""
    assert held.feed('"a": 1}') == ""
    assert held.release() == '{"a": 1}'


@pytest.mark.parametrize(
    "answer",
    [
        "{" * 100_000,  # 100 kB of openings: past the size a call may have
        "[" * 5_000 + "]" * 5_000,  # nesting no parser should recurse into
        "[HassTurnOn(name=" + "[" * 3_000 + "]" * 3_000 + ")]",
        "<tool_call>" + '{"a": ' * 1_500 + "</tool_call>",
        '{"name": "HassTurnOn", "arguments": {"name": "\ud800"}, "x": ' + "1" * 30_000,
    ],
    ids=["openings", "nested list", "nested pythonic", "nested hermes", "long"],
)
def test_strange_text_is_no_call_and_no_crash(answer: str) -> None:
    """Whatever a server sends, recovery answers (no call) and never raises."""
    assert recover_tool_calls(answer, [t.name for t in TOOLS]) is None
