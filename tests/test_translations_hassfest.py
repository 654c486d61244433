"""Every translation file passes hassfest's rules, as the hassfest action checks them.

hassfest (what `home-assistant/actions/hassfest` runs on a custom integration, and HACS
expects to pass) validates translations/en.json; Home Assistant loads every language,
so all 16 files are held to its rules here. The rules mirror home-assistant/core's
script/hassfest/translations.py (dev branch, read 2026-11): `validate_translation_value`
for each string, `gen_strings_schema`, `gen_data_entry_schema` and `gen_issues_schema`
for which keys may stand where and in what form. HA's own `cv.string_with_no_html` and
`cv.slug` are called from the installed release.

That every language has en.json's keys and {placeholders} is
tests/test_packaging.py's test_every_language_has_the_keys_and_placeholders_of_english.
"""

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
import json
from pathlib import Path
import re
import string
from typing import Any

import probatio
import pytest

import homeassistant.helpers.config_validation as cv

from custom_components.agentic_conversation.const import DOMAIN

TRANSLATIONS = (
    Path(__file__).parent.parent / "custom_components" / DOMAIN / "translations"
)

# The patterns of script/hassfest/translations.py: RE_TRANSLATION_KEY,
# RE_PLACEHOLDER_IN_SINGLE_QUOTES, RE_COMBINED_REFERENCE and RE_URL.
TRANSLATION_KEY = re.compile(r"^(?!.+[_-]{2})(?![_-])[a-z0-9-_]+(?<![_-])$")
QUOTED_PLACEHOLDER = re.compile(r"'{\w+}'")
COMBINED_REFERENCE = re.compile(r"(.+\[%)|(%\].+)")
URL = re.compile(
    r"(((ftp|ftps|scp|http|https|mqtt|mqtts|socket|socks5):\/\/|www\.)"
    r"[a-z0-9]+([\-\.]{1}[a-z0-9]+)*\.[a-z]{2,5}(:[0-9]{1,5})?(\/.*)?)",
    re.IGNORECASE,
)


def string_problems(text: object, *, placeholders: bool = True) -> list[str]:
    """What hassfest's validate_translation_value finds wrong with one string."""
    if not isinstance(text, str):
        return ["not a string"]
    found = []
    try:
        cv.string_with_no_html(text)  # the frontend would read `<word>` as HTML
    except probatio.Invalid as err:
        found.append(str(err))
    if QUOTED_PLACEHOLDER.search(text):
        found.append("a placeholder in single quotes")
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(text) if name]
    except ValueError as err:  # a lone { or }
        names = []
        found.append(f"not a format string: {err}")
    if names and not placeholders:
        found.append("placeholders are not allowed here")
    found += [
        f"placeholder {{{n}}} is no identifier" for n in names if not n.isidentifier()
    ]
    if COMBINED_REFERENCE.search(text):
        found.append("a combined translation reference")
    if text != text.strip():
        found.append("leading or trailing whitespace")
    if URL.search(text):
        found.append("a URL (hassfest wants it as a placeholder)")
    return found


# --- which keys may stand where ----------------------------------------------------

KeyRule = Callable[[str], bool]


def _any(_key: str) -> bool:
    return True  # hassfest: `str`


def _translation_key(key: str) -> bool:
    return TRANSLATION_KEY.match(key) is not None


def _slug(key: str) -> bool:
    try:
        cv.slug(key)
    except probatio.Invalid:
        return False
    return True


def _slug_or_underscore(key: str) -> bool:
    return key == "_" or _slug(key)


@dataclass(frozen=True)
class Text:
    """A translated string."""

    placeholders: bool = True


@dataclass(frozen=True)
class Keys:
    """A map whose keys pass `rule` (named `form` in errors), each value by `value`."""

    rule: KeyRule
    form: str
    value: Spec


@dataclass(frozen=True)
class Fields:
    """A map of these keys only; `exclusive`: exactly one of them."""

    fields: Mapping[str, Spec]
    required: frozenset[str] = frozenset()
    exclusive: tuple[str, ...] = ()
    # extra keys, e.g. a subentry flow's initiate_flow besides "user"
    others: Keys | None = None
    check: Callable[[dict[str, Any]], list[str]] = field(default=lambda _value: [])


Spec = Text | Keys | Fields
TEXT = Text()
PLAIN = Text(placeholders=False)


def _texts(rule: KeyRule = _any, form: str = "any") -> Keys:
    return Keys(rule, form, TEXT)


def _described_fields(step: dict[str, Any]) -> list[str]:
    """gen_data_entry_schema's data_description_validator."""
    fields = step.get("data", {})
    return [
        f"data_description.{key} is not in data"
        for key in step.get("data_description", {})
        if key not in fields
    ]


_STEP = Fields(
    {
        "title": TEXT,
        "description": TEXT,
        "data": _texts(),
        "data_description": _texts(),
        "menu_options": _texts(),
        "menu_option_descriptions": _texts(),
        "submit": TEXT,
        "sections": Keys(
            _any,
            "any",
            Fields(
                {
                    "data": _texts(),
                    "data_description": _texts(),
                    "description": TEXT,
                    "name": TEXT,
                }
            ),
        ),
    },
    check=_described_fields,
)


def _flow(*, subentry: bool = False) -> Fields:
    """A config, options, subentry or repair flow (no flow `title`: removed in 0.109)."""
    fields: dict[str, Spec] = {
        "flow_title": TEXT,
        "step": Keys(_any, "any", _STEP),
        "error": _texts(),
        "abort": _texts(),
        "progress": _texts(),
        "create_entry": _texts(),
        "initiate_flow": Fields({"user": TEXT}, required=frozenset({"user"})),
    }
    if subentry:
        fields["entry_type"] = TEXT
        fields["initiate_flow"] = Fields(
            {"user": TEXT}, required=frozenset({"user"}), others=_texts()
        )
    required = {"step", "entry_type", "initiate_flow"} if subentry else {"step"}
    return Fields(fields, required=frozenset(required))


# An issue has a title and a description OR a fix flow: for a fixable one the
# frontend shows the flow's steps, never the description.
_ISSUE = Fields(
    {"title": TEXT, "description": TEXT, "fix_flow": _flow()},
    required=frozenset({"title"}),
    exclusive=("description", "fix_flow"),
)
_ENTITY = Fields(
    {
        "name": TEXT,
        "state": Keys(_translation_key, "translation key", PLAIN),
        "state_attributes": Keys(
            _translation_key,
            "translation key",
            Fields(
                {
                    "name": PLAIN,
                    "state": Keys(_translation_key, "translation key", PLAIN),
                }
            ),
        ),
        "unit_of_measurement": PLAIN,
    }
)
_SELECTOR = Fields(
    {
        name: _texts(_translation_key, "translation key")
        for name in ("choices", "options", "unit_of_measurement")
    }
)
# The sections this integration uses; another one needs its rules added here.
STRINGS = Fields(
    {
        "title": TEXT,
        "config": _flow(),
        "config_subentries": Keys(_slug_or_underscore, "slug", _flow(subentry=True)),
        "options": _flow(),
        "selector": Keys(_slug_or_underscore, "slug", _SELECTOR),
        "issues": Keys(_any, "any", _ISSUE),
        "exceptions": Keys(_slug, "slug", Fields({"message": TEXT})),
        "entity": Keys(
            _slug, "slug", Keys(_translation_key, "translation key", _ENTITY)
        ),
    }
)


def problems(value: Any, spec: Spec = STRINGS, path: str = "") -> Iterator[str]:
    """Everything hassfest would reject in a translations tree, as 'path: why'."""
    where = path.removesuffix(".") or "(top)"
    if isinstance(spec, Text):
        yield from (
            f"{where}: {why}"
            for why in string_problems(value, placeholders=spec.placeholders)
        )
        return
    if not isinstance(value, dict):
        yield f"{where}: expected a map"
        return
    if isinstance(spec, Keys):
        yield from _keys(value, spec, path)
        return
    for key in sorted(spec.required - set(value)):
        yield f"{where}: {key} is required"
    if spec.exclusive and sum(key in value for key in spec.exclusive) != 1:
        yield f"{where}: exactly one of {', '.join(spec.exclusive)}"
    yield from (f"{where}: {why}" for why in spec.check(value))
    for key, item in value.items():
        if key in spec.fields:
            yield from problems(item, spec.fields[key], f"{path}{key}.")
        elif spec.others is not None:
            yield from _keys({key: item}, spec.others, path)
        else:
            yield f"{where}: {key} is not allowed here"


def _keys(value: dict[str, Any], spec: Keys, path: str) -> Iterator[str]:
    for key, item in value.items():
        if not spec.rule(key):
            yield f"{path}{key}: not a {spec.form}"
        yield from problems(item, spec.value, f"{path}{key}.")


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


FILES = sorted(TRANSLATIONS.glob("*.json"))


def test_there_are_sixteen_languages() -> None:
    """The parametrized test below runs on every file (a lost glob would pass)."""
    assert len(FILES) == 16
    assert TRANSLATIONS / "en.json" in FILES


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_the_translation_file_passes_hassfest(path: Path) -> None:
    """No `<word>`, one of description or fix flow per issue, keys in their form."""
    assert list(problems(_read(path))) == []


# --- the rules catch what hassfest catches -----------------------------------------

_FLOW = {"step": {"init": {"description": "How should **{agent}** go on?"}}}


@pytest.mark.parametrize(
    ("strings", "found"),
    [
        # The three errors hassfest found in 0.1's translations.
        (
            {"issues": {"x": {"title": "T", "description": "`--parser <parser>`"}}},
            ["issues.x.description: the string should not contain HTML"],
        ),
        (
            {"issues": {"x": {"title": "T", "description": "D", "fix_flow": _FLOW}}},
            ["issues.x: exactly one of description, fix_flow"],
        ),
        (
            {"issues": {"x": {"title": "T"}}},
            ["issues.x: exactly one of description, fix_flow"],
        ),
        ({"issues": {"x": {"description": "D"}}}, ["issues.x: title is required"]),
        # Strings
        ({"title": "Set it '{name}'"}, ["title: a placeholder in single quotes"]),
        ({"title": "Hi {0}"}, ["title: placeholder {0} is no identifier"]),
        (
            {"title": "Open {"},
            ["title: not a format string: Single '{' encountered in format string"],
        ),
        ({"title": " Hi"}, ["title: leading or trailing whitespace"]),
        (
            {"title": "See https://example.com/x"},
            ["title: a URL (hassfest wants it as a placeholder)"],
        ),
        (
            {"title": "[%key:common::a%] b"},
            ["title: a combined translation reference"],
        ),
        ({"title": 3}, ["title: not a string"]),
        (
            {"entity": {"sensor": {"tokens": {"state": {"on": "{n} on"}}}}},
            ["entity.sensor.tokens.state.on: placeholders are not allowed here"],
        ),
        # Keys
        (
            {"exceptions": {"Bad-Key": {"message": "M"}}},
            ["exceptions.Bad-Key: not a slug"],
        ),
        (
            {"selector": {"tools": {"options": {"a__b": "A", "_c": "C", "ok-1": "K"}}}},
            [
                "selector.tools.options.a__b: not a translation key",
                "selector.tools.options._c: not a translation key",
            ],
        ),
        (
            {"entity": {"sensor": {"Input": {"name": "N"}}}},
            ["entity.sensor.Input: not a translation key"],
        ),
        (
            {"config": {"title": "T", "step": {}}},
            ["config: title is not allowed here"],
        ),
        ({"config": {"error": {}}}, ["config: step is required"]),
        ({"services": {}}, ["(top): services is not allowed here"]),
        (
            {
                "config": {
                    "step": {
                        "user": {"data": {"a": "A"}, "data_description": {"b": "B"}}
                    }
                }
            },
            ["config.step.user: data_description.b is not in data"],
        ),
        (
            {"config_subentries": {"agent": {"step": {}, "entry_type": "A"}}},
            ["config_subentries.agent: initiate_flow is required"],
        ),
        # What passes
        (
            {
                "title": "A 5 < 6 comparison, a -> b, an <!-- comment -> is fine",
                "config_subentries": {
                    "agent": {
                        "step": {
                            "user": {"data": {"a": "A"}, "data_description": {"a": "B"}}
                        },
                        "entry_type": "Agent",
                        "initiate_flow": {"user": "Add", "reconfigure": "Change"},
                    }
                },
                "issues": {"x": {"title": "T {agent}", "fix_flow": _FLOW}},
            },
            [],
        ),
    ],
)
def test_the_rules_find_what_hassfest_finds(
    strings: dict[str, Any], found: list[str]
) -> None:
    """Each rule on a small tree: the message names the key and the rule."""
    assert list(problems(strings)) == found
