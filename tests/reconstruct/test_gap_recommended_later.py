"""Through the reconstructor: a gap left to the arbiter is weighed by the moves played after it,
as an arbiter would weigh it (issue 19). When they decide it, the fitting candidate is
recommended to the arbiter; nothing published is rewritten until he chooses (issue 18)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import chess
import pytest
from sensors import Table
from test_gap_games import FAST, GAMES, _in_game_order, replay_with_gap
from trace_gen import game_trace

from bughouse_bridge.bughouse.bpgn_document import BpgnDocument
from bughouse_bridge.bughouse.events import Alert, MovePlayed, Severity, Takeback
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import AlertCode, BoardId

if TYPE_CHECKING:
    from bughouse_bridge.reconstruct.outcomes import Outcome

A, B = BoardId.A, BoardId.B
# White on A holds a pawn, a knight and a bishop that Black on B took (material adds up);
# Black's e-pawn on A can take on f4.
FENS = {
    A: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[PNB] w KQkq - 0 2",
    B: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/R1BQK1NR w KQkq - 0 1",
}


def dropped_and_taken() -> tuple[Table, Alert]:
    """A's link is cut; White drops a piece on f4 and Black takes it (``X@f4 exf4``); the link
    is back: the placement cannot show which piece it was, the gap goes to the arbiter."""
    table = Table(fens=FENS)
    table.rec.on_link_state(A, False, table.t)
    unseen = table.physical[A]
    unseen.remove_piece_at(chess.E5)
    unseen.set_piece_at(chess.F4, chess.Piece(chess.PAWN, chess.BLACK))
    table.t += 8
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(1)
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []  # a better look may still settle it
    table.wait(table.rec.config.unexplained_limit)  # none did: the arbiter is asked
    (alert,) = table.alerts(AlertCode.GAP_AMBIGUOUS)
    firsts = [c["moves"]["A"][0] for c in alert.details["candidates"]]
    assert firsts == ["P@f4", "N@f4", "B@f4"]
    assert table.rec.match.open_gaps() == [alert.details["gap"]]
    return table, alert


def recommendations(table: Table) -> list[Alert]:
    """The alerts that recommend a candidate of a gap on the later moves' evidence."""
    return [a for a in table.alerts(AlertCode.GAP_AMBIGUOUS) if "recommended" in a.details]


def published(table: Table) -> list[tuple[str, int, str, bool]]:
    """The moves as published, in order: board, ply, UCI, recovered."""
    return [(str(e.board), e.ply, e.move.uci, e.recovered) for e in table.played()]


def illegal_alerts(table: Table) -> list[Alert]:
    return [o for o in table.alerts() if o.severity is Severity.ILLEGAL]


def recorded_moves(table: Table) -> list[tuple[str, int, str, bool]]:
    """The record's moves as they stand now: board, ply, UCI, recovered."""
    return [
        (str(event.board), event.ply, event.move.uci, event.recovered)
        for entry in table.rec.match.record
        for event in entry.events
        if isinstance(event, MovePlayed)
    ]


class Bpgn:
    """The record and its BPGN followed as the bridge follows them (synced after each step)."""

    def __init__(self) -> None:
        self.record, self.document = GameRecord(), BpgnDocument()

    def follow(self, table: Table) -> str:
        first = self.record.sync(table.rec.match.record)
        if first is not None:
            self.document.update(self.record.entries, first)
        return self.document.text({"Event": "t"}, self.record.result)


def fresh_bpgn(table: Table) -> str:
    return Bpgn().follow(table)


def test_the_partner_dropping_the_knight_recommends_the_knight_and_rewrites_nothing() -> None:
    table, asked = dropped_and_taken()
    gap = asked.details["gap"]
    bpgn = Bpgn()
    assert "{gap A: " in bpgn.follow(table)
    table.drop(B, "N", "e4").wait(3)  # White on B: the knight Black took on A
    assert table.moves(B) == ["N@e4"]
    assert illegal_alerts(table) == []
    # One candidate is left, but nobody moved on A yet: the side on move there is the gap's
    # guess (all its candidates leave White on move; the truth might not).
    assert recommendations(table) == []
    table.move(A, "g1f3").wait(3)  # White on move on A: the candidate stands
    (said,) = recommendations(table)
    assert said.severity is Severity.WARNING  # the gap is open until the arbiter chooses
    assert said.board is A
    assert said.details["gap"] == gap
    assert said.details["settled_by"] == {"board": "B", "uci": "N@e4"}
    knight = asked.details["candidates"][1]
    assert knight["moves"] == {"A": ["N@f4", "e5f4"], "B": []}
    assert said.details["recommended"] == knight  # index, UCI and SAN as the gap offered it
    assert said.details["recommended"]["san"] == {"A": ["N@f4", "exf4"], "B": []}
    # Nothing was rewritten: the moves since stand as published, numbered on from the fill,
    # and the gap is still open (the board uncertain) with its plies unpublished.
    assert published(table) == [("B", 1, "N@e4", False), ("A", 1, "g1f3", False)]
    match = table.rec.match
    assert match.open_gaps() == [gap]
    assert "{gap A: " in bpgn.follow(table)
    # Play goes on; the gap is not weighed again.
    table.move(B, "e7e5").wait(3).move(A, "b8c6").wait(3)
    assert stream_continues(table.out)
    assert len(recommendations(table)) == 1
    assert illegal_alerts(table) == []
    # The arbiter takes the recommendation: choose_recovery as ever, the gap's plies put
    # before the moves since (recovered), which are replayed on them.
    events = table.rec.choose_recovery(gap, said.details["recommended"]["index"], table.t)
    chosen = [(str(e.board), e.ply, e.move.uci) for e in events if isinstance(e, MovePlayed)]
    assert chosen[:2] == [("A", 1, "N@f4"), ("A", 2, "e5f4")]
    assert match.open_gaps() == []  # the board is no longer "uncertain"
    pockets = match.pockets()
    assert (pockets.of(A, chess.WHITE), pockets.of(B, chess.WHITE)) == ("PB", "")
    assert (match.ply(A), match.ply(B)) == (4, 2)
    assert recorded_moves(table) == [
        ("A", 1, "N@f4", True),
        ("A", 2, "e5f4", True),
        ("B", 1, "N@e4", False),
        ("A", 3, "g1f3", False),
        ("B", 2, "e7e5", False),
        ("A", 4, "b8c6", False),
    ]
    text = bpgn.follow(table)
    assert text == fresh_bpgn(table)
    assert "{gap" not in text
    assert text.index("N@f4") < text.index("exf4") < text.index("N@e4") < text.index("Nf3")


def test_the_droppers_own_later_drops_recommend_the_one_candidate_left() -> None:
    table, asked = dropped_and_taken()
    gap = asked.details["gap"]
    table.drop(A, "B", "c4").wait(3)  # the bishop is still in hand: not B@f4
    assert recommendations(table) == []
    assert table.rec.match.open_gaps() == [gap]
    table.move(A, "g8f6").wait(3).drop(A, "N", "h4").wait(3)  # and the knight: not N@f4
    # The moves since, published as played, and nothing put before them.
    assert published(table) == [
        ("A", 1, "B@c4", False),
        ("A", 2, "g8f6", False),
        ("A", 3, "N@h4", False),
    ]
    (said,) = recommendations(table)
    assert said.details["settled_by"] == {"board": "A", "uci": "N@h4"}
    assert said.details["recommended"] == asked.details["candidates"][0]
    assert said.details["recommended"]["moves"]["A"] == ["P@f4", "e5f4"]
    match = table.rec.match
    assert match.open_gaps() == [gap]
    assert match.ply(A) == 3
    events = table.rec.choose_recovery(gap, 0, table.t)
    assert [e.move.uci for e in events if isinstance(e, MovePlayed)][:2] == ["P@f4", "e5f4"]
    assert match.open_gaps() == []
    assert match.ply(A) == 5
    assert match.pockets().of(B, chess.WHITE) == "P"  # the pawn Black took went to B
    assert [ply for board, ply, _, _ in recorded_moves(table) if board == "A"] == [1, 2, 3, 4, 5]
    assert illegal_alerts(table) == []


def test_moves_every_candidate_allows_leave_the_gap_with_the_arbiter() -> None:
    table, asked = dropped_and_taken()
    table.move(B, "d2d4").wait(3).move(A, "g1f3").wait(3).move(B, "d7d5").wait(3)
    assert table.moves() == ["d2d4", "g1f3", "d7d5"]
    assert recommendations(table) == []
    assert table.rec.match.open_gaps() == [asked.details["gap"]]
    # The arbiter may still choose; the moves since are replayed on the chosen plies.
    events = table.rec.choose_recovery(asked.details["gap"], 2, table.t)
    assert [e.move.uci for e in events if isinstance(e, MovePlayed)] == ["B@f4", "e5f4"]
    assert table.rec.match.pockets().of(B, chess.WHITE) == "B"
    assert (table.rec.match.ply(A), table.rec.match.ply(B)) == (3, 2)


def test_after_the_arbiters_choice_a_later_drop_settles_nothing() -> None:
    table, asked = dropped_and_taken()
    table.rec.choose_recovery(asked.details["gap"], 0, table.t)  # the pawn, says the arbiter
    table.drop(B, "P", "e4").wait(3)
    assert table.moves(B) == ["P@e4"]
    table.move(B, "e7e5").wait(3).drop(B, "N", "d4").wait(10)  # a knight he does not have
    assert recommendations(table) == []
    assert [a.code for a in illegal_alerts(table)] == [AlertCode.DROP_NOT_IN_POCKET]
    assert table.rec.match.open_gaps() == []


def test_a_gap_no_candidate_of_which_fits_the_later_moves_stays_with_the_arbiter() -> None:
    """As if the solver had missed the truth (a knight taken): its candidates are only the pawn
    and the bishop. The partner's knight drop rules both out: the arbiter is told once, the gap
    stays open, and later moves settle nothing."""
    table, asked = dropped_and_taken()
    gap = asked.details["gap"]
    book = table.rec._resync._gaps
    solution = book.solution(gap)
    assert solution is not None
    missed = replace(solution, candidates=(solution.candidates[0], solution.candidates[2]))
    book.open(gap, missed, book.targets(gap))
    table.drop(B, "N", "e4").wait(3)
    assert table.moves(B) == ["N@e4"]
    contradicted = [a for a in table.alerts(AlertCode.GAP_AMBIGUOUS) if "contradicted" in a.details]
    assert len(contradicted) == 1
    assert contradicted[0].details["contradicted_by"] == {"board": "B", "uci": "N@e4"}
    assert contradicted[0].details["gap"] == gap
    table.move(B, "e7e5").wait(3).move(A, "g1f3").wait(3)
    assert (
        len([a for a in table.alerts(AlertCode.GAP_AMBIGUOUS) if "contradicted" in a.details]) == 1
    )
    assert recommendations(table) == []
    assert table.rec.match.open_gaps() == [gap]


def test_a_recommendation_a_later_move_does_not_fit_is_withdrawn_once() -> None:
    """The partner's knight drop recommends the knight story, in which the partner (White on B)
    has no pawn; then he drops one (the pocket as published, the pawn story's, holds it): the
    knight story cannot be the truth either, the recommendation is withdrawn, the gap stays with
    the arbiter."""
    table, asked = dropped_and_taken()
    gap = asked.details["gap"]
    table.drop(B, "N", "e4").wait(3).move(A, "g1f3").wait(3)
    (said,) = recommendations(table)
    assert said.details["recommended"]["index"] == 1  # the knight
    table.move(B, "e7e5").wait(3)
    assert withdrawals(table) == []  # a move every story allows
    table.drop(B, "P", "d4").wait(3)
    assert table.moves(B) == ["N@e4", "e7e5", "P@d4"]
    assert illegal_alerts(table) == []
    (withdrawn,) = withdrawals(table)
    assert withdrawn.severity is Severity.WARNING
    assert withdrawn.board is A
    assert withdrawn.details["gap"] == gap
    assert withdrawn.details["withdrawn"] == 1
    assert withdrawn.details["withdrawn_by"] == {"board": "B", "uci": "P@d4"}
    assert "withdrawn" in withdrawn.message
    table.move(A, "g8f6").wait(3).move(B, "e5d4").wait(3)
    assert len(withdrawals(table)) == 1  # told once; the gap is no longer weighed
    assert len(recommendations(table)) == 1
    assert table.rec.match.open_gaps() == [gap]  # still the arbiter's to choose


def test_a_recommendation_the_later_moves_keep_fitting_stands() -> None:
    table, _ = dropped_and_taken()
    table.drop(B, "N", "e4").wait(3).move(A, "g1f3").wait(3)
    table.move(A, "b8c6").wait(3).drop(A, "B", "c4").wait(3).move(B, "e7e5").wait(3)
    assert len(recommendations(table)) == 1
    assert withdrawals(table) == []


def withdrawals(table: Table) -> list[Alert]:
    return [a for a in table.alerts(AlertCode.GAP_AMBIGUOUS) if "withdrawn" in a.details]


# --- real games through the emulator: a gap in fast play, the later moves weigh it ----------

EMULATED = [
    # 5 s on A: two stories (Bc3 taken or not); a later bishop drop on A decides it.
    ("A", 5.0, 0.1, "recommended"),
    # 12 s on A: the later moves leave only a story two plies longer than the shortest; the
    # truth is longer still (recommending it would have been wrong): the arbiter is told which
    # fits, with no recommendation.
    ("A", 12.0, 0.5, "fits"),
    # 12 s on B: every story leaves White on move; Black moves first: none fits.
    ("B", 12.0, 0.2, "contradicted"),
]


@pytest.mark.parametrize(("cut", "length", "at", "outcome"), EMULATED)
def test_a_gap_in_a_real_game_is_weighed_by_the_moves_played_after_it(
    cut: str, length: float, at: float, outcome: str
) -> None:
    game = GAMES["1934301"]
    plan, records = game_trace(game, 0, pace=FAST)
    result, at_gap = replay_with_gap(records, frozenset({BoardId(cut)}), plan.end * at, length)
    rec = result.reconstructor
    truth = Match(get_preset("fics"))
    assert list(_in_game_order(game, plan, truth))
    gap_alerts = [
        o
        for o in result.outcomes[at_gap:]
        if isinstance(o, Alert) and o.code is AlertCode.GAP_AMBIGUOUS
    ]
    asked = [a for a in gap_alerts if "candidates" in a.details]
    weighed = [a for a in gap_alerts if {"recommended", "fits", "contradicted"} & a.details.keys()]
    assert len(asked) == 1
    assert len(weighed) == 1
    (said,) = weighed
    assert outcome in said.details
    gap = asked[0].details["gap"]
    assert said.details["gap"] == gap
    # Whatever the later moves told, nothing published was renumbered or put before them, and
    # the gap waits for the arbiter.
    assert stream_continues(result.outcomes)
    assert rec.match.open_gaps() == [gap]
    if outcome == "recommended":
        index = said.details["recommended"]["index"]
        assert said.details["recommended"] == asked[0].details["candidates"][index]
        # The arbiter follows the recommendation at the game's end: positions, pockets and
        # side on move exact, the whole game since replayed on the gap's plies.
        rec.choose_recovery(gap, index, plan.end + 60)
        assert rec.match.open_gaps() == []
        for board in BoardId:
            assert rec.match.fen(board).split()[:2] == truth.fen(board).split()[:2]
    illegal = [
        o
        for o in result.outcomes[at_gap:]
        if isinstance(o, Alert) and o.severity is Severity.ILLEGAL
    ]
    assert illegal == []


def stream_continues(outcomes: list[Outcome]) -> bool:
    """Each board's published plies number on by one (a takeback steps back one), as the
    hypothesis state machine requires of every stream."""
    last = dict.fromkeys(BoardId, 0)
    for outcome in outcomes:
        if isinstance(outcome, MovePlayed):
            if outcome.ply != last[outcome.board] + 1:
                return False
            last[outcome.board] = outcome.ply
        elif isinstance(outcome, Takeback):
            last[outcome.board] -= 1
    return True
