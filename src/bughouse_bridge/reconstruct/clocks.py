"""One DGT clock seen through its board: which side is White, presses, flags, readings.

A press is the running side flipping to the other side; the side that stopped is the presser.
White's side is configured, or learned from the first running reading taken while the board is
settled on the match position (the side running then belongs to the side to move).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, LeverSide

_READING_INTERVAL = 1.0


def _other(side: LeverSide) -> LeverSide:
    return LeverSide.RIGHT if side is LeverSide.LEFT else LeverSide.LEFT


def _face(times: ClockTimes, side: LeverSide) -> ClockFace:
    return times.left if side is LeverSide.LEFT else times.right


@dataclass(frozen=True, slots=True)
class ClockUpdate:
    """What one clock message means for the board."""

    pressed_by: chess.Color | None = None  # the colour whose time stopped as the other's started
    press_ms: int | None = None  # the presser's remaining time
    flags: tuple[chess.Color, ...] = ()
    reading: tuple[int, int, chess.Color | None] | None = None  # white_ms, black_ms, running


class ClockTracker:
    """The state of one clock; pure, fed with decoded ``ClockTimes`` and the time."""

    __slots__ = ("_last_reading_t", "flagged", "has_run", "last", "white_side")

    def __init__(self, white_side: LeverSide | None) -> None:
        self.white_side = white_side
        self.last: ClockTimes | None = None
        self.has_run = False
        self.flagged: set[chess.Color] = set()
        self._last_reading_t: float | None = None

    def color_of(self, side: LeverSide) -> chess.Color | None:
        if self.white_side is None:
            return None
        return chess.WHITE if side is self.white_side else chess.BLACK

    def side_of(self, color: chess.Color) -> LeverSide | None:
        if self.white_side is None:
            return None
        return self.white_side if color == chess.WHITE else _other(self.white_side)

    @property
    def running(self) -> bool:
        return self.last is not None and not self.last.no_clock and self.last.running

    def running_color(self) -> chess.Color | None:
        side = self.last.running_side if self.last is not None and self.running else None
        return None if side is None else self.color_of(side)

    def remaining_ms(self, color: chess.Color) -> int | None:
        side = self.side_of(color)
        if side is None or self.last is None:
            return None
        return _face(self.last, side).total_seconds * 1000

    def _learn(self, side: LeverSide | None, turn: chess.Color | None) -> None:
        if self.white_side is None and side is not None and turn is not None:
            self.white_side = side if turn == chess.WHITE else _other(side)

    def feed(
        self,
        times: ClockTimes,
        now: float,
        *,
        turn: chess.Color,
        at_rest: bool,
        presser: chess.Color,
    ) -> ClockUpdate:
        """One reading. ``turn`` is the match's side to move on the board; ``at_rest`` says the
        board shows the match position (so the running side belongs to ``turn``); ``presser`` is
        who a lever flip would come from (to learn which side is White)."""
        if times.no_clock:
            self.last = times
            return ClockUpdate()
        before = self.last.running_side if self.last is not None and self.running else None
        self.last = times
        self.has_run = self.has_run or times.running
        after = times.running_side
        pressed_side = before if before is not None and after is _other(before) else None
        # The caller says who pressed: the side to move, unless the last move is still owed its
        # press (it was committed before the press came). A clock running while the board is at
        # rest runs for the side to move.
        self._learn(pressed_side, presser)
        self._learn(after, turn if at_rest else None)
        pressed_by = None if pressed_side is None else self.color_of(pressed_side)
        press_ms = None if pressed_side is None else _face(times, pressed_side).total_seconds * 1000
        return ClockUpdate(pressed_by, press_ms, self._new_flags(times), self._reading(now))

    def _new_flags(self, times: ClockTimes) -> tuple[chess.Color, ...]:
        if not self.has_run or self.white_side is None:
            return ()
        fallen = []
        for side in (LeverSide.LEFT, LeverSide.RIGHT):
            face = _face(times, side)
            color = self.color_of(side)
            at_zero = face.total_seconds == 0 and (times.running_side is side or face.flag_shown)
            if color is not None and color not in self.flagged and (face.flag_fallen or at_zero):
                self.flagged.add(color)
                fallen.append(color)
        return tuple(fallen)

    def _reading(self, now: float) -> tuple[int, int, chess.Color | None] | None:
        white_ms, black_ms = self.remaining_ms(chess.WHITE), self.remaining_ms(chess.BLACK)
        if white_ms is None or black_ms is None:
            return None
        if self._last_reading_t is not None and now - self._last_reading_t < _READING_INTERVAL:
            return None
        self._last_reading_t = now
        return white_ms, black_ms, self.running_color()
