"""The acceptance homes write files (the shopping list): each test gets its own folder."""

import pytest


@pytest.fixture
def hass_config_dir(hass_tmp_config_dir: str) -> str:
    """A configuration folder of the test's own."""
    return hass_tmp_config_dir
