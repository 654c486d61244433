"""The one form helper of the flows: sections, whole numbers, a password box.

The forms show their fields in sections; the options are stored flat.
"""

from collections.abc import Collection, Mapping
from typing import Any

import probatio

from homeassistant.data_entry_flow import section
from homeassistant.helpers.selector import (
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

PASSWORD = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))


def flatten(
    user_input: Mapping[str, Any], sections: Collection[str], *, drop: str = ""
) -> dict[str, Any]:
    """The form's sections as one flat mapping, without the `drop` field."""
    flat: dict[str, Any] = {}
    for key, value in user_input.items():
        if key in sections:
            flat.update(value)
        elif key != drop:
            flat[key] = value
    return flat


def fields_of(schema: probatio.Schema) -> dict[str, str | None]:
    """Each field of the form and its section (None: at the top)."""
    where: dict[str, str | None] = {}
    for key, value in schema.schema.items():
        if isinstance(value, section):
            where.update(dict.fromkeys(map(str, value.schema.schema), str(key)))
        else:
            where[str(key)] = None
    return where


def nest(schema: probatio.Schema, flat: Mapping[str, Any]) -> dict[str, Any]:
    """Flat values as the sectioned form's suggested values."""
    nested: dict[str, Any] = {name: {} for name in map(str, schema.schema)}
    for field, where in fields_of(schema).items():
        if field in flat:
            if where is None:
                nested[field] = flat[field]
            else:
                nested[where][field] = flat[field]
    return nested


def on_sections(schema: probatio.Schema, errors: Mapping[str, str]) -> dict[str, str]:
    """Errors by field, keyed by the field's section: where the frontend shows them."""
    where = fields_of(schema)
    placed: dict[str, str] = {}
    for field, error in errors.items():
        placed.setdefault(where.get(field) or field, error)
    return placed


def form_section(fields: dict[Any, Any], *, collapsed: bool) -> section:
    """A section of a form."""
    return section(probatio.Schema(fields), {"collapsed": collapsed})


def whole_number(
    *, low: int, high: int, step: int = 1, unit: str | None = None
) -> probatio.All[int]:
    """A number box whose value is stored as an int (the UI gives floats)."""
    config = NumberSelectorConfig(
        min=low, max=high, step=step, mode=NumberSelectorMode.BOX
    )
    if unit is not None:
        config["unit_of_measurement"] = unit
    return probatio.All(NumberSelector(config), probatio.Coerce(int))


def model_choice(options: list[str] | list[SelectOptionDict]) -> SelectSelector:
    """A model to pick from the list given (in its order), or to type in."""
    return SelectSelector(
        SelectSelectorConfig(options=options, custom_value=True, sort=False)
    )
