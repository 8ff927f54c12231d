"""The BPGN writer: the text of a game record, kept up to date entry by entry. Pure.

The one writer of the project: the retained BPGN, the archive file, ``bughouse-bridge replay``
and :func:`write_bpgn` (a game read or built as a
:class:`~bughouse_bridge.bughouse.bpgn_model.BpgnGame`) all come out of :meth:`BpgnDocument.render`
(see ``docs/bpgn.md``). :class:`BpgnDocument` writes the entries of a
:class:`~bughouse_bridge.bughouse.record.GameRecord` incrementally: each half-move is written
once, when its entry arrives, and a note that a later entry attaches (a removal, a correction, a
revoked result) rewrites only the last half-move. After a rewrite of the record
(``GameRecord.sync`` says from which entry) the document goes back to where it stood before that
entry and writes on from there. A whole game is written by appending all its entries.

Moves a plain reader cannot follow (after a steal, an illegal drop that stands, an arbiter's
correction, a link gap: its position differs from ours) are written as null moves with the move
in a comment, ``-- {move Nf3}``, so that it keeps reading and agrees with us again wherever the
positions meet. The plain reader's two boards are set up only at the first entry that makes the
positions differ, from where both boards stood just before it; until then every move is one a
plain reader plays exactly as we did (``plain_from_start``: from the start instead, for entries
that carry no positions).

A link gap that nothing explained (``gap`` entries) is written as a comment per board with the
position the gap left, ``{gap A: <crazyhouse FEN>}``, after the half-move it followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.bpgn_model import NULL_SAN, PLAYER_TAGS, BpgnGame, normalize_comment
from bughouse_bridge.bughouse.bpgn_write import (
    PlainReader,
    PlayedMove,
    bpgn_move,
    closing_comment_for,
    correction_comment,
    move_text,
    played_move,
    record_note,
    tag_lines,
    team_result,
)
from bughouse_bridge.bughouse.events import (
    Alert,
    MovePlayed,
    PocketSet,
    PositionAccepted,
    ResultRevoked,
)
from bughouse_bridge.bughouse.record import EntryKind
from bughouse_bridge.bughouse.types import BoardId, Seat

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from bughouse_bridge.bughouse.bpgn_model import BpgnMove
    from bughouse_bridge.bughouse.events import ResultDecided
    from bughouse_bridge.bughouse.record import RecordEntry


ORDER_GUESSED = "recovered after a link gap: the order of these moves was not seen"


def _order_guessed(entry: RecordEntry | None) -> bool:
    event = None if entry is None else entry.event
    return isinstance(event, MovePlayed) and not event.order_certain


def gap_comment(board: BoardId, fen: str) -> str:
    """The comment a link gap nothing explained leaves: the board's position after it."""
    return f"gap {board}: {fen}"


@dataclass(slots=True)
class _Pen:
    """What writing the next half-move depends on."""

    numbers: dict[BoardId, int] = field(default_factory=lambda: dict.fromkeys(BoardId, 1))
    last_color: dict[BoardId, chess.Color] = field(default_factory=dict)
    clocks: dict[Seat, float] = field(default_factory=dict)  # the last clock written per seat
    shadow: PlainReader | None = None  # a plain reader's boards, once the positions differ
    first_move_t: float | None = None

    def copy(self) -> _Pen:
        return _Pen(dict(self.numbers), dict(self.last_color), dict(self.clocks), None, None)


@dataclass(frozen=True, slots=True)
class _Cursor:
    """The document just before one entry: enough to write on from there after a rewrite."""

    moves: int
    last: BpgnMove | None  # the last half-move as it stood (later entries add notes to it)
    openings: int
    pen: _Pen
    shadow: Mapping[BoardId, str] | None  # the plain reader's positions (FENs), if set up
    first_move_t: float | None

    def __deepcopy__(self, memo: dict[int, object]) -> _Cursor:
        """Never changed once made (a rewind copies its pen): shared by copies."""
        return self


class BpgnDocument:
    """The movetext of one game's record, half-move by half-move, and its text on demand."""

    __slots__ = ("_before", "_cursors", "_moves", "_openings", "_pen", "_start", "_texts")

    def __init__(
        self, fens: Mapping[BoardId, str] | None = None, *, plain_from_start: bool = False
    ) -> None:
        start = chess.variant.CrazyhouseBoard.starting_fen
        self._start = {
            board: chess.variant.CrazyhouseBoard((fens or {}).get(board, start)).fen()
            for board in BoardId
        }
        self._moves: list[BpgnMove] = []
        self._texts: list[str] = []  # each half-move as written
        self._before: list[float] = []  # the seat's last clock before each half-move
        self._openings: list[str] = []  # corrections and gaps before the first move
        self._pen = _Pen()
        if plain_from_start:
            self._pen.shadow = PlainReader(self._start)
        self._cursors: list[_Cursor] = []

    @property
    def start(self) -> dict[str, str]:
        """The start position of each board (crazyhouse FEN)."""
        return {str(board): fen for board, fen in self._start.items()}

    @property
    def first_move_t(self) -> float | None:
        return self._pen.first_move_t

    @property
    def moves(self) -> tuple[BpgnMove, ...]:
        return tuple(self._moves)

    def update(self, entries: Sequence[RecordEntry], first: int) -> None:
        """Write ``entries[first:]``, the entries before ``first`` being those already written."""
        if first < len(self._cursors):
            self._rewind(first)
        for index in range(len(self._cursors), len(entries)):
            self._write(entries[index], entries[index - 1] if index else None)

    def text(
        self,
        tags: Mapping[str, str],
        result: ResultDecided | None,
        comments: Sequence[str] = (),
    ) -> str:
        """The whole BPGN text: ``tags`` (without ``Result``), ``comments`` before the moves."""
        written, closing = _ending(tags, result)
        return self.render({**tags, "Result": written}, written, closing, comments)

    def game(
        self,
        tags: Mapping[str, str],
        result: ResultDecided | None,
        comments: Sequence[str] = (),
    ) -> BpgnGame:
        """What :meth:`text` writes, as the reader reads it back."""
        written, closing = _ending(tags, result)
        opening = (*(normalize_comment(comment) for comment in comments), *self._openings)
        return BpgnGame({**tags, "Result": written}, self.moves, written, opening, closing)

    def render(
        self, tags: Mapping[str, str], result: str, closing: str, comments: Sequence[str] = ()
    ) -> str:
        """Tags (as given), opening comments, one line of half-moves, the closing comment and
        the result token, as bughousedb writes a game."""
        lines = tag_lines(tags)
        opening = [normalize_comment(comment) for comment in comments] + self._openings
        lines.extend(f"{{{comment}}}" for comment in opening)
        # An empty closing comment is still written where a comment before the result would
        # otherwise read as the last move's (or, without moves, as an opening one).
        closes = bool(closing) or (bool(self._moves[-1].comments) if self._moves else False)
        closes = closes or (not self._moves and bool(opening))
        if self._moves:
            texts = self._texts
            if closes:  # the last half-move shows its clock first, before the closing comment
                last = move_text(self._moves[-1], self._before[-1], closes=True)
                texts = [*texts[:-1], last]
            lines.append(" ".join(texts))
        lines.append((f"{{{closing}}} " if closes else "") + result)
        return "\n".join(lines) + "\n"

    def add(self, move: BpgnMove) -> None:
        """Append a half-move written already (numbered, notes and mask as they stand): for a
        game that is not a record (:func:`write_bpgn`); a record's are written by ``update``."""
        before = self._pen.clocks.get(move.seat, 0.0)
        if move.clock is not None:
            self._pen.clocks[move.seat] = move.clock
        self._moves.append(move)
        self._before.append(before)
        self._texts.append(move_text(move, before))

    # -- writing -----------------------------------------------------------------------------

    def _write(self, entry: RecordEntry, previous: RecordEntry | None) -> None:
        pen = self._pen
        shadow = None if pen.shadow is None else _positions(pen.shadow)
        last = self._moves[-1] if self._moves else None
        self._cursors.append(
            _Cursor(
                len(self._moves), last, len(self._openings), pen.copy(), shadow, pen.first_move_t
            )
        )
        event = entry.event
        if diverges(entry) and pen.shadow is None:
            # Until here a plain reader stood where we stood: set up its boards there.
            before = previous.after.fens if previous is not None else self._start
            pen.shadow = PlainReader(before)
        if isinstance(event, MovePlayed):
            self._move(event)
            if not event.order_certain and not _order_guessed(previous):
                self._note(ORDER_GUESSED, opening=False)  # the first of the stretch (issue 19)
        elif isinstance(event, Alert):
            if self._moves and event.board is not None:
                square = chess.parse_square(str(event.details["square"]))
                self._amend(removal=(event.board, square))
        elif isinstance(event, PositionAccepted | PocketSet):
            self._note(correction_comment(event), opening=True)
        elif isinstance(event, ResultRevoked):
            self._note(record_note(event), opening=False)
        elif entry.kind is EntryKind.GAP:
            for board in BoardId:
                self._note(gap_comment(board, entry.after.fens[board]), opening=True)

    def _move(self, event: MovePlayed) -> None:
        pen = self._pen
        if pen.last_color.get(event.board) == event.color:  # a removal gave the move back
            self._append(PlayedMove(event.board, not event.color, NULL_SAN), None)
        pen.last_color[event.board] = event.color
        if pen.first_move_t is None:
            pen.first_move_t = event.t
        played = played_move(event)
        self._append(played, played.uci)

    def _append(self, played: PlayedMove, uci: str | None) -> None:
        pen = self._pen
        move = bpgn_move(played, pen.numbers[played.board])
        if played.color == chess.BLACK:
            pen.numbers[played.board] += 1
        if pen.shadow is not None:
            move = pen.shadow.follow(move, uci)
        self.add(move)

    def _note(self, note: str, *, opening: bool) -> None:
        if self._moves:
            comments = (*self._moves[-1].comments, normalize_comment(note.replace("}", ")")))
            self._amend(comments=comments)
        elif opening:
            self._openings.append(normalize_comment(note))

    def _amend(self, **changes: object) -> None:
        move = replace(self._moves[-1], **changes)  # type: ignore[arg-type]
        self._moves[-1] = move
        self._texts[-1] = move_text(move, self._before[-1])

    def _rewind(self, first: int) -> None:
        cursor = self._cursors[first]
        del self._cursors[first:]
        del self._moves[cursor.moves :], self._texts[cursor.moves :]
        del self._before[cursor.moves :], self._openings[cursor.openings :]
        if cursor.last is not None:
            self._moves[-1] = cursor.last
            self._texts[-1] = move_text(cursor.last, self._before[-1])
        self._pen = cursor.pen.copy()
        self._pen.first_move_t = cursor.first_move_t
        self._pen.shadow = None if cursor.shadow is None else PlainReader(cursor.shadow)


def write_bpgn(game: BpgnGame) -> str:
    """The game as bughousedb writes it: tags, opening comments, one line of moves, the end."""
    document = BpgnDocument()
    for move in game.moves:
        document.add(move)
    return document.render(game.tags, game.result, game.closing_comment, game.comments)


def write_bpgn_games(games: Iterable[BpgnGame]) -> str:
    return "\n".join(write_bpgn(game) for game in games)


def _ending(tags: Mapping[str, str], result: ResultDecided | None) -> tuple[str, str]:
    """The result token and the closing comment of a record with ``result`` standing."""
    if result is None:
        return "*", ""
    players = {seat: tags.get(tag, "?") for seat, tag in PLAYER_TAGS.items()}
    return team_result(result.winner_team), closing_comment_for(result, players)


def diverges(entry: RecordEntry) -> bool:
    """Whether a plain reader's positions differ from ours after this entry."""
    event = entry.event
    if isinstance(event, MovePlayed):
        return event.steal is not None or event.forced
    return entry.kind in {EntryKind.ACCEPTED, EntryKind.POCKET_SET, EntryKind.GAP}


def _positions(shadow: PlainReader) -> dict[BoardId, str]:
    return {board: position.fen() for board, position in shadow.boards.items()}
