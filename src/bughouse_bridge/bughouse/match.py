"""A bughouse match: two boards, four pockets, the referee's state and its log. Pure.

``Match`` keeps the boards and the log of everything that happened (moves, removed illegal drops,
flags, results set by the arbiter). A takeback rebuilds the match from that log without the
board's last ply, because python-chess's ``pop()`` cannot undo a pocket on the other board.

The log is the one source of the game record: every entry is paired with what it put on record
(``Match.record``, :class:`~bughouse_bridge.bughouse.record.Recorded`). A rebuild (takeback,
a gap solved or filled anew) keeps the facts of the unchanged entries before the change and
builds them anew only from there on.

``Match`` is composed of one module per job, each a layer over :class:`MatchCore` (the state,
the queries, recording and rebuilding; ``match_core.py``) and the log's entries
(``match_log.py``):

- ``match_verdicts.py``: checks, mates, stalemates after a change, and deciding the match;
- ``match_moves.py``: playing moves;
- ``match_corrections.py``: an illegal drop taken off, an accepted position, a pocket set;
- ``match_results.py``: flags, the arbiter's results, claims, revoking a result;
- ``match_gaps.py``: link gaps filled, amended and solved;
- here: the takeback, and how each log entry is replayed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import Takeback
from bughouse_bridge.bughouse.judging import IllegalMoveError
from bughouse_bridge.bughouse.match_core import Successor
from bughouse_bridge.bughouse.match_corrections import MatchCorrections
from bughouse_bridge.bughouse.match_gaps import MatchGaps
from bughouse_bridge.bughouse.match_log import (
    Accepted,
    ClaimConfirmed,
    DropRemoved,
    FlagFell,
    GapFilled,
    IllegalSeen,
    Played,
    PocketEdited,
    ResultSet,
    ResultWithdrawn,
)
from bughouse_bridge.bughouse.match_results import MatchResults

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match_log import Entry
    from bughouse_bridge.bughouse.types import BoardId

__all__ = ["IllegalMoveError", "Match", "Successor"]


class Match(MatchGaps, MatchCorrections, MatchResults):
    """Two boards under one rule set. Every method that changes state returns its events."""

    __slots__ = ()

    def takeback(self, board: BoardId, *, t: float) -> list[MatchEvent]:
        """Undo the last ply on ``board`` by replaying the log without it.

        ValueError when there is nothing to take back, or when the rest of the log no longer
        replays (e.g. the partner already dropped the piece that ply captured).
        """
        log = self._state.log
        index = _last_ply_index(log, board)
        if any(isinstance(e, Accepted) and e.board is board for e in log[index:]):
            raise ValueError(
                f"the position of board {board} was accepted after its last move; "
                "correct it with accept or set_pocket instead"
            )
        kept = [e for i, e in enumerate(log) if i > index and not _removal_of(e, board, i, index)]
        rebuilt: Match = self._rebuilt(log[:index], index)
        try:
            rebuilt._replay(kept)
        except ValueError as error:
            raise ValueError(f"cannot take back the last move on board {board}: {error}") from error
        self._state = rebuilt._state
        return [Takeback(t, board, self._state.plies[board])]

    def _replay_claim(self, entry: ClaimConfirmed) -> None:
        # A claim that held when it was confirmed may not hold after a takeback: it is dropped.
        try:
            seat = entry.seat
            self.confirm_claim(seat.board, seat.color, entry.claim, t=entry.t, at=entry.at)
        except ValueError:
            return

    def _replay_entry(self, entry: Entry, *, quietly: bool) -> None:
        replay = _REPLAY[type(entry)]
        if quietly:
            replay = _REPLAY_QUIETLY.get(type(entry), replay)
        replay(self, entry)


def _replay_result(match: Match, entry: ResultSet) -> None:
    match.set_result(entry.winner_team, entry.board, entry.reason, t=entry.t)


# How each log entry is replayed (takeback, resolving a gap): the public method that made it.
_REPLAY: dict[type, Callable[[Match, Any], object]] = {
    GapFilled: lambda m, e: m._refill(e),  # noqa: SLF001 - Match's own helper
    Played: lambda m, e: m._play_entry(e),  # noqa: SLF001 - Match's own helper
    DropRemoved: lambda m, e: m.remove_illegal_drop(e.board, t=e.t),
    FlagFell: lambda m, e: m.flag(e.seat.board, e.seat.color, t=e.t, at=e.at),
    IllegalSeen: lambda m, e: m.note_illegal(e.seat.board, e.seat.color, e.uci, t=e.t),
    ClaimConfirmed: lambda m, e: m._replay_claim(e),  # noqa: SLF001 - Match's own helper
    ResultWithdrawn: lambda m, e: m.revoke_result(t=e.t, reason=e.reason),
    Accepted: lambda m, e: m.accept_placement(e.board, e.placement, t=e.t),
    PocketEdited: lambda m, e: m.set_pocket(e.seat.board, e.seat.color, e.pieces, t=e.t),
    ResultSet: _replay_result,
}
# A prefix that does not change needs no events (its facts are kept): SAN and FEN for every ply
# of the log were most of a takeback's time.
_REPLAY_QUIETLY: dict[type, Callable[[Match, Any], object]] = {
    GapFilled: lambda m, e: m._fill(e),  # noqa: SLF001 - Match's own helper
    Played: lambda m, e: m._replay_played(e),  # noqa: SLF001 - Match's own helper
}


def _last_ply_index(log: list[Entry], board: BoardId) -> int:
    for index in range(len(log) - 1, -1, -1):
        entry = log[index]
        if isinstance(entry, Played) and entry.move.board is board:
            return index
    raise ValueError(f"no move on board {board} to take back")


def _removal_of(entry: Entry, board: BoardId, position: int, ply_index: int) -> bool:
    """The removal of the illegal drop that is being taken back goes with it."""
    return isinstance(entry, DropRemoved) and entry.board is board and position > ply_index
