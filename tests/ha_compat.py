"""Lets pytest-homeassistant-custom-component run on Home Assistant releases newer than its own.

The test plugin is made from one Home Assistant release (0.13.375: 2026.10.4) and lags
behind new ones. pyproject.toml loads this module with `-p tests.ha_compat`, before
pytest's entry-point plugins (the test plugin, respx…), to bridge what changed since:

- 2026.11: `import homeassistant` aliases `httpx` to `httpx2` and refuses to if `httpx`
  was imported already, which respx's plugin does: import Home Assistant first.
- 2026.11: `logger._clear_logger_overwrites`, which the plugin's common.py imports,
  moved to `logger.helpers`: make it importable from its old place again.

Both are no-ops on the release the plugin was made from. Remove what the plugin's
next release makes unneeded.
"""

import homeassistant  # noqa: F401 - first, see above
from homeassistant.components import logger

if not hasattr(logger, "_clear_logger_overwrites"):
    from homeassistant.components.logger import helpers

    logger._clear_logger_overwrites = helpers._clear_logger_overwrites  # type: ignore[attr-defined]  # noqa: SLF001
