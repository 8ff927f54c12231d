"""``bughouse-bridge hall …`` as an organiser runs it: exit codes, files, modes, messages."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
import tomllib

import pytest

from private_mosquitto import free_port

CLI = [sys.executable, "-m", "bughouse_bridge", "hall"]
pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")


def hall(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, check=False, timeout=60)


def test_init_writes_every_file_with_secrets_private(tmp_path, hall_home):
    done = hall("init", str(hall_home / "h"), "--tables", "3", "--host", "hall.lan")
    assert done.returncode == 0, done.stderr
    assert "Next steps" in done.stdout
    assert "mosquitto -c" in done.stdout
    root = hall_home / "h"
    for name in ("mosquitto.conf", "acl", "passwd", "credentials.toml", "table-3.toml"):
        assert (root / name).is_file(), name
    for secret in ("passwd", "credentials.toml", "boxes/table-2.password", "tls/server.key"):
        assert stat.S_IMODE((root / secret).stat().st_mode) == 0o600, secret
    credentials = tomllib.loads((root / "credentials.toml").read_text())
    assert set(credentials["boxes"]) == {"table-1", "table-2", "table-3"}
    password = (root / "boxes/table-2.password").read_text().strip()
    assert credentials["boxes"]["table-2"]["password"] == password
    assert len({credentials["arbiter"]["password"], credentials["viewer"]["password"]}) == 2
    san = subprocess.run(
        [
            "openssl",
            "x509",
            "-in",
            str(root / "tls/server.crt"),
            "-noout",
            "-ext",
            "subjectAltName",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "DNS:hall.lan" in san
    assert "IP Address:127.0.0.1" in san


def test_a_box_config_from_init_loads(tmp_path, hall_home):
    assert hall("init", str(hall_home / "h"), "--tables", "2").returncode == 0
    config = str(hall_home / "h" / "table-2.toml")
    check = subprocess.run(
        [sys.executable, "-m", "bughouse_bridge", "run", "--config", config, "--check-config"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr


def test_init_refuses_to_overwrite_a_hall(tmp_path, hall_home):
    assert hall("init", str(hall_home / "h"), "--tables", "1").returncode == 0
    again = hall("init", str(hall_home / "h"), "--tables", "1")
    assert again.returncode == 1
    assert "--force" in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tables", "0"], "at least 1"),
        (["--tables", "2", "--uplink", "nowhere"], "HOST:PORT"),
        (["--tables", "2", "--mqtt-port", "9001", "--ws-port", "9001"], "must differ"),
    ],
)
def test_init_explains_bad_arguments(tmp_path, args, message, hall_home):
    done = hall("init", str(hall_home / "h"), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert not (hall_home / "h").exists()


def test_round_explains_a_bad_file_and_publishes_nothing(tmp_path, hall_home):
    assert hall("init", str(hall_home / "h"), "--tables", "1").returncode == 0
    bad = tmp_path / "round.toml"
    bad.write_text("round = 1\n")
    done = hall("round", str(bad), "--hall", str(hall_home / "h"), "--port", str(free_port()))
    assert done.returncode == 2
    assert "at least one" in done.stderr


def test_round_says_when_the_broker_is_unreachable(tmp_path, hall_home):
    assert hall("init", str(hall_home / "h"), "--tables", "1").returncode == 0
    good = tmp_path / "round.csv"
    good.write_text("round,table,team,white_a,black_a,white_b,black_b\n1,1,A,,a,b,\n1,1,B,c,,,d\n")
    done = hall("round", str(good), "--hall", str(hall_home / "h"), "--port", str(free_port()))
    assert done.returncode == 1
    assert "cannot publish" in done.stderr


def test_tools_without_a_hall_directory_say_so(tmp_path):
    done = hall("status", "--hall", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "credentials" in done.stderr


def test_init_writes_the_standings_settings_and_keeps_the_organisers_on_force(hall_home):
    assert hall("init", str(hall_home / "h"), "--tables", "1").returncode == 0
    settings = hall_home / "h" / "hall.toml"
    assert "tiebreaks = " in settings.read_text()
    settings.write_text('[standings]\ntiebreaks = ["buchholz"]\n')
    assert hall("init", str(hall_home / "h"), "--tables", "1", "--force").returncode == 0
    assert settings.read_text() == '[standings]\ntiebreaks = ["buchholz"]\n'


@pytest.mark.parametrize("verb", ["round", "results"])
def test_a_bad_hall_toml_is_named_and_nothing_is_published(tmp_path, verb, hall_home):
    assert hall("init", str(hall_home / "h"), "--tables", "1").returncode == 0
    (hall_home / "h" / "hall.toml").write_text('[standings]\ntiebreaks = ["coin toss"]\n')
    good = tmp_path / "round.csv"
    good.write_text("round,table,team,white_a,black_a,white_b,black_b\n1,1,A,,a,b,\n1,1,B,c,,,d\n")
    where = ["--hall", str(hall_home / "h"), "--port", str(free_port())]
    args = [str(good), *where] if verb == "round" else ["--out", str(tmp_path / "o"), *where]
    done = hall(verb, *args)
    assert done.returncode == 2
    assert "hall.toml [standings].tiebreaks: unknown coin toss" in done.stderr
