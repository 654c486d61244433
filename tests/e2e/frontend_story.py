"""Home Assistant's own frontend in headless Chromium: the e2e story's `--frontend` part.

A user logs in, adds Agentic Conversation through the UI's config flow (pointed at the
scripted LLM server), opens the agent's options (the subentry reconfigure form) and
asks in the Assist dialog. Everything is in shadow DOM, so the browser is driven by
the keyboard where a person would type, and by JavaScript that walks the shadow roots
to find what a person would click or read. Screenshots are saved for the docs.

Needs Debian's `chromium` and `chromium-driver` (scripts/setup installs them in the
cached root); tests/e2e/test_frontend.py skips, saying why, where they are missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
import contextlib
from pathlib import Path
import shutil
import tempfile
import time
from typing import Any, Protocol

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement

from devtools.ha_api import HomeAssistantClient, HomeAssistantError, Login
from devtools.setup_home import async_remove_cloud_integrations, async_set_agent_options

# The flags that work in this sandbox and in CI: no GPU, no sandbox (root in a
# chroot), and nothing that reaches out to the network on its own.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)
SCREEN = (1280, 800)
TALL_SCREEN = (1280, 1000)  # the options form is long
# The sections shown with "Recommended settings" on (memory and limits are hidden).
SECTION_TITLES = ("Model and instructions", "Control and safety", "Fallback")
FIELD_LABELS = (
    "Recommended settings",
    "Model",
    "Instructions",
    "Control Home Assistant",
    "Ask before acting on",
)
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# Every element matching a CSS selector in the document and all shadow roots, visible,
# optionally with a text in it or a label (an icon button's `label` property).
_FIND = """
const [selector, text, label] = arguments;
const found = [];
const stack = [document];
while (stack.length) {
  const root = stack.pop();
  for (const el of root.querySelectorAll('*')) {
    if (el.shadowRoot) stack.push(el.shadowRoot);
    if (!el.matches(selector)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (text !== null && !(el.innerText || el.textContent || '').includes(text)) continue;
    if (label !== null && el.label !== label && el.getAttribute('aria-label') !== label)
      continue;
    found.push(el);
  }
}
return found;
"""


def find_browser() -> tuple[str, str] | str:
    """(chromium, chromedriver) paths, or why there are none."""
    browser = next((path for name in BROWSERS if (path := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    if browser and driver:
        return browser, driver
    missing = [
        name
        for name, path in (("chromium", browser), ("chromedriver", driver))
        if not path
    ]
    return (
        f"no {' and no '.join(missing)} on PATH (scripts/setup installs Debian's "
        "chromium and chromium-driver in its Python 3.14 root)"
    )


class Browser:
    """One headless Chromium on a fresh profile, driven like a person would."""

    def __init__(self, browser: str, driver: str, profile: Path, shots: Path) -> None:
        """Start it (blocking)."""
        options = webdriver.ChromeOptions()
        # Both paths given: selenium never tries to download a browser or driver.
        options.binary_location = browser
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        self.driver = webdriver.Chrome(options=options, service=Service(driver))
        self.shots = shots
        self.resize(SCREEN)

    def quit(self) -> None:
        """Close the browser."""
        with contextlib.suppress(WebDriverException):
            self.driver.quit()

    def resize(self, size: tuple[int, int]) -> None:
        """The page's own size (screenshots), whatever the window decorations."""
        width, height = size
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def screenshot(self, name: str) -> str:
        """Save the page as NAME.png; returns the path."""
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return str(path)

    def find(
        self, selector: str, text: str | None = None, label: str | None = None
    ) -> list[WebElement]:
        """Visible elements, shadow roots included."""
        found: list[WebElement] = self.driver.execute_script(
            _FIND, selector, text, label
        )
        return found

    def wait_for[T](
        self, what: str, check: Callable[[], T | None], timeout: float = 30.0
    ) -> T:
        """Poll until `check` returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(WebDriverException):
                if result := check():
                    return result
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}: not seen in {timeout:.0f} s")
            time.sleep(0.2)

    def one(
        self,
        selector: str,
        text: str | None = None,
        label: str | None = None,
        timeout: float = 30.0,
    ) -> WebElement:
        """The first visible element, once there is one."""
        description = f"{selector} {text or ''} {label or ''}".strip()
        return self.wait_for(
            description,
            lambda: next(iter(self.find(selector, text, label)), None),
            timeout,
        )

    def go(self, url: str, ready: str) -> None:
        """Open a page and wait for an element of it (`ready`, a CSS selector).

        A dialog that was just closed may still step back in the history (the
        frontend's dialogs do): open the page again if that took us away.
        """
        for _ in range(3):
            self.driver.get(url)
            with contextlib.suppress(TimeoutError):
                self.wait_for(
                    f"{ready} on {url}",
                    lambda: (
                        self.driver.current_url.startswith(url) and self.find(ready)
                    ),
                    10,
                )
                time.sleep(0.5)
                if self.driver.current_url.startswith(url):
                    return
        raise TimeoutError(f"could not open {url}")

    def type(self, *keys: str) -> None:
        """Type into whatever has the focus, as a person would."""
        ActionChains(self.driver).send_keys(*keys).perform()

    def replace_text(self, field: WebElement, text: str) -> None:
        """Click a text field, select what is in it and type over it."""
        field.click()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("a").key_up(
            Keys.CONTROL
        ).send_keys(text).perform()

    # The story's steps

    def log_in(self, url: str, login: Login) -> str:
        """Log in on Home Assistant's login page; returns the page it lands on."""
        self.driver.get(f"{url}/")
        username = self.one("input[name=username]")
        username.click()
        self.type(login.username, Keys.TAB, login.password, Keys.ENTER)
        self.wait_for(
            "the dashboard after logging in",
            lambda: "/auth/" not in self.driver.current_url and self.find("hui-view"),
        )
        return str(self.driver.current_url)

    def add_integration(self, url: str, base_url: str) -> str:
        """Settings → Devices & services → Add integration → Agentic Conversation."""
        self.go(f"{url}/config/integrations/dashboard", "ha-button")
        self.one("ha-button", "Add integration").click()
        self.one("input")  # the brand search has the focus
        self.type("Agentic")
        self.one("*", "Agentic Conversation")
        self.type(Keys.ENTER)
        self.replace_text(self.one("input[name=base_url]"), base_url)
        self.type(Keys.ENTER)
        # Created: the device's name and area; skip that.
        self.one("ha-button", "inish").click()
        self.go(
            f"{url}/config/integrations/integration/agentic_conversation",
            "ha-icon-button",
        )
        self.one("*", base_url.rstrip("/"))
        self.one("ha-icon-button", label="Reconfigure agent")
        return self.screenshot("agent-configured")

    def agent_options(self) -> dict[str, Any]:
        """The agent's options form (reconfigure), submitted unchanged."""
        self.resize(TALL_SCREEN)
        try:
            self.one("ha-icon-button", label="Reconfigure agent").click()
            self.one("*", "Control Home Assistant")
            shown = {
                "tools_apis": [
                    text
                    for text in ("Assist", "Agentic Conversation tools")
                    if self.find("*", text)
                ],
                "model_shown": self.driver.execute_script(
                    """
                    const stack = [document];
                    while (stack.length) {
                      for (const el of stack.pop().querySelectorAll('*')) {
                        if (el.shadowRoot) stack.push(el.shadowRoot);
                        if (el.value === arguments[0]) return true;
                      }
                    }
                    return false;
                    """,
                    "fake-model",
                ),
            }
            # What a person reads: the title names the agent, each section and
            # field is labelled (the recommended switch hides memory and limits).
            shown["title"] = bool(self.find("*", "Settings of Agentic Conversation"))
            shown["sections"] = [
                text for text in SECTION_TITLES if self.find("*", text)
            ]
            shown["labels"] = [text for text in FIELD_LABELS if self.find("*", text)]
            time.sleep(0.5)  # the code editor's fade-in
            shown["screenshot"] = self.screenshot("agent-options")
            self.one("ha-button", "Submit").click()
            shown["result"] = self.one("*", "Reconfiguration was successful").text
            self.one("ha-button", "Close").click()
            self.wait_for(
                "the dialog to close",
                lambda: not self.find("*", "Reconfiguration was successful"),
            )
        finally:
            self.resize(SCREEN)
        return shown

    def ask_assist(self, url: str, text: str) -> dict[str, Any]:
        """On the dashboard, "a" opens Assist; type, Enter, read the reply."""
        self.go(f"{url}/home/overview", "hui-view")
        greeting: list[WebElement] = []
        for _ in range(3):  # a key pressed while the page still settles is lost
            self.type("a")
            with contextlib.suppress(TimeoutError):
                greeting = self.wait_for(
                    "the Assist dialog", lambda: self.find(".message.hass"), 5
                )
                break
        if not greeting:
            raise TimeoutError("the Assist dialog did not open")
        self.type(text, Keys.ENTER)
        seen: list[str] = []

        def answered() -> str | None:
            # A new reply, complete once its text stops changing (it is streamed).
            replies = self.find(".message.hass")
            if len(replies) <= len(greeting):
                return None
            seen.append(replies[-1].text)
            return seen[-1] if len(seen) > 2 and seen[-1] == seen[-3] else None

        reply = self.wait_for("Assist's answer", answered)
        return {
            "asked": [m.text for m in self.find(".message.user")],
            "reply": reply,
            "screenshot": self.screenshot("assist-reply"),
        }


class ScriptedLLM(Protocol):
    """The scripted LLM server process (story.FakeLLMProcess)."""

    base_url: str

    async def script(self, *replies: dict[str, Any]) -> None:
        """Queue replies."""

    async def requests(self) -> list[dict[str, Any]]:
        """What it received so far."""


async def frontend_story(
    client: HomeAssistantClient,
    llm: ScriptedLLM,
    login: Login,
    shots: Path,
    report: dict[str, Any],
) -> None:
    """The user's side, in the browser; the checks' side over the API."""
    match find_browser():
        case (str() as chromium, str() as chromedriver):
            pass
        case reason:
            raise RuntimeError(reason)
    await client.onboard(login)
    await client.wait_until_running()
    # Onboarding's met.no and Radio Browser only fail offline (and show as repairs).
    await async_remove_cloud_integrations(client)
    async with client.websocket() as ws:
        # HA 2026.10 asks to confirm the http: settings it moved to its store.
        with contextlib.suppress(HomeAssistantError):
            await ws.call({"type": "http/config/promote"})
        await ws.call(
            {
                "type": "homeassistant/expose_entity",
                "assistants": ["conversation"],
                "entity_ids": ["light.porch_light"],
                "should_expose": True,
            }
        )
    profile = Path(tempfile.mkdtemp(prefix="agentic-chromium-"))  # a fresh profile
    browser = await asyncio.to_thread(Browser, chromium, chromedriver, profile, shots)
    try:
        await _in_browser(browser, client, llm, login, report)
    except Exception:
        with contextlib.suppress(WebDriverException):
            report["failure_screenshot"] = browser.screenshot("failure")
            report["failure_url"] = browser.driver.current_url
        raise
    finally:
        await asyncio.to_thread(browser.quit)
        shutil.rmtree(profile, ignore_errors=True)


async def _agent_state(client: HomeAssistantClient) -> tuple[str, str] | None:
    """Our agent's (last_updated, state), None while it is gone."""
    states = await client.rest("GET", "/api/states")
    return next(
        (
            (s["last_updated"], s["state"])
            for s in states
            if s["entity_id"].startswith("conversation.")
            and s["entity_id"] != "conversation.home_assistant"
        ),
        None,
    )


async def _in_browser(
    browser: Browser,
    client: HomeAssistantClient,
    llm: ScriptedLLM,
    login: Login,
    report: dict[str, Any],
) -> None:
    url = client.url
    report["landed_on"] = await asyncio.to_thread(browser.log_in, url, login)
    report["configured_screenshot"] = await asyncio.to_thread(
        browser.add_integration, url, llm.base_url
    )
    entries = await client.rest("GET", "/api/config/config_entries/entry")
    report["entries"] = [
        {"title": e["title"], "state": e["state"]}
        for e in entries
        if e["domain"] == "agentic_conversation"
    ]
    report["options"] = await asyncio.to_thread(browser.agent_options)
    # The story is about the model's turns: commands go to it, not to HA's recognition.
    (ours,) = (e for e in entries if e["domain"] == "agentic_conversation")
    before = await _agent_state(client)
    await async_set_agent_options(client, ours["entry_id"], local_first=False)
    # Saving reloads the connection: wait for the agent to be back, re-added.
    for _ in range(300):
        now = await _agent_state(client)
        if now is not None and now != before and now[1] != "unavailable":
            break
        await asyncio.sleep(0.2)
    else:
        raise TimeoutError("the agent did not come back after its options changed")
    # Which tools does the agent offer (names differ by release)? Ask once.
    async with client.websocket() as ws:
        states = await ws.call({"type": "get_states"})
        agent = next(
            s["entity_id"]
            for s in states
            if s["entity_id"].startswith("conversation.")
            and s["entity_id"] != "conversation.home_assistant"
        )
        await llm.script({"kind": "text", "text": "Hello!"})
        await ws.call(
            {"type": "conversation/process", "text": "hello", "agent_id": agent}
        )
        offered = [t["function"]["name"] for t in (await llm.requests())[-1]["tools"]]
        turn_on = next(name for name in offered if name.endswith("HassTurnOn"))
        # Assist in the browser uses the preferred pipeline: our agent there.
        pipelines = await ws.call({"type": "assist_pipeline/pipeline/list"})
        preferred = next(
            p
            for p in pipelines["pipelines"]
            if p["id"] == pipelines["preferred_pipeline"]
        )
        await ws.call(
            {
                "type": "assist_pipeline/pipeline/update",
                "pipeline_id": preferred["id"],
                **{k: v for k, v in preferred.items() if k != "id"},
                "conversation_engine": agent,
            }
        )
    await llm.script(
        {"kind": "tool_calls", "calls": [[turn_on, {"name": "Porch light"}]]},
        {"kind": "text", "text": "The porch light is on. Anything else?"},
    )
    report["light_before"] = (
        await client.rest("GET", "/api/states/light.porch_light")
    )["state"]
    report["assist"] = await asyncio.to_thread(
        browser.ask_assist, url, "Turn on the porch light"
    )
    report["light_after"] = (await client.rest("GET", "/api/states/light.porch_light"))[
        "state"
    ]
    report["assist"]["sent"] = [
        m["content"]
        for m in (await llm.requests())[-1]["messages"]
        if m["role"] == "user"
    ]
