"""``bughouse-bridge web``: the static app and ``/config.json`` over HTTP."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from bughouse_bridge.drivers.web_server import WebServer, WebServerError, page_config
from bughouse_bridge.web import STATIC_DIR

CONFIG = page_config(broker_ws="ws://hall:9001", ws_port=9001, root="bughouse/v1")


def fetch(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - our own loopback server
        return response.status, response.headers["Content-Type"], response.read()


@pytest.fixture
def server():
    with WebServer(port=0, config=CONFIG) as web:
        yield web


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("", "text/html"),
        ("js/app.js", "javascript"),
        ("js/model.js", "javascript"),
        ("style.css", "text/css"),
        ("vendor/chessground/chessground.min.js", "javascript"),
        ("vendor/mqtt/mqtt.min.js", "javascript"),
    ],
)
def test_serves_the_app(server, path, content_type):
    status, kind, body = fetch(server.url + path)
    assert status == 200
    assert content_type in kind
    assert body


def test_config_tells_the_page_where_the_broker_is(server):
    status, kind, body = fetch(server.url + "config.json?fresh=1")
    assert (status, kind) == (200, "application/json")
    assert json.loads(body) == {"broker": "ws://hall:9001", "ws_port": 9001, "root": "bughouse/v1"}


def test_unknown_file_is_404_and_nothing_outside_the_app(server):
    for path in ("nowhere.js", "../pyproject.toml", "%2e%2e/__init__.py"):
        with pytest.raises(urllib.error.HTTPError) as error:
            fetch(server.url + path)
        assert error.value.code == 404


def test_port_in_use_is_a_clear_error():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(WebServerError, match=f"127.0.0.1:{port}"):
            WebServer(port=port, config=CONFIG).start()


def test_vendored_libraries_keep_their_licences():
    for folder in ("chessground", "mqtt"):
        assert any(p.name.startswith("LICENSE") for p in (STATIC_DIR / "vendor" / folder).iterdir())
    assert (STATIC_DIR / "vendor" / "VENDORED.md").read_text().count("| ") > 4


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "systemd"])
def test_cli_serves_until_interrupted(stop_signal: signal.Signals):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "bughouse_bridge", "web", "--port", str(port), "--root", "x/v1"],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509 - Ctrl-C
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        _, _, body = fetch(f"http://127.0.0.1:{port}/config.json")
        assert json.loads(body) == {"broker": None, "ws_port": 9001, "root": "x/v1"}
    finally:
        process.send_signal(stop_signal)
        process.wait(10)
    assert process.returncode == 0  # Ctrl-C (or systemd's stop) is the way to stop it


def test_cli_rejects_a_bad_port():
    done = subprocess.run(
        [sys.executable, "-m", "bughouse_bridge", "web", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert "--port" in done.stderr
