"""What every stage of a turn reads: the agent, HA's input and the chat log."""

from dataclasses import dataclass

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
    """The agent: its `data` are the agent's options."""
    provider: LLMProvider
    agent_id: str
    user_input: conversation.ConversationInput
    chat_log: conversation.ChatLog
    effects: EffectWatch
    """What the turn's actions target, checked against the house (verify/)."""
