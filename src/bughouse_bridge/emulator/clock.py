"""The chess clock cabled to an emulated board: a DGT 3000 or a DGT XL (dgt-protocol.md §3.6, §9).

Times are kept in milliseconds per physical side (left/right). The side whose lever is *up* runs;
pressing the lever lowers the presser's side, raises the opponent's and adds the increment to the
presser. Which side White sits on is a property of the physical setup (``ClockConfig.white_side``).
All methods take ``now`` (float seconds); nothing here reads a clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, ClockType, LeverSide

_MAX_DISPLAY_SECONDS = 9 * 3600 + 59 * 60 + 59  # the hour nibble shows 0..9

# Status byte values as real boards send them (§3.6): D0 running, D1 lever right; D3/D4 follow D1.
_STATUS_LEVER_LEFT = 0x08
_STATUS_LEVER_RIGHT = 0x12
_STATUS_RUNNING = 0x01


def other_side(side: LeverSide) -> LeverSide:
    return LeverSide.RIGHT if side is LeverSide.LEFT else LeverSide.LEFT


@dataclass(frozen=True, slots=True)
class ClockConfig:
    """A clock model. ``kind=None`` means no clock is cabled to the board."""

    kind: ClockType | None = ClockType.DGT3000
    white_side: LeverSide = LeverSide.LEFT
    version: tuple[int, int] | None = None  # None: 2.0 for a DGT 3000, 1.4 for an XL
    xl_mode_23: bool = True  # an XL honours SetNRun only in "mode 23"; else error ack 0x40

    @property
    def shows_last_second_as_zero(self) -> bool:
        """How the face rounds: the XL (as emulated) shows the last running second as 0:00, the
        DGT 3000 rounds up and shows 0:01 until the flag falls. Either way only the flag bits
        (0x10 fallen, 0x40 shown) say the time is up (dgt-protocol.md §3.6)."""
        return self.kind is ClockType.XL

    @property
    def firmware(self) -> tuple[int, int]:
        if self.version is not None:
            return self.version
        return (2, 0) if self.kind is ClockType.DGT3000 else (1, 4)


@dataclass(frozen=True, slots=True)
class ClockSetting:
    """What SetNRun (or an arbiter's hands) puts on the clock."""

    left_ms: int
    right_ms: int
    running: LeverSide | None
    increment_ms: int = 0


class ClockModel:
    """Times, running side, lever, flags and increment of one physical clock."""

    def __init__(self, config: ClockConfig) -> None:
        self.config = config
        self._remaining = {LeverSide.LEFT: 0.0, LeverSide.RIGHT: 0.0}
        self._since = 0.0
        self._running: LeverSide | None = None
        self._lever = LeverSide.LEFT
        self._flags: set[LeverSide] = set()
        self._increment_ms = 0
        self.text: str | None = None  # what a text/display command shows, until CLOCK_END

    @property
    def present(self) -> bool:
        return self.config.kind is not None

    @property
    def lever(self) -> LeverSide:
        return self._lever

    def running_side(self, now: float) -> LeverSide | None:
        self._advance(now)
        return self._running

    def remaining_ms(self, side: LeverSide, now: float) -> float:
        self._advance(now)
        return self._remaining[side]

    def flag_fallen(self, side: LeverSide, now: float) -> bool:
        self._advance(now)
        return side in self._flags

    def side_of(self, white: bool) -> LeverSide:  # noqa: FBT001 - mirrors chess.Color
        return self.config.white_side if white else other_side(self.config.white_side)

    def set(self, setting: ClockSetting, now: float) -> None:
        """Set both times and the running side (SetNRun, or the arbiter setting the clock)."""
        self._advance(now)
        self._remaining = {
            LeverSide.LEFT: float(setting.left_ms),
            LeverSide.RIGHT: float(setting.right_ms),
        }
        self._flags = {side for side, ms in self._remaining.items() if ms <= 0}
        self._increment_ms = setting.increment_ms
        self._running = setting.running if not self._flags else None
        self._since = now

    def start(self, side: LeverSide, now: float) -> None:
        """The opponent of ``side`` presses to start: ``side``'s lever goes up and its time runs."""
        self._advance(now)
        self._lever = side
        if not self._flags:
            self._running = side
        self._since = now

    def stop(self, now: float) -> None:
        self._advance(now)
        self._running = None

    def press(self, now: float, side: LeverSide | None = None) -> None:
        """A player hits the lever on ``side`` (default: the raised side, i.e. the mover)."""
        self._advance(now)
        presser = self._lever if side is None else side
        if presser is not self._lever:
            return  # that side is already down: the lever does not move
        self._lever = other_side(presser)
        if self._running is not None:
            self._remaining[presser] += self._increment_ms
            self._running = self._lever
        self._since = now

    def reading(self, now: float) -> ClockTimes:
        """The BWTIME payload the board reads from the clock at ``now``."""
        self._advance(now)
        status = _STATUS_LEVER_RIGHT if self._lever is LeverSide.RIGHT else _STATUS_LEVER_LEFT
        if self._running is not None:
            status |= _STATUS_RUNNING
        return ClockTimes(
            right=self._face(LeverSide.RIGHT), left=self._face(LeverSide.LEFT), status=status
        )

    def flag_time(self) -> float | None:
        """When the running side's flag falls if nobody presses, or None."""
        if self._running is None:
            return None
        return self._since + self._remaining[self._running] / 1000.0

    def _face(self, side: LeverSide) -> ClockFace:
        # A DGT 3000 shows 5:00 until a whole second has elapsed (rounds up); the XL shows the
        # whole seconds left (rounds down), so its last second reads 0:00 with no flag yet.
        left_s = max(self._remaining[side], 0.0) / 1000.0
        shown = (
            math.floor(left_s + 1e-9)
            if self.config.shows_last_second_as_zero
            else math.ceil(left_s - 1e-9)
        )
        seconds = min(shown, _MAX_DISPLAY_SECONDS)
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        fallen = side in self._flags
        return ClockFace(
            hours=hours,
            minutes=minutes,
            seconds=secs,
            flag_fallen=fallen,
            time_per_move=self._increment_ms > 0,
            flag_shown=fallen,
        )

    def _advance(self, now: float) -> None:
        if now <= self._since:
            return
        if self._running is not None:
            side = self._running
            left = self._remaining[side] - (now - self._since) * 1000.0
            if left <= 0:
                # Flag fallen: the display blocks at zero and the clock stops (§3.6 bit 4).
                self._remaining[side] = 0.0
                self._flags.add(side)
                self._running = None
            else:
                self._remaining[side] = left
        self._since = now
