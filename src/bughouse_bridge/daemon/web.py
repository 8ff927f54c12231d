"""``bughouse-bridge web``: serve the broadcast page, hall view and arbiter console.

The page itself talks MQTT over WebSocket to the broker (the embedded broker's
``mqtt.embedded_ws_port`` on a single box, mosquitto's WebSocket listener in the hall); this
command only serves the files, so viewers scale with the broker, not with this process.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import TYPE_CHECKING

from bughouse_bridge.drivers.web_server import (
    DEFAULT_WS_PORT,
    WebServer,
    WebServerError,
    page_config,
)

if TYPE_CHECKING:
    import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8080, help="HTTP port (default 8080)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)"
    )
    parser.add_argument(
        "--broker-ws",
        default=None,
        metavar="URL",
        help="the broker's MQTT-over-WebSocket URL, e.g. ws://hall-broker:9001 "
        f"(default: ws://<the page's host>:{DEFAULT_WS_PORT})",
    )
    parser.add_argument(
        "--root", default="bughouse/v1", help="MQTT topic root (default bughouse/v1)"
    )


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        print("web: --port must be 0..65535", file=sys.stderr)
        return 2
    config = page_config(broker_ws=args.broker_ws, ws_port=DEFAULT_WS_PORT, root=args.root)
    server = WebServer(host=args.host, port=args.port, config=config)
    stop = _stop_on_signals()
    try:
        server.start()
    except WebServerError as error:
        print(f"web: {error}", file=sys.stderr)
        return 1
    try:
        print(f"web: serving {server.url} (hall view), {server.url}#/console (arbiter)", flush=True)
        stop.wait()
    finally:
        server.close()
    return 0


def _stop_on_signals() -> threading.Event:
    """Ctrl-C or systemd's SIGTERM set the returned event: a clean stop, exit status 0.

    A handler that only sets an event, installed before the server starts, instead of the
    default KeyboardInterrupt: that exception surfaces wherever the main thread happens to be,
    e.g. still returning from the ``print`` above (whose write let the server thread run and
    answer a request), outside any ``try`` -- the process then dies of the signal.
    """
    stop = threading.Event()

    def request_stop(_signum: int, _frame: object) -> None:
        stop.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, request_stop)
    return stop
