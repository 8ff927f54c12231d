"""Loading the configuration: the TOML file, the environment and the command line, validated into
:class:`~bughouse_bridge.config.settings.Settings`.

Precedence, highest first: command line > environment > TOML file > defaults. Every problem
becomes one :class:`ConfigError` whose message names the dotted key and where the value came from
(the file, "environment" or "command line").
"""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_settings import SettingsError

from bughouse_bridge.config.settings import Settings
from bughouse_bridge.config.sources import TOML_DATA, environment_source

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path


class ConfigError(Exception):
    """A configuration problem, worded for the organiser. ``str()`` is the whole message."""


def load_settings(
    config_file: Path | None, *, overrides: Mapping[str, Any] | None = None
) -> Settings:
    """Load and validate the configuration; raise :class:`ConfigError` on any problem.

    ``overrides`` are command-line values keyed by dotted path (``{"mqtt.port": 1884}``); ``None``
    values are skipped so that unset flags do not override anything.
    """
    toml_data = _read_toml(config_file) if config_file is not None else {}
    cli_data = _nest({key: value for key, value in (overrides or {}).items() if value is not None})
    env_data = _read_environment()
    origins = _Origins(config_file, toml_data, env_data, cli_data)
    token = TOML_DATA.set(toml_data)
    try:
        return Settings(**cli_data)
    except ValidationError as error:
        raise ConfigError(_describe(error, origins)) from None
    except SettingsError as error:  # e.g. BUGHOUSE_LINKS that is not JSON
        raise ConfigError(f"config error in environment: {error}") from None
    finally:
        TOML_DATA.reset(token)


def _read_toml(config_file: Path) -> dict[str, Any]:
    try:
        text = config_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config error: file not found: {config_file}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"config error: cannot read {config_file}: {error}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # The message already ends in "(at line L, column C)".
        raise ConfigError(f"config error in {config_file}: invalid TOML: {error}") from None


def _read_environment() -> dict[str, Any]:
    try:
        return environment_source(Settings)()
    except SettingsError:
        return {}  # reported properly when the settings are built


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for dotted, value in flat.items():
        *parents, leaf = dotted.split(".")
        node = nested
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = value
    return nested


class _Origins:
    """Tells which source supplied the value at a given location."""

    def __init__(
        self,
        config_file: Path | None,
        toml_data: dict[str, Any],
        env_data: dict[str, Any],
        cli_data: dict[str, Any],
    ) -> None:
        self._sources = (
            ("command line", cli_data),
            ("environment", env_data),
            (str(config_file), toml_data),
        )

    def of(self, loc: Iterable[str | int]) -> str:
        path = list(loc)
        for name, data in self._sources:
            if _contains(data, path):
                return name
        # Missing keys, or a model-level check: blame the deepest source that set anything there.
        for depth in range(len(path) - 1, 0, -1):
            for name, data in self._sources:
                if _contains(data, path[:depth]):
                    return name
        return "defaults"


def _contains(data: Any, path: list[str | int]) -> bool:  # noqa: ANN401
    node = data
    for key in path:
        in_dict = isinstance(node, dict) and key in node
        in_list = isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node)
        if not (in_dict or in_list):
            return False
        node = node[key]
    return True


def _describe(error: ValidationError, origins: _Origins) -> str:
    lines = []
    for item in error.errors(include_url=False):
        loc = [part for part in item["loc"] if not _is_union_tag(part)]
        dotted = _dotted(loc)
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown key (typo?)"
        got = "" if item["type"] in {"extra_forbidden", "missing"} else _shown(item.get("input"))
        lines.append(
            f"config error in {origins.of(loc)}: {dotted or '(top level)'}: {message}{got}"
        )
    return "\n".join(lines)


def _is_union_tag(part: str | int) -> bool:
    return isinstance(part, str) and part.startswith(("function-", "tagged-union["))


def _dotted(loc: list[str | int]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _shown(value: object) -> str:
    if isinstance(value, dict | list) or value is None:
        return ""
    return f" (got {value!r})"


__all__ = ["ConfigError", "load_settings"]
