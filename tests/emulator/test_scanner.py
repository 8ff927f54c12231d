"""The scanner reproduces the artefacts real boards show (dgt-protocol.md §3.9, §5.1)."""

from __future__ import annotations

import chess
import pytest
from emulator_helpers import PERIOD, STEP, apply_updates, decode_all, make_board, updates
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_bridge.dgt.constants import PieceCode
from bughouse_bridge.dgt.squares import square_to_field
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.handling import CaptureOrder
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.emulator.scanner import Scanner
from bughouse_bridge.emulator.scenario import Scenario

C7, C6 = square_to_field(chess.C7), square_to_field(chess.C6)


def _board_in_update_nice():
    board = make_board()
    board.receive(b"\x4b", 0.0)
    board.poll(0.0)
    return board


def _sample_time(field: int, after: float) -> float:
    return make_board().scanner.next_sample_time(field, after)


@pytest.mark.parametrize(
    ("lift_after_c7_sample", "place_before_c6_sample", "expected"),
    [
        # Lifted just after c7 was read and placed before c6 is read: c6 first (both occupied).
        (True, True, [("c6", PieceCode.BPAWN), ("c7", PieceCode.EMPTY)]),
        # Lifted before c7 is read: the ordinary lift-then-place order.
        (False, False, [("c7", PieceCode.EMPTY), ("c6", PieceCode.BPAWN)]),
    ],
)
def test_c7_c6_order_follows_the_field_order_of_the_scan(
    lift_after_c7_sample, place_before_c6_sample, expected
):
    board = _board_in_update_nice()
    c7_read = _sample_time(C7, 1.0)
    lift = c7_read + STEP / 2 if lift_after_c7_sample else c7_read - STEP / 2
    c6_read = _sample_time(C6, lift)
    place = c6_read - STEP / 2 if place_before_c6_sample else c6_read + 2 * STEP
    board.set_field(C7, PieceCode.EMPTY, lift)
    board.set_field(C6, PieceCode.BPAWN, place)
    messages = [m for _, m in decode_all(board.poll(3.0))]
    assert updates(messages) == expected


def _run(build, seed=0):
    config = BoardConfig(power_up_bus_mode=False, base_scan_period=PERIOD, scan_phase=0.0)
    sc = Scenario({"A": config}, seed=seed)
    sc.host(b"\x4b")
    sc.wait(0.5)
    build(sc, sc.hands())
    sc.wait(1.0)
    result = run_scenario(sc)
    return [m for _, m in decode_all([(r.t, r.data) for r in result.rx("A")])]


def test_capture_by_replacement_never_reports_the_square_empty():
    def build(sc, hands):
        hands.set(chess.B5, chess.Piece(chess.BISHOP, chess.WHITE))
        sc.wait(0.5)
        hands.capture(chess.B5, chess.C6, CaptureOrder.REPLACE)

    reported = updates(_run(build))
    assert ("c6", PieceCode.WBISHOP) in reported
    assert ("c6", PieceCode.EMPTY) not in reported
    assert reported[-2:] in (
        [("b5", PieceCode.EMPTY), ("c6", PieceCode.WBISHOP)],
        [("c6", PieceCode.WBISHOP), ("b5", PieceCode.EMPTY)],
    )


def test_capture_with_the_victim_removed_first_shows_three_updates():
    def build(sc, hands):
        hands.set(chess.B5, chess.Piece(chess.BISHOP, chess.WHITE))
        sc.wait(0.5)
        hands.lift(chess.C7)  # the victim: a black pawn on c6
        hands.place(chess.C6)
        sc.wait(0.5)
        hands.capture(chess.B5, chess.C6, CaptureOrder.VICTIM_FIRST)

    reported = updates(_run(build))
    tail = reported[-3:]
    assert tail[0] == ("c6", PieceCode.EMPTY)
    assert sorted(tail[1:]) == [("b5", PieceCode.EMPTY), ("c6", PieceCode.WBISHOP)]


def test_a_slide_reports_every_square_it_rests_on():
    rook = chess.Piece(chess.ROOK, chess.WHITE)
    start = chess.BaseBoard.empty()
    start.set_piece_at(chess.A1, rook)
    config = BoardConfig(power_up_bus_mode=False, base_scan_period=PERIOD, scan_phase=0.0)
    sc = Scenario({"A": config}, placements={"A": start})
    sc.host(b"\x4b")
    sc.wait(0.5)
    sc.hands().slide(rook, [chess.A1, chess.B1, chess.C1, chess.D1, chess.E1, chess.F1])
    sc.wait(1.0)
    reported = updates(
        [m for _, m in decode_all([(r.t, r.data) for r in run_scenario(sc).rx("A")])]
    )
    placed = [square for square, code in reported if code == PieceCode.WROOK]
    assert placed == ["b1", "c1", "d1", "e1", "f1"]
    emptied = [square for square, code in reported if code == PieceCode.EMPTY]
    assert emptied == ["a1", "b1", "c1", "d1", "e1"]


@pytest.mark.parametrize(("duration", "seen"), [(PERIOD * 1.5, True), (STEP / 4, False)])
def test_a_hovering_piece_is_a_ghost_only_if_a_scan_catches_it(duration, seen):
    knight = chess.Piece(chess.KNIGHT, chess.BLACK)

    def build(sc, hands):
        sc.at(1.0 + square_to_field(chess.E6) * STEP + STEP / 8)
        hands.hover(chess.E6, knight, duration)

    reported = updates(_run(build))
    assert (("e6", PieceCode.BKNIGHT) in reported) is seen
    assert (("e6", PieceCode.EMPTY) in reported) is seen


def test_a_dump_reports_the_sampled_state_not_the_physical_one():
    board = _board_in_update_nice()
    e2 = square_to_field(chess.E2)
    lift = _sample_time(e2, 1.0) + STEP / 2
    board.set_field(e2, PieceCode.EMPTY, lift)
    board.receive(b"\x42", lift + STEP)  # before the next pass reaches e2
    messages = [m for _, m in decode_all(board.poll(lift + 0.1))]
    dump = next(m for m in messages if hasattr(m, "squares"))
    assert dump.squares[e2] == PieceCode.WPAWN
    assert board.scanner.physical(e2) == PieceCode.EMPTY


_changes = st.lists(
    st.tuples(
        st.floats(min_value=0.0, max_value=0.5),
        st.integers(min_value=0, max_value=63),
        st.integers(min_value=0, max_value=15),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(_changes, st.floats(min_value=0.0, max_value=PERIOD), st.integers(0, 63))
def test_reported_changes_rebuild_the_physical_board_and_invent_nothing(changes, phase, poll_at):
    initial = tuple((i * 7) % 13 for i in range(64))
    scanner = Scanner(initial, period=PERIOD, phase=phase)
    t = 0.0
    timeline: dict[int, list[tuple[float, int]]] = {i: [(-1.0, initial[i])] for i in range(64)}
    reported = []
    for gap, field, code in changes:
        t += gap
        reported += scanner.advance(t - poll_at * STEP / 64)
        scanner.set(field, code, t)
        timeline[field].append((t, code))
    reported += scanner.advance(t + 2 * PERIOD)
    state = list(initial)
    for sample in reported:
        state[sample.field] = sample.code
        # A reported value was physically on the square at the moment it was sampled.
        truth = [code for when, code in timeline[sample.field] if when <= sample.t][-1]
        assert truth == sample.code
    assert tuple(state) == scanner.physical_state == scanner.sampled
    assert [s.t for s in reported] == sorted(s.t for s in reported)


def test_updates_only_in_update_modes_but_the_dump_always_follows_the_sensors():
    board = make_board()
    board.receive(b"\x40", 0.0)  # IDLE
    e2 = square_to_field(chess.E2)
    board.set_field(e2, PieceCode.EMPTY, 0.5)
    idle = [m for _, m in decode_all(board.poll(2.0))]
    assert updates(idle) == []
    board.receive(b"\x42", 2.0)
    dump = [m for _, m in decode_all(board.poll(2.5))]
    assert apply_updates(tuple(range(64)), dump)[e2] == PieceCode.EMPTY
