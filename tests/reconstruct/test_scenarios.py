"""Scenario tests: one physical situation each, square by square, with or without clocks."""

from __future__ import annotations

import itertools

import chess
import pytest
from sensors import A, B, Table, clock_times

from bughouse_bridge.bughouse.events import (
    Clocks,
    ClocksStatus,
    Flag,
    LinkChanged,
    MovePlayed,
    ResultDecided,
    Severity,
    Takeback,
)
from bughouse_bridge.bughouse.types import AlertCode
from bughouse_bridge.dgt.messages import FieldUpdate
from bughouse_bridge.dgt.squares import square_to_field
from bughouse_bridge.reconstruct import ClockReading, ReconstructorConfig, RequestDump

# -- plain moves without a clock: committed once the board is stable --------------------------


def test_a_move_is_committed_when_the_board_is_stable() -> None:
    table = Table()
    table.move(A, "e2e4")
    assert table.moves() == []  # not before the stability window
    table.settle()
    assert table.moves() == ["e2e4"]
    assert table.alerts() == []


def test_lift_and_put_back_is_nothing() -> None:
    table = Table()
    table.lift(A, "g1").wait(2.0).put(A, "g1", "N").settle()
    assert table.moves() == []
    assert table.alerts() == []


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (["lift d4", "lift e5", "put e5 P"], "d4e5"),  # victim removed last
        (["lift e5", "lift d4", "put e5 P"], "d4e5"),  # victim removed first
        (["lift d4", "put e5 P"], "d4e5"),  # replaced directly
        (["put e5 P", "lift d4"], "d4e5"),  # placement reported before the lift
    ],
)
def test_captures_in_any_order(order: list[str], expected: str) -> None:
    fen = {A: "rnbqkbnr/pppp1ppp/8/4p3/3P4/8/PPP1PPPP/RNBQKBNR[] w KQkq - 0 2"}
    table = Table(fens=fen)
    for step in order:
        words = step.split()
        if words[0] == "lift":
            table.lift(A, words[1])
        else:
            table.put(A, words[1], words[2])
    table.settle()
    assert table.moves() == [expected]
    assert table.rec.match.pockets().b_black == "P"  # the captured pawn went to the partner


@pytest.mark.parametrize(
    "order",
    [
        ["lift e1", "put g1 K", "lift h1", "put f1 R"],
        ["lift h1", "put f1 R", "lift e1", "put g1 K"],
        ["lift e1", "lift h1", "put f1 R", "put g1 K"],
        ["put g1 K", "lift e1", "put f1 R", "lift h1"],
    ],
)
def test_castling_in_any_order(order: list[str]) -> None:
    table = Table(fens={A: "r3k2r/8/8/8/8/8/8/R3K2R[] w KQkq - 0 1"})
    for step in order:
        words = step.split()
        table.lift(A, words[1]) if words[0] == "lift" else table.put(A, words[1], words[2])
    table.settle()
    assert table.moves() == ["e1g1"]


@pytest.mark.parametrize("victim_first", [True, False])
def test_en_passant(victim_first: bool) -> None:
    table = Table(fens={A: "4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 2"})
    if victim_first:
        table.lift(A, "d5").lift(A, "e5").put(A, "d6", "P")
    else:
        table.lift(A, "e5").put(A, "d6", "P").lift(A, "d5")
    table.settle()
    assert table.moves() == ["e5d6"]


def test_promotion_selects_the_placed_piece_under_free_promotion() -> None:
    table = Table("fics", fens={A: "7k/P7/8/8/8/8/8/4K3[] w - - 0 1"})
    table.move(A, "a7a8n").settle()
    assert table.moves() == ["a7a8n"]


def test_slide_through_a_legal_square_is_corrected() -> None:
    table = Table()
    table.move(A, "e2e3").settle()  # paused long enough on e3 to be committed
    table.move(A, "e3e4").settle()
    assert table.moves() == ["e2e4"]
    assert [type(o).__name__ for o in table.out if isinstance(o, MovePlayed | Takeback)] == [
        "MovePlayed",
        "Takeback",
        "MovePlayed",
    ]


def test_rotated_board_is_detected_from_the_start_position() -> None:
    table = Table(rotated=[A])
    table.move(A, "g1f3").settle().move(A, "d7d5").settle()
    assert table.moves() == ["g1f3", "d7d5"]


def test_configured_orientation_is_used() -> None:
    config = ReconstructorConfig(orientation={A: "rotated", B: "normal"})
    table = Table(config=config, rotated=[A])
    table.move(A, "e2e4").settle()
    assert table.moves() == ["e2e4"]


# -- the clock ----------------------------------------------------------------------------


def test_the_press_commits_at_once_with_the_movers_time() -> None:
    table = Table().start_clocks()
    table.move(A, "e2e4")
    new = table.press(A)  # before the stability window has passed
    played = [o for o in new if isinstance(o, MovePlayed)]
    assert [p.move.uci for p in played] == ["e2e4"]
    assert played[0].clock_ms == table.times[A][0] // 1000 * 1000


def test_white_side_is_learned_when_white_is_on_the_right() -> None:
    table = Table()
    table.feed(
        A,
        clock_times(300_000, 280_000, chess.WHITE).__class__(
            right=clock_times(300_000, 0, None).left,
            left=clock_times(0, 280_000, None).right,
            status=0x03,  # running, lever right: White's time runs on the right
        ),
    )
    table.move(A, "e2e4").settle()
    assert table.moves() == []  # waiting for the press
    table.feed(
        A,
        clock_times(0, 0, None).__class__(
            right=clock_times(299_000, 0, None).left,
            left=clock_times(0, 280_000, None).right,
            status=0x01,  # lever left now: Black's time runs
        ),
    )
    assert table.moves() == ["e2e4"]
    assert table.played()[0].clock_ms == 299_000


def test_a_move_without_a_press_is_committed_late_with_an_alert() -> None:
    table = Table().start_clocks()
    table.move(A, "e2e4").wait(2.0)
    assert table.moves() == []
    table.wait(2.0)
    assert table.moves() == ["e2e4"]
    assert [a.code for a in table.alerts()] == [AlertCode.MOVE_WITHOUT_CLOCK]


def test_two_moves_without_a_press() -> None:
    table = Table().start_clocks()
    table.move(A, "e2e4").wait(0.5).move(A, "e7e5").settle()
    assert table.moves() == ["e2e4", "e7e5"]
    assert [a.code for a in table.alerts()] == [AlertCode.MOVE_WITHOUT_CLOCK]
    assert table.alerts()[0].color == chess.WHITE


def test_a_press_without_a_move() -> None:
    table = Table().start_clocks()
    table.wait(1.0)
    table.press(A)
    table.settle()
    assert [a.code for a in table.alerts()] == [AlertCode.CLOCK_WITHOUT_MOVE]
    # The clock now runs for Black although White is on move: White's move needs no press.
    table.move(A, "e2e4").settle()
    assert table.moves() == ["e2e4"]


def test_press_reported_before_the_last_square() -> None:
    table = Table().start_clocks()
    table.lift(A, "e2")
    table.press(A)
    table.put(A, "e4", "P").settle()
    assert table.moves() == ["e2e4"]
    assert table.alerts() == []


def test_clock_readings_at_most_once_a_second() -> None:
    table = Table().start_clocks(A)
    for _ in range(12):
        table.wait(0.25)
        table.clock(A, chess.WHITE)
    readings = table.of(ClockReading)
    assert 3 <= len(readings) <= 4
    assert all(later.t - earlier.t >= 1.0 for earlier, later in itertools.pairwise(readings))


def test_a_flag() -> None:
    table = Table("fics").start_clocks()
    table.times[A] = [0, 120_000]
    table.clock(A, chess.WHITE)
    table.wait(0.3)  # the flag waits a scan for a placement White may have set down before it
    flags = table.of(Flag)
    assert [(f.board, f.color) for f in flags] == [(A, chess.WHITE)]
    assert table.of(ResultDecided)


def test_both_clocks_stopped_calls_the_arbiter() -> None:
    table = Table().start_clocks()
    table.clock(A, None)
    assert table.of(Clocks) == []
    table.clock(B, None)
    assert [c.status for c in table.of(Clocks)] == [ClocksStatus.BOTH_STOPPED]
    assert [a.code for a in table.alerts()] == [AlertCode.ARBITER_CALL]
    table.clock(A, chess.WHITE)
    assert [c.status for c in table.of(Clocks)][-1] is ClocksStatus.RUNNING


# -- illegal things -----------------------------------------------------------------------


def test_wrong_turn() -> None:
    table = Table()
    table.move(A, "e7e5").wait(1.5)
    (alert,) = table.alerts()
    assert alert.code is AlertCode.WRONG_TURN
    assert alert.color == chess.BLACK
    assert table.moves() == []


def test_an_illegal_move_is_described() -> None:
    table = Table()
    table.move(A, "g1g3").wait(1.5)
    (alert,) = table.alerts()
    assert alert.code is AlertCode.ILLEGAL_MOVE
    assert "g1-g3" in alert.message
    assert alert.details["fix"] == ["put N on g1", "clear g3"]


def test_unexplained_position_then_resumed() -> None:
    table = Table()
    table.lift(A, "a2").lift(A, "b2").wait(3.0)
    assert table.alerts() == []  # not before the limit
    table.wait(1.5)
    (alert,) = table.alerts()
    assert alert.code is AlertCode.UNEXPLAINED_POSITION
    assert sorted(alert.details["squares"]) == ["a2", "b2"]
    assert alert.details["fix"] == ["put P on a2", "put P on b2"]
    table.put(A, "a2", "P").put(A, "b2", "P").settle()
    resumed = table.alerts()[-1]
    assert resumed.severity is Severity.INFO
    assert resumed.details["resolved"] is True
    table.move(A, "e2e4").settle()
    assert table.moves() == ["e2e4"]


def test_unexplained_suggests_the_nearest_successor() -> None:
    table = Table()
    table.lift(A, "g1").put(A, "f3", "N").put(A, "e4", "P").wait(5.0)
    (alert,) = table.alerts()
    assert alert.details["fix"] == ["clear e4"]
    assert "g1f3" in alert.details["nearest"]


@pytest.mark.parametrize(
    ("kings", "result"),
    [(("e4", "d5"), "1-0"), (("d4", "e5"), "0-1"), (("e4", "e5"), "1/2-1/2")],
)
def test_kings_in_the_centre_suggest_a_result(kings: tuple[str, str], result: str) -> None:
    table = Table(fens={A: "k7/8/8/8/8/8/8/7K[] w - - 0 1"})
    table.lift(A, "h1").lift(A, "a8").put(A, kings[0], "K").put(A, kings[1], "k").settle()
    (alert,) = table.alerts()
    assert alert.code is AlertCode.RESULT_SIGNAL
    assert alert.details["result"] == result
    assert table.rec.match.result is None  # a suggestion, never applied


def test_a_magic_piece_suggests_a_result_and_is_no_piece() -> None:
    table = Table()
    table.feed(A, FieldUpdate(square_to_field(chess.E4), 0x0F))
    table.settle()
    (alert,) = table.alerts()
    assert alert.code is AlertCode.RESULT_SIGNAL
    assert alert.details["result"] == "0-1"
    table.move(A, "d2d4").settle()
    assert table.moves() == ["d2d4"]


# -- bughouse: drops, grace, row 9, steals ------------------------------------------------

B_KNIGHT_CAPTURE = "rnbqkbnr/ppp1pppp/8/3p4/4N3/8/PPPPPPPP/R1BQKBNR[] b KQkq - 0 1"


def test_drop_within_the_grace_is_legal() -> None:
    table = Table(fens={B: B_KNIGHT_CAPTURE})
    table.drop(A, "N", "f3").wait(1.0)
    table.move(B, "d5e4").settle()
    assert table.moves() == ["d5e4", "N@f3"]
    assert table.alerts() == []
    assert table.rec.match.pockets().a_white == ""


def test_drop_after_the_grace_raises_and_stands() -> None:
    table = Table(fens={B: B_KNIGHT_CAPTURE})
    table.drop(A, "N", "f3").wait(2.5)
    assert [a.code for a in table.alerts()] == [AlertCode.DROP_NOT_IN_POCKET]
    assert table.played()[-1].forced
    assert table.moves() == ["N@f3"]


ILLEGAL_DROP = {A: "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1"}


def test_row9_remedy_the_opponent_takes_the_drop_off() -> None:
    table = Table(fens=ILLEGAL_DROP)
    table.drop(A, "P", "a1").settle()
    assert [a.code for a in table.alerts()] == [AlertCode.PAWN_DROP_RANK]
    table.lift(A, "a1").settle()
    assert table.alerts()[-1].code is AlertCode.ILLEGAL_DROP_REMOVED
    assert table.rec.match.pockets().b_white == "P"  # as if Black A had captured it (dsj)
    table.move(A, "e8d7").settle()
    assert table.moves() == ["P@a1", "e8d7"]


def test_row9_the_drop_stands_when_the_opponent_replies() -> None:
    table = Table(fens=ILLEGAL_DROP)
    table.drop(A, "P", "a1").settle().move(A, "e8d7").settle()
    assert table.moves() == ["P@a1", "e8d7"]
    assert [a.code for a in table.alerts()] == [AlertCode.PAWN_DROP_RANK]


STEAL_FENS = {A: "7k/1P6/8/8/8/8/8/4K3[] w - - 0 1", B: "4k3/8/8/8/8/8/8/1N2K3[] b - - 0 1"}


@pytest.mark.parametrize("order", ["promotion first", "removal first", "one scan"])
def test_dsj_steal_in_every_order(order: str) -> None:
    table = Table(fens=STEAL_FENS)
    if order == "promotion first":
        table.move(A, "b7b8n").wait(1.0).lift(B, "b1")
    elif order == "removal first":
        table.lift(B, "b1").wait(1.0).move(A, "b7b8n")
    else:
        table.lift(A, "b7").lift(B, "b1").put(A, "b8", "N")
    table.settle()
    played = table.played()
    assert [(p.board, p.move.uci) for p in played] == [(A, "b7b8n")]
    assert played[0].move.steal_square == chess.B1
    assert played[0].steal is not None
    assert table.rec.match.board_fen(B) == "4k3/8/8/8/8/8/8/4K3"
    assert table.alerts() == []


def test_steal_missing() -> None:
    table = Table(fens=STEAL_FENS)
    table.move(A, "b7b8n").wait(3.0)
    assert [a.code for a in table.alerts()] == [AlertCode.STEAL_MISSING]
    table.lift(B, "b1").settle()  # late, but it still completes the promotion
    assert table.moves() == ["b7b8n"]


def test_steal_illegal() -> None:
    fens = {A: STEAL_FENS[A], B: "4k3/8/8/8/8/8/8/r1N1K3[] b - - 0 1"}
    table = Table(fens=fens)
    table.move(A, "b7b8n").lift(B, "c1").wait(1.5)
    assert AlertCode.STEAL_ILLEGAL in [a.code for a in table.alerts()]
    assert table.moves() == []


# -- links ----------------------------------------------------------------------------------


def test_the_first_connection_is_not_reported_as_a_link_coming_back() -> None:
    table = Table()
    first = table.rec.on_link_state(A, True, table.t)
    assert [type(o).__name__ for o in first] == ["LinkChanged", "RequestDump"]
    assert first[0].status == "connected"


@pytest.mark.parametrize("missing", [["e2e4"], ["e2e4", "e7e5"]])
def test_reconnect_reconstructs_missing_plies(missing: list[str]) -> None:
    table = Table()
    lost = table.rec.on_link_state(A, False, table.t)
    assert [type(o).__name__ for o in lost] == ["LinkChanged", "Alert"]
    for uci in missing:  # moves made while the cable was out: nothing reaches the bridge
        move = chess.Move.from_uci(uci)
        table.physical[A].set_piece_at(
            move.to_square, table.physical[A].remove_piece_at(move.from_square)
        )
    back = table.rec.on_link_state(A, True, table.t + 5)
    assert RequestDump(A) in back
    assert [a.code for a in back if hasattr(a, "code")] == [AlertCode.LINK_BACK]
    table.t += 5
    table.dump(A)
    table.wait(1)
    assert table.moves() == missing
    assert table.of(LinkChanged)[-1].status == "resynced"


def test_reconnect_with_too_much_missing_asks_the_arbiter() -> None:
    table = Table()
    table.rec.on_link_state(A, False, table.t)
    for square in ("e2", "d2", "c2"):
        table.physical[A].remove_piece_at(chess.parse_square(square))
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    # A short gap nothing explains may be a hand in motion: the next placement is awaited...
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []
    table.wait(4)  # ...for ``unexplained_limit``; the position is published as it stands...
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []
    table.wait(4)  # ...and once no better look explained it either, the arbiter is asked
    (alert,) = table.alerts(AlertCode.GAP_AMBIGUOUS)  # no moves explain it: the arbiter's
    assert alert.details["candidates"] == []
    assert table.rec.match.board_fen(A) == table.physical[A].board_fen()  # never frozen


# -- stalling, arbiter doors ----------------------------------------------------------------


def test_stalling_while_a_stalemate_waits() -> None:
    config = ReconstructorConfig(stalling_limit=10.0)
    table = Table(config=config, fens={A: "k7/3Q4/1K6/8/8/8/8/8[] w - - 0 1"})
    table.move(A, "d7c7").settle()
    assert table.moves() == ["d7c7"]
    table.wait(5.0)
    assert table.alerts(AlertCode.STALLING) == []
    table.wait(6.0)
    (alert,) = table.alerts(AlertCode.STALLING)
    assert alert.color == chess.BLACK


def test_accept_plays_the_illegal_drop_the_arbiter_allows() -> None:
    table = Table()
    table.drop(A, "Q", "e4").wait(3.0)
    assert table.moves() == ["Q@e4"]  # stood after the grace
    table2 = Table()
    table2.move(A, "g1g3").wait(1.5)
    table2.out += table2.rec.accept(A, table2.t)
    assert table2.rec.match.board_fen(A) == table2.physical[A].board_fen()


def test_new_game_starts_a_fresh_match() -> None:
    table = Table()
    table.move(A, "e2e4").settle()
    table.rec.new_game(table.t)
    assert table.rec.match.ply(A) == 0


def test_after_an_arbiter_takeback_the_pieces_are_put_back() -> None:
    table = Table()
    table.move(A, "e2e4").settle()
    table.out += table.rec.match.takeback(A, t=table.t)
    table.move(A, "e4e2").settle()  # the players put the pawn back: nothing to read
    assert table.moves() == []
    assert table.alerts() == []
    table.move(A, "d2d4").settle()
    assert table.moves() == ["d2d4"]


def test_a_board_turned_mid_game_is_followed() -> None:
    table = Table()
    table.move(A, "e2e4").settle()
    table.rotated.add(A)  # the board is turned by 180 degrees, pieces and all
    table.dump(A)
    table.wait(1)
    table.settle()
    assert table.alerts() == []
    table.move(A, "e7e5").settle()
    assert table.moves() == ["e2e4", "e7e5"]
