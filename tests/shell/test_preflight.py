"""``run --check-config`` catches what used to fail only at start (and ``run`` says it cleanly)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bughouse_bridge.config import load_settings
from bughouse_bridge.daemon.preflight import listen_problem, startup_problems

CLI = str(Path(sys.executable).parent / "bughouse-bridge")


@pytest.fixture
def busy_port():
    """A port some other program listens on (a free one picked by the kernel: xdist-safe)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        yield server.getsockname()[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def settings(tmp_path, **mqtt):
    overrides = {"bridge_id": "t", "match_id": "m", "state_dir": str(tmp_path / "state")}
    overrides |= {f"mqtt.{key}": value for key, value in mqtt.items()}
    return load_settings(None, overrides=overrides)


def test_listen_problem_sees_a_busy_port_and_a_free_one(busy_port):
    assert "in use" in (listen_problem("127.0.0.1", busy_port) or "")
    assert listen_problem("127.0.0.1", free_port()) is None
    assert "cannot resolve" in (listen_problem("no-such-host.invalid", 1883) or "")


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("192.0.2.1", "loopback addresses only"),  # not this machine's, and not loopback
        ("no-such-host.invalid", "loopback addresses only"),
    ],
)
def test_an_unusable_embedded_bind_address_is_reported(tmp_path, host, expected):
    (problem,) = startup_problems(settings(tmp_path, embedded=True, embedded_host=host))
    assert problem.startswith("mqtt.embedded_host:")
    assert expected in problem


def test_a_busy_embedded_port_is_reported(tmp_path, busy_port):
    (problem,) = startup_problems(settings(tmp_path, embedded=True, embedded_port=busy_port))
    assert problem.startswith("mqtt.embedded_port:")
    assert str(busy_port) in problem


def test_an_external_broker_needs_no_local_port(tmp_path, busy_port):
    assert startup_problems(settings(tmp_path, port=busy_port)) == []


def test_a_state_dir_that_cannot_be_made_is_reported(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    overrides = {"bridge_id": "t", "match_id": "m", "state_dir": str(blocker / "state")}
    (problem,) = startup_problems(load_settings(None, overrides=overrides))
    assert problem == f"state_dir: {blocker} is not a directory"
    assert not (blocker.parent / "state").exists()


def write_config(tmp_path, port: int) -> Path:
    config = tmp_path / "embedded.toml"
    config.write_text(
        'bridge_id = "t"\nmatch_id = "m"\n'
        f'state_dir = "{tmp_path / "state"}"\n'
        f"[mqtt]\nembedded = true\nembedded_port = {port}\n"
    )
    return config


@pytest.mark.parametrize("check", [True, False], ids=["check-config", "run"])
def test_the_cli_exits_2_on_a_busy_embedded_port(tmp_path, busy_port, check):
    config = write_config(tmp_path, busy_port)
    argv = [CLI, "run", "--config", str(config), *(["--check-config"] if check else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    assert str(busy_port) in done.stderr
    assert "Traceback" not in done.stderr
    assert "configuration OK" not in done.stdout


def test_check_config_still_passes_a_good_embedded_setup(tmp_path):
    config = write_config(tmp_path, free_port())
    argv = [CLI, "run", "--config", str(config), "--check-config"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "configuration OK" in done.stdout
