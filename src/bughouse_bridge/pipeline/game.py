"""One game: who plays it, what the boards show beyond the match, and its record.

A :class:`Game` is made fresh for every game (``lifecycle.start_game``), so nothing of one game
can leak into the next: not the views, not ``after_result``, not the record or its numbering.

Its record is a view of the match log (:class:`~bughouse_bridge.bughouse.record.GameRecord`);
:meth:`Game.sync` follows the log after each step and returns the first record entry that
changed, from which the BPGN (:class:`~bughouse_bridge.bughouse.bpgn_document.BpgnDocument`)
and the retained record topics (:meth:`Game.record_publications`) are written anew.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import chess

from bughouse_bridge.bughouse.bpgn import record_date_tags
from bughouse_bridge.bughouse.bpgn_document import BpgnDocument
from bughouse_bridge.bughouse.events import (
    Alert,
    Mate,
    MateStatus,
    MovePlayed,
    PocketSet,
    ResultDecided,
    ResultRevoked,
    Stalemate,
    StalemateStatus,
)
from bughouse_bridge.bughouse.record import EntryKind, GameRecord
from bughouse_bridge.bughouse.types import BoardId, color_name

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.record import RecordEntry
    from bughouse_bridge.reconstruct import ClockReading
    from bughouse_bridge.topics import Publication, Teams, Wire


@dataclass(frozen=True, slots=True)
class GameId:
    """Which game this is. ``number`` counts the games under one match id (``new_game``), or
    is the hall's ``g<k>``; ``round`` and ``table`` are the hall's (None outside a hall)."""

    match: str
    number: int
    teams: Teams
    started: float  # pipeline time the game began
    round: int | None = None
    table: int | None = None
    tags: Mapping[str, str] = field(default_factory=dict)  # BPGN tags but Date and Result


@dataclass(slots=True)
class BoardView:
    """The snapshot's per-board part that the match does not hold."""

    status: str = "playing"
    last_move: str | None = None
    white_ms: int | None = None
    black_ms: int | None = None
    running: chess.Color | None = None

    def clock(self) -> dict[str, Any]:
        running = None if self.running is None else color_name(self.running)
        return {"white_ms": self.white_ms, "black_ms": self.black_ms, "running": running}


_MATE_STATUS = {
    MateStatus.PENDING: "mate_pending",
    MateStatus.AVERTED: "playing",
    MateStatus.FINAL: "mated",
}


class Game:
    """One game's views, record and BPGN (pure; the match itself is the reconstructor's)."""

    __slots__ = (
        "after_result",
        "archived",
        "document",
        "id",
        "published",
        "record",
        "views",
    )

    def __init__(self, game_id: GameId, fens: Mapping[BoardId, str] | None = None) -> None:
        self.id = game_id
        self.views = {board: BoardView() for board in BoardId}
        self.after_result = False  # a result was published and not revoked since
        self.record = GameRecord()
        self.document = BpgnDocument(fens)
        # What each retained record entry was published with: (entry, the clocks then).
        self.published: list[tuple[RecordEntry, dict[str, Any]]] = []
        self.archived = False  # its file was written once: every later change rewrites it

    # -- the boards beyond the match ---------------------------------------------------------

    def note(self, event: MatchEvent) -> bool:
        """Take ``event`` into the views; whether it comes after a standing result."""
        after = self.after_result
        match event:
            case MovePlayed():
                self.views[event.board].last_move = event.move.uci
                self.views[event.board].status = "playing"
            case Mate():
                self.views[event.board].status = _MATE_STATUS[event.status]
            case Stalemate():
                waiting = event.status is StalemateStatus.WAITING
                self.views[event.board].status = "stalemate" if waiting else "playing"
            case ResultDecided():
                self.after_result = True
                for view in self.views.values():
                    view.status = "finished"
            case ResultRevoked():
                self.after_result = False
                for view in self.views.values():
                    view.status = "playing" if view.status == "finished" else view.status
            case _:
                pass
        return after

    def clock_reading(self, reading: ClockReading) -> dict[str, Any]:
        view = self.views[reading.board]
        view.white_ms, view.black_ms = reading.white_ms, reading.black_ms
        view.running = reading.running
        return view.clock()

    def snapshot(self, match: Match, connected: Mapping[BoardId, bool]) -> dict[str, Any]:
        """The state snapshot's game part (contract §4): teams, boards, pockets, result, claims."""
        result = match.result
        return {
            **self.id.teams.as_dict(),
            "boards": {
                str(board): self._board(match, board, connected[board]) for board in BoardId
            },
            "pockets": match.pockets().as_dict(),
            "result": None if result is None else result_dict(result, self.id.teams),
            "claims": match.open_claims(),
        }

    def _board(self, match: Match, board: BoardId, connected: bool) -> dict[str, Any]:  # noqa: FBT001 - a value, not a switch
        view = self.views[board]
        return {
            "fen": match.fen(board),
            "turn": color_name(match.turn(board)),
            "ply": match.ply(board),
            "last_move": view.last_move,
            "status": view.status,
            "clock": view.clock(),
            "link": "connected" if connected else "disconnected",
            # A gap left to the arbiter covers this board: what it shows is a guess until chosen.
            "uncertain": any(board in match.gap_filled(gap) for gap in match.open_gaps()),
        }

    # -- the record --------------------------------------------------------------------------

    def sync(self, match: Match) -> int | None:
        """Follow the match log; the first record entry that changed (None: none did)."""
        first = self.record.sync(match.record)
        if first is not None:
            self.document.update(self.record.entries, first)
        return first

    @property
    def result(self) -> ResultDecided | None:
        return self.record.result

    @property
    def played(self) -> bool:
        """Whether anything is on record (a move, a correction, a result, a gap)."""
        return bool(self.record.entries)

    def tags(self, origin_epoch: float) -> dict[str, str]:
        """The BPGN tags in PGN order: Date and Time (of the first move) after the Site."""
        tags = dict(self.id.tags)
        head: dict[str, str] = {key: tags.pop(key) for key in ("Event", "Site") if key in tags}
        first = self.document.first_move_t
        date = record_date_tags(origin_epoch, self.id.started if first is None else first)
        return {**head, **date, **tags}

    def bpgn_text(self, origin_epoch: float) -> str:
        return self.document.text(self.tags(origin_epoch), self.result)

    def record_publications(self, wire: Wire, first: int) -> list[Publication]:
        """The retained record topics from entry ``first`` on: the changed entries, empty
        messages for entries beyond the record's end, the header and the BPGN."""
        entries = self.record.entries
        clocks = {str(board): view.clock() for board, view in self.views.items()}
        published = self.published
        stale = published[first:]  # as published before: only what changed (O(1) a move)
        del published[first:]
        publications = []
        for index in range(first, len(entries)):
            entry = entries[index]
            was = stale[index - first] if index - first < len(stale) else None
            kept = was[1] if was is not None and _same_moment(was[0], entry) else clocks
            fields = entry_fields(entry, self.id.teams, kept)
            publications.append(wire.record_entry(index + 1, entry.t, fields))
            published.append((entry, kept))
        ended = first + len(stale)
        publications += [wire.record_cleared(n) for n in range(len(entries) + 1, ended + 1)]
        text = self.bpgn_text(wire.origin_epoch)
        return [*publications, wire.record_header(self.header()), wire.bpgn(text)]

    def header(self) -> dict[str, Any]:
        teams = self.id.teams
        result = self.result
        return {
            "entries": len(self.record.entries),
            "game": self.id.number,
            "round": self.id.round,
            "table": self.id.table,
            **teams.as_dict(),
            "result": None if result is None else result_dict(result, teams),
            "start": self.document.start,
        }


def result_dict(result: ResultDecided, teams: Teams) -> dict[str, Any]:
    return {
        "winner": teams.id_of(result.winner_team),
        "board": str(result.board),
        "reason": result.reason,
        "bpgn_result": result.bpgn_result,
    }


def _same_moment(old: RecordEntry, new: RecordEntry) -> bool:
    """A rewritten entry that stands for the same happening keeps the clocks it had."""
    return (old.kind, old.t, old.board, old.ply) == (new.kind, new.t, new.board, new.ply)


def entry_fields(entry: RecordEntry, teams: Teams, clocks: Mapping[str, Any]) -> dict[str, Any]:
    """A record entry's payload fields (contract §2, "The game record")."""
    event, after = entry.event, entry.after
    board, color = entry.board, entry.color
    fields: dict[str, Any] = {
        "kind": str(entry.kind),
        "board": None if board is None else str(board),
        "color": None if color is None else color_name(color),
        "ply": entry.ply,
        "uci": None,
        "san": None,
        "steal": None,
        "forced": False,
        "recovered": False,
        "order_certain": True,
        "boards": {str(b): {"fen": after.fens[b], "ply": after.plies[b]} for b in BoardId},
        "pockets": after.pockets.as_dict(),
        "clocks": dict(clocks),
        "details": _details(entry, teams),
    }
    if isinstance(event, MovePlayed):
        fields |= {
            "uci": event.move.uci,
            "san": event.san,
            "steal": None
            if event.steal is None
            else {
                "board": str(event.steal.board),
                "square": chess.square_name(event.steal.square),
                "piece": event.steal.piece.symbol(),
            },
            "forced": event.forced,
            "recovered": event.recovered,
            "order_certain": event.order_certain,
        }
    return fields


def _details(entry: RecordEntry, teams: Teams) -> dict[str, Any]:
    event = entry.event
    match event:
        case ResultDecided():
            return result_dict(event, teams)
        case ResultRevoked():
            return {"reason": event.reason, "revoked": result_dict(event.revoked, teams)}
        case PocketSet():
            return {"pieces": event.pieces}
        case Alert():
            return {"square": event.details.get("square"), "piece": event.details.get("piece")}
        case None if entry.kind is EntryKind.GAP:
            return {"gap": entry.after.gap}
        case _:
            return {}
