"""The match's log: its entries, and the state replaying them builds. Pure.

Every change of a :class:`~bughouse_bridge.bughouse.match.Match` appends one entry here (a move,
a removed illegal drop, a flag, a result, a correction, a filled gap, ...), and the entry is
paired with what it put on record (``MatchState.written``). A takeback or a gap solved anew
rewrites the log and replays it: each entry is replayed through the public method that made it
(``Match._replay_entry``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.types import BoardId, BughouseMove, Seat

if TYPE_CHECKING:
    from collections.abc import Mapping

    import chess

    from bughouse_bridge.bughouse.board import BughouseBoard
    from bughouse_bridge.bughouse.events import ResultDecided
    from bughouse_bridge.bughouse.plight import Verdict
    from bughouse_bridge.bughouse.record import Recorded

__all__ = [
    "Accepted",
    "ClaimConfirmed",
    "DropRemoved",
    "Entry",
    "FlagFell",
    "GapFilled",
    "IllegalSeen",
    "MatchState",
    "Played",
    "PocketEdited",
    "ResultSet",
    "ResultWithdrawn",
]


@dataclass(frozen=True, slots=True)
class Played:
    t: float
    move: BughouseMove
    clock_ms: int | None
    force: bool
    recovered: bool = False  # a gap's ply, found by the gap solver or chosen by the arbiter
    order_certain: bool = True  # False: a recovered ply whose order in its gap is a guess


@dataclass(frozen=True, slots=True)
class DropRemoved:
    t: float
    board: BoardId


@dataclass(frozen=True, slots=True)
class FlagFell:
    t: float
    seat: Seat
    at: float


@dataclass(frozen=True, slots=True)
class ResultSet:
    t: float
    winner_team: int | None
    board: BoardId
    reason: str


@dataclass(frozen=True, slots=True)
class IllegalSeen:
    """Row 10: an illegal move (not played) that the opponent may claim."""

    t: float
    seat: Seat
    uci: str
    ply: int  # the board's ply when it was seen


@dataclass(frozen=True, slots=True)
class ClaimConfirmed:
    t: float
    seat: Seat
    claim: str
    at: float


@dataclass(frozen=True, slots=True)
class ResultWithdrawn:
    t: float
    reason: str


@dataclass(frozen=True, slots=True)
class Accepted:
    t: float
    board: BoardId
    placement: str  # board FEN (placement only), as the sensors saw it


@dataclass(frozen=True, slots=True)
class PocketEdited:
    t: float
    seat: Seat
    pieces: str


@dataclass(frozen=True, slots=True)
class GapFilled:
    """A link gap nobody could explain: the gap's boards were set to what they showed after
    it, and the pockets of both boards changed by what the gap's plies captured and dropped.

    The pockets are kept as changes (``fens`` minus ``before``), not as counts: an earlier gap
    filled anew (``Match.refill_gap``) changes the pockets this one starts from, and the
    pieces this gap added or took must still be added or taken."""

    t: float
    gap: int
    fens: Mapping[BoardId, str]  # crazyhouse FENs: the gap's boards; the pockets of both
    boards: frozenset[BoardId]  # the gap's boards (the others keep their position)
    before: Mapping[BoardId, str]  # both boards' FENs just before, for the pocket changes


Entry = (
    Played
    | DropRemoved
    | FlagFell
    | ResultSet
    | IllegalSeen
    | ClaimConfirmed
    | ResultWithdrawn
    | Accepted
    | PocketEdited
    | GapFilled
)


@dataclass(slots=True)
class MatchState:
    boards: dict[BoardId, BughouseBoard]
    plies: dict[BoardId, int] = field(default_factory=lambda: dict.fromkeys(BoardId, 0))
    plights: dict[BoardId, Verdict] = field(default_factory=dict)
    forced_drops: dict[BoardId, chess.Square] = field(default_factory=dict)
    flags: dict[Seat, float] = field(default_factory=dict)
    illegal: dict[Seat, IllegalSeen] = field(default_factory=dict)  # claimable (row 10)
    result: ResultDecided | None = None
    log: list[Entry] = field(default_factory=list)
    written: list[Recorded] = field(default_factory=list)  # what each log entry put on record

    def copy(self) -> MatchState:
        return MatchState(
            # The move stacks are never popped (takeback replays the log), so copies skip them.
            boards={board_id: board.copy(stack=False) for board_id, board in self.boards.items()},
            plies=dict(self.plies),
            plights=dict(self.plights),
            forced_drops=dict(self.forced_drops),
            flags=dict(self.flags),
            illegal=dict(self.illegal),
            result=self.result,
            log=list(self.log),
            written=list(self.written),
        )
