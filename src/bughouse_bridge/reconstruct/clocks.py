"""One DGT clock seen through its board: which side is White, presses, flags, readings.

A press is the running side flipping to the other side; the side that stopped is the presser.
White's side is configured, or learned from the first running reading taken while the board is
settled on the match position (the side running then belongs to the side to move) — but not
from a clock still running from the last game: after a mate nobody need stop the clock, and the
pieces stand in the start position again while the loser's time still runs. Such a clock says
nothing about this game until it has been stopped (set for the game) or pressed for a move: a
press at rest before that may be anyone's (Black starts White's time by custom).

A flag is the clock's own flag bit (BWTIME hours byte: 0x10 fallen, 0x40 shown), never a face
showing 0:00: clocks differ in how they show the last second (one shows 0:00 while it still
runs), so a zero on the display says nothing. *When* the flag fell (note H) comes from the
clock's own countdown: a running face showing ``s`` seconds at arrival time ``t`` means the zero
crossing is at most ``t + s`` (a face that rounds up, the DGT 3000) or ``t + s + 1`` (one that
shows the last second as 0:00, the DGT XL; and any clock of unknown model). Messages only ever
arrive late, so the smallest of these bounds over the run is the tightest estimate — much better
than the arrival time of the flag message alone, which may come up to half a second late.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, ClockType, LeverSide

_READING_INTERVAL = 1.0

# How much later than ``arrival + shown seconds`` a clock's zero may lie: a face that shows the
# last second as 0:00 (rounds down) hides up to one more second.
_HIDDEN_SECOND = {ClockType.DGT3000: 0.0, ClockType.XL: 1.0}
_UNKNOWN_MODEL_HIDDEN = 1.0


def _other(side: LeverSide) -> LeverSide:
    return LeverSide.RIGHT if side is LeverSide.LEFT else LeverSide.LEFT


def _face(times: ClockTimes, side: LeverSide) -> ClockFace:
    return times.left if side is LeverSide.LEFT else times.right


@dataclass(frozen=True, slots=True)
class ClockUpdate:
    """What one clock message means for the board."""

    pressed_by: chess.Color | None = None  # the colour whose time stopped as the other's started
    press_ms: int | None = None  # the presser's remaining time
    flags: tuple[tuple[chess.Color, float], ...] = ()  # (colour, clock-derived zero crossing)
    reading: tuple[int, int, chess.Color | None] | None = None  # white_ms, black_ms, running


class ClockTracker:
    """The state of one clock; pure, fed with decoded ``ClockTimes`` and the time."""

    __slots__ = (
        "_last_reading_t",
        "_zero_by",
        "before_gap",
        "flagged",
        "has_run",
        "last",
        "model",
        "running_from_last_game",
        "white_side",
    )

    def __init__(self, white_side: LeverSide | None) -> None:
        self.white_side = white_side
        # Set for a new game when the clock runs on from the last one: its running side belongs
        # to that game: it teaches nothing until the clock is seen stopped (a press for a move
        # still does).
        self.running_from_last_game = False
        self.model: ClockType | None = None  # learned from the clock's version ack
        self.last: ClockTimes | None = None
        self.has_run = False
        self.flagged: set[chess.Color] = set()
        self._last_reading_t: float | None = None
        self._zero_by: dict[LeverSide, float] = {}  # latest possible zero crossing, running side
        # The last reading before the link was lost: the gap solver's clock evidence (issue 19).
        self.before_gap: tuple[int, int, chess.Color | None] | None = None

    def link_returned(self) -> None:
        """The link was down (or the process restarted): the clock may have been pressed
        meanwhile, so the next reading is a new baseline, not a press seen now."""
        self.before_gap = self.reading()
        self.last = None
        self._zero_by.clear()

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
            self._zero_by.clear()
            return ClockUpdate()
        before = self.last.running_side if self.last is not None and self.running else None
        previous = self.last
        self.last = times
        self.has_run = self.has_run or times.running
        self.running_from_last_game = self.running_from_last_game and times.running
        after = times.running_side
        pressed_side = before if before is not None and after is _other(before) else None
        # The caller says who pressed: the side to move, unless the last move is still owed its
        # press (it was committed before the press came). A clock running while the board is at
        # rest runs for the side to move — once it runs for this game. The last game's clock
        # pressed at rest, no move owed its press, may have been pressed by either player.
        if not (self.running_from_last_game and at_rest and presser == turn):
            self._learn(pressed_side, presser)
        self._learn(after, turn if at_rest and not self.running_from_last_game else None)
        pressed_by = None if pressed_side is None else self.color_of(pressed_side)
        press_ms = None if pressed_side is None else _face(times, pressed_side).total_seconds * 1000
        flags = self._new_flags(times, now)
        self._count_down(previous, times, now)
        return ClockUpdate(pressed_by, press_ms, flags, self._reading(now))

    def _new_flags(self, times: ClockTimes, now: float) -> tuple[tuple[chess.Color, float], ...]:
        if not self.has_run or self.white_side is None:
            return ()
        fallen = []
        for side in (LeverSide.LEFT, LeverSide.RIGHT):
            face = _face(times, side)
            color = self.color_of(side)
            if color is not None and not _flag_bit(face):
                self.flagged.discard(color)  # the clock was set again: a new flag may fall
            if color is None or color in self.flagged or not _flag_bit(face):
                continue
            self.flagged.add(color)
            fallen.append((color, min(self._zero_by.get(side, now), now)))
        return tuple(fallen)

    def _count_down(self, previous: ClockTimes | None, times: ClockTimes, now: float) -> None:
        """Narrow each running side's zero crossing; forget it when the side stops or its time
        goes up (a press with increment, an arbiter setting the clock)."""
        hidden = _UNKNOWN_MODEL_HIDDEN if self.model is None else _HIDDEN_SECOND[self.model]
        for side in (LeverSide.LEFT, LeverSide.RIGHT):
            shown = _face(times, side).total_seconds
            went_up = previous is not None and shown > _face(previous, side).total_seconds
            if times.running_side is not side or went_up:
                self._zero_by.pop(side, None)
            if times.running_side is side:
                bound = now + shown + hidden
                self._zero_by[side] = min(self._zero_by.get(side, bound), bound)

    def reading(self) -> tuple[int, int, chess.Color | None] | None:
        """White's and Black's remaining milliseconds and the running side, as last read."""
        white_ms, black_ms = self.remaining_ms(chess.WHITE), self.remaining_ms(chess.BLACK)
        if white_ms is None or black_ms is None:
            return None
        return white_ms, black_ms, self.running_color()

    def _reading(self, now: float) -> tuple[int, int, chess.Color | None] | None:
        white_ms, black_ms = self.remaining_ms(chess.WHITE), self.remaining_ms(chess.BLACK)
        if white_ms is None or black_ms is None:
            return None
        if self._last_reading_t is not None and now - self._last_reading_t < _READING_INTERVAL:
            return None
        self._last_reading_t = now
        return white_ms, black_ms, self.running_color()


def _flag_bit(face: ClockFace) -> bool:
    """The clock says the time is up: flag fallen (blocked at zero) or flag shown."""
    return face.flag_fallen or face.flag_shown
