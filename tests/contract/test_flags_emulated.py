"""A clock runs out on the emulated table (DGT 3000 and XL), through the whole pure pipeline.

Two emulated boards with their clocks, the host handshake (the clock's version ack names its
model), White B plays e4 and presses, and Black B's last seconds run out. The bridge sees only
the bytes: the flag comes from the flag bit (the XL shows 0:00 for a second before it), timed
by the countdown, and the rules decide what it means.
"""

from __future__ import annotations

import chess
import pytest

from bughouse_bridge.bridge import Bridge, BridgeConfig, replay_chunks
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.dgt.messages import ClockType, LeverSide
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.clock import ClockConfig, ClockSetting
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.emulator.scenario import Scenario
from bughouse_bridge.reconstruct import ReconstructorConfig
from bughouse_bridge.topics import Teams

BLACK_B_SECONDS = 4.0


def _table(kind: ClockType) -> tuple[list[tuple[float, str, bytes]], float]:
    """The received bytes of both links, and when Black B's time really ran out."""
    config = BoardConfig(clock=ClockConfig(kind=kind, white_side=LeverSide.LEFT))
    start = chess.BaseBoard()
    scenario = Scenario({"A": config, "B": config}, seed=7, placements={"A": start, "B": start})
    for link in ("A", "B"):
        scenario.host_startup(link)
    black_ms = {"A": 300_000, "B": int(BLACK_B_SECONDS * 1000)}
    for link in ("A", "B"):
        scenario.hands(link).set_clock(ClockSetting(300_000, black_ms[link], None))
        scenario.hands(link).start_clock(LeverSide.LEFT)  # White's time runs
    scenario.wait(1.0)
    hands = scenario.hands("B")
    hands.lift(chess.E2)
    scenario.wait(0.3)
    hands.place(chess.E4)
    scenario.wait(0.3)
    hands.press_clock()
    pressed = scenario.t
    scenario.wait(BLACK_B_SECONDS + 3.0)
    hands.lift(chess.H1)  # something happens after the flag, so the trace runs on
    result = run_scenario(scenario)
    chunks = [(r.t, r.link, r.data) for r in result.records if r.direction == "rx"]
    return chunks, pressed + BLACK_B_SECONDS


def _bridge(preset: str) -> Bridge:
    return Bridge(
        BridgeConfig(
            bridge_id="table-1",
            match_id="m-1",
            rules=get_preset(preset),
            reconstructor=ReconstructorConfig(),
            links={"A": BoardId.A, "B": BoardId.B},
            teams=Teams(ids=("white-a-team", "black-a-team")),
        )
    )


@pytest.mark.parametrize("kind", [ClockType.DGT3000, ClockType.XL], ids=lambda kind: kind.name)
@pytest.mark.parametrize("preset", ["dsj", "fics"])
def test_a_clock_running_out_on_the_emulated_table(kind, preset):
    chunks, ran_out = _table(kind)
    bridge = _bridge(preset)
    events = replay_chunks(bridge, chunks).events
    assert [e["uci"] for e in events if e["type"] == "move"] == ["e2e4"]
    (flag,) = [e for e in events if e["type"] == "flag"]
    assert (flag["board"], flag["color"]) == ("B", "black")
    assert flag["t"] >= ran_out  # never before the clock's own flag bit
    assert ran_out <= flag["at"] <= ran_out + 0.3  # the countdown, polled every 0.25 s
    results = [e for e in events if e["type"] == "result"]
    if preset == "fics":
        assert [(r["winner"], r["reason"]) for r in results] == [("black-a-team", "time")]
    else:
        assert results == []
        (alert,) = [e for e in events if e["type"] == "alert" and e["code"] == "flag"]
        assert alert["details"]["claim"] == {"board": "B", "color": "black", "claim": "flag"}
