"""Arbiter corrections keep the record: accept, set_pocket and takeback across boards keep ply
numbers, pockets, the other board and the BPGN right."""

from __future__ import annotations

import chess
import pytest

from bughouse_bridge.bughouse.bpgn import game_from_match_log, parse_bpgn, write_bpgn
from bughouse_bridge.bughouse.events import (
    Mate,
    MovePlayed,
    Pockets,
    PocketSet,
    PositionAccepted,
)
from bughouse_bridge.bughouse.types import BoardId

A, B = BoardId.A, BoardId.B
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"
# The same, and White's king's knight already on f3 (a move the sensors never saw).
KNIGHT_ON_F3 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"


def opened(kit, preset: str = "dsj"):
    """A plays e4 e5; B plays d4 d5 c4 dxc4 (the capture feeds White A a pawn)."""
    match = kit.match(preset)
    events = []
    for board, san in [(A, "e4"), (A, "e5"), (B, "d4"), (B, "d5"), (B, "c4"), (B, "dxc4")]:
        events += kit.play(match, board, san, t=float(len(events)))
    return match, events


def test_accept_keeps_the_log_the_plies_the_other_board_and_the_pockets(kit):
    match, _ = opened(kit)
    board_b, pockets = match.fen(B), match.pockets()
    assert pockets == Pockets(a_white="P")
    (accepted,) = match.accept_placement(A, KNIGHT_ON_F3, t=10.0)
    assert accepted == PositionAccepted(10.0, A, 2, match.fen(A), pockets)
    assert match.board_fen(A) == KNIGHT_ON_F3
    assert (match.ply(A), match.turn(A)) == (2, chess.WHITE)  # still White's move: the arbiter
    assert (match.fen(B), match.pockets()) == (board_b, pockets)
    played = kit.play(match, A, "P@d4", t=11.0)[0]  # the pocket still holds B's capture
    assert isinstance(played, MovePlayed)
    assert played.ply == 3
    assert played.fen.split()[0] == "rnbqkbnr/pppp1ppp/8/4p3/3PP3/5N2/PPPP1PPP/RNBQKB1R[]"
    assert kit.play(match, B, "e4", t=12.0)[0].ply == 5


def test_accept_drops_castling_rights_the_placement_contradicts(kit):
    match = kit.match("fics")
    match.accept_placement(A, "rnbqkbnr/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR", t=1.0)
    assert match.fen(A).split()[2] == "kq"


def test_an_accepted_mate_is_recognised(kit):
    match = kit.match("fics")
    match.set_pocket(B, chess.BLACK, "", t=0.0)
    for san in ("f3", "e5"):
        kit.play(match, A, san)
    mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR"
    events = match.accept_placement(A, mated, t=5.0)
    assert [type(e) for e in events][:2] == [PositionAccepted, Mate]
    (mate,) = (e for e in events if isinstance(e, Mate))
    assert (mate.board, mate.color) == (A, chess.WHITE)


@pytest.mark.parametrize(
    ("placement", "error"),
    [
        ("not a fen", "not a board placement"),
        ("8/8/8/8/8/8/8/K7", "exactly one black king"),
        ("k7/8/8/8/8/8/8/KK6", "exactly one white king"),
    ],
)
def test_accept_refuses_what_cannot_be_a_position(kit, placement, error):
    match, _ = opened(kit)
    before = (match.fen(A), match.fen(B), match.ply(A))
    with pytest.raises(ValueError, match=error):
        match.accept_placement(A, placement, t=1.0)
    assert (match.fen(A), match.fen(B), match.ply(A)) == before


def test_set_pocket_makes_the_pocket_exactly_that(kit):
    match, _ = opened(kit)
    (event,) = match.set_pocket(B, chess.BLACK, "nPp", t=3.0)
    assert event == PocketSet(3.0, B, chess.BLACK, "PPN", match.fen(B), match.pockets())
    assert match.pockets() == Pockets(a_white="P", b_black="PPN")
    assert match.ply(B) == 4
    match.set_pocket(A, chess.WHITE, "", t=4.0)
    assert match.pockets().a_white == ""
    with pytest.raises(ValueError, match="not 'K'"):
        match.set_pocket(A, chess.WHITE, "KP", t=5.0)


def test_set_pocket_lets_a_waiting_stalemate_go_on(kit):
    match = kit.match("dsj", a="k7/8/1QK5/8/8/8/8/8[] b - - 0 1")
    assert match.legal_moves(A) == []
    match.set_pocket(A, chess.BLACK, "N", t=1.0)
    assert match.legal_moves(A)


def test_takeback_replays_corrections_and_keeps_both_boards(kit):
    match, _ = opened(kit)
    match.accept_placement(A, KNIGHT_ON_F3, t=10.0)
    match.set_pocket(A, chess.BLACK, "Q", t=11.0)
    kit.play(match, B, "e4", t=12.0)
    match.takeback(B, t=13.0)
    assert match.board_fen(A) == KNIGHT_ON_F3
    assert (match.ply(A), match.ply(B)) == (2, 4)
    assert match.pockets() == Pockets(a_white="P", a_black="Q")


def test_takeback_of_a_capture_across_boards_keeps_both_plies_and_pockets(kit):
    match, _ = opened(kit)
    match.takeback(B, t=20.0)  # dxc4 again undone: A's pocket gives the pawn back
    assert match.pockets() == Pockets()
    assert (match.ply(A), match.ply(B)) == (2, 3)
    assert match.board_fen(A) == AFTER_E4_E5
    assert kit.play(match, B, "e6", t=21.0)[0].ply == 4


def test_takeback_is_refused_across_an_accept_on_the_same_board(kit):
    match, _ = opened(kit)
    match.accept_placement(A, KNIGHT_ON_F3, t=10.0)
    with pytest.raises(ValueError, match="accepted after its last move"):
        match.takeback(A, t=11.0)
    assert match.ply(A) == 2


def test_bpgn_writes_corrections_as_comments_after_the_move_they_followed(kit):
    match, events = opened(kit)
    events += match.set_pocket(B, chess.WHITE, "N", t=7.0)
    events += match.accept_placement(A, KNIGHT_ON_F3, t=8.0)
    events += kit.play(match, A, "Nc3", t=9.0)
    game = game_from_match_log(events)
    *_, last_b, next_a = game.moves
    assert last_b.san == "dxc4"
    assert last_b.comments == (
        "pocket B white: N",
        f"accepted A: {KNIGHT_ON_F3}[P] w KQkq - 0 2",
    )
    assert (next_a.label, next_a.san) == ("2A.", "Nc3")
    text = write_bpgn(game)
    assert "{pocket B white: N} {accepted A:" in text
    assert parse_bpgn(text)[0].moves == game.moves


def test_a_correction_before_any_move_is_an_opening_comment(kit):
    match = kit.match("fics")
    events = match.set_pocket(A, chess.WHITE, "Q", t=0.5)
    assert game_from_match_log(events, comments=["C: arbiter"]).comments == (
        "C: arbiter",
        "pocket A white: Q",
    )


def test_a_correction_after_a_taken_back_move_follows_the_move_before(kit):
    match, events = opened(kit)
    events += match.set_pocket(A, chess.BLACK, "B", t=7.0)
    events += match.takeback(B, t=8.0)
    game = game_from_match_log(events)
    assert [m.san for m in game.moves] == ["e4", "e5", "d4", "d5", "c4"]
    assert game.moves[-1].comments == ("pocket A black: B",)
