"""Home Assistant's own frontend in headless Chromium (see frontend_story.py).

Set AGENTIC_SCREENSHOTS_DIR=docs/images to refresh the quick start's screenshots.
"""

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import run_story
from tests.e2e.frontend_story import find_browser

# One worker runs the module: its story (a hass process) is a module fixture, run once.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("test_frontend")]


@pytest.fixture(scope="module")
def frontend(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The browser story, run once for this module; skips without Chromium."""
    found = find_browser()
    if isinstance(found, str):
        reason = f"Chromium cannot run here: {found}"
        print(reason)  # noqa: T201 - the reason must show in CI output
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("e2e-frontend")
    shots = os.environ.get("AGENTIC_SCREENSHOTS_DIR") or str(tmp / "screenshots")
    return run_story(tmp, "--frontend", str(Path(shots).resolve()))


def test_logging_in_lands_on_the_dashboard(frontend: dict[str, Any]) -> None:
    """The login page takes the onboarded user's name and password."""
    assert "/auth/" not in frontend["landed_on"]


def test_the_integration_is_added_through_the_ui(frontend: dict[str, Any]) -> None:
    """Add integration → Agentic Conversation → the server's URL: one loaded entry."""
    assert len(frontend["entries"]) == 1
    entry = frontend["entries"][0]
    assert entry["state"] == "loaded"
    assert entry["title"].startswith("http://127.0.0.1:")
    assert Path(frontend["configured_screenshot"]).is_file()


def test_the_agent_options_open_and_submit(frontend: dict[str, Any]) -> None:
    """The agent's reconfigure form shows its model and tool APIs; submitting works."""
    options = frontend["options"]
    assert options["model_shown"]
    assert options["tools_apis"] == ["Assist", "Agentic Conversation tools"]
    assert options["title"]  # "Settings of Agentic Conversation"
    assert options["sections"] == [
        "Model and instructions",
        "Control and safety",
        "Fallback",
    ]
    assert options["labels"] == [
        "Recommended settings",
        "Model",
        "Instructions",
        "Control Home Assistant",
        "Ask before acting on",
    ]
    assert options["result"] == "Reconfiguration was successful"
    assert Path(options["screenshot"]).is_file()


def test_assist_in_the_browser_answers_and_acts(frontend: dict[str, Any]) -> None:
    """A on the dashboard opens Assist; asked, it turns the light on and says so."""
    assist = frontend["assist"]
    assert assist["asked"] == ["Turn on the porch light"]
    assert assist["sent"] == ["Turn on the porch light"]
    assert frontend["light_before"] == "off"
    assert frontend["light_after"] == "on"
    # The reply, below the tool call's collapsed details.
    assert assist["reply"].splitlines()[-1] == "The porch light is on. Anything else?"
    assert "Show details" in assist["reply"]
    assert Path(assist["screenshot"]).is_file()
    assert frontend["hass_errors"] == []
