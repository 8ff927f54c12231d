"""The clock model: status bytes as real hardware sends them, cadence per mode, presses, flags."""

from __future__ import annotations

import itertools

import pytest
from emulator_helpers import acks, clock_times, decode_all, exchange, make_board
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_bridge.dgt.commands import clock_set_and_run
from bughouse_bridge.dgt.constants import ClockButton
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import LeverSide
from bughouse_bridge.emulator.clock import ClockConfig, ClockModel, ClockSetting

LEFT, RIGHT = LeverSide.LEFT, LeverSide.RIGHT


def _clock(left_s=300, right_s=300, running=None, increment_s=0, lever=LEFT):
    clock = ClockModel(ClockConfig())
    clock.start(lever, 0.0)
    clock.set(ClockSetting(left_s * 1000, right_s * 1000, running, increment_s * 1000), 0.0)
    return clock


@pytest.mark.parametrize(
    ("lever", "running", "status"),
    [(LEFT, None, 0x08), (RIGHT, None, 0x12), (LEFT, LEFT, 0x09), (RIGHT, RIGHT, 0x13)],
)
def test_status_byte_as_real_hardware_sends_it(lever, running, status):
    clock = _clock(lever=lever, running=running)
    assert clock.reading(0.5).status == status


def test_the_right_triplet_comes_first_on_the_wire():
    clock = _clock(left_s=5 * 60, right_s=3 * 60 + 2)
    payload = encode_message(clock.reading(0.0))[3:]
    assert payload[:3] == bytes((0x00, 0x03, 0x02))
    assert payload[3:6] == bytes((0x00, 0x05, 0x00))


def test_a_countdown_shows_the_started_second_until_it_is_over():
    clock = _clock(running=LEFT)
    assert clock.reading(0.999).left.total_seconds == 300
    assert clock.reading(1.001).left.total_seconds == 299
    assert clock.reading(1.001).right.total_seconds == 300


def test_press_switches_the_running_side_and_adds_the_increment():
    clock = _clock(running=LEFT, increment_s=2)
    clock.press(10.0)
    reading = clock.reading(10.0)
    assert clock.running_side(10.0) is RIGHT
    assert clock.lever is RIGHT
    assert reading.left.total_seconds == 292
    assert reading.left.time_per_move
    assert clock.remaining_ms(RIGHT, 15.0) == pytest.approx(295_000)


def test_pressing_the_lowered_side_does_nothing():
    clock = _clock(running=LEFT)
    clock.press(1.0, RIGHT)
    assert clock.running_side(1.0) is LEFT


def test_the_flag_falls_at_zero_and_blocks_the_clock():
    clock = _clock(left_s=3, running=LEFT)
    assert clock.flag_time() == pytest.approx(3.0)
    reading = clock.reading(10.0)
    assert reading.left.total_seconds == 0
    assert reading.left.flag_fallen
    assert not reading.running
    assert not clock.flag_fallen(RIGHT, 10.0)


def _running_board(mode: bytes):
    board = make_board()
    board.receive(mode, 0.0)
    board.set_clock(ClockSetting(300_000, 300_000, None), 0.0)
    board.start_clock(LEFT, 0.5)
    return board


def test_update_nice_sends_the_clock_once_a_second_while_it_runs():
    board = _running_board(b"\x4b")
    received = decode_all(board.poll(20.5))
    times = [(t, m) for t, m in received if m in clock_times([m])]
    running = [(t, m) for t, m in times if m.running]
    assert 19 <= len(running) <= 21
    lefts = [m.left.total_seconds for _, m in running]
    assert all(a - b == 1 for a, b in itertools.pairwise(lefts))


def test_update_nice_is_quiet_while_the_clock_stands_and_speaks_on_a_press():
    board = make_board()
    board.receive(b"\x4b", 0.0)
    assert len(clock_times([m for _, m in decode_all(board.poll(10.0))])) == 1
    board.press_clock(10.0)
    (after,) = clock_times([m for _, m in decode_all(board.poll(11.0))])
    assert after.lever is RIGHT


def test_update_sends_the_clock_at_least_every_second_even_when_it_stands():
    board = make_board()
    board.receive(b"\x43", 0.0)
    received = clock_times([m for _, m in decode_all(board.poll(10.0))])
    assert 9 <= len(received) <= 11


@pytest.mark.parametrize("mode", [b"\x44", b"\x40"])
def test_no_clock_messages_in_update_board_or_idle_but_41_is_answered(mode):
    board = _running_board(mode)
    assert clock_times([m for _, m in decode_all(board.poll(5.0))]) == []
    (answer,) = exchange(board, b"\x41", 5.0, 6.0)
    assert answer.running
    assert answer.left.total_seconds == 296


def test_setnrun_from_the_host_sets_and_starts_the_clock():
    board = make_board()
    command = clock_set_and_run(3723, 60, left_counts_down=False, right_counts_down=True)
    board.receive(b"\x44" + command, 0.0)  # UPDATE_BOARD: no ack, but the clock obeys
    board.poll(2.0)
    (answer,) = exchange(board, b"\x41", 2.0, 2.5)
    assert answer.left.total_seconds == 3723
    assert answer.right.total_seconds == 58
    assert answer.running


def test_a_button_press_is_an_automatic_ack():
    board = make_board()
    board.receive(b"\x4b", 0.0)
    board.press_button(ClockButton.PLUS, 1.0)
    (ack,) = acks([m for _, m in decode_all(board.poll(2.0))])
    assert ack.automatic
    assert ack.button == ClockButton.PLUS


@settings(max_examples=100, deadline=None)
@given(
    left=st.integers(0, 9 * 3600 + 59 * 60 + 59),
    right=st.integers(0, 9 * 3600 + 59 * 60 + 59),
    lever=st.sampled_from([LEFT, RIGHT]),
    running=st.booleans(),
    increment=st.integers(0, 30),
)
def test_clock_states_decode_to_the_same_times_lever_and_running(
    left, right, lever, running, increment
):
    board = make_board()
    board.start_clock(lever, 0.0)
    runs = lever if running else None
    board.set_clock(ClockSetting(left * 1000, right * 1000, runs, increment * 1000), 0.0)
    (answer,) = exchange(board, b"\x41", 0.0, 0.5)
    assert answer.left.total_seconds == left
    assert answer.right.total_seconds == right
    assert answer.lever is lever
    # A fallen flag (a side at zero) blocks the whole clock.
    assert answer.running is (running and min(left, right) > 0)
    assert answer.left.flag_fallen is (left == 0)
    assert answer.right.flag_fallen is (right == 0)
    assert answer.left.time_per_move is (increment > 0)
