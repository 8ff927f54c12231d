"""An embedded MQTT broker (amqtt 0.12) for a single-box setup or a demo.

MQTT 3.1.1 only (amqtt refuses v5 CONNECTs), so the bridge must use 3.1.1 against it. Retained
messages live in memory: the MQTT link republishes its retained topics on every connect anyway.
Not meant as a tournament's production broker (ecosystem.md §3.1): use mosquitto there.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from types import TracebackType

logger = logging.getLogger(__name__)

SHUTDOWN_PATIENCE = 5.0  # seconds a stop waits for amqtt's shutdown

# amqtt logs every state change and packet at INFO/DEBUG; keep the journal readable.
_NOISY_LOGGERS = ("amqtt", "transitions")


class EmbeddedBrokerError(Exception):
    """The embedded broker could not start (port in use, bad address)."""


def broker_config(host: str, port: int, ws_port: int | None = None) -> dict[str, Any]:
    """amqtt configuration: a TCP listener, optionally a WebSocket one (for the web page),
    anonymous, and no packet/event logging plugins."""
    listeners: dict[str, Any] = {"default": {"type": "tcp", "bind": f"{host}:{port}"}}
    if ws_port is not None:
        listeners["websocket"] = {"type": "ws", "bind": f"{host}:{ws_port}"}
    return {
        "listeners": listeners,
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


class EmbeddedBroker:
    """``async with EmbeddedBroker(host="127.0.0.1", port=1883): ...``.

    ``ws_port`` adds an MQTT-over-WebSocket listener on the same host, for the web page.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 1883,
        ws_port: int | None = None,
        allow_public: bool = False,
    ) -> None:
        if not allow_public and not _is_loopback(host):
            # Anonymous and unauthenticated: never expose it to the hall's network by accident.
            raise EmbeddedBrokerError(
                f"the embedded broker binds loopback addresses only, not {host!r}"
            )
        self.host, self.port, self.ws_port = host, port, ws_port
        self._broker: Any = None

    async def start(self) -> None:
        for name in _NOISY_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
        from amqtt.broker import Broker  # noqa: PLC0415 - heavy import, only when used

        self._broker = Broker(broker_config(self.host, self.port, self.ws_port))
        try:
            await self._broker.start()
        except Exception as error:
            self._broker = None
            raise EmbeddedBrokerError(
                f"cannot start the embedded broker on {self.host}:{self.port}: {error}"
            ) from error
        logger.info("embedded MQTT broker listening on %s:%s", self.host, self.port)
        if self.ws_port is not None:
            logger.info("embedded MQTT broker WebSocket on ws://%s:%s", self.host, self.ws_port)

    async def stop(self) -> None:
        """Shut the broker down, waiting at most ``SHUTDOWN_PATIENCE``: amqtt's shutdown waits
        on each client session and on its listeners, and a stop (systemd's, the demo's Ctrl-C)
        must not hang on a client that never answers."""
        if self._broker is not None:
            broker, self._broker = self._broker, None
            try:
                async with asyncio.timeout(SHUTDOWN_PATIENCE):
                    await broker.shutdown()
            except TimeoutError:
                logger.warning(
                    "the embedded broker did not shut down within %.0f s; left behind",
                    SHUTDOWN_PATIENCE,
                )

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
