"""A real `hass` process, a real client, a real LLM server process (see story.py)."""

import base64
from typing import Any

import pytest

from custom_components.agentic_conversation.words.speech import clean_for_speech
from tests.e2e import LLAMA_GROUP, ensure_llama_or_skip, run_story

pytestmark = [pytest.mark.e2e, LLAMA_GROUP]


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The scripted-server story, run once for this module."""
    return run_story(tmp_path_factory.mktemp("e2e"))


def test_an_action_turns_the_light_on_and_says_so(story: dict[str, Any]) -> None:
    """(a) "turn on the porch light": the light is on, the reply says so."""
    assert story["turn_on"]["light"] == "on"
    assert story["turn_on"]["speech"] == "The porch light is on."
    assert story["turn_on"]["response_type"] == "action_done"
    assert any(name.endswith("HassTurnOn") for name in story["offered_tools"])
    # Under its own name or renamed by HA (how depends on the release): never parse it.
    assert any(name.endswith("search_entities") for name in story["offered_tools"])


def test_a_follow_up_uses_the_history(story: dict[str, Any]) -> None:
    """(b) "turn it off again" in the same conversation: the model saw the first turn."""
    follow_up = story["follow_up"]
    assert follow_up["conversation_id"] == story["turn_on"]["conversation_id"]
    assert follow_up["light"] == "off"
    history = follow_up["sent_history"]
    assert [m["role"] for m in history] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert history[1]["content"] == "turn on the porch light"
    assert history[2]["tool_calls"][0]["id"] == history[3]["tool_call_id"] == "call_on"
    assert history[-1]["content"] == "turn it off again"


def test_a_killed_llm_server_is_still_answered_out_loud(story: dict[str, Any]) -> None:
    """(c) The server process is killed: spoken text with an error code; HA runs on."""
    killed = story["server_killed"]
    assert killed["speech"] == (
        "I can't reach the AI service right now. Please check that it is running."
    )
    assert killed["response_type"] == "error"
    assert killed["code"] == "unknown"
    assert story["still_running"] == "API running."
    assert story["hass_alive_at_end"]
    assert story["hass_errors"] == []


def test_a_conversation_outlives_a_restart(story: dict[str, Any]) -> None:
    """(e) HA restarts; "turn it off" in the same conversation knows what "it" was."""
    after = story["after_restart"]
    assert after["light_before"] == "on"
    assert after["light"] == "off"
    assert after["speech"] == "Off."
    users = [m["content"] for m in after["sent_history"] if m["role"] == "user"]
    assert users == ["switch on the porch light", "turn it off"]
    assert any(m.get("tool_calls") for m in after["sent_history"])


def test_the_satellite_hears_every_answer(story: dict[str, Any]) -> None:
    """(d) Through the pipeline to a streaming TTS: what it was asked to say."""
    answer = story["pipeline_turn_on"]
    assert answer["light"] == "on"
    assert answer["events"][-3:] == ["tts-start", "tts-end", "run-end"]
    # The text before the tool call is spoken too, then the answer.
    assert answer["heard"] == (
        "Sure. The porch light is on again, and it looks lovely tonight."
    )
    follow_up = story["pipeline_follow_up"]
    assert follow_up["conversation_id"] == answer["conversation_id"]
    assert follow_up["light"] == "off"
    assert follow_up["heard"] == "It's off."
    users = [m["content"] for m in follow_up["sent_history"] if m["role"] == "user"]
    assert users == ["turn on the porch light", "and off again"]
    # With the LLM server gone, Home Assistant's own agent does the command (local
    # route, on by default) and the satellite hears that, with the preface.
    failure = story["server_killed_pipeline"]
    assert failure["heard"] == failure["speech"]
    assert failure["heard"].startswith(
        "The AI service isn't available, so I used the basic assistant:"
    )
    assert failure["light"] == "on"


def test_a_server_down_at_start_up_then_back(story: dict[str, Any]) -> None:
    """HA restarts with the LLM server down; the server returns later.

    The agent is there and does the command through HA's own agent, its route
    `down`; once the server answers, the route is `ok` and the model answers.
    """
    down = story["boot_down"]
    assert down["agent_state"] not in (None, "unavailable")
    assert down["route"] == "down"
    assert down["reason"].startswith("the server did not answer at start-up: ")
    assert down["light_before"] == "off"
    assert down["light"] == "on"
    assert down["speech"] == (
        "The AI service isn't available, so I used the basic assistant:"
        " Turned on the light"
    )
    assert down["response_type"] == "action_done"
    assert down["conversation_id"]
    # The satellite's pipeline, with the agent as its conversation engine, hears it.
    piped = story["boot_down_pipeline"]
    assert piped["light"] == "off"
    assert (
        piped["heard"]
        == piped["speech"]
        == (
            "The AI service isn't available, so I used the basic assistant:"
            " Turned off the light"
        )
    )
    back = story["server_back"]
    assert back["route"] == "ok"
    assert back["speech"] == "I'm back."
    assert back["sent"] == [["are you back?"]]
    assert story["hass_errors"] == []


def test_our_tools_over_mcp_keep_exposure_and_the_allow_list(
    story: dict[str, Any],
) -> None:
    """An MCP client on /api/mcp/agentic_conversation, with the user's token."""
    assert story["mcp_flow"] == "create_entry"  # the MCP server's config flow
    assert story["mcp_without_token"] == 401
    assert story["mcp_server_name"] == "home-assistant"
    # Our tools under their own names: one API per endpoint, nothing to rename; no
    # memory tools (an MCP client has no agent memory).
    assert set(story["mcp_tools"]) == {
        "search_entities",
        "get_entity_state",
        "call_service",
        "get_weather",
    }
    # Only exposed entities are found …
    search = story["mcp_search"]
    assert not search["is_error"]
    assert [e["entity_id"] for e in search["data"]["entities"]] == ["light.porch_light"]
    assert story["mcp_search_cellar"]["data"]["entities"] == []
    # … and controlled.
    assert story["mcp_porch_before"] == "off"
    assert not story["mcp_turn_on"]["is_error"]
    assert story["mcp_turn_on"]["data"]["success"] is True
    assert story["mcp_porch_after"] == "on"
    hidden = story["mcp_hidden"]
    assert hidden["is_error"]
    assert hidden["data"]["error"] == "Unknown target: light.cellar_light."
    assert story["mcp_cellar_after"] == "off"
    # Outside the allow-list (an MCP client gets the default one): refused.
    unlock = story["mcp_unlock"]
    assert unlock["is_error"]
    assert unlock["data"]["error"] == "lock.unlock is not allowed for this assistant."
    assert story["mcp_lock_after"] == "locked"
    # Allowed but risky: no one to ask for a yes, so refused.
    garage = story["mcp_open_garage"]
    assert garage["is_error"]
    assert "cannot ask for" in garage["data"]["error"]
    assert story["mcp_garage_after"] == "closed"
    assert story["hass_errors"] == []


@pytest.fixture(scope="module")
def llama_story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The story against the real llama.cpp server with SmolLM2 (built once)."""
    ensure_llama_or_skip()
    return run_story(tmp_path_factory.mktemp("e2e-llama"), "--llama")


def test_a_real_llama_cpp_server_answers_with_tools_offered(
    llama_story: dict[str, Any],
) -> None:
    """SmolLM2 on llama-server: a turn with tools offered ends in the model's words."""
    hello = llama_story["llama_hello"]
    assert hello["response_type"] == "action_done", hello
    # What went over the wire (recorded by a proxy in front of llama-server).
    turn = llama_story["llama_turn"]
    assert turn, "the agent never asked the server"
    assert turn[0]["users"] == ["Say hello in one short sentence."]
    assert turn[0]["tool_choice"] == "auto"
    assert any(name.endswith("HassTurnOn") for name in turn[0]["tools"])
    assert any(name.endswith("call_service") for name in turn[0]["tools"])
    # The user hears the model's own words, not a fallback.
    assert turn[-1]["answer"].strip()
    assert hello["speech"] == clean_for_speech(turn[-1]["answer"]).strip()
    assert llama_story["hass_errors"] == []


def test_an_automation_gets_structured_data_from_a_camera_snapshot(
    story: dict[str, Any],
) -> None:
    """(f) ai_task.generate_data with a structure and the door camera's snapshot."""
    assert story["ai_task_created"] == "create_entry"
    assert story["ai_task_event"] == {"visitor": "a postman", "carries_parcel": True}
    text, image = story["ai_task_request"]["user_content"]
    assert text == {"type": "text", "text": "Who is at the door?"}
    assert image["type"] == "image_url"
    assert image["image_url"]["url"] == (
        "data:image/jpeg;base64,"
        + base64.b64encode(
            b"\xff\xd8\xff\xe0 the front door, a postman with a parcel"
        ).decode()
    )
    response_format = story["ai_task_request"]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"]["properties"] == {
        "visitor": {"type": "string"},
        "carries_parcel": {"type": "boolean"},
    }
    # The scripted server's usage, on the task's sensors.
    assert story["ai_task_tokens"] == ["900", "25"]
