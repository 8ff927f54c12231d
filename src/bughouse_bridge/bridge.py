"""The pure core, composed: bytes of each serial link in, MQTT publications and DGT writes out.

``Bridge`` is the only door into the pure world. The shell calls ``receive`` with each chunk a
serial link produced, ``link_state`` when a link comes or goes, ``on_timer`` when ``deadline()``
has passed, and ``command`` for each arbiter request. Given the same calls with the same ``now``
values, a ``Bridge`` produces the same outputs: that is what makes replay and resume exact.

It composes one unit per job (``pipeline/``): the device front (links, decoders, identity),
the reconstructor (moves from sensor changes, the match and its log), the publisher (numbering,
envelopes, what each step publishes), the game (views, the record as a view of the match log,
the BPGN) and the lifecycle (which game is played; archive; the hall). Everything a step or a
command may change lives in one place, ``_Parts``, which a command's checkpoint copies whole.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.pipeline.commands import READ_ONLY_VERBS, CommandError, carry_out
from bughouse_bridge.pipeline.config import BridgeConfig
from bughouse_bridge.pipeline.devices import DeviceFront, DeviceInfo
from bughouse_bridge.pipeline.lifecycle import GameLifecycle
from bughouse_bridge.pipeline.output import GameFile, Output
from bughouse_bridge.pipeline.publisher import Publisher
from bughouse_bridge.pipeline.replay import replay_chunks, run_to
from bughouse_bridge.reconstruct import ClockReading, MatchReconstructor, RequestDump
from bughouse_bridge.reconstruct.alerts import alert
from bughouse_bridge.topics import encode_json

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    from bughouse_bridge.pipeline.game import Game
    from bughouse_bridge.reconstruct import Outcome
    from bughouse_bridge.topics import Publication, Topics, Wire

__all__ = [
    "READ_ONLY_VERBS",
    "Bridge",
    "BridgeConfig",
    "CommandError",
    "DeviceInfo",
    "GameFile",
    "Output",
    "replay_chunks",
    "run_to",
]


@dataclass(slots=True)
class _Parts:
    """Everything the core changes as it runs. A command's checkpoint is a copy of this."""

    front: DeviceFront
    publisher: Publisher
    games: GameLifecycle
    reconstructor: MatchReconstructor
    set_up: frozenset[BoardId] = frozenset()  # boards seen in the start position since a result


class Bridge:
    """Decoders per link → reconstructor → match → contract publications."""

    def __init__(
        self,
        config: BridgeConfig,
        reconstructor_factory: Callable[[Match], MatchReconstructor] | None = None,
    ) -> None:
        self._config = config
        factory = reconstructor_factory or (lambda m: MatchReconstructor(m, config.reconstructor))
        match = Match(config.rules, fens=config.start_fens)
        self._parts = _Parts(
            DeviceFront(config.links), Publisher(config), GameLifecycle(config), factory(match)
        )
        self.last_command_failure: Exception | None = None

    # -- what the shell and the tests read -----------------------------------------------------

    @property
    def reconstructor(self) -> MatchReconstructor:
        return self._parts.reconstructor

    @property
    def games(self) -> GameLifecycle:
        return self._parts.games

    @property
    def game(self) -> Game:
        """The game played now."""
        return self._parts.games.current

    @property
    def topics(self) -> Topics:
        return self._wire().topics

    @property
    def game_number(self) -> int:
        return self.game.id.number

    @property
    def last_seq(self) -> int:
        return self._parts.publisher.last_seq

    def restart_as(self, boot_id: str, next_seq: int) -> None:
        """After a resume: new events belong to this process, their seq continues the old one."""
        self._parts.publisher.restart_as(boot_id, next_seq)

    def mute_until(self, seq: int) -> None:
        """Publish nothing for events numbered below ``seq`` (they were published before a resume).

        The pipeline still runs in full, so state, numbering and everything after come out exactly
        as they did the first time; ``mute_until(0)`` switches publishing back on.
        """
        self._parts.publisher.mute_until(seq)

    @staticmethod
    def encode_response(response: Mapping[str, Any]) -> bytes:
        return encode_json(response)

    def snapshot(self) -> dict[str, Any]:
        parts = self._parts
        connected = {board: parts.front.connected(board) for board in BoardId}
        return {
            "rules": self._config.rules.describe(),
            **self.game.snapshot(parts.reconstructor.match, connected),
            "last_seq": self.last_seq,
        }

    def status(self, now: float) -> dict[str, Any]:
        devices = {link: device.as_dict() for link, device in self._parts.front.devices.items()}
        return {"state": self.snapshot(), "devices": devices, "t": now}

    def bpgn_text(self) -> str:
        return self.game.bpgn_text(self._config.clock_origin_epoch)

    def state_publication(self, now: float) -> Publication:
        return self._wire().state(self.snapshot(), now)

    def retained_publications(self, now: float) -> list[Publication]:
        """Everything a late subscriber needs: state, the record (entries, header, BPGN), the
        games index and device health."""
        wire, front = self._wire(), self._parts.front
        return [
            self.state_publication(now),
            *self.game.record_publications(wire, 0),
            wire.games(self.games.games_fields()),
            *(wire.device(link, device.as_dict()) for link, device in front.devices.items()),
        ]

    # -- the shell's entry points -------------------------------------------------------------

    def receive(self, link: str, data: bytes, now: float) -> Output:
        parts = self._parts
        if link not in parts.front.devices:
            return Output()
        devices, outcomes = [], []
        for board, message, changed in parts.front.read(link, data, now):
            if changed:
                devices.append(self._device_publication(link))
            outcomes += parts.reconstructor.on_message(board, message, now)
        return Output(tuple(devices)) + self.step(outcomes, now) + self._hall_next_game(now)

    def process_restarted(self) -> None:
        """A new process resumes from the journal (its ``boot`` record): every link is down
        until it connects again."""
        self._parts.front.process_restarted()
        self._parts.reconstructor.process_restarted()

    def link_state(
        self, link: str, now: float, *, connected: bool, port: str | None = None
    ) -> Output:
        device = self._parts.front.connect(link, connected=connected, port=port)
        if device is None:
            return Output()
        outcomes = self._parts.reconstructor.on_link_state(device.board, connected, now)
        return Output((self._device_publication(link),)) + self.step(outcomes, now)

    def deadline(self) -> float | None:
        return self._parts.reconstructor.deadline()

    def on_timer(self, now: float) -> Output:
        outcomes = self._parts.reconstructor.on_timer(now)
        return self.step(outcomes, now) + self._hall_next_game(now)

    def command(self, verb: str, payload: bytes, now: float) -> tuple[dict[str, Any], Output]:
        """Carry out an arbiter request (contract §5): all of it, or — refused or failed part
        way — nothing (``commands.carry_out``). Never raises; ``last_command_failure`` keeps the
        exception of an unexpected failure for the shell's log."""
        response, output, self.last_command_failure = carry_out(self, verb, payload, now)
        return response, output

    def input_failed(
        self, what: str, error: Exception, now: float, *, link: str | None = None
    ) -> Output:
        """An alert for an input the shell could not process (a bug); the input is skipped.

        The shell calls this both live and when it replays the journal, at the same place, so the
        event numbering of a resume stays exact.
        """
        failure = self._parts.front.input_failed(what, error, now, link)
        return Output() if failure is None else self.step([failure], now)

    # -- the steps the units take together (also what the arbiter's verbs act on) ------------

    def step(self, outcomes: Iterable[Outcome], now: float, *, new_game: bool = False) -> Output:
        """The reconstructor's outcomes published: clock readings, dump requests, events (and
        the state after them, also without any when a game begins)."""
        parts = self._parts
        game = parts.games.current
        clocks: list[Publication] = []
        writes: tuple[tuple[str, bytes], ...] = ()
        events = []
        for outcome in outcomes:
            match outcome:
                case ClockReading():
                    clocks.append(parts.publisher.clock(game, outcome, now))
                case RequestDump():
                    writes += parts.front.dump_requests(outcome.board)
                case _:
                    events.append(outcome)
        output, first = parts.publisher.step(self, events, now, publish_state=new_game)
        files = () if first is None else tuple(parts.games.archive(game))
        return Output(tuple(clocks), writes) + output + Output(files=files)

    def start_game(self, now: float, *, next_game: bool) -> Output:
        """The one way a game begins (``new_game``, the hall's next game, a pairing taken): the
        game that ends is archived under its own name, the next begins with everything
        game-scoped fresh, and both boards are read again."""
        parts = self._parts
        parts.set_up = frozenset()
        finished = parts.games.current
        files, problems = parts.games.start_game(now, next_game=next_game)
        game = parts.games.current
        wire = self._wire()
        publications: list[Publication] = []
        if finished.id.match == game.id.match:  # the same topics: the old game's entries go
            publications += [wire.record_cleared(n) for n in range(1, len(finished.published) + 1)]
        publications += [
            wire.record_header(game.header()),
            wire.bpgn(game.bpgn_text(wire.origin_epoch)),
            wire.games(parts.games.games_fields()),
        ]
        if parts.publisher.replaying:
            publications = []
        outcomes = parts.reconstructor.new_game(now, self._config.start_fens)
        seating = [alert(now, None, None, AlertCode.SEATING_WRONG, text) for text in problems]
        output = Output(tuple(publications), files=tuple(files))
        output += self.step([*outcomes, *seating], now, new_game=True)
        return output + self.dumps()

    def dumps(self, *boards: BoardId) -> Output:
        """Ask the boards (all if none named) for their whole position."""
        return Output(writes=self._parts.front.dump_requests(*boards))

    def untouched(self) -> bool:
        """Nothing played yet: no move on either board, nothing on record."""
        match = self._parts.reconstructor.match
        return not self.game.played and not any(match.ply(board) for board in BoardId)

    # -- internals ----------------------------------------------------------------------------

    def _hall_next_game(self, now: float) -> Output:
        """A hall box starts the next game by itself once each board has stood in the start
        position since the result — not necessarily both at once: the players of one board
        may start before the other board is set up, and their first move is the next game's."""
        parts = self._parts
        reconstructor = parts.reconstructor
        if parts.games.hall_table is None or reconstructor.match.result is None:
            parts.set_up = frozenset()
            return Output()
        parts.set_up |= reconstructor.boards_in_start_position()
        if parts.set_up != frozenset(BoardId):
            return Output()
        return self.start_game(now, next_game=True)

    def _wire(self) -> Wire:
        return self._parts.publisher.wire(self.game.id.match)

    def _device_publication(self, link: str) -> Publication:
        device = self._parts.front.devices[link]
        return self._wire().device(link, device.as_dict())

    def checkpoint(self) -> object | None:
        """Everything a command may change, copied, so that a failing command can be undone
        (None if some part cannot be copied: the command then runs without a safety net)."""
        config = self._config
        # The frozen configuration is shared, not copied (it holds mapping proxies).
        shared: dict[int, Any] = {
            id(frozen): frozen for frozen in (config, config.rules, config.reconstructor)
        }
        try:
            return copy.deepcopy(self._parts, shared)
        except Exception:  # noqa: BLE001 - state that cannot be copied must not block commands
            return None

    def restore(self, checkpoint: object) -> None:
        assert isinstance(checkpoint, _Parts)
        self._parts = checkpoint
