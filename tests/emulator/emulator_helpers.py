"""Shared helpers for the emulator tests: run a board, decode what it sends."""

from __future__ import annotations

import random
from typing import TypeVar

import chess

from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import BoardDump, ClockAck, ClockTimes, FieldUpdate, Message
from bughouse_bridge.dgt.squares import field_to_square
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.board_config import BoardConfig

T = TypeVar("T")

# A period of 0.256 s puts field i at exactly i * 4 ms into each pass (phase 0).
PERIOD = 0.256
STEP = PERIOD / 64


def make_board(config: BoardConfig | None = None, seed: int = 0, **kwargs) -> EmulatedBoard:
    config = config or BoardConfig(power_up_bus_mode=False, base_scan_period=PERIOD, scan_phase=0.0)
    return EmulatedBoard(config, random.Random(seed), **kwargs)


def decode_all(chunks: list[tuple[float, bytes]]) -> list[tuple[float, Message]]:
    decoder = DgtDecoder()
    out: list[tuple[float, Message]] = []
    for t, data in chunks:
        out.extend((t, message) for message in decoder.feed(data))
    return out


def exchange(board: EmulatedBoard, data: bytes, now: float, until: float) -> list[Message]:
    """Send ``data`` at ``now``; every message the board sends until ``until``."""
    board.receive(data, now)
    return [message for _, message in decode_all(board.poll(until))]


def updates(messages: list[Message]) -> list[tuple[str, int]]:
    """FIELD_UPDATEs as (square name, code), in order."""
    return [
        (chess.square_name(field_to_square(m.field)), m.piece)
        for m in messages
        if isinstance(m, FieldUpdate)
    ]


def of_type(messages: list[Message], kind: type[T]) -> list[T]:
    return [m for m in messages if isinstance(m, kind)]


def clock_times(messages: list[Message]) -> list[ClockTimes]:
    return of_type(messages, ClockTimes)


def acks(messages: list[Message]) -> list[ClockAck]:
    return of_type(messages, ClockAck)


def dumps(messages: list[Message]) -> list[BoardDump]:
    return of_type(messages, BoardDump)


def apply_updates(squares: tuple[int, ...], messages: list[Message]) -> tuple[int, ...]:
    state = list(squares)
    for message in messages:
        if isinstance(message, FieldUpdate):
            state[message.field] = message.piece
        elif isinstance(message, BoardDump):
            state = list(message.squares)
    return tuple(state)
