"""A Bridge whose boards are scripted: the game changes by match operations, not sensor bytes.

``ScriptedReconstructor`` is the real ``MatchReconstructor`` (its arbiter doors — takeback,
set_pocket, set_result, revoke_result, confirm_claim, new_game — are the real ones), with what
the boards would show replaced by a script: each ``on_timer`` carries out the next scripted
action on the match (a move, an illegal drop that stands, its removal, a link gap filled with
what the boards show after some unseen plies), ``accept`` takes the placement the script says
the board shows, and ``choose_recovery`` replaces a scripted gap by its plies. Everything after
the reconstructor — the publisher, the game record, the BPGN, the archive files, the lifecycle —
is the real pipeline. Used by the record property test and the rollback (fault injection) tests.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import chess

from bughouse_bridge.bridge import Bridge, BridgeConfig, Output
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct import MatchReconstructor, ReconstructorConfig
from bughouse_bridge.topics import Teams

if TYPE_CHECKING:
    from collections.abc import Callable

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct import Outcome

TEAMS = Teams(ids=("ab", "ba"), names=("White A", "Black A"), players={"white_a": "Ann"})


@dataclass
class Script:
    """What the scripted boards do next, and what they show."""

    actions: list[Callable[[Match, float], list[Outcome]]] = field(default_factory=list)
    placements: dict[BoardId, str] = field(default_factory=dict)  # for ``accept``
    gaps: dict[int, list[BughouseMove]] = field(default_factory=dict)  # for ``choose_recovery``
    start_position: bool = False  # both boards stand in the start position (a hall's next game)


class ScriptedReconstructor(MatchReconstructor):
    def __init__(self, match: Match, config: ReconstructorConfig) -> None:
        super().__init__(match, config)
        self.script = Script()

    def deadline(self) -> float | None:
        return None

    def on_timer(self, now: float) -> list[Outcome]:
        if not self.script.actions:
            return []
        return self.script.actions.pop(0)(self.match, now)

    def accept(self, board: BoardId, now: float) -> list[Outcome]:
        placement = self.script.placements.pop(board, None)
        if placement is None:
            return []
        return list(self.match.accept_placement(board, placement, t=now))

    def choose_recovery(self, gap: int, index: int, now: float) -> list[Outcome]:
        if gap not in self.script.gaps or index != 0:
            raise ValueError(f"there is no open gap {gap} with candidate {index}")
        events = self.match.resolve_gap(gap, self.script.gaps.pop(gap), t=now)
        return list(events)

    def boards_in_start_position(self) -> frozenset[BoardId]:
        return frozenset(BoardId) if self.script.start_position else frozenset()


def scripted_bridge(preset: str = "dsj", **changes: Any) -> Bridge:
    config = BridgeConfig(
        bridge_id="table-1",
        match_id=changes.pop("match_id", "m-1"),
        rules=get_preset(preset),
        reconstructor=ReconstructorConfig(),
        links={"A": BoardId.A, "B": BoardId.B},
        teams=TEAMS,
        clock_origin_epoch=1_763_890_000.0,
        **changes,
    )
    return Bridge(config, lambda match: ScriptedReconstructor(match, config.reconstructor))


def script(bridge: Bridge) -> Script:
    reconstructor = bridge.reconstructor
    assert isinstance(reconstructor, ScriptedReconstructor)
    return reconstructor.script


def act(bridge: Bridge, now: float, action: Callable[[Match, float], list[Outcome]]) -> Output:
    """Carry out one scripted action as the next timer step of the pipeline."""
    script(bridge).actions.append(action)
    return bridge.on_timer(now)


def play(move: BughouseMove, *, force: bool = False, clock_ms: int | None = None) -> Any:
    return lambda match, now: list(match.play(move, t=now, force=force, clock_ms=clock_ms))


def uci(board: BoardId, text: str) -> BughouseMove:
    return BughouseMove(board, chess.Move.from_uci(text))


def play_uci(bridge: Bridge, now: float, board: BoardId, text: str) -> Output:
    move = bridge.reconstructor.match.parse_san(board, text) if "@" not in text else None
    return act(bridge, now, play(move or uci(board, text)))


def fill_gap(bridge: Bridge, now: float, gap: int, plies: list[BughouseMove]) -> Output:
    """A link gap during which ``plies`` were played unseen: the boards are set to where they
    lead, and choosing candidate 0 later puts the plies themselves into the log."""
    after = bridge.reconstructor.match.copy()
    for move in plies:
        assert after.play_quietly(move), move
    fens = {board: after.fen(board) for board in BoardId}
    boards = {move.board for move in plies}
    script(bridge).gaps[gap] = list(plies)

    def fill(match: Match, t: float) -> list[Outcome]:
        match.fill_gap(gap, fens, boards=boards, t=t)
        return []

    return act(bridge, now, fill)


def command(bridge: Bridge, verb: str, now: float, **request: Any) -> tuple[dict[str, Any], Output]:
    import json  # noqa: PLC0415 - only here

    return bridge.command(verb, json.dumps(request).encode(), now)


def fork(bridge: Bridge) -> Bridge:
    """A private copy (the frozen configuration shared)."""
    config = bridge._config
    frozen = (config, config.rules, config.reconstructor)
    return copy.deepcopy(bridge, {id(item): item for item in frozen})
