"""Data in a model's answer, recognised from its first characters, so it is never spoken.

Small models answer with data instead of a sentence: our own tool result echoed
(`{"success": false, "error": …}`), a JSON object or array, a YAML block, a code
fence. A voice reading that aloud is seconds of punctuation. Data starts a line with
`{`, `[` (then `{`, `[`, a quote, a digit), a fence (```` ``` ````, `~~~`) or a YAML key
(`key: value`, a lower-case identifier as the key); inside a line, with `{"`, `[{` or a
fence. A bullet is data only when its key has an underscore or is one of ours
(`- entity_id: …`; `- kitchen: on` is words). From there the text is held; at the end it is split into the prose, which is
spoken, and the data blocks, which `data_words` puts into words.

Ordinary text is decided on its first word and streams on at once.
"""

import re

# Fences open and close code blocks (markdown's two kinds).
_FENCES = ("```", "~~~")
# A YAML key at a line's start (also as a list item), then its value.
_YAML_KEY = re.compile(r"(?:-[ \t]+)?([a-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*)|[ \t]*$)")
# A line start that may still become one: `- `, then an identifier so far.
_YAML_SO_FAR = re.compile(
    r"(?:-(?:[ \t]+(?:[a-z_][A-Za-z0-9_-]*)?)?|[a-z_][A-Za-z0-9_-]*)"
)
# A YAML block goes on with indented lines, list items, comments, other keys.
_YAML_MORE = re.compile(r"[ \t]+\S|-[ \t]|-$|#|[A-Za-z_][\w-]*:(?:[ \t]|$)")
# A value that reads as data, not as the rest of a sentence ("note: it is on").
_YAML_SCALAR = re.compile(
    r"""(?:true|false|null|yes|no|on|off|~|-?\d+(?:\.\d+)?|"[^"]*"|'[^']*'|[{\[|>&*].*)""",
    re.IGNORECASE,
)
_SCALAR_OPENERS = "\"'{[|>&*"
# Keys of our own tool results (agent/tool_calls.py) and of the tools' data.
ENVELOPE_KEYS = frozenset(
    {"success", "error", "result", "valid_tools", "unmatched", "hint", "received"}
)
# What opens a JSON array (after `[` and spaces): never a word.
_ARRAY_ITEM = re.compile(r"""[{\["'\d\]-]""")
# Data starting inside a line: a fence, an object with a quoted key, an array of them.
_INLINE = re.compile(r"```|~~~|\{[ \t]*[\"']|\[[ \t]*[{\[]")
# What a line may end on that can still become an inline start.
_INLINE_TAIL = re.compile(r"(?:`{1,2}|~{1,2}|\{[ \t]*|\[[ \t]*)$")
# Fence languages whose content may be prose, spoken when it reads as prose.
_PROSE_FENCES = frozenset({"", "text", "txt", "plain", "plaintext", "markdown", "md"})
_NOT_PROSE = re.compile(r"[{}\[\]<>=;]")
# A JSON block not closed within this many characters is data to the end (a model's
# 10 MB answer is not walked character by character in the event loop).
_SCAN_LIMIT = 100_000


def starts_data(line: str, *, complete: bool) -> bool | None:
    """Whether a line starting so is data: yes, no, or not known yet.

    `complete`: the whole line is there (a newline or the end of the text came).
    """
    lead = line.lstrip(" \t")
    if not lead:
        return False if complete else None
    if lead.startswith(_FENCES) or lead.startswith("{"):
        return True
    if any(fence.startswith(lead) for fence in _FENCES):
        return False if complete else None
    if lead.startswith("["):
        rest = lead[1:].lstrip()
        if not rest:
            return False if complete else None
        return bool(_ARRAY_ITEM.match(rest))
    if key := _YAML_KEY.match(lead):
        name, value = key.group(1), (key.group(2) or "").strip()
        if "_" in name or name in ENVELOPE_KEYS:
            return True
        if lead.startswith("-"):
            return False  # a bullet: "- kitchen: on" is words
        if complete:
            return not value or bool(_YAML_SCALAR.fullmatch(value))
        if value and value[0] in _SCALAR_OPENERS:
            return True
        # The value decides; two words are a sentence ("note: it is on").
        return False if " " in value else None
    if not complete and _YAML_SO_FAR.fullmatch(lead):
        return None  # an identifier so far: a colon may follow
    return False


def split_data(text: str) -> tuple[str, list[str]]:
    """The prose of a text and its data blocks, in order."""
    prose: list[str] = []
    blocks: list[str] = []
    index, line_start = 0, True
    while index < len(text):
        newline = text.find("\n", index)
        line_end = len(text) if newline == -1 else newline
        if line_start and starts_data(text[index:line_end], complete=True):
            end = _data_end(text, index)
            _keep(text[index:end], prose, blocks)
            index, line_start = end, end == 0 or text[end - 1] == "\n"
            continue
        found = _INLINE.search(text, index, line_end)
        if found is None:
            prose.append(text[index : line_end + 1])
            index, line_start = line_end + 1, True
            continue
        prose.append(text[index : found.start()])
        end = _data_end(text, found.start())
        _keep(text[found.start() : end], prose, blocks)
        index, line_start = end, text[end - 1] == "\n"
    return "".join(prose), blocks


def _keep(block: str, prose: list[str], blocks: list[str]) -> None:
    """A block into the data, or a fenced one that holds prose into the prose."""
    if (words := fenced_prose(block)) is not None:
        prose.append(words)
    elif block.strip():
        blocks.append(block)


def fenced_prose(block: str) -> str | None:
    """The content of a fenced block that is prose (a model wrapping its answer)."""
    lead = block.lstrip()
    if not lead.startswith(_FENCES):
        return None
    fence = lead[:3]
    first, _, body = lead[3:].partition("\n")
    body = body.rstrip()
    body = body.removesuffix(fence).rstrip() if body.endswith(fence) else body
    if first.strip().lower() not in _PROSE_FENCES or not body.strip():
        return None
    if _NOT_PROSE.search(body) or any(
        starts_data(line, complete=True) for line in body.splitlines()
    ):
        return None
    return f"{body}\n"


def _data_end(text: str, start: int) -> int:
    """Where the data block starting at `start` ends (after its closing mark)."""
    lead = text[start:].lstrip(" \t")
    begin = len(text) - len(lead)
    if lead.startswith(_FENCES):
        opened = text.find("\n", begin)
        if opened == -1:
            return len(text)
        close = text.find(lead[:3], opened)
        if close == -1:
            return len(text)
        newline = text.find("\n", close)
        return len(text) if newline == -1 else newline + 1
    if lead.startswith(("{", "[")):
        return _balanced_end(text, begin)
    return _yaml_end(text, start)


def _balanced_end(text: str, start: int) -> int:
    """After the bracket closing the one at `start` (quotes respected), or the end."""
    depth, quote, escaped = 0, "", False
    for index in range(start, min(len(text), start + _SCAN_LIMIT)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            # An apostrophe inside a word is no quote ("don't").
            if char == '"' or not text[index - 1 : index].isalnum():
                quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def _yaml_end(text: str, start: int) -> int:
    """After a YAML block's last line: it goes on while its lines look like YAML."""
    index = text.find("\n", start)
    while index != -1:
        line_end = text.find("\n", index + 1)
        line = text[index + 1 : len(text) if line_end == -1 else line_end]
        if line.strip() and not _YAML_MORE.match(line):
            return index + 1
        index = line_end
    return len(text)


class DataGate:
    """Streamed text with data held back from its first characters.

    `feed` returns what may be spoken now: a line is released once its first word
    shows it is no data, and then as it comes. From the start of data on, the rest
    of the message waits for `flush`, which gives its prose; `blocks` keeps the data.
    """

    def __init__(self) -> None:
        """Nothing seen yet."""
        self._pending = ""  # undecided: a line's start, or a possible inline start
        self._held: list[str] = []
        self._holding = False
        self._line_start = True
        self.blocks: list[str] = []

    def feed(self, text: str) -> str:
        """Take a piece of text; return what can be said now."""
        if self._holding:
            self._held.append(text)
            return ""
        pending, self._pending = self._pending + text, ""
        out: list[str] = []
        while pending:
            newline = pending.find("\n")
            line = pending if newline == -1 else pending[: newline + 1]
            if self._line_start:
                verdict = starts_data(line.rstrip("\n"), complete=newline != -1)
                if verdict is None:
                    self._pending = pending
                    break
                if verdict:
                    self._hold(pending)
                    break
                self._line_start = False
            if found := _INLINE.search(line):
                out.append(line[: found.start()])
                self._hold(pending[found.start() :])
                break
            if newline == -1:
                tail = _INLINE_TAIL.search(line)
                cut = tail.start() if tail else len(line)
                out.append(line[:cut])
                self._pending = line[cut:]
                break
            out.append(line)
            pending = pending[newline + 1 :]
            self._line_start = True
        return "".join(out)

    def flush(self) -> str:
        """At the end of the message: its prose not said yet."""
        text = "".join(self._held) if self._holding else self._pending
        if not self._holding and not self._line_start:
            self._pending = ""
            return text  # an inline start that never came
        self._pending, self._held, self._holding = "", [], False
        self._line_start = True
        prose, blocks = split_data(text)
        self.blocks.extend(blocks)
        return prose

    def _hold(self, text: str) -> None:
        self._holding = True
        self._held = [text]
