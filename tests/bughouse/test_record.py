"""The game record as a view of the match log (issue 20): facts, entries, the incremental BPGN."""

from __future__ import annotations

import dataclasses

import chess
import pytest

from bughouse_bridge.bughouse.bpgn import (
    game_from_match_log,
    parse_bpgn,
    parse_bpgn_game,
    replay,
    write_bpgn,
)
from bughouse_bridge.bughouse.bpgn_document import BpgnDocument
from bughouse_bridge.bughouse.events import MovePlayed
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.data import bundled_game, bundled_game_names

A, B = BoardId.A, BoardId.B


class Follower:
    """A match, and its record and BPGN kept up to date the way the bridge keeps them."""

    def __init__(self, preset: str = "fics") -> None:
        self.match = Match(get_preset(preset))
        self.record = GameRecord()
        self.document = BpgnDocument()
        self.t = 0.0
        self.changes: list[int | None] = []

    def sync(self) -> int | None:
        first = self.record.sync(self.match.record)
        if first is not None:
            self.document.update(self.record.entries, first)
        self.changes.append(first)
        return first

    def play(self, board: BoardId, *sans: str) -> int | None:
        for san in sans:
            self.t += 1.0
            self.match.play(self.match.parse_san(board, san), t=self.t, clock_ms=60_000)
        return self.sync()

    def kinds(self) -> list[str]:
        return [str(entry.kind) for entry in self.record.entries]

    def sans(self) -> list[str]:
        return [e.event.san for e in self.record.entries if isinstance(e.event, MovePlayed)]

    def text(self) -> str:
        return self.document.text({"Event": "t"}, self.record.result)

    def fresh_text(self) -> str:
        record = GameRecord()
        record.sync(self.match.record)
        document = BpgnDocument()
        document.update(record.entries, 0)
        return document.text({"Event": "t"}, record.result)


def test_each_appended_move_is_one_new_entry_and_nothing_else_changes():
    game = Follower()
    assert game.play(A, "e4") == 0
    assert game.play(B, "d4") == 1
    assert game.play(A, "e5") == 2
    assert game.sync() is None  # nothing new
    assert game.kinds() == ["move"] * 3
    entry = game.record.entries[1]
    assert (entry.board, entry.color, entry.ply) == (B, chess.WHITE, 1)
    assert entry.after.fens[A] == game.record.entries[0].after.fens[A]  # both boards, each entry
    assert game.text() == game.fresh_text()


def test_moves_read_while_a_result_stands_count_only_once_it_is_revoked():
    game = Follower()
    game.play(A, "e4", "e5")
    game.match.set_result(0, A, "resign", t=10.0)
    assert game.sync() == 2
    assert game.play(B, "d4") is None  # read after the result: held back
    assert game.play(B, "d5") is None
    game.match.revoke_result(t=20.0, reason="wrong board")
    assert game.sync() == 3
    assert game.kinds() == ["move", "move", "result", "move", "move", "result_revoked"]
    assert game.text() == game.fresh_text()
    assert "{result 1-0 revoked: wrong board}" in game.text()


def test_a_takeback_of_a_move_held_after_the_result_keeps_the_ones_before_it():
    game = Follower()
    game.play(A, "e4")
    game.match.set_result(1, A, "resign", t=5.0)
    game.sync()
    game.play(B, "d4", "d5")
    game.match.takeback(B, t=8.0)
    assert game.sync() is None  # only held entries changed
    game.match.revoke_result(t=9.0)
    game.sync()
    assert game.sans() == ["e4", "d4"]
    assert game.text() == game.fresh_text()


def test_a_takeback_rewrites_the_record_from_the_taken_back_move_on():
    game = Follower()
    game.play(A, "e4", "e5")
    game.play(B, "d4")
    game.play(A, "Nf3")
    before = list(game.record.entries)
    game.match.takeback(A, t=20.0)
    assert game.sync() == 3  # Nf3 goes; e4, e5 and d4 are the very same entries
    assert game.record.entries == before[:3]
    assert game.sans() == ["e4", "e5", "d4"]
    assert game.text() == game.fresh_text()
    game.play(A, "Nc3")
    assert game.sans() == ["e4", "e5", "d4", "Nc3"]
    assert game.text() == game.fresh_text()


def test_a_takeback_of_an_earlier_move_rewrites_the_later_ones_of_the_other_board():
    game = Follower()
    game.play(A, "e4")
    game.play(B, "d4", "d5")
    game.match.takeback(A, t=9.0)
    assert game.sync() == 0
    assert game.sans() == ["d4", "d5"]
    assert game.text() == game.fresh_text()


def test_a_chosen_recovery_puts_the_gaps_plies_where_the_gap_was():
    """Issue 20: after ``choose_recovery`` the BPGN had the gap's plies after later moves
    (``4A. -- 4a. e6 5A. Ra2 5a. Nd5 6A. Ra1``)."""
    game = Follower()
    game.play(A, "e4", "e5")
    unseen = game.match.copy()
    plies = [unseen.parse_san(A, "Nf3")]
    unseen.play(plies[0], t=0.0)
    plies.append(unseen.parse_san(A, "Nc6"))
    unseen.play(plies[1], t=0.0)
    game.match.fill_gap(1, {b: unseen.fen(b) for b in BoardId}, boards=[A], t=5.0)
    assert game.sync() == 2
    assert game.kinds() == ["move", "move", "gap"]
    assert "{gap A: " in game.text()
    game.play(B, "d4")
    game.play(A, "Bc4")
    game.match.resolve_gap(1, plies, t=9.0)
    assert game.sync() == 2
    assert game.sans() == ["e4", "e5", "Nf3", "Nc6", "d4", "Bc4"]
    assert [e.event.recovered for e in game.record.entries[2:4]] == [True, True]  # type: ignore[union-attr]
    moves = parse_bpgn_game(game.text()).moves
    assert [f"{m.label} {m.san}" for m in moves] == [
        "1A. e4",
        "1a. e5",
        "2A. Nf3",
        "2a. Nc6",
        "1B. d4",
        "3A. Bc4",
    ]
    assert game.text() == game.fresh_text()


def test_corrections_and_removals_annotate_the_move_before_them():
    game = Follower("dsj")
    game.play(A, "e4")
    knight = chess.Move(chess.F6, chess.F6, drop=chess.KNIGHT)
    game.match.play(BughouseMove(A, knight), t=3.0, force=True)
    game.match.remove_illegal_drop(A, t=4.0)
    game.match.set_pocket(B, chess.WHITE, "PN", t=5.0)
    game.sync()
    assert game.kinds() == ["move", "move", "removal", "pocket_set"]
    assert (
        "--{0 (clock not read)} {illegal N@f6} {removed A:f6} {pocket B white: PN}" in game.text()
    )
    assert game.text() == game.fresh_text()


@pytest.mark.parametrize("name", bundled_game_names())
def test_the_document_writes_what_the_whole_game_writer_writes(name):
    """Same text as ``write_bpgn(game_from_match_log(...))``, built one entry at a time."""
    game = parse_bpgn(bundled_game(name))[0]
    follower = Follower()
    events = []
    for index, move in enumerate(game.moves):
        one = dataclasses.replace(game, moves=(move,))
        (step,) = replay(one, follower.match, times=[float(index)], force=True)
        events += step.events
        assert follower.sync() == len(follower.changes) - 1  # one new entry a move
    tags = {"Event": "t", "WhiteA": "a"}
    whole = write_bpgn(game_from_match_log(events, tags=tags))
    assert follower.document.text(tags, follower.record.result) == whole
