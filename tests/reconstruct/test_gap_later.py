"""A gap's candidates weighed by the moves played after it (``reconstruct.gap_later``): tables of
real cases, and a property over the real games: the truth is never ruled out."""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bughouse_bridge.bughouse.bpgn import parse_bpgn_game
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.match_log import Accepted, Entry, FlagFell, Played
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove, Seat
from bughouse_bridge.data import bundled_game, bundled_game_names
from bughouse_bridge.reconstruct.gap import Candidate, GapSolution, Verdict, end_state, solve_gap
from bughouse_bridge.reconstruct.gap_later import (
    LaterMove,
    LaterVerdict,
    each_board_moved,
    later_moves,
    settleable,
    weigh_later,
)

A, B = BoardId.A, BoardId.B
# White on A holds a pawn, a knight and a bishop; Black's e-pawn can take on f4.
POCKETED = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[PNB] w KQkq - 0 2"


def move(board: BoardId, uci: str) -> BughouseMove:
    return BughouseMove(board, chess.Move.from_uci(uci))


def later(*moves: tuple[BoardId, str]) -> list[LaterMove]:
    return [LaterMove(move(board, uci)) for board, uci in moves]


@pytest.fixture(scope="module")
def dropped_and_taken() -> tuple[Match, GapSolution]:
    """During a gap on A, White dropped a piece on f4 and Black took it (``X@f4 exf4``): the
    placement cannot show which, so the solver lists the pawn, the knight and the bishop; the
    piece went to White's pocket on B (the capturer's partner)."""
    before = Match(get_preset("dsj"), fens={A: POCKETED})
    truth = before.copy()
    for uci in ("N@f4", "e5f4"):
        truth.play(move(A, uci), t=0.0)
    solution = solve_gap(before, {A: truth.board_fen(A)})
    assert solution.verdict is Verdict.AMBIGUOUS
    assert settleable(solution)
    assert [c.moves[0].uci for c in solution.candidates] == ["P@f4", "N@f4", "B@f4"]
    return before, solution


@pytest.mark.parametrize(
    ("moves", "verdict", "survivors", "decided_by"),
    [
        # The partner on B drops the knight: only N@f4 put one in his pocket.
        ([(B, "N@e4")], LaterVerdict.SETTLED, ["N@f4"], 0),
        # A pawn drop on B: only P@f4 gave him a pawn.
        ([(B, "e2e4"), (B, "e7e5"), (B, "P@d4")], LaterVerdict.SETTLED, ["P@f4"], 2),
        # Nothing decisive: plain moves on both boards.
        (
            [(B, "d2d4"), (A, "g1f3"), (A, "b8c6")],
            LaterVerdict.OPEN,
            ["P@f4", "N@f4", "B@f4"],
            None,
        ),
        # The dropper's own later drops: the bishop rules out B@f4, then the knight N@f4.
        ([(A, "B@c4"), (A, "g8f6")], LaterVerdict.OPEN, ["P@f4", "N@f4"], 0),
        ([(A, "B@c4"), (A, "g8f6"), (A, "N@h4")], LaterVerdict.SETTLED, ["P@f4"], 2),
        # A rook nobody's gap can have brought: every candidate is ruled out.
        ([(B, "R@e4")], LaterVerdict.CONTRADICTED, [], 0),
        # Black on move on A: no candidate lets White move there first.
        ([(A, "g1f3")], LaterVerdict.OPEN, ["P@f4", "N@f4", "B@f4"], None),
        ([(A, "g1f3"), (A, "g1f3")], LaterVerdict.CONTRADICTED, [], 1),
        ([], LaterVerdict.OPEN, ["P@f4", "N@f4", "B@f4"], None),
    ],
)
def test_later_moves_rule_out_the_candidates_they_cannot_follow(
    dropped_and_taken: tuple[Match, GapSolution],
    moves: list[tuple[BoardId, str]],
    verdict: LaterVerdict,
    survivors: list[str],
    decided_by: int | None,
) -> None:
    before, solution = dropped_and_taken
    evidence = weigh_later(before, solution.candidates, later(*moves))
    assert evidence.verdict is verdict
    assert [solution.candidates[i].moves[0].uci for i in evidence.survivors] == survivors
    assert evidence.decided_by == decided_by
    assert len(evidence.states) == len(survivors)
    settled = evidence.verdict is LaterVerdict.SETTLED
    assert (evidence.chosen is not None) == settled
    if settled:
        assert evidence.chosen == evidence.survivors[0]


def test_a_forced_drop_is_replayed_as_it_stood_and_rules_nothing_out(
    dropped_and_taken: tuple[Match, GapSolution],
) -> None:
    before, solution = dropped_and_taken
    forced = [LaterMove(move(B, "R@e4"), forced=True)]
    evidence = weigh_later(before, solution.candidates, forced)
    assert evidence.verdict is LaterVerdict.OPEN
    assert len(evidence.survivors) == 3


def test_the_settled_state_is_the_candidates_followed_by_the_later_moves(
    dropped_and_taken: tuple[Match, GapSolution],
) -> None:
    before, solution = dropped_and_taken
    evidence = weigh_later(before, solution.candidates, later((B, "N@e4")))
    replay = before.copy()
    for played in (*solution.candidates[1].moves, move(B, "N@e4")):
        replay.play(played, t=0.0)
    assert evidence.states == (end_state(replay),)
    assert replay.pockets().of(B, chess.WHITE) == ""


def test_only_an_ambiguous_gap_whose_candidates_are_all_listed_is_settleable() -> None:
    candidates = (Candidate((), ("",)), Candidate((), ("x",)))
    assert settleable(GapSolution(Verdict.AMBIGUOUS, candidates))
    assert not settleable(GapSolution(Verdict.AMBIGUOUS, candidates, confirmed=False))
    assert not settleable(GapSolution(Verdict.UNKNOWN, candidates))
    assert not settleable(GapSolution(Verdict.NONE))
    assert not settleable(GapSolution(Verdict.UNIQUE, candidates[:1]))


def test_later_moves_are_the_logs_moves_unless_something_else_changed_a_board() -> None:
    drop, reply = move(B, "N@e4"), move(A, "g1f3")
    flag = FlagFell(1.0, Seat(A, chess.WHITE), 1.0)
    entries: list[Entry] = [
        Played(1.0, drop, None, force=True),
        flag,
        Played(2.0, reply, 900, force=False),
    ]
    assert later_moves(entries) == [LaterMove(drop, forced=True), LaterMove(reply)]
    assert later_moves([*entries, Accepted(3.0, A, "8/8/8/8/8/8/8/8")]) is None
    assert later_moves([]) == []


@pytest.mark.parametrize(
    ("boards", "moves", "moved"),
    [
        ([A], [(B, "N@e4")], False),
        ([A], [(B, "N@e4"), (A, "g1f3")], True),
        ([A, B], [(A, "g1f3")], False),
        ([A, B], [(A, "g1f3"), (B, "d2d4")], True),
        ([A], [], False),
    ],
)
def test_a_recommendation_waits_for_a_move_on_each_board_of_the_gap(
    boards: list[BoardId], moves: list[tuple[BoardId, str]], *, moved: bool
) -> None:
    assert each_board_moved(boards, later(*moves)) is moved


# --- the property: replaying real games, the truth is never ruled out -----------------------


def _real_games() -> list[list[BughouseMove]]:
    games = []
    for name in bundled_game_names():
        match = Match(get_preset("fics"))
        moves = []
        for bpgn_move in parse_bpgn_game(bundled_game(name)).moves:
            played = match.parse_san(bpgn_move.board, bpgn_move.san)
            match.play(played, t=0.0)
            moves.append(played)
        games.append(moves)
    return games


GAMES = _real_games()


def _decoys(before: Match, truth: Candidate) -> list[Candidate]:
    """Stories the gap's truth might be taken for: each of its drops made with another kind
    from the pocket (a piece dropped and taken at once leaves no trace of its kind; one that
    stays shows it, and the later moves tell it too), where the rest still replays."""
    decoys = []
    for index, played in enumerate(truth.moves):
        if played.move.drop is None:
            continue
        for kind in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            if kind == played.move.drop:
                continue
            square = played.move.to_square
            other = replace(played, move=chess.Move(square, square, drop=kind))
            moves = (*truth.moves[:index], other, *truth.moves[index + 1 :])
            replay = before.copy()
            if all(replay.play_quietly(m) for m in moves):
                decoys.append(Candidate(moves, end_state(replay)))
    return decoys


GAPS_WITH_A_DROP = [
    (game, index) for game, moves in enumerate(GAMES) for index, m in enumerate(moves) if m.is_drop
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drop=st.sampled_from(GAPS_WITH_A_DROP),
    lead=st.integers(0, 4),
    tail=st.integers(0, 3),
    after=st.integers(0, 40),
    first=st.booleans(),
)
def test_the_truth_is_never_ruled_out_and_a_decision_is_the_truth(
    drop: tuple[int, int], lead: int, tail: int, after: int, *, first: bool
) -> None:
    """A gap around a drop of a real game: the truth and its decoys as the candidates, the
    game's next plies as the later moves."""
    game, index = drop
    moves = GAMES[game]
    start, plies = max(0, index - lead), lead + 1 + tail
    before = Match(get_preset("fics"))
    for played in moves[:start]:
        before.play(played, t=0.0)
    gap = moves[start : start + plies]
    replay = before.copy()
    for played in gap:
        replay.play(played, t=0.0)
    truth = Candidate(tuple(gap), end_state(replay))
    decoys = _decoys(before, truth)
    candidates = [truth, *decoys] if first else [*decoys, truth]
    rest = [LaterMove(played) for played in moves[start + plies : start + plies + after]]
    evidence = weigh_later(before, candidates, rest)
    index = candidates.index(truth)
    event(f"{evidence.verdict}, {'some' if decoys else 'no'} decoys")
    assert index in evidence.survivors
    assert evidence.verdict is not LaterVerdict.CONTRADICTED
    if evidence.verdict is LaterVerdict.SETTLED:
        survivor = before.copy()
        for played in (*truth.moves, *(m.move for m in rest)):
            survivor.play(played, t=0.0)
        assert evidence.states == (end_state(survivor),)
