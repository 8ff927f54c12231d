"""The core of a match: its boards, its log and the questions asked of them. Pure.

:class:`MatchCore` holds the rule set, the start positions and the :class:`MatchState` the log
built; it answers the queries (positions, pockets, legal moves, SAN), pairs each new log entry
with what it put on record, and rebuilds the match from a prefix of its log. What changes the
match lives in the mixins that :class:`~bughouse_bridge.bughouse.match.Match` composes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

import chess

from bughouse_bridge.bughouse import judging, legality, notation
from bughouse_bridge.bughouse.board import (
    BughouseBoard,
    PlacementSketch,
    placement_of,
    pocket_letters,
)
from bughouse_bridge.bughouse.events import MovePlayed, Pockets, PocketSet, PositionAccepted
from bughouse_bridge.bughouse.match_log import MatchState
from bughouse_bridge.bughouse.plight import classify
from bughouse_bridge.bughouse.record import Recorded, is_record_event
from bughouse_bridge.bughouse.types import BoardId, BughouseMove, Judgement

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.events import MatchEvent, ResultDecided
    from bughouse_bridge.bughouse.match_log import Entry
    from bughouse_bridge.bughouse.plight import Plight
    from bughouse_bridge.bughouse.rules import RuleSet

__all__ = ["START_FEN", "MatchCore", "Successor"]

START_FEN = BughouseBoard.starting_fen


@dataclass(frozen=True, slots=True)
class Successor:
    """A legal move and the placement (``board_fen``) of every board it changes."""

    move: BughouseMove
    placements: Mapping[BoardId, str]


class MatchCore:
    """The boards, the log and what can be asked of them; recording and replaying the log.

    The changes live in the mixins that :class:`~bughouse_bridge.bughouse.match.Match` composes;
    ``Match`` names how each log entry is replayed (``_replay_entry``: the method that made it).
    """

    __slots__ = ("_fens", "_rules", "_state")

    def __init__(self, rules: RuleSet, *, fens: Mapping[BoardId, str] | None = None) -> None:
        self._rules = rules
        self._fens = {board_id: (fens or {}).get(board_id, START_FEN) for board_id in BoardId}
        self._state = self._fresh_state()

    def _fresh_state(self) -> MatchState:
        state = MatchState(boards={b: BughouseBoard(fen) for b, fen in self._fens.items()})
        for board_id in BoardId:
            state.plights[board_id] = classify(
                self._rules, state.boards, board_id, partner_moved=False
            )
        return state

    # --- queries -------------------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        return self._rules

    @property
    def result(self) -> ResultDecided | None:
        return self._state.result

    @property
    def record(self) -> Sequence[Recorded]:
        """What each entry of the log put on record, in log order (read only; see
        :class:`~bughouse_bridge.bughouse.record.GameRecord`)."""
        return self._state.written

    def fen(self, board: BoardId) -> str:
        """Crazyhouse FEN with the pocket in brackets (promoted pieces marked ``~``)."""
        return self._state.boards[board].fen()

    def board_fen(self, board: BoardId) -> str:
        """Placement only: what the sensors can see."""
        return placement_of(self._state.boards[board])

    def position(self, board: BoardId) -> chess.variant.CrazyhouseBoard:
        return self._state.boards[board].copy(stack=False)

    def pockets(self) -> Pockets:
        boards = self._state.boards
        return Pockets(
            a_white=pocket_letters(boards[BoardId.A].pockets[chess.WHITE]),
            a_black=pocket_letters(boards[BoardId.A].pockets[chess.BLACK]),
            b_white=pocket_letters(boards[BoardId.B].pockets[chess.WHITE]),
            b_black=pocket_letters(boards[BoardId.B].pockets[chess.BLACK]),
        )

    def turn(self, board: BoardId) -> chess.Color:
        return self._state.boards[board].turn

    def ply(self, board: BoardId) -> int:
        """Moves played on ``board`` in this match."""
        return self._state.plies[board]

    def status(self, board: BoardId) -> Plight:
        """Free, stalemated, mate pending or mate final: the player on move on ``board``."""
        return self._state.plights[board].plight

    def legal_moves(self, board: BoardId) -> list[BughouseMove]:
        """Exactly the moves ``judge`` calls legal (a decided match is still judged)."""
        return legality.legal_moves(self._rules, self._state.boards, board)

    def successors(self, board: BoardId) -> list[Successor]:
        """Legal moves with the resulting placements, for matching what the sensors see."""
        sketch = PlacementSketch(self._state.boards[board])
        return [self._successor(sketch, move) for move in self.legal_moves(board)]

    def _successor(self, sketch: PlacementSketch, move: BughouseMove) -> Successor:
        placements = {move.board: sketch.after(move.move)}
        if move.steal_square is not None:
            neighbour = self._state.boards[move.board.other].without_piece(move.steal_square)
            placements[move.board.other] = neighbour.board_fen(promoted=False)
        return Successor(move, placements)

    def judge(self, move: BughouseMove, *, color: chess.Color | None = None) -> Judgement:
        # A decided match is still judged move by move: a result never blinds the referee
        # (the arbiter may revoke it, and the broadcast follows the boards meanwhile).
        return judging.judge(self._rules, self._state.boards, move, color)

    def parse_san(self, board: BoardId, san: str) -> BughouseMove:
        return notation.parse_san(self._rules, self._state.boards, board, san)

    def san(self, move: BughouseMove) -> str:
        return notation.san(self._rules, self._state.boards, move)

    def copy(self) -> Self:
        twin = type(self).__new__(type(self))
        twin._rules = self._rules  # noqa: SLF001 - a copy of its own class
        twin._fens = dict(self._fens)  # noqa: SLF001
        twin._state = self._state.copy()  # noqa: SLF001
        return twin

    def _recorded(
        self, t: float, events: list[MatchEvent], *, gap: int | None = None
    ) -> list[MatchEvent]:
        """Pair the log entry just made with what it put on record; returns ``events``."""
        state = self._state
        recorded = tuple(event for event in events if is_record_event(event))
        # A move's (or a correction's) event holds its board's FEN and every pocket as they
        # are at the end of its log entry (nothing after it in the entry changes a board).
        carriers = [e for e in recorded if isinstance(e, MovePlayed | PositionAccepted | PocketSet)]
        known = {event.board: event.fen for event in carriers}
        fens = {board: known.get(board) or self.fen(board) for board in BoardId}
        pockets = carriers[-1].pockets if carriers else self.pockets()
        state.written.append(Recorded(t, recorded, fens, dict(state.plies), pockets, gap))
        return events

    # --- replaying the log (takeback, a gap solved or filled anew) --------------------------

    def _rebuilt(self, entries: list[Entry], facts: int) -> Self:
        """A new match from the start through ``entries``, a prefix of this match's log that
        does not change: replayed without building events, its first ``facts`` facts kept."""
        rebuilt = type(self)(self._rules, fens=self._fens)
        for entry in entries:
            rebuilt._replay_entry(entry, quietly=True)  # noqa: SLF001 - a match of its own class
        rebuilt._state.written = self._state.written[:facts]  # noqa: SLF001
        return rebuilt

    def _replay(self, entries: list[Entry]) -> None:
        """Play ``entries`` again with their events, so that their facts are made anew."""
        for entry in entries:
            self._replay_entry(entry, quietly=False)

    def _replay_entry(self, entry: Entry, *, quietly: bool) -> None:
        """Make ``entry`` again through the method that made it; ``quietly``: without building
        events where that can be skipped (a prefix whose facts are kept)."""
        raise NotImplementedError
