"""What makes one emulated DGT board (and its clock) differ from another: frozen configuration.

:class:`BoardConfig` holds the identity answers (serial numbers, version, trademark), the
connection :class:`Profile` (a Bluetooth board scans at half speed and reports a battery), the scan
timing, the orientation, the reply and ack latencies and the clock's own
:class:`~bughouse_bridge.emulator.clock.ClockConfig`; the start position is given in DGT field
order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import chess

from bughouse_bridge.dgt.constants import PieceCode
from bughouse_bridge.dgt.squares import board_to_dump
from bughouse_bridge.emulator.clock import ClockConfig
from bughouse_bridge.emulator.scanner import DEFAULT_SCAN_PERIOD, FIELDS

START_POSITION_FIELDS: tuple[int, ...] = board_to_dump(chess.BaseBoard()).squares
"""The start position in DGT field order (a8 first), connector on White's left."""


class Profile(Enum):
    """Connection type: Bluetooth boards scan at half speed and report a battery."""

    SERIAL = "serial"
    USB = "usb"
    BLUETOOTH = "bluetooth"


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """Everything that makes one emulated board + clock differ from another."""

    serial: str = "12345"
    long_serial: str = "3000123456"
    version: tuple[int, int] = (1, 8)
    trademark: str = (
        "Digital Game Technology\r\nCopyright (c) 2024 DGT\r\n"
        "software version: 1.08, build: 240101\r\nhardware version: 1.00, serial no: 12345"
    )
    profile: Profile = Profile.USB
    base_scan_period: float = DEFAULT_SCAN_PERIOD
    scan_phase: float | None = None  # when field 0 is sampled; None: drawn from the rng
    power_up_bus_mode: bool = True
    rotated: bool = False  # connector on the player's right: fields are numbered from h1
    reply_latency: float = 0.002
    ack_delay: tuple[float, float] = (0.3, 0.5)
    clock_poll_interval: float = 0.25  # the board reads the clock 2-4 times a second
    battery_percent: int = 84
    clock: ClockConfig = field(default_factory=ClockConfig)

    @property
    def scan_period(self) -> float:
        factor = 2.0 if self.profile is Profile.BLUETOOTH else 1.0
        return self.base_scan_period * factor


def empty_fields() -> tuple[int, ...]:
    return (PieceCode.EMPTY,) * FIELDS


__all__ = ["START_POSITION_FIELDS", "BoardConfig", "Profile", "empty_fields"]
