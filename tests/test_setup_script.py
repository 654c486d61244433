"""scripts/setup explains what to install when it can neither find nor build a Python 3.14."""

from collections.abc import Iterator
import os
from pathlib import Path
import shutil
import subprocess
import tempfile

import pytest

REPO = Path(__file__).parent.parent
# What scripts/setup needs to get as far as its message; deliberately no python, apt-get
# or debootstrap.
TOOLS = ("bash", "env", "id", "dirname", "basename", "cat", "cut", "sha256sum", "mkdir")


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A temporary directory that the unprivileged user can traverse too."""
    path = Path(tempfile.mkdtemp(prefix="agentic-setup-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


def _run_setup_without_python(
    tmp_path: Path, as_nobody: bool
) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, f"{tool} is needed for this test"
        (bin_dir / tool).symlink_to(found)
    home = tmp_path / "home"
    home.mkdir(mode=0o777)
    command = [str(REPO / "scripts" / "setup")]
    if as_nobody:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to drop root"
        command = [
            setpriv,
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            *command,
        ]
    return subprocess.run(
        command,
        env={"PATH": str(bin_dir), "HOME": str(home), "AGENTIC_PYTHON": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_no_python_and_not_root_says_what_to_install(tmp_path: Path) -> None:
    """No Python >= 3.14.2 and no root: exit non-zero with an actionable message."""
    result = _run_setup_without_python(tmp_path, as_nobody=os.getuid() == 0)

    assert result.returncode != 0
    message = result.stderr
    assert "needs Python >= 3.14.2" in message
    assert "root privileges" in message
    # says exactly what to do
    assert "install Python 3.14" in message
    assert "AGENTIC_PYTHON=/path/to/python3.14 scripts/setup" in message
    assert "dev container" in message
    assert "Traceback" not in message


@pytest.mark.skipif(os.getuid() != 0, reason="the root-only path needs root")
def test_root_without_debootstrap_or_apt_says_what_to_install(tmp_path: Path) -> None:
    """Root, but no Python and no way to build the root: a clear message, not a crash."""
    result = _run_setup_without_python(tmp_path, as_nobody=False)

    assert result.returncode != 0
    assert "needs Python >= 3.14.2" in result.stderr
    assert "needs debootstrap" in result.stderr
