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
from bughouse_bridge.daemon.preflight import startup_problems
from bughouse_bridge.daemon.wiring import ConfigurationError
from bughouse_bridge.drivers.broker import EmbeddedBrokerError

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if not getattr(args, "print_example_config", False) and _startup_fails(args):
        return EXIT_CONFIG_ERROR
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
    except (ConfigurationError, EmbeddedBrokerError) as error:
        print(error, file=sys.stderr)
        return EXIT_CONFIG_ERROR


def _startup_fails(args: argparse.Namespace) -> bool:
    """Report what the configuration file allows but the start would refuse — with
    ``--check-config`` and before a real start alike (a broken file is left to
    ``handle_config_actions``, which names key and file). A port taken between this check and
    the start is still reported cleanly by the ``EmbeddedBrokerError`` handler."""
    try:
        settings = settings_from_args(args)
    except ConfigError:
        return False
    problems = startup_problems(settings)
    for problem in problems:
        print(f"configuration would fail at start: {problem}", file=sys.stderr)
    return bool(problems)
