"""What HACS and Home Assistant require of the package, and translations that match the code.

- hacs.json and manifest.json have what HACS and HA's loader require of a custom
  integration (HA blocks one without a valid `version`), and nothing they do not know.
- The brand icons HA 2026.3+ serves from the integration's own brand/ folder.
- Every language has exactly the keys and placeholders of en.json; every key the code
  uses exists, and every key exists because the code (or HA, for a short list of keys
  it uses implicitly) uses it.
"""

import ast
from collections.abc import Iterator
import importlib
import importlib.util
import json
from pathlib import Path
import re
import struct
from typing import Any

from awesomeversion import AwesomeVersion, AwesomeVersionStrategy
from packaging.requirements import Requirement
import pytest

from homeassistant import loader

from custom_components.agentic_conversation.const import DOMAIN
from custom_components.agentic_conversation.ending import Problem
from custom_components.agentic_conversation.languages import LANGUAGES as SPOKEN
from devtools import translations

REPO = Path(__file__).parent.parent
INTEGRATION = REPO / "custom_components" / DOMAIN
PACKAGE = f"custom_components.{DOMAIN}"
# Every language we ship but the source, English.
LANGUAGES = tuple(language for language in SPOKEN if language != "en")
# HACS's hacs.json keys (https://hacs.xyz/docs/publish/start#hacsjson).
HACS_KEYS = {
    "name",
    "content_in_root",
    "zip_release",
    "filename",
    "hide_default_branch",
    "country",
    "homeassistant",
    "persistent_directory",
    "render_readme",
    "hacs",
}
# What HACS requires of an integration's manifest; HA's loader needs `version` too.
MANIFEST_REQUIRED = {
    "domain",
    "name",
    "version",
    "documentation",
    "issue_tracker",
    "codeowners",
}
# Translation keys HA uses without our code naming them.
from custom_components.agentic_conversation import PLATFORMS  # noqa: E402

IMPLICIT_KEYS = {
    # ConfigFlow._async_abort_entries_match
    "config.abort.already_configured",
    # the default reasons of async_update_reload_and_abort / async_update_and_abort
    "config.abort.reauth_successful",
    "config.abort.reconfigure_successful",
    "config_subentries.conversation.abort.reconfigure_successful",
    # the frontend's labels for a subentry type and its buttons
    "config_subentries.conversation.entry_type",
    "config_subentries.conversation.initiate_flow.user",
    "config_subentries.conversation.initiate_flow.reconfigure",
    # HA's ConfirmRepairFlow (its "confirm" step) for a store file set aside
    *(
        f"issues.{issue}.fix_flow.step.confirm.{field}"
        for issue in ("conversations_set_aside", "memory_set_aside")
        for field in ("title", "description")
    ),
    "config_subentries.ai_task_data.abort.reconfigure_successful",
    "config_subentries.ai_task_data.entry_type",
    "config_subentries.ai_task_data.initiate_flow.user",
    "config_subentries.ai_task_data.initiate_flow.reconfigure",
}
# Parts of a key path that are HA's structure, not names our code uses.
STRUCTURE = {
    "config",
    "config_subentries",
    "step",
    "title",
    "description",
    "data",
    "data_description",
    # sections of a form, a repair issue's fix flow and its menus
    "sections",
    "fix_flow",
    "menu_options",
    "error",
    "abort",
    "selector",
    "options",
    "issues",
    "exceptions",
    "message",
    # entity names and states: entity.<platform>.<translation_key>.name
    "entity",
    "name",
    "state",
    "state_attributes",
    *(str(platform) for platform in PLATFORMS),
}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


_flatten = translations.flatten
_placeholders = translations.placeholders


def _requirement_sets() -> list[Path]:
    return [REPO / "requirements.txt", *sorted(REPO.glob("requirements_ha*.txt"))]


def _pins(path: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if re.match(r"^[A-Za-z0-9_.-]+==", line):
            name, version = line.split("==", 1)
            pins[name.lower()] = version.strip()
    return pins


EN = _flatten(_json(INTEGRATION / "translations" / "en.json"))


# --- hacs.json and manifest.json ---------------------------------------------------


def test_hacs_json() -> None:
    """hacs.json: HACS's keys only, a name, the oldest release we support."""
    hacs = _json(REPO / "hacs.json")

    assert set(hacs) <= HACS_KEYS
    assert isinstance(hacs["name"], str) and hacs["name"]
    oldest = AwesomeVersion(_pins(REPO / "requirements.txt")["homeassistant"])
    assert hacs["homeassistant"] == f"{oldest.year}.{oldest.minor}.0"
    if hacs.get("render_readme"):
        assert (REPO / "README.md").is_file()
    # HACS installs the one integration under custom_components/.
    assert not hacs.get("content_in_root", False)
    integrations = [
        p.name for p in (REPO / "custom_components").iterdir() if p.is_dir()
    ]
    assert [name for name in integrations if name != "__pycache__"] == [DOMAIN]


def test_manifest_json() -> None:
    """manifest.json: what HACS and HA's loader need, all of it valid."""
    manifest = _json(INTEGRATION / "manifest.json")

    assert set(manifest) >= MANIFEST_REQUIRED
    assert set(manifest) <= set(loader.Manifest.__annotations__)
    assert manifest["domain"] == DOMAIN == INTEGRATION.name
    # HA's loader blocks a custom integration whose version is not one of these.
    AwesomeVersion(
        manifest["version"],
        ensure_strategy=[
            AwesomeVersionStrategy.CALVER,
            AwesomeVersionStrategy.SEMVER,
            AwesomeVersionStrategy.SIMPLEVER,
            AwesomeVersionStrategy.BUILDVER,
            AwesomeVersionStrategy.PEP440,
        ],
    )
    assert manifest["documentation"].startswith("https://")
    assert manifest["issue_tracker"].startswith("https://")
    assert manifest["codeowners"]
    assert all(owner.startswith("@") for owner in manifest["codeowners"])
    assert manifest["integration_type"] in {
        "device",
        "entity",
        "hardware",
        "helper",
        "hub",
        "service",
        "system",
        "virtual",
    }
    assert manifest["iot_class"] in {
        "assumed_state",
        "calculated",
        "cloud_polling",
        "cloud_push",
        "local_polling",
        "local_push",
    }
    assert manifest.get("config_flow") is (INTEGRATION / "config_flow.py").is_file()
    for domain in manifest.get("dependencies", []) + manifest.get(
        "after_dependencies", []
    ):
        assert importlib.util.find_spec(f"homeassistant.components.{domain}"), domain


@pytest.mark.parametrize("requirements", _requirement_sets(), ids=lambda p: p.name)
def test_manifest_requirements_hold_on_every_supported_release(
    requirements: Path,
) -> None:
    """Each release we support pins versions our manifest's requirements accept."""
    manifest = _json(INTEGRATION / "manifest.json")
    pins = _pins(requirements)

    for line in manifest["requirements"]:
        requirement = Requirement(line)
        pinned = pins.get(requirement.name.lower())
        assert pinned is not None, f"{requirements.name} pins no {requirement.name}"
        assert requirement.specifier.contains(pinned), (requirement, pinned)


@pytest.mark.parametrize(("name", "size"), [("icon.png", 256), ("icon@2x.png", 512)])
def test_brand_icons(name: str, size: int) -> None:
    """Square PNG icons in brand/, as HA 2026.3+ serves them for custom integrations."""
    data = (INTEGRATION / "brand" / name).read_bytes()

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (size, size)


# --- translations ------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_the_keys_and_placeholders_of_english(
    language: str,
) -> None:
    """Same keys, same {placeholders} per string, nothing empty."""
    translated = _flatten(_json(INTEGRATION / "translations" / f"{language}.json"))

    assert sorted(set(EN) - set(translated)) == [], "missing"
    assert sorted(set(translated) - set(EN)) == [], "not in en.json"
    for key, text in translated.items():
        assert isinstance(text, str) and text.strip(), key
        assert _placeholders(text) == _placeholders(EN[key]), key


def test_the_languages_we_speak_are_the_languages_we_ship() -> None:
    """A translations file for each language whose answers we judge, and no other."""
    assert translations.languages() == sorted(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_translation_gaps_script_finds_nothing(language: str) -> None:
    """devtools/translations.py (what the lead runs to fill new keys) agrees."""
    assert not translations.gaps(language)
    assert translations.main([language]) == 0


def test_the_translation_gaps_script_finds_gaps(tmp_path: Path) -> None:
    """A missing key, an extra one, an empty one and a lost placeholder are listed."""
    english = {"a": {"b": "Hi {name}", "c": "Bye", "d": "Yes"}}
    french = {"a": {"b": "Salut", "d": " "}, "z": "?"}
    (tmp_path / "en.json").write_text(json.dumps(english), encoding="utf-8")
    (tmp_path / "fr.json").write_text(json.dumps(french), encoding="utf-8")

    found = translations.gaps("fr", tmp_path)

    assert found.missing == {"a.c": "Bye"}
    assert found.extra == ["z"]
    assert found.empty == ["a.d"]
    assert found.placeholders == {"a.b": (["name"], [])}


class _Code:
    """What the integration's code names: strings, translation keys, flow steps."""

    def __init__(self) -> None:
        self.strings: set[str] = set()
        self.steps: set[str] = set()
        # (section, key, placeholders given or None) of each translation_key= call
        self.translation_keys: list[tuple[str, str, set[str] | None]] = []
        self.flow_errors: set[str] = set()
        self.flow_aborts: set[str] = set()
        self.shown_steps: set[str] = set()
        # A form shown under a step id held by the flow class (`self.new_step`): the
        # ids the classes give that attribute.
        self.step_attributes: set[str] = set()
        self.class_strings: dict[str, set[str]] = {}
        for path in sorted(INTEGRATION.rglob("*.py")):
            module_name = ".".join(path.relative_to(REPO).with_suffix("").parts)
            module = importlib.import_module(module_name.removesuffix(".__init__"))
            # module-level strings, also those imported from HA (CONF_NAME…)
            self.strings.update(v for v in vars(module).values() if isinstance(v, str))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                self._visit(node, module)
        for attribute in self.step_attributes:
            self.shown_steps.update(self.class_strings.get(attribute, {""}))

    def _value(self, node: ast.expr, module: Any) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return getattr(module, node.id, None)
        return None

    def _visit(self, node: ast.AST, module: Any) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.strings.add(node.value)
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                target = (
                    statement.targets[0]
                    if isinstance(statement, ast.Assign)
                    else statement.target
                    if isinstance(statement, ast.AnnAssign)
                    else None
                )
                value = getattr(statement, "value", None)
                if (
                    isinstance(target, ast.Name)
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    self.class_strings.setdefault(target.id, set()).add(value.value)
        elif isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef):
            if node.name.startswith("async_step_"):
                self.steps.add(node.name.removeprefix("async_step_"))
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "base":
                    self.flow_errors.add(self._value(value, module))
        elif isinstance(node, ast.Assign):
            target = node.targets[0]
            if isinstance(target, ast.Subscript) and ast.unparse(target.value) == (
                "errors"
            ):
                self.flow_errors.add(self._value(node.value, module))
        elif isinstance(node, ast.Call):
            self._visit_call(node, module)

    def _shown_step(self, node: ast.expr, module: Any) -> None:
        """A form's step id: a value, one of two, or a flow class's attribute."""
        if isinstance(node, ast.IfExp):
            self._shown_step(node.body, module)
            self._shown_step(node.orelse, module)
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value) == "self":
            self.step_attributes.add(node.attr)
        else:
            self.shown_steps.add(self._value(node, module))

    def _visit_call(self, node: ast.Call, module: Any) -> None:
        function = ast.unparse(node.func).rsplit(".", 1)[-1]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if function == "async_abort" and "reason" in keywords:
            self.flow_aborts.add(self._value(keywords["reason"], module))
        if function == "async_show_form" and "step_id" in keywords:
            self._shown_step(keywords["step_id"], module)
        if function == "ExtrasError" and node.args:
            # A request-extras check's form error (server/extras.py).
            self.flow_errors.add(self._value(node.args[0], module))
        if function == "MemoryLimitError" and node.args:
            # Carries its key to a ServiceValidationError (todo.py): checked here.
            key = self._value(node.args[0], module)
            assert isinstance(key, str), ast.unparse(node)
            self.translation_keys.append(("exceptions", key, None))
        if "translation_key" not in keywords:
            return
        if isinstance(keywords["translation_key"], ast.Attribute):
            return  # an exception's key (err.key), checked where it is raised
        key = self._value(keywords["translation_key"], module)
        assert isinstance(key, str), ast.unparse(node)
        section = "exceptions"
        if function == "async_create_issue":
            section = "issues"
        elif function.endswith("SelectorConfig"):
            section = "selector"
        given: set[str] | None = None
        if isinstance(
            placeholders := keywords.get("translation_placeholders"), ast.Dict
        ):
            given = {str(self._value(k, module)) for k in placeholders.keys if k}
        self.translation_keys.append((section, key, given))


@pytest.fixture(scope="module")
def code() -> _Code:
    """The integration's code, read once."""
    return _Code()


def _section_keys(section: str) -> Iterator[str]:
    """The names directly under every `section` map (config.error, …error, …)."""
    for key in EN:
        parts = key.split(".")
        for index, part in enumerate(parts[:-1]):
            if part == section:
                yield parts[index + 1]


def test_every_key_the_code_uses_exists(code: _Code) -> None:
    """translation_key=, the spoken Problems, flow errors, aborts and steps."""
    for section, key, given in code.translation_keys:
        texts = [text for k, text in EN.items() if k.startswith(f"{section}.{key}.")]
        assert texts, f"{section}.{key}"
        if given is not None and section != "selector":
            wanted = set().union(*(_placeholders(text) for text in texts))
            assert given == wanted, f"{section}.{key}: placeholders"
    for problem in Problem:
        assert f"exceptions.{problem.value}.message" in EN
    assert code.flow_errors
    assert code.flow_errors <= set(_section_keys("error"))
    assert code.flow_aborts
    assert code.flow_aborts <= set(_section_keys("abort"))
    assert code.shown_steps <= set(_section_keys("step"))
    # The flows live in the flows package: its forms are read too.
    assert {"user", "reauth_confirm", "reconfigure", "new_agent", "set_options"} <= (
        code.shown_steps
    )


def test_every_key_is_used(code: _Code) -> None:
    """Each name in a key path is one the code uses (or HA, for IMPLICIT_KEYS)."""
    assert set(EN) >= IMPLICIT_KEYS
    unused: list[str] = []
    for key in EN:
        if key in IMPLICIT_KEYS:
            continue
        parts = key.split(".")
        for index, part in enumerate(parts):
            if part in STRUCTURE:
                continue
            used = (
                part in code.steps
                if index and parts[index - 1] == "step"
                else part in code.strings
            )
            if not used:
                unused.append(key)
                break
    assert unused == []
