"""Games and the hall: which game is played now, how the next one starts, the games before.

One path starts every game (``GameLifecycle.start_game``): the ``new_game`` verb, the hall's
automatic next game (both boards in the start position after a result) and a hall round's
pairing taken while nothing is played. It archives the game that ends under its own name, then
makes a fresh :class:`~bughouse_bridge.pipeline.game.Game` — its own match id, number, round,
teams and tags — so nothing game-scoped (views, ``after_result``, the record) carries over.
The box's games index lists every game played (contract §2, "A box's games").
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from bughouse_bridge.bughouse.bpgn import ruleset_tags
from bughouse_bridge.hall.progress import HallTable
from bughouse_bridge.hall.rounds import seating_problems
from bughouse_bridge.pipeline.game import Game, GameId, result_dict
from bughouse_bridge.pipeline.output import GameFile
from bughouse_bridge.topics import format_ts

if TYPE_CHECKING:
    from bughouse_bridge.hall.rounds import Pairing
    from bughouse_bridge.pipeline.config import BridgeConfig
    from bughouse_bridge.topics import Teams


class GameLifecycle:
    """The current game, the hall's progress and the box's games played before it."""

    __slots__ = ("_config", "_played", "current", "hall")

    def __init__(self, config: BridgeConfig) -> None:
        self._config = config
        self.hall = HallTable.of(config.match_id) if config.table is not None else None
        self._played: list[dict[str, Any]] = []  # the games index, finished games
        number = 1 if self.hall is None else self.hall.game
        round_ = None if self.hall is None else self.hall.round
        self.current = self._game(config.match_id, number, config.teams, round_, 0.0)

    @property
    def hall_table(self) -> int | None:
        """The table number of a hall box (None: not in a hall)."""
        return None if self.hall is None else self._config.table

    def start_game(self, now: float, *, next_game: bool) -> tuple[list[GameFile], list[str]]:
        """End the current game and begin the next: a new number when ``next_game``, else the
        same game begins again (nothing was played). Returns the finished game's file (if it was
        played) and what is wrong with the new pairing's seating, if anything."""
        finished = self.current
        files = [self.file_of(finished)] if finished.played else []
        if finished.played:
            self._played.append(self._summary(finished))
        pairing: Pairing | None = None
        if self.hall is not None and self._config.table is not None:
            match_id, pairing = self.hall.advance(self._config.table, next_game=next_game)
            teams = pairing.teams() if pairing is not None else finished.id.teams
            self.current = self._game(match_id, self.hall.game, teams, self.hall.round, now)
        else:
            number = finished.id.number + 1 if next_game else finished.id.number
            self.current = self._game(finished.id.match, number, finished.id.teams, None, now)
        return files, [] if pairing is None else seating_problems(pairing)

    def take_pairing(self, pairing: Pairing, *, untouched: bool) -> bool:
        """A round's pairing for this table: kept for the next game (True), or ignored (an
        older round, or the pairing already taken or waiting)."""
        if self.hall is None or not self.hall.wants(pairing, untouched=untouched):
            return False
        self.hall.pending = pairing
        return True

    def archive(self, game: Game) -> list[GameFile]:
        """The game's file after its record changed: once it is decided, and from then on at
        every change (a revoked result, a takeback, the next decision)."""
        if game.result is None and not game.archived:
            return []
        game.archived = True
        return [self.file_of(game)]

    def file_of(self, game: Game) -> GameFile:
        """The game's archive file (``docs/bpgn.md``, "Archive")."""
        config, game_id = self._config, game.id
        hall = game_id.round is not None
        tags = config.record_tags
        name = archive_name(
            origin_epoch=config.clock_origin_epoch,
            match_id=game_id.match,
            round_=str(game_id.round) if hall else tags.get("Round"),
            table=str(game_id.table) if hall else tags.get("Table"),
            game=game_id.number,
        )
        return GameFile(name, game.bpgn_text(config.clock_origin_epoch))

    def games_fields(self) -> dict[str, Any]:
        """The games index (contract §2): every game played, the current one last."""
        current = self.current
        games = [*self._played, *([self._summary(current)] if current.played else [])]
        return {"table": self._config.table, "current": current.id.match, "games": games}

    def _summary(self, game: Game) -> dict[str, Any]:
        origin, game_id, result = self._config.clock_origin_epoch, game.id, game.result
        return {
            "match": game_id.match,
            "round": game_id.round,
            "table": game_id.table,
            "game": game_id.number,
            **game_id.teams.as_dict(),
            "result": None if result is None else result_dict(result, game_id.teams),
            "started": format_ts(origin + game_id.started),
            "finished": None if result is None else format_ts(origin + result.t),
        }

    def _game(
        self, match_id: str, number: int, teams: Teams, round_: int | None, now: float
    ) -> Game:
        table = self._config.table if round_ is not None else None
        tags = self._tags(match_id, teams, round_, table)
        game_id = GameId(match_id, number, teams, now, round_, table, tags)
        return Game(game_id, self._config.start_fens)

    def _tags(
        self, match_id: str, teams: Teams, round_: int | None, table: int | None
    ) -> dict[str, str]:
        """The seven-tag roster first, as PGN readers expect; see docs/bpgn.md, "Tags". In a
        hall, Round and Table are the pairing's."""
        config = self._config
        configured = dict(config.record_tags)
        players = teams.players
        event_round = configured.pop("Round", "?")
        if table is not None:
            configured["Table"] = str(table)
        return {
            "Event": configured.pop("Event", f"bughouse-bridge match {match_id}"),
            "Site": configured.pop("Site", config.bridge_id),
            "Round": str(round_) if round_ else event_round,  # round 0: before a pairing
            "WhiteA": players.get("white_a", "?"),
            "BlackA": players.get("black_a", "?"),
            "WhiteB": players.get("white_b", "?"),
            "BlackB": players.get("black_b", "?"),
            **configured,
            "Variant": "Bughouse",
            **ruleset_tags(config.rules),
        }


def archive_name(
    *, origin_epoch: float, match_id: str, round_: str | None, table: str | None, game: int
) -> str:
    """``<date>_<match>[_round-<r>][_table-<t>]_game-<n>.bpgn``, safe as a file name."""
    date = datetime.fromtimestamp(origin_epoch, tz=UTC).strftime("%Y-%m-%d")
    parts = [date, match_id]
    if round_ is not None:
        parts.append(f"round-{_file_safe(round_)}")
    if table is not None:
        parts.append(f"table-{_file_safe(table)}")
    parts.append(f"game-{game}")
    return "_".join(parts) + ".bpgn"


def _file_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-") or "x"
