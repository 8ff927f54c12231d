"""BPGN game → timed two-board scenario: positions, timing from the clocks, steals, noise."""

from __future__ import annotations

import itertools

import chess
import pytest
from emulator_helpers import apply_updates, decode_all

from bughouse_bridge.bughouse.bpgn import BpgnGame, BpgnMove, parse_bpgn, replay
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.data import bundled_game
from bughouse_bridge.dgt.messages import BoardDump, ClockTimes, Garbage, LeverSide
from bughouse_bridge.dgt.squares import dump_to_board
from bughouse_bridge.emulator.game import Pace, game_scenario
from bughouse_bridge.emulator.handling import Noise
from bughouse_bridge.emulator.playback import run_scenario, trace_lines
from bughouse_bridge.trace import parse_trace_lines


def _game(name: str) -> BpgnGame:
    return parse_bpgn(bundled_game(name))[0]


def _decoded(result, link):
    return decode_all([(r.t, r.data) for r in result.rx(link)])


def _final_fens(plan, result):
    fens = {}
    for link in ("A", "B"):
        messages = [m for _, m in _decoded(result, link)]
        state = apply_updates(plan.scenario.placements[link], messages)
        fens[link] = dump_to_board(BoardDump(state)).board_fen()
    return fens


@pytest.mark.parametrize("name", ["1934301.bpgn", "1283326.bpgn"])
@pytest.mark.parametrize("seed", [0, 7])
def test_the_boards_end_in_the_final_positions_of_the_game(name, seed):
    game = _game(name)
    plan = game_scenario(game, seed=seed)
    result = run_scenario(plan.scenario)
    match = Match(get_preset("fics"))
    replay(game, match)
    assert _final_fens(plan, result) == {
        "A": match.board_fen(BoardId.A),
        "B": match.board_fen(BoardId.B),
    }


def test_each_board_keeps_its_own_timeline_in_file_order():
    game = _game("1934301.bpgn")
    plan = game_scenario(game, seed=1)
    for board in BoardId:
        presses = [move.pressed for move in plan.moves if move.board is board]
        assert presses == sorted(presses)
        assert all(b - a >= 0.3 for a, b in itertools.pairwise(presses))
    assert [move.label for move in plan.moves][:3] == ["1A.", "1a.", "2A."]


def test_think_times_come_from_the_clocks_and_speed_divides_them():
    game = _game("1934301.bpgn")
    slow = game_scenario(game, seed=1)
    fast = game_scenario(game, seed=1, pace=Pace(speed=10))
    assert (fast.end - fast.start) < (slow.end - slow.start) / 5
    # At speed 1 the emulated clocks end near the times the BPGN file recorded.
    result = run_scenario(slow.scenario)
    readings = [m for _, m in _decoded(result, "A") if isinstance(m, ClockTimes)]
    last = readings[-1]
    white_side = slow.scenario.configs["A"].clock.white_side
    white = last.left if white_side is LeverSide.LEFT else last.right
    black = last.right if white_side is LeverSide.LEFT else last.left
    a_moves = [m for m in game.moves if m.board is BoardId.A]
    last_white = next(m.clock for m in reversed(a_moves) if m.color == chess.WHITE)
    last_black = next(m.clock for m in reversed(a_moves) if m.color == chess.BLACK)
    assert abs(white.total_seconds - last_white) < 10
    assert abs(black.total_seconds - last_black) < 15  # black's clock ran on after the last move


def test_a_steal_promotion_lifts_the_piece_from_the_other_board():
    fens = {
        BoardId.A: "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1",
        BoardId.B: "4k3/8/8/8/8/8/8/3QK3[] w - - 0 1",
    }
    move = BpgnMove(BoardId.A, chess.WHITE, 1, "a8=Q", 118.0, (), (BoardId.B, chess.D1))
    game = BpgnGame({"TimeControl": "120+0"}, (move,))
    plan = game_scenario(game, rules=get_preset("dsj"), fens=fens, seed=3)
    result = run_scenario(plan.scenario)
    assert _final_fens(plan, result) == {"A": "Q3k3/8/8/8/8/8/8/4K3", "B": "4k3/8/8/8/8/8/8/4K3"}


def test_noise_knobs_add_faults_that_leave_the_final_position_intact():
    game = _game("1934301.bpgn")
    noise = Noise(knock_over=0.2, misread=0.2, garbage=0.2, forgotten_press=0.1)
    plan = game_scenario(game, seed=5, noise=noise)
    result = run_scenario(plan.scenario)
    messages = [m for link in ("A", "B") for _, m in _decoded(result, link)]
    assert any(isinstance(m, Garbage) for m in messages)
    clean = run_scenario(game_scenario(game, seed=5).scenario)
    assert len(result.records) > len(clean.records)
    match = Match(get_preset("fics"))
    replay(game, match)
    assert _final_fens(plan, result)["A"] == match.board_fen(BoardId.A)


def test_same_seed_same_trace():
    game = _game("1283326.bpgn")
    first = run_scenario(game_scenario(game, seed=11).scenario).records
    second = run_scenario(game_scenario(game, seed=11).scenario).records
    other = run_scenario(game_scenario(game, seed=12).scenario).records
    assert first == second
    assert first != other


def test_a_game_trace_is_a_valid_contract_trace():
    game = _game("1283326.bpgn")
    result = run_scenario(game_scenario(game, seed=2).scenario)
    parsed = parse_trace_lines(trace_lines(result.records))
    assert parsed.problems == []
    assert parsed.records == list(result.records)
    assert parsed.links == ["A", "B"]
    assert {record.direction for record in parsed.records} == {"rx", "tx"}
