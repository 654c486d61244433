"""`scripts/develop` stops Home Assistant as a restart does, so its last writes happen."""

import asyncio
import os
from pathlib import Path
import signal
import subprocess
import sys
import time

from devtools import dev_server

# A stand-in for `hass`: its first SIGTERM starts a stop that takes a while and ends with
# a final write; like Home Assistant, it drops its handler then, so a second signal
# kills it mid-stop and nothing is written.
FAKE_HASS = """
import pathlib, signal, sys, time
out = pathlib.Path(sys.argv[1])
def stop(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    time.sleep(1.0)
    out.write_text("final write")
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
pathlib.Path(sys.argv[1] + ".ready").write_text("")
while True:
    time.sleep(0.05)
"""


def _fake_hass(tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    out = tmp_path / "written"
    process = dev_server.start_in_own_group([sys.executable, "-c", FAKE_HASS, str(out)])
    while not Path(f"{out}.ready").exists():
        time.sleep(0.05)
    return process, out


async def test_stopping_sends_one_signal_and_waits_for_the_final_write(
    tmp_path: Path,
) -> None:
    """One SIGTERM, then the dev server waits: the stop's last write happens."""
    process, out = _fake_hass(tmp_path)

    code = await dev_server.stop_hass(process, timeout=30)

    assert code == 0
    assert out.read_text() == "final write"


async def test_a_second_ctrl_c_kills_home_assistant(tmp_path: Path) -> None:
    """Impatience wins: a second Ctrl+C (force) kills it mid-stop."""
    process, out = _fake_hass(tmp_path)
    force = asyncio.Event()
    force.set()

    code = await dev_server.stop_hass(process, timeout=30, force=force)

    assert code == -signal.SIGKILL
    assert not out.exists()


def test_hass_runs_in_its_own_process_group(tmp_path: Path) -> None:
    """The terminal's SIGINT goes to the dev server's process group, not to hass's."""
    process, _ = _fake_hass(tmp_path)
    try:
        assert os.getpgid(process.pid) == process.pid
        assert os.getpgid(process.pid) != os.getpgid(0)
    finally:
        process.kill()
        process.wait()
