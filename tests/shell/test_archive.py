"""Finished games archived as BPGN files under the state directory; tags from [event]/[game]."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

import pytest

from bughouse_bridge.bridge import Bridge
from bughouse_bridge.bughouse.bpgn import parse_bpgn_game
from bughouse_bridge.config import ConfigError, load_settings
from bughouse_bridge.daemon.app import Daemon
from bughouse_bridge.daemon.archive import GameArchive, archive_name
from bughouse_bridge.daemon.wiring import bridge_config, record_tags

if TYPE_CHECKING:
    from pathlib import Path

ORIGIN = 1_763_890_000.0  # 2025-11-23 09:26:40 UTC

CONFIG = """
state_dir = "{state}"
match_id = "open-2025"
bridge_id = "table-3"
[event]
name = "Bughouse \\"Open\\" 2025"
site = "Town Hall"
round = "4"
table = "3"
[game]
time_control = "180+2"
[teams.first]
id = "lions"
name = "Lions"
[teams.first.players]
black_a = "Ann"
white_b = "Ben"
[teams.second]
id = "tigers"
name = "Tigers"
[teams.second.players]
white_a = "Cid"
black_b = "Dora"
"""


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for key in ("STATE_DIRECTORY", "BUGHOUSE_STATE_DIR"):
        monkeypatch.delenv(key, raising=False)
    config = tmp_path / "config.toml"
    config.write_text(CONFIG.replace("{state}", str(tmp_path / "state")))
    return load_settings(config)


def command(bridge: Bridge, verb: str, now: float, **request):
    answer, output = bridge.command(verb, json.dumps(request).encode(), now)
    assert answer["ok"], answer
    return output


def test_the_tags_come_from_the_configuration_in_pgn_order(settings):
    bridge = Bridge(bridge_config(settings, boot_id="b", clock_origin_epoch=ORIGIN))
    game = parse_bpgn_game(bridge.bpgn_text())
    assert list(game.tags.items())[:12] == [
        ("Event", 'Bughouse "Open" 2025'),
        ("Site", "Town Hall"),
        ("Date", "2025.11.23"),
        ("Time", "09:26:40"),
        ("Round", "4"),
        ("WhiteA", "Cid"),
        ("BlackA", "Ann"),
        ("WhiteB", "Ben"),
        ("BlackB", "Dora"),
        ("Table", "3"),
        ("TimeControl", "180+2"),
        ("Variant", "Bughouse"),
    ]
    assert game.tags["Rules"] == "dsj"
    assert game.time_control == (180, 2)


def test_unset_event_tags_fall_back_to_the_ids(tmp_path, monkeypatch):
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    settings = load_settings(None, overrides={"match_id": "m-7", "bridge_id": "box-2"})
    assert record_tags(settings) == {}  # the core fills them in per game
    bridge = Bridge(bridge_config(settings, boot_id="b", clock_origin_epoch=ORIGIN))
    tags = parse_bpgn_game(bridge.bpgn_text()).tags
    assert (tags["Event"], tags["Site"], tags["Round"]) == (
        "bughouse-bridge match m-7",
        "box-2",
        "?",
    )


@pytest.mark.parametrize(
    ("section", "value", "key"),
    [
        ("game", 'time_control = "5 min"', "game.time_control"),
        ("event", 'round = ""', "event.round"),
    ],
)
def test_bad_event_values_are_config_errors_naming_the_key(tmp_path, section, value, key):
    config = tmp_path / "bad.toml"
    config.write_text(f"[{section}]\n{value}\n")
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_settings(config)


def test_a_game_is_archived_once_decided_and_rewritten_when_its_record_changes(settings):
    bridge = Bridge(bridge_config(settings, boot_id="b", clock_origin_epoch=ORIGIN))
    archive = GameArchive(settings.state_dir)
    name = "2025-11-23_open-2025_round-4_table-3_game-{}.bpgn"
    assert archive.folder == settings.state_dir / "games"

    output = command(bridge, "new_game", 1.0)  # nothing was played: the same game begins again
    assert archive.update(output) == []
    assert bridge.game_number == 1
    assert not list(settings.state_dir.glob("games/*"))

    output = command(bridge, "set_result", 5.0, winner="lions", board="B", reason="resign")
    assert archive.update(output) == [archive.folder / name.format(1)]
    game = parse_bpgn_game((archive.folder / name.format(1)).read_text(encoding="utf-8"))
    assert (game.result, game.closing_comment) == ("0-1", "Dora (BlackB) resigns on board B")

    output = command(bridge, "revoke_result", 6.0, reason="wrong board")
    assert archive.update(output) == [archive.folder / name.format(1)]  # its record changed
    assert parse_bpgn_game((archive.folder / name.format(1)).read_text()).result == "*"

    output = command(bridge, "new_game", 9.0)  # game 1 ends: its last record is kept
    assert archive.update(output) == [archive.folder / name.format(1)]
    assert bridge.game_number == 2
    output = command(bridge, "set_result", 12.0, winner="tigers", board="A", reason="resign")
    assert archive.update(output) == [archive.folder / name.format(2)]
    assert sorted(p.name for p in archive.folder.iterdir()) == [name.format(1), name.format(2)]


def test_an_archive_that_cannot_be_written_is_logged_and_loses_nothing(settings, caplog):
    settings.state_dir.mkdir(parents=True)
    (settings.state_dir / "games").write_text("not a folder")
    bridge = Bridge(bridge_config(settings, boot_id="b", clock_origin_epoch=ORIGIN))
    archive = GameArchive(settings.state_dir)
    output = command(bridge, "set_result", 5.0, winner=None, board="A", reason="draw")
    with caplog.at_level(logging.ERROR):
        assert archive.update(output) == []
    assert "cannot archive 2025-11-23_open-2025_round-4_table-3_game-1.bpgn" in caplog.text
    assert bridge.reconstructor.match.result is not None


@pytest.mark.parametrize(
    ("round_", "table", "expected"),
    [
        (None, None, "2025-11-23_m_game-2.bpgn"),
        ("3/b", "Main hall", "2025-11-23_m_round-3-b_table-Main-hall_game-2.bpgn"),
        ("..", None, "2025-11-23_m_round-.._game-2.bpgn"),
    ],
)
def test_archive_names_are_safe_file_names(round_, table, expected):
    name = archive_name(origin_epoch=ORIGIN, match_id="m", round_=round_, table=table, game=2)
    assert name == expected
    assert "/" not in name


def test_the_daemon_archives_what_it_routes(settings):
    daemon = Daemon(settings)
    try:
        _, output = daemon.bridge.command(
            "set_result", b'{"winner": "tigers", "board": "A", "reason": "time"}', 3.0
        )
        daemon.core.route(output)
        (path,) = (settings.state_dir / "games").iterdir()
        assert path.name.endswith("_open-2025_round-4_table-3_game-1.bpgn")
        game = parse_bpgn_game(path.read_text(encoding="utf-8"))
        assert (game.result, game.closing_comment) == (
            "1-0",  # tigers: White A + Black B
            "Ann (BlackA) forfeits on time on board A",
        )
    finally:
        daemon.journal.close()
        daemon.outbox.close()
