"""Command-line flags that feed the configuration, and the config-only actions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.config.loading import ConfigError, load_settings
from bughouse_bridge.config.settings import Settings, example_config

if TYPE_CHECKING:
    import argparse

EXIT_CONFIG_ERROR = 2

# flag dest -> dotted settings key
FLAG_KEYS: dict[str, str] = {
    "bridge_id": "bridge_id",
    "match_id": "match_id",
    "rules": "rules.preset",
    "record": "record",
    "mqtt_host": "mqtt.host",
    "mqtt_port": "mqtt.port",
    "embedded_broker": "mqtt.embedded",
    "state_dir": "state_dir",
}


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("configuration")
    group.add_argument("--config", type=Path, metavar="FILE", help="TOML configuration file")
    group.add_argument(
        "--check-config", action="store_true", help="validate the configuration and exit"
    )
    group.add_argument(
        "--print-example-config",
        action="store_true",
        help="print a commented example configuration and exit",
    )
    group.add_argument("--bridge-id", metavar="ID")
    group.add_argument("--match-id", metavar="ID")
    group.add_argument("--rules", metavar="PRESET", help="dsj, dsb, olite or fics")
    group.add_argument("--record", type=Path, metavar="FILE", help="record a trace to FILE")
    group.add_argument("--mqtt-host", metavar="HOST")
    group.add_argument("--mqtt-port", type=int, metavar="PORT")
    group.add_argument(
        "--embedded-broker",
        action="store_true",
        default=None,
        help="start an MQTT broker inside the process",
    )
    group.add_argument("--state-dir", type=Path, metavar="DIR")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Settings from ``--config`` plus flags; raises :class:`ConfigError`."""
    overrides = {key: getattr(args, dest, None) for dest, key in FLAG_KEYS.items()}
    return load_settings(getattr(args, "config", None), overrides=overrides)


def handle_config_actions(args: argparse.Namespace) -> int | None:
    """Run ``--print-example-config`` / ``--check-config``; return an exit code, or None to go on.

    Without either flag the configuration is still validated, so that a broken one exits with
    status 2 before anything starts.
    """
    if getattr(args, "print_example_config", False):
        sys.stdout.write(example_config())
        return 0
    try:
        settings = settings_from_args(args)
    except ConfigError as error:
        print(error, file=sys.stderr)  # noqa: T201
        return EXIT_CONFIG_ERROR
    if getattr(args, "check_config", False):
        links = ", ".join(f"{link.name}={link.port}" for link in settings.links) or "none"
        print(  # noqa: T201
            f"configuration OK: bridge {settings.bridge_id}, match {settings.match_id}, "
            f"rules {settings.rules.preset}, links {links}"
        )
        return 0
    return None
