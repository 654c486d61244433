"""The README's sentences on the dev server's configuration with the built-in model.

A new user's first minutes: `scripts/develop` (the demo home, SmolLM2 that cannot call
tools) and `scripts/chat "turn on the kitchen lights"`. Every sentence gets a reply that
is not an error, in one way HA's websocket API accepts, and the lights really change.
"""

from typing import Any

import pytest

from tests.e2e import LLAMA_GROUP, ensure_llama_or_skip, run_story

pytestmark = [pytest.mark.e2e, LLAMA_GROUP]


@pytest.fixture(scope="module")
def dev_server(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The dev server story, run once (skipped where llama.cpp cannot be installed)."""
    ensure_llama_or_skip()
    return run_story(
        tmp_path_factory.mktemp("devserver"), story="tests.e2e.dev_server_story"
    )


def test_every_sentence_gets_a_reply_and_the_lights_change(
    dev_server: dict[str, Any],
) -> None:
    """hello, on, the time, a joke, off: answers, one conversation id each, lights."""
    replies = {r["text"]: r for r in dev_server["replies"]}
    for reply in replies.values():
        assert reply["response_type"] != "error", reply
        assert reply["speech"].strip(), reply
        assert reply["conversation_id"], reply
    # The model cannot act: Home Assistant's own agent did, in its own words.
    assert replies["turn on the kitchen lights"]["speech"] == "Turned on the light"
    assert replies["turn on the kitchen lights"]["lights"] == "on"
    assert replies["turn off the kitchen lights"]["speech"] == "Turned off the light"
    assert replies["turn off the kitchen lights"]["lights"] == "off"
    assert dev_server["tracebacks"] == []
    assert dev_server["hass_errors"] == []


def test_the_pipeline_answers_too(dev_server: dict[str, Any]) -> None:
    """`scripts/chat --pipeline`: no "Unable to get response", a conversation id."""
    output = dev_server["pipeline_output"]
    assert "error" not in dev_server["pipeline_events"]
    assert output["response"]["response_type"] == "action_done"
    assert output["response"]["speech"]["plain"]["speech"] == "Turned on the light"
    assert output["conversation_id"]
