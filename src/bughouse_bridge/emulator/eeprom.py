"""The emulated board's move memory (EEPROM), read back with ``SEND_EE_MOVES``.

Every power-up and every change the scanner samples is recorded (a piece record carries the
"rapid" bit when it follows the previous one within a quarter second); the memory is cyclic, so
the oldest records go once it is full. The answer is padded to the fixed payload size and closed
with an end-of-file byte.
"""

from __future__ import annotations

import math

EE_MOVES_PAYLOAD_SIZE = 0x1F00
_EE_POWERUP = 0x6A
_EE_EOF = 0x6B
_EE_NOP2 = 0x00
_EE_PIECE_TAG = 0x40
_EE_RAPID_BIT = 0x10
_EE_RAPID_WINDOW = 0.25


class MoveMemory:
    """The board's cyclic record of power-ups and sampled field changes."""

    def __init__(self) -> None:
        self._eeprom = bytearray((_EE_POWERUP,))
        self._last_eeprom_time = -math.inf

    def power_up(self) -> None:
        self._eeprom.append(_EE_POWERUP)

    def record(self, t: float, field_index: int, code: int) -> None:
        rapid = _EE_RAPID_BIT if t - self._last_eeprom_time < _EE_RAPID_WINDOW else 0
        self._eeprom += bytes((_EE_PIECE_TAG | rapid | code, field_index))
        self._last_eeprom_time = t
        if len(self._eeprom) > EE_MOVES_PAYLOAD_SIZE:  # cyclic memory: the oldest records go
            del self._eeprom[: len(self._eeprom) - EE_MOVES_PAYLOAD_SIZE]

    def payload(self) -> bytes:
        """The ``EE_MOVES`` message payload: padding, the newest records, end of file."""
        records = bytes(self._eeprom[-(EE_MOVES_PAYLOAD_SIZE - 1) :])
        padding = bytes((_EE_NOP2,)) * (EE_MOVES_PAYLOAD_SIZE - 1 - len(records))
        return padding + records + bytes((_EE_EOF,))


__all__ = ["EE_MOVES_PAYLOAD_SIZE", "MoveMemory"]
