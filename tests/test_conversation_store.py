"""Conversations we keep ourselves: past HA's five idle minutes, restarts and reloads.

What is checked is what the LLM server is sent (the earlier turns, or not) and what
stays in the store file.
"""

import asyncio
from datetime import timedelta
import json
from pathlib import Path
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
)

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_API_KEY
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util

from custom_components.agentic_conversation.const import (
    CONF_BASE_URL,
    CONF_CONVERSATION_EXPIRY,
    CONF_DEVICE_CONTINUITY,
    CONF_MAX_CONVERSATIONS,
    CONF_MODEL,
    DOMAIN,
)
from custom_components.agentic_conversation.kept.conversation_store import SAVE_DELAY
from tests.fake_llm import MODEL, FakeLLM, Reply
from tests.helpers import speech as _speech

ENTRY_ID = "connection1"
AGENT_ID = "agent1"
STORE_KEY = f"{DOMAIN}.{ENTRY_ID}.conversations"


def _entry(server: FakeLLM, **options: Any) -> MockConfigEntry:
    return MockConfigEntry(
        domain=DOMAIN,
        entry_id=ENTRY_ID,
        minor_version=2,
        data={CONF_BASE_URL: server.base_url, CONF_API_KEY: "sk-test"},
        subentries_data=[
            ConfigSubentryData(  # type: ignore[typeddict-unknown-key]  # HA's tests set ids too
                data={CONF_MODEL: MODEL, **options},
                subentry_id=AGENT_ID,
                subentry_type="conversation",
                title="Agent",
                unique_id=None,
            )
        ],
    )


async def _setup(
    hass: HomeAssistant, server: FakeLLM, **options: Any
) -> MockConfigEntry:
    entry = _entry(server, **options)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    # the endpoint check done before a test moves the clock (the HTTP client's deadline)
    await hass.async_block_till_done(wait_background_tasks=True)
    return entry


async def _ask(
    hass: HomeAssistant,
    text: str,
    conversation_id: str | None = None,
    device_id: str | None = None,
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass,
        text,
        conversation_id,
        Context(),
        language="en",
        agent_id="conversation.agent",
        device_id=device_id,
    )


def _sent_texts(server: FakeLLM, index: int = -1) -> list[str]:
    return [
        str(m.get("content"))
        for m in server.requests[index]["messages"]
        if m["role"] in ("user", "assistant")
    ]


def _stored(hass_storage: dict[str, Any]) -> dict[str, Any]:
    conversations: dict[str, Any] = hass_storage[STORE_KEY]["data"]["agents"][AGENT_ID]
    return conversations


async def _flush(hass: HomeAssistant, freezer: FrozenDateTimeFactory) -> None:
    """Let the store's delayed save happen."""
    freezer.tick(timedelta(seconds=SAVE_DELAY + 1))
    async_fire_time_changed(hass)
    await hass.async_block_till_done()


async def test_history_outlives_has_chat_session(
    ha_core: HomeAssistant, fake_llm: FakeLLM, freezer: FrozenDateTimeFactory
) -> None:
    """After HA forgot the conversation (6 idle minutes), the same id finds ours."""
    hass = ha_core
    await _setup(hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 60})
    fake_llm.script([Reply.text("Noted: PAPAYA."), Reply.text("It was PAPAYA.")])

    first = await _ask(hass, "remember the code word PAPAYA")
    freezer.tick(timedelta(minutes=6))
    async_fire_time_changed(hass)  # HA's chat sessions expire after 5 idle minutes
    await hass.async_block_till_done()
    second = await _ask(hass, "what was the code word?", first.conversation_id)

    assert _sent_texts(fake_llm) == [
        "remember the code word PAPAYA",
        "Noted: PAPAYA.",
        "what was the code word?",
    ]
    # HA gave the conversation a new id; ours moved along with it.
    third_id = second.conversation_id
    fake_llm.script([Reply.text("Still PAPAYA.")])
    await _ask(hass, "and now?", third_id)
    assert "remember the code word PAPAYA" in _sent_texts(fake_llm)


@pytest.mark.parametrize(
    ("idle", "continues"),
    [(timedelta(minutes=9), True), (timedelta(minutes=11), False)],
)
async def test_expiry(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    freezer: FrozenDateTimeFactory,
    idle: timedelta,
    *,
    continues: bool,
) -> None:
    """Within the agent's expiry the conversation continues; past it, it starts fresh."""
    hass = ha_core
    await _setup(hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 10})
    fake_llm.script([Reply.text("Hi Anna."), Reply.text("…")])

    first = await _ask(hass, "I am Anna")
    freezer.tick(idle)
    async_fire_time_changed(hass)
    await hass.async_block_till_done()
    await _ask(hass, "who am I?", first.conversation_id)

    assert ("I am Anna" in _sent_texts(fake_llm)) is continues


async def test_two_satellites_never_share(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Same device, same conversation; another device never sees it."""
    hass = ha_core
    await _setup(hass, fake_llm, **{CONF_DEVICE_CONTINUITY: True})
    fake_llm.script(
        [Reply.text("A1"), Reply.text("B1"), Reply.text("A2"), Reply.text("B2")]
    )

    await _ask(hass, "kitchen speaking", device_id="satellite_kitchen")
    await _ask(hass, "bedroom speaking", device_id="satellite_bedroom")
    await _ask(hass, "who spoke before?", device_id="satellite_kitchen")
    await _ask(hass, "and here?", device_id="satellite_bedroom")

    assert _sent_texts(fake_llm, 2) == ["kitchen speaking", "A1", "who spoke before?"]
    assert _sent_texts(fake_llm, 3) == ["bedroom speaking", "B1", "and here?"]


async def test_without_continuity_a_device_starts_fresh(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The option is off by default: no conversation id, no history."""
    hass = ha_core
    await _setup(hass, fake_llm)
    fake_llm.script([Reply.text("A1"), Reply.text("A2")])

    await _ask(hass, "kitchen speaking", device_id="satellite_kitchen")
    await _ask(hass, "who spoke before?", device_id="satellite_kitchen")

    assert _sent_texts(fake_llm) == ["who spoke before?"]


async def test_kept_across_a_restart_of_the_entry(
    ha_core: HomeAssistant, fake_llm: FakeLLM, hass_storage: dict[str, Any]
) -> None:
    """Unloading writes the store; a new setup reads it back."""
    hass = ha_core
    entry = await _setup(hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 0})
    fake_llm.script([Reply.text("Noted."), Reply.text("PAPAYA.")])
    first = await _ask(hass, "the code word is PAPAYA")

    assert await hass.config_entries.async_unload(entry.entry_id)
    assert "the code word is PAPAYA" in str(_stored(hass_storage))
    assert await hass.config_entries.async_setup(entry.entry_id)
    await _ask(hass, "what was it?", first.conversation_id)

    assert "the code word is PAPAYA" in _sent_texts(fake_llm)


GOOD = {
    "messages": [
        {"role": "user", "content": "the code word is PAPAYA"},
        {"role": "assistant", "content": "Noted."},
    ],
    "updated": "2026-11-01T10:00:00+00:00",
    "device_id": None,
}


@pytest.mark.parametrize(
    ("envelope", "kept"),
    [
        ({"version": 1, "data": "not json at all"}, []),
        ({"version": 1, "data": {"agents": "nope"}}, []),
        ({"version": 1, "data": ["a", "list"]}, []),
        ({"version": 2, "minor_version": 1, "data": {"agents": {}}}, []),
        ({"version": 1, "minor_version": 2, "data": {"agents": {}}}, []),
        (
            {
                "version": 1,
                "minor_version": 1,
                "data": {
                    "agents": {
                        AGENT_ID: {
                            "good": GOOD,
                            "bad": {"messages": "nope", "updated": "?"},
                        }
                    }
                },
            },
            ["good"],
        ),
    ],
)
async def test_a_store_file_not_ours_is_copied_aside_with_a_repair(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    *,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    freezer: FrozenDateTimeFactory,
    envelope: dict[str, Any],
    kept: list[str],
) -> None:
    """Wrong shape, newer, one bad conversation: copied whole, a Repair, the rest kept."""
    hass = ha_core
    hass.config.config_dir = str(tmp_path)
    hass_storage[STORE_KEY] = {"key": STORE_KEY, **envelope}

    entry = await _setup(hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 0})
    fake_llm.script([Reply.text("Hello.")])
    result = await _ask(hass, "hello", "good" if kept else None)

    assert entry.state.name == "LOADED"
    assert _speech(result) == "Hello."
    copies = list((tmp_path / ".storage").glob(f"{STORE_KEY}.corrupt.*"))
    assert len(copies) == 1
    assert json.loads(copies[0].read_text()) == {
        "minor_version": 1,
        "key": STORE_KEY,
        **envelope,
    }
    assert f"copied aside to {copies[0]}" in caplog.text
    issues = [
        issue for issue in ir.async_get(hass).issues.values() if issue.domain == DOMAIN
    ]
    assert [i.translation_key for i in issues] == ["conversations_set_aside"]
    assert issues[0].translation_placeholders == {
        "path": str(tmp_path / ".storage" / STORE_KEY),
        "copy": str(copies[0]),
    }
    if kept:
        assert "the code word is PAPAYA" in _sent_texts(fake_llm)
    await _flush(hass, freezer)
    assert sorted(_stored(hass_storage)) == sorted({*kept, str(result.conversation_id)})
    assert hass_storage[STORE_KEY]["version"] == 1


async def test_a_thousand_conversations_load_and_stay_bounded(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    freezer: FrozenDateTimeFactory,
) -> None:
    """1000 kept conversations load; the agent's limit trims them on the next write."""
    hass = ha_core
    now = dt_util.utcnow().isoformat()
    hass_storage[STORE_KEY] = {
        "version": 1,
        "key": STORE_KEY,
        "data": {
            "agents": {
                AGENT_ID: {
                    f"c{i}": {
                        "messages": [
                            {"role": "user", "content": f"I am number {i}"},
                            {"role": "assistant", "content": "ok"},
                        ],
                        "updated": now,
                        "device_id": None,
                    }
                    for i in range(1000)
                },
                "removed-agent": {},
            }
        },
    }
    await _setup(
        hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 0, CONF_MAX_CONVERSATIONS: 50}
    )
    fake_llm.script([Reply.text("You are 999.")])

    await _ask(hass, "who am I?", "c999")
    await _flush(hass, freezer)

    assert "I am number 999" in _sent_texts(fake_llm)
    assert len(_stored(hass_storage)) == 50
    assert "removed-agent" not in hass_storage[STORE_KEY]["data"]["agents"]


async def test_removing_the_agent_removes_its_conversations(
    ha_core: HomeAssistant, fake_llm: FakeLLM, hass_storage: dict[str, Any]
) -> None:
    """Deleting the agent (subentry) drops what it kept from the store file."""
    hass = ha_core
    entry = await _setup(hass, fake_llm)
    fake_llm.script([Reply.text("Noted.")])
    await _ask(hass, "the code word is PAPAYA")

    assert hass.config_entries.async_remove_subentry(entry, AGENT_ID)
    await hass.async_block_till_done()
    assert await hass.config_entries.async_unload(entry.entry_id)

    assert AGENT_ID not in hass_storage[STORE_KEY]["data"]["agents"]


async def test_unencodable_text_is_answered_and_kept_across_a_restart(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    freezer: FrozenDateTimeFactory,
) -> None:
    """Lone surrogates from the user, the model's stream and its tool call: all kept."""
    hass = ha_core
    entry = await _setup(hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 0})
    fake_llm.script(
        [
            Reply.tool_calls([("no_such_tool", {"name": "Kü\udc00che"})]),
            Reply.text("Hi \ud800 there."),
        ]
    )

    first = await _ask(hass, "hello \ud800 world")

    # A call of a tool that does not exist is a failed attempt: said as such, not
    # the model's words after it.
    unknown = "I couldn't do that: there is no such action."
    assert _speech(first) == unknown
    assert _sent_texts(fake_llm)[0] == "hello \ufffd world"
    await _flush(hass, freezer)
    stored = _stored(hass_storage)[str(first.conversation_id)]["messages"]
    assert [m["content"] for m in stored if m["role"] == "user"] == [
        "hello \ufffd world"
    ]
    assert stored[-1] == {"role": "assistant", "content": unknown}
    call = stored[1]["tool_calls"][0]["function"]
    assert json.loads(call["arguments"]) == {"name": "Kü\ufffdche"}

    # A restart: the file is read back and the conversation continues.
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert await hass.config_entries.async_setup(entry.entry_id)
    fake_llm.script([Reply.text("Still \ud800 here.")])
    second = await _ask(hass, "and now?", first.conversation_id)

    assert _speech(second) == "Still \ufffd here."
    assert _sent_texts(fake_llm)[0] == "hello \ufffd world"
    assert _sent_texts(fake_llm)[-2:] == [unknown, "and now?"]
    await _flush(hass, freezer)
    stored = _stored(hass_storage)[str(first.conversation_id)]["messages"]
    assert stored[-1] == {"role": "assistant", "content": "Still \ufffd here."}


async def test_six_turns_at_once_are_all_kept(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    freezer: FrozenDateTimeFactory,
) -> None:
    """Six concurrent turns on one conversation: six replies, six exchanges kept."""
    hass = ha_core
    await _setup(hass, fake_llm, **{CONF_CONVERSATION_EXPIRY: 0})
    fake_llm.script([Reply.text("Hello.")])
    first = await _ask(hass, "hello")
    conversation_id = first.conversation_id
    fake_llm.script([Reply.text(f"Reply {n}.") for n in range(6)])

    results = await asyncio.gather(
        *(_ask(hass, f"message {n}", conversation_id) for n in range(6))
    )

    assert sorted(_speech(result) for result in results) == [
        f"Reply {n}." for n in range(6)
    ]
    assert {result.conversation_id for result in results} == {conversation_id}
    fake_llm.script([Reply.text("Done.")])
    await _ask(hass, "what did I say?", conversation_id)
    sent = _sent_texts(fake_llm)
    assert sorted(t for t in sent if t.startswith("message ")) == [
        f"message {n}" for n in range(6)
    ]
    assert sorted(t for t in sent if t.startswith("Reply ")) == [
        f"Reply {n}." for n in range(6)
    ]
    await _flush(hass, freezer)
    stored = _stored(hass_storage)[str(conversation_id)]["messages"]
    assert len(stored) == 2 * 8


async def test_the_set_aside_repair_is_acknowledged_by_its_fix(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    tmp_path: Path,
) -> None:
    """The Repair tells where the copy is; Submit removes it, the copy stays."""
    hass = ha_core
    hass.config.config_dir = str(tmp_path)
    hass_storage[STORE_KEY] = {"version": 3, "key": STORE_KEY, "data": {"agents": {}}}
    await _setup(hass, fake_llm)
    assert await async_setup_component(hass, "repairs", {})
    (issue,) = [i for i in ir.async_get(hass).issues.values() if i.domain == DOMAIN]
    flows = hass.data["repairs"]["flow_manager"]

    result = await flows.async_init(DOMAIN, context={"issue_id": issue.issue_id})
    assert result["step_id"] == "confirm"
    assert result["description_placeholders"]["copy"].startswith(
        str(tmp_path / ".storage" / f"{STORE_KEY}.corrupt.")
    )
    result = await flows.async_configure(result["flow_id"], {})

    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert ir.async_get(hass).async_get_issue(DOMAIN, issue.issue_id) is None
    assert len(list((tmp_path / ".storage").glob(f"{STORE_KEY}.corrupt.*"))) == 1
