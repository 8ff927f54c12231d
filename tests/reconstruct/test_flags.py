"""Flags from the clock's flag bits, flag times from its countdown, presses before flags.

The emulated clocks (``emulator/clock.py``) are read as a board reads them: polled every
0.25 s, sent only when the reading changes, encoded and decoded by the real DGT codec, and
delivered to the tracker with a random delay of up to half a second (in order).
"""

from __future__ import annotations

import random

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sensors import A, B, Table

from bughouse_bridge.bughouse.events import (
    Alert,
    Clocks,
    ClocksStatus,
    Flag,
    MovePlayed,
    ResultDecided,
)
from bughouse_bridge.bughouse.types import AlertCode
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, ClockType, LeverSide
from bughouse_bridge.emulator.clock import ClockConfig, ClockModel, ClockSetting
from bughouse_bridge.reconstruct.clocks import ClockTracker

MODELS = (ClockType.DGT3000, ClockType.XL)
POLL = 0.25


def _played_clock(kind: ClockType, seconds: float, phase: float, seed: int):
    """A clock running White's (left) time out; what the tracker is told, and when."""
    clock = ClockModel(ClockConfig(kind=kind, white_side=LeverSide.LEFT))
    clock.set(ClockSetting(int(seconds * 1000), 300_000, LeverSide.LEFT), 0.0)
    decoder, rng = DgtDecoder(), random.Random(seed)
    sent, last, arrival = [], None, 0.0
    t = phase
    while t < seconds + 1.0:
        reading = clock.reading(t)
        if reading != last:
            last = reading
            arrival = max(arrival, t + rng.uniform(0.0, 0.5))  # late, but in order
            (decoded,) = decoder.feed(encode_message(reading))
            sent.append((arrival, decoded))
        t += POLL
    return sent


def _feed(tracker: ClockTracker, sent) -> list[tuple[float, tuple[chess.Color, float]]]:
    flags = []
    for arrival, times in sent:
        update = tracker.feed(times, arrival, turn=chess.WHITE, at_rest=True, presser=chess.BLACK)
        flags += [(arrival, flag) for flag in update.flags]
    return flags


@pytest.mark.parametrize(
    ("kind", "told"),
    [(kind, told) for kind in MODELS for told in (kind, None)],
    ids=lambda value: "unknown" if value is None else value.name,
)
@given(
    seconds=st.floats(3.0, 20.0),
    phase=st.floats(0.0, POLL),
    seed=st.integers(0, 10**6),
)
@settings(max_examples=40, deadline=None)
def test_a_flag_only_with_the_flag_bit_timed_by_the_countdown(kind, told, seconds, phase, seed):
    """``told`` is the model the clock's version ack named (None: no ack seen)."""
    tracker = ClockTracker(LeverSide.LEFT)
    tracker.model = told
    sent = _played_clock(kind, seconds, phase, seed)
    flags = _feed(tracker, sent)
    (arrival, (color, at)), *more = flags
    assert color == chess.WHITE
    assert more == []
    flag_message = next(t for t, times in sent if times.left.flag_fallen)
    assert arrival == flag_message  # never earlier: a 0:00 face alone is not a flag
    # The countdown bounds the zero crossing from above and is never worse than the late flag
    # message; messages are polled every 0.25 s, so it is at most that plus the delay late.
    assert seconds - 1e-6 <= at <= arrival
    assert at <= seconds + POLL + 0.5


def test_the_xl_shows_its_last_second_as_zero_without_a_flag():
    tracker = ClockTracker(LeverSide.LEFT)
    tracker.model = ClockType.XL
    sent = _played_clock(ClockType.XL, 5.0, 0.1, seed=1)
    zero_running = [(t, times) for t, times in sent if times.left.total_seconds == 0]
    assert zero_running[0][1].running  # 0:00 on the face, the time still runs
    assert not zero_running[0][1].left.flag_fallen
    flags = _feed(tracker, sent)
    assert [t for t, _ in flags] == [t for t, times in zero_running if times.left.flag_fallen][:1]


def test_the_dgt3000_never_shows_zero_before_the_flag():
    sent = _played_clock(ClockType.DGT3000, 5.0, 0.1, seed=1)
    zero = [times for _, times in sent if times.left.total_seconds == 0]
    assert zero
    assert all(times.left.flag_fallen and times.left.flag_shown for times in zero)


@pytest.mark.parametrize(
    ("fallen", "shown", "expected"),
    [(False, False, []), (True, False, [chess.WHITE]), (False, True, [chess.WHITE])],
)
def test_either_flag_bit_is_a_flag(fallen, shown, expected):
    tracker = ClockTracker(LeverSide.LEFT)
    tracker.model = ClockType.DGT3000
    running = ClockTimes(right=ClockFace(0, 5, 0), left=ClockFace(0, 0, 3), status=0x01)
    tracker.feed(running, 1.0, turn=chess.WHITE, at_rest=True, presser=chess.BLACK)
    zero = ClockFace(0, 0, 0, flag_fallen=fallen, flag_shown=shown)
    times = ClockTimes(right=ClockFace(0, 5, 0), left=zero, status=0x01)
    update = tracker.feed(times, 4.3, turn=chess.WHITE, at_rest=True, presser=chess.BLACK)
    assert [color for color, _ in update.flags] == expected
    if expected:
        # 3 s shown at 1.0 s on a face that rounds up: the time ran out by 4.0 s at the latest.
        assert update.flags[0][1] == pytest.approx(4.0)


# -- the reconstructor: a running 0:00, claims, and a press before the flag -------------------


def _zero_without_flag(table: Table, board, color) -> None:
    white_ms, black_ms = table.times[board]
    faces = {chess.WHITE: ClockFace(0, white_ms // 60_000, white_ms // 1000 % 60)}
    faces[chess.BLACK] = ClockFace(0, black_ms // 60_000, black_ms // 1000 % 60)
    faces[color] = ClockFace(0, 0, 0)  # the XL's last second: 0:00, still running, no bit
    status = 0x01 | (0x02 if color == chess.BLACK else 0)
    table.feed(board, ClockTimes(right=faces[chess.BLACK], left=faces[chess.WHITE], status=status))


@pytest.mark.parametrize("preset", ["dsj", "fics"])
def test_a_running_zero_without_the_flag_bit_is_no_flag(preset):
    table = Table(preset).start_clocks()
    _zero_without_flag(table, A, chess.WHITE)
    table.wait(0.5)
    assert table.of(Flag) == []
    assert table.rec.match.result is None


def test_under_dsj_a_flag_is_claimable_and_reading_goes_on():
    table = Table("dsj").start_clocks()
    table.times[B] = [0, 300_000]
    table.clock(B, None)
    table.wait(0.3)  # the flag waits a scan for a placement White B may have set down before it
    (flag,) = table.of(Flag)
    (alert,) = table.alerts(AlertCode.FLAG)
    assert (flag.board, flag.color) == (B, chess.WHITE)
    assert alert.details["claim"] == {"board": "B", "color": "white", "claim": "flag"}
    assert table.rec.match.result is None
    table.move(A, "e2e4")
    table.press(A)
    table.settle()
    assert table.moves() == ["e2e4"]


CONTACT = "7k/7p/4N3/8/8/8/8/K5Q1 w - - 0 1"  # Qg1-g7 mates Black A: Ne6 guards g7
BLACK_B_ON_MOVE = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.mark.parametrize(("press_first", "winner"), [(True, 0), (False, 1)])
def test_a_press_before_the_flag_counts_before_it(press_first, winner):
    """White A lifts the queen, presses, and sets it on g7 (mate) only after Black B's flag
    message came from the other board. Pressed before the flag, the mate decides (White A's
    team); pressed after it, under fics the flag decides (Black A's team)."""
    table = Table("fics", fens={A: CONTACT, B: BLACK_B_ON_MOVE}).start_clocks()
    table.wait(1.0)
    table.lift(A, "g1")
    if press_first:
        table.press(A)
    table.times[B] = [300_000, 0]
    table.clock(B, None)  # Black B's flag falls
    table.put(A, "g7", "Q")
    if not press_first:
        table.press(A)
    table.settle()
    results = table.of(ResultDecided)
    assert results[0].winner_team == winner
    assert len(results) == 1
    kinds = [type(o) for o in table.out if isinstance(o, MovePlayed | Flag | ResultDecided)]
    if press_first:
        assert kinds == [MovePlayed, ResultDecided, Flag]
    else:
        assert kinds == [Flag, ResultDecided, MovePlayed]  # still read after the result
    assert table.moves(A) == ["g1g7"]


def test_a_held_flag_is_released_when_the_press_has_no_move():
    table = Table("fics").start_clocks()
    table.press(A)  # a press with no move on board A
    table.times[B] = [0, 300_000]
    table.clock(B, None)
    assert table.of(Flag) == []  # held: the press might still bring a move
    table.wait(2.0)
    assert [(f.board, f.color) for f in table.of(Flag)] == [(B, chess.WHITE)]
    assert table.of(ResultDecided)[0].winner_team == 0
    assert any(isinstance(o, Alert) for o in table.out)


@pytest.mark.parametrize(("preset", "calls"), [("dsj", True), ("dsb", True), ("fics", False)])
def test_both_clocks_stopped_calls_the_arbiter_where_row_14_says_so(preset, calls):
    table = Table(preset).start_clocks()
    table.clock(A, None)
    table.clock(B, None)
    assert [c.status for c in table.of(Clocks)] == [ClocksStatus.BOTH_STOPPED]
    assert bool(table.alerts(AlertCode.ARBITER_CALL)) == calls


def test_a_clock_set_again_after_a_flag_can_flag_again():
    tracker = ClockTracker(LeverSide.LEFT)
    out = ClockFace(0, 0, 0, flag_fallen=True, flag_shown=True)
    five = ClockFace(0, 5, 0)
    feeds = [
        (ClockTimes(right=five, left=ClockFace(0, 0, 2), status=0x01), 1.0),
        (ClockTimes(right=five, left=out, status=0x00), 3.0),
        (ClockTimes(right=five, left=out, status=0x00), 4.0),  # still down: no second flag
        (ClockTimes(right=five, left=ClockFace(0, 0, 3), status=0x01), 10.0),  # arbiter: +3 s
        (ClockTimes(right=five, left=out, status=0x00), 13.2),
    ]
    flags = []
    for times, t in feeds:
        update = tracker.feed(times, t, turn=chess.WHITE, at_rest=True, presser=chess.BLACK)
        flags += [(t, color) for color, _ in update.flags]
    assert flags == [(3.0, chess.WHITE), (13.2, chess.WHITE)]


@given(
    to_flag=st.floats(0.0, 0.3),
    to_square=st.floats(0.0, 0.5),
    flag_board=st.sampled_from([A, B]),
    preset=st.sampled_from(["dsj", "fics"]),
)
@settings(max_examples=60, deadline=None)
def test_a_pressed_move_always_comes_before_a_later_flag(to_flag, to_square, flag_board, preset):
    """White A lifts the pawn and presses; a flag message comes ``to_flag`` later (on either
    board: Black A's own clock, or Black B's), and the scanner reports the pawn on e4
    ``to_square`` after that. Whatever the timing, the move is read first and counts."""
    table = Table(preset).start_clocks()
    table.wait(1.0)
    table.lift(A, "e2")
    table.press(A)
    table.wait(to_flag)
    table.times[flag_board] = [300_000, 0]
    table.clock(flag_board, None)
    table.wait(to_square)
    table.put(A, "e4", "P")
    table.settle()
    order = [type(o) for o in table.out if isinstance(o, MovePlayed | Flag)]
    assert order == [MovePlayed, Flag]
    assert table.moves() == ["e2e4"]
    (flag,) = table.of(Flag)
    assert (flag.board, flag.color) == (flag_board, chess.BLACK)
