"""The agent core's pure parts: messages, envelopes, records, error classification."""

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from custom_components.agentic_conversation import agent
from custom_components.agentic_conversation.agent import (
    LLMBadResponseError,
    LLMConnectionError,
    LLMError,
    LLMServerError,
    LLMTimeoutError,
    ToolCall,
    ToolSpec,
    UnknownToolError,
)
from custom_components.agentic_conversation.agent.composition import summarize
from custom_components.agentic_conversation.agent.messages import (
    arguments_to_wire,
    assistant_message,
    canonical_arguments,
    parse_arguments,
    with_system_prompt,
)
from custom_components.agentic_conversation.agent.openai_errors import (
    classify,
    from_status,
)
from custom_components.agentic_conversation.agent.openai_response import StreamAssembler
from custom_components.agentic_conversation.agent.tool_calls import (
    ToolCallRecord,
    error_envelope,
    execute_tool_call,
    success_envelope,
    truncate,
)


def test_public_api() -> None:
    """The names the HA layer codes against are exported."""
    for name in (
        "AgenticLoop",
        "LLMProvider",
        "LLMResponse",
        "LoopEvent",
        "LoopLimits",
        "LoopResult",
        "OpenAICompatibleProvider",
        "StopReason",
        "ToolDispatcher",
        "ToolHeldError",
        "ToolValidationError",
        "UnknownToolError",
    ):
        assert name in agent.__all__
        assert hasattr(agent, name)
    assert agent.LoopLimits() == agent.LoopLimits(
        max_iterations=10,
        tool_timeout=10.0,
        turn_timeout=60.0,
        max_tool_result_chars=8000,
        context_tokens=None,
        answer_tokens=0,
    )
    assert [r.value for r in agent.StopReason] == [
        "final",
        "iteration_cap",
        "deadline",
        "cancelled",
        "llm_error",
        "refused",
        "cut_off",
        "confirmation",
        "context_too_small",
    ]


def test_no_homeassistant_imports() -> None:
    """The core stays HA-free (the HA layer imports it, not the reverse)."""
    modules = sorted(Path(agent.__file__).parent.glob("*.py"))
    assert len(modules) >= 12
    for module in modules:
        for line in module.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]):
                assert not words[1].startswith("homeassistant"), module.name


def test_tool_spec_to_openai() -> None:
    """The chat-completions tools entry."""
    tool = ToolSpec("light", "Turns lights on.", {"type": "object"})
    assert tool.to_openai() == {
        "type": "function",
        "function": {
            "name": "light",
            "description": "Turns lights on.",
            "parameters": {"type": "object"},
        },
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, {}),
        ("", {}),
        ("  ", {}),
        ({"a": 1}, {"a": 1}),
        ('{"a": 1}', {"a": 1}),
        (json.dumps('{"a": 1}'), {"a": 1}),
        (
            json.dumps(json.dumps(json.dumps({"a": 1}))),
            json.dumps(json.dumps(json.dumps({"a": 1}))),
        ),
        ("{a: 1}", "{a: 1}"),
        ("3", "3"),
        ([1], "[1]"),
        (json.dumps("{bad"), json.dumps("{bad")),
    ],
)
def test_parse_arguments(raw: Any, expected: Any) -> None:
    """Objects parse; JSON in a string unwraps once; the rest stays raw text."""
    assert parse_arguments(raw) == expected


def test_wire_and_canonical_arguments() -> None:
    """Dicts go out as JSON, raw text as "{}"; the canonical key ignores key order."""
    assert arguments_to_wire({"é": 1}) == '{"é": 1}'
    assert arguments_to_wire("{bad") == "{}"
    assert canonical_arguments({"b": 1, "a": 2}) == canonical_arguments(
        {"a": 2, "b": 1}
    )
    assert canonical_arguments("{bad") == "{bad"
    assert assistant_message("hi") == {"role": "assistant", "content": "hi"}


def test_with_system_prompt() -> None:
    """The prompt goes first and replaces any system message; the input is kept."""
    history = [{"role": "system", "content": "old"}, {"role": "user", "content": "u"}]
    assert with_system_prompt(history, "new") == [
        {"role": "system", "content": "new"},
        {"role": "user", "content": "u"},
    ]
    assert with_system_prompt(history, None) == history
    assert with_system_prompt(history, None) is not history
    assert history[0]["content"] == "old"


def test_envelopes() -> None:
    """Success and error envelopes are JSON; long text is cut with a marker."""
    assert json.loads(success_envelope({"on": True}, 100)) == {
        "success": True,
        "result": {"on": True},
    }
    cut = json.loads(success_envelope(list(range(100)), 10))
    assert cut["truncated"] is True
    assert cut["result"].startswith("[0, 1, 2,")
    assert cut["result"].endswith("chars]")
    assert json.loads(error_envelope("bad", 100, hint="fix")) == {
        "success": False,
        "error": "bad",
        "hint": "fix",
    }
    assert truncate("abcdef", 3) == "abc…[truncated 3 chars]"
    assert truncate("abc", 3) == "abc"


async def test_execute_tool_call_odd_results() -> None:
    """Non-JSON results: objects become text, circular ones an error envelope."""
    circular: list[Any] = []
    circular.append(circular)

    async def dispatch(name: str, arguments: dict[str, Any]) -> Any:
        return {"when": asyncio} if name == "odd" else circular

    odd = await execute_tool_call(
        ToolCall("1", "odd", {}),
        dispatch,
        {"odd"},
        tool_timeout=1,
        max_result_chars=100,
    )
    assert odd.ok
    assert "module" in json.loads(odd.result)["result"]["when"]
    unserialisable = await execute_tool_call(
        ToolCall("2", "circular", {}),
        dispatch,
        {"circular"},
        tool_timeout=1,
        max_result_chars=100,
    )
    assert not unserialisable.ok
    assert "could not be serialised" in json.loads(unserialisable.result)["error"]


async def test_execute_tool_call_own_timeout_error() -> None:
    """A TimeoutError raised by the tool itself is not mistaken for our timeout."""

    async def dispatch(name: str, arguments: dict[str, Any]) -> Any:
        raise TimeoutError

    record = await execute_tool_call(
        ToolCall("1", "t", {}), dispatch, {"t"}, tool_timeout=10, max_result_chars=100
    )
    assert record.error == "TimeoutError: the tool timed out"


def _record(name: str, *, ok: bool, repeated: bool = False) -> ToolCallRecord:
    return ToolCallRecord(
        "id", name, {}, ok, None if ok else "x", 0, "{}", 0, 0, repeated
    )


def test_summarize() -> None:
    """What was done, counted; what failed; repeats not counted twice."""
    records = [
        _record("light", ok=True),
        _record("light", ok=True),
        _record("light", ok=True, repeated=True),
        _record("lock", ok=False),
    ]
    assert summarize(records) == (
        "I couldn't finish this request within the steps allowed."
        " Done: light (2 times). Not done: lock."
    )
    assert summarize([]).endswith("Nothing was done.")


def test_llm_errors() -> None:
    """Kinds, attributes, a readable repr; the tool errors."""
    error = LLMServerError("HTTP 500: boom", status_code=500)
    assert error.kind == "server"
    assert str(error) == "HTTP 500: boom"
    assert repr(error) == (
        "LLMServerError('HTTP 500: boom', status_code=500, retry_after=None)"
    )
    assert str(LLMTimeoutError()) == "LLMTimeoutError"
    assert LLMError.kind == "llm"
    kinds = [cls.kind for cls in LLMError.__subclasses__()]
    assert len(kinds) == len(set(kinds)) == 9
    unknown = UnknownToolError("x")
    assert unknown.name == "x"


def _request() -> httpx2.Request:
    return httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")


def test_classify_odd_errors() -> None:
    """Errors the fake server cannot easily produce."""
    own = LLMServerError("x")
    assert classify(own) is own
    validation = openai.APIResponseValidationError(
        httpx2.Response(200, request=_request()), body=None
    )
    assert isinstance(classify(validation), LLMBadResponseError)
    assert isinstance(classify(httpx2.ReadTimeout("slow")), LLMTimeoutError)
    assert isinstance(classify(TimeoutError()), LLMTimeoutError)
    reset = classify(ConnectionResetError("reset"))
    assert isinstance(reset, LLMConnectionError)
    assert "broke: reset" in str(reset)
    bare = classify(openai.APIConnectionError(request=_request()))
    assert str(bare) == "cannot reach the LLM server"
    generic = classify(openai.OpenAIError("Missing credentials"))
    assert type(generic) is LLMError
    assert "Missing credentials" in str(generic)
    status = openai.APIStatusError(
        "Error code: 502",
        response=httpx2.Response(502, request=_request()),
        body="bad gateway",
    )
    assert str(classify(status)) == "HTTP 502: bad gateway"
    nested = openai.APIStatusError(
        "Error code: 400",
        response=httpx2.Response(400, request=_request()),
        body={"error": {"message": "nested"}},
    )
    assert str(classify(nested)) == "HTTP 400: nested"
    opaque = openai.APIStatusError(
        "Error code: 400", response=httpx2.Response(400, request=_request()), body=None
    )
    assert str(classify(opaque)) == "HTTP 400: Error code: 400"
    assert isinstance(from_status(302, "moved"), LLMBadResponseError)


def test_stream_assembler_odd_chunks() -> None:
    """Chunks without choices or delta are skipped; a tool call without function too."""

    class Obj:
        def __init__(self, **kwargs: Any) -> None:
            self.__dict__.update(kwargs)

    assembler = StreamAssembler()
    assert assembler.add(Obj()) == ""
    assert assembler.add(Obj(choices=[Obj(finish_reason=None, delta=None)])) == ""
    fragment = Obj(index=0, id="a", function=None)
    assembler.add(
        Obj(choices=[Obj(finish_reason="stop", delta=Obj(tool_calls=[fragment]))])
    )
    response = assembler.response()
    assert response.tool_calls == [ToolCall("a", "", {})]
    assert response.finish_reason == "stop"
