"""Differential test: single-board legal move sets under ``fics`` against Fairy-Stockfish.

Positions come from random crazyhouse playouts in python-chess with random pocket injection
(research/bughouse-engines.md §1.5), so they do not depend on the move generator under test.
Only legality is compared: game end (mate, stalemate, repetition, material) differs by design in
Fairy-Stockfish, and it knows no steals and no drop-mate rule — hence ``fics`` only.
pyffish costs about 1.4 ms per call; 10,000 positions take about 20 s.
"""

from __future__ import annotations

import functools
import random
from typing import TYPE_CHECKING

import chess
import chess.variant
import pytest

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId

if TYPE_CHECKING:
    from collections.abc import Iterator

sf = pytest.importorskip("pyffish")

POSITIONS = 10_000
# The positions are checked in shards so that pytest-xdist spreads the work over its workers
# (one test of all 10,000 positions was the longest path of the whole suite).
SHARDS = 4
SEED = 20_260_421
INJECT_RATE = 0.3
POCKET_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def random_positions(seed: int, count: int) -> Iterator[str]:
    """FENs along random playouts; before 30 % of the moves the mover gets a random piece."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        board = chess.variant.CrazyhouseBoard()
        for _ in range(rng.randint(10, 150)):
            if rng.random() < INJECT_RATE:
                board.pockets[board.turn].add(rng.choice(POCKET_TYPES))
            moves = list(board.legal_moves)
            if not moves or produced >= count:
                break
            yield board.fen()
            produced += 1
            board.push(rng.choice(moves))


@functools.cache
def shard_positions(shard: int) -> tuple[str, ...]:
    """One shard's positions, from its own playouts: each shard makes only the positions it
    checks (every worker used to make all 10,000, about 5 s each, to check a quarter of them)."""
    return tuple(random_positions(SEED + shard, POSITIONS // SHARDS))


def ours(fen: str) -> set[str]:
    match = Match(get_preset("fics"), fens={BoardId.A: fen})
    return {move.uci for move in match.legal_moves(BoardId.A)}


def theirs(fen: str) -> set[str]:
    return set(sf.legal_moves("bughouse", fen, []))


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_legal_move_sets_agree_with_fairy_stockfish(shard):
    fens = shard_positions(shard)
    assert len(set(fens)) > len(fens) * 9 // 10  # many distinct positions...
    assert sum(fen.split("[")[1].startswith("]") is False for fen in fens) > len(fens) // 2
    assert not [fen for fen in fens if "@" in fen.split()[0]]  # ...in the bracket pocket form
    mismatches = [(fen, ours(fen) ^ theirs(fen)) for fen in fens if ours(fen) != theirs(fen)]
    assert mismatches == []


@pytest.mark.parametrize(
    "fen",
    [
        "4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 1",  # pawn drops on ranks 2-7 only
        "6k1/5ppp/8/8/8/8/8/K7[R] w - - 0 1",  # a drop mate is legal under fics
        "r2qkbnr/1Ppppppp/2n5/8/8/8/1PPPPPPP/RNBQKBNR[] w KQkq - 0 1",  # promotions
        "Q~3k3/8/8/8/8/8/8/4K3[] b - - 0 1",  # a promoted piece
    ],
)
def test_hand_picked_positions_agree(fen):
    assert ours(fen) == theirs(fen)
