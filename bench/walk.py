"""Devtool: the walk of the user's text through our modules in one model-route turn.

A typical turn ("turn on the kitchen ceiling": the model calls HassTurnOn, then says
"Done.") runs once to warm up, then once watched with `sys.monitoring` (function
starts only; a coroutine resuming is no new start). Each function of ours that starts
is attributed to its module; its caller module is the nearest frame of ours up the
stack. A start whose caller module is another module is a *crossing*:

- **rooms**: the distinct modules of ours the turn's code passes through;
- **climbs back**: distinct crossings (caller module → module) into a module already
  visited through another one (the same crossing again is no new climb);
- **words entered from**: the distinct modules crossing into what the user hears
  (`words/`).

docs/architecture.md ("The walk of a turn") states the definition and the figures.

Run: scripts/run python bench/walk.py [--list]
"""

import argparse
import asyncio
import logging
from pathlib import Path
import sys
from types import CodeType
from typing import Any
from unittest.mock import patch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_homeassistant_custom_component.common import mock_storage  # noqa: E402

from homeassistant.components import conversation  # noqa: E402
from homeassistant.const import CONF_LLM_HASS_API  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.helpers import llm  # noqa: E402

from bench.harness import add_agent, home_with_server  # noqa: E402
from custom_components.agentic_conversation import conversation as our_conversation  # noqa: E402
from custom_components.agentic_conversation.turn import async_handle_turn  # noqa: E402
from tests.acceptance.home import async_build_home  # noqa: E402
from tests.across_releases import offered_name  # noqa: E402
from tests.fake_llm import FakeLLM, Reply  # noqa: E402

PACKAGE = Path(our_conversation.__file__).resolve().parent
WORDS = ("words/",)
APIS = [llm.LLM_API_ASSIST]
_TOOL = sys.monitoring.PROFILER_ID


def _module(filename: str) -> str | None:
    """Our module a file is, relative to the package ("turn/reply.py"), or None."""
    try:
        return Path(filename).resolve().relative_to(PACKAGE).as_posix()
    except ValueError:
        return None


class Walk:
    """The crossings between our modules while watched."""

    def __init__(self) -> None:
        """Nothing walked yet."""
        self.crossings: list[tuple[str | None, str]] = []
        self._modules: dict[str, str | None] = {}

    def _of(self, code: CodeType) -> str | None:
        filename = code.co_filename
        if filename not in self._modules:
            self._modules[filename] = _module(filename)
        return self._modules[filename]

    def started(self, code: CodeType, _offset: int) -> Any:
        """A function started: a crossing if its caller is in another module."""
        module = self._of(code)
        if module is None:
            return sys.monitoring.DISABLE
        frame = sys._getframe(1).f_back  # noqa: SLF001 - the started function's caller
        caller = None
        while frame is not None and caller is None:
            caller = self._of(frame.f_code)
            frame = frame.f_back
        if caller != module:
            self.crossings.append((caller, module))
        return None

    def figures(self, *, core: bool = False) -> dict[str, Any]:
        """Rooms, climbs back and where the words were entered from.

        Without `core`, the agent core (`agent/`, HA-free: the loop and its provider)
        is left out: its own walk is the loop's, the same for every turn.
        """
        seen: set[str] = set()
        edges: set[tuple[str | None, str]] = set()
        climbs = 0
        for caller, module in self.crossings:
            if not core and (module.startswith("agent/")):
                continue
            if (caller, module) in edges:
                continue  # the same door again: no new climb
            edges.add((caller, module))
            if module in seen:
                climbs += 1
            seen.add(module)
        words_from = sorted(
            {
                str(caller)
                for caller, module in self.crossings
                if module.startswith(WORDS) and not str(caller).startswith(WORDS)
            }
        )
        return {
            "rooms": len(seen),
            "climbs back": climbs,
            "words entered from": words_from,
        }


async def walk() -> tuple[Walk, dict[str, Any]]:
    """One warm-up turn, then one watched; the walk and its figures."""
    with mock_storage():
        async with home_with_server() as (hass, server):
            await async_build_home(hass)
            agent = await add_agent(hass, server, {CONF_LLM_HASS_API: APIS})
            turn_on = await offered_name(hass, APIS, "HassTurnOn")
            await _turn(hass, server, agent, turn_on)  # imports, caches
            watched = Walk()
            handle = async_handle_turn

            async def _watched(*args: Any) -> Any:
                sys.monitoring.use_tool_id(_TOOL, "walk")
                sys.monitoring.register_callback(
                    _TOOL, sys.monitoring.events.PY_START, watched.started
                )
                sys.monitoring.set_events(_TOOL, sys.monitoring.events.PY_START)
                try:
                    return await handle(*args)
                finally:
                    sys.monitoring.set_events(_TOOL, 0)
                    sys.monitoring.free_tool_id(_TOOL)

            with patch.object(our_conversation, "async_handle_turn", _watched):
                await _turn(hass, server, agent, turn_on)
            return watched, {
                "HA layer": watched.figures(),
                "with the agent core": watched.figures(core=True),
            }


async def _turn(hass: HomeAssistant, server: FakeLLM, agent: str, tool: str) -> None:
    server.script(
        [Reply.tool_calls([(tool, {"name": "Kitchen ceiling"})]), Reply.text("Done.")]
    )
    result = await conversation.async_converse(
        hass, "turn on the kitchen ceiling", None, Context(), agent_id=agent
    )
    assert result.response.speech["plain"]["speech"] == "Done.", result


def main() -> None:
    """Print the figures (and, with --list, every crossing)."""
    logging.basicConfig(level=logging.ERROR)
    parser = argparse.ArgumentParser()
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    watched, figures = asyncio.run(walk())
    if args.list:
        for caller, module in watched.crossings:
            print(f"{caller} -> {module}")
    for name, value in figures.items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    main()
