"""The publisher: event numbering, envelopes and topics, and what each step publishes.

What is published when (contract §2, "What is published when"):

- every event: its payload on the match's ``events`` topic (alerts also on ``alerts``), QoS 1,
  numbered by ``seq`` — gap-free for the box's whole life, across games and resumes;
- every step whose events changed the game record: the changed ``record/<n>`` entries (from
  the first changed one; empty retained messages for entries a rewrite removed), the record
  header and the BPGN — appending a move writes one entry and one half-move, never the game;
  the box's ``games`` index when a game got its first entry or its result changed (and when a
  game starts, ``Bridge.start_game``);
- once per step that published anything of the game: the retained ``state``, after the events
  it reflects (not once per event: a move that mates publishes move, check, mate and result
  events, then one state);
- clock readings on the ``clock`` topic (QoS 0, at most once a second per clock).

After a resume the events a previous process published are numbered again but not published
(``mute_until``); the retained views of such steps are republished at start-up instead
(``Bridge.retained_publications``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from bughouse_bridge.pipeline.output import Output
from bughouse_bridge.topics import Topics, Wire

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.pipeline.config import BridgeConfig
    from bughouse_bridge.pipeline.game import Game
    from bughouse_bridge.pipeline.lifecycle import GameLifecycle
    from bughouse_bridge.reconstruct import ClockReading, MatchReconstructor
    from bughouse_bridge.topics import Publication


class Core(Protocol):
    """What a step's publications are read from (the ``Bridge``)."""

    @property
    def reconstructor(self) -> MatchReconstructor: ...

    @property
    def games(self) -> GameLifecycle: ...

    def snapshot(self) -> dict[str, Any]: ...


class Publisher:
    """Numbers events and turns each step of the core into its publications."""

    __slots__ = ("_next_seq", "_publish_from", "boot_id", "bridge_id", "origin_epoch", "root")

    def __init__(self, config: BridgeConfig) -> None:
        self.root, self.bridge_id, self.boot_id = config.root, config.bridge_id, config.boot_id
        self.origin_epoch = config.clock_origin_epoch
        self._next_seq = config.first_seq
        self._publish_from = 0

    @property
    def last_seq(self) -> int:
        return self._next_seq - 1

    def restart_as(self, boot_id: str, next_seq: int) -> None:
        """After a resume: new events belong to this process, their seq continues the old one."""
        self.boot_id = boot_id
        self._next_seq = max(self._next_seq, next_seq)

    @property
    def replaying(self) -> bool:
        """The next event was published before a resume: so was everything up to it."""
        return self._next_seq < self._publish_from

    def mute_until(self, seq: int) -> None:
        """Publish nothing for events numbered below ``seq`` (see ``Bridge.mute_until``)."""
        self._publish_from = seq

    def wire(self, match_id: str) -> Wire:
        return Wire(Topics(self.root, self.bridge_id, match_id), self.boot_id, self.origin_epoch)

    def step(
        self, core: Core, events: Sequence[MatchEvent], now: float, *, publish_state: bool = False
    ) -> tuple[Output, int | None]:
        """Publish one step's events, then what they changed of the record (and of the box's
        games index: a game's first entry, its result), then one state. Returns the output and
        the first record entry that changed (None: none)."""
        game = core.games.current
        wire = self.wire(game.id.match)
        listed, result = game.played, game.result
        payloads, publications = [], []
        for event in events:
            after = game.note(event)
            payload, messages = wire.event(
                event, seq=self._next_seq, teams=game.id.teams, after_result=after
            )
            self._next_seq += 1
            payloads.append(payload)
            if payload["seq"] >= self._publish_from:
                publications += messages
        first = game.sync(core.reconstructor.match)
        if first is not None:
            publications += game.record_publications(wire, first)
            if game.played != listed or game.result is not result:
                publications.append(wire.games(core.games.games_fields()))
        if events or first is not None or publish_state:
            publications.append(wire.state(core.snapshot(), now))
        if self.last_seq < self._publish_from:  # all of it went out before a resume
            publications = []
        return Output(tuple(publications), events=tuple(payloads)), first

    def games(self, game: Game, index: Mapping[str, Any]) -> Publication:
        return self.wire(game.id.match).games(index)

    def clock(self, game: Game, reading: ClockReading, now: float) -> Publication:
        clock = game.clock_reading(reading)
        return self.wire(game.id.match).clock(str(reading.board), reading.t, now, clock)
