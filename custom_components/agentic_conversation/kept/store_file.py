"""Store files we cannot read as ours are copied aside, never overwritten.

A file of the wrong shape, written by a newer version of the integration (a higher
version or minor version than ours: HA would "migrate" it down and overwrite it), or
holding unreadable parts is copied next to itself as `<file>.corrupt.<time>` (as HA does
with files that are not JSON), logged, and raised as a Repair. Then we go on with what
we could read; the next save writes a file of ours, the copy stays.
"""

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.json import save_json
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util

from ..const import DOMAIN, LOGGER


class KeptFile(StrEnum):
    """Which of a connection's files (the Repair's translation key names it)."""

    CONVERSATIONS = "conversations_set_aside"
    MEMORY = "memory_set_aside"


class NewerFileError(Exception):
    """The file was written by a newer version of the integration."""

    def __init__(self, version: int, minor_version: int, data: Any) -> None:
        """What was read, to be copied aside."""
        super().__init__(f"written by a newer version ({version}.{minor_version})")
        self.version = version
        self.minor_version = minor_version
        self.data = data


class KeptStore(Store[dict[str, Any]]):
    """A `Store` that refuses a newer file instead of migrating it down over itself."""

    def __init__(
        self, hass: HomeAssistant, version: int, key: str, *, private: bool = False
    ) -> None:
        """Any version is handed to the migration, which refuses newer ones."""
        super().__init__(
            hass, version, key, private=private, max_readable_version=1 << 30
        )

    async def _async_migrate_func(
        self, old_major_version: int, old_minor_version: int, old_data: Any
    ) -> dict[str, Any]:
        if (old_major_version, old_minor_version) > (self.version, self.minor_version):
            raise NewerFileError(old_major_version, old_minor_version, old_data)
        # An older minor version of ours reads as it is (as Store does).
        raise NotImplementedError


async def async_load_kept(store: KeptStore, kind: KeptFile, entry_id: str) -> Any:
    """What the file holds (None: nothing); a newer one is set aside and gives None."""
    try:
        return await store.async_load()
    except NewerFileError as err:
        await async_set_aside(
            store,
            kind,
            entry_id,
            err.data,
            str(err),
            version=err.version,
            minor_version=err.minor_version,
        )
    except Exception as err:  # noqa: BLE001 - a bad file must never fail setup
        # Not JSON: HA itself has moved it aside and raised a Repair.
        LOGGER.warning("%s could not be read (%s); starting empty", store.path, err)
    return None


async def async_set_aside(  # noqa: PLR0913 - what was read and why
    store: Store[Any],
    kind: KeptFile,
    entry_id: str,
    data: Any,
    reason: str,
    *,
    version: int | None = None,
    minor_version: int | None = None,
) -> None:
    """Copy what the file holds next to it, log it and raise a Repair."""
    hass = store.hass
    stamp = dt_util.utcnow().strftime("%Y%m%dT%H%M%S")
    copy = f"{store.path}.corrupt.{stamp}"
    envelope: Mapping[str, Any] = {
        "version": store.version if version is None else version,
        "minor_version": store.minor_version
        if minor_version is None
        else minor_version,
        "key": store.key,
        "data": data,
    }
    try:
        await hass.async_add_executor_job(_write_copy, copy, envelope)
    except Exception:  # noqa: BLE001 - the Repair must still be raised
        LOGGER.exception("Could not copy %s aside to %s", store.path, copy)
    LOGGER.error(
        "%s cannot be read as ours (%s): copied aside to %s; what could not be read "
        "is not used",
        store.path,
        reason,
        copy,
    )
    ir.async_create_issue(
        hass,
        DOMAIN,
        f"{kind}_{entry_id}_{stamp}",
        is_fixable=True,
        is_persistent=True,
        severity=ir.IssueSeverity.ERROR,
        translation_key=kind.value,
        translation_placeholders={"path": store.path, "copy": copy},
        data={"set_aside": True},
    )


def _write_copy(path: str, envelope: Mapping[str, Any]) -> None:
    """Write the copy (private: the memory holds personal facts)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    save_json(path, dict(envelope), private=True)
