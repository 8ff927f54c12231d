"""The physical occupancy of one board, mirrored from a dump and field updates.

The mirror keeps the raw DGT codes in field order (field 0 = a8 ... 63 = h1 as a board in normal
orientation reports them), so a later orientation decision never loses information. Magic pieces
(codes 0x0D-0x0F) are tracked apart: they are result signals, never part of the placement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.dgt.squares import (
    FIELD_COUNT,
    code_to_piece,
    field_to_square,
    is_magic,
)
from bughouse_bridge.reconstruct.shapes import differing_squares, expand

if TYPE_CHECKING:
    from bughouse_bridge.dgt.messages import BoardDump, FieldUpdate

_LOW_NIBBLE = 0x0F
START_PLACEMENT = chess.STARTING_BOARD_FEN


class Occupancy:
    """A mutable mirror of the 64 raw codes; ``known`` once a dump has been seen."""

    __slots__ = ("_cache", "_codes", "known")

    def __init__(self) -> None:
        self._codes = [0] * FIELD_COUNT
        self._cache: dict[bool, str] = {}
        self.known = False

    def load(self, dump: BoardDump) -> bool:
        """Replace the mirror by a dump; True when the content changed."""
        codes = [code & _LOW_NIBBLE for code in dump.squares[:FIELD_COUNT]]
        codes += [0] * (FIELD_COUNT - len(codes))
        changed = codes != self._codes or not self.known
        self._codes = codes
        self.known = True
        self._cache.clear()
        return changed

    def update(self, message: FieldUpdate) -> bool:
        """Apply one field update; True when the square's content changed."""
        if not 0 <= message.field < FIELD_COUNT:
            return False
        code = message.piece & _LOW_NIBBLE
        if self._codes[message.field] == code:
            return False
        self._codes[message.field] = code
        self._cache.clear()
        return True

    def placement(self, *, rotated: bool) -> str:
        """The board FEN (placement only) the sensors show; magic pieces count as empty."""
        cached = self._cache.get(rotated)
        if cached is None:
            codes = self._codes[::-1] if rotated else self._codes
            cached = _placement_of(codes)
            self._cache[rotated] = cached
        return cached

    def magic(self, *, rotated: bool) -> tuple[tuple[chess.Square, int], ...]:
        """Every magic piece on the board, as (square, code)."""
        return tuple(
            (field_to_square(index, rotated=rotated), code)
            for index, code in enumerate(self._codes)
            if is_magic(code)
        )


def _placement_of(codes: list[int]) -> str:
    """Field order is FEN order (a8..h8, a7..h1), so the FEN is built rank by rank directly."""
    ranks = []
    for start in range(0, FIELD_COUNT, 8):
        text, empty = "", 0
        for code in codes[start : start + 8]:
            piece = code_to_piece(code)
            if piece is None:
                empty += 1
                continue
            text += (str(empty) if empty else "") + piece.symbol()
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


@dataclass(frozen=True, slots=True)
class SquareFix:
    """One square to put right: ``piece`` None means clear it."""

    square: chess.Square
    piece: chess.Piece | None

    def __str__(self) -> str:
        name = chess.square_name(self.square)
        return f"clear {name}" if self.piece is None else f"put {self.piece.symbol()} on {name}"


def fixes(physical: str, target: str) -> list[SquareFix]:
    """What turns the ``physical`` placement into ``target``: puts first, then clears."""
    todo = sorted(differing_squares(physical, target))
    puts = [SquareFix(sq, chess.Piece.from_symbol(want)) for sq, _, want in todo if want != "."]
    clears = [SquareFix(sq, None) for sq, _, want in todo if want == "."]
    return puts + clears


def distance(physical: str, target: str) -> int:
    return sum(a != b for a, b in zip(expand(physical), expand(target), strict=True))


_LIGHT_CENTRE = frozenset({chess.E4, chess.D5})
_DARK_CENTRE = frozenset({chess.D4, chess.E5})
_CENTRE = _LIGHT_CENTRE | _DARK_CENTRE
_MAGIC_RESULTS = {0x0D: "1/2-1/2", 0x0E: "1-0", 0x0F: "0-1"}


def result_signal(placement: str, magic: tuple[tuple[chess.Square, int], ...]) -> str | None:
    """The result a board shows physically (dgt-protocol §5.3): kings on e4+d5 1-0, on d4+e5
    0-1, one light and one dark centre square a draw; or a magic piece. None otherwise."""
    if magic:
        return _MAGIC_RESULTS.get(magic[0][1])
    board = chess.BaseBoard(placement)
    kings = {board.king(chess.WHITE), board.king(chess.BLACK)}
    if None in kings or not kings <= _CENTRE:
        return None
    if kings <= _LIGHT_CENTRE:
        return "1-0"
    if kings <= _DARK_CENTRE:
        return "0-1"
    return "1/2-1/2"
