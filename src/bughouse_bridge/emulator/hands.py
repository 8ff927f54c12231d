"""The hands over one board: the gestures a player makes, as timed sensor and clock actions.

:class:`Hands` knows what stands on each square and what is in the hand. Primitive gestures
(``lift``, ``place``, ``press_clock``, a cable pulled…) take no time; gestures with a duration
(``hover``, ``slide``, ``capture`` in each
:class:`~bughouse_bridge.emulator.handling.CaptureOrder`, ``drop``, ``move_piece``…) advance the
cursor of their :class:`Timeline` (the scenario) by human handling times drawn from its seeded
``random.Random``. How a whole chess move is turned into these gestures is ``emulator/moves.py``.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Protocol

import chess

from bughouse_bridge.dgt.constants import ClockButton, PieceCode
from bughouse_bridge.dgt.squares import code_to_piece, piece_to_code, square_to_field
from bughouse_bridge.emulator.actions import (
    HostWrite,
    Inject,
    PressButton,
    PressClock,
    Replug,
    SetClock,
    SetField,
    Silence,
    StartClock,
    Unplug,
)
from bughouse_bridge.emulator.handling import CaptureOrder

if TYPE_CHECKING:
    import random
    from collections.abc import Sequence

    from bughouse_bridge.dgt.messages import LeverSide
    from bughouse_bridge.emulator.actions import Action, LinkAction
    from bughouse_bridge.emulator.clock import ClockSetting
    from bughouse_bridge.emulator.handling import Handling, Span

PieceLike = chess.Piece | int


class Timeline(Protocol):
    """What hands need of their scenario: the time cursor, its seeded draws, the record."""

    rng: random.Random
    handling: Handling

    @property
    def t(self) -> float: ...

    def wait(self, seconds: float) -> object: ...

    def draw(self, span: Span) -> float: ...

    def record(self, link: str, action: Action | LinkAction, t: float | None = None) -> None: ...


def piece_code(piece: PieceLike | None) -> int:
    """The DGT code of ``piece`` (a code passes through; ``None`` is an empty square)."""
    if piece is None:
        return PieceCode.EMPTY
    return piece if isinstance(piece, int) else piece_to_code(piece)


def neighbour(square: chess.Square, rng: random.Random) -> chess.Square | None:
    """A square next to ``square``, drawn from ``rng``."""
    near = [sq for sq in chess.SQUARES if chess.square_distance(sq, square) == 1]
    return rng.choice(near) if near else None


class Hands:
    """The hands over one board: what is on each square, and what is in the hand."""

    def __init__(
        self, timeline: Timeline, link: str, board: chess.BaseBoard, *, rotated: bool
    ) -> None:
        self._timeline = timeline
        self.link = link
        self._rotated = rotated
        self._codes: dict[chess.Square, int] = {
            square: piece_to_code(piece) for square, piece in board.piece_map().items()
        }
        self.held: int = PieceCode.EMPTY

    # -- reading

    def code_at(self, square: chess.Square) -> int:
        return self._codes.get(square, PieceCode.EMPTY)

    @property
    def t(self) -> float:
        return self._timeline.t

    @property
    def timeline(self) -> Timeline:
        return self._timeline

    def placement(self) -> chess.BaseBoard:
        """What stands on the board now (magic pieces and wrong codes left out)."""
        board = chess.BaseBoard.empty()
        for square, code in self._codes.items():
            piece = code_to_piece(code)
            if piece is not None:
                board.set_piece_at(square, piece)
        return board

    def arrange(self, target: chess.BaseBoard, duration: float) -> None:
        """Set the board up as ``target`` square by square (an arbiter resetting the pieces)."""
        wrong = [
            sq for sq in chess.SQUARES if self.code_at(sq) != piece_to_code(target.piece_at(sq))
        ]
        step = duration / max(len(wrong), 1)
        for square in wrong:
            self.set(square, target.piece_at(square))
            self._timeline.wait(step)

    # -- primitives (no time passes)

    def set(self, square: chess.Square, piece: PieceLike | None, t: float | None = None) -> None:
        """The sensor under ``square`` sees ``piece`` from the cursor (or ``t``) on."""
        code = piece_code(piece)
        if code == PieceCode.EMPTY:
            self._codes.pop(square, None)
        else:
            self._codes[square] = code
        field_index = square_to_field(square, rotated=self._rotated)
        self._timeline.record(self.link, SetField(field_index, code), t)

    def lift(self, square: chess.Square) -> int:
        """Pick up the piece on ``square``; it is now in the hand."""
        self.held = self.code_at(square)
        self.set(square, None)
        return self.held

    def place(self, square: chess.Square, piece: PieceLike | None = None) -> None:
        """Put ``piece`` (default: the piece in the hand) on ``square``."""
        code = piece_code(piece) if piece is not None else self.held
        self.set(square, code)
        if piece is None:
            self.held = PieceCode.EMPTY

    def press_clock(self, side: LeverSide | None = None, *, t: float | None = None) -> None:
        """Hit the lever at the cursor (or at ``t``: an early press, the hand still on a piece)."""
        self._timeline.record(self.link, PressClock(side), t)

    def press_button(self, button: ClockButton) -> None:
        self._timeline.record(self.link, PressButton(button))

    def set_clock(self, setting: ClockSetting) -> None:
        self._timeline.record(self.link, SetClock(setting))

    def start_clock(self, side: LeverSide) -> None:
        self._timeline.record(self.link, StartClock(side))

    def magic_piece(self, square: chess.Square, code: int = PieceCode.MAGIC_DRAW) -> None:
        """A result-signalling magic piece (0x0D draw, 0x0E white wins, 0x0F black wins)."""
        self.set(square, code)

    def garbage(self, data: bytes) -> None:
        self._timeline.record(self.link, Inject(data))

    def silence(self, duration: float) -> None:
        self._timeline.record(self.link, Silence(duration))

    def unplug(self) -> None:
        self._timeline.record(self.link, Unplug())

    def replug(self) -> None:
        self._timeline.record(self.link, Replug())

    def host(self, data: bytes) -> None:
        self._timeline.record(self.link, HostWrite(data))

    # -- artefacts with a duration (the cursor advances)

    def hover(
        self, square: chess.Square, piece: PieceLike | None = None, duration: float = 0.3
    ) -> None:
        """Hold a carried piece just over ``square``: the sensor sees it (a ghost), then not."""
        before = self.code_at(square)
        self.set(square, piece if piece is not None else self.held)
        self._timeline.wait(duration)
        self.set(square, before)

    def misread(self, square: chess.Square, code: int, duration: float) -> None:
        """The sensor of ``square`` reads ``code`` for ``duration``, then the truth again."""
        truth = self.code_at(square)
        self.set(square, code)
        self._timeline.wait(duration)
        self.set(square, truth)

    def knock_over(self, square: chess.Square, code: int | None = None) -> int:
        """A piece falls over: its square reads empty or a wrong code. Returns what it reads."""
        truth = self.code_at(square)
        if code is None:
            wrong = [c for c in range(1, 13) if c != truth]
            code = self._timeline.rng.choice([PieceCode.EMPTY, *wrong])
        self._timeline.record(
            self.link, SetField(square_to_field(square, rotated=self._rotated), code)
        )
        return code

    def set_upright(self, square: chess.Square) -> None:
        """Undo ``knock_over``: the square reads its piece again."""
        self.set(square, self.code_at(square))

    def slide(self, piece: PieceLike | None, path: Sequence[chess.Square]) -> None:
        """Slide ``piece`` (None: whatever stands on ``path[0]``) along ``path``, origin first,
        resting on each square for at least one scan so every square is reported."""
        code = piece_code(piece) if piece is not None else self.code_at(path[0])
        for previous, square in itertools.pairwise(path):
            self._timeline.wait(self._timeline.draw(self._timeline.handling.slide_step))
            self.set(previous, None)
            self.set(square, code)

    def capture(
        self,
        from_square: chess.Square,
        to_square: chess.Square,
        order: CaptureOrder | str = CaptureOrder.REPLACE,
        *,
        piece: PieceLike | None = None,
        victim_square: chess.Square | None = None,
    ) -> None:
        """Capture on ``to_square`` (``victim_square`` for en passant); ``piece`` for promotions."""
        order = CaptureOrder(order)
        victim = to_square if victim_square is None else victim_square
        mover = piece_code(piece) if piece is not None else self.code_at(from_square)
        sc = self._timeline
        if order is CaptureOrder.VICTIM_FIRST:
            self.lift(victim)
            sc.wait(sc.draw(sc.handling.reach))
            if self.chance(sc.handling.held_victim_probability):
                sc.wait(sc.draw(sc.handling.held))  # the victim in the hand, the capturer waits
            self.lift(from_square)
            sc.wait(sc.draw(sc.handling.travel))
            self.place(to_square, mover)
        elif order is CaptureOrder.VICTIM_LAST or victim != to_square:
            self.lift(from_square)
            sc.wait(sc.draw(sc.handling.travel))
            if victim == to_square:
                self.lift(victim)
                sc.wait(sc.draw(sc.handling.reach))
                self.place(to_square, mover)
            else:
                self.place(to_square, mover)
                sc.wait(sc.draw(sc.handling.reach))
                self.lift(victim)
        else:
            self.lift(from_square)
            sc.wait(sc.draw(sc.handling.travel))
            self.set(to_square, mover)  # the victim is swept off as the capturer lands
        self.held = PieceCode.EMPTY

    def drop(self, square: chess.Square, piece: PieceLike, *, hover: bool = False) -> None:
        """A piece from the pocket is put on ``square``."""
        sc = self._timeline
        code = piece_code(piece)
        if hover:
            near = neighbour(square, sc.rng)
            if near is not None and self.code_at(near) == PieceCode.EMPTY:
                self.hover(near, code, sc.draw(sc.handling.hover))
        sc.wait(sc.draw(sc.handling.reach))
        self.place(square, code)

    def move_piece(
        self,
        from_square: chess.Square,
        to_square: chess.Square,
        piece: PieceLike | None = None,
        *,
        hover_over: chess.Square | None = None,
    ) -> None:
        """Lift, carry (optionally hovering over a square), place."""
        sc = self._timeline
        code = piece_code(piece) if piece is not None else self.code_at(from_square)
        self.lift(from_square)
        travel = sc.draw(sc.handling.travel)
        if hover_over is not None and self.code_at(hover_over) == PieceCode.EMPTY:
            sc.wait(travel / 2)
            self.hover(hover_over, self.held, sc.draw(sc.handling.hover))
            sc.wait(travel / 2)
        else:
            sc.wait(travel)
        self.place(to_square, code)

    def chance(self, probability: float) -> bool:
        """A seeded coin; none is thrown for a style that is off (existing seeds stay put)."""
        return probability > 0 and self._timeline.rng.random() < probability

    def free_neighbour(self, square: chess.Square, *, avoid: chess.Square) -> chess.Square | None:
        """An empty square next to ``square`` (not ``avoid``), drawn from the seeded ``rng``."""
        near = [
            sq
            for sq in chess.SQUARES
            if chess.square_distance(sq, square) == 1
            and sq != avoid
            and self.code_at(sq) == PieceCode.EMPTY
        ]
        return self._timeline.rng.choice(near) if near else None


__all__ = ["Hands", "PieceLike", "Timeline", "neighbour", "piece_code"]
