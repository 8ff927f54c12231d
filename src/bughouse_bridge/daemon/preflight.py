"""What ``run --check-config`` checks beyond the file: things that would otherwise fail only at
start — an embedded broker whose port is taken or whose address cannot be bound, a state
directory or trace file that cannot be written."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING

from bughouse_bridge.drivers.broker import EmbeddedBroker, EmbeddedBrokerError

if TYPE_CHECKING:
    from pathlib import Path

    from bughouse_bridge.config import Settings


def startup_problems(settings: Settings) -> list[str]:
    """One sentence per problem the daemon would meet when it starts; empty when none."""
    problems: list[str] = []
    mqtt = settings.mqtt
    if mqtt.embedded:
        problems += _embedded_broker_problems(mqtt.embedded_host, mqtt.embedded_port)
    problems += _directory_problems("state_dir", settings.state_dir)
    if settings.record is not None:
        problems += _directory_problems("record", settings.record.parent)
    return problems


def _embedded_broker_problems(host: str, port: int) -> list[str]:
    try:
        EmbeddedBroker(host=host, port=port)  # refuses non-loopback addresses
    except EmbeddedBrokerError as error:
        return [f"mqtt.embedded_host: {error}"]
    problem = listen_problem(host, port)
    return [] if problem is None else [f"mqtt.embedded_port: {problem}"]


def listen_problem(host: str, port: int) -> str | None:
    """Why a TCP server could not listen on ``host:port`` now, or None if it could.

    Binds like asyncio's ``create_server`` (SO_REUSEADDR, every address ``host`` resolves to), so
    a port some other process listens on is reported, a port in TIME_WAIT is not.
    """
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return f"cannot resolve {host!r}: {error.strerror}"
    for family, kind, proto, _name, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
                probe.listen(1)
            except OSError as error:
                return f"cannot listen on {host}:{port}: {error.strerror or error}"
    return None


def _directory_problems(key: str, directory: Path) -> list[str]:
    """The daemon creates ``directory`` if needed and writes in it: check that it could,
    without creating anything."""
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return [f"{key}: {existing} is not a directory"]
    if not os.access(existing, os.W_OK | os.X_OK):
        return [f"{key}: cannot write in {existing}"]
    return []
