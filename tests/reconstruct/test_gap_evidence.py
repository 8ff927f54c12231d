"""Issue 19: a gap is solved from all the evidence — the clocks, the other board, the rules — the
game state first, the order second."""

from __future__ import annotations

import chess
from sensors import Table
from test_gap_reconnect import play_unseen

from bughouse_bridge.bughouse.bpgn_document import ORDER_GUESSED, BpgnDocument
from bughouse_bridge.bughouse.events import Alert, LinkChanged, MovePlayed, Severity, Takeback
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove
from bughouse_bridge.reconstruct.gap import GapEvidence, Verdict, end_state, solve_gap
from bughouse_bridge.reconstruct.solver.evidence import BoardClock, board_clock

A, B = BoardId.A, BoardId.B
START = chess.STARTING_FEN.replace(" w ", "[] w ")


def play(match: Match, board: BoardId, *ucis: str) -> Match:
    for uci in ucis:
        match.play(BughouseMove(board, chess.Move.from_uci(uci)), t=0.0)
    return match


def king_step() -> tuple[Match, Match]:
    """Black's king steps g8-f8 while White holds a bishop: ...Kg7, B@f8+, ...Kxf8 leaves the
    same placement with White's bishop gone."""
    fens = {A: "6k1/5p1p/8/8/8/8/5PPP/6K1[B] b - - 0 1", B: START}
    before = Match(get_preset("fics"), fens=fens)
    return before, play(before.copy(), A, "g8f8")


def test_without_the_clock_a_longer_explanation_makes_the_gap_ambiguous() -> None:
    before, truth = king_step()
    solution = solve_gap(before, {A: truth.board_fen(A)}, turns={A: chess.WHITE})
    assert solution.verdict is Verdict.AMBIGUOUS
    assert solution.candidates[0].end == end_state(truth)  # the most plausible first


def test_a_side_whose_time_did_not_move_made_no_move() -> None:
    before, truth = king_step()
    # Read to the millisecond: White's time is what it was, and White's clock runs now.
    clock = board_clock((60_000, 60_000, chess.BLACK), (60_000, 57_000, chess.WHITE))
    assert clock.most[chess.WHITE] == 0
    evidence = GapEvidence({A: clock})
    solution = solve_gap(before, {A: truth.board_fen(A)}, turns={A: None}, evidence=evidence)
    assert solution.verdict is Verdict.UNIQUE
    assert solution.candidates[0].end == end_state(truth)


def test_the_clock_evidence_allows_the_first_ply_of_the_side_thinking_as_the_gap_began() -> None:
    clock = board_clock((60_000, 60_000, chess.WHITE), (59_990, 60_000, chess.BLACK))
    assert clock.allows(chess.WHITE, 1)  # White moved 10 ms into the gap
    assert not clock.allows(chess.WHITE, 3)  # Black's time did not move: no black reply
    assert board_clock(None, (1, 1, None)) == BoardClock()


def test_a_dgt_reading_in_whole_seconds_proves_no_quick_move_absent() -> None:
    """A DGT clock shows seconds: an unchanged face may hide a move made in under a second."""
    clock = board_clock(
        (60_000, 60_000, chess.WHITE),
        (58_000, 60_000, chess.WHITE),
        resolution_ms=1000,
        min_ply_seconds=0.5,
    )
    assert (clock.most[chess.BLACK] or 0) >= 1


def test_plies_reaching_the_same_state_in_several_orders_are_published_with_the_orders() -> None:
    """Four independent plies: the state is certain, the order is not. The plies are published
    (recovered, ``order_certain`` false, the other orders in the resynced details) and the
    arbiter may re-order them with choose_recovery."""
    table = Table()
    table.rec.on_link_state(A, False, table.t)
    play_unseen(table, A, ["a2a3", "a7a6", "h2h3", "h7h6"])
    table.t += 5
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(2)
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []
    recovered = [m for m in table.played() if m.recovered]
    assert sorted(m.move.uci for m in recovered) == ["a2a3", "a7a6", "h2h3", "h7h6"]
    assert all(not m.order_certain for m in recovered)
    (resynced,) = [o for o in table.out if isinstance(o, LinkChanged) and o.status == "resynced"]
    details = resynced.details
    assert details["order_certain"] is False
    orders = details["candidates"]
    assert len(orders) >= 2
    assert orders[0]["moves"]["A"] == [m.move.uci for m in recovered]
    text = bpgn_text(table.rec.match)
    assert text.count(ORDER_GUESSED) == 1  # the stretch is marked once, at its first move
    fen = table.rec.match.fen(A)
    out = table.rec.choose_recovery(details["gap"], 1, table.t)
    assert len([o for o in out if isinstance(o, Takeback)]) == 4
    replayed = [o.move.uci for o in out if isinstance(o, MovePlayed)]
    assert replayed == orders[1]["moves"]["A"]
    assert table.rec.match.fen(A) == fen  # the same game, another order
    assert ORDER_GUESSED not in bpgn_text(table.rec.match)  # the arbiter's order is certain


def bpgn_text(match: Match) -> str:
    record = GameRecord()
    record.sync(match.record)
    document = BpgnDocument()
    document.update(record.entries, 0)
    return document.text({"Event": "t"}, record.result)


def test_a_drop_waiting_for_a_piece_captured_in_the_gap_is_solved_with_it() -> None:
    """Board A is cut while White takes a pawn there; on B, Black (White's partner) drops that
    pawn at once. The drop waits, without alerts, and both are published when A returns; the
    game goes on exactly."""
    table = Table("fics")
    for board, uci in [(A, "e2e4"), (A, "d7d5"), (B, "e2e4")]:
        table.move(board, uci).wait(3)
    table.rec.on_link_state(A, False, table.t)
    play_unseen(table, A, ["e4d5"])
    table.wait(2)
    table.drop(B, "p", "e5").wait(3)
    assert table.moves(B) == ["e2e4"]  # held: its piece came from the unheard board
    table.t += 5
    table.rec.on_link_state(A, True, table.t)
    table.dump(A)
    table.wait(2)
    assert table.alerts(AlertCode.GAP_AMBIGUOUS) == []
    assert table.moves(A) == ["e2e4", "d7d5", "e4d5"]
    assert table.moves(B) == ["e2e4", "P@e5"]
    table.move(A, "d8d5").wait(3)
    table.move(B, "g1f3").wait(3)
    assert table.moves(A)[-1] == "d8d5"
    assert table.moves(B)[-1] == "g1f3"
    illegal = [o for o in table.out if isinstance(o, Alert) and o.severity is Severity.ILLEGAL]
    assert illegal == []
