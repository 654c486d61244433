"""A model on the agent's connection that describes a camera picture for a blind one.

When the agent's own model cannot see, the snapshot goes to this model with the user's
words, and only its description (text) reaches the agent's model.
"""

from dataclasses import dataclass
from typing import Any

from .errors import LLMError
from .messages import user_message
from .provider import LLMProvider
from .safe_text import safe_text

# A description is a few sentences: a server's 10 MB answer is cut.
DESCRIPTION_CHARS = 2000
PROMPT = (
    "This is the current picture from the camera {camera}. Describe what it shows "
    "that helps answer the user, plainly and briefly; say if you cannot tell. "
    "The user said: {question}"
)


class DescriberError(Exception):
    """The describing model gave no description (its error's kind, for the model)."""


@dataclass(frozen=True, slots=True)
class Describer:
    """The describing model of an agent's turn."""

    provider: LLMProvider
    model: str
    question: str
    """The user's words."""
    timeout: float
    """The tool's own deadline, in seconds: the description must come within it."""

    async def async_describe(
        self,
        camera: str,
        part: dict[str, Any],
        left: float,
    ) -> str:
        """Its description of the picture within `left` seconds; DescriberError if none."""
        text = PROMPT.format(camera=camera, question=self.question)
        content = [{"type": "text", "text": text}, part]
        try:
            response = await self.provider.complete(
                [user_message(content)], [], timeout=max(left, 1.0)
            )
        except LLMError as err:
            # Its kind, never the server's words (they may echo a key).
            raise DescriberError(err.kind) from err
        if not (description := safe_text(response.text or "").strip()):
            raise DescriberError("empty answer")
        return description[:DESCRIPTION_CHARS]
