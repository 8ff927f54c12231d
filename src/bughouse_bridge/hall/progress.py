"""Where a hall box stands: its round and game, the pairing it plays, the one waiting (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.hall.naming import match_id, parse_match_id

if TYPE_CHECKING:
    from bughouse_bridge.hall.rounds import Pairing


@dataclass(slots=True)
class HallTable:
    """Which round and game a hall box plays, and the pairing waiting for the next game."""

    round: int = 0
    game: int = 1
    applied: Pairing | None = None
    pending: Pairing | None = None

    @classmethod
    def of(cls, configured_match: str) -> HallTable:
        """Start from the configured match id (``r0-t<n>`` as ``hall init`` writes it)."""
        parsed = parse_match_id(configured_match)
        return cls() if parsed is None else cls(round=parsed[0], game=parsed[2])

    def wants(self, pairing: Pairing, *, untouched: bool) -> bool:
        if pairing in (self.applied, self.pending):
            return False
        return pairing.round > self.round or (pairing.round == self.round and untouched)

    def advance(self, table: int, *, next_game: bool) -> tuple[str, Pairing | None]:
        """The match id of the game that starts now, and its pairing (None: keep the teams)."""
        pairing, self.pending = self.pending, None
        if pairing is not None:
            self.game = 1 if pairing.round != self.round or next_game else self.game
            self.round, self.applied = pairing.round, pairing
        elif next_game:
            self.game += 1
        return match_id(self.round, table, self.game), pairing
