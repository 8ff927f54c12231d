"""Through the reconstructor: a board whose link is cut while play goes on comes back right."""

from __future__ import annotations

import chess
import pytest
from sensors import Table

from bughouse_bridge.bughouse.events import Alert, LinkChanged, MovePlayed, Severity, Takeback
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove

A, B = BoardId.A, BoardId.B


def play_unseen(table: Table, board: BoardId, ucis: list[str]) -> chess.Board:
    """Moves made while the cable was out: only the physical board changes."""
    position = chess.Board(table.rec.match.fen(board).replace("[]", ""))
    for uci in ucis:
        position.push_uci(uci)
    table.physical[board] = chess.BaseBoard(position.board_fen())
    return position


def unseen_gap(table: Table, board: BoardId, ucis: list[str], seconds: float) -> None:
    """The link goes down, ``ucis`` are played unseen, the link is back ``seconds`` later and
    the board sends its dump."""
    table.rec.on_link_state(board, False, table.t)
    play_unseen(table, board, ucis)
    table.t += seconds
    table.rec.on_link_state(board, True, table.t)
    table.dump(board)


# A gap left to the arbiter is asked about once no better look has settled it: its alert comes
# ``unexplained_limit`` (4 s) after the return; waiting this long lets it come.
BETTER_LOOKS = 4.5


def gap_nothing_explains(table: Table) -> None:
    """Board A's link is down for 5 s and three of White's pawns vanish (no plies explain
    that); the link is back and the board sends its dump."""
    table.rec.on_link_state(A, False, table.t)
    for square in ("e2", "d2", "c2"):
        table.physical[A].remove_piece_at(chess.parse_square(square))
    table.t += 5
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)


def reconnect(table: Table, board: BoardId, after: float) -> None:
    table.rec.on_link_state(board, False, table.t)
    table.t += after
    table.out += table.rec.on_link_state(board, True, table.t)
    table.dump(board)


def illegal_alerts(table: Table) -> list[Alert]:
    return [o for o in table.out if isinstance(o, Alert) and o.severity is Severity.ILLEGAL]


def test_a_long_gap_is_recovered_with_recovered_moves_and_ply_numbers_that_continue() -> None:
    table = Table()
    table.rec.on_link_state(A, False, table.t)
    missed = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]
    truth = play_unseen(table, A, missed)
    table.t += 12
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    moves = [o for o in table.out if isinstance(o, MovePlayed)]
    # The order of moves that do not interact cannot be known; the position and plies can.
    assert sorted(m.move.uci for m in moves) == sorted(missed)
    assert [m.ply for m in moves] == [1, 2, 3, 4, 5, 6]
    assert all(m.recovered for m in moves)
    assert table.rec.match.board_fen(A) == truth.board_fen()
    assert table.rec.match.turn(A) == truth.turn
    assert table.of(LinkChanged)[-1].details["missing_plies"] == len(missed)
    assert illegal_alerts(table) == []


def test_after_a_recovery_the_next_move_is_read_normally() -> None:
    table = Table()
    table.rec.on_link_state(A, False, table.t)
    play_unseen(table, A, ["d2d4", "d7d5", "c2c4", "e7e6"])
    table.t += 5
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    table.move(A, "b1c3").wait(3)
    assert table.moves()[-1] == "b1c3"
    assert table.rec.match.ply(A) == 5


AMBIGUOUS_BEFORE = ["a2a3", "g7g5", "b2b4", "f8h6", "b4b5", "g8f6"]
AMBIGUOUS_GAP = ["a1a2", "f6d5", "a2a1"]  # or g1h3 f6d5 h3g1: castling rights differ


def ambiguous_table() -> Table:
    table = Table()
    for uci in AMBIGUOUS_BEFORE:
        table.move(A, uci).wait(3)
    assert table.moves() == AMBIGUOUS_BEFORE
    table.rec.on_link_state(A, False, table.t)
    play_unseen(table, A, AMBIGUOUS_GAP)
    table.t += 8
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    return table


def test_an_ambiguous_gap_publishes_the_position_and_asks_the_arbiter_once() -> None:
    table = ambiguous_table()
    # The position at once; the arbiter once no better look has settled the gap.
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []
    table.wait(BETTER_LOOKS)
    (alert,) = table.alerts(AlertCode.GAP_AMBIGUOUS)
    candidates = alert.details["candidates"]
    assert {tuple(c["moves"]["A"]) for c in candidates} == {
        ("g1h3", "f6d5", "h3g1"),
        tuple(AMBIGUOUS_GAP),
    }
    assert candidates[0]["san"]["A"][1] == "Nd5"
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()
    assert table.rec.match.turn(A) == chess.BLACK
    assert illegal_alerts(table) == []
    table.move(A, "e7e6").wait(3)  # never frozen: play goes on at once
    assert table.moves()[-1] == "e7e6"


def test_choose_recovery_replaces_the_gap_by_the_chosen_moves() -> None:
    table = ambiguous_table().wait(BETTER_LOOKS)
    (alert,) = table.alerts(AlertCode.GAP_AMBIGUOUS)
    table.move(A, "e7e6").wait(3)
    index = next(
        c["index"] for c in alert.details["candidates"] if c["moves"]["A"] == AMBIGUOUS_GAP
    )
    events = table.rec.choose_recovery(alert.details["gap"], index, table.t)
    recovered = [e for e in events if isinstance(e, MovePlayed)]
    assert [m.move.uci for m in recovered] == AMBIGUOUS_GAP
    assert all(m.recovered for m in recovered)
    assert table.rec.match.ply(A) == len(AMBIGUOUS_BEFORE) + len(AMBIGUOUS_GAP) + 1
    assert "Q" not in table.rec.match.fen(A).split()[2]  # the rook moved: no long castling
    with pytest.raises(ValueError, match="no open gap"):
        table.rec.choose_recovery(alert.details["gap"], index, table.t)


def test_a_gap_nothing_explains_still_follows_the_board() -> None:
    table = Table()
    gap_nothing_explains(table)
    table.wait(1)
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()  # at once
    table.wait(BETTER_LOOKS)
    (alert,) = table.alerts(AlertCode.GAP_AMBIGUOUS)
    assert alert.details["candidates"] == []
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()


def test_the_partner_board_waiting_on_a_missed_capture_is_solved_with_the_gap() -> None:
    """Board A is cut off and a pawn is captured there; B's drop of that pawn waits, without
    a false drop_not_in_pocket, and both boards come back right."""
    table = Table()
    for board, uci in [(A, "e2e4"), (A, "d7d5"), (B, "e2e4"), (B, "e7e5")]:
        table.move(board, uci).wait(3)
    table.rec.on_link_state(A, False, table.t)
    # White takes a pawn (for black on B), black a pawn (for white on B).
    play_unseen(table, A, ["e4d5", "d8d5"])
    table.drop(B, "P", "d3").wait(3)  # white on B drops the pawn black captured on A
    table.wait(10)
    assert illegal_alerts(table) == []
    table.t += 2
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1 + BETTER_LOOKS)
    assert illegal_alerts(table) == []
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()
    assert table.rec.match.board_fen(B) == table.physical[B].board_fen()
    truth = ["e4d5", "d8d5", "P@d3"]
    pockets = table.rec.match.pockets()
    assert (pockets.of(A, chess.WHITE), pockets.of(B, chess.BLACK)) == ("", "P")
    gaps = table.alerts(AlertCode.GAP_AMBIGUOUS)
    if gaps:  # the solver could not rule out longer explanations within its work budget
        candidates = gaps[0].details["candidates"]
        assert next(c["moves"] for c in candidates) == {"A": truth[:2], "B": truth[2:]}
    else:
        assert sorted(table.moves()[-3:]) == sorted(truth)
        assert all(m.recovered for m in table.played()[-3:])


def test_the_press_of_the_last_missed_ply_after_the_dump_is_not_a_press_without_a_move() -> None:
    """The dump caught the last ply of the gap before its mover hit the clock."""
    table = Table()
    table.start_clocks(A)
    unseen_gap(table, A, ["e2e4", "d7d5", "e4d5"], 5)  # in this order only
    table.clock(A, chess.WHITE)  # exd5 stands; White has not pressed yet
    table.wait(1)
    assert table.moves(A) == ["e2e4", "d7d5", "e4d5"]
    table.press(A)
    table.wait(3)
    assert table.alerts() == []
    table.move(A, "b8c6")
    table.press(A)
    table.wait(3)
    assert table.moves(A)[-1] == "b8c6"
    assert table.alerts() == []


def test_a_clock_pressed_while_the_link_was_down_is_no_press_after_it() -> None:
    """The last reading before the gap had White running; White moved and pressed unseen,
    Black moved and has not pressed: the first reading after the gap (Black running) is a new
    baseline, not White pressing now."""
    table = Table()
    table.start_clocks(A)
    unseen_gap(table, A, ["e2e4", "d7d5"], 5)
    table.wait(1)
    assert table.moves(A) == ["e2e4", "d7d5"]
    table.running[A] = chess.BLACK
    table.clock(A, chess.BLACK)
    table.wait(3)
    assert table.alerts() == []
    table.press(A)  # Black's press of d5, late
    table.move(A, "e4d5")
    table.press(A)
    table.wait(3)
    assert table.moves(A)[-1] == "e4d5"
    assert table.alerts() == []


def test_after_a_restart_no_board_is_read_before_its_link_is_back() -> None:
    """The old process died with White's move on the board and its press unseen: the new one
    commits nothing on a timer (no false ``move_without_clock``) and recovers the move, with
    the reply made meanwhile, from the dump when the link is back."""
    table = Table()
    table.start_clocks(A)
    table.move(A, "e2e4")
    table.rec.process_restarted()
    table.wait(10)
    assert table.moves(A) == []
    assert table.alerts() == []
    play_unseen(table, A, ["e2e4", "d7d5"])  # the reply made while no process read the board
    table.out += table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    assert table.moves(A) == ["e2e4", "d7d5"]
    assert all(m.recovered for m in table.played())
    assert table.alerts() == []


def test_the_late_last_press_of_a_gap_left_to_the_arbiter_is_no_press_without_a_move() -> None:
    """As after a recovery: the gap is ambiguous (castling rights), the last ply's mover has not
    pressed yet when the dump comes; the press is no ``clock_without_move``."""
    table = Table()
    table.start_clocks(A)
    for uci in AMBIGUOUS_BEFORE:
        table.move(A, uci)
        table.press(A)
        table.wait(3)
    assert table.moves() == AMBIGUOUS_BEFORE
    unseen_gap(table, A, AMBIGUOUS_GAP, 8)  # White's last ply, a2a1, not pressed yet
    table.clock(A, chess.WHITE)
    table.wait(1)
    table.press(A)
    table.wait(BETTER_LOOKS)
    assert [a.code for a in table.alerts()] == [AlertCode.GAP_AMBIGUOUS]


def test_a_press_without_a_move_after_a_gap_nothing_explained_corrects_the_guessed_turn() -> None:
    table = Table()
    table.start_clocks(A)
    gap_nothing_explains(table)  # the side on move stays a guess
    table.clock(A, chess.WHITE)  # the first reading after the gap: a baseline
    table.wait(1)
    assert table.rec.match.turn(A) == chess.WHITE  # the guess: as before the gap
    table.press(A)  # White ends a ply made during the gap
    table.wait(BETTER_LOOKS)
    assert [a.code for a in table.alerts()] == [AlertCode.GAP_AMBIGUOUS]
    assert table.rec.match.turn(A) == chess.BLACK


def capture_in_the_air() -> Table:
    """A long gap on A ends while Black's hand is in the middle of d5xe4: the dump shows both
    pawns lifted, a placement no plies explain (filled as it stands, a guess); then the pawn
    lands on e4."""
    table = Table("fics")
    for board, uci in [(A, "e2e4"), (A, "d7d5")]:
        table.move(board, uci).wait(3)
    table.rec.on_link_state(A, False, table.t)
    play_unseen(table, A, ["b1c3", "g8f6", "g1f3"])
    for square in ("e4", "d5"):
        table.physical[A].remove_piece_at(chess.parse_square(square))
    table.t += 12
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    table.put(A, "e4", "p").wait(1)
    return table


def test_a_dump_that_caught_a_capture_in_the_air_is_solved_again_once_the_piece_lands() -> None:
    table = capture_in_the_air()
    truth = ["b1c3", "g8f6", "g1f3", "d5e4"]
    assert sorted(table.moves(A)[2:]) == sorted(truth)
    assert all(m.recovered for m in table.played()[2:])
    assert [m.ply for m in table.played()] == [1, 2, 3, 4, 5, 6]
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()
    assert table.rec.match.pockets().of(B, chess.WHITE) == "P"  # the pawn Black took on A
    assert table.rec.match.pockets().of(B, chess.BLACK) == ""
    assert illegal_alerts(table) == []
    table.drop(B, "P", "e4").wait(3)  # white on B drops it: legal
    assert table.moves(B) == ["P@e4"]
    assert illegal_alerts(table) == []
    # The placement in the air explained nothing, the landing did, a second later: the
    # arbiter was never asked about a gap that settled itself.
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []


def test_a_drop_the_guessed_pockets_lack_after_an_unexplained_gap_is_the_gaps_evidence() -> None:
    """White on B lost a knight (now in White's pocket on A). During a gap on A nothing
    explains, White drops it there and Black takes another white knight: the placement shows
    as many knights as before, so the guess keeps the knight in A's pocket and gives B's none.
    White on B then drops the knight he has: a warning about the gap, the pocket corrected
    (the knight moved from A's pocket to B's), no illegal alert. A third knight cannot be."""
    table = Table("fics")
    for uci in ["g1f3", "e7e5", "f3e5", "d7d6", "e5f7", "e8f7"]:
        table.move(B, uci).wait(3)
    assert table.rec.match.pockets().of(A, chess.WHITE) == "N"
    table.rec.on_link_state(A, False, table.t)
    unseen = table.physical[A]
    unseen.set_piece_at(chess.E3, chess.Piece(chess.KNIGHT, chess.WHITE))  # N@e3, and a
    unseen.remove_piece_at(chess.B1)  # white knight taken; pawns gone that no plies explain:
    for square in ("d2", "c2", "f2"):
        unseen.remove_piece_at(chess.parse_square(square))
    table.t += 5
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(5)
    (gap,) = table.alerts(AlertCode.GAP_AMBIGUOUS)
    assert gap.details["candidates"] == []
    assert table.rec.match.pockets().of(B, chess.WHITE) == "PPP"
    assert table.rec.match.pockets().of(A, chess.WHITE) == "N"
    table.drop(B, "N", "g5").wait(3)  # White on B drops the knight taken on A
    assert table.moves(B)[-1] == "N@g5"
    assert illegal_alerts(table) == []
    supplied = table.alerts(AlertCode.GAP_AMBIGUOUS)[-1]
    assert supplied.severity is Severity.WARNING
    assert "knight" in supplied.message
    pockets = table.rec.match.pockets()
    assert (pockets.of(A, chess.WHITE), pockets.of(B, chess.WHITE)) == ("", "PPP")
    table.move(B, "f7e8").wait(3).drop(B, "N", "e5").wait(10)  # a fifth white knight
    assert [a.code for a in illegal_alerts(table)] == [AlertCode.DROP_NOT_IN_POCKET]


def test_a_reply_on_top_of_a_drop_that_waits_for_its_piece_is_no_wrong_turn() -> None:
    """White drops a knight he does not have, Black takes it at once: the drop stands as the
    illegal move it is (row 9), the capture is the next move, not a wrong turn."""
    table = Table("fics")
    table.move(B, "e2e4").wait(3).move(B, "g8f6").wait(3)
    table.drop(B, "N", "g4").wait(0.3)
    table.lift(B, "f6").put(B, "g4", "n").wait(10)
    codes = [a.code for a in illegal_alerts(table)]
    assert codes == [AlertCode.DROP_NOT_IN_POCKET]
    assert table.moves(B) == ["e2e4", "g8f6", "N@g4", "f6g4"]


def test_a_board_on_a_gaps_guess_that_stays_unexplained_is_solved_again_never_frozen() -> None:
    """After a gap nothing explained, the position is a guess: a placement that no move from
    it explains, and that stands for ``unexplained_limit``, is more of the gap. It is solved
    from the game as it stands and published, where on a board with no guess it would only
    raise ``unexplained_position`` for the players to put right."""
    table = Table("fics")
    gap_nothing_explains(table)
    table.wait(5)
    table.lift(A, "b2").lift(A, "g7").wait(6)  # nothing explains this either
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()
    table.wait(BETTER_LOOKS)
    assert len(table.alerts(AlertCode.GAP_AMBIGUOUS)) == 2
    assert table.alerts(AlertCode.UNEXPLAINED_POSITION) == []
    assert illegal_alerts(table) == []
    # Board B carries no guess: the same kind of placement there is the players' to fix.
    table.lift(B, "b2").lift(B, "g7").wait(6)
    assert table.rec.match.board_fen(B) != table.physical[B].board_fen()
    assert [a.board for a in table.alerts(AlertCode.UNEXPLAINED_POSITION)] == [B]


def test_a_recovery_with_the_wrong_side_on_move_is_taken_back_by_the_other_sides_move() -> None:
    """The shortest explanation decides the side on move of a recovery (the clock is not
    trusted as a link returns), so it is a guess: 2. Qf3 dxe4 3. Qg4 (3 plies) shows as
    2. Qg4 dxe4 (2 plies, White on move). Black's next move, a wrong turn after that guess, is
    its evidence: the 2 plies are taken back, the 3 recovered, and the move read as usual."""
    table = Table("fics")
    for uci in ["e2e4", "d7d5"]:
        table.move(A, uci).wait(3)
    unseen_gap(table, A, ["d1f3", "d5e4", "f3g4"], 5)
    table.wait(1)
    assert table.moves(A)[2:] == ["d1g4", "d5e4"]  # the shortest explanation: a guess
    assert table.rec.match.turn(A) == chess.WHITE
    table.move(A, "g8f6").wait(3)  # Black, on move in truth
    truth = Match(get_preset("fics"))
    for uci in ["e2e4", "d7d5", "d1f3", "d5e4", "f3g4", "g8f6"]:
        truth.play(BughouseMove(A, chess.Move.from_uci(uci)), t=0.0)
    assert [(t.board, t.ply) for t in table.of(Takeback)] == [(A, 3), (A, 2)]
    corrected = [m for m in table.played() if m.recovered][-3:]
    assert [m.ply for m in corrected] == [3, 4, 5]
    queen, capture, queen_again = (m.move.uci for m in corrected)  # Qf3 or Qh5: the same end
    assert (queen[:2], capture, queen_again[2:]) == ("d1", "d5e4", "g4")
    assert table.played()[-1].move.uci == "g8f6"
    assert not table.played()[-1].recovered
    assert table.rec.match.ply(A) == 6
    assert illegal_alerts(table) == []
    assert table.rec.match.fen(A) == truth.fen(A)  # placement, pockets, side on move
    assert table.rec.match.pockets() == truth.pockets()
