"""Token usage as servers report it (or do not), read defensively."""

from types import SimpleNamespace
from typing import Any

import pytest

from custom_components.agentic_conversation.agent.usage import Usage, estimate, usage_of


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"usage": {"prompt_tokens": 12, "completion_tokens": 3}}, Usage(12, 3)),
        (
            SimpleNamespace(
                usage=SimpleNamespace(prompt_tokens=7, completion_tokens=0)
            ),
            Usage(7, 0),
        ),
        # A server that sends nonsense: never a negative count, never a string.
        ({"usage": {"prompt_tokens": -5, "completion_tokens": 2}}, Usage(0, 2)),
        ({"usage": {"prompt_tokens": "12", "completion_tokens": 3}}, None),
        ({"usage": None}, None),
        ({"choices": []}, None),
        (SimpleNamespace(usage=SimpleNamespace(prompt_tokens=None)), None),
    ],
)
def test_usage_of(raw: Any, expected: Usage | None) -> None:
    """The server's figures when they are whole numbers; else none."""
    assert usage_of(raw) == expected


def test_estimate_counts_text_not_images() -> None:
    """About four characters a token, rounded up; an image part counts nothing."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},  # 9
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Who is it?"},  # 10
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/jpeg;base64," + "A" * 4000},
                },
            ],
        },
    ]

    assert estimate(messages, "A postman.") == Usage(5, 3, estimated=True)
