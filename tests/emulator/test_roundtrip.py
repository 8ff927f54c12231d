"""Emulator → codec round trips, and physical moves that rebuild the right position."""

from __future__ import annotations

import random

import chess
import chess.variant
import pytest
from emulator_helpers import PERIOD, apply_updates, decode_all, exchange, make_board
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_bridge.dgt.messages import BoardDump
from bughouse_bridge.dgt.squares import board_to_dump, dump_to_board, square_to_field
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.handling import CaptureOrder, CastlingOrder, MoveStyle
from bughouse_bridge.emulator.moves import play_move
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.emulator.scenario import Scenario

_codes = st.lists(st.integers(0, 15), min_size=64, max_size=64).map(tuple)


@settings(max_examples=100, deadline=None)
@given(_codes, st.booleans())
def test_any_position_dumped_via_42_decodes_to_the_same_board(codes, rotated):
    config = BoardConfig(power_up_bus_mode=False, rotated=rotated)
    board = make_board(config, placement=codes)
    (dump,) = exchange(board, b"\x42", 0.0, 1.0)
    assert dump == BoardDump(codes)
    chess_board = dump_to_board(dump, rotated=rotated)
    assert board_to_dump(chess_board, rotated=rotated).squares == tuple(
        code if 0 < code < 13 else 0 for code in codes
    )


def _final_placement(sc: Scenario, link: str = "A") -> chess.BaseBoard:
    result = run_scenario(sc)
    messages = [m for _, m in decode_all([(r.t, r.data) for r in result.rx(link)])]
    rotated = sc.configs[link].rotated
    state = apply_updates(sc.placements[link], messages)
    return dump_to_board(BoardDump(state), rotated=rotated)


def _scenario(board: chess.Board, seed: int, rotated: bool = False) -> Scenario:
    config = BoardConfig(power_up_bus_mode=False, base_scan_period=PERIOD, rotated=rotated)
    sc = Scenario({"A": config}, seed=seed, placements={"A": board})
    sc.host(b"\x4b")
    sc.wait(0.3)
    return sc


@pytest.mark.parametrize(
    ("fen", "uci", "style"),
    [
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "e1g1",
            MoveStyle(castling=CastlingOrder.KING_FIRST),
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "e1c1",
            MoveStyle(castling=CastlingOrder.ROOK_FIRST),
        ),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", MoveStyle(capture=CaptureOrder.VICTIM_FIRST)),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", MoveStyle(capture=CaptureOrder.VICTIM_LAST)),
        ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8n", MoveStyle(capture=CaptureOrder.REPLACE)),
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", MoveStyle()),
        ("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", "a1h8", MoveStyle(slide=True)),
        (
            "4k2r/8/8/8/8/8/8/Q3K3 w - - 0 1",
            "a1a8",
            MoveStyle(slide=True, capture=CaptureOrder.REPLACE),
        ),
    ],
)
@pytest.mark.parametrize("rotated", [False, True])
def test_special_moves_end_in_the_right_position(fen, uci, style, rotated):
    board = chess.Board(fen)
    move = chess.Move.from_uci(uci)
    sc = _scenario(board, seed=1, rotated=rotated)
    play_move(sc.hands(), board, move, style)
    sc.wait(1.0)
    board.push(move)
    assert _final_placement(sc) == chess.BaseBoard(board.board_fen())


def test_a_drop_puts_the_pocket_piece_on_the_board():
    board = chess.variant.CrazyhouseBoard("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1")
    move = chess.Move.from_uci("N@f3")
    sc = _scenario(board, seed=2)
    play_move(sc.hands(), board, move, MoveStyle(hover=True))
    sc.wait(1.0)
    board.push(move)
    assert _final_placement(sc).piece_at(chess.F3) == chess.Piece(chess.KNIGHT, chess.WHITE)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40))
def test_random_games_handled_like_humans_rebuild_every_position(seed, plies):
    rng = random.Random(seed)
    board = chess.Board()
    sc = _scenario(board, seed=seed)
    hands = sc.hands()
    for _ in range(plies):
        if board.is_game_over():
            break
        move = rng.choice(list(board.legal_moves))
        play_move(hands, board, move)
        sc.wait(0.4)
        hands.press_clock()
        sc.wait(0.6)
        board.push(move)
    sc.wait(1.0)
    assert _final_placement(sc) == chess.BaseBoard(board.board_fen())


def test_knocked_over_and_misread_pieces_come_back():
    board = chess.Board()
    sc = _scenario(board, seed=3)
    hands = sc.hands()
    seen = hands.knock_over(chess.D1)
    sc.wait(1.0)
    hands.set_upright(chess.D1)
    hands.misread(chess.G8, 0x0C, 0.5)
    sc.wait(0.5)
    hands.magic_piece(chess.E4)
    sc.wait(1.0)
    result = run_scenario(sc)
    messages = [m for _, m in decode_all([(r.t, r.data) for r in result.rx("A")])]
    fields = [(m.field, m.piece) for m in messages if hasattr(m, "piece")]
    assert (square_to_field(chess.D1), seen) in fields
    assert (square_to_field(chess.G8), 0x0C) in fields
    assert fields[-1] == (square_to_field(chess.E4), 0x0D)
    assert _final_placement(sc) == chess.BaseBoard()
