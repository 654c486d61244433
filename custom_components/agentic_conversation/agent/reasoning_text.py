"""Reasoning blocks in a model's text: where they are, and the answer without them.

Reasoning models write their thoughts before the answer, each family in its own
markup. Nothing inside a block is the answer: a tool call written there is a thought,
not a call. Some chat templates open the block in the prompt, so the model's text
starts inside it and only its end shows (`…</think>answer`).
"""

import re

# Opening tag → closing tag, per family.
PAIRS = {
    "<think>": "</think>",  # DeepSeek R1, Qwen3, QwQ, Kimi K2.5, GLM-4.5, Phi-4 reasoning
    "<thinking>": "</thinking>",  # fine-tunes in Claude's style
    "<reasoning>": "</reasoning>",
    "[THINK]": "[/THINK]",  # Magistral
    "<seed:think>": "</seed:think>",  # Seed-OSS
    "<|START_THINKING|>": "<|END_THINKING|>",  # Command A reasoning
    "◁think▷": "◁/think▷",  # Kimi VL
    "<|begin_of_thought|>": "<|end_of_thought|>",  # Sky-T1, OpenThoughts
    "<|channel|>analysis<|message|>": "<|end|>",  # gpt-oss (harmony)
}
# A closing tag seen without its opening one: the template opened the block, so all
# before it was reasoning. (`<|end|>` ends ordinary Phi turns too: not one of these.)
STRAY_CLOSES = frozenset(close for close in PAIRS.values() if close != "<|end|>")
TAGS = frozenset({*PAIRS, *STRAY_CLOSES})


def tag_pattern(tags: frozenset[str] | set[str]) -> re.Pattern[str]:
    """One regex finding any of `tags`, the longest where several start alike."""
    return re.compile("|".join(re.escape(tag) for tag in sorted(tags, key=len)[::-1]))


_TAG = tag_pattern(TAGS | {"<|end|>"})


def without_reasoning(text: str) -> str:
    """The text outside reasoning blocks (an unterminated one runs to the end)."""
    kept: list[str] = []
    position = 0
    close: str | None = None
    for match in _TAG.finditer(text):
        tag = match.group()
        if close is None:
            if tag in PAIRS:
                kept.append(text[position : match.start()])
                close, position = PAIRS[tag], match.end()
            elif tag in STRAY_CLOSES:
                kept.clear()
                position = match.end()
        elif tag == close:
            close, position = None, match.end()
    if close is None:
        kept.append(text[position:])
    return "".join(kept)
