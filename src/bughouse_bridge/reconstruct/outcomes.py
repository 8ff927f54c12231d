"""What the reconstructor hands back besides match events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import MatchEvent

if TYPE_CHECKING:
    import chess

    from bughouse_bridge.bughouse.types import BoardId


@dataclass(frozen=True, slots=True)
class ClockReading:
    """A clock's two times, at most once a second per clock (contract §2 ``clock`` topic)."""

    t: float
    board: BoardId
    white_ms: int
    black_ms: int
    running: chess.Color | None


@dataclass(frozen=True, slots=True)
class RequestDump:
    """The reconstructor would like a full board dump (command 0x42). Optional: a replay
    ignores it, and reconstruction never depends on the answer."""

    board: BoardId


Outcome = MatchEvent | ClockReading | RequestDump
