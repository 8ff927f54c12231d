"""The BPGN we write, read by pychess-variants' own importer (issue 9, "Done when").

Every bundled real game is played on the emulated boards, read by the bridge, and the bridge's
BPGN is imported by pychess.org's real ``import_game_bpgn``: the same moves on both boards and
the winning team credited. Games with an illegal drop that stood, its removal (row 9) and a
steal-promotion (row 4) import without error and agree with the bridge up to where BPGN cannot
follow (docs/bpgn.md, "Our dialect").

pychess-variants is AGPL-3.0 and is not part of this repository. The tests look for its
``bug/`` and ``bugchess/`` packages in ``$BUGHOUSE_PYCHESS_VARIANTS`` or in the team's vendored
copy next to the checkout (``../shared/vendor/pychess-variants``, which CI has), and skip with
that explanation otherwise.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bughouse_bridge.bridge import Bridge, BridgeConfig, replay_chunks
from bughouse_bridge.bughouse.bpgn import (
    game_from_match_log,
    parse_bpgn_game,
    replay,
    ruleset_tags,
    write_bpgn,
)
from bughouse_bridge.bughouse.events import MatchEvent, MovePlayed, ResultDecided
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.data import bundled_game, bundled_game_names
from bughouse_bridge.emulator.game import game_scenario
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.reconstruct import ReconstructorConfig
from bughouse_bridge.topics import Teams

A, B = BoardId.A, BoardId.B
REPO = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("pychess_runner.py")
CANDIDATES = (REPO.parent / "shared" / "vendor" / "pychess-variants",)
TEAM_CODES = {0: "a", 1: "b", None: "c"}  # pychess: "a" = 1-0 = White A + Black B won


def pychess_dir() -> Path | None:
    configured = os.environ.get("BUGHOUSE_PYCHESS_VARIANTS")
    places = [Path(configured)] if configured else list(CANDIDATES)
    return next(
        (place for place in places if (place / "bug" / "import_bugh_game.py").is_file()), None
    )


pytestmark = pytest.mark.skipif(
    pychess_dir() is None,
    reason="pychess-variants' importer (AGPL-3.0, not in this repository) was not found next to "
    "the checkout (../shared/vendor/pychess-variants): set BUGHOUSE_PYCHESS_VARIANTS to a "
    "folder with its bug/ and bugchess/",
)


def pychess_import(text: str) -> dict[str, Any]:
    directory = pychess_dir()
    assert directory is not None
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(directory)],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, f"pychess-variants' importer crashed:\n{done.stderr}"
    return json.loads(done.stdout)


@cache
def bridge_bpgn(name: str) -> str:
    """The bundled game played on two emulated boards and read by the bridge: its BPGN."""
    game = parse_bpgn_game(bundled_game(name))
    rules = get_preset("fics")
    plan = game_scenario(game, rules=rules, seed=3)
    chunks = [
        (r.t, r.link, r.data) for r in run_scenario(plan.scenario).records if r.direction == "rx"
    ]
    players = {"white_a": "WhiteA", "black_a": "BlackA", "white_b": "WhiteB", "black_b": "BlackB"}
    config = BridgeConfig(
        bridge_id="table-1",
        match_id="m-1",
        rules=rules,
        reconstructor=ReconstructorConfig(),
        links={"A": A, "B": B},
        teams=Teams(players={key: game.tags[tag] for key, tag in players.items()}),
    )
    bridge = Bridge(config)
    replay_chunks(bridge, chunks)
    return bridge.bpgn_text()


def reference(name: str) -> tuple[dict[str, list[str]], int | str | None]:
    """The bundled game's moves per board (UCI) and winning team, from the rules core."""
    game = parse_bpgn_game(bundled_game(name))
    steps = replay(game, Match(get_preset("fics")))
    moves: dict[str, list[str]] = {"A": [], "B": []}
    for step in steps:
        moves[str(step.move.board)].append(step.bughouse_move.uci)
    results = [e for step in steps for e in step.events if isinstance(e, ResultDecided)]
    return moves, results[0].winner_team if results else "none"


@pytest.mark.parametrize("name", bundled_game_names())
def test_every_bundled_game_imports_with_identical_moves_and_the_right_team(name):
    imported = pychess_import(bridge_bpgn(name))
    assert "error" not in imported["response"], imported["response"]
    moves, winner = reference(name)
    assert imported["moves"] == moves
    assert imported["moves"] == pychess_import(bundled_game(name))["moves"]  # as FICS' own file
    assert imported["result"] == TEAM_CODES.get(winner, "d")  # type: ignore[call-overload]


def test_the_decisive_game_credits_black_a_and_white_b():
    """1934301: BobBughouse (Black B) is mated on board B, so Stesox (Black A) and Giomaxxim
    (White B) win. FICS' own file says "1-0" (White won the deciding game), which pychess-variants
    credits to the wrong team; the bridge's file says "0-1" and names board and seat."""
    ours = pychess_import(bridge_bpgn("1934301"))
    assert (ours["result"], ours["players"][1], ours["players"][2]) == ("b", "Stesox", "Giomaxxim")
    assert "{BobBughouse (BlackB) checkmated on board B} 0-1" in bridge_bpgn("1934301")
    assert pychess_import(bundled_game("1934301"))["result"] == "a"


# --------------------------------------------------------------------------------------------
# Our dialect: what BPGN cannot say must not break other readers


def played(match: Match, board: BoardId, *sans: str, t: float = 0.0) -> list[MatchEvent]:
    events: list[MatchEvent] = []
    for san in sans:
        events += match.play(match.parse_san(board, san), t=t, clock_ms=60_000)
    return events


def drop(board: BoardId, symbol: str, square: str) -> BughouseMove:
    piece = chess.Piece.from_symbol(symbol).piece_type
    target = chess.parse_square(square)
    return BughouseMove(board, chess.Move(target, target, drop=piece))


def as_bpgn(match_events: list[MatchEvent], rules_name: str) -> str:
    tags = {"WhiteA": "w1", "BlackA": "b1", "WhiteB": "w2", "BlackB": "b2", "TimeControl": "300+0"}
    rules = get_preset(rules_name)
    return write_bpgn(game_from_match_log(match_events, tags=tags | ruleset_tags(rules)))


@pytest.mark.parametrize("preset", ["dsj", "dsb", "olite", "fics"])
def test_an_illegal_drop_and_its_removal_import_and_keep_the_positions(preset):
    match = Match(get_preset(preset))
    events = played(match, A, "e4")
    events += match.play(drop(A, "n", "f6"), t=1.0, clock_ms=59_000, force=True)  # not in pocket
    events += match.remove_illegal_drop(A, t=2.0)
    mover = match.turn(A)  # the preset says who moves after a removal (row 9)
    events += played(match, A, "Nc6" if mover == chess.BLACK else "d4")
    events += played(match, B, "d4")
    text = as_bpgn(events, preset)
    assert "{illegal N@f6} {removed A:f6}" in text

    imported = pychess_import(text)
    assert "error" not in imported["response"], imported["response"]
    # olite gives the move back to the offender: White "passes" too, so the turns stay in step.
    nulls = ["0000", "0000"] if mover == chess.BLACK else ["0000"]
    assert imported["moves"]["A"] == ["e2e4", *nulls, "b8c6" if mover == chess.BLACK else "d2d4"]
    assert imported["moves"]["B"] == ["d2d4"]

    again = Match(get_preset(preset))  # and our own reader replays the very same positions
    replay(parse_bpgn_game(text), again)
    assert (again.fen(A), again.fen(B)) == (match.fen(A), match.fen(B))


def test_a_steal_promotion_imports_and_what_readers_cannot_follow_is_masked():
    match = Match(get_preset("dsj"))
    events = played(match, A, "e4", "f5", "exf5", "g6", "fxg6", "Nf6", "gxh7", "Rg8")
    events += played(match, B, "e4", "e5")
    events += played(match, A, "hxg8=Q(d1)")  # White A takes White B's queen from d1 (row 4)
    events += played(match, B, "Kd1", "Nc6")  # d1 is empty for us, not for a plain reader
    text = as_bpgn(events, "dsj")
    assert "5A. hxg8=Q{60} {steal B:d1} 2B. --{60} {move Kd1} 2b. Nc6{60}" in text

    imported = pychess_import(text)
    assert "error" not in imported["response"], imported["response"]
    assert imported["moves"]["A"][-1] == "h7g8q"
    assert imported["moves"]["B"] == ["e2e4", "e7e5", "0000", "b8c6"]
    again = Match(get_preset("dsj"))
    replay(parse_bpgn_game(text), again)
    assert (again.fen(A), again.fen(B)) == (match.fen(A), match.fen(B))
    assert again.board_fen(B).split("/")[-1] == "RNBK1BNR"  # the queen left, the king stepped in


def random_dsj_game(seed: int, plies: int) -> tuple[Match, list[MatchEvent]]:
    rng = random.Random(seed)
    match = Match(get_preset("dsj"))
    events: list[MatchEvent] = []
    for index in range(plies):
        board = rng.choice([A, B])
        moves = match.legal_moves(board) or match.legal_moves(board.other)
        if not moves or match.result is not None:
            break
        events += match.play(rng.choice(moves), t=float(index), clock_ms=100_000)
    return match, events


@settings(max_examples=6, deadline=None)  # a pychess subprocess per example
@given(st.integers(0, 2**32 - 1), st.integers(60, 240))
def test_random_dsj_games_with_steals_import_whole(seed, plies):
    """Steal-promotions under dsj: pychess-variants imports every game, plays each move we did
    or passes where it cannot follow (``masked``), and our reader replays our exact positions."""
    match, events = random_dsj_game(seed, plies)
    text = as_bpgn(events, "dsj")
    game = parse_bpgn_game(text)
    imported = pychess_import(text)
    assert "error" not in imported["response"], imported["response"]
    played_moves = [e for e in events if isinstance(e, MovePlayed)]
    assert imported["moves"] == {
        str(board): [
            "0000" if written.masked else event.move.uci
            for event, written in zip(played_moves, game.moves, strict=True)
            if event.board is board
        ]
        for board in BoardId
    }
    again = Match(get_preset("dsj"))
    replay(game, again)
    assert (again.fen(A), again.fen(B)) == (match.fen(A), match.fen(B))


def random_game(seed: int, plies: int) -> tuple[Match, list[MatchEvent]]:
    """A legal two-board playout under ``fics``, both boards in a random interleaving."""
    rng = random.Random(seed)
    match = Match(get_preset("fics"))
    events: list[MatchEvent] = []
    clocks = dict.fromkeys(BoardId, 300000)
    for index in range(plies):
        if match.result is not None:
            break
        board = rng.choice([A, B])
        moves = match.legal_moves(board) or match.legal_moves(board.other)
        if not moves:
            break
        move = rng.choice(moves)
        clocks[move.board] -= rng.randrange(100, 5000)
        events += match.play(move, t=float(index), clock_ms=clocks[move.board])
    return match, events


@settings(max_examples=8, deadline=None)  # a pychess subprocess per example
@given(st.integers(0, 2**32 - 1), st.integers(20, 160))
def test_random_legal_games_import_move_for_move(seed, plies):
    """Drops, promotions, castling, mates: pychess-variants replays every move we write."""
    match, events = random_game(seed, plies)
    imported = pychess_import(as_bpgn(events, "fics"))
    assert "error" not in imported["response"], imported["response"]
    played = [e for e in events if isinstance(e, MovePlayed)]
    assert imported["moves"] == {
        str(board): [e.move.uci for e in played if e.board is board] for board in BoardId
    }
    result = match.result
    assert imported["result"] == ("d" if result is None else TEAM_CODES[result.winner_team])


def test_annotated_moves_without_a_read_clock_import_too():
    """No clock connected: annotations must not be the first comment pychess-variants reads."""
    match = Match(get_preset("dsj"))
    events: list[MatchEvent] = []
    for board, san in [*((A, s) for s in ("e4", "f5", "exf5", "g6", "fxg6", "Nf6", "gxh7", "Rg8"))]:
        events += match.play(match.parse_san(board, san), t=0)
    events += match.play(match.parse_san(B, "e4"), t=1)
    events += match.play(drop(B, "q", "e5"), t=2, force=True)  # Black B holds no queen
    events += match.remove_illegal_drop(B, t=3)
    events += match.play(match.parse_san(A, "hxg8=Q(d1)"), t=4)
    events += match.set_result(1, A, "resign", t=5)
    text = as_bpgn(events, "dsj")
    assert "(clock not read)} {illegal Q@e5} {removed B:e5}" in text
    assert "{steal B:d1}\n{w1 (WhiteA) resigns on board A} 0-1" in text

    imported = pychess_import(text)
    assert "error" not in imported["response"], imported["response"]
    assert imported["moves"]["B"] == ["e2e4", "0000"]
    assert (imported["moves"]["A"][-1], imported["result"]) == ("h7g8q", "b")
    again = Match(get_preset("dsj"))
    replay(parse_bpgn_game(text), again)
    assert (again.fen(A), again.fen(B)) == (match.fen(A), match.fen(B))
