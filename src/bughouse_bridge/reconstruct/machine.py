"""The match reconstructor: two boards' sensor streams and clocks in, one ordered event stream out.

Theory of operation
-------------------
Each board keeps a mirror of its physical occupancy (a dump, then field updates). Nothing is ever
decided on a single field update: a board is *read* (``readings.read``) only when its placement is
settled (unchanged for ``stability_window``) or when the mover presses the clock. A reading
compares the whole placement with the match (dgt-protocol §5.6) and names what happened: a legal
move, two plies, a slide correction, the row-9 remedy, a move waiting for the other board, an
illegal change, a result signal, or nothing that explains it.

When a legal move is committed depends on the clock. Without a clock (or with a stopped clock, or
one running for the side not on move), a settled legal placement is committed at once. With a
clock running for the mover, the press commits it; a settled legal move without a press is
committed after ``no_press_commit_after`` with a ``move_without_clock`` alert.

Flags come from the clock's flag bits, timed by its countdown (``clocks.py``). A flag reported
while a press made before it still waits for its move (the scanner may report the last square
after the flag message) is held until that move is read, at most ``press_grace`` +
``stability_window``, so the move counts first. What a flag means is the rules' business
(``Match.flag``: a result, or under claims only an alert). A result never stops the reading:
both boards are read and committed after it, as before it (the arbiter may revoke it).

How firmly the last move stands is one explicit state per board (``readings.Firmness``): a move
that stood after its press, or whose reply was pressed while its piece still stood, is final and
never revised. Presses on top of one no move has matched yet are counted (``later_presses``): a
board that fell plies behind is read as exactly that many plies. A settled link gap absorbs the
presses and sensor changes before it (``_presses_absorbed``): none is read after it.

A gap nothing explains is filled as the boards stand, and that fill is a guess, treated as one:
a later settled look that does not read as a plain move solves the gap again (``_redo_fill``), a
drop its guessed pockets lack is its evidence (``_gap_supplied``), the side on move it guessed is
corrected by the first move of the other side (``_wrong_guess``). A recovery is a guess of the
same kind: the clock is not trusted as a link returns, so the shortest explanation decides the side
on move. A move of the other side before anything is committed after it disproves it: its plies
are taken back and the gap is solved again with that move on the board (``_recovery_disproved``).

Timers are deadlines: every board has at most one ``wake_at``; ``deadline()`` is the earliest and
``on_timer(now)`` re-reads the boards that are due. Re-reading is idempotent, so a board is woken
whenever in doubt. Alerts about a placement are raised once per placement.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import product
from typing import TYPE_CHECKING, TypeGuard

import chess

from bughouse_bridge.bughouse.board import pocket_letters
from bughouse_bridge.bughouse.events import (
    Alert,
    Clocks,
    ClocksStatus,
    Flag,
    LinkChanged,
    MatchEvent,
    Mate,
    MateStatus,
    MovePlayed,
    ResultDecided,
    Severity,
    Stalemate,
    StalemateStatus,
)
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.referee import arbiter_call_alert, stalling_alert
from bughouse_bridge.bughouse.rules import PromotionPolicy
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement, color_name
from bughouse_bridge.dgt.messages import (
    BoardDump,
    ClockAck,
    ClockTimes,
    FieldUpdate,
    LeverSide,
    Message,
)
from bughouse_bridge.dgt.squares import code_to_piece, field_to_square
from bughouse_bridge.reconstruct.alerts import alert, describe, fix_details
from bughouse_bridge.reconstruct.clocks import ClockTracker
from bughouse_bridge.reconstruct.gap import (
    Candidate,
    GapSolution,
    filled_positions,
    gap_details,
    order_details,
    solve_gap,
)
from bughouse_bridge.reconstruct.occupancy import (
    START_PLACEMENT,
    Occupancy,
    distance,
    result_signal,
)
from bughouse_bridge.reconstruct.outcomes import ClockReading, Outcome, RequestDump
from bughouse_bridge.reconstruct.readings import (
    Changes,
    Context,
    Correction,
    Firmness,
    Illegal,
    Legal,
    Reading,
    Remedy,
    Signal,
    Unexplained,
    Waiting,
    arrival_of,
    one_ply,
    read,
    through_passing_positions,
)
from bughouse_bridge.reconstruct.reorder import OrderedRecovery, reorder
from bughouse_bridge.reconstruct.shapes import explaining_shapes
from bughouse_bridge.reconstruct.solver.evidence import gap_evidence

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from bughouse_bridge.reconstruct.config import ReconstructorConfig

_CLOCK_SIDES = {"left": LeverSide.LEFT, "right": LeverSide.RIGHT}
_SEEN_KEPT = 64  # placements remembered since the last commit (a move makes a handful)


@dataclass(frozen=True, slots=True)
class _Press:
    t: float
    clock_ms: int | None


@dataclass(frozen=True, slots=True)
class _HeldFlag:
    """A flag reported while a press made before it still waits for its move to be read."""

    board: BoardId
    color: chess.Color
    at: float  # the clock-derived zero crossing
    seen: float  # when the flag message came


@dataclass(frozen=True, slots=True)
class _RecoveredTurn:
    """A recovery whose side on move only the shortest explanation decided (the clock is not
    trusted as a link returns): a guess until a move committed after it confirms it."""

    moves: tuple[BughouseMove, ...]  # the recovered plies, in playing order
    plies: Mapping[BoardId, int]  # each board's ply right after them (a takeback since: void)

    @property
    def boards(self) -> list[BoardId]:
        return [board for board in BoardId if board in self.plies]


@dataclass(slots=True)
class _Board:
    """Everything the reconstructor remembers about one board."""

    occupancy: Occupancy
    rotated: bool | None
    clock: ClockTracker
    connected: bool = True
    resync: bool = False
    was_lost: bool = False  # only a link that went silent can be "back"
    firmness: Firmness = Firmness.OPEN  # of the last committed move
    confirmed_at: float = 0.0  # when the last move's press came (or its commit, if pressed)
    seen: list[str] = field(default_factory=list)  # placements since the last commit, in order
    owed: int = 0  # presses still owed to the last moves (committed before their presses came)
    changed_at: float = 0.0
    press: _Press | None = None  # the side to move's press, not yet matched by a move
    later_presses: list[_Press] = field(default_factory=list)  # presses after it (replies)
    wake_at: float | None = None
    alerted: set[tuple[AlertCode, str]] = field(default_factory=set)
    problem: bool = False  # an alert about the placement is open; resolving it is announced
    stuck: bool = False  # the last reading waits on the other board (or explains nothing)
    correctable: BughouseMove | None = None
    pending: BughouseMove | None = None  # a settled legal move waiting for the press
    waiting: tuple[BughouseMove, float] | None = None  # a drop waiting for its piece, since
    trail: set[tuple[chess.Square, chess.Piece]] = field(default_factory=set)  # since commit
    changes: list[tuple[chess.Square, chess.Piece | None]] = field(default_factory=list)
    changes_of_last: Changes = ()  # the changes that led to the last commit
    parent: chess.Board | None = None  # the position before ``correctable``
    committed_ply: int = 0  # the board's ply after our last commit (an arbiter may take back)
    standing_drop: BughouseMove | None = None
    moved_at: float = 0.0
    signal: str | None = None
    stall_since: float | None = None
    stall_alerted: bool = False
    held: bool = False  # stuck while the other board's link is down: solved with its gap
    gap_open: bool = False  # back from a gap: reconciled once the placement has settled
    gap_back: float = 0.0  # when the link came back (or the resync dump arrived)
    gap_length: float = 0.0  # how long the board was unheard: from losing it (or its last change)
    lost_at: float | None = None  # when the link went silent
    turn_unknown: int | None = None  # the gap (id) that left the side on move a guess
    recovered_turn: _RecoveredTurn | None = None  # the last recovery, while nothing confirms it
    provisional: int | None = None  # the gap (id) whose fill a later settled look may redo
    provisional_until: float = 0.0
    lost_track_at: float | None = None  # the first reading of a run that commits nothing


class MatchReconstructor:
    """Pure: feed it messages, link changes and timer ticks with the time; it returns outcomes."""

    def __init__(self, match: Match, config: ReconstructorConfig) -> None:
        self._match = match
        self.config = config
        self._boards = {board: self._fresh_board(board) for board in BoardId}
        self._both_stopped = False
        self._held_flags: list[_HeldFlag] = []
        self._gaps: dict[int, GapSolution] = {}  # gaps left to the arbiter, by id
        self._gap_targets: dict[int, dict[BoardId, str]] = {}  # the placements each was set to
        # Boards recovered by a shortest explanation whose confirmation ran out of work: their
        # pockets (a drop taken at once) and side on move may still be wrong.
        self._unconfirmed: set[BoardId] = set()
        self._gap_count = 0
        self._orders: dict[
            int, OrderedRecovery
        ] = {}  # issue 19: recoveries the arbiter may re-order

    @property
    def match(self) -> Match:
        return self._match

    # -- the public doors ------------------------------------------------------------------

    def on_message(self, board: BoardId, message: Message, now: float) -> list[Outcome]:
        state = self._boards[board]
        if isinstance(message, FieldUpdate):
            if state.occupancy.update(message):
                self._changed(board, now)
                self._remember(board, message)
                self._note_placement(board)
            return []
        if isinstance(message, BoardDump):
            return self._on_dump(board, message, now)
        if isinstance(message, ClockTimes):
            return self._on_clock(board, message, now)
        if isinstance(message, ClockAck) and message.clock_type is not None:
            state.clock.model = message.clock_type  # how its face shows the last second
        return []

    def process_restarted(self) -> None:
        """A new process took over from the journal: the old one's links died with it, so no
        board is read (no timer commits a move whose press nobody saw) until its link is back
        and its dump has been checked against the game. Quiet: the restart is announced on the
        bridge's status topic, and a board that comes back like this is no ``link_back``."""
        for state in self._boards.values():
            state.connected = False
            state.press = None
            state.later_presses.clear()

    def on_link_state(self, board: BoardId, connected: bool, now: float) -> list[Outcome]:  # noqa: FBT001 - the shell's documented signature
        state = self._boards[board]
        state.connected = connected
        link = str(board)
        if not connected:
            state.press = None
            state.later_presses.clear()
            state.was_lost = True
            state.lost_at = now
            message = f"Board {board} and its clock went silent; moves there are not seen."
            return [
                LinkChanged(now, link, "disconnected"),
                alert(now, board, None, AlertCode.LINK_LOST, message),
            ]
        state.resync = True
        state.clock.link_returned()
        if not state.was_lost:
            return [LinkChanged(now, link, "connected"), RequestDump(board)]
        message = f"Board {board} is back; its position is checked against the game."
        return [
            LinkChanged(now, link, "connected"),
            alert(now, board, None, AlertCode.LINK_BACK, message),
            RequestDump(board),
        ]

    def on_timer(self, now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for board, state in self._boards.items():
            if state.wake_at is not None and state.wake_at <= now:
                out += self._evaluate(board, now)
        return out + self._release_flags(now)

    def deadline(self) -> float | None:
        wakes = [state.wake_at for state in self._boards.values() if state.wake_at is not None]
        wakes += [held.seen + self._flag_hold for held in self._held_flags]
        return min(wakes, default=None)

    def accept(self, board: BoardId, now: float) -> list[Outcome]:
        """The arbiter declares the physical position right: play the one move that explains it
        (forced), or else the placement becomes that board's position (``Match.accept_placement``:
        its log and ply numbering go on, the other board and the pockets stay).
        ValueError when the placement cannot be a position (no king, two kings)."""
        physical = self._physical(board)
        if physical is None or physical == self._match.board_fen(board):
            return []
        for move, _color, _judgement in one_ply(self._match, board, self._placements()):
            try:
                events = self._match.play(move, t=now, force=True)
            except ValueError:
                continue
            return self._after_commit(board, move, events, now)
        accepted: list[Outcome] = [*self._match.accept_placement(board, physical, t=now)]
        return accepted + self._resolved(board, now, "the arbiter accepted the position")

    # -- the arbiter's changes: the only doors through which a game changes off the boards ----
    # Each returns the match's events; a board is read again when its sensors next change, as
    # after any change of the game (a taken-back move still standing must not be re-committed
    # before the players restore the position).

    def takeback(self, board: BoardId, now: float) -> list[Outcome]:
        """The board's last ply is taken back (``Match.takeback``); ValueError if it cannot be."""
        return self._arbiter_events(self._match.takeback(board, t=now))

    def set_pocket(
        self, board: BoardId, color: chess.Color, pieces: str, now: float
    ) -> list[Outcome]:
        """That pocket is exactly ``pieces`` (``Match.set_pocket``); ValueError for bad letters."""
        return self._arbiter_events(self._match.set_pocket(board, color, pieces, t=now))

    def set_result(
        self, winner_team: int | None, board: BoardId, reason: str, now: float
    ) -> list[Outcome]:
        """The arbiter's decision (``Match.set_result``); ValueError for a bad winner."""
        return self._arbiter_events(self._match.set_result(winner_team, board, reason, t=now))

    def revoke_result(self, now: float, reason: str = "") -> list[Outcome]:
        """The result is withdrawn (``Match.revoke_result``); ValueError without one."""
        return self._arbiter_events(self._match.revoke_result(t=now, reason=reason))

    def confirm_claim(
        self, board: BoardId, color: chess.Color, claim: str, now: float, at: float
    ) -> list[Outcome]:
        """A claim the arbiter confirms (``Match.confirm_claim``); ValueError if unsupported."""
        events = self._match.confirm_claim(board, color, claim, t=now, at=at)
        return self._arbiter_events(events)

    def _arbiter_events(self, events: Sequence[MatchEvent]) -> list[Outcome]:
        self._watch(events)
        return list(events)

    def new_game(self, now: float, fens: Mapping[BoardId, str] | None = None) -> list[Outcome]:
        """A new game on both boards: from the standard start or from ``fens`` (the configured
        start position), every reading state fresh, the boards read again as they stand."""
        self._match = Match(self._match.rules, fens=fens)
        self._both_stopped = False
        self._held_flags = []
        self._gaps, self._gap_targets, self._unconfirmed = {}, {}, set()
        self._gap_count = 0
        self._orders = {}  # issue 19
        for board in BoardId:
            occupancy, model = self._boards[board].occupancy, self._boards[board].clock.model
            self._boards[board] = self._fresh_board(board)
            self._boards[board].occupancy = occupancy
            self._boards[board].clock.model = model
            self._boards[board].changed_at = now
        return [outcome for board in BoardId for outcome in self._evaluate(board, now)]

    def shows_start_position(self) -> bool:
        """Both boards physically stand in the start position (the hall's automatic new game)."""
        return all(
            self._boards[board].occupancy.known and self._physical(board) == START_PLACEMENT
            for board in BoardId
        )

    # -- messages ----------------------------------------------------------------------------

    def _fresh_board(self, board: BoardId) -> _Board:
        orientation = self.config.orientation_of(board)
        rotated = None if orientation == "auto" else orientation == "rotated"
        side = _CLOCK_SIDES.get(self.config.clock_side_of(board))
        return _Board(Occupancy(), rotated, ClockTracker(side))

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
            del state.changes[:-_SEEN_KEPT]

    def _note_placement(self, board: BoardId) -> None:
        state = self._boards[board]
        placement = self._physical(board)
        if placement is not None and (not state.seen or state.seen[-1] != placement):
            state.seen.append(placement)
            del state.seen[:-_SEEN_KEPT]

    def _changed(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.changed_at = now
        state.wake_at = now + self.config.stability_window

    def _on_dump(self, board: BoardId, dump: BoardDump, now: float) -> list[Outcome]:
        state = self._boards[board]
        changed = state.occupancy.load(dump)
        self._physical(board)  # an orientation is best detected on a fresh dump
        if state.resync:
            # A hand may be over the board as the link returns: reconcile a settled placement.
            state.resync = False
            state.gap_open = True
            state.gap_back = now
            unheard_since = state.changed_at if state.lost_at is None else state.lost_at
            state.gap_length, state.lost_at = now - unheard_since, None
            self._changed(board, now)
            return []
        if changed:
            self._changed(board, now)
        return []

    def _on_clock(self, board: BoardId, times: ClockTimes, now: float) -> list[Outcome]:
        state = self._boards[board]
        turn = self._match.turn(board)
        at_rest = state.clock.white_side is None and self._at_rest_now(board)
        presser = self._owed_presser(board) if state.owed else turn
        baseline = state.clock.last is None
        update = state.clock.feed(times, now, turn=turn, at_rest=at_rest, presser=presser)
        if baseline and not (state.resync or state.gap_open):
            self._press_still_owed(board)
        out: list[Outcome] = []
        if update.reading is not None:
            out.append(ClockReading(now, board, *update.reading))
        if update.pressed_by is not None and state.owed and update.pressed_by == presser:
            self._paid(board, now)  # the late press of a move already committed
        elif update.pressed_by is not None and state.press is not None:
            # A press on top of one no move has matched yet: the board is plies behind.
            state.later_presses.append(_Press(now, update.press_ms))
            out += self._evaluate(board, now, pressed_now=True)
        elif update.pressed_by is not None and update.pressed_by == turn:
            state.owed = 0
            self._final_on_reply(board)
            state.press = _Press(now, update.press_ms)
            out += self._on_press(board, now)
        elif update.pressed_by is not None:
            state.owed = 0
            self._confirmed_late(board, now)
        for color, at in update.flags:
            self._held_flags.append(_HeldFlag(board, color, at, now))
            if color == turn:  # the flagged player's last placement may still be reported
                self._wake(board, now + self.config.stability_window)
        return out + self._release_flags(now) + self._both_clocks(now)

    def _on_press(self, board: BoardId, now: float) -> list[Outcome]:
        """Commit at once. If the board already moved on past a settled legal move (the
        opponent reaching for a piece before the press message came), that move was it, unless
        its piece has left its square: the mover's slide going on, or the opponent lifting it
        to capture, which later plies (and their presses) tell apart."""
        state = self._boards[board]
        pending = state.pending
        out = self._evaluate(board, now, pressed_now=True)
        press = state.press
        if pending is None or press is None or not self._match.judge(pending).legal:
            return out
        if not self._still_standing(board, pending):
            return out
        out += self._commit(board, pending, now, clock_ms=press.clock_ms)
        return out + self._evaluate(board, now)

    @property
    def _flag_hold(self) -> float:
        """How long a flag waits for the move of a press that came before it."""
        return self.config.press_grace + self.config.stability_window

    def _release_flags(self, now: float, *, before: BoardId | None = None) -> list[Outcome]:
        """Decisions in physical time (rules note I): a flag counts at the clock's own zero
        crossing, not when its message came. It waits while a move that may have come first is
        still on its way: a press made before the flag message whose move the scanner has not
        reported yet, or a placement of the flagged side set down before the zero crossing and
        not settled yet (it may be a mating move, which needs no press: FIDE blitz 6.2.1).
        ``before``: a move on that board is about to be committed; the flags that fell before
        it was made are released first."""
        out: list[Outcome] = []
        for held in list(self._held_flags):
            if before is not None:
                if not self._fell_before(held, before):
                    continue
            elif self._flag_waits(held, now):
                continue
            self._held_flags.remove(held)
            out += self._flag(held.board, held.color, now, held.at)
        return out

    def _flag_waits(self, held: _HeldFlag, now: float) -> bool:
        if self._press_open(held.seen) and now < held.seen + self._flag_hold:
            return True
        return self._placed_before(held, now)

    def _placed_before(self, held: _HeldFlag, now: float) -> bool:
        """The flagged player's board shows a placement his hand may have left before the flag
        fell, not settled yet: it is read first."""
        state = self._boards[held.board]
        if not state.connected or self._match.turn(held.board) != held.color:
            return False
        if now < held.seen + self.config.stability_window:
            return True  # its last square may not have been scanned yet
        if self._placed_at(held.board) > held.at or self._at_rest_now(held.board):
            return False
        return now < state.changed_at + self.config.stability_window

    def _placed_at(self, board: BoardId) -> float:
        """The earliest moment the board's last sensor change can have happened: the scanner
        reports a square up to one full scan (``stability_window``) after the hand left it.
        The flag's moment is an upper bound (the countdown polled every 0.25 s): a placement
        reported less than a scan after it may have come first, and a mate, which needs no
        press, is given that benefit (rules note I)."""
        return self._boards[board].changed_at - self.config.stability_window

    def _press_open(self, before: float) -> bool:
        return any(
            state.press is not None and state.press.t <= before for state in self._boards.values()
        )

    def _flag(self, board: BoardId, color: chess.Color, now: float, at: float) -> list[Outcome]:
        events = self._match.flag(board, color, t=now, at=at)
        if any(isinstance(event, Flag) for event in events):
            return list(events)
        return [Flag(now, board, color, at), *events]

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

    # -- reading a board -------------------------------------------------------------------

    def _evaluate(
        self, board: BoardId, now: float, *, pressed_now: bool = False, cascade: bool = True
    ) -> list[Outcome]:
        state = self._boards[board]
        state.wake_at = None
        if not state.occupancy.known or not state.connected:
            return []  # a board whose link is down is read again when it is back
        if state.gap_open:
            return self._settle_gap(board, now)
        physical = self._physical(board)
        out = self._magic(board, now)
        if physical is None:
            out += self._unknown_orientation(board, now)
        elif physical == self._match.board_fen(board):
            out += self._at_rest(board, now)
        elif now < state.changed_at + self.config.stability_window and not pressed_now:
            self._wake(board, state.changed_at + self.config.stability_window)
        else:  # also after a result: it never blinds the bridge (the arbiter may revoke it)
            out += self._act(board, physical, now, cascade=cascade)
        return out + self._stalling(board, now)

    def _act(self, board: BoardId, physical: str, now: float, *, cascade: bool) -> list[Outcome]:
        state = self._boards[board]
        if state.waiting is not None and self._no_drop_after_all(board, state.waiting[0], physical):
            state.waiting = None
        if state.waiting is not None:
            return self._overdue_drop(board, now) or self._read(board, physical, now, cascade)
        return self._read(board, physical, now, cascade)

    def _no_drop_after_all(self, board: BoardId, drop: BughouseMove, physical: str) -> bool:
        """The piece of a waiting drop has left its square and one move of the side on move
        from the game explains the board: it was set down on its way, no drop (a rook slid
        d1-d2-...-d7, set down on d2 before it left d1). A drop whose piece moved on in a
        later ply (P@g5, a reply, gxf6) is not explained so, and still waits."""
        if chess.BaseBoard(physical).piece_at(drop.move.to_square) is not None:
            return False
        return any(
            successor.placements.get(board) == physical
            for successor in self._match.successors(board)
        )

    def _overdue_drop(self, board: BoardId, now: float) -> list[Outcome]:
        """A drop whose piece never came stands once its grace is over, even if the opponent
        has replied on top of it meanwhile (then the reply reads as the next move)."""
        state = self._boards[board]
        assert state.waiting is not None
        move, since = state.waiting
        judgement = self._match.judge(move)
        if judgement.code is not AlertCode.DROP_NOT_IN_POCKET:
            state.waiting = None
            return []
        if now < since + self.config.drop_grace:
            self._wake(board, since + self.config.drop_grace)
            return []
        press = state.press
        clock_ms = press.clock_ms if press is not None else None
        out = self._commit(board, move, now, clock_ms=clock_ms, standing=judgement)
        return out + self._evaluate(board, now)

    def _read(self, board: BoardId, physical: str, now: float, cascade: bool) -> list[Outcome]:  # noqa: FBT001
        state = self._boards[board]
        if self._flipped(board, physical):
            return self._at_rest(board, now)
        # No takeback by the arbiter since, and the last move not yet final.
        final = state.firmness is Firmness.FINAL
        unchanged = self._match.ply(board) == state.committed_ply
        ours = unchanged and not final
        context = Context(
            now,
            state.correctable if ours else None,
            state.parent if ours else None,
            # An illegal drop stands until the opponent takes it off (row 9), however long it
            # stood: its removal is the opponent's move, not a revision of the drop.
            state.standing_drop if unchanged else None,
            pressed=state.press is not None,
            presses=1 + len(state.later_presses) if state.press is not None else 0,
            pending=state.pending,
            trail=frozenset(state.trail),
            changes=tuple(state.changes),
            changes_of_last=state.changes_of_last if ours else (),
            firmness=state.firmness if ours else Firmness.FINAL,
        )
        reading = read(self._match, board, self._placements(), context)
        if isinstance(reading, Unexplained):
            placements = self._placements()
            passing = through_passing_positions(
                self._match, board, placements, state.seen, now, tuple(state.changes)
            )
            reading = passing or reading
        following = not isinstance(reading, Unexplained | Illegal | Waiting)
        if following:
            state.lost_track_at = None
        elif state.lost_track_at is None:
            state.lost_track_at = now
        if self._hold(board, reading):
            return []
        if self._wrong_guess(board, reading):
            return self._read(board, physical, now, cascade)
        disproved = self._recovery_disproved(board, reading, now)
        if disproved is not None:
            return disproved
        redone = self._redo_fill(board, reading, now)
        if redone is not None:
            return redone
        state.stuck = isinstance(reading, Waiting | Unexplained | Illegal)
        out = self._handler(reading)(board, reading, physical, now)
        # The other board may be the one waiting (a drop's piece, a steal's removal).
        return out + self._nudge(board.other, now) if cascade else out

    def _nudge(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        if not state.stuck:
            return []
        state.stuck = False
        return self._evaluate(board, now, cascade=False)

    def _handler(self, reading: Reading) -> Callable[[BoardId, Reading, str, float], list[Outcome]]:
        handlers: dict[type, Callable[[BoardId, Reading, str, float], list[Outcome]]] = {
            Legal: self._on_legal,
            Correction: self._on_correction,
            Remedy: self._on_remedy,
            Waiting: self._on_waiting,
            Illegal: self._on_illegal,
            Signal: self._on_signal,
            Unexplained: self._on_unexplained,
        }
        return handlers[type(reading)]

    def _on_legal(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Legal)
        state = self._boards[board]
        if reading.several:
            return self._commit_several(board, reading.moves, physical, now)
        move = reading.moves[0]
        if reading.standing is not None and self._hand_may_be_on_it(board, now):
            return []
        # A flag of the mover's fell meanwhile: a mating move set down before it decides.
        ends = self._flag_held(board) and reading.standing is None and self._ends_the_game(move)
        if state.press is not None or not self._press_expected(board) or ends:
            clock_ms = state.press.clock_ms if state.press is not None else None
            return self._commit(board, move, now, clock_ms=clock_ms, standing=reading.standing)
        due = state.changed_at + self.config.no_press_commit_after
        if now < due:
            state.pending = move
            self._wake(board, due)
            return []
        color = self._match.turn(board)
        mates = reading.standing is None and self._ends_the_game(move)
        out = self._commit(board, move, now, clock_ms=None, standing=reading.standing)
        return out if mates else [*out, self._no_press_alert(board, move, color, now)]

    def _flag_held(self, board: BoardId) -> bool:
        """A flag of the side on move on ``board`` waits to be published."""
        turn = self._match.turn(board)
        return any(held.board == board and held.color == turn for held in self._held_flags)

    def _ends_the_game(self, move: BughouseMove) -> bool:
        """The move mates for good: it needs no press (FIDE blitz 6.2.1 "unless the move that
        was made ends the game", 5.1.1; DSB 2.1, Olite 1). With its mover's flag fallen it is
        committed as soon as its placement has settled (the flag waits for it); without, it
        still waits for its press like any move, so that a move on the other board pressed
        before it comes first, but is not alerted as a move without a press."""
        position = self._match.position(move.board)
        position.push(move.move)
        if not position.is_checkmate():
            return False
        trial = self._match.copy()
        try:
            events = trial.play(move, t=0.0)
        except ValueError:
            return False
        return any(
            isinstance(event, ResultDecided)
            or (isinstance(event, Mate) and event.status is MateStatus.FINAL)
            for event in events
        )

    def _hand_may_be_on_it(self, board: BoardId, now: float) -> bool:
        """An illegal drop pressed early stands only once the hand is surely off it: a piece
        held over a neighbouring square, or set down there, is slid in after the press."""
        state = self._boards[board]
        if state.press is None:
            return False
        due = max(state.changed_at, state.press.t) + self.config.press_grace
        if now < due:
            self._wake(board, due)
            return True
        return False

    def _commit_several(
        self, board: BoardId, moves: Sequence[BughouseMove], physical: str, now: float
    ) -> list[Outcome]:
        state = self._boards[board]
        expected = self._press_expected(board) and state.press is None
        color = self._match.turn(board)
        out: list[Outcome] = []
        for move in moves:
            if self._match.board_fen(board) == physical:  # the reply vanished meanwhile
                break
            clock_ms = state.press.clock_ms if state.press is not None else None
            out += self._commit(board, move, now, clock_ms=clock_ms)
        return out + ([self._no_press_alert(board, moves[0], color, now)] if expected else [])

    def _no_press_alert(
        self, board: BoardId, move: BughouseMove, color: chess.Color, now: float
    ) -> Outcome:
        message = (
            f"Board {board}: {color_name(color)} played {move.uci} without pressing the clock."
        )
        return alert(now, board, color, AlertCode.MOVE_WITHOUT_CLOCK, message, move=move.uci)

    def _on_correction(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Correction)
        state = self._boards[board]
        clock_ms = state.press.clock_ms if state.press is not None else None
        events = list(self._match.takeback(board, t=now))
        parent = self._match.position(board)
        replacement, *reply = reading.moves
        pressed, owed = state.firmness.pressed_not_final, state.owed
        try:
            events += self._match.play(replacement, t=now, clock_ms=clock_ms)
        except ValueError:
            return [*events, *self._on_unexplained(board, Unexplained(), physical, now)]
        out = self._after_commit(board, replacement, events, now)
        state.parent = parent
        if pressed and state.firmness is Firmness.OPEN:
            # The replacement completes a pressed move: pressed, not yet standing.
            state.firmness, state.owed = Firmness.PRESSED, owed
            self._wake(board, now + self.config.press_grace)
        for move in reply:
            out += self._commit(board, move, now, clock_ms=None)
        return out

    def _on_remedy(
        self,
        board: BoardId,
        reading: Reading,
        physical: str,  # noqa: ARG002 - the handlers' common signature
        now: float,
    ) -> list[Outcome]:
        assert isinstance(reading, Remedy)
        state = self._boards[board]
        events: list[Outcome] = list(self._match.remove_illegal_drop(board, t=now))
        state.standing_drop = None
        if not any(
            getattr(event, "code", None) is AlertCode.ILLEGAL_DROP_REMOVED for event in events
        ):
            message = f"Board {board}: the illegal drop was taken off the board (row 9)."
            events.append(
                alert(
                    now,
                    board,
                    self._match.turn(board),
                    AlertCode.ILLEGAL_DROP_REMOVED,
                    message,
                    rule=self._match.rules.ref(9),
                )
            )
        if reading.then is None:
            state.correctable = None
            return [*events, *self._resolved(board, now, "")]
        return [*events, *self._commit(board, reading.then, now, clock_ms=None)]

    def _commit(
        self,
        board: BoardId,
        move: BughouseMove,
        now: float,
        *,
        clock_ms: int | None,
        standing: Judgement | None = None,
    ) -> list[Outcome]:
        parent = self._match.position(board)
        earlier = self._release_flags(now, before=board)
        supplied = self._gap_supplied(board, move, standing, now)
        if supplied is not None:
            standing = None
        try:
            events = list(
                self._match.play(move, t=now, clock_ms=clock_ms, force=standing is not None)
            )
        except ValueError as error:
            message = f"Board {board}: {move.uci} could not be played ({error})."
            return [
                *earlier,
                alert(now, board, None, AlertCode.ILLEGAL_MOVE, message, move=move.uci),
            ]
        if standing is not None and not _has_alert(events, standing.code):
            events.append(self._standing_alert(board, move, standing, now))
        if supplied is not None:
            events = [*supplied, *events]
        out = self._after_commit(board, move, events, now)
        state = self._boards[board]
        state.standing_drop = move if standing is not None else None
        state.correctable = None if standing is not None else move
        state.parent = parent
        return earlier + out

    def _fell_before(self, held: _HeldFlag, board: BoardId) -> bool:
        """The flag fell before the move about to be committed on ``board`` was made: the move
        was not pressed before the flag's message came, and its placement's last sensor change
        came after the flag. Against a flag of its own board's clock the placement is allowed
        its scan (``_placed_at``); across the boards the messages' order stands."""
        state = self._boards[board]
        if state.press is not None and state.press.t <= held.seen:
            return False
        placed = self._placed_at(board) if board == held.board else state.changed_at
        return held.at <= placed

    def _standing_alert(
        self, board: BoardId, move: BughouseMove, standing: Judgement, now: float
    ) -> Alert:
        code = standing.code or AlertCode.ILLEGAL_MOVE
        color = not self._match.turn(board)
        message = (
            f"Board {board}: {describe(move, color)} is illegal ({standing.message}); it stands "
            "unless the opponent takes the piece off (row 9)."
        )
        return alert(now, board, color, code, message, rule=standing.rule, move=move.uci)

    def _after_commit(
        self, board: BoardId, move: BughouseMove, events: Sequence[MatchEvent], now: float
    ) -> list[Outcome]:
        state = self._boards[board]
        unpressed = state.press is None and self._clock_expected(board)
        state.owed = state.owed + 1 if unpressed else 0
        state.firmness = self._firmness_at_commit(board, now)
        state.confirmed_at = now
        if state.firmness is not Firmness.OPEN:
            self._wake(board, now + self.config.press_grace)  # to see it stand
        state.press = state.later_presses.pop(0) if state.later_presses else None
        state.pending = None
        state.waiting = None
        state.trail.clear()
        # Changes after the move's piece arrived belong to what follows (a reply made on top of
        # a drop that waited for its piece): they stay to be read as the next plies.
        square = move.move.to_square
        arrival = (square, self._match.position(board).piece_at(square))
        state.changes_of_last, state.changes = _split_after(state.changes, arrival)
        state.seen.clear()
        state.committed_ply = self._match.ply(board)
        state.recovered_turn = None  # a move after a recovery confirms its side on move
        state.moved_at = now
        state.stall_alerted = False
        state.correctable = move
        state.parent = None
        state.stuck = False
        self._watch(events)
        out: list[Outcome] = [*events, *self._resolved(board, now, "")]
        if move.is_steal:
            self._boards[board.other].stuck = True
        return out + self._nudge(board.other, now)

    def _on_waiting(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Waiting)
        state = self._boards[board]
        if state.waiting is None or state.waiting[0] != reading.move:
            state.waiting = (reading.move, state.changed_at)
        due = state.waiting[1] + self.config.drop_grace
        if now < due:
            self._wake(board, due)
            return []
        code = reading.judgement.code or AlertCode.DROP_NOT_IN_POCKET
        if code is AlertCode.DROP_NOT_IN_POCKET:
            # Past the grace the drop stands (an illegal move stands unless the arbiter acts);
            # otherwise a board would wait forever on a capture that never comes.
            press = self._boards[board].press
            clock_ms = press.clock_ms if press is not None else None
            return self._commit(
                board, reading.move, now, clock_ms=clock_ms, standing=reading.judgement
            )
        color = self._match.turn(board)
        what = describe(reading.move, color)
        message = f"Board {board}: {what} but no piece was taken from board {board.other}."
        event = alert(
            now,
            board,
            color,
            code,
            message,
            rule=reading.judgement.rule,
            move=reading.move.uci,
            **fix_details(physical, self._match.board_fen(board)),
        )
        return self._once(board, physical, event)

    def _on_illegal(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Illegal)
        state = self._boards[board]
        # A press reports an illegal move sooner, yet not at once: the press may come before the
        # mover's hand is done (a piece set down next to its square, then slid in).
        due = state.changed_at + self.config.illegal_after
        if state.press is not None:
            due = min(due, max(state.changed_at, state.press.t) + self.config.press_grace)
        if state.waiting is not None:
            # A drop waits for its piece and the opponent has replied on top of it: once the
            # drop stands (``_overdue_drop``) the reply reads as the next move, not a wrong turn.
            due = max(due, state.waiting[1] + self.config.drop_grace)
        if now < due:
            self._wake(board, due)
            return []
        judgement = reading.judgement
        code = judgement.code or AlertCode.ILLEGAL_MOVE
        what = describe(reading.move, reading.color)
        if code is AlertCode.WRONG_TURN:
            turn = color_name(self._match.turn(board))
            message = f"Board {board}: {what}, but {turn} is on move."
        else:
            reason = f" ({judgement.message})" if judgement.message else ""
            message = f"Board {board}: {what} is not a legal move{reason}."
        details = fix_details(physical, self._match.board_fen(board))
        if code is AlertCode.ILLEGAL_MOVE and (code, physical) not in state.alerted:
            claim, claim_details = self._match.note_illegal(
                board, reading.color, reading.move.uci, t=now
            )
            message += claim
            details.update(claim_details)
        event = alert(
            now,
            board,
            reading.color,
            code,
            message,
            rule=judgement.rule,
            move=reading.move.uci,
            **details,
        )
        return self._once(board, physical, event)

    def _on_signal(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Signal)
        message = f"Board {board}: the kings show the result {reading.result} (a suggestion)."
        event = alert(now, board, None, AlertCode.RESULT_SIGNAL, message, result=reading.result)
        return self._once(board, physical, event)

    def _on_unexplained(
        self,
        board: BoardId,
        reading: Reading,  # noqa: ARG002 - the handlers' common signature
        physical: str,
        now: float,
    ) -> list[Outcome]:
        state = self._boards[board]
        if board in self._guessed():
            # The board's position is a gap's guess (or follows from one): a board that stays
            # unexplained is more of the gap, not a fault of the players; it is solved from the
            # game as it stands, so the broadcast never stays behind the board. Timed from the
            # first reading that committed nothing, not from the last change: in fast play the
            # placement changes every second or two, and would never stand unexplained so long.
            since = state.changed_at if state.lost_track_at is None else state.lost_track_at
            due = since + self.config.unexplained_limit
            if now < due:
                self._wake(board, due)
                return []
            return self._reconcile(board, now)
        due = state.changed_at + self.config.unexplained_limit
        if now < due:
            self._wake(board, due)
            return []
        return self._once(board, physical, self._unexplained_alert(board, physical, now, ""))

    def _unexplained_alert(self, board: BoardId, physical: str, now: float, reason: str) -> Outcome:
        target, label = self._nearest(board, physical)
        details = fix_details(physical, target)
        todo = ", ".join(details["fix"])
        message = f"Board {board}: no legal move explains the position; to reach {label}: {todo}."
        return alert(
            now,
            board,
            self._match.turn(board),
            AlertCode.UNEXPLAINED_POSITION,
            message,
            reason=reason or "no legal continuation",
            nearest=label,
            **details,
        )

    def _nearest(self, board: BoardId, physical: str) -> tuple[str, str]:
        """The placement closest to the physical one: the game's, or one legal move away."""
        best = (self._match.board_fen(board), "the game position")
        best_distance = distance(physical, best[0])
        for successor in self._match.successors(board):
            placement = successor.placements.get(board)
            if placement is not None and distance(physical, placement) < best_distance:
                best = (placement, f"the game after {successor.move.uci}")
                best_distance = distance(physical, placement)
        return best

    def _moved_in_passing(self, board: BoardId) -> bool:
        """Since the last commit the board showed a legal move of the side to move (for less
        than the stability window): the press was for it, the board went back under the
        opponent's hand (a victim lifted first and held)."""
        state = self._boards[board]
        placements = self._placements()
        turn = self._match.turn(board)
        for placement in set(state.seen):
            readings = one_ply(self._match, board, {**placements, board: placement})
            if any(color == turn and judgement.legal for _move, color, judgement in readings):
                return True
        return False

    def _still_standing(self, board: BoardId, move: BughouseMove) -> bool:
        """The piece ``move`` (not played yet) puts down is on its target square now."""
        return self._stands(board, arrival_of(self._match.position(board), move.move))

    def _still_standing_after(self, board: BoardId, move: BughouseMove) -> bool:
        """The piece the last move put down is on its target square now."""
        square = move.move.to_square
        return self._stands(board, (square, self._match.position(board).piece_at(square)))

    def _stands(self, board: BoardId, arrival: tuple[chess.Square, chess.Piece | None]) -> bool:
        physical = self._physical(board)
        if physical is None or arrival[1] is None:
            return False
        return chess.BaseBoard(physical).piece_at(arrival[0]) == arrival[1]

    def _firmness_at_commit(self, board: BoardId, now: float) -> Firmness:
        state = self._boards[board]
        if state.press is None:
            return Firmness.OPEN
        if now < state.changed_at + self.config.stability_window:
            return Firmness.HASTY
        return Firmness.PRESSED

    def _confirmed_late(self, board: BoardId, now: float) -> None:
        """The press of a move committed before it came: the move now waits to stand."""
        state = self._boards[board]
        if state.firmness is Firmness.OPEN:
            state.firmness = Firmness.PRESSED
            state.confirmed_at = now
            self._wake(board, now + self.config.press_grace)

    def _owed_presser(self, board: BoardId) -> chess.Color:
        """Who owes the next press: the mover of the oldest move committed before its press."""
        turn = self._match.turn(board)
        return (not turn) if self._boards[board].owed % 2 else turn

    def _paid(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.owed -= 1
        if not state.owed:
            self._confirmed_late(board, now)

    def _final_on_reply(self, board: BoardId) -> None:
        """The opponent pressed his reply: a last move whose piece still stands on its square
        is final (what the hands do from now on is the reply, or the next move)."""
        state = self._boards[board]
        last = state.correctable
        pressed = state.firmness.pressed_not_final
        if pressed and last is not None and self._still_standing_after(board, last):
            state.firmness = Firmness.FINAL

    def _firm_up(self, board: BoardId, now: float) -> None:
        """A pressed move that has stood ``press_grace`` on the board since its press (so while
        the opponent's clock ran) is final; ``press_grace`` also covers a scanner that lags."""
        state = self._boards[board]
        if not state.firmness.pressed_not_final:
            return
        due = max(state.changed_at, state.confirmed_at) + self.config.press_grace
        if now >= due:
            state.firmness = Firmness.FINAL
        else:
            self._wake(board, due)

    def _at_rest(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        state.stuck = False
        self._firm_up(board, now)
        state.waiting = None
        if now >= state.changed_at + self.config.stability_window:
            state.pending = None  # the mover took the move back
        out = self._resolved(board, now, "")
        if state.press is None:
            return out
        due = state.press.t + self.config.press_grace
        if now < due:
            self._wake(board, due)
            return out
        if self._moved_in_passing(board):
            return out  # the move was shown, then its piece lifted by the opponent to capture it
        state.press = None
        state.later_presses.clear()
        if state.turn_unknown is not None:
            # After a gap nothing explained, the side on move was a guess: a press with no move
            # of the side thought on move is the end of the last ply of the gap (its mover
            # pressing late), so the other side is on move.
            self._flip_guess(board, state.turn_unknown)
            return out
        color = self._match.turn(board)
        message = f"Board {board}: {color_name(color)} pressed the clock without moving."
        return [*out, alert(now, board, color, AlertCode.CLOCK_WITHOUT_MOVE, message)]

    def _resolved(self, board: BoardId, now: float, why: str) -> list[Outcome]:
        state = self._boards[board]
        state.alerted.clear()
        if not state.problem:
            return []
        state.problem = False
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
        state.alerted.add((code, physical))
        state.problem = True
        return [event]

    # -- reconnect, orientation, magic pieces, stalling ------------------------------------

    def _settle_gap(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        due = state.changed_at + self.config.stability_window
        if now < due:
            self._wake(board, due)
            return []
        state.gap_open = False
        return self._reconcile(board, now)

    def _explain_later(self, board: BoardId, solution: GapSolution, now: float) -> bool:
        """Nothing explains what the board shows as it comes back: as in normal reading, an
        unexplained placement is given ``unexplained_limit`` before anyone is told — the dump
        often catches a hand in the middle of a move (a piece lifted, its square empty), which no
        sequence of whole plies leads to. The gap stays open and the next settled placement is
        tried; after the limit the position is published as it stands. Only after a short gap
        (a restart, a cable reseated): there the plies missed are few, so an answer that fails is
        a hand in motion; after a long one, waiting would only let more plies pile up."""
        state = self._boards[board]
        short = state.gap_length < self.config.unexplained_limit
        if solution.unique is not None or solution.candidates or not short:
            return False
        deadline = state.gap_back + self.config.unexplained_limit
        if now >= deadline:
            return False
        state.gap_open = True
        self._wake(board, deadline)
        return True

    def _wrong_guess(self, board: BoardId, reading: Reading) -> bool:
        """After a gap nothing explained, the side on move was a guess: the first move of the
        other side corrects it (the gap's log entry is amended)."""
        state = self._boards[board]
        gap = state.turn_unknown
        if isinstance(reading, Legal | Correction | Remedy):
            state.turn_unknown = None  # the guess was right
        if gap is None or not _wrong_turn(reading):
            return False
        self._flip_guess(board, gap)
        return True

    def _flip_guess(self, board: BoardId, gap: int) -> None:
        self._boards[board].turn_unknown = None
        if gap in self._match.open_gaps():
            self._match.gap_turn(gap, board, not self._match.turn(board))

    def _turn_guessed(self, candidate: Candidate) -> None:
        """The plies just recovered are the shortest explanation, and so is the side on move
        they leave: a guess on every board they were played on, until a move confirms it."""
        plies = {move.board: self._match.ply(move.board) for move in candidate.moves}
        guess = _RecoveredTurn(candidate.moves, plies)
        for b in guess.boards:
            self._boards[b].recovered_turn = guess

    def _recovery_disproved(
        self, board: BoardId, reading: Reading, now: float
    ) -> list[Outcome] | None:
        """Nothing committed since a recovery, and the other side has moved (a wrong turn): the
        gap had a ply more (or fewer) than its shortest explanation. The recovered plies are
        taken back (``takeback`` events) and the gap is solved again from the game before them,
        to the same placements, now with the side on move the move shows: its mover's (the
        solver then searches only plies of that parity, fewer than the placement with the move
        on it would need). Recovered (published ``recovered``, ply numbers continuing; the move
        is then read as usual) or left to the arbiter, as after any gap. ``None``: no such
        recovery, or it cannot be taken back; read as usual."""
        guess = self._boards[board].recovered_turn
        if guess is None or not _wrong_turn(reading):
            return None
        for b in guess.boards:
            self._boards[b].recovered_turn = None
        if not self._can_take_back(guess):
            return None
        # The placements the recovery reached were right; the side on move was not.
        targets = {b: self._match.board_fen(b) for b in guess.boards}
        turns: dict[BoardId, chess.Color | None] = dict.fromkeys(targets)
        turns[board] = reading.color
        out: list[Outcome] = []
        for move in reversed(guess.moves):
            out += self._match.takeback(move.board, t=now)
        for b in guess.boards:
            self._after_gap(b, now)
        solution = solve_gap(self._match, targets, turns=turns)
        return out + self._settle(board, targets, turns, solution, now)

    def _can_take_back(self, guess: _RecoveredTurn) -> bool:
        """Nothing was played on the recovery's boards since it (an arbiter's takeback
        included), and the game after it still replays without its plies."""
        if any(self._match.ply(b) != ply for b, ply in guess.plies.items()):
            return False
        trial = self._match.copy()
        try:
            for move in reversed(guess.moves):
                trial.takeback(move.board, t=0.0)
        except ValueError:
            return False
        return True

    def _hold(self, board: BoardId, reading: Reading) -> bool:
        """While the other board's link is down, a board whose drop waits for a piece may wait
        for a capture nobody saw, and a placement that reads as an illegal move may be a drop
        of such a piece answered at once: it is held, without alerts, and solved together with
        the other board's gap when that link returns."""
        state = self._boards[board]
        other = self._boards[board.other]
        if (other.connected and not other.gap_open) or not isinstance(reading, Waiting | Illegal):
            return False
        state.held = True
        return True

    def _reconcile(self, board: BoardId, now: float) -> list[Outcome]:
        """A link is back (or the dump asked for by ``resync``/a start-up): find the plies that
        lead from the game to what the boards show now (``gap.solve_gap``)."""
        link = str(board)
        boards = [board, *([board.other] if self._boards[board.other].held else [])]
        targets = {b: self._physical(b) for b in boards}
        known = {b: placement for b, placement in targets.items() if placement is not None}
        if targets[board] is None or all(
            placement == self._match.board_fen(b) for b, placement in known.items()
        ):
            for b in boards:
                self._boards[b].held = False
            return [
                LinkChanged(now, link, "resynced", {"missing_plies": 0}),
                *self._nudge_all(boards, now),
            ]
        # The clock's running side is not used as the side on move: read as the link returns it
        # is often a press in flight (or a White side learned wrong), and a wrong parity gives a
        # wrong answer. The shortest explanation decides the side on move instead.
        clocks = {b: self._boards[b].clock for b in known}
        solution = solve_gap(self._match, known, evidence=gap_evidence(clocks))  # issue 19
        if self._explain_later(board, solution, now):
            return []
        return self._settle(board, known, dict.fromkeys(boards), solution, now)

    def _settle(
        self,
        board: BoardId,
        targets: Mapping[BoardId, str],
        turns: Mapping[BoardId, chess.Color | None],
        solution: GapSolution,
        now: float,
    ) -> list[Outcome]:
        """The gap's solution applied: its plies recovered, or the boards set to ``targets``
        and the gap left to the arbiter. ``turns`` names the boards solved and the side on
        move each is known to have (``None``: the shortest explanation's, a guess)."""
        boards = list(turns)
        for b in boards:
            self._boards[b].held = False
        if solution.unique is not None:
            if not solution.confirmed:
                self._unconfirmed.update(boards)
            recovered = self._recovered(board, solution.unique, now, solution=solution)  # issue 19
            return recovered + self._nudge_all(boards, now)
        # Either way the boards are read again at once: a move made on top of the placements
        # solved (the one that disproved a recovery) waits for no later sensor change.
        left = self._left_to_arbiter(board, targets, turns, solution, now)
        return left + self._nudge_all(boards, now)

    def _nudge_all(self, boards: Sequence[BoardId], now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for b in boards:
            self._boards[b].stuck = True
            out += self._nudge(b, now)
        return out

    def _recovered(
        self,
        board: BoardId,
        candidate: Candidate,
        now: float,
        *,
        solution: GapSolution | None = None,
    ) -> list[Outcome]:
        certain = solution is None or solution.order_certain  # issue 19
        before = self._match.copy()  # issue 19: the other orders' SAN are read from it
        out: list[Outcome] = []
        for move in candidate.moves:
            events = [
                replace(event, recovered=True) if isinstance(event, MovePlayed) else event
                for event in self._match.play(move, t=now, recovered=True, order_certain=certain)
            ]
            out += self._after_commit(move.board, move, events, now)
            self._boards[move.board].correctable = None
        for b in {board, *(move.board for move in candidate.moves)}:
            self._presses_absorbed(b, now)
            self._press_still_owed(b)
        self._turn_guessed(candidate)
        details = {
            "missing_plies": len(candidate.moves),
            "recovered": {str(b): [m.uci for m in candidate.on(b)] for b in BoardId},
        }
        if solution is not None and not certain:  # issue 19: other orders fit; choose_recovery
            self._gap_count += 1
            self._orders[self._gap_count] = OrderedRecovery.of(self._match, solution)
            details |= order_details(self._gap_count, before, solution)
        return [*out, LinkChanged(now, str(board), "resynced", details)]

    def _left_to_arbiter(
        self,
        board: BoardId,
        targets: Mapping[BoardId, str],
        turns: Mapping[BoardId, chess.Color | None],
        solution: GapSolution,
        now: float,
    ) -> list[Outcome]:
        """Nothing settles the gap: the boards are set to what they show (the broadcast is
        right at once), the log keeps the gap, and the arbiter may choose a candidate."""
        self._gap_count += 1  # ids are never reused in a game, settled gaps included
        gap = self._gap_count
        details = gap_details(gap, self._match, solution)
        fens = filled_positions(self._match, targets, turns, solution)
        self._match.fill_gap(gap, fens, boards=targets, t=now)
        self._gaps[gap] = solution
        self._gap_targets[gap] = dict(targets)
        for b in targets:
            self._after_gap(b, now)
            # A guess (the first candidate's, or the old side on move): a move of the other
            # side right after the gap corrects it instead of being called a wrong turn.
            if turns.get(b) is None:
                self._boards[b].turn_unknown = gap
            if not solution.candidates:  # perhaps a hand in motion: see ``_redo_fill``
                self._boards[b].provisional = gap
                self._boards[b].provisional_until = now + self.config.unexplained_limit
        count = len(solution.candidates)
        message = (
            f"Board {board} is back; {count} different sequences of moves explain the gap: "
            "the position is published as it stands; choose one with choose_recovery."
            if count
            else f"Board {board} is back; no legal moves explain the gap ({solution.verdict}): "
            "the position is published as it stands."
        )
        return [
            alert(now, board, None, AlertCode.GAP_AMBIGUOUS, message, **details),
            LinkChanged(now, str(board), "resynced", {"missing_plies": None, "gap": gap}),
        ]

    def _redo_fill(self, board: BoardId, reading: Reading, now: float) -> list[Outcome] | None:
        """A fill made from a placement no plies explain may have caught a hand in motion (a
        capture with both pieces in the air): its pockets count the lifted pieces as captured,
        and the landing would read as a drop. So for ``unexplained_limit`` after such a fill,
        a settled placement that reads as a drop, a drop waiting for its piece or an illegal
        move from it is taken as a better look at the gap: solved again from the game before
        the gap, and recovered or filled anew. A placement nothing explains may be a hand in
        motion again and waits as usual; a plain move ends the doubt. ``None``: read it as
        usual."""
        state = self._boards[board]
        gap = state.provisional
        if gap is None:
            return None
        if isinstance(reading, Unexplained):
            return None  # perhaps a hand in motion again: wait for more, as usual
        drop = isinstance(reading, Legal) and any(m.is_drop for m in reading.moves)
        suspect = drop or isinstance(reading, Waiting | Illegal)
        if not suspect or now >= state.provisional_until:
            state.provisional = None  # the fill was whole (or has stood long enough)
            return None
        due = state.changed_at + self.config.stability_window
        if now < due:
            self._wake(board, due)
            return []
        return self._refill(board, gap, now)

    def _refill(self, board: BoardId, gap: int, now: float) -> list[Outcome] | None:
        """Solve ``gap`` again with what its doubtful boards show now. ``None`` when it cannot
        be redone (a placement unknown, or the log after the gap no longer replays on it)."""
        boards = [b for b in BoardId if self._boards[b].provisional == gap]
        targets = dict(self._gap_targets[gap])
        for b in boards:
            physical = self._physical(b)
            if physical is None:
                return None
            targets[b] = physical
        before = self._match.before_gap(gap)
        solution = solve_gap(before, targets)
        if solution.unique is not None:
            recovered = self._recovered_later(board, gap, solution.unique, now)
            if recovered is not None:
                if not solution.confirmed:
                    self._unconfirmed.update(targets)
                return recovered
        fens = filled_positions(before, targets, dict.fromkeys(targets), solution)
        try:
            self._match.refill_gap(gap, fens)
        except ValueError:
            for b in boards:
                self._boards[b].provisional = None
            return None
        self._gaps[gap] = solution
        self._gap_targets[gap] = targets
        for b in boards:
            self._after_gap(b, now)
            self._boards[b].stuck = True
            self._boards[b].turn_unknown = gap  # the side on move is a guess again
        refilled = {"missing_plies": None, "gap": gap, "refilled": True}
        out: list[Outcome] = [LinkChanged(now, str(board), "resynced", refilled)]
        if solution.candidates:
            message = (
                f"Board {board} has settled: {len(solution.candidates)} different sequences "
                "of moves explain the gap; choose one with choose_recovery."
            )
            details = gap_details(gap, before, solution)
            out.insert(0, alert(now, board, None, AlertCode.GAP_AMBIGUOUS, message, **details))
        return out + self._nudge(board.other, now)

    def _recovered_later(
        self, board: BoardId, gap: int, candidate: Candidate, now: float
    ) -> list[Outcome] | None:
        """A later look at the boards explains the gap after all: its plies replace the fill."""
        try:
            events = self._match.resolve_gap(gap, list(candidate.moves), t=now)
        except ValueError:
            return None
        self._forget_gap(gap, now)
        for b in {board, *(move.board for move in candidate.moves)}:
            self._press_still_owed(b)
        self._turn_guessed(candidate)
        details: dict[str, object] = {
            "missing_plies": len(candidate.moves),
            "recovered": {str(b): [m.uci for m in candidate.on(b)] for b in BoardId},
            "gap": gap,
        }
        message = f"Board {board}: the gap is explained after all; its moves are recovered."
        resolved = alert(
            now,
            board,
            None,
            AlertCode.GAP_AMBIGUOUS,
            message,
            severity=Severity.INFO,
            resolved=True,
            gap=gap,
        )
        return [*events, resolved, LinkChanged(now, str(board), "resynced", details)]

    def _gap_supplied(
        self, board: BoardId, move: BughouseMove, standing: Judgement | None, now: float
    ) -> list[MatchEvent] | None:
        """After a gap left to the arbiter the pockets are a guess (the fewest pieces that
        explain the placements): a piece captured and another of its kind dropped in the gap
        leave no trace. So a drop of a piece the guess lacks, on a board the gap fed (its own,
        or the partner board of one), is the gap's evidence, not an illegal move: the piece is
        added to what the gap put in that pocket, and the arbiter is told. ``None``: no gap
        can have brought it, the drop is judged as usual."""
        if standing is None or standing.code is not AlertCode.DROP_NOT_IN_POCKET:
            return None
        piece, color = move.move.drop, self._match.turn(board)
        if piece is None:
            return None
        full = _in_play(self._match, color, piece) >= 2 * _START_COUNT[piece]
        fed = {board, board.other}
        feeding = [gap for gap, boards in self._gap_targets.items() if fed & boards.keys()]
        for gap in sorted(feeding, reverse=True):  # the latest gap that can have brought it
            source = self._guessed_elsewhere(gap, board, color, piece) if full else None
            if full and source is None:
                if self._unseen_promotion(gap, board, chess.Piece(piece, color)):
                    supplied = self._supplied_alert(
                        board, move, color, piece, now, gap=gap, promotion=True
                    )
                    return [supplied]
                continue
            try:
                self._match.gap_supplied(gap, board, color, piece, source=source)
            except ValueError:
                continue
            return [self._supplied_alert(board, move, color, piece, now, gap=gap)]
        events = self._supplied_unconfirmed(board, color, piece, full=full, now=now)
        if events is None:
            return None
        return [*events, self._supplied_alert(board, move, color, piece, now, gap=None)]

    def _supplied_alert(  # noqa: PLR0913 - the drop and its gap
        self,
        board: BoardId,
        move: BughouseMove,
        color: chess.Color,
        piece: chess.PieceType,
        now: float,
        *,
        gap: int | None,
        promotion: bool = False,
    ) -> Alert:
        which = "the gap" if gap is None else f"the gap ({gap})"
        name = chess.piece_name(piece)
        how = (
            f"hid a promotion (the {name} it showed is a promoted pawn; the real one was taken)"
            if promotion
            else f"must have brought that {name} into the pocket"
        )
        message = f"Board {board}: {describe(move, color)}; {which} {how}: the pocket is corrected."
        return alert(now, board, color, AlertCode.GAP_AMBIGUOUS, message, gap=gap, move=move.uci)

    def _guessed(self) -> set[BoardId]:
        """The boards whose position or pockets are (partly) a gap's guess."""
        boards = set(self._unconfirmed)
        for targets in self._gap_targets.values():
            boards.update(targets)
        return boards

    def _supplied_unconfirmed(
        self, board: BoardId, color: chess.Color, piece: chess.PieceType, *, full: bool, now: float
    ) -> list[MatchEvent] | None:
        """After a recovery that was not confirmed, a drop its pockets lack corrects them
        (``set_pocket``, in the log): the piece moved from the partner board's pocket when no
        capture can have freed another one."""
        if not {board, board.other} & self._unconfirmed:
            return None
        events: list[MatchEvent] = []
        if full:
            source = self._match.position(board.other).pockets[color]
            if not source.count(piece):
                return None
            source.remove(piece)
            events += self._match.set_pocket(board.other, color, pocket_letters(source), t=now)
        pocket = self._match.position(board).pockets[color]
        pocket.add(piece)
        return events + self._match.set_pocket(board, color, pocket_letters(pocket), t=now)

    def _unseen_promotion(self, gap: int, board: BoardId, piece: chess.Piece) -> bool:
        """Where promoted pieces are marked (row 4, ``choice_marked``), a fill cannot tell a
        pawn promoted in the gap from the real piece: it takes the pawn that left for captured
        (into a pocket) and the new queen for the old one, whose capture it then misses. A
        drop of that piece, with no other left in the two sets, proves the promotion: the
        gap's unmarked piece on the promotion rank is marked promoted and the pocketed pawn is
        given back for it (``Match.gap_promoted``). False when the gap put no such pawn and
        piece there (a piece that promoted and moved on in the gap is not seen)."""
        if self._match.rules.promotion is not PromotionPolicy.CHOICE_MARKED:
            return False
        pawn_from = [
            b
            for b in BoardId
            if self._match.gap_added(gap, b, piece.color, chess.PAWN) > 0
            and self._match.position(b).pockets[piece.color].count(chess.PAWN)
        ]
        last_rank = chess.BB_RANK_8 if piece.color == chess.WHITE else chess.BB_RANK_1
        for on, position in self._match.gap_filled(gap).items():
            unmarked = position.pieces_mask(piece.piece_type, piece.color) & ~position.promoted
            unmarked &= last_rank  # where a pawn promoted; not one that moved on (unseen)
            for square, source in product(chess.scan_forward(unmarked), pawn_from):
                where = (on, square)
                try:
                    self._match.gap_promoted(gap, board, piece, where=where, pawn_from=source)
                except ValueError:
                    continue
                return True
        return False

    def _guessed_elsewhere(
        self, gap: int, board: BoardId, color: chess.Color, piece: chess.PieceType
    ) -> BoardId | None:
        """Material is kept: when no capture can have freed another such piece, the drop is
        legal only if the gap's guess put it in the partner board's pocket instead (the gap's
        board kept one it dropped unseen, or its fill guessed the wrong capture)."""
        source = board.other
        guessed = source in self._gap_targets[gap] or (
            self._match.gap_added(gap, source, color, piece) > 0
        )
        if guessed and self._match.position(source).pockets[color].count(piece):
            return source
        return None

    def _forget_gap(self, gap: int, now: float) -> None:
        """A gap settled by its plies: nothing is provisional or guessed about it any more."""
        del self._gaps[gap]
        self._gap_targets.pop(gap, None)
        for b in BoardId:
            state = self._boards[b]
            if gap in {state.provisional, state.turn_unknown}:
                state.provisional = state.turn_unknown = None
            self._after_gap(b, now)

    def _after_gap(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.pending = state.waiting = state.correctable = state.parent = None
        state.standing_drop = None
        state.recovered_turn = None
        self._presses_absorbed(board, now)
        state.trail.clear()
        state.seen.clear()
        state.committed_ply = self._match.ply(board)
        state.moved_at = now
        state.stuck = False

    def _presses_absorbed(self, board: BoardId, now: float) -> None:
        """A gap settled (recovered or filled as it stands) absorbs every press and sensor
        change before it: the presses of plies nobody saw never come, and those a held board
        counted belong to plies inside the gap. Left over, they would be read as plies (or owed
        presses) of the moves after the gap. Nothing before the gap is revised; a run of
        readings that committed nothing starts anew."""
        state = self._boards[board]
        state.lost_track_at = None
        state.press = None
        state.later_presses.clear()
        state.owed = 0
        state.firmness = Firmness.FINAL
        state.confirmed_at = now
        state.changes.clear()
        state.changes_of_last = ()

    def _press_still_owed(self, board: BoardId) -> None:
        """After a gap the board often shows the last ply before its mover has hit the clock:
        while the clock (its first reading since the link returned) still runs for that mover,
        the press is owed, as for a move read before its press, and is not taken for a press of
        the side now on move (which no move follows)."""
        state = self._boards[board]
        mover = not self._match.turn(board)
        if self._match.ply(board) and state.clock.running_color() == mover:
            state.owed = max(state.owed, 1)

    def choose_recovery(self, gap: int, index: int, now: float) -> list[Outcome]:
        """The arbiter's choice for a gap left open: its plies replace the gap in the log.
        ValueError for an unknown gap or candidate, or plies that no longer replay."""
        if gap in self._orders:  # issue 19: a recovery's order re-chosen
            events = reorder(self._match, self._orders[gap], index, t=now)
            del self._orders[gap]
            return list(events)
        solution = self._gaps.get(gap)
        if solution is None:
            raise ValueError(f"there is no open gap {gap}; open gaps: {sorted(self._gaps)}")
        if not 0 <= index < len(solution.candidates):
            raise ValueError(f"gap {gap} has candidates 0-{len(solution.candidates) - 1}")
        candidate = solution.candidates[index]
        events = self._match.resolve_gap(gap, list(candidate.moves), t=now)
        self._forget_gap(gap, now)
        return [*events, *self._resolved(BoardId.A, now, ""), *self._resolved(BoardId.B, now, "")]

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

    def _unknown_orientation(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        due = state.changed_at + self.config.unexplained_limit
        if now < due:
            self._wake(board, due)
            return []
        physical = state.occupancy.placement(rotated=False)
        event = self._unexplained_alert(board, physical, now, "orientation unknown")
        return self._once(board, physical, event)

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
                state.stall_since = event.t if waiting else None
                state.stall_alerted = False
                if waiting:
                    self._wake(event.board, event.t + self.config.stalling_limit)

    def _stalling(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        if state.stall_since is None or state.stall_alerted or self._match.result is not None:
            return []
        due = max(state.stall_since, state.moved_at) + self.config.stalling_limit
        if now < due:
            self._wake(board, due)
            return []
        state.stall_alerted = True
        color = self._match.turn(board)
        limit = self.config.stalling_limit
        stalling = stalling_alert(self._match.rules, board, color, limit, now)
        return [] if stalling is None else [stalling]

    # -- small helpers -----------------------------------------------------------------------

    def _wake(self, board: BoardId, at: float) -> None:
        state = self._boards[board]
        state.wake_at = at if state.wake_at is None else min(state.wake_at, at)

    def _press_expected(self, board: BoardId) -> bool:
        clock = self._boards[board].clock
        return clock.running_color() == self._match.turn(board)

    def _clock_expected(self, board: BoardId) -> bool:
        """A clock is there, or may be: presses can still come (not a board without a clock)."""
        last = self._boards[board].clock.last
        return last is None or not last.no_clock

    def _at_rest_now(self, board: BoardId) -> bool:
        return self._physical(board) == self._match.board_fen(board)


def _split_after(
    changes: Sequence[tuple[chess.Square, chess.Piece | None]],
    arrival: tuple[chess.Square, chess.Piece | None],
) -> tuple[Changes, list[tuple[chess.Square, chess.Piece | None]]]:
    """The changes up to the last arrival of ``arrival``, and those after it (all of them
    before, none after, when it was not seen arriving)."""
    ends = [index for index, change in enumerate(changes) if change == arrival]
    cut = ends[-1] + 1 if ends else len(changes)
    return tuple(changes[:cut]), list(changes[cut:])


_START_COUNT = {chess.PAWN: 8, chess.KNIGHT: 2, chess.BISHOP: 2, chess.ROOK: 2, chess.QUEEN: 1}


def _in_play(match: Match, color: chess.Color, piece: chess.PieceType) -> int:
    """How many pieces of that kind and colour both boards and the pockets hold (a promoted
    piece counts as the pawn it becomes when taken)."""
    total = 0
    for board in BoardId:
        position = match.position(board)
        own = position.occupied_co[color]
        if piece == chess.PAWN:
            on_board = (position.pawns | position.promoted) & own
        else:
            on_board = position.pieces_mask(piece, color) & ~position.promoted
        total += chess.popcount(on_board) + position.pockets[color].count(piece)
    return total


def _wrong_turn(reading: Reading) -> TypeGuard[Illegal]:
    """The reading is a move of the side not on move."""
    return isinstance(reading, Illegal) and reading.judgement.code is AlertCode.WRONG_TURN


def _has_alert(events: Sequence[MatchEvent], code: AlertCode | None) -> bool:
    return any(getattr(event, "code", None) is code for event in events)
