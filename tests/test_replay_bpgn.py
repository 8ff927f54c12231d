"""``bughouse-bridge replay TRACE --bpgn FILE``: the replayed game's BPGN, through the real CLI."""

from __future__ import annotations

import json

import pytest

from bughouse_bridge.bughouse.bpgn import parse_bpgn_game, replay
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.daemon.cli import main
from bughouse_bridge.data import bundled_game
from bughouse_bridge.emulator.game import game_scenario
from bughouse_bridge.emulator.playback import run_scenario, trace_lines

DECISIVE = "1934301"


@pytest.fixture(scope="module")
def trace_text() -> str:
    game = parse_bpgn_game(bundled_game(DECISIVE))
    plan = game_scenario(game, rules=get_preset("fics"), seed=5)
    return "\n".join(trace_lines(run_scenario(plan.scenario).records)) + "\n"


def per_board(moves) -> dict[str, list[str]]:
    return {board: [m.san for m in moves if str(m.board) == board] for board in "AB"}


def test_replay_writes_the_games_bpgn(tmp_path, trace_text, capsys):
    trace = tmp_path / "game.jsonl"
    trace.write_text(trace_text)
    target = tmp_path / "game.bpgn"
    assert main(["replay", str(trace), "--rules", "fics", "--bpgn", str(target)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (result,) = [e for e in events if e["type"] == "result"]

    written = parse_bpgn_game(target.read_text(encoding="utf-8"))
    original = parse_bpgn_game(bundled_game(DECISIVE))
    assert per_board(written.moves) == per_board(original.moves)
    assert written.result == result["bpgn_result"] == "0-1"  # Black A + White B won
    assert written.closing_comment == "BlackB checkmated on board B"
    assert (written.tags["Date"], written.tags["Rules"]) == ("????.??.??", "fics")
    replay(written, Match(get_preset("fics")))  # and it replays under the rules it names


def test_an_unwritable_bpgn_file_exits_1_after_the_events(tmp_path, trace_text, capsys):
    trace = tmp_path / "game.jsonl"
    trace.write_text(trace_text)
    target = tmp_path / "missing-folder" / "game.bpgn"
    assert main(["replay", str(trace), "--rules", "fics", "--bpgn", str(target)]) == 1
    captured = capsys.readouterr()
    assert "cannot write the BPGN" in captured.err
    assert '"type":"result"' in captured.out
