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

Decisions are taken in physical time (``flags.py``, rules note I): flags come from the clock's
flag bits, timed by its countdown (``clocks.py``); a flag waits for a move that may have come
before it (a press before its message, or a placement of the flagged player set down before the
zero crossing and not settled yet: a mating move needs no press, FIDE blitz 6.2.1), and flags that
fell before a move are released before it is committed. What a flag means is the rules' business
(``Match.flag``: a result, or under claims only an alert). A result never stops the reading:
both boards are read and committed after it, as before it (the arbiter may revoke it).

Per board the state is values, not loose flags (``board_state.Board``): the Link machine
(``link.py``), the press ledger (``presses.py``: presses ahead of the moves are counted, so a
board that fell plies behind is read as exactly that many plies; presses owed by moves read
before them), the last move (``last_move.py``: how firmly it stands, ``reading_values.Firmness``
— a move that stood after its press, or whose reply was pressed while its piece still stood, is
final and never revised), the Reading machine (``reading_machine.py``: what the reading in
progress awaits — a press, a drop's piece, or the other board's link), the Track machine (the
run of readings that commit nothing, and whether the board is read again when the other board
moves) and the stalling watch (``stall_watch.py``). A settled link gap absorbs the presses and
sensor changes before it: none is read after it.

Gaps are the business of ``resync.Resync``, a plain object the reconstructor holds (its
``review`` is the reader's one door to them; it owns the gaps' book, ``gap_book.GapBook``, and
reaches the reconstructor only through ``gap_doors.GapDoors``). A gap nothing
explains is filled as the boards stand, and that fill is a guess, treated as one:
a later settled look that does not read as a plain move solves the gap again (``redo_fill``), a
drop its guessed pockets lack is its evidence (``supplied``), the side on move it guessed is
corrected by the first move of the other side (``_wrong_guess``). A recovery is a guess of the
same kind: the clock is not trusted as a link returns, so the shortest explanation decides the side
on move. A move of the other side before anything is committed after it disproves it: its plies
are taken back and the gap is solved again with that move on the board (``_recovery_disproved``).

Timers are deadlines derived from the values, never stored (``deadlines.py``): every reason to read
a board again at a time is a state carrying its due (a placement changed: once settled; a move
awaiting its press; a drop awaiting its piece; a run of readings that commit nothing, reported
once it has had its time; a press ahead; a pressed move to be seen standing; the stalling watch;
a link back after a short gap; a flag held on the board). A board's deadline is its earliest due
after its last reading (a due read at or after it was dealt with, or waits on one of its own, so
a passed due never spins the timer); ``deadline()`` is the earliest of the boards' and the flags'
and ``on_timer(now)`` re-reads the boards that are due. Re-reading is idempotent, so a board is
woken whenever in doubt. Alerts about a placement are raised once per placement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import (
    LinkChanged,
    MatchEvent,
)
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.dgt.messages import (
    BoardDump,
    ClockAck,
    ClockTimes,
    FieldUpdate,
    Message,
)
from bughouse_bridge.reconstruct.alerts import alert
from bughouse_bridge.reconstruct.deadlines import board_deadline
from bughouse_bridge.reconstruct.link import (
    AwaitDump,
    DumpCame,
    LinkBack,
    LinkLost,
    Live,
    Lost,
    Restarted,
)
from bughouse_bridge.reconstruct.occupancy import (
    START_PLACEMENT,
)
from bughouse_bridge.reconstruct.outcomes import ClockReading, Outcome, RequestDump
from bughouse_bridge.reconstruct.presses import (
    Forgiven,
    Press,
    Pressed,
    Unheard,
)
from bughouse_bridge.reconstruct.readings import (
    one_ply,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import chess

from bughouse_bridge.reconstruct.flags import Flags, HeldFlag
from bughouse_bridge.reconstruct.reader import Reader


class MatchReconstructor(Reader):
    """Pure: feed it messages, link changes and timer ticks with the time; it returns outcomes."""

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
            state.link_event(Restarted())
            state.press_event(Unheard())

    def on_link_state(self, board: BoardId, connected: bool, now: float) -> list[Outcome]:  # noqa: FBT001 - the shell's documented signature
        state = self._boards[board]
        link = str(board)
        if not connected:
            state.link_event(LinkLost(now))
            state.press_event(Unheard())
            message = f"Board {board} and its clock went silent; moves there are not seen."
            return [
                LinkChanged(now, link, "disconnected"),
                alert(now, board, None, AlertCode.LINK_LOST, message),
            ]
        state.link_event(LinkBack(now))
        state.clock.link_returned()
        assert isinstance(state.link, AwaitDump)
        if not state.link.announced:
            return [LinkChanged(now, link, "connected"), RequestDump(board)]
        message = f"Board {board} is back; its position is checked against the game."
        return [
            LinkChanged(now, link, "connected"),
            alert(now, board, None, AlertCode.LINK_BACK, message),
            RequestDump(board),
        ]

    def on_timer(self, now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for board in self._boards:
            due = self._board_deadline(board)
            if due is not None and due <= now:
                out += self._evaluate(board, now)
        return out + self._flags.release(self._table(), now) + self._resync.release_held(now)

    def deadline(self) -> float | None:
        """The earliest due of the boards' values (``deadlines.py``), of the flags held and of
        the gaps' alerts held for a better look."""
        dues = [self._board_deadline(board) for board in self._boards]
        dues.append(self._flags.deadline())
        dues.append(self._resync.held_due())
        return min((due for due in dues if due is not None), default=None)

    def _board_deadline(self, board: BoardId) -> float | None:
        decided = self._match.result is not None
        flag_due = self._flags.board_due(board)
        state = self._boards[board]
        return board_deadline(state, self.config, decided=decided, flag_due=flag_due)

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

    def choose_recovery(self, gap: int, index: int, now: float) -> list[Outcome]:
        """The arbiter's choice for a gap left open (``resync.Resync.choose_recovery``)."""
        return self._resync.choose_recovery(gap, index, now)

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
        self._flags = Flags(self.config)
        self._resync = self._fresh_resync()
        for board in BoardId:
            old = self._boards[board]
            fresh = self._boards[board] = self._fresh_board(board)
            fresh.occupancy = old.occupancy
            fresh.clock.model = old.clock.model
            # The last game's clock may still run (for the loser): not this game's side to move.
            fresh.clock.running_from_last_game = old.clock.running
            fresh.changed_at = now
        return [outcome for board in BoardId for outcome in self._evaluate(board, now)]

    def boards_in_start_position(self) -> frozenset[BoardId]:
        """The boards that physically stand in the start position (the hall's next game)."""
        return frozenset(
            board
            for board in BoardId
            if self._boards[board].occupancy.known and self._physical(board) == START_PLACEMENT
        )

    def _on_dump(self, board: BoardId, dump: BoardDump, now: float) -> list[Outcome]:
        state = self._boards[board]
        changed = state.occupancy.load(dump)
        self._physical(board)  # an orientation is best detected on a fresh dump
        if isinstance(state.link, AwaitDump):
            # A hand may be over the board as the link returns: reconcile a settled placement.
            state.link_event(DumpCame(now, state.changed_at))
            self._changed(board, now)
            return []
        state.link_event(DumpCame(now, state.changed_at))
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
        if baseline and isinstance(state.link, Live | Lost):
            self._resync.press_still_owed(board)
        out: list[Outcome] = []
        if update.reading is not None:
            out.append(ClockReading(now, board, *update.reading))
        if update.pressed_by is not None and state.owed and update.pressed_by == presser:
            self._paid(board, now)  # the late press of a move already committed
        elif update.pressed_by is not None and state.press is not None:
            # A press on top of one no move has matched yet: the board is plies behind.
            state.press_event(Pressed(Press(now, update.press_ms)))
            out += self._evaluate(board, now, pressed_now=True)
        elif update.pressed_by is not None and update.pressed_by == turn:
            self._final_on_reply(board)
            state.press_event(Pressed(Press(now, update.press_ms)))
            out += self._on_press(board, now)
        elif update.pressed_by is not None:
            state.press_event(Forgiven())
            self._confirmed_late(board, now)
        for color, at in update.flags:
            # The flagged player's last placement may still be reported: the board is read
            # once it is scanned (``Flags.board_due``).
            self._flags.fell(HeldFlag(board, color, at, now))
        return out + self._flags.release(self._table(), now) + self._both_clocks(now)

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
