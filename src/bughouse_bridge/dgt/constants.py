"""Byte values of the DGT board and clock protocol (see dgt-protocol.md §2, §3)."""

from enum import IntEnum


class MessageId(IntEnum):
    """Board-to-host message ids (the first byte of every message, MSB set)."""

    NONE = 0x80
    BOARD_DUMP = 0x86
    BWTIME = 0x8D
    FIELD_UPDATE = 0x8E
    EE_MOVES = 0x8F
    BUSADRES = 0x90
    SERIALNR = 0x91
    TRADEMARK = 0x92
    VERSION = 0x93
    BOARD_DUMP_50B = 0x94
    BOARD_DUMP_50W = 0x95
    BATTERY_STATUS = 0xA0
    LONG_SERIALNR = 0xA2


class Command(IntEnum):
    """Host-to-board one-byte commands."""

    RESET = 0x40
    SEND_CLK = 0x41
    SEND_BRD = 0x42
    SEND_UPDATE = 0x43
    SEND_UPDATE_BRD = 0x44
    RETURN_SERIALNR = 0x45
    RETURN_BUSADRES = 0x46
    SEND_TRADEMARK = 0x47
    SEND_EE_MOVES = 0x49
    TO_BUSMODE = 0x4A
    SEND_UPDATE_NICE = 0x4B
    SEND_BATTERY_STATUS = 0x4C
    SEND_VERSION = 0x4D
    START_BOOTLOADER = 0x4E
    SEND_BRD_50B = 0x50
    SCAN_50B = 0x51
    SEND_BRD_50W = 0x52
    SCAN_50W = 0x53
    SCAN_100 = 0x54
    RETURN_LONG_SERIALNR = 0x55
    SET_LEDS = 0x60
    CLOCK_MESSAGE = 0x2B


# Commands that write the board's EEPROM or start its boot loader: a chess bridge never sends them.
FORBIDDEN_COMMANDS: frozenset[int] = frozenset(
    {Command.START_BOOTLOADER, Command.SCAN_50B, Command.SCAN_50W, Command.SCAN_100}
)


class ClockCommand(IntEnum):
    """Commands inside the clock envelope ``2B <size> 03 <cmd> <data> 00``."""

    DISPLAY = 0x01
    ICONS = 0x02
    END = 0x03
    BUTTON = 0x08
    VERSION = 0x09
    SETNRUN = 0x0A
    BEEP = 0x0B
    ASCII = 0x0C


CLOCK_START_MARKER = 0x03
CLOCK_END_MARKER = 0x00


class PieceCode(IntEnum):
    """Piece codes of dumps and field updates. Note the order P R N B K Q."""

    EMPTY = 0x00
    WPAWN = 0x01
    WROOK = 0x02
    WKNIGHT = 0x03
    WBISHOP = 0x04
    WKING = 0x05
    WQUEEN = 0x06
    BPAWN = 0x07
    BROOK = 0x08
    BKNIGHT = 0x09
    BBISHOP = 0x0A
    BKING = 0x0B
    BQUEEN = 0x0C
    MAGIC_DRAW = 0x0D
    MAGIC_WHITE_WIN = 0x0E
    MAGIC_BLACK_WIN = 0x0F


class AckStatus(IntEnum):
    """Values of ack0 in a clock acknowledgement."""

    OK = 0x10
    ERROR_OBSERVED = 0x20  # seen in the wild (picochess#142), treated as an error
    ERROR = 0x40


class AutoAck(IntEnum):
    """Values of ack1 >= 0x80: messages the clock generates by itself."""

    READY = 0x81
    BUTTON = 0x88
    MODE_23 = 0x8A
    NOT_MODE_23 = 0x90


class ClockButton(IntEnum):
    """ack3 of a button acknowledgement (ack1 == 0x88)."""

    BACK = 0x31
    PLUS = 0x32
    RUN = 0x33
    MINUS = 0x34
    OK = 0x35


BAUD_RATE = 9600
# 10 bits per byte at 9600 baud (8N1): ~960 bytes per second on the wire.
WIRE_BYTES_PER_SECOND = BAUD_RATE / 10
