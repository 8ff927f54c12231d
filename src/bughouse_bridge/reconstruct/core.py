"""The reconstructor's shared state and what every part of it needs: the boards' states, the
physical placements (orientation, magic pieces), alerts raised once, the stalling watch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import (
    Clocks,
    ClocksStatus,
    MatchEvent,
    Mate,
    MateStatus,
    Severity,
    Stalemate,
    StalemateStatus,
)
from bughouse_bridge.bughouse.referee import arbiter_call_alert, stalling_alert
from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.dgt.squares import code_to_piece, field_to_square
from bughouse_bridge.reconstruct.alerts import alert
from bughouse_bridge.reconstruct.clocks import ClockTracker
from bughouse_bridge.reconstruct.occupancy import (
    START_PLACEMENT,
    Occupancy,
    result_signal,
)
from bughouse_bridge.reconstruct.shapes import explaining_shapes
from bughouse_bridge.reconstruct.stall_watch import (
    StallReported,
    WaitBegan,
    WaitEnded,
    Watching,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BughouseMove
    from bughouse_bridge.dgt.messages import (
        FieldUpdate,
    )
    from bughouse_bridge.reconstruct.config import ReconstructorConfig
    from bughouse_bridge.reconstruct.outcomes import Outcome

from bughouse_bridge.reconstruct.board_state import CLOCK_SIDES, SEEN_KEPT, Board
from bughouse_bridge.reconstruct.flags import Flags, Table
from bughouse_bridge.reconstruct.gap_doors import GapDoors
from bughouse_bridge.reconstruct.resync import Resync


class ReconstructorCore:
    """ReconstructorCore: see the module docstring."""

    def __init__(self, match: Match, config: ReconstructorConfig) -> None:
        self._match = match
        self.config = config
        self._boards = {board: self._fresh_board(board) for board in BoardId}
        self._both_stopped = False
        self._flags = Flags(config)  # flags held against the moves made before them
        self._resync = self._fresh_resync()  # the gaps: their book, guesses and evidence

    @property
    def match(self) -> Match:
        return self._match

    def _game(self) -> Match:
        """The game now, for the gaps' doors: a bound method, not a closure, so that a copy of
        the reconstructor (a command's checkpoint) reads its own game."""
        return self._match

    def _fresh_resync(self) -> Resync:
        """The gaps' component, with the doors by which it reaches this reconstructor."""
        doors = GapDoors(
            match=self._game,
            boards=self._boards,
            config=self.config,
            physical=self._physical,
            reread=self._reread,
            nudge=self._nudge,
            resolved=self._resolved,
            after_commit=self._after_commit,
        )
        return Resync(doors)

    def _table(self) -> Table:
        """The table as the flags read it when they decide."""
        return Table(self._match, self._boards, self._at_rest_now)

    def _both_clocks(self, now: float) -> list[Outcome]:
        clocks = [state.clock for state in self._boards.values()]
        stopped = all(clock.has_run and not clock.running for clock in clocks)
        if stopped and not self._both_stopped:
            self._both_stopped = True
            call = arbiter_call_alert(self._match.rules, now)
            if self._match.result is not None or call is None:
                return [Clocks(now, ClocksStatus.BOTH_STOPPED)]
            return [Clocks(now, ClocksStatus.BOTH_STOPPED), call]
        if self._both_stopped and any(clock.running for clock in clocks):
            self._both_stopped = False
            return [Clocks(now, ClocksStatus.RUNNING)]
        return []

    def _fresh_board(self, board: BoardId) -> Board:
        orientation = self.config.orientation_of(board)
        rotated = None if orientation == "auto" else orientation == "rotated"
        side = CLOCK_SIDES.get(self.config.clock_side_of(board))
        return Board(Occupancy(), rotated, ClockTracker(side))

    def _remember(self, board: BoardId, update: FieldUpdate) -> None:
        """Pieces seen arriving since the last commit tell apart plies that leave no trace, and
        the order of arrivals and departures tells apart plies that end on the same placement."""
        state = self._boards[board]
        if state.rotated is None:
            return
        square = field_to_square(update.field, rotated=state.rotated)
        piece = code_to_piece(update.piece & 0x0F)
        if piece is not None:
            state.trail.add((square, piece))
        if piece is not None or update.piece == 0:
            state.changes.append((square, piece))
            del state.changes[:-SEEN_KEPT]

    def _note_placement(self, board: BoardId) -> None:
        state = self._boards[board]
        placement = self._physical(board)
        if placement is not None and (not state.seen or state.seen[-1] != placement):
            state.seen.append(placement)
            del state.seen[:-SEEN_KEPT]

    def _changed(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.changed_at = now  # read once settled (``deadlines.board_dues``)

    def _physical(self, board: BoardId) -> str | None:
        state = self._boards[board]
        if state.rotated is None and state.occupancy.known:
            state.rotated = self._detect_rotation(board)
        if state.rotated is None:
            return None
        return state.occupancy.placement(rotated=state.rotated)

    def _placements(self) -> dict[BoardId, str]:
        placements = {}
        for board in BoardId:
            physical = self._physical(board) if self._boards[board].occupancy.known else None
            placements[board] = physical if physical is not None else self._match.board_fen(board)
        return placements

    def _detect_rotation(self, board: BoardId) -> bool | None:
        occupancy = self._boards[board].occupancy
        current = self._match.board_fen(board)
        for rotated in (False, True):
            if occupancy.placement(rotated=rotated) in {current, START_PLACEMENT}:
                return rotated
        position = self._match.position(board)
        for rotated in (False, True):
            if explaining_shapes(position, occupancy.placement(rotated=rotated)):
                return rotated
        return None

    def _flipped(self, board: BoardId, physical: str) -> bool:
        """A board turned by 180 degrees mid-game (auto orientation only)."""
        state = self._boards[board]
        if self.config.orientation_of(board) != "auto" or state.rotated is None:
            return False
        turned = state.occupancy.placement(rotated=not state.rotated)
        if turned != self._match.board_fen(board) or turned == physical:
            return False
        state.rotated = not state.rotated
        return True

    def _magic(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        magic = state.occupancy.magic(rotated=bool(state.rotated))
        signal = result_signal(START_PLACEMENT, magic) if magic else None
        if signal is None or signal == state.signal:
            state.signal = signal
            return []
        state.signal = signal
        message = f"Board {board}: a magic piece shows the result {signal} (a suggestion)."
        return [alert(now, board, None, AlertCode.RESULT_SIGNAL, message, result=signal)]

    def _watch(self, events: Sequence[MatchEvent]) -> None:
        """Row 17: a pending mate or a stalemate wait starts the stalling watch on its board."""
        for event in events:
            if isinstance(event, Mate | Stalemate):
                waiting = event.status in {MateStatus.PENDING, StalemateStatus.WAITING}
                state = self._boards[event.board]
                state.stall_event(WaitBegan(event.t) if waiting else WaitEnded())

    def _stalling(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        watch = state.stall
        if not isinstance(watch, Watching) or self._match.result is not None:
            return []
        due = max(watch.since, state.moved_at) + self.config.stalling_limit
        if now < due:
            return []  # ``Watching`` carries its due (``deadlines.board_dues``)
        state.stall_event(StallReported())
        color = self._match.turn(board)
        limit = self.config.stalling_limit
        stalling = stalling_alert(self._match.rules, board, color, limit, now)
        return [] if stalling is None else [stalling]

    def _press_expected(self, board: BoardId) -> bool:
        clock = self._boards[board].clock
        return clock.running_color() == self._match.turn(board)

    def _clock_expected(self, board: BoardId) -> bool:
        """A clock is there, or may be: presses can still come (not a board without a clock)."""
        last = self._boards[board].clock.last
        return last is None or not last.no_clock

    def _at_rest_now(self, board: BoardId) -> bool:
        return self._physical(board) == self._match.board_fen(board)

    def _resolved(self, board: BoardId, now: float, why: str) -> list[Outcome]:
        state = self._boards[board]
        if not state.problem:
            return []
        state.alerted.clear()
        message = why or f"Board {board} matches the game again; play goes on."
        return [
            alert(
                now,
                board,
                None,
                AlertCode.UNEXPLAINED_POSITION,
                message,
                severity=Severity.INFO,
                resolved=True,
                fen=self._match.board_fen(board),
            )
        ]

    def _once(self, board: BoardId, physical: str, event: Outcome) -> list[Outcome]:
        state = self._boards[board]
        code = getattr(event, "code", AlertCode.UNEXPLAINED_POSITION)
        if (code, physical) in state.alerted:
            return []
        state.alerted.add((code, physical))  # the board's problem, until it is resolved
        return [event]

    def _nudge(self, board: BoardId, now: float) -> list[Outcome]:
        """Read a board again that waited on the other one (``reader.Reader._nudge``)."""
        raise NotImplementedError

    def _reread(self, board: BoardId, now: float) -> list[Outcome]:
        """Read a board again now (``reader.Reader._reread``)."""
        raise NotImplementedError

    def _after_commit(
        self, board: BoardId, move: BughouseMove, events: Sequence[MatchEvent], now: float
    ) -> list[Outcome]:
        """Follow a move committed (``commit.Committer._after_commit``)."""
        raise NotImplementedError
