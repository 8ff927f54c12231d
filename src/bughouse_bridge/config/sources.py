"""Where the settings' values come from, besides the command line: ``BUGHOUSE_*`` environment
variables (nested with ``__``; ``BUGHOUSE_RULES=dsb`` is a preset name, not JSON) and the TOML file,
parsed beforehand by ``loading.py`` so that a syntax error gets its file, line and column.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource

ENV_PREFIX = "BUGHOUSE_"
ENV_NESTED_DELIMITER = "__"

# The parsed file for the settings being built (pydantic-settings builds sources per instance).
TOML_DATA: ContextVar[dict[str, Any]] = ContextVar("bughouse_toml_data", default={})  # noqa: B039


class _Environment(EnvSettingsSource):
    def decode_complex_value(self, field_name: str, field: Any, value: Any) -> Any:  # noqa: ANN401
        # BUGHOUSE_RULES=dsb is a preset name, not JSON.
        if field_name == "rules" and isinstance(value, str) and not value.startswith("{"):
            return value
        return super().decode_complex_value(field_name, field, value)


def environment_source(settings_cls: type[BaseSettings]) -> _Environment:
    return _Environment(
        settings_cls, env_prefix=ENV_PREFIX, env_nested_delimiter=ENV_NESTED_DELIMITER
    )


class PreloadedToml(PydanticBaseSettingsSource):
    """The TOML file, parsed beforehand so that syntax errors get file, line and column."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)
        self._data = TOML_DATA.get()

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:  # noqa: ANN401
        del field
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return self._data


__all__ = [
    "ENV_NESTED_DELIMITER",
    "ENV_PREFIX",
    "TOML_DATA",
    "PreloadedToml",
    "environment_source",
]
