"""Replaying a BPGN game through the rules core (``Match``): what the file says, played. Pure.

Every half-move is parsed in its position and played; a forced illegal drop stands as row 9
says, its removal follows; a move that does not parse or is illegal raises
:class:`BpgnReplayError` naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.events import Alert
from bughouse_bridge.bughouse.types import BoardId, BughouseMove, color_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bughouse_bridge.bughouse.bpgn_model import BpgnGame, BpgnMove
    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match


class BpgnReplayError(ValueError):
    """A move of the game does not parse or is illegal under the match's rules."""

    def __init__(self, index: int, move: BpgnMove, reason: str) -> None:
        super().__init__(f"half-move {index + 1} ({move.label} {move.san}): {reason}")
        self.index = index
        self.move = move


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One replayed half-move: what the file says, what the match understood, what followed."""

    index: int
    move: BpgnMove
    bughouse_move: BughouseMove
    events: tuple[MatchEvent, ...]


def replay(
    game: BpgnGame,
    match: Match,
    *,
    times: Sequence[float] | None = None,
    force: bool = False,
) -> list[ReplayStep]:
    """Play every half-move of ``game`` on ``match`` (mutated), in file order.

    ``times`` gives each half-move's pipeline time ``t`` (default: its index). Raises
    :class:`BpgnReplayError` on the first move that does not parse or is illegal. A move marked
    ``forced`` (``-- {illegal P@b8}``) stands as an illegal drop (row 9); ``force`` lets every
    illegal drop of the file stand the same way, so a game recorded elsewhere with one replays.
    A null move ``--`` only confirms a turn that a removal already handed back; it makes no step.
    """
    if times is not None and len(times) != len(game.moves):
        raise ValueError(f"{len(times)} times for {len(game.moves)} half-moves")
    steps: list[ReplayStep] = []
    for index, move in enumerate(game.moves):
        t = float(index) if times is None else times[index]
        if move.is_null:
            _check_null(match, index, move)
            continue
        bughouse_move = _parse_move(match, index, move, force=force or move.forced)
        try:
            events = match.play(
                bughouse_move, t=t, clock_ms=move.clock_ms, force=force or move.forced
            )
            if move.removal is not None:
                events += _remove(match, move.removal, t)
        except ValueError as error:
            raise BpgnReplayError(index, move, str(error)) from error
        steps.append(ReplayStep(index, move, bughouse_move, tuple(events)))
    return steps


def _check_null(match: Match, index: int, move: BpgnMove) -> None:
    if match.turn(move.board) == move.color:
        raise BpgnReplayError(
            index, move, "a null move '--' may only follow a removal that gave the move back"
        )


def _remove(match: Match, removal: tuple[BoardId, chess.Square], t: float) -> list[MatchEvent]:
    board, square = removal
    events = match.remove_illegal_drop(board, t=t)
    removed = next(e for e in events if isinstance(e, Alert))
    if removed.details.get("square") != chess.square_name(square):
        where = removed.details.get("square")
        raise ValueError(f"the illegal drop on board {board} stood on {where}, not on {square}")
    return events


def _parse_move(match: Match, index: int, move: BpgnMove, *, force: bool) -> BughouseMove:
    if match.turn(move.board) != move.color:
        whose = f"{color_name(move.color)}'s turn on board {move.board}"
        raise BpgnReplayError(index, move, f"it is not {whose}")
    san = core_san(move)
    try:
        return match.parse_san(move.board, _full_san(match, move.board, san))
    except ValueError as error:
        if force and (drop := _drop_of(move.board, san)) is not None:
            return drop
        raise BpgnReplayError(index, move, str(error)) from error


def _full_san(match: Match, board: BoardId, san: str) -> str:
    """bughouse.pro writes a pawn capture without its file (``xe6``): find the one pawn."""
    if not san.startswith("x"):
        return san
    fitting: list[str] = []
    for file in "abcdefgh":
        try:
            match.parse_san(board, file + san)
        except ValueError:
            continue
        fitting.append(file + san)
    return fitting[0] if len(fitting) == 1 else san


def _drop_of(board: BoardId, san: str) -> BughouseMove | None:
    """A drop written in SAN, legal or not (``P@b8``, ``@e5``), as a move to force."""
    found = re.fullmatch(r"([PNBRQ]?)@([a-h][1-8])[+#]?", san)
    if found is None:
        return None
    piece = chess.PIECE_SYMBOLS.index((found[1] or "P").lower())
    square = chess.parse_square(found[2])
    return BughouseMove(board, chess.Move(square, square, drop=piece))


def core_san(move: BpgnMove) -> str:
    """The rules core writes a steal into the SAN itself: ``b8=Q(d1)``."""
    if move.steal is None:
        return move.san
    return f"{move.san.rstrip('+#')}({chess.square_name(move.steal[1])})"
