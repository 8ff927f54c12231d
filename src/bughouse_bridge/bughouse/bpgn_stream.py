"""The BPGN game of a flat event stream, through the one writer. Pure.

Tests, benchmarks and tools that hold a match's events rather than its record (the events that
``Match.play``, ``takeback``, ``set_result`` ... returned, in order) get their game here:
:func:`game_from_match_log` keeps what is part of the game (takebacks undone, moves read after a
standing result left out until it is revoked) and hands those entries to
:class:`~bughouse_bridge.bughouse.bpgn_document.BpgnDocument`, which writes them as it writes the
live record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn_document import BpgnDocument, diverges
from bughouse_bridge.bughouse.events import (
    Alert,
    MovePlayed,
    Pockets,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    Takeback,
)
from bughouse_bridge.bughouse.record import Recorded, entries_of, is_removal

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from bughouse_bridge.bughouse.bpgn_model import BpgnGame
    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.types import BoardId

_Entry = MovePlayed | Alert | ResultRevoked | PositionAccepted | PocketSet  # kept in time order


def game_from_match_log(
    events: Iterable[MatchEvent],
    *,
    tags: Mapping[str, str] | None = None,
    comments: Sequence[str] = (),
    fens: Mapping[BoardId, str] | None = None,
) -> BpgnGame:
    """The game so far, from the match's event stream: moves (takebacks undone) and result.

    Besides moves, takebacks and results the stream may hold the ``illegal_drop_removed`` alerts
    (row 9): they become the ``removal`` of the half-move before them. Moves read after a
    standing result are not part of the game; a revoked result lets them in, and the move before
    the revocation says so in a comment (``{result 0-1 revoked: wrong board}``). An arbiter's
    correction (``PositionAccepted``, ``PocketSet``) becomes a comment after the move it followed
    (an opening comment before the first move): ``{accepted A: <FEN>}``, ``{pocket A white: PPN}``;
    a takeback of that move hands it to the move before. ``fens``: the start positions when the
    match began from set-up ones (as ``Match`` takes them).
    """
    kept, decided = _game_events(events)
    entries = [entry for event in kept for entry in entries_of(_fact(event))]
    # The stream carries no positions between its moves: the plain reader follows from the
    # start when anything makes its positions differ from ours.
    document = BpgnDocument(fens, plain_from_start=any(diverges(entry) for entry in entries))
    document.update(entries, 0)
    return document.game(tags or {}, decided, comments)


def _game_events(events: Iterable[MatchEvent]) -> tuple[list[_Entry], ResultDecided | None]:
    """The events that are part of the game, in order, and the standing result."""
    entries: list[_Entry] = []
    decided: ResultDecided | None = None
    cut: int | None = None  # how many entries the game had when its result was decided
    for event in events:
        if isinstance(event, MovePlayed | ResultRevoked | PositionAccepted | PocketSet):
            entries.append(event)
        elif is_removal(event):
            assert isinstance(event, Alert)
            entries.append(event)
        if isinstance(event, Takeback):
            entries = _after_takeback(entries, event)
            cut = None if cut is None else min(cut, len(entries))
        elif isinstance(event, ResultDecided):
            decided = event
            cut = len(entries) if cut is None else cut
        elif isinstance(event, ResultRevoked):
            decided, cut = None, None
    return (entries if cut is None else entries[:cut]), decided


def _fact(event: _Entry) -> Recorded:
    """The event as a record fact; the positions after it are not known (nor asked for)."""
    pockets = (
        event.pockets if isinstance(event, MovePlayed | PositionAccepted | PocketSet) else None
    )
    return Recorded(event.t, (event,), {}, {}, pockets or Pockets())


def _after_takeback(entries: list[_Entry], takeback: Takeback) -> list[_Entry]:
    """Drop the board's moves beyond the takeback's ply, and removals that followed them."""
    kept: list[_Entry] = []
    plies = 0
    for entry in entries:
        on_board = isinstance(entry, MovePlayed | Alert) and entry.board is takeback.board
        if on_board:
            if isinstance(entry, MovePlayed):
                plies += 1
            if plies > takeback.ply:
                continue
        kept.append(entry)
    return kept
