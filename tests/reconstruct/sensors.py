"""Test helper: a table of two physical boards (and clocks) driven square by square.

Every action becomes the DGT message a board would send (``FieldUpdate``, ``ClockTimes``,
``BoardDump``) and is fed to a ``MatchReconstructor`` at the table's time; ``wait`` fires the
reconstructor's timers at their deadlines, as the shell does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.events import Alert, MovePlayed, Takeback
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.dgt.messages import ClockFace, ClockTimes, FieldUpdate
from bughouse_bridge.dgt.squares import board_to_dump, piece_to_code, square_to_field
from bughouse_bridge.reconstruct import MatchReconstructor, Outcome, ReconstructorConfig

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

A, B = BoardId.A, BoardId.B
STEP = 0.05  # between two field updates of one hand movement


def face(ms: int) -> ClockFace:
    """A clock face; a time run out shows the flag bits, as a real clock does."""
    seconds = max(ms, 0) // 1000
    out = ms <= 0
    return ClockFace(
        seconds // 3600, seconds // 60 % 60, seconds % 60, flag_fallen=out, flag_shown=out
    )


def clock_times(white_ms: int, black_ms: int, running: chess.Color | None) -> ClockTimes:
    """White's time on the left face; the lever raised on the running side."""
    status = 0 if running is None else 0x01
    if running == chess.BLACK:
        status |= 0x02
    return ClockTimes(right=face(black_ms), left=face(white_ms), status=status)


class Table:
    def __init__(
        self,
        preset: str = "dsj",
        config: ReconstructorConfig | None = None,
        *,
        fens: Mapping[BoardId, str] | None = None,
        rotated: Iterable[BoardId] = (),
    ) -> None:
        match = Match(get_preset(preset), fens=fens)
        self.rec = MatchReconstructor(match, config or ReconstructorConfig())
        self.rotated = set(rotated)
        self.t = 0.0
        self.out: list[Outcome] = []
        self.physical = {board: chess.BaseBoard(match.board_fen(board)) for board in BoardId}
        self.times = {board: [300_000, 300_000] for board in BoardId}
        self.running: dict[BoardId, chess.Color | None] = dict.fromkeys(BoardId)
        for board in BoardId:
            self.dump(board)

    # -- the physical world ----------------------------------------------------------------

    def feed(self, board: BoardId, message: object) -> list[Outcome]:
        self.wait(0.0)
        new = self.rec.on_message(board, message, self.t)  # type: ignore[arg-type]
        self.out += new
        return new

    def dump(self, board: BoardId) -> None:
        self.feed(board, board_to_dump(self.physical[board], rotated=board in self.rotated))

    def put(self, board: BoardId, square: str, symbol: str | None) -> Table:
        """Set one square (``None`` empties it) and report it, then let a little time pass."""
        sq = chess.parse_square(square)
        piece = chess.Piece.from_symbol(symbol) if symbol else None
        self.physical[board].set_piece_at(sq, piece) if piece else self.physical[
            board
        ].remove_piece_at(sq)
        field = square_to_field(sq, rotated=board in self.rotated)
        self.feed(board, FieldUpdate(field, piece_to_code(piece)))
        self.t += STEP
        return self

    def lift(self, board: BoardId, square: str) -> Table:
        return self.put(board, square, None)

    def move(self, board: BoardId, uci: str) -> Table:
        """A plain move as two updates: lift then place (a capture replaces directly)."""
        origin, target = chess.parse_square(uci[:2]), uci[2:4]
        piece = self.physical[board].piece_at(origin)
        assert piece is not None
        symbol = (
            uci[4].upper()
            if len(uci) == 5 and piece.color
            else (uci[4] if len(uci) == 5 else piece.symbol())
        )
        return self.lift(board, uci[:2]).put(board, target, symbol)

    def drop(self, board: BoardId, symbol: str, square: str) -> Table:
        return self.put(board, square, symbol)

    def clock(self, board: BoardId, running: chess.Color | None) -> list[Outcome]:
        self.running[board] = running
        white_ms, black_ms = self.times[board]
        return self.feed(board, clock_times(white_ms, black_ms, running))

    def start_clocks(self, *boards: BoardId) -> Table:
        for board in boards or tuple(BoardId):
            self.clock(board, self.rec.match.turn(board))
        return self

    def press(self, board: BoardId) -> list[Outcome]:
        running = self.running[board]
        assert running is not None, "start the clock first"
        self.times[board][0 if running == chess.WHITE else 1] -= 1000
        return self.clock(board, not running)

    def wait(self, seconds: float) -> Table:
        until = self.t + seconds
        while (deadline := self.rec.deadline()) is not None and deadline <= until:
            self.t = max(self.t, deadline)
            self.out += self.rec.on_timer(deadline)
        self.t = until
        return self

    def settle(self) -> Table:
        return self.wait(1.0)

    # -- what came out ---------------------------------------------------------------------

    def moves(self, board: BoardId | None = None) -> list[str]:
        moves: list[tuple[BoardId, str]] = []
        for outcome in self.out:
            if isinstance(outcome, MovePlayed):
                moves.append((outcome.board, outcome.move.uci))
            elif isinstance(outcome, Takeback):
                last = max(i for i, (on, _) in enumerate(moves) if on == outcome.board)
                del moves[last]
        return [uci for on, uci in moves if board is None or on == board]

    def played(self) -> list[MovePlayed]:
        return [outcome for outcome in self.out if isinstance(outcome, MovePlayed)]

    def alerts(self, code: AlertCode | None = None) -> list[Alert]:
        return [
            outcome
            for outcome in self.out
            if isinstance(outcome, Alert) and (code is None or outcome.code is code)
        ]

    def codes(self) -> list[str]:
        return [str(alert.code) for alert in self.alerts()]

    def of(self, kind: type) -> list[Outcome]:
        return [outcome for outcome in self.out if isinstance(outcome, kind)]
