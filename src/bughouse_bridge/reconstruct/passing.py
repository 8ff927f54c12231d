"""A move the scanner showed only in passing (``through_passing_positions``): fast play can
leave a move on the board for less than the stability window; the placements seen since the last
commit are evidence, read only when the board now follows from them by legal plies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.chains import fits_changes
from bughouse_bridge.reconstruct.reading_values import Changes, Context, Legal
from bughouse_bridge.reconstruct.readings import one_ply, read

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BoardId


def through_passing_positions(  # noqa: PLR0913, PLR0917 - the reading's inputs
    match: Match,
    board: BoardId,
    physical: Mapping[BoardId, str],
    seen: Sequence[str],
    now: float,
    changes: Changes = (),
) -> Legal | None:
    """A move the scanner showed only in passing, then at most two plies to the board now.

    Fast play can leave a move on the board for less than the stability window, and its press
    reaches us after the opponent's hand is already on the board (the clock reports up to a
    second late). The placements seen since the last commit are evidence even if none settled,
    the way DgtDriver's reachable-positions graph uses them; a move is taken from them only if
    the board *now* follows from it by legal plies, so a transient alone never commits anything.
    """
    turn = match.turn(board)
    for placement in _distinct_latest_first(seen, skip=physical[board]):
        for move, color, judgement in one_ply(match, board, {**physical, board: placement}):
            if color != turn or not judgement.legal:
                continue
            after = match.copy()
            after.play(move, t=now)
            rest = read(after, board, physical, Context(now))
            plies = (move, *rest.moves) if isinstance(rest, Legal) else ()
            fits = fits_changes(match.position(board), plies, changes)
            if isinstance(rest, Legal) and rest.standing is None and fits:
                return Legal(plies)
    return None


def _distinct_latest_first(seen: Sequence[str], *, skip: str) -> list[str]:
    placements: list[str] = []
    for placement in reversed(seen):
        if placement != skip and placement not in placements:
            placements.append(placement)
    return placements[:_PASSING_POSITIONS_TRIED]


# Each try replays up to two plies of search; the last few placements are where a lost move is.
_PASSING_POSITIONS_TRIED = 8
