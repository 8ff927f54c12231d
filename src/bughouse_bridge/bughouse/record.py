"""The game record: what the match log put on record, entry by entry, in play order. Pure.

``Match`` pairs every entry of its log with a :class:`Recorded`: the record events that entry
produced (a move, a removal, a correction, a result, a revocation) and both boards after it. A
rewrite of the log (a takeback, a recovery chosen for a gap) builds the facts anew from the first
changed entry on and keeps the earlier ones, object for object.

:class:`GameRecord` follows those facts and keeps the record proper: the entries in the order
they were played (``n`` = index + 1), where entries read while a result stands are held back
until the result is revoked (they never count otherwise). Appending costs O(1); after a rewrite
only the entries from the first changed fact on are derived again, and :meth:`GameRecord.sync`
says from which entry the record changed, so every view of it (the BPGN, the retained record
topics, the archive) re-renders only from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, TypeGuard

from bughouse_bridge.bughouse.events import (
    Alert,
    MovePlayed,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
)
from bughouse_bridge.bughouse.types import AlertCode, BoardId

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import chess

    from bughouse_bridge.bughouse.events import MatchEvent, Pockets

RecordEvent = MovePlayed | Alert | PositionAccepted | PocketSet | ResultDecided | ResultRevoked


def is_removal(event: MatchEvent) -> bool:
    """The row 9 remedy: an illegal drop taken off the board (an alert that is on record)."""
    return isinstance(event, Alert) and event.code is AlertCode.ILLEGAL_DROP_REMOVED


def is_record_event(event: MatchEvent) -> TypeGuard[RecordEvent]:
    """Whether ``event`` is part of the game record (everything else is broadcast only)."""
    kinds = MovePlayed | PositionAccepted | PocketSet | ResultDecided | ResultRevoked
    return isinstance(event, kinds) or is_removal(event)


@dataclass(frozen=True, slots=True, eq=False)
class Recorded:
    """What one entry of the match log put on record, and where both boards stood after it.

    Compared by identity: a fact is the same fact only as long as the log entry behind it was
    not replayed (``GameRecord`` finds the first changed entry of a rewrite that way)."""

    t: float
    events: tuple[RecordEvent, ...]
    fens: Mapping[BoardId, str]  # both boards after, crazyhouse FEN with the pocket
    plies: Mapping[BoardId, int]
    pockets: Pockets
    gap: int | None = None  # a link gap set to what the boards showed (no events)

    def __deepcopy__(self, memo: dict[int, object]) -> Recorded:
        """Never changed once made: a copy of the match (a command's checkpoint) shares it."""
        return self


class EntryKind(StrEnum):
    MOVE = "move"
    REMOVAL = "removal"
    ACCEPTED = "accepted"
    POCKET_SET = "pocket_set"
    RESULT = "result"
    RESULT_REVOKED = "result_revoked"
    GAP = "gap"


_KINDS: dict[type, EntryKind] = {
    MovePlayed: EntryKind.MOVE,
    Alert: EntryKind.REMOVAL,
    PositionAccepted: EntryKind.ACCEPTED,
    PocketSet: EntryKind.POCKET_SET,
    ResultDecided: EntryKind.RESULT,
    ResultRevoked: EntryKind.RESULT_REVOKED,
}


@dataclass(frozen=True, slots=True, eq=False)
class RecordEntry:
    """One entry of the record: its event (None for a gap) and the boards after it."""

    kind: EntryKind
    event: RecordEvent | None
    after: Recorded

    @property
    def t(self) -> float:
        return self.after.t if self.event is None else self.event.t

    @property
    def board(self) -> BoardId | None:
        event = self.event
        return None if event is None or isinstance(event, ResultRevoked) else event.board

    @property
    def color(self) -> chess.Color | None:
        event = self.event
        return event.color if isinstance(event, MovePlayed | PocketSet | Alert) else None

    @property
    def ply(self) -> int | None:
        """That board's ply after this entry."""
        board = self.board
        return None if board is None else self.after.plies[board]

    def __deepcopy__(self, memo: dict[int, object]) -> RecordEntry:
        """Never changed once made: shared by copies."""
        return self


def entries_of(fact: Recorded) -> tuple[RecordEntry, ...]:
    if fact.gap is not None:
        return (RecordEntry(EntryKind.GAP, None, fact),)
    return tuple(RecordEntry(_KINDS[type(event)], event, fact) for event in fact.events)


@dataclass(frozen=True, slots=True)
class _Cursor:
    """Where the derivation stood before one fact: enough to go on from there after a rewrite.
    ``held`` is never changed in place once a revocation has moved its entries on record (a new
    list starts), so the list and its length restore it exactly."""

    entries: int
    held: list[RecordEntry]
    held_count: int
    decided: ResultDecided | None

    def __deepcopy__(self, memo: dict[int, object]) -> _Cursor:
        """Never changed once made (``held`` is read up to ``held_count`` only): shared."""
        return self


class GameRecord:
    """The record of one game, derived from the match's facts (``Match.record``)."""

    __slots__ = ("_cursors", "_decided", "_facts", "_held", "entries")

    def __init__(self) -> None:
        self.entries: list[RecordEntry] = []
        self._facts: list[Recorded] = []
        self._cursors: list[_Cursor] = []
        self._held: list[RecordEntry] = []  # read while a result stands
        self._decided: ResultDecided | None = None

    @property
    def result(self) -> ResultDecided | None:
        """The standing result (None: none, or revoked)."""
        return self._decided

    @property
    def moves(self) -> int:
        return sum(entry.kind is EntryKind.MOVE for entry in self.entries)

    def sync(self, facts: Sequence[Recorded]) -> int | None:
        """Follow the match's facts; return the index of the first entry that changed (None
        when the record is as it was). O(1) for facts appended since the last call."""
        start = self._first_new(facts)
        old, rewound = self.entries, start < len(self._facts)
        if rewound:
            self._rewind(start)
        kept = len(self.entries)
        for fact in facts[start:]:
            self._take(fact)
        if rewound:
            return _first_difference(old, self.entries, kept)
        return kept if len(self.entries) > kept else None

    def _first_new(self, facts: Sequence[Recorded]) -> int:
        seen = self._facts
        if len(facts) >= len(seen) and (not seen or facts[len(seen) - 1] is seen[-1]):
            return len(seen)  # facts were only appended (a rewrite renews all after its start)
        for index, (fact, known) in enumerate(zip(facts, seen, strict=False)):
            if fact is not known:
                return index
        return min(len(facts), len(seen))

    def _rewind(self, start: int) -> None:
        cursor = self._cursors[start]
        self.entries = self.entries[: cursor.entries]
        self._held = cursor.held[: cursor.held_count]
        self._decided = cursor.decided
        del self._facts[start:], self._cursors[start:]

    def _take(self, fact: Recorded) -> None:
        self._cursors.append(_Cursor(len(self.entries), self._held, len(self._held), self._decided))
        self._facts.append(fact)
        for entry in entries_of(fact):
            event = entry.event
            if isinstance(event, ResultDecided):
                self._decided = event
                self.entries.append(entry)
            elif isinstance(event, ResultRevoked):
                self._decided = None
                self.entries.extend(self._held)
                self._held = []
                self.entries.append(entry)
            elif self._decided is not None:
                self._held.append(entry)
            else:
                self.entries.append(entry)


def _first_difference(old: list[RecordEntry], new: list[RecordEntry], start: int) -> int | None:
    for index in range(start, min(len(old), len(new))):
        if old[index] is not new[index]:
            return index
    shorter = min(len(old), len(new))
    return None if len(old) == len(new) else shorter
