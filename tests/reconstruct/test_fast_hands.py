"""Fast, messy hands on one board, square by square: a confirmed move is never rewritten by a
transient of the opponent's move; slid drops, slid captures and early presses read right."""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sensors import A, Table

from bughouse_bridge.bughouse.events import Takeback
from bughouse_bridge.bughouse.types import AlertCode

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.types import BughouseMove

# White drops a knight on e4 next to (a knight's move from) its knight on c3; Black's bishop
# takes c3. Lifting the victim first shows "before the drop + Nc3-e4".
KNIGHTS = "4k3/8/8/8/1b6/2N5/8/6K1[N] w - - 0 1"


@pytest.mark.parametrize(
    ("stood", "held"),
    [
        (0.8, 0.5),  # the drop stood while Black's clock ran: final
        (0.3, 0.5),  # premove speed: Black's hand comes 0.3 s after the press
        (0.1, 0.3),  # the victim lifted while the drop was still being scanned
        (0.8, 2.0),  # the victim held a long time
    ],
)
def test_a_confirmed_drop_survives_the_victim_lifted_first(stood: float, held: float) -> None:
    table = Table("fics", fens={A: KNIGHTS}).start_clocks(A)
    table.drop(A, "N", "e4").wait(0.4)
    table.press(A)
    table.wait(stood)
    table.lift(A, "c3").wait(held).lift(A, "b4").wait(0.2).put(A, "c3", "b")
    table.press(A)
    table.settle()
    assert table.moves() == ["N@e4", "b4c3"]
    assert table.of(Takeback) == []
    assert str(table.rec.match.pockets().b_white) == "N"  # the knight went to the partner
    assert table.alerts() == []


def test_a_move_that_stood_is_final() -> None:
    """The same placement that corrects a move before it stood is the opponent's business after:
    a pawn pushed on after its move was pressed and stood is an illegal change, not a slide."""
    table = Table("fics").start_clocks(A)
    table.move(A, "e2e3").wait(0.4)
    table.press(A)
    table.wait(1.0)
    table.move(A, "e3e4").wait(2.0)
    assert table.moves() == ["e2e3"]
    assert table.of(Takeback) == []
    assert [alert.code for alert in table.alerts()] == [AlertCode.WRONG_TURN]


def test_a_move_pressed_early_is_still_completed_by_the_slide() -> None:
    table = Table("fics").start_clocks(A)
    table.move(A, "e2e3")
    table.press(A)
    table.wait(0.1)
    table.move(A, "e3e4").settle()
    assert table.moves() == ["e2e4"]
    assert table.alerts() == []


@pytest.mark.parametrize("press_early", [True, False])
def test_a_drop_set_next_to_its_square_and_slid(press_early: bool) -> None:
    table = Table("fics", fens={A: "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1"}).start_clocks(A)
    table.drop(A, "N", "d4")
    if press_early:
        table.press(A)
        table.wait(0.1)
    else:
        table.wait(0.35)
    table.lift(A, "d4").put(A, "d5", "N")
    if not press_early:
        table.press(A)
    table.settle()
    assert table.moves() == ["N@d5"]
    assert table.alerts() == []


@pytest.mark.parametrize("victim_first", [True, False])
@pytest.mark.parametrize("rest", [0.0, 0.3])
def test_a_capture_slid_in_after_an_early_press(victim_first: bool, rest: float) -> None:
    table = Table("fics", fens={A: "4k3/8/8/p7/8/8/8/R3K3[] w - - 0 1"}).start_clocks(A)
    table.lift(A, "a1").put(A, "a4", "R").wait(rest)
    table.press(A)
    table.wait(0.1)
    if victim_first:
        table.lift(A, "a5").wait(0.15)
    table.lift(A, "a4").put(A, "a5", "R").settle()
    assert table.moves() == ["a1a5"]
    assert table.alerts() == []


# Both sides hold one piece of each kind in the pocket, so drops are among the moves and replies.
POCKETS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[QRBNPqrbnp] w KQkq - 0 1"


def _colour(piece: chess.Piece | None) -> chess.Color | None:
    return None if piece is None else piece.color


def _changes(before: str, after: str) -> list[tuple[chess.Square, chess.Piece | None]]:
    old, new = chess.BaseBoard(before), chess.BaseBoard(after)
    return [(sq, new.piece_at(sq)) for sq in chess.SQUARES if old.piece_at(sq) != new.piece_at(sq)]


def _handle(
    data: st.DataObject, table: Table, before: str, move: BughouseMove, *, early_press: bool
) -> None:
    """Make ``move`` square by square in a drawn order, a victim maybe lifted first and held,
    pauses drawn between the steps; then press (maybe before the last square). A piece cannot
    land before it is lifted: the scanner may report its arrival first, but only within a
    scan, so there is no pause while a moved piece's origin is still reported occupied."""
    position = table.rec.match.position(A)
    mover = position.turn
    after = position.copy()
    after.push(move.move)
    steps = data.draw(st.permutations(_changes(before, after.board_fen(promoted=False))))
    occupied = chess.BaseBoard(before)
    origins = {sq for sq, _piece in steps if _colour(occupied.piece_at(sq)) == mover}
    pauses = st.sampled_from([0.0, 0.05, 0.15, 0.3, 0.7])
    landed = False
    for index, (square, piece) in enumerate(steps):
        if early_press and index == len(steps) - 1:
            table.press(A)
        if piece is not None and occupied.piece_at(square) and data.draw(st.booleans()):
            table.put(A, chess.square_name(square), None)  # the victim first, maybe held
            table.wait(data.draw(pauses))
        table.put(A, chess.square_name(square), piece.symbol() if piece else None)
        origins.discard(square)
        landed = landed or (piece is not None and piece.color == mover)
        if not (landed and origins):
            table.wait(data.draw(pauses))
    if not early_press:
        table.press(A)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), stood=st.sampled_from([0.0, 0.1, 0.3, 1.0]), early=st.booleans())
def test_a_committed_move_is_never_rewritten_by_the_reply(
    data: st.DataObject, stood: float, early: bool
) -> None:
    """For a committed move, whatever order the reply's squares change in (victims lifted first
    and held, pauses that let transients settle, an early press), the move stays as committed."""
    table = Table("fics", fens={A: POCKETS}).start_clocks(A)
    match = table.rec.match
    for _ in range(data.draw(st.integers(0, 6))):
        if not match.legal_moves(A):  # random play from these pockets can mate in a few plies
            break
        match.play(data.draw(st.sampled_from(match.legal_moves(A))), t=0.0)
    assume(match.legal_moves(A))  # a move to commit is the premise
    table.physical[A] = chess.BaseBoard(match.board_fen(A))
    table.dump(A)
    table.clock(A, match.turn(A))
    move = data.draw(st.sampled_from(match.legal_moves(A)))
    before = match.board_fen(A)
    position = match.position(A)
    position.push(move.move)
    for square, piece in _changes(before, position.board_fen(promoted=False)):
        table.put(A, chess.square_name(square), piece.symbol() if piece else None)
    table.wait(0.3)
    table.press(A)
    table.wait(0.05)
    assert table.moves() == [move.uci]
    committed_ply = match.ply(A)
    table.wait(stood)
    replies = match.legal_moves(A)
    if not replies:
        return
    reply = data.draw(st.sampled_from(replies))
    _handle(data, table, match.board_fen(A), reply, early_press=early)
    table.settle()
    assert table.moves()[0] == move.uci
    # The reply may be completed (a drop read on a press that beat the scanner becomes a move);
    # the committed move is never taken back.
    assert all(takeback.ply >= committed_ply for takeback in table.of(Takeback))  # type: ignore[attr-defined]
    assert table.moves() == [move.uci, reply.uci]


def test_an_illegal_square_then_slid_in_after_an_early_press_raises_nothing() -> None:
    """Black in check sets the dropped knight down beside the blocking square (illegal there),
    presses, and slides it in."""
    table = Table("fics", fens={A: "4k3/8/8/8/8/8/8/4R1K1[n] b - - 0 1"}).start_clocks(A)
    table.drop(A, "n", "d6")
    table.press(A)
    table.wait(0.3)
    table.lift(A, "d6").put(A, "e6", "n").settle()
    assert table.moves() == ["N@e6"]
    assert table.alerts() == []


def test_three_presses_are_three_plies() -> None:
    """d2-d3, e7-e5, d3-d4 made before any press is reported: the same placement as d2-d4 and
    e7-e5, but the clock was pressed three times."""
    table = Table("fics").start_clocks(A)
    table.move(A, "d2d3").move(A, "e7e5").move(A, "d3d4")
    for _ in range(3):
        table.press(A)
    table.settle()
    assert table.moves() == ["d2d3", "e7e5", "d3d4"]
    assert table.alerts() == []


_PIECES = {"e2e4": "P", "g8f6": "n", "b1c3": "N", "b8c6": "n"}


def table_piece(uci: str) -> str:
    return _PIECES[uci]


def test_a_premove_chain_catches_up_at_a_press() -> None:
    """Replies while the board is never still: each press reaches us with the next hand already
    on the board; the board is read whole as soon as a press shows it."""
    table = Table("fics").start_clocks(A)
    for uci in ("e2e4", "g8f6", "b1c3", "b8c6"):
        table.lift(A, uci[:2])
        table.press(A)  # the press of the previous ply is reported as this hand starts
        table.put(A, uci[2:4], table_piece(uci))
    table.press(A)
    table.wait(0.1)
    assert table.moves() == ["e2e4", "g8f6", "b1c3", "b8c6"]


def test_a_slid_drop_whose_first_square_the_reply_then_takes() -> None:
    """The knight is set down on e7, pressed early, slid to e6 (the scanner reports e6 before e7
    empties), and the queen's reply goes to e7: the knight went on, it was not captured."""
    table = Table("fics", fens={A: "3qk3/8/8/8/8/8/8/4K3[N] w - - 0 1"}).start_clocks(A)
    table.drop(A, "N", "e7")
    table.press(A)
    table.wait(0.15)
    table.put(A, "e6", "N").lift(A, "e7").wait(0.15)
    table.lift(A, "d8").wait(0.2).put(A, "e7", "q")
    table.press(A)
    table.settle()
    assert table.moves() == ["N@e6", "d8e7"]
    assert table.alerts() == []


def test_a_slide_set_down_on_its_way_is_no_drop() -> None:
    """Ra1-a3 slid: the rook is set down on a2 before a1 is lifted (for a moment, a rook drop
    waiting for its piece), then goes on; the press comes late. No drop stands: Ra3 only."""
    table = Table("fics").start_clocks(A)
    table.move(A, "a2a4").wait(0.4)
    table.press(A)
    table.move(A, "h7h6").wait(0.4)
    table.press(A)
    table.put(A, "a2", "R").wait(0.5)  # settled: reads as R@a2 waiting for a rook
    table.lift(A, "a1").wait(0.2).lift(A, "a2").wait(0.2).put(A, "a3", "R")
    table.wait(2.5)  # past the drop's grace, the press still to come
    table.press(A)
    table.settle()
    assert table.moves() == ["a2a4", "h7h6", "a1a3"]
    assert table.alerts() == []
