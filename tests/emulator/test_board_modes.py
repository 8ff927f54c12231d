"""Modes, identity answers, clock-command acks and the wire (dgt-protocol.md §2, §3, §9)."""

from __future__ import annotations

import itertools

import chess
import pytest
from emulator_helpers import (
    PERIOD,
    acks,
    clock_times,
    decode_all,
    exchange,
    make_board,
    of_type,
    updates,
)

from bughouse_bridge.dgt.commands import (
    clock_ascii,
    clock_beep,
    clock_set_and_run,
    clock_version,
    set_leds,
)
from bughouse_bridge.dgt.constants import PieceCode
from bughouse_bridge.dgt.messages import (
    BatteryStatus,
    BusAddress,
    ClockType,
    Garbage,
    LongSerialNumber,
    SerialNumber,
    Trademark,
    UnknownMessage,
    Version,
)
from bughouse_bridge.dgt.squares import square_to_field
from bughouse_bridge.emulator.board import Mode
from bughouse_bridge.emulator.board_config import BoardConfig, Profile
from bughouse_bridge.emulator.clock import ClockConfig
from bughouse_bridge.emulator.serial_line import SECONDS_PER_BYTE

E2 = square_to_field(chess.E2)


def _lift_e2_reported(board, at: float) -> bool:
    board.set_field(E2, PieceCode.EMPTY, at)
    return ("e2", PieceCode.EMPTY) in updates([m for _, m in decode_all(board.poll(at + 1))])


def test_power_up_in_bus_mode_swallows_a_first_update_nice():
    board = make_board(BoardConfig(base_scan_period=PERIOD))
    assert board.mode is Mode.BUS
    board.receive(b"\x4b", 0.0)
    assert board.mode is Mode.IDLE
    assert not _lift_e2_reported(board, 0.5)
    board.receive(b"\x4b", 2.0)
    assert board.mode is Mode.UPDATE_NICE
    board.set_field(E2, PieceCode.WPAWN, 2.5)
    assert ("e2", PieceCode.WPAWN) in updates([m for _, m in decode_all(board.poll(4.0))])


def test_a_request_that_wakes_the_board_is_still_answered():
    board = make_board(BoardConfig())
    messages = exchange(board, b"\x4d", 0.0, 1.0)
    assert messages == [Version(1, 8)]
    assert board.mode is Mode.IDLE


def test_to_busmode_goes_back_to_bus_mode():
    board = make_board()
    board.receive(b"\x4b\x4a", 0.0)
    assert board.mode is Mode.BUS


@pytest.mark.parametrize(
    ("command", "mode", "field_updates"),
    [
        (b"\x40", Mode.IDLE, False),
        (b"\x43", Mode.UPDATE, True),
        (b"\x44", Mode.UPDATE_BOARD, True),
        (b"\x4b", Mode.UPDATE_NICE, True),
    ],
)
def test_field_updates_only_in_update_modes(command, mode, field_updates):
    board = make_board()
    board.receive(command, 0.0)
    assert board.mode is mode
    assert _lift_e2_reported(board, 0.5) is field_updates


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (b"\x45", SerialNumber("12345")),
        (b"\x55", LongSerialNumber("3000123456")),
        (b"\x4d", Version(1, 8)),
        (b"\x46", BusAddress(12345 & 0x3FFF)),
    ],
)
def test_identity_answers(command, expected):
    assert exchange(make_board(), command, 0.0, 1.0) == [expected]


def test_identity_is_configurable():
    config = BoardConfig(serial="01025", long_serial="3000147740", version=(3, 10))
    board = make_board(config)
    answers = exchange(board, b"\x45\x55\x4d\x46", 0.0, 1.0)
    assert answers == [
        SerialNumber("01025"),
        LongSerialNumber("3000147740"),
        Version(3, 10),
        BusAddress(1025),
    ]


def test_trademark_and_ee_moves():
    board = make_board()
    trademark, ee_moves = exchange(board, b"\x47\x49", 0.0, 10.0)
    assert isinstance(trademark, Trademark)
    assert "DGT" in trademark.text
    assert isinstance(ee_moves, UnknownMessage)
    assert ee_moves.message_id == 0x8F
    assert len(ee_moves.payload) == 0x1F00
    assert ee_moves.payload[-1] == 0x6B  # EE_EOF


def test_ee_moves_takes_eight_seconds_on_the_wire():
    board = make_board()
    board.receive(b"\x49", 0.0)
    assert board.poll(8.0) == []
    ((t, data),) = board.poll(9.0)
    assert len(data) == 7939
    assert t == pytest.approx(7939 * SECONDS_PER_BYTE, abs=0.01)


def test_battery_only_on_bluetooth_boards():
    assert exchange(make_board(), b"\x4c", 0.0, 1.0) == []
    bluetooth = make_board(BoardConfig(profile=Profile.BLUETOOTH, power_up_bus_mode=False))
    (battery,) = exchange(bluetooth, b"\x4c", 0.0, 1.0)
    assert isinstance(battery, BatteryStatus)
    assert battery.percent == 84
    assert bluetooth.config.scan_period == 2 * BoardConfig().scan_period


@pytest.mark.parametrize("forbidden", [b"\x4e", b"\x51", b"\x53", b"\x54"])
def test_forbidden_commands_are_ignored_and_logged(forbidden):
    board = make_board()
    board.receive(b"\x4b", 0.0)
    board.poll(0.5)  # the first clock reading of UPDATE_NICE
    assert exchange(board, forbidden, 0.5, 1.0) == []
    assert any("forbidden" in text for _, text in board.ignored)
    assert board.mode is Mode.UPDATE_NICE
    assert _lift_e2_reported(board, 1.5)


def test_leds_are_accepted_silently():
    board = make_board()
    assert exchange(board, set_leds(1, 12, 28), 0.0, 1.0) == []
    assert board.leds == bytes((1, 12, 28, 0))


def test_messages_never_overlap_on_the_wire():
    board = make_board()
    board.receive(b"\x4b\x42\x42\x45\x47\x41", 0.0)
    for field in range(48, 64):
        board.set_field(field, PieceCode.EMPTY, 0.001)
    chunks = board.poll(5.0)
    assert len(chunks) > 10
    for (t0, _), (t1, data) in itertools.pairwise(chunks):
        assert t1 - t0 >= len(data) * SECONDS_PER_BYTE - 1e-9


@pytest.mark.parametrize(
    ("mode_command", "acked"),
    [(b"\x4b", True), (b"\x43", True), (b"\x44", False), (b"\x40", False)],
)
def test_clock_acks_only_in_update_and_update_nice(mode_command, acked):
    board = make_board()
    received = exchange(board, mode_command + clock_version(), 0.0, 3.0)
    assert bool(acks(received)) is acked


def test_the_ack_comes_after_the_configured_delay():
    config = BoardConfig(power_up_bus_mode=False, ack_delay=(0.7, 0.9))
    board = make_board(config)
    board.receive(b"\x44", 0.0)
    board.receive(b"\x4b" + clock_version(), 1.0)
    early = [m for _, m in decode_all(board.poll(1.69))]
    assert acks(early) == []
    (ack,) = acks([m for _, m in decode_all(board.poll(2.0))])
    assert ack.command == 0x09


def test_a_second_clock_command_before_the_ack_is_lost():
    board = make_board()
    board.receive(b"\x4b", 0.0)
    board.receive(clock_version(), 0.1)
    board.receive(clock_beep(4), 0.15)  # the clock is still busy: dropped (picochess#142)
    first = acks([m for _, m in decode_all(board.poll(3.0))])
    assert [ack.command for ack in first] == [0x09]
    board.receive(clock_beep(4), 3.0)  # after the ack it works again
    again = acks([m for _, m in decode_all(board.poll(5.0))])
    assert [ack.command for ack in again] == [0x0B]


@pytest.mark.parametrize(("kind", "version"), [(ClockType.DGT3000, (2, 0)), (ClockType.XL, (1, 4))])
def test_version_ack_tells_the_clock_type(kind, version):
    board = make_board(BoardConfig(power_up_bus_mode=False, clock=ClockConfig(kind=kind)))
    (ack,) = acks(exchange(board, b"\x4b" + clock_version(), 0.0, 3.0))
    assert ack.ok
    assert ack.version == version
    assert ack.clock_type is kind


def test_ascii_is_a_dgt3000_command():
    dgt3000 = make_board()
    xl = make_board(BoardConfig(power_up_bus_mode=False, clock=ClockConfig(kind=ClockType.XL)))
    assert [a.command for a in acks(exchange(dgt3000, b"\x4b" + clock_ascii("hello"), 0, 3))] == [
        0x0C
    ]
    assert dgt3000.clock.text == "hello   "
    assert acks(exchange(xl, b"\x4b" + clock_ascii("hello"), 0, 3)) == []


def test_xl_outside_mode_23_refuses_setnrun():
    config = BoardConfig(
        power_up_bus_mode=False, clock=ClockConfig(kind=ClockType.XL, xl_mode_23=False)
    )
    board = make_board(config)
    command = clock_set_and_run(60, 60, left_counts_down=True, right_counts_down=False)
    (ack,) = acks(exchange(board, b"\x4b" + command, 0.0, 3.0))
    assert ack.ack0 == 0x40
    assert not ack.ok


def test_without_a_clock_there_are_no_acks_and_41_says_so():
    board = make_board(BoardConfig(power_up_bus_mode=False, clock=ClockConfig(kind=None)))
    received = exchange(board, b"\x4b" + clock_version() + b"\x41", 0.0, 3.0)
    assert acks(received) == []
    (times,) = clock_times(received)
    assert times.no_clock


def test_garbage_on_the_line_is_decoded_as_garbage_then_resyncs():
    board = make_board()
    board.inject(b"\x01\x02", 0.0)
    board.receive(b"\x45", 0.1)
    received = [m for _, m in decode_all(board.poll(1.0))]
    assert of_type(received, Garbage)
    assert of_type(received, SerialNumber) == [SerialNumber("12345")]


def test_a_silent_board_loses_what_happens_meanwhile():
    board = make_board()
    board.receive(b"\x4b", 0.0)
    board.silence(2.0, 0.2)
    assert not _lift_e2_reported(board, 0.5)
    assert exchange(board, b"\x45", 1.8, 1.9) == []
    assert exchange(board, b"\x45", 2.1, 3.0) == [SerialNumber("12345")]


def test_replug_boots_in_bus_mode_from_the_physical_position():
    board = make_board(BoardConfig(base_scan_period=PERIOD))
    board.receive(b"\x40\x4b", 0.0)
    board.unplug(1.0)
    board.set_field(E2, PieceCode.EMPTY, 1.5)
    assert board.poll(2.0) == []
    board.replug(3.0)
    assert board.mode is Mode.BUS
    (dump,) = exchange(board, b"\x42", 3.1, 4.0)
    assert dump.squares[E2] == PieceCode.EMPTY
