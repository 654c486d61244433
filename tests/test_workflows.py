"""The GitHub workflows a HACS integration carries, so none can silently disappear.

hassfest, the HACS validation action and the README's test command on every supported
release run on each push and pull request; the README's badges point at them.
"""

import json
from pathlib import Path
import re
from typing import Any

import pytest
import yaml

from custom_components.agentic_conversation.const import DOMAIN

REPO = Path(__file__).parent.parent
WORKFLOWS = REPO / ".github" / "workflows"


def _workflow(name: str) -> dict[str, Any]:
    loaded: dict[Any, Any] = yaml.safe_load((WORKFLOWS / name).read_text())
    # YAML 1.1 reads a bare `on` key as True.
    loaded["on"] = loaded.pop(True, loaded.get("on"))
    return loaded


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    (job,) = workflow["jobs"].values()
    steps: list[dict[str, Any]] = job["steps"]
    return steps


def _uses(workflow: dict[str, Any]) -> list[str]:
    return [step["uses"] for step in _steps(workflow) if "uses" in step]


def _released(requirements: Path) -> str:
    """The Home Assistant release a requirement set pins, as X.Y."""
    pin = re.search(
        r"^homeassistant==(\d+\.\d+)\.", requirements.read_text(), re.MULTILINE
    )
    assert pin, requirements
    return pin.group(1)


@pytest.mark.parametrize("name", ["hassfest.yaml", "hacs.yaml", "tests.yaml"])
def test_each_workflow_runs_on_push_and_pull_request(name: str) -> None:
    """On every push and pull request, whatever the branch."""
    triggers = _workflow(name)["on"]

    assert {"push", "pull_request"} <= set(triggers)
    assert triggers["push"] is None
    assert triggers["pull_request"] is None


def test_hassfest_validates_the_checked_out_integration() -> None:
    """Home Assistant's official action, on the repository's files."""
    assert _uses(_workflow("hassfest.yaml")) == [
        "actions/checkout@v4",
        "home-assistant/actions/hassfest@master",
    ]


def test_hacs_validates_an_integration() -> None:
    """The HACS action, told what kind of repository this is."""
    (step,) = _steps(_workflow("hacs.yaml"))

    assert step == {"uses": "hacs/action@main", "with": {"category": "integration"}}


def test_the_tests_run_the_readme_command_on_every_supported_release() -> None:
    """scripts/test --ha X.Y for each requirement set, with a Python 3.14 on PATH."""
    workflow = _workflow("tests.yaml")
    (job,) = workflow["jobs"].values()
    supported = sorted(
        _released(path)
        for path in [REPO / "requirements.txt", *REPO.glob("requirements_ha*.txt")]
    )

    assert sorted(job["strategy"]["matrix"]["ha"]) == supported
    assert job["strategy"]["fail-fast"] is False
    setup = next(
        s
        for s in _steps(workflow)
        if s.get("uses", "").startswith("actions/setup-python")
    )
    assert setup["with"]["python-version"] == "3.14"
    assert [
        step["run"] for step in _steps(workflow) if "scripts/" in step.get("run", "")
    ] == ["scripts/test --ha ${{ matrix.ha }}"]
    assert "scripts/test" in (REPO / "README.md").read_text()


def test_the_readme_shows_a_badge_for_each_workflow() -> None:
    """Badges of this repository's workflows (the manifest's), and HACS's."""
    manifest = json.loads(
        (REPO / "custom_components" / DOMAIN / "manifest.json").read_text()
    )
    actions = f"{manifest['documentation']}/actions/workflows"
    readme = (REPO / "README.md").read_text()
    top = readme.split("\n\n", 2)[1]  # the paragraph under the title

    for workflow in sorted(path.name for path in WORKFLOWS.glob("*.yaml")):
        assert f"({actions}/{workflow}/badge.svg)]({actions}/{workflow})" in top
    assert (
        "[![HACS Custom](https://img.shields.io/badge/HACS-Custom-41BDF5.svg)]" in top
    )
    assert manifest["issue_tracker"] == f"{manifest['documentation']}/issues"
