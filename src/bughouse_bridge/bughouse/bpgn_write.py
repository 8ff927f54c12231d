"""The pieces of the BPGN we write: tags, half-moves, notes, the closing comment. Pure.

The one writer (:class:`~bughouse_bridge.bughouse.bpgn_document.BpgnDocument`) puts these
together; they are also what a half-move is numbered with (:func:`numbered_moves`) and what a
plain bughouse reader makes of our moves (:class:`PlainReader`, pychess-variants' view: FICS
rules, no steals, no illegal drops that stand).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

import chess
import chess.variant

from bughouse_bridge.bughouse.bpgn_model import (
    PLAYER_TAGS,
    UNREAD_CLOCK_MARK,
    BpgnGame,
    BpgnMove,
    StealLike,
    format_clock,
    illegal_comment,
    masked_comment,
    normalize_comment,
    removed_comment,
    steal_comment,
)
from bughouse_bridge.bughouse.events import (
    MovePlayed,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    StealInfo,
)
from bughouse_bridge.bughouse.types import BoardId, Seat, color_name

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

_STEAL_SUFFIX_RE: Final = re.compile(r"\(([a-h][1-8])\)")  # the rules core's SAN: b8=Q(d1)+


def _tag_text(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def tag_lines(tags: Mapping[str, str]) -> list[str]:
    """One tag a line, except ``XElo`` joins ``X`` on its line as bughousedb writes it."""
    lines: list[str] = []
    previous = ""
    for name, value in tags.items():
        if lines and previous and name == f"{previous}Elo":
            lines[-1] += _tag_text(name, value)
        else:
            lines.append(_tag_text(name, value))
        previous = name
    return lines


def move_text(move: BpgnMove, last_clock: float, *, closes: bool = False) -> str:
    """The clock first: pychess-variants reads the first comment after a move as its clock and
    fails on other text there. A move whose clock was not read but that has comments (or whose
    next comment is the closing one, ``closes``) gets ``{<last_clock> (clock not read)}`` first:
    the value pychess-variants assumes anyway, a mark our reader drops."""
    text = f"{move.label} {move.written_san}"
    notes = _annotations(move)
    if move.clock is not None:
        text += f"{{{format_clock(move.clock)}}}"
    elif notes or closes:
        text += f"{{{format_clock(last_clock)} {UNREAD_CLOCK_MARK}}}"
    return text + "".join(f" {{{comment}}}" for comment in notes)


def _annotations(move: BpgnMove) -> list[str]:
    """Our dialect's comments (steal, masked/illegal move, removal), then the move's own."""
    notes = list(move.comments)
    if move.removal is not None:
        notes.insert(0, removed_comment(*move.removal))
    if move.forced:
        notes.insert(0, illegal_comment(move.san))
    if move.masked:
        notes.insert(0, masked_comment(move.san))
    if move.steal is not None:
        notes.insert(0, steal_comment(*move.steal))
    return notes


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """A half-move as the bridge knows it, before it is numbered.

    ``san`` may be the rules core's form with the steal square (``b8=Q(d1)+``) and ``steal`` a
    :class:`StealInfo`: :func:`numbered_moves` turns both into BPGN's form.
    """

    board: BoardId
    color: chess.Color
    san: str
    clock: float | None = None
    steal: StealLike = None
    comments: tuple[str, ...] = ()
    forced: bool = False
    removal: tuple[BoardId, chess.Square] | None = None
    uci: str | None = None  # what was played (contract §3 UCI), to check what readers make of it


PlayedMoveLike = PlayedMove | tuple[BoardId, chess.Color, str, float | None, StealLike]


def numbered_moves(
    played: Iterable[PlayedMoveLike],
    *,
    first_numbers: Mapping[BoardId, int] | None = None,
) -> tuple[BpgnMove, ...]:
    """Number half-moves per board: White's move opens a number, Black's closes it.

    Items are :class:`PlayedMove` or ``(board, color, san, clock_seconds, steal)`` tuples in
    real time order; ``first_numbers`` serves games that start from a set-up position.
    """
    numbers = dict.fromkeys(BoardId, 1) | dict(first_numbers or {})
    moves: list[BpgnMove] = []
    for item in played:
        move = item if isinstance(item, PlayedMove) else PlayedMove(*item)
        moves.append(bpgn_move(move, numbers[move.board]))
        if move.color == chess.BLACK:
            numbers[move.board] += 1
    return tuple(moves)


def bpgn_move(move: PlayedMove, number: int) -> BpgnMove:
    steal: tuple[BoardId, chess.Square] | None
    if isinstance(move.steal, StealInfo):
        steal = (move.steal.board, move.steal.square)
    elif move.steal is None and (suffix := _STEAL_SUFFIX_RE.search(move.san)):
        steal = (move.board.other, chess.parse_square(suffix[1]))
    else:
        steal = move.steal
    comments = tuple(normalize_comment(comment) for comment in move.comments)
    san = _STEAL_SUFFIX_RE.sub("", move.san)
    return BpgnMove(
        move.board,
        move.color,
        number,
        san,
        move.clock,
        comments,
        steal,
        forced=move.forced,
        removal=move.removal,
    )


def game_from_moves(
    played: Iterable[PlayedMoveLike],
    *,
    tags: Mapping[str, str] | None = None,
    result: str = "*",
    comments: Sequence[str] = (),
    closing_comment: str = "",
) -> BpgnGame:
    """A game from played moves; ``result`` (e.g. ``ResultDecided.bpgn_result``) also sets the
    ``Result`` tag."""
    all_tags = dict(tags or {})
    all_tags["Result"] = result
    return BpgnGame(
        all_tags,
        numbered_moves(played),
        result,
        tuple(normalize_comment(comment) for comment in comments),
        normalize_comment(closing_comment),
    )


def team_result(winner_team: int | None) -> str:
    """The ``[Result]`` we write: **team-relative**, ``1-0`` = White A and Black B won.

    pychess-variants and bughouse.pro read it so; bughousedb's FICS exports are board-relative
    instead (see the table in docs/bpgn.md), which is why the closing comment names the board.
    """
    if winner_team is None:
        return "1/2-1/2"
    return "1-0" if winner_team == Seat(BoardId.A, chess.WHITE).team else "0-1"


_CLOSING_PHRASES: Final = {
    "checkmate": "checkmated",
    "time": "forfeits on time",
    "resign": "resigns",
    "illegal move": "loses by an illegal move",  # the referee's claim (rows 10/13)
    "illegal_move": "loses by an illegal move",
}


def closing_comment_for(result: ResultDecided, players: Mapping[Seat, str]) -> str:
    """The deciding board, seat and reason, as the BPGN standard's sample closes a game.

    ``BobBughouse (BlackB) checkmated on board B``; without a configured name (absent, empty or
    ``?``) the seat alone: ``BlackB forfeits on time on board B``.
    """
    board = result.board
    if result.winner_team is None:
        return normalize_comment(f"Game drawn on board {board} ({result.reason})".replace("}", ")"))
    loser = next(
        Seat(board, color)
        for color in (chess.WHITE, chess.BLACK)
        if Seat(board, color).team != result.winner_team
    )
    phrase = _CLOSING_PHRASES.get(result.reason, f"loses ({result.reason})")
    text = f"{_seat_label(loser, players)} {phrase} on board {board}"
    return normalize_comment(text.replace("}", ")"))


def _seat_label(seat: Seat, players: Mapping[Seat, str]) -> str:
    name = normalize_comment(players.get(seat, ""))
    tag = PLAYER_TAGS[seat]
    return tag if name in {"", "?", "-"} else f"{name} ({tag})"


Correction = PositionAccepted | PocketSet  # an arbiter's correction, a comment in the record


def correction_comment(event: PositionAccepted | PocketSet) -> str:
    """The BPGN comment of an arbiter's correction (machine-readable, like ``steal``)."""
    if isinstance(event, PositionAccepted):
        return f"accepted {event.board}: {event.fen}"
    return f"pocket {event.board} {color_name(event.color)}: {event.pieces}"


def record_note(entry: ResultRevoked | Correction) -> str:
    if isinstance(entry, ResultRevoked):
        note = f"result {entry.revoked.bpgn_result} revoked: {entry.reason or 'arbiter'}"
    else:
        note = correction_comment(entry)
    return normalize_comment(note.replace("}", ")"))


def played_move(event: MovePlayed) -> PlayedMove:
    clock = None if event.clock_ms is None else event.clock_ms / 1000
    return PlayedMove(
        event.board,
        event.color,
        event.san,
        clock,
        event.steal,
        forced=event.forced,
        uci=event.move.uci,
    )


class PlainReader:
    """Two crazyhouse boards whose captures feed the partner's pocket: a plain BPGN reader."""

    def __init__(self, fens: Mapping[BoardId, str]) -> None:
        start = chess.variant.CrazyhouseBoard.starting_fen
        self.boards = {
            board: chess.variant.CrazyhouseBoard(fens.get(board, start)) for board in BoardId
        }

    def follow(self, move: BpgnMove, uci: str | None = None) -> BpgnMove:
        board = self.boards[move.board]
        plain = None if move.forced or move.is_null else self._parse(board, move)
        if plain is not None and uci is not None and plain.uci() != uci:
            plain = None  # the reader would play another move under the same SAN
        if plain is None:
            board.push(chess.Move.null())
            followable = move.forced or move.is_null
            return move if followable else replace(move, masked=True)
        self._push(move.board, plain)
        return move

    @staticmethod
    def _parse(board: chess.variant.CrazyhouseBoard, move: BpgnMove) -> chess.Move | None:
        if board.turn != move.color:
            return None
        try:
            return board.parse_san(move.san)
        except ValueError:
            return None

    def _push(self, board_id: BoardId, move: chess.Move) -> None:
        """Crazyhouse keeps a capture in the capturer's pocket; bughouse hands it to the partner,
        who plays the other colour on the other board."""
        board = self.boards[board_id]
        mover = board.turn
        before = [board.pockets[mover].count(piece) for piece in chess.PIECE_TYPES]
        board.push(move)
        for piece, count in zip(chess.PIECE_TYPES, before, strict=True):
            for _ in range(board.pockets[mover].count(piece) - count):
                board.pockets[mover].remove(piece)
                self.boards[board_id.other].pockets[not mover].add(piece)
