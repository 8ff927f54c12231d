"""Serves the web app's static files and ``/config.json`` (where the page finds its broker).

A stdlib ``ThreadingHTTPServer`` in a daemon thread: the files are small and few, the viewers'
live traffic goes to the MQTT broker, not here, so nothing more is needed.
"""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Self

from bughouse_bridge.drivers.closing import ClosesOnExit
from bughouse_bridge.web import STATIC_DIR

if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_WS_PORT = 9001  # mosquitto's customary WebSocket port


class WebServerError(Exception):
    """The web server could not start (port in use, bad address)."""


def page_config(*, broker_ws: str | None, ws_port: int, root: str) -> dict[str, Any]:
    """What the page reads from ``/config.json``.

    Without an explicit ``broker_ws`` URL the page connects to ``ws://<its own host>:ws_port``,
    so one configuration serves a viewer on the box and a phone on the hall's network alike.
    """
    return {"broker": broker_ws, "ws_port": ws_port, "root": root}


class _Handler(SimpleHTTPRequestHandler):
    config_body = b"{}"

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/config.json":
            self._send_config()
            return
        super().do_GET()

    def _send_config(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.config_body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(self.config_body)

    def end_headers(self) -> None:
        # The files change with the package version only, but a stale app.js after an upgrade is
        # worse than a few revalidations.
        if not self.path.startswith("/config.json"):
            self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        """Quiet: one line per file request is noise in the daemon's journal."""


class WebServer(ClosesOnExit):
    """``with WebServer(port=8080, config={...}) as server: print(server.url)``; entering starts
    it, leaving the block (or ``close()``) stops it."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        config: dict[str, Any],
        static_dir: Path = STATIC_DIR,
    ) -> None:
        self.host, self.port = host, port
        handler = type("Handler", (_Handler,), {"config_body": json.dumps(config).encode()})
        self._factory = functools.partial(handler, directory=str(static_dir))
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        shown = "127.0.0.1" if self.host in {"", "0.0.0.0"} else self.host  # noqa: S104
        return f"http://{shown}:{self.port}/"

    def start(self) -> None:
        try:
            self._server = ThreadingHTTPServer((self.host, self.port), self._factory)
        except OSError as error:
            raise WebServerError(
                f"cannot serve the web page on {self.host}:{self.port}: {error}"
            ) from error
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])  # port 0 picks a free one
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="web-server", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        if self._server is not None:
            server, self._server = self._server, None
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self
