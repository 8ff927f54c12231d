"""Scenario-level faults: unplug/replug, silence and garbage show up in the in-process trace."""

from __future__ import annotations

import chess
from emulator_helpers import decode_all

from bughouse_bridge.dgt.messages import Garbage, SerialNumber
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.playback import LinkEvent, run_scenario
from bughouse_bridge.emulator.scenario import Scenario


def _messages(records):
    return decode_all([(r.t, r.data) for r in records if r.direction == "rx"])


def test_unplug_cuts_the_link_and_replug_needs_a_new_handshake():
    sc = Scenario({"A": BoardConfig()}, seed=1)
    hands = sc.hands()
    sc.host_startup()
    sc.wait(1.0)
    hands.unplug()
    unplugged_at = sc.t
    sc.wait(0.2)
    hands.lift(chess.E2)
    hands.place(chess.E4)
    sc.host(b"\x45")  # nobody listens
    sc.wait(1.0)
    hands.replug()
    replugged_at = sc.t
    sc.wait(0.5)
    sc.host(b"\x4b")  # wakes the board from bus mode only
    sc.host(b"\x45")
    sc.wait(1.0)
    result = run_scenario(sc)
    assert result.link_events == (
        LinkEvent(unplugged_at, "A", connected=False),
        LinkEvent(replugged_at, "A", connected=True),
    )
    during = [m for t, m in _messages(result.records) if unplugged_at < t < replugged_at]
    assert during == []
    after = [m for t, m in _messages(result.records) if t > replugged_at]
    assert after == [SerialNumber("12345")]  # no field updates: IDLE after the wake-up


def test_garbage_and_silence_in_a_scenario():
    sc = Scenario({"A": BoardConfig(power_up_bus_mode=False)}, seed=2)
    hands = sc.hands()
    hands.garbage(b"\x00\x13")
    sc.wait(0.1)
    hands.silence(1.0)
    sc.host(b"\x45")
    sc.wait(1.5)
    sc.host(b"\x45")
    sc.wait(0.5)
    messages = [m for _, m in _messages(run_scenario(sc).records)]
    assert isinstance(messages[0], Garbage)
    assert messages[1:] == [SerialNumber("12345")]
