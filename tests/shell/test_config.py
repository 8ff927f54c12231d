"""Configuration: layering, readable errors naming key and source, example, CLI actions."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bughouse_bridge.config import (
    ConfigError,
    add_config_arguments,
    example_config,
    handle_config_actions,
    load_settings,
    settings_from_args,
)

EXAMPLE = Path(__file__).parents[2] / "src/bughouse_bridge/config/example.toml"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in list(os.environ):
        if key.startswith("BUGHOUSE_") or key in {"CREDENTIALS_DIRECTORY", "STATE_DIRECTORY"}:
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def error_of(config: Path | None, **overrides: object) -> str:
    with pytest.raises(ConfigError) as caught:
        load_settings(config, overrides=overrides)
    return str(caught.value)


def test_example_config_validates():
    settings = load_settings(EXAMPLE)
    assert settings.bridge_id == "table-1"
    assert [link.name for link in settings.links] == ["A", "B"]
    assert settings.links[1].serial_number == "3000147740"
    assert example_config() == EXAMPLE.read_text()


def test_defaults_without_a_file():
    settings = load_settings(None)
    assert settings.rules.preset == "dsj"
    assert settings.mqtt.root == "bughouse/v1"
    assert settings.mqtt.embedded is False
    assert settings.timings.stability_window == 0.25
    assert settings.timings.drop_grace == 2.0
    assert settings.timings.unexplained_position_limit == 4.0
    assert settings.record is None
    assert settings.mqtt.password is None


def test_layering_cli_over_env_over_file_over_default(tmp_path, monkeypatch):
    config = write(tmp_path, 'bridge_id = "from-file"\n[mqtt]\nport = 1000\nhost = "file"\n')
    monkeypatch.setenv("BUGHOUSE_MQTT__PORT", "2000")
    monkeypatch.setenv("BUGHOUSE_BRIDGE_ID", "from-env")
    settings = load_settings(config, overrides={"mqtt.port": 3000, "match_id": None})
    assert settings.mqtt.port == 3000  # command line wins
    assert settings.bridge_id == "from-env"  # environment beats the file
    assert settings.mqtt.host == "file"  # nested keys merge across sources
    assert settings.match_id == "match-1"  # None = flag not given


def test_rules_as_bare_preset_name_in_file_and_environment(tmp_path, monkeypatch):
    assert load_settings(write(tmp_path, 'rules = "fics"\n')).rules.preset == "fics"
    monkeypatch.setenv("BUGHOUSE_RULES", "olite")
    assert load_settings(None).rules.preset == "olite"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[mqtt]\nhots = 'x'\n", "mqtt.hots: unknown key"),
        ("brige_id = 'x'\n", "brige_id: unknown key"),
        ("[timings]\ndrop_grace = -1\n", "timings.drop_grace: Input should be greater than 0"),
        ("[mqtt]\nport = 'abc'\n", "mqtt.port: Input should be a valid integer"),
        ("bridge_id = 'Table 1'\n", "bridge_id: String should match pattern"),
        ("[[links]]\nname = 'A'\nport = '/dev/x'\nspeed = 1\n", "links[0].speed: unknown key"),
        ("[[links]]\nname = 'C'\nport = '/dev/x'\n", "links[0].name: Input should be 'A' or 'B'"),
        ("[[links]]\nname = 'A'\nport = 'ttyACM0'\n", "links[0].port: 'ttyACM0': expected"),
        (
            "[[links]]\nname = 'A'\nport = '/dev/a'\n[[links]]\nname = 'A'\nport = '/dev/b'\n",
            "links: Value error, link names must be unique",
        ),
        ("[[links]]\nname = 'A'\nport = '/dev/a'\norientation = 'up'\n", "links[0].orientation"),
        ("[teams.first.players]\nblack_a = 'x'\nnickname = 'y'\n", "players.nickname: unknown"),
        ("[mqtt]\nembedded = true\nprotocol = '5'\n", "mqtt: the embedded broker"),
        ("rules = 'blitz'\n", "rules: unknown rules preset 'blitz'"),
    ],
)
def test_bad_file_values_name_key_and_file(tmp_path, text, expected):
    config = write(tmp_path, text)
    message = error_of(config)
    assert f"config error in {config}: " in message
    assert expected.replace("Value error, ", "") in message


def test_seating_check_first_team_plays_black_on_board_a(tmp_path):
    text = """
[teams.first]
id = "one"
name = "One"
players = { white_a = "Ann", black_b = "Ben" }
[teams.second]
id = "two"
name = "Two"
players = { black_a = "Cid", white_b = "Dan" }
"""
    message = error_of(write(tmp_path, text))
    assert "teams: the first-named team must play Black on board A" in message
    relaxed = text.replace("[teams.first]", "[teams]\ncheck_seating = false\n[teams.first]")
    assert load_settings(write(tmp_path, relaxed)).teams.first.players.white_a == "Ann"


def test_a_team_must_be_a_partner_pair(tmp_path):
    text = '[teams.first]\nid = "one"\nname = "One"\nplayers = { black_a = "A", white_a = "B" }\n'
    assert "a team is either White A + Black B or Black A + White B" in error_of(
        write(tmp_path, text)
    )


def test_environment_errors_name_the_environment(monkeypatch):
    monkeypatch.setenv("BUGHOUSE_MQTT__PORT", "99999")
    assert error_of(None) == (
        "config error in environment: mqtt.port: "
        "Input should be less than or equal to 65535 (got '99999')"
    )
    monkeypatch.setenv("BUGHOUSE_MQTT__PORT", "1883")
    monkeypatch.setenv("BUGHOUSE_MQTT__HOTS", "x")
    assert "config error in environment: mqtt.hots: unknown key" in error_of(None)


def test_command_line_errors_name_the_command_line():
    assert "config error in command line: mqtt.port" in error_of(None, **{"mqtt.port": 0})
    assert "config error in command line: match_id" in error_of(None, match_id="R1 T1")


def test_missing_explicit_file(tmp_path):
    missing = tmp_path / "nope.toml"
    assert error_of(missing) == f"config error: file not found: {missing}"


def test_malformed_toml_gives_line_and_column(tmp_path):
    config = write(tmp_path, 'bridge_id = "x"\n[mqtt\nport = 1\n')
    message = error_of(config)
    assert str(config) in message
    assert "line 2" in message
    assert "column" in message


def test_missing_password_and_tls_files(tmp_path):
    config = write(tmp_path, '[mqtt]\npassword_file = "/no/such/pw"\ntls_ca_file = "/no/ca.crt"\n')
    message = error_of(config)
    assert f"config error in {config}: mqtt.password_file: file not found: /no/such/pw" in message
    assert "mqtt.tls_ca_file: file not found: /no/ca.crt" in message


def test_password_from_file_and_from_systemd_credential(tmp_path, monkeypatch):
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    settings = load_settings(write(tmp_path, f'[mqtt]\npassword_file = "{secret}"\n'))
    assert settings.mqtt.password == "s3cret"  # noqa: S105
    assert "s3cret" not in repr(settings)
    credentials = tmp_path / "creds"
    credentials.mkdir()
    (credentials / "mqtt_password").write_text("from-systemd")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    assert load_settings(None).mqtt.password == "from-systemd"  # noqa: S105


def test_unreadable_tls_files_are_config_errors(tmp_path):
    bogus = tmp_path / "ca.crt"
    bogus.write_text("not a certificate")
    message = error_of(write(tmp_path, f'[mqtt]\ntls_ca_file = "{bogus}"\n'))
    assert "mqtt: cannot load the TLS files" in message
    settings = load_settings(write(tmp_path, "[mqtt]\ntls = true\n"))
    assert settings.mqtt.ssl_context() is not None
    assert load_settings(None).mqtt.ssl_context() is None


def test_tls_cert_needs_key(tmp_path):
    cert = tmp_path / "c.crt"
    cert.write_text("x")
    message = error_of(write(tmp_path, f'[mqtt]\ntls_cert_file = "{cert}"\n'))
    assert "mqtt: tls_cert_file and tls_key_file go together" in message


def test_rule_overrides_are_checked_by_the_rules_core(tmp_path):
    rules = pytest.importorskip("bughouse_bridge.bughouse.rules")
    del rules
    message = error_of(write(tmp_path, "[rules.overrides]\nno_such_row = 1\n"))
    assert f"config error in {tmp_path / 'config.toml'}: rules" in message
    assert "no_such_row" in message


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    return parser.parse_args(argv)


def test_cli_flags_become_settings(tmp_path):
    args = parse(
        "--config",
        str(EXAMPLE),
        "--bridge-id",
        "t9",
        "--mqtt-port",
        "1999",
        "--embedded-broker",
        "--rules",
        "dsb",
        "--record",
        str(tmp_path / "t.jsonl"),
    )
    settings = settings_from_args(args)
    assert settings.bridge_id == "t9"
    assert settings.mqtt.port == 1999
    assert settings.mqtt.embedded is True
    assert settings.rules.preset == "dsb"
    assert settings.record == tmp_path / "t.jsonl"
    assert settings.match_id == "round-1-table-1"  # untouched flags do not override


def test_handle_config_actions(tmp_path, capsys):
    assert handle_config_actions(parse("--print-example-config")) == 0
    assert capsys.readouterr().out == example_config()
    assert handle_config_actions(parse("--config", str(EXAMPLE), "--check-config")) == 0
    assert "configuration OK" in capsys.readouterr().out
    assert handle_config_actions(parse("--config", str(EXAMPLE))) is None
    broken = write(tmp_path, "[mqtt]\nhots = 1\n")
    assert handle_config_actions(parse("--config", str(broken))) == 2
    assert "mqtt.hots: unknown key" in capsys.readouterr().err


def test_exit_status_2_in_a_fresh_process(tmp_path):
    broken = write(tmp_path, "[timings]\nstability_window = 'soon'\n")
    script = (
        "import argparse, sys\n"
        "from bughouse_bridge.config import add_config_arguments, handle_config_actions\n"
        "p = argparse.ArgumentParser(); add_config_arguments(p)\n"
        "sys.exit(handle_config_actions(p.parse_args(sys.argv[1:])) or 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "--config", str(broken)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert f"config error in {broken}: timings.stability_window" in result.stderr
    assert result.stdout == ""
