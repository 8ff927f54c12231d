"""A command applies completely or not at all (issue 20): every verb, made to fail at every step.

Each verb runs once cleanly on a prepared bridge, counting the calls it makes into the core's
units (the publisher, the game and its record, the BPGN, the lifecycle and the hall's progress,
the device front, the wire, the reconstructor's doors and the match). Then, for every one of
those calls, a fresh copy of the same bridge runs the verb with that call failing: the answer
is ``ok: false`` ("nothing was changed"), nothing is published, and everything the bridge shows
— state, record, BPGN, topics and envelope, game number, ``after_result``, hall progress, games
index, retained messages, devices, numbering — is as before. The same request then goes through
exactly as the clean run did, so nothing a failure touched was left behind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import chess
import pytest
from scripted import act, fill_gap, fork, play, script, scripted_bridge

from bughouse_bridge.bridge import Bridge, Output
from bughouse_bridge.bughouse.bpgn_document import BpgnDocument
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.hall.progress import HallTable
from bughouse_bridge.hall.rounds import parse_round_toml, round_payload
from bughouse_bridge.pipeline.devices import DeviceFront
from bughouse_bridge.pipeline.game import Game
from bughouse_bridge.pipeline.lifecycle import GameLifecycle
from bughouse_bridge.pipeline.publisher import Publisher
from bughouse_bridge.reconstruct import MatchReconstructor
from bughouse_bridge.topics import Wire

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

A, B = BoardId.A, BoardId.B
NOW = 100.0

# Every method of the pipeline's units counts as a step; of the reconstructor and the match,
# the public ones (their insides are theirs to keep consistent; a failure anywhere in them
# surfaces through these).
UNITS = (Publisher, Game, GameLifecycle, DeviceFront, GameRecord, BpgnDocument, Wire, HallTable)
DOORS = (MatchReconstructor, Match)
COMPOSITION = ("step", "start_game", "dumps", "untouched", "snapshot", "status", "_wire")


class InjectedFaultError(RuntimeError):
    """The failure a test puts into one step."""


class Faults:
    def __init__(self) -> None:
        self.calls = 0
        self.armed: int | None = None
        self.counting = False

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if self.counting:
                self.calls += 1
                if self.calls == self.armed:
                    raise InjectedFaultError(function.__qualname__)
            return function(*args, **kwargs)

        return wrapper

    def run(self, bridge: Bridge, verb: str, payload: bytes, *, fail_at: int | None) -> Any:
        self.calls, self.armed, self.counting = 0, fail_at, True
        try:
            return bridge.command(verb, payload, NOW)
        finally:
            self.counting = False


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Faults:
    counter = Faults()
    for unit in UNITS:
        for name, member in vars(unit).items():
            if callable(member) and not name.startswith("__"):
                monkeypatch.setattr(unit, name, counter.wrap(member))
    for unit in DOORS:
        for name, member in vars(unit).items():
            if callable(member) and not name.startswith("_"):
                monkeypatch.setattr(unit, name, counter.wrap(member))
    for name in COMPOSITION:
        monkeypatch.setattr(Bridge, name, counter.wrap(getattr(Bridge, name)))
    return counter


def observed(bridge: Bridge) -> tuple[Any, ...]:
    """Everything a command may change, as the bridge shows it."""
    parts = bridge._parts
    game, games, publisher = parts.games.current, parts.games, parts.publisher
    hall = games.hall
    return (
        bridge.snapshot(),
        bridge.last_seq,
        bridge.bpgn_text(),
        bridge.topics,
        publisher.boot_id,
        publisher.replaying,
        game.id,
        game.after_result,
        game.archived,
        [(e.kind, e.event, e.after.fens) for e in game.record.entries],
        None if hall is None else (hall.round, hall.game, hall.applied, hall.pending),
        games.games_fields(),
        [(p.topic, p.payload) for p in bridge.retained_publications(NOW)],
        bridge.status(NOW)["devices"],
        len(parts.reconstructor.match.record),
        bridge.deadline(),
    )


@dataclass(frozen=True)
class Scenario:
    """A bridge where the verb can be carried out, and the request."""

    prepare: Callable[[], Bridge]
    request: dict[str, Any]


def _moves(bridge: Bridge) -> Bridge:
    for now, (board, san) in enumerate([(A, "e4"), (B, "d4"), (A, "e5"), (B, "Nf6")], start=1):
        move = bridge.reconstructor.match.parse_san(board, san)
        act(bridge, float(now), play(move, clock_ms=60_000))
    return bridge


def played() -> Bridge:
    return _moves(scripted_bridge("dsj"))


def decided() -> Bridge:
    bridge = played()
    bridge.command("set_result", b'{"winner": "ab", "board": "A", "reason": "resign"}', 5.0)
    return bridge


def accepted_placement() -> Bridge:
    bridge = played()
    board = chess.BaseBoard(bridge.reconstructor.match.board_fen(A))
    board.remove_piece_at(chess.A2)
    script(bridge).placements[A] = board.board_fen()
    return bridge


def flagged() -> Bridge:
    bridge = played()
    act(bridge, 6.0, lambda match, now: list(match.flag(B, chess.BLACK, t=now, at=5.5)))
    return bridge


def gap_then_move() -> Bridge:
    bridge = played()
    match = bridge.reconstructor.match
    fill_gap(bridge, 6.0, 1, [match.parse_san(A, "Nf3"), match.parse_san(B, "Nc3")])
    return bridge


ROUND = """round = 1
[[tables]]
table = 1
first = { name = "Lions", black_a = "Anna", white_b = "Ben" }
second = { name = "Tigers", white_a = "Carl", black_b = "Dora" }
"""


def hall_box() -> Bridge:
    return scripted_bridge("fics", match_id="r0-t1", table=1)


def hall_box_playing() -> Bridge:
    return _moves(hall_box())


ROUND_REQUEST = json.loads(round_payload(parse_round_toml(ROUND), ts="2026-11-23T04:00:00.000Z"))
SCENARIOS = {
    "new_game": Scenario(played, {}),
    "set_result": Scenario(played, {"winner": "ba", "board": "B", "reason": "resign"}),
    "takeback": Scenario(played, {"board": "A"}),
    "resync": Scenario(played, {"board": "B"}),
    "accept": Scenario(accepted_placement, {"board": "A"}),
    "set_pocket": Scenario(played, {"board": "B", "color": "white", "pieces": "PN"}),
    "confirm_claim": Scenario(flagged, {"board": "B", "color": "black", "claim": "flag"}),
    "revoke_result": Scenario(decided, {"reason": "wrong board"}),
    "choose_recovery": Scenario(gap_then_move, {"gap": 1, "candidate": 0}),
    "hall_round": Scenario(hall_box, ROUND_REQUEST),
    "hall_round (waits)": Scenario(hall_box_playing, ROUND_REQUEST),
}


def cases() -> Iterator[str]:
    yield from SCENARIOS


@pytest.mark.parametrize("name", list(cases()))
def test_a_verb_that_fails_at_any_step_changes_nothing(name, faults):
    scenario = SCENARIOS[name]
    verb = name.split(" ")[0]
    payload = json.dumps(scenario.request).encode()
    prepared = scenario.prepare()

    clean = fork(prepared)
    response, output = faults.run(clean, verb, payload, fail_at=None)
    assert response["ok"], response
    steps = faults.calls
    done = (response, output, observed(clean))
    assert steps > 0

    for step in range(1, steps + 1):
        bridge = fork(prepared)
        before = observed(bridge)
        response, output = faults.run(bridge, verb, payload, fail_at=step)
        assert response["ok"] is False, (step, response)
        assert response["error"].endswith("(InjectedFaultError); nothing was changed"), response
        assert output == Output()
        assert observed(bridge) == before, f"step {step} of {steps} left a change behind"
        assert (*faults.run(bridge, verb, payload, fail_at=None), observed(bridge)) == done
