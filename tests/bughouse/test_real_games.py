"""The two real bughousedb games, replayed through the rules core under ``fics``.

Every half-move must be legal without ``force`` (pockets fed across the boards in file order), and
each game's end must come out as it did on FICS: 1283326 was aborted (no result), 1934301 ended
with ``23B. B@g7#``, a final mate of Black B (BobBughouse), "1-0" board-relative, won by White B's
team (White B with Black A).
"""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_bridge.bughouse.bpgn import (
    BpgnGame,
    BpgnReplayError,
    ReplayStep,
    game_from_match_log,
    game_from_moves,
    parse_bpgn_game,
    replay,
    write_bpgn,
)
from bughouse_bridge.bughouse.events import Mate, MateStatus, MovePlayed, ResultDecided, StealInfo
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, Seat
from bughouse_bridge.data import bundled_game, bundled_game_names

ABORTED, DECISIVE = "1283326", "1934301"


def load(name: str) -> BpgnGame:
    return parse_bpgn_game(bundled_game(name))


def replayed(name: str) -> tuple[BpgnGame, Match, list[ReplayStep]]:
    game = load(name)
    match = Match(get_preset("fics"))
    return game, match, replay(game, match)


@pytest.mark.parametrize("name", bundled_game_names())
def test_every_move_is_legal_in_file_order(name):
    game, match, steps = replayed(name)
    assert len(steps) == len(game.moves)
    for step in steps:
        played = [event for event in step.events if isinstance(event, MovePlayed)]
        assert len(played) == 1, step.move
        assert (played[0].board, played[0].color) == (step.move.board, step.move.color)
        assert not played[0].forced
        assert played[0].clock_ms == step.move.clock_ms
    for board in BoardId:
        assert match.ply(board) == sum(move.board is board for move in game.moves)


@pytest.mark.parametrize("name", bundled_game_names())
def test_the_rules_core_writes_the_same_san_as_fics(name):
    """Including ``+`` and ``#``: under ``fics`` the core judges mate as FICS did."""
    _, _, steps = replayed(name)
    for step in steps:
        (played,) = [event for event in step.events if isinstance(event, MovePlayed)]
        assert played.san == step.move.san, step.move


@pytest.mark.parametrize("name", bundled_game_names())
def test_drops_come_from_pockets_fed_by_the_other_board(name):
    """Every drop's piece is in the mover's pocket, and got there by the partner's captures."""
    game = load(name)
    match = Match(get_preset("fics"))
    drops = 0
    for index, move in enumerate(game.moves):
        bughouse_move = match.parse_san(move.board, move.san)
        if bughouse_move.move.drop is not None:
            drops += 1
            letter = chess.piece_symbol(bughouse_move.move.drop).upper()
            assert letter in match.pockets().of(move.board, move.color), move
        match.play(bughouse_move, t=float(index), clock_ms=move.clock_ms)
    assert drops == sum("@" in move.san for move in game.moves)


def test_aborted_game_just_stops():
    game, match, steps = replayed(ABORTED)
    assert game.result == "*"
    assert match.result is None
    assert not [e for step in steps for e in step.events if isinstance(e, ResultDecided | Mate)]


def test_decisive_game_ends_with_a_final_mate_on_board_b():
    game, match, steps = replayed(DECISIVE)
    *earlier, last = steps
    assert (last.move.label, last.move.san) == ("23B.", "B@g7#")
    assert not [e for step in earlier for e in step.events if isinstance(e, ResultDecided)]
    mates = [e for e in last.events if isinstance(e, Mate)]
    assert [(m.board, m.color, m.status) for m in mates] == [
        (BoardId.B, chess.BLACK, MateStatus.FINAL)
    ]
    (result,) = [e for e in last.events if isinstance(e, ResultDecided)]
    assert game.result == "1-0"  # FICS: board-relative, White B won the deciding game
    assert result.bpgn_result == "0-1"  # ours: team-relative, Black A + White B won
    assert result.board is BoardId.B
    assert result.reason == "checkmate"
    assert result.winner_team == Seat(BoardId.B, chess.WHITE).team
    assert result.winner_team == Seat(BoardId.A, chess.BLACK).team
    assert match.result == result
    assert game.players[Seat(BoardId.B, chess.BLACK)] == "BobBughouse"


@pytest.mark.parametrize("name", bundled_game_names())
def test_match_log_gives_back_the_moves(name):
    """What the bridge publishes as "the game so far" numbers and times moves like bughousedb."""
    game, _, steps = replayed(name)
    events = [event for step in steps for event in step.events]
    rebuilt = game_from_match_log(events, tags=game.tags, comments=game.comments)
    assert rebuilt.moves == tuple(replace(move, comments=()) for move in game.moves)


def test_match_log_gives_back_the_decisive_game_in_our_result_convention():
    """Moves, clocks and tags byte for byte; the Result becomes team-relative ("0-1": Black A +
    White B won, where FICS wrote the board-relative "1-0") and the closing comment names the
    deciding board and seat."""
    game, _, steps = replayed(DECISIVE)
    events = [event for step in steps for event in step.events]
    rebuilt = game_from_match_log(events, tags=game.tags, comments=game.comments)
    expected = (
        bundled_game(DECISIVE)
        .replace('[Result "1-0"]', '[Result "0-1"]')
        .replace("{BobBughouse checkmated} 1-0", "{BobBughouse (BlackB) checkmated on board B} 0-1")
    )
    assert write_bpgn(rebuilt) == expected


# --------------------------------------------------------------------------------------------
# Replay: steals, errors, and games the rules core generates

STEAL_FENS = {
    BoardId.A: "k7/4P3/8/8/8/8/8/K7 w - - 0 1",
    BoardId.B: "4k3/8/8/8/8/8/8/3NK3 w - - 0 1",
}


def test_steal_promotion_replays_and_comes_back_from_the_log():
    game = game_from_moves([(BoardId.A, chess.WHITE, "e8=N", 100.0, (BoardId.B, chess.D1))])
    match = Match(get_preset("dsj"), fens=STEAL_FENS)
    (step,) = replay(game, match)
    (played,) = [e for e in step.events if isinstance(e, MovePlayed)]
    assert played.steal == StealInfo(BoardId.B, chess.D1, chess.Piece(chess.KNIGHT, chess.WHITE))
    assert match.position(BoardId.B).piece_at(chess.D1) is None
    rebuilt = game_from_match_log(step.events, fens=STEAL_FENS)
    assert rebuilt.moves == game.moves  # from the set-up position a plain reader follows it too
    assert "1A. e8=N{100} {steal B:d1}" in write_bpgn(rebuilt)


@pytest.mark.parametrize(
    ("text", "rules", "index", "fragment"),
    [
        ("1A. e4 1a. e5 2A. Ke3 *", "fics", 2, "illegal san"),
        ("1A. e4 2A. d4 *", "fics", 1, "not white's turn on board A"),
        # White A's capture feeds Black B, not White B.
        ("1A. e4 1B. e4 1a. d5 2A. exd5 1b. d6 2B. P@e3 *", "fics", 5, "holds no pawn"),
        ("1A. e4 1a. P@e5 *", "fics", 1, "holds no pawn"),
    ],
)
def test_replay_names_the_first_bad_half_move(text, rules, index, fragment):
    game = parse_bpgn_game(text)
    with pytest.raises(BpgnReplayError) as caught:
        replay(game, Match(get_preset(rules)))
    assert caught.value.index == index
    assert caught.value.move == game.moves[index]
    assert fragment in str(caught.value)
    assert str(caught.value).startswith(f"half-move {index + 1} ({game.moves[index].label}")


def test_illegal_steal_is_a_replay_error():
    game = game_from_moves([(BoardId.A, chess.WHITE, "e8=N", None, (BoardId.B, chess.E1))])
    with pytest.raises(BpgnReplayError, match="no queen, rook, bishop or knight"):
        replay(game, Match(get_preset("dsj"), fens=STEAL_FENS))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 150), st.randoms(use_true_random=False))
def test_generated_games_survive_log_bpgn_and_replay(length, rng):
    """Random legal play (both boards, drops included) -> BPGN -> text -> replay: same positions."""
    match = Match(get_preset("fics"))
    events = []
    for index in range(length):
        board = rng.choice(list(BoardId))
        legal = match.legal_moves(board)
        if match.result is not None or not legal:
            break
        events.extend(match.play(rng.choice(legal), t=float(index), clock_ms=60_000 - index))
    game = parse_bpgn_game(write_bpgn(game_from_match_log(events)))
    twin = Match(get_preset("fics"))
    replay(game, twin)
    assert [twin.fen(board) for board in BoardId] == [match.fen(board) for board in BoardId]
    assert twin.pockets() == match.pockets()
    assert twin.result == match.result
