"""Household memory: remember, forget, recall by voice; the To-do list; the prompt."""

import json
from pathlib import Path
from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.config_entries import ConfigSubentryDataWithId
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import issue_registry as ir, llm
from homeassistant.setup import async_setup_component

from custom_components.agentic_conversation.const import (
    COMPACT_API_ID,
    CONF_BASE_URL,
    CONF_ENABLED_TOOLS,
    CONF_EXTRA_HEADERS,
    CONF_MEMORY_SHARED,
    CONF_MODEL,
    DOMAIN,
    LLM_API_ID,
)
from custom_components.agentic_conversation.kept import memory as memory_module
from custom_components.agentic_conversation.kept.memory import Fact, facts_prompt
from custom_components.agentic_conversation.tools.memory import (
    NOT_OUR_AGENT,
    RecallTool,
    RememberTool,
)
from tests.fake_llm import MODEL, FakeLLM, Reply

ENTRY_ID = "memory_test_entry"
STORE_KEY = f"{DOMAIN}.memory.{ENTRY_ID}"
BINS = "The bins go out on Thursday."
VEGETARIAN = "Anna is vegetarian."


async def _connection(
    hass: HomeAssistant, server: FakeLLM, **agents: dict[str, Any]
) -> MockConfigEntry:
    """A loaded connection with these agents (title → extra options)."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        entry_id=ENTRY_ID,
        minor_version=2,
        data={CONF_BASE_URL: server.base_url},
        subentries_data=[
            ConfigSubentryDataWithId(
                data={CONF_MODEL: MODEL, CONF_LLM_HASS_API: [LLM_API_ID], **options},
                subentry_type="conversation",
                title=title,
                subentry_id=title,
                unique_id=None,
            )
            for title, options in (agents or {"Kitchen": {}}).items()
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


async def _ask(
    hass: HomeAssistant,
    server: FakeLLM,
    text: str,
    *,
    agent: str = "kitchen",
    user_id: str | None = None,
    conversation_id: str | None = None,
    extra_system_prompt: str | None = None,
) -> str:
    """Say something to an agent; the system prompt the model got for it."""
    before = len(server.requests)
    await conversation.async_converse(
        hass,
        text,
        conversation_id,
        Context(user_id=user_id),
        language="en",
        agent_id=f"conversation.{agent}",
        extra_system_prompt=extra_system_prompt,
    )
    await hass.async_block_till_done()
    return str(server.requests[before]["messages"][0]["content"])


async def _ask_tool(
    hass: HomeAssistant,
    server: FakeLLM,
    tool: str,
    args: dict[str, Any],
    *,
    agent: str = "kitchen",
    user_id: str | None = None,
) -> dict[str, Any]:
    """A turn in which the model calls one tool; the result envelope it got back."""
    server.script([Reply.tool_calls([(tool, args)]), Reply.text("Okay.")])
    await _ask(hass, server, f"please {tool}", agent=agent, user_id=user_id)
    message = server.requests[-1]["messages"][-1]
    assert message["role"] == "tool"
    envelope: dict[str, Any] = json.loads(message["content"])
    return envelope


async def _prompt(
    hass: HomeAssistant,
    server: FakeLLM,
    *,
    agent: str = "kitchen",
    user_id: str | None = None,
) -> str:
    """The system prompt of a new conversation with the agent."""
    server.script([Reply.text("Sure.")])
    return await _ask(hass, server, "hello", agent=agent, user_id=user_id)


async def _items(hass: HomeAssistant, agent: str = "kitchen") -> list[dict[str, Any]]:
    """The items of an agent's memory list, as HA's To-do service gives them."""
    entity_id = f"todo.{agent}_memory"
    response = await hass.services.async_call(
        "todo",
        "get_items",
        {},
        target={"entity_id": entity_id},
        blocking=True,
        return_response=True,
    )
    assert response is not None
    found: Any = response[entity_id]
    items: list[dict[str, Any]] = found["items"]
    return items


async def _todo(
    hass: HomeAssistant, service: str, agent: str = "kitchen", **data: Any
) -> None:
    await hass.services.async_call(
        "todo",
        service,
        data,
        target={"entity_id": f"todo.{agent}_memory"},
        blocking=True,
    )
    await hass.async_block_till_done()


async def test_a_remembered_fact_is_in_every_new_conversation(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Remember by voice: the next conversation's prompt and the To-do list have it."""
    hass = ha_core
    await _connection(hass, fake_llm)
    assert BINS not in await _prompt(hass, fake_llm)

    envelope = await _ask_tool(hass, fake_llm, "remember", {"fact": BINS})

    assert envelope["success"] is True
    assert envelope["result"]["remembered"]["fact"] == BINS
    offered = {tool["function"]["name"] for tool in fake_llm.requests[-1]["tools"]}
    assert {"remember", "forget", "recall"} <= offered
    prompt = await _prompt(hass, fake_llm)
    assert f"- {BINS}" in prompt
    assert "save it with remember" in prompt
    assert [item["summary"] for item in await _items(hass)] == [BINS]
    state = hass.states.get("todo.kitchen_memory")
    assert state is not None
    assert state.state == "1"
    assert state.name == "Kitchen Memory"

    # The same fact again is not kept twice.
    envelope = await _ask_tool(hass, fake_llm, "remember", {"fact": BINS.upper()})
    assert envelope["result"]["note"] == "This was already remembered."
    assert len(await _items(hass)) == 1


async def test_editing_the_todo_list_changes_the_next_prompt(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Add, rename, check off and delete items: each next turn sees the change."""
    hass = ha_core
    await _connection(hass, fake_llm)
    await _todo(hass, "add_item", item=VEGETARIAN)
    fake_llm.script([Reply.text("Noted.")])
    prompt = await _ask(
        hass, fake_llm, "hi", conversation_id="c1", extra_system_prompt="Be terse."
    )
    assert VEGETARIAN in prompt
    assert "Be terse." in prompt

    await _todo(hass, "update_item", item=VEGETARIAN, rename="Anna is vegan.")
    fake_llm.script([Reply.text("Noted.")])
    # The same conversation: the new words, and the caller's extra prompt still there.
    prompt = await _ask(hass, fake_llm, "and now?", conversation_id="c1")
    assert "Anna is vegan." in prompt
    assert VEGETARIAN not in prompt
    assert "Be terse." in prompt

    await _todo(hass, "remove_item", item=["Anna is vegan."])
    fake_llm.script([Reply.text("Noted.")])
    prompt = await _ask(hass, fake_llm, "and now?", conversation_id="c1")
    assert "vegan" not in prompt
    assert "remember about" not in prompt
    assert "Be terse." in prompt
    assert await _items(hass) == []

    # Checking an item off forgets it.
    await _todo(hass, "add_item", item=BINS)
    await _todo(hass, "update_item", item=BINS, status="completed")
    assert await _items(hass) == []
    assert BINS not in await _prompt(hass, fake_llm)


async def test_personal_facts_are_only_for_their_user(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A fact about Anna reaches Anna's turns only; nobody else can list or forget it."""
    hass = ha_core
    anna = await hass.auth.async_create_user("Anna")
    bob = await hass.auth.async_create_user("Bob")
    await _connection(hass, fake_llm)

    envelope = await _ask_tool(
        hass,
        fake_llm,
        "remember",
        {"fact": "Likes the coffee black.", "scope": "user"},
        user_id=anna.id,
    )
    assert envelope["result"]["remembered"]["scope"] == "user"
    await _ask_tool(hass, fake_llm, "remember", {"fact": BINS}, user_id=anna.id)

    anna_prompt = await _prompt(hass, fake_llm, user_id=anna.id)
    assert (
        "about the user you are talking to:\n- Likes the coffee black." in anna_prompt
    )
    assert BINS in anna_prompt
    for other in (bob.id, None):
        prompt = await _prompt(hass, fake_llm, user_id=other)
        assert "coffee" not in prompt
        assert BINS in prompt

    envelope = await _ask_tool(hass, fake_llm, "recall", {}, user_id=bob.id)
    assert [f["fact"] for f in envelope["result"]["facts"]] == [BINS]
    envelope = await _ask_tool(
        hass, fake_llm, "recall", {"scope": "user"}, user_id=anna.id
    )
    assert [f["fact"] for f in envelope["result"]["facts"]] == [
        "Likes the coffee black."
    ]
    envelope = await _ask_tool(
        hass, fake_llm, "forget", {"text": "coffee"}, user_id=bob.id
    )
    assert envelope["success"] is False
    # No HA user (a voice satellite): nothing personal to keep.
    envelope = await _ask_tool(
        hass, fake_llm, "remember", {"fact": "Likes tea.", "scope": "user"}
    )
    assert envelope["success"] is False
    assert "not a known Home Assistant user" in envelope["error"]

    items = await _items(hass)
    assert [(i["summary"], i.get("description")) for i in items] == [
        (BINS, None),
        ("Likes the coffee black.", "Anna"),
    ]


async def test_a_fact_over_the_limit_is_refused_and_not_stored(
    ha_core: HomeAssistant, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Too long or too many: a clear error, by voice and in the To-do list."""
    hass = ha_core
    await _connection(hass, fake_llm)

    envelope = await _ask_tool(hass, fake_llm, "remember", {"fact": "x" * 201})

    assert envelope["success"] is False
    assert "201 characters long; the limit is 200" in envelope["error"]
    assert await _items(hass) == []
    assert "remember about" not in await _prompt(hass, fake_llm)
    with pytest.raises(ServiceValidationError) as err:
        await _todo(hass, "add_item", item="y" * 250)
    assert err.value.translation_key == "memory_fact_too_long"
    # The user reads it in their language (here English, from our translations).
    assert "The fact is 250 characters long; the limit is 200" in str(err.value)

    monkeypatch.setattr(memory_module, "MAX_FACTS", 1)
    await _todo(hass, "add_item", item=BINS)
    with pytest.raises(ServiceValidationError, match="The memory is full"):
        await _todo(hass, "add_item", item=VEGETARIAN)
    envelope = await _ask_tool(hass, fake_llm, "remember", {"fact": VEGETARIAN})
    assert envelope["success"] is False
    assert "memory is full" in envelope["error"]
    assert [item["summary"] for item in await _items(hass)] == [BINS]


async def test_forget_and_recall_by_voice(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Forget by words or id; several matches are listed, not guessed."""
    hass = ha_core
    await _connection(hass, fake_llm)
    for fact in (BINS, VEGETARIAN, "Anna is allergic to nuts."):
        await _todo(hass, "add_item", item=fact)

    envelope = await _ask_tool(hass, fake_llm, "recall", {})
    facts = envelope["result"]["facts"]
    assert [f["fact"] for f in facts] == [
        "Anna is allergic to nuts.",
        VEGETARIAN,
        BINS,
    ]
    envelope = await _ask_tool(hass, fake_llm, "forget", {"text": "Anna"})
    assert envelope["success"] is False
    assert "nothing was forgotten" in envelope["error"]
    envelope = await _ask_tool(
        hass, fake_llm, "forget", {"text": "that Anna is a vegetarian"}
    )
    assert envelope["result"]["forgot"]["fact"] == VEGETARIAN
    envelope = await _ask_tool(hass, fake_llm, "forget", {"id": facts[0]["id"]})
    assert envelope["result"]["forgot"]["fact"] == "Anna is allergic to nuts."
    envelope = await _ask_tool(hass, fake_llm, "forget", {"id": "nope"})
    assert envelope["success"] is False
    envelope = await _ask_tool(hass, fake_llm, "forget", {"text": "garage code"})
    assert envelope["success"] is False
    envelope = await _ask_tool(hass, fake_llm, "forget", {})
    assert envelope["success"] is False

    envelope = await _ask_tool(hass, fake_llm, "recall", {"query": "bins"})
    assert [f["fact"] for f in envelope["result"]["facts"]] == [BINS]
    assert [item["summary"] for item in await _items(hass)] == [BINS]
    envelope = await _ask_tool(hass, fake_llm, "forget", {"text": BINS})
    envelope = await _ask_tool(hass, fake_llm, "recall", {})
    assert envelope["result"] == {
        "facts": [],
        "note": "Nothing is remembered that fits.",
    }


async def test_one_agents_memory_is_not_anothers_unless_both_share(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Private memories stay with their agent; sharing agents see one memory."""
    hass = ha_core
    await _connection(
        hass,
        fake_llm,
        Kitchen={},
        Office={},
        Hall={CONF_MEMORY_SHARED: True},
        Garden={CONF_MEMORY_SHARED: True},
    )
    await _todo(hass, "add_item", agent="kitchen", item=BINS)
    await _ask_tool(hass, fake_llm, "remember", {"fact": VEGETARIAN}, agent="hall")

    assert BINS in await _prompt(hass, fake_llm, agent="kitchen")
    assert BINS not in await _prompt(hass, fake_llm, agent="office")
    assert VEGETARIAN not in await _prompt(hass, fake_llm, agent="office")
    assert VEGETARIAN not in await _prompt(hass, fake_llm, agent="kitchen")
    garden = await _prompt(hass, fake_llm, agent="garden")
    assert VEGETARIAN in garden
    assert BINS not in garden
    assert [i["summary"] for i in await _items(hass, "garden")] == [VEGETARIAN]
    assert await _items(hass, "office") == []


async def _mcp(client: Any, api_id: str, method: str, **params: Any) -> Any:
    """One JSON-RPC request to HA's MCP server for one LLM API; its result."""
    resp = await client.post(
        f"/api/mcp/{api_id}",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={"Accept": "application/json"},
    )
    assert resp.status == 200, await resp.text()
    body = await resp.json()
    assert "error" not in body, body
    return body["result"]


async def test_memory_tools_are_offered_only_where_there_is_a_memory(
    ha_core: HomeAssistant, fake_llm: FakeLLM, hass_client: ClientSessionGenerator
) -> None:
    """Our agent gets remember/forget/recall; an MCP client and other agents do not."""
    hass = ha_core
    await _connection(hass, fake_llm)
    assert await async_setup_component(hass, "mcp_server", {})
    client = await hass_client()

    await _prompt(hass, fake_llm)
    offered = {tool["function"]["name"] for tool in fake_llm.requests[-1]["tools"]}
    assert {"remember", "forget", "recall"} <= offered

    # HA's MCP server (/api/mcp/<api id>), as an MCP client lists the tools.
    listed = await _mcp(client, LLM_API_ID, "tools/list")
    assert {tool["name"] for tool in listed["tools"]} == {
        "search_entities",
        "get_entity_state",
        "call_service",
        "get_weather",
    }
    compact = await _mcp(client, COMPACT_API_ID, "tools/list")
    compact_names = {tool["name"] for tool in compact["tools"]}
    assert "search_entities" in compact_names
    assert compact_names.isdisjoint({"remember", "forget", "recall"})
    # Called by name anyway: nothing is kept.
    called = await _mcp(
        client, LLM_API_ID, "tools/call", name="remember", arguments={"fact": BINS}
    )
    assert called["isError"] is True
    assert await _items(hass) == []

    # Another integration's agent using our API: neither tools nor their prompt.
    context = llm.LLMContext(
        platform="other",
        context=Context(),
        language="en",
        assistant="conversation",
        device_id=None,
    )
    api = await llm.async_get_api(hass, LLM_API_ID, context)
    assert "remember" not in api.api_prompt
    assert [tool.name for tool in api.tools] == [
        "search_entities",
        "get_entity_state",
        "call_service",
        "get_weather",
    ]


async def test_a_memory_tool_called_without_a_memory_says_so(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """The tools' own guard, for a caller that reaches one without our agent."""
    hass = ha_core
    await _connection(hass, fake_llm)
    context = llm.LLMContext(
        platform="other",
        context=Context(),
        language="en",
        assistant="conversation",
        device_id=None,
    )
    for tool in (RememberTool(), RecallTool()):
        result = await tool.async_call(
            hass, llm.ToolInput(tool_name=tool.name, tool_args={"fact": BINS}), context
        )
        assert result.error is True
        assert result.data["error"] == NOT_OUR_AGENT


async def test_a_secret_the_model_asks_to_remember_is_not_kept(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """A tool argument holding an agent's secret header runs without it."""
    hass = ha_core
    header = '{"X-Api-Key": "proxy-secret-42"}'
    await _connection(hass, fake_llm, Kitchen={CONF_EXTRA_HEADERS: header})

    envelope = await _ask_tool(
        hass, fake_llm, "remember", {"fact": "The proxy key is proxy-secret-42."}
    )

    assert envelope["result"]["remembered"]["fact"] == "The proxy key is [redacted]."
    assert [item["summary"] for item in await _items(hass)] == [
        "The proxy key is [redacted]."
    ]
    sent = [{k.lower(): v for k, v in h.items()} for h in fake_llm.headers]
    assert [h["x-api-key"] for h in sent] == ["proxy-secret-42"] * 2  # still sent


async def test_memory_tools_can_be_turned_off_but_facts_still_reach_the_prompt(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """Without the tools the model is not told about them; the list still counts."""
    hass = ha_core
    await _connection(hass, fake_llm, Kitchen={CONF_ENABLED_TOOLS: ["get_weather"]})
    await _todo(hass, "add_item", item=BINS)

    prompt = await _prompt(hass, fake_llm)

    assert BINS in prompt
    assert "save it with remember" not in prompt
    offered = {tool["function"]["name"] for tool in fake_llm.requests[-1]["tools"]}
    assert offered == {"get_weather"}


async def test_the_memory_list_is_not_exposed_to_assist(
    ha_core: HomeAssistant, fake_llm: FakeLLM
) -> None:
    """To-do lists are exposed by default; an agent's memory must not be."""
    hass = ha_core
    await _connection(hass, fake_llm)

    assert not async_should_expose(hass, conversation.DOMAIN, "todo.kitchen_memory")


async def test_facts_survive_a_reload_and_go_with_their_agent(
    ha_core: HomeAssistant, fake_llm: FakeLLM, hass_storage: dict[str, Any]
) -> None:
    """Stored, read back on reload; removing the agent or connection deletes them."""
    hass = ha_core
    entry = await _connection(hass, fake_llm, Kitchen={}, Office={})
    await _todo(hass, "add_item", agent="kitchen", item=BINS)
    await _todo(hass, "add_item", agent="office", item=VEGETARIAN)

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()

    assert BINS in await _prompt(hass, fake_llm)
    assert [i["summary"] for i in await _items(hass)] == [BINS]

    hass.config_entries.async_remove_subentry(entry, "Office")
    await hass.async_block_till_done()
    assert set(hass_storage[STORE_KEY]["data"]["pools"]) == {"Kitchen"}

    await hass.config_entries.async_remove(entry.entry_id)
    await hass.async_block_till_done()
    assert STORE_KEY not in hass_storage


def _copies(tmp_path: Path) -> list[Path]:
    return list((tmp_path / ".storage").glob(f"{STORE_KEY}.corrupt.*"))


def _set_aside_issues(hass: HomeAssistant) -> list[ir.IssueEntry]:
    return [
        issue
        for issue in ir.async_get(hass).issues.values()
        if issue.domain == DOMAIN and issue.translation_key == "memory_set_aside"
    ]


@pytest.mark.parametrize(
    "envelope",
    [
        {"version": 1, "data": {"pools": "not a mapping"}},
        {"version": 1, "data": ["not", "a", "mapping"]},
        {"version": 1, "data": {"pools": {"Kitchen": "not a list"}}},
        {"version": 2, "data": {"pools": {}}},
        {"version": 1, "minor_version": 3, "data": {"pools": {}}},
    ],
)
async def test_a_memory_file_not_ours_is_copied_aside_and_memory_works(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    *,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    envelope: dict[str, Any],
) -> None:
    """Wrong shape or newer: the whole file copied aside, a Repair, an empty memory."""
    hass = ha_core
    hass.config.config_dir = str(tmp_path)
    hass_storage[STORE_KEY] = {"key": STORE_KEY, **envelope}

    await _connection(hass, fake_llm)

    copies = _copies(tmp_path)
    assert len(copies) == 1
    assert json.loads(copies[0].read_text()) == {
        "minor_version": 1,
        "key": STORE_KEY,
        **envelope,
    }
    assert f"copied aside to {copies[0]}" in caplog.text
    assert len(_set_aside_issues(hass)) == 1
    assert await _items(hass) == []
    await _todo(hass, "add_item", item=BINS)
    assert BINS in await _prompt(hass, fake_llm)


async def test_unreadable_facts_are_dropped_and_the_rest_kept(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    tmp_path: Path,
) -> None:
    """One bad fact costs only itself; the whole file is copied aside first."""
    hass = ha_core
    hass.config.config_dir = str(tmp_path)
    good = {"id": "a1", "text": BINS, "user_id": None}
    data = {"pools": {"Kitchen": [good, {"id": 3}, "junk", good]}}
    hass_storage[STORE_KEY] = {"version": 1, "key": STORE_KEY, "data": data}

    await _connection(hass, fake_llm)

    assert [i["summary"] for i in await _items(hass)] == [BINS]
    assert json.loads(_copies(tmp_path)[0].read_text())["data"] == data
    assert len(_set_aside_issues(hass)) == 1


async def test_a_store_that_cannot_be_loaded_starts_empty(
    ha_core: HomeAssistant,
    fake_llm: FakeLLM,
    hass_storage: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A file Home Assistant itself cannot read (here: no version) is not fatal."""
    hass = ha_core
    hass_storage[STORE_KEY] = {"data": {}}

    await _connection(hass, fake_llm)

    assert f"{STORE_KEY} could not be read" in caplog.text
    assert await _items(hass) == []


def test_the_prompt_keeps_the_newest_facts_within_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Older facts beyond the budget are left out, and the model is told."""
    monkeypatch.setattr(memory_module, "PROMPT_BUDGET_CHARS", 40)
    facts = [Fact(str(n), f"Fact number {n}.") for n in range(5)]

    prompt = facts_prompt(facts)

    assert prompt == (
        "# Memory\n"
        "What you remember about this household (newest first):\n"
        "- Fact number 0.\n"
        "- Fact number 1.\n"
        "(3 older facts are not shown here.)"
    )
    assert facts_prompt([]) is None


async def test_a_fact_with_a_lone_surrogate_does_not_break_later_turns(
    ha_core: HomeAssistant, fake_llm: FakeLLM, hass_storage: dict[str, Any]
) -> None:
    """Remembered by voice and by the list: stored, in the prompt, turns still answer."""
    hass = ha_core
    await _connection(hass, fake_llm)

    envelope = await _ask_tool(
        hass, fake_llm, "remember", {"fact": "The gate code is 12\ud80034."}
    )
    await _todo(hass, "add_item", item="Anna likes t\udfffea.")

    assert envelope["result"]["remembered"]["fact"] == "The gate code is 12\ufffd34."
    stored = hass_storage[STORE_KEY]["data"]["pools"]["Kitchen"]
    assert [fact["text"] for fact in stored] == [
        "Anna likes t\ufffdea.",
        "The gate code is 12\ufffd34.",
    ]
    prompt = await _prompt(hass, fake_llm)
    assert "- The gate code is 12\ufffd34." in prompt
    assert "- Anna likes t\ufffdea." in prompt
    fake_llm.script([Reply.text("Ahoy.")])
    system = await _ask(
        hass, fake_llm, "hi", extra_system_prompt="Talk like a \udbff pirate."
    )
    assert "\nTalk like a \ufffd pirate.\n\n# Memory\n" in system
    fake_llm.script([Reply.text("Sure.")])
    answer = await conversation.async_converse(
        hass, "thanks", None, Context(), language="en", agent_id="conversation.kitchen"
    )
    assert answer.response.speech["plain"]["speech"] == "Sure."
