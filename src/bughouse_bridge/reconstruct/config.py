"""Timings and physical set-up of the move reconstructor."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from bughouse_bridge.bughouse.types import BoardId

if TYPE_CHECKING:
    from collections.abc import Mapping

OrientationSetting = Literal["auto", "normal", "rotated"]
ClockSideSetting = Literal["auto", "left", "right"]


def _auto_orientation() -> Mapping[BoardId, OrientationSetting]:
    return MappingProxyType(dict.fromkeys(BoardId, "auto"))


def _auto_clock_side() -> Mapping[BoardId, ClockSideSetting]:
    return MappingProxyType(dict.fromkeys(BoardId, "auto"))


@dataclass(frozen=True, slots=True)
class ReconstructorConfig:
    """All durations in seconds on the pipeline clock.

    ``stability_window``: a placement unchanged this long is settled (one full scan of a USB
    board is 200-250 ms; use about 0.5 for Bluetooth boards).
    ``drop_grace``: how long a drop of a piece not (yet) in the pocket, or a promotion whose
    steal is not (yet) seen on the other board, waits for the other board (contract §3).
    ``unexplained_limit``: a settled placement no move explains raises an alert after this long.
    ``stalling_limit``: row 17, the side to move facing a pending mate or stalemate.
    ``no_press_commit_after``: with a running clock, a settled legal move with no press is
    committed after this long, with a ``move_without_clock`` alert.
    ``press_grace``: a press may reach us before the scan reports the move's last squares;
    only after this long does a press on an unchanged board count as ``clock_without_move``.
    ``illegal_after``: a settled illegal move or wrong-turn move is reported after this long
    (at once when the mover presses the clock).
    """

    stability_window: float = 0.25
    drop_grace: float = 2.0
    unexplained_limit: float = 4.0
    stalling_limit: float = 30.0
    no_press_commit_after: float = 3.0
    press_grace: float = 0.6
    illegal_after: float = 1.0
    orientation: Mapping[BoardId, OrientationSetting] = field(default_factory=_auto_orientation)
    clock_white_side: Mapping[BoardId, ClockSideSetting] = field(default_factory=_auto_clock_side)

    def __post_init__(self) -> None:
        # A board's next reading is the earliest due after its last one (``deadlines.py``): a
        # due made at a reading must lie after it, so every duration is positive.
        durations = (
            self.stability_window,
            self.drop_grace,
            self.unexplained_limit,
            self.stalling_limit,
            self.no_press_commit_after,
            self.press_grace,
            self.illegal_after,
        )
        if min(durations) <= 0:
            raise ValueError(f"the reconstructor's durations must be positive: {durations}")

    def orientation_of(self, board: BoardId) -> OrientationSetting:
        return self.orientation.get(board, "auto")

    def clock_side_of(self, board: BoardId) -> ClockSideSetting:
        return self.clock_white_side.get(board, "auto")
