"""What each language's translations lack, or have wrong, compared to en.json.

en.json is the source. For every other translations/<language>.json this lists the keys
it is missing, the keys en.json no longer has, and the strings whose {placeholders}
differ from the English ones; the exit status is 1 if anything is listed:

    scripts/run python -m devtools.translations          # every language
    scripts/run python -m devtools.translations fr pl    # just these
    scripts/run python -m devtools.translations --json   # the same, for a script

A key added to en.json (and de, nl) shows up here as missing in the other languages,
with its English text, ready to be translated.
"""

import argparse
from dataclasses import asdict, dataclass, field
import json
from pathlib import Path
import string
import sys
from typing import Any

TRANSLATIONS = (
    Path(__file__).parent.parent
    / "custom_components"
    / "agentic_conversation"
    / "translations"
)
SOURCE = "en"


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested translations tree as dotted keys (config.step.user.title …)."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def placeholders(text: str) -> set[str]:
    """The {names} a string formats."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def read(language: str, folder: Path = TRANSLATIONS) -> dict[str, Any]:
    """One language's strings, flattened."""
    path = folder / f"{language}.json"
    return flatten(json.loads(path.read_text(encoding="utf-8")))


def languages(folder: Path = TRANSLATIONS) -> list[str]:
    """Every language with a translations file, but the source."""
    return sorted(path.stem for path in folder.glob("*.json") if path.stem != SOURCE)


@dataclass
class Gaps:
    """What one language lacks or has wrong."""

    missing: dict[str, str] = field(default_factory=dict)  # key: English text
    extra: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    # key: (English placeholders, this language's)
    placeholders: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        """Whether there is anything to fix."""
        return bool(self.missing or self.extra or self.empty or self.placeholders)


def gaps(language: str, folder: Path = TRANSLATIONS) -> Gaps:
    """Compare one language with en.json."""
    english, translated = read(SOURCE, folder), read(language, folder)
    found = Gaps(
        missing={key: english[key] for key in english if key not in translated},
        extra=sorted(key for key in translated if key not in english),
    )
    for key, text in translated.items():
        if key not in english:
            continue
        if not isinstance(text, str) or not text.strip():
            found.empty.append(key)
        elif (wanted := placeholders(english[key])) != (got := placeholders(text)):
            found.placeholders[key] = (sorted(wanted), sorted(got))
    return found


def _report(language: str, found: Gaps) -> str:
    lines = [f"{language}:"]
    lines += [f"  missing {key}: {text!r}" for key, text in found.missing.items()]
    lines += [f"  not in {SOURCE}.json: {key}" for key in found.extra]
    lines += [f"  empty: {key}" for key in found.empty]
    lines += [
        f"  placeholders of {key}: {SOURCE} {wanted}, {language} {got}"
        for key, (wanted, got) in found.placeholders.items()
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """List the gaps; 1 if there are any."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("languages", nargs="*", help="default: every language")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)
    found = {language: gaps(language) for language in args.languages or languages()}
    if args.json:
        print(json.dumps({k: asdict(v) for k, v in found.items()}, indent=2))
    else:
        for language, language_gaps in found.items():
            print(
                _report(language, language_gaps) if language_gaps else f"{language}: ok"
            )
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
