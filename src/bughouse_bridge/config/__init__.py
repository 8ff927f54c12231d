"""Configuration (pydantic-settings): TOML file + ``BUGHOUSE_*`` environment + CLI flags."""

from bughouse_bridge.config.cli import (
    EXIT_CONFIG_ERROR,
    add_config_arguments,
    handle_config_actions,
    settings_from_args,
)
from bughouse_bridge.config.loading import ConfigError, load_settings
from bughouse_bridge.config.settings import (
    ClockSide,
    LinkSettings,
    MqttSettings,
    Orientation,
    Players,
    RulesSettings,
    Settings,
    Team,
    TeamsSettings,
    TimingSettings,
    example_config,
)

__all__ = [
    "EXIT_CONFIG_ERROR",
    "ClockSide",
    "ConfigError",
    "LinkSettings",
    "MqttSettings",
    "Orientation",
    "Players",
    "RulesSettings",
    "Settings",
    "Team",
    "TeamsSettings",
    "TimingSettings",
    "add_config_arguments",
    "example_config",
    "handle_config_actions",
    "load_settings",
    "settings_from_args",
]
