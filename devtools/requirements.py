"""Requirement sets for scripts/setup: the test tools on any Home Assistant release.

`pytest-homeassistant-custom-component` pins the Home Assistant release it was made from
(and that release's versions of pydantic, numpy…), and lags behind new releases. To test
on a newer release, scripts/setup installs the release's requirement set, then the test
tools without their dependencies, then those dependencies that Home Assistant does not
pin itself (the ones it pins are left to its own pins):

    python -m devtools.requirements test-deps           # requirements to install
    python -m devtools.requirements constraints         # Home Assistant's own pins
    python -m devtools.requirements ha-set WHEEL TEMPLATE  # a set for another release

`ha-set` writes a requirement set like requirements_ha2026.11.txt (the TEMPLATE) for the
release of a downloaded homeassistant WHEEL, at that release's pins.
"""

import argparse
from collections.abc import Iterable, Iterator
from importlib import metadata
import json
from pathlib import Path
import re
import zipfile

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

# The test tools installed without their dependencies (requirements_test.txt).
TEST_TOOLS = (
    "pytest-homeassistant-custom-component",
    "hypothesis",
    "pytest-xdist",
    "mypy",
    "ruff",
    "selenium",
)
HOME_ASSISTANT = "homeassistant"
CONSTRAINTS = "homeassistant/package_constraints.txt"


def parse_requirements(lines: Iterable[str]) -> Iterator[Requirement]:
    """The requirements of a requirements file's lines (no options, no comments)."""
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        try:
            yield Requirement(line)
        except InvalidRequirement:
            continue


def _applies(requirement: Requirement) -> bool:
    """Whether a dependency applies here, without extras."""
    if requirement.marker is None:
        return True
    environment: dict[str, str] = {
        key: str(value) for key, value in default_environment().items()
    }
    return requirement.marker.evaluate({**environment, "extra": ""})


def home_assistant_pins() -> tuple[set[str], str]:
    """The names Home Assistant pins (its dependencies and constraints) and the file."""
    distribution = metadata.distribution(HOME_ASSISTANT)
    constraints = Path(str(distribution.locate_file(CONSTRAINTS)))
    names: set[str] = {
        canonicalize_name(req.name)
        for req in parse_requirements(distribution.requires or ())
    }
    names.update(
        canonicalize_name(req.name)
        for req in parse_requirements(constraints.read_text().splitlines())
    )
    return names, str(constraints)


def test_deps() -> list[str]:
    """The test tools' dependencies, those Home Assistant pins left unpinned."""
    pinned, _ = home_assistant_pins()
    wanted: dict[str, str] = {}
    for tool in TEST_TOOLS:
        for requirement in parse_requirements(metadata.requires(tool) or ()):
            name = canonicalize_name(requirement.name)
            if name == HOME_ASSISTANT or not _applies(requirement):
                continue
            if name in pinned:
                # Home Assistant's pin wins (passed to pip as a constraint).
                extras = f"[{','.join(sorted(requirement.extras))}]"
                wanted[name] = requirement.name + (extras if requirement.extras else "")
            else:
                requirement.marker = None
                wanted.setdefault(name, str(requirement))
    return sorted(wanted.values(), key=str.lower)


def release_pins(wheel: Path) -> dict[str, str]:
    """A release's pins: its package constraints and its components' requirements."""
    pins: dict[str, str] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if re.fullmatch(r"homeassistant/components/[^/]+/manifest\.json", name):
                manifest = json.loads(archive.read(name))
                for line in manifest.get("requirements", []):
                    for req in parse_requirements([line]):
                        pins[canonicalize_name(req.name)] = str(req.specifier)
        constraints = archive.read(CONSTRAINTS).decode().splitlines()
    for req in parse_requirements(constraints):
        pins[canonicalize_name(req.name)] = str(req.specifier)
    return pins


def ha_set(wheel: Path, template: Path) -> str:
    """The template's requirement set with the wheel's release and its pins."""
    version = wheel.name.split("-")[1]
    pins = release_pins(wheel)
    pins[HOME_ASSISTANT] = f"=={version}"
    header = f"# Home Assistant {version} at its own pins, from {template.name}."
    lines = [header]
    started = False  # the template's leading comment is about its own release
    for line in template.read_text().splitlines():
        requirement = next(parse_requirements([line]), None)
        if requirement is None:
            if started:
                lines.append(line)
            continue
        started = True
        name = canonicalize_name(requirement.name)
        specifier = pins.get(name)
        if specifier is None:
            # Our own requirement (manifest.json), which no release pins: kept as is.
            lines.append(line)
            continue
        lines.append(f"{requirement.name}{specifier}")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Print what the command asks for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("test-deps")
    commands.add_parser("constraints")
    release = commands.add_parser("ha-set")
    release.add_argument("wheel", type=Path)
    release.add_argument("template", type=Path)
    args = parser.parse_args()
    if args.command == "test-deps":
        print("\n".join(test_deps()))
    elif args.command == "constraints":
        print(home_assistant_pins()[1])
    else:
        print(ha_set(args.wheel, args.template), end="")


if __name__ == "__main__":
    main()
