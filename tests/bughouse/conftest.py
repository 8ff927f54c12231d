"""Helpers for the rules-core tests, offered as the ``kit`` fixture (conftest is not importable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import chess
import chess.variant
import pytest

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import MatchEvent

START = chess.variant.CrazyhouseBoard.starting_fen


class Kit:
    """Build matches from FENs, make moves by SAN or UCI, pick events by type."""

    start = START

    @staticmethod
    def match(preset: str, a: str = START, b: str = START, **overrides: Any) -> Match:
        rules = get_preset(preset)
        if overrides:
            rules = rules.with_overrides(overrides)
        return Match(rules, fens={BoardId.A: a, BoardId.B: b})

    @staticmethod
    def move(board: BoardId, text: str, steal: str | None = None) -> BughouseMove:
        """``move(A, "e2e4")``, ``move(A, "Q@g7")``, ``move(A, "b7b8q", steal="d1")``."""
        square = chess.parse_square(steal) if steal else None
        return BughouseMove(board, chess.Move.from_uci(text), steal_square=square)

    @staticmethod
    def play(match: Match, board: BoardId, san: str, t: float = 0.0) -> list[MatchEvent]:
        return match.play(match.parse_san(board, san), t=t)

    @staticmethod
    def of_type(events: list[MatchEvent], kind: type) -> list[Any]:
        return [event for event in events if isinstance(event, kind)]


@pytest.fixture
def kit() -> type[Kit]:
    return Kit


@pytest.fixture(params=["dsj", "dsb", "olite", "fics"])
def preset(request: pytest.FixtureRequest) -> str:
    """Every preset in turn."""
    return str(request.param)
