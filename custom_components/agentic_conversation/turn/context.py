"""What every stage of a turn reads: the agent, HA's input and the chat log."""

from dataclasses import dataclass
from typing import Any

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import HomeAssistant

from ..agent import LLMProvider
from ..runtime import AgenticConfigEntry
from ..verify.watch import EffectWatch


@dataclass(frozen=True, slots=True)
class TurnContext:
    """One turn of one agent."""

    hass: HomeAssistant
    entry: AgenticConfigEntry
    subentry: ConfigSubentry
    provider: LLMProvider
    agent_id: str
    user_input: conversation.ConversationInput
    chat_log: conversation.ChatLog
    effects: EffectWatch
    """What the turn's actions target, checked against the house (verify/)."""

    @property
    def options(self) -> Any:
        """The agent's options."""
        return self.subentry.data
