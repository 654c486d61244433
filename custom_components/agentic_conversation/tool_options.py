"""Per-agent settings for our tools, carried to them in the LLM context.

HA builds an LLM API instance from an `llm.LLMContext`, which names no agent. Our
agents pass an `AgenticLLMContext` instead, so the `agentic_conversation` API can apply
the agent's allow-list, weather source and enabled tools, and find its memory; any other
caller (another integration's agent using our API) gets the defaults, and no memory.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Self

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

from .agent.describer import Describer
from .const import (
    CONF_ALLOWED_SERVICES,
    CONF_CAMERA_IMAGE_QUALITY,
    CONF_CAMERA_IMAGE_SIZE,
    CONF_ENABLED_TOOLS,
    CONF_WEATHER_ENTITY,
    DEFAULT_ALLOWED_SERVICES,
    DEFAULT_CAMERA_IMAGE_QUALITY,
    DEFAULT_CAMERA_IMAGE_SIZE,
    DEFAULT_ENABLED_TOOLS,
)
from .kept.memory import AgentMemory
from .safety.confirmation import ConfirmationGate
from .verify.watch import EffectWatch


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """What an agent lets our tools do."""

    allowed_services: tuple[str, ...] = DEFAULT_ALLOWED_SERVICES
    weather_entity: str | None = None
    enabled_tools: frozenset[str] = frozenset(DEFAULT_ENABLED_TOOLS)
    apis: frozenset[str] = frozenset()
    """The LLM APIs the agent selected: our API's instructions defer to Assist's."""
    sees_images: bool | None = None
    """Whether the agent's model takes images, as its server says (None: unsaid)."""
    camera_image_size: int = DEFAULT_CAMERA_IMAGE_SIZE
    camera_image_quality: int = DEFAULT_CAMERA_IMAGE_QUALITY

    @classmethod
    def from_options(
        cls, options: Mapping[str, Any], *, sees_images: bool | None = None
    ) -> Self:
        """Read them from an agent's subentry data, defaults for what is missing."""
        return cls(
            allowed_services=tuple(
                options.get(CONF_ALLOWED_SERVICES, DEFAULT_ALLOWED_SERVICES)
            ),
            weather_entity=options.get(CONF_WEATHER_ENTITY) or None,
            enabled_tools=frozenset(
                options.get(CONF_ENABLED_TOOLS, DEFAULT_ENABLED_TOOLS)
            ),
            apis=frozenset(api_ids(options.get(CONF_LLM_HASS_API))),
            sees_images=sees_images,
            camera_image_size=int(
                options.get(CONF_CAMERA_IMAGE_SIZE, DEFAULT_CAMERA_IMAGE_SIZE)
            ),
            camera_image_quality=int(
                options.get(CONF_CAMERA_IMAGE_QUALITY, DEFAULT_CAMERA_IMAGE_QUALITY)
            ),
        )


def api_ids(value: str | list[str] | None) -> list[str]:
    """HA stores one API id as a string, several as a list."""
    if isinstance(value, str):
        return [value]
    return list(value or ())


def unbounded(api: llm.API) -> bool:
    """Whether an LLM API's tools reach past exposure (HA marks them admin only)."""
    return bool(getattr(api, "requires_admin", False))


def unbounded_selected(
    hass: HomeAssistant, value: str | list[str] | None
) -> dict[str, str]:
    """The selected APIs an agent is never given (safety/unbounded_apis.py), by id."""
    selected = api_ids(value)
    return {
        api.id: api.name
        for api in llm.async_get_apis(hass)
        if api.id in selected and unbounded(api)
    }


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A picture a tool took for the model: sent once, kept only as `label`."""

    label: str
    """What is kept instead, e.g. "[image from Front door camera, 14:02]"."""
    part: dict[str, Any]
    """The image as a content part."""


@dataclass(slots=True)
class AgenticLLMContext(llm.LLMContext):
    """An LLM context that also carries the agent's tool options, gate and memory."""

    tool_options: ToolOptions = field(default_factory=ToolOptions)
    gate: ConfirmationGate | None = None
    memory: AgentMemory | None = None
    snapshots: list[Snapshot] = field(default_factory=list)
    """The turn's pictures not yet shown to the model."""
    describer: Describer | None = None
    """Who describes the pictures when the agent's model cannot see them."""
    effects: EffectWatch | None = None
    """What the turn's actions targeted, checked against the entities' states."""

    @classmethod
    def extending(
        cls,
        base: llm.LLMContext,
        tool_options: ToolOptions,
        *,
        gate: ConfirmationGate | None = None,
        memory: AgentMemory | None = None,
        describer: Describer | None = None,
        effects: EffectWatch | None = None,
    ) -> Self:
        """HA's context, as HA builds it (every field of its release), with ours.

        e.g. `user_input.as_llm_context(DOMAIN)`, which since HA 2026.11 also names
        the agent (`agent_id`).
        """
        inherited = {item.name: getattr(base, item.name) for item in fields(base)}
        return cls(
            **inherited,
            tool_options=tool_options,
            gate=gate,
            memory=memory,
            describer=describer,
            effects=effects,
        )


def gate_of(llm_context: llm.LLMContext) -> ConfirmationGate | None:
    """The confirmation gate of our agent's turn; None for any other caller."""
    if isinstance(llm_context, AgenticLLMContext):
        return llm_context.gate
    return None


def tool_options_of(llm_context: llm.LLMContext) -> ToolOptions:
    """The tool options of the agent behind this context, or the defaults."""
    if isinstance(llm_context, AgenticLLMContext):
        return llm_context.tool_options
    return ToolOptions()


def snapshots_of(llm_context: llm.LLMContext) -> list[Snapshot] | None:
    """Where our agent's turn collects pictures for its model; None for other callers."""
    if isinstance(llm_context, AgenticLLMContext):
        return llm_context.snapshots
    return None


def describer_of(llm_context: llm.LLMContext) -> Describer | None:
    """The model describing pictures for our agent's blind model; None if none."""
    if isinstance(llm_context, AgenticLLMContext):
        return llm_context.describer
    return None


def memory_of(llm_context: llm.LLMContext) -> AgentMemory | None:
    """The memory of our agent behind this context; None for any other caller."""
    if isinstance(llm_context, AgenticLLMContext):
        return llm_context.memory
    return None


def effects_of(llm_context: llm.LLMContext) -> EffectWatch | None:
    """The watch on our agent's turn's actions; None for any other caller."""
    if isinstance(llm_context, AgenticLLMContext):
        return llm_context.effects
    return None
