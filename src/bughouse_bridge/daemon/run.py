"""``bughouse-bridge run``: the daemon (boards → MQTT), as systemd or a terminal starts it."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from bughouse_bridge.config import (
    EXIT_CONFIG_ERROR,
    ConfigError,
    add_config_arguments,
    handle_config_actions,
    settings_from_args,
)
from bughouse_bridge.daemon.app import serve
from bughouse_bridge.daemon.logging import setup_logging
from bughouse_bridge.daemon.wiring import ConfigurationError

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    finished = handle_config_actions(args)
    if finished is not None:
        return finished
    try:
        settings = settings_from_args(args)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return EXIT_CONFIG_ERROR
    setup_logging(settings.log_level)
    try:
        return asyncio.run(serve(settings))
    except ConfigurationError as error:
        print(error, file=sys.stderr)
        return EXIT_CONFIG_ERROR
