"""Real bridge output for the browser tests: games played through the real ``Bridge``.

The boards are scripted (``tests/contract/scripted.py``: the real ``MatchReconstructor`` with
what the boards show replaced by a script of match operations), everything after them is the
daemon's own pipeline — the publisher, the game record and its retained topics, the BPGN, the
games index, the lifecycle of a hall box, the arbiter's verbs. Each ply also brings the clock
reading a DGT clock would send after the press (the mover's time from the game's BPGN clock
comment), so the record entries carry clocks as they do at a table.

The tests publish what the bridge published, in its order, to a real broker
(:meth:`BridgeGame.publish_to`): the page reads exactly the contract's payloads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import chess

from bughouse_bridge.bridge import Bridge, BridgeConfig
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.hall.rounds import parse_round_toml, round_payload
from bughouse_bridge.reconstruct import ClockReading, ReconstructorConfig
from bughouse_bridge.topics import Teams
from contract.scripted import Script, ScriptedReconstructor

if TYPE_CHECKING:
    from collections.abc import Iterable

    import aiomqtt

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct import Outcome
    from bughouse_bridge.topics import Publication

START_MS = 300_000
ORIGIN_EPOCH = 1_795_426_200.0  # 2026-11-23 09:30 UTC: t = 0 of the pipeline (the ts fields)
# Outside a hall: team 0 plays White A + Black B (the core's order), the Lions here; the
# Tigers, on Black A + White B, are the first-named team (DSJ 8.2).
TEAMS = Teams(
    ids=("lions", "tigers"),
    names=("Lions", "Tigers"),
    players={"white_a": "Anna", "black_a": "Ben", "white_b": "Cleo", "black_b": "Dan"},
)


@dataclass(frozen=True, slots=True)
class Ply:
    board: str
    san: str
    clock: float | None = None  # the mover's remaining seconds after the press (BPGN {…})


def round_file(number: int, table: int) -> str:
    """A hall round file (`hall round`) for one table; the Tigers are the first-named team."""
    return f"""round = {number}
[[tables]]
table = {table}
first = {{ name = "Tigers", black_a = "Ben", white_b = "Cleo" }}
second = {{ name = "Lions", white_a = "Anna", black_b = "Dan" }}
"""


def plies_of(game: Any) -> list[Ply]:
    """The plies of a parsed BPGN game, with their clock comments."""
    return [Ply(m.board.name, m.san, m.clock) for m in game.moves]


class BridgeGame:
    """One bridge (one table) whose boards play what the test says; ``published`` is every
    publication in the order the bridge made it."""

    def __init__(  # noqa: PLR0913 - the box's configuration
        self,
        *,
        root: str,
        preset: str = "fics",
        bridge_id: str = "table-1",
        match_id: str = "m-1",
        table: int | None = None,
        teams: Teams = TEAMS,
    ) -> None:
        config = BridgeConfig(
            bridge_id=bridge_id,
            match_id=match_id,
            rules=get_preset(preset),
            reconstructor=ReconstructorConfig(),
            links={"A": BoardId.A, "B": BoardId.B},
            root=root,
            teams=teams,
            boot_id="boot-web",
            clock_origin_epoch=ORIGIN_EPOCH,
            table=table,
        )
        self.bridge = Bridge(config, lambda m: ScriptedReconstructor(m, config.reconstructor))
        self.root = root
        self.now = 10.0
        self.clocks = {board: [START_MS, START_MS] for board in BoardId}  # white, black
        self.published: list[Publication] = []
        self._sent = 0
        self._take(self.bridge.retained_publications(self.now))

    @property
    def script(self) -> Script:
        reconstructor = self.bridge.reconstructor
        assert isinstance(reconstructor, ScriptedReconstructor)
        return reconstructor.script

    @property
    def match_id(self) -> str:
        return self.bridge.game.id.match

    def _take(self, publications: Iterable[Publication]) -> None:
        self.published += publications

    def _act(self, action: Any) -> None:
        self.now += 1.0
        self.script.actions.append(action)
        self._take(self.bridge.on_timer(self.now).publications)

    # -- what the boards do -------------------------------------------------------------------

    def play(self, plies: Iterable[Ply]) -> None:
        for ply in plies:
            self.ply(ply)

    def ply(self, ply: Ply) -> None:
        board = BoardId(ply.board)

        def move(match: Match, now: float) -> list[Outcome]:
            played = match.parse_san(board, ply.san)
            mover = match.turn(board)
            events = list(match.play(played, t=now))
            index = 0 if mover == chess.WHITE else 1
            if ply.clock is not None:
                self.clocks[board][index] = round(ply.clock * 1000)
            white, black = self.clocks[board]
            reading = ClockReading(now, board, white, black, not mover)
            return [reading, *events]

        self._act(move)

    def illegal_drop(self, board: str, uci: str) -> None:
        """A drop of a piece the pocket lacks, which stands until removed (row 9)."""
        move = BughouseMove(BoardId(board), chess.Move.from_uci(uci))
        self._act(lambda match, now: list(match.play(move, t=now, force=True)))

    def remove_illegal_drop(self, board: str) -> None:
        self._act(lambda match, now: list(match.remove_illegal_drop(BoardId(board), t=now)))

    def gap(self, gap: int, plies: Iterable[Ply]) -> None:
        """A link gap during which ``plies`` were played unseen: the boards are set to where
        they lead (one ``gap`` entry); ``choose_recovery`` may later put the plies in."""
        after = self.bridge.reconstructor.match.copy()
        moves = []
        for ply in plies:
            move = after.parse_san(BoardId(ply.board), ply.san)
            assert after.play_quietly(move), ply
            moves.append(move)
        fens = {board: after.fen(board) for board in BoardId}
        self.script.gaps[gap] = moves
        boards = {move.board for move in moves}

        def fill(match: Match, now: float) -> list[Outcome]:
            match.fill_gap(gap, fens, boards=boards, t=now)
            return []

        self._act(fill)

    def accept(self, board: str, placement: str) -> None:
        """The arbiter accepts what the board shows (``placement``: a board FEN)."""
        self.script.placements[BoardId(board)] = placement
        self.command("accept", board=board)

    def command(self, verb: str, **request: Any) -> dict[str, Any]:
        """An arbiter's request, as the console sends it; the answer must be ``ok``."""
        self.now += 1.0
        payload = json.dumps({"transaction": f"test-{verb}", **request}).encode()
        response, output = self.bridge.command(verb, payload, self.now)
        assert response["ok"], response
        self._take(output.publications)
        return response

    def hall_round(self, toml: str) -> None:
        """The hall's round file, as ``hall round`` publishes it and the box takes it."""
        payload = round_payload(parse_round_toml(toml), ts="2026-11-23T09:00:00.000Z")
        self.command("hall_round", **json.loads(payload))

    def boards_set_up_again(self) -> None:
        """Both boards back in the start position after a result: a hall box's next game."""
        self.script.start_position = True
        self._act(lambda _match, _now: [])
        self.script.start_position = False

    # -- what a subscriber finds --------------------------------------------------------------

    def retained(self) -> dict[str, Any]:
        """The retained topics as a late subscriber finds them (JSON decoded; BPGN as text)."""
        found: dict[str, Any] = {}
        for publication in self.published:
            if not publication.retain:
                continue
            if not publication.payload:
                found.pop(publication.topic, None)
            elif publication.topic.endswith("/bpgn"):
                found[publication.topic] = publication.payload.decode()
            else:
                found[publication.topic] = json.loads(publication.payload)
        return found

    def record(self, match: str | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """A match's record header and its entries 1..N, as retained."""
        held = self.retained()
        base = f"{self.root}/match/{match or self.match_id}/record"
        header = held[base]
        return header, [held[f"{base}/{n}"] for n in range(1, header["entries"] + 1)]

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        suffix = "/events"
        found = [json.loads(p.payload) for p in self.published if p.topic.endswith(suffix)]
        return [e for e in found if kind is None or e["type"] == kind]

    async def publish_to(self, client: aiomqtt.Client) -> None:
        """Everything published since the last call, in order, as the daemon sends it."""
        for publication in self.published[self._sent :]:
            await client.publish(
                publication.topic, publication.payload, publication.qos, retain=publication.retain
            )
        self._sent = len(self.published)
