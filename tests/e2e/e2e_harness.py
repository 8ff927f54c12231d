"""End-to-end harness: a private mosquitto, a recording subscriber, two emulated boards on ptys.

Used by ``tests/e2e`` and by ``bench/bench_e2e.py``. Everything goes through the real paths:
pyserial on ptys for the boards, a real mosquitto for MQTT.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Self

import aiomqtt

from bughouse_bridge.bughouse.bpgn import BpgnGame, parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.config import load_settings
from bughouse_bridge.daemon.app import Daemon
from bughouse_bridge.daemon.emulate import board_configs
from bughouse_bridge.data import bundled_game
from bughouse_bridge.drivers.pty_emulator import PtyEmulator
from bughouse_bridge.emulator.actions import PressClock, SetField, TimedAction
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.game import GamePlan, Pace, game_scenario

if TYPE_CHECKING:
    from pathlib import Path

    from bughouse_bridge.emulator.handling import Noise

SHARED_PORT = 1883
# The fastest pace at which the bundled game still reconstructs move for move (see bench/README).
FAST_SPEED = 8.0
HOST_PATIENCE = 20.0


def unique_id(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:30]
    return f"{slug}-{uuid.uuid4().hex[:8]}"


def the_game(moves: int | None = None) -> BpgnGame:
    """The bundled game (1934301), optionally cut after ``moves`` half-moves."""
    game = parse_bpgn(bundled_game())[0]
    return game if moves is None else replace(game, moves=game.moves[:moves])


@dataclass(frozen=True, slots=True)
class Message:
    topic: str
    payload: bytes
    retain: bool
    at: float  # time.monotonic() when the subscriber held it

    def json(self) -> Any:
        return json.loads(self.payload)


@dataclass
class Subscriber:
    """Records every message on ``topics``; reconnects by itself.

    With ``persistent`` the session is kept by the broker (clean_session=False, fixed client id,
    QoS 1), so messages published while this client is away are delivered on its return.
    """

    port: int
    topics: list[str]
    persistent: bool = False
    host: str = "127.0.0.1"
    client_id: str = field(default_factory=lambda: f"e2e-sub-{uuid.uuid4().hex[:10]}")
    messages: list[Message] = field(default_factory=list)
    connects: int = 0
    _task: asyncio.Task[None] | None = None
    _connected: asyncio.Event = field(default_factory=asyncio.Event)

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self._run(), name="e2e-subscriber")
        await asyncio.wait_for(self._connected.wait(), 15)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        while True:
            try:
                async with aiomqtt.Client(
                    self.host,
                    self.port,
                    identifier=self.client_id,
                    clean_session=not self.persistent,
                ) as client:
                    for topic in self.topics:
                        await client.subscribe(topic, qos=1)
                    self.connects += 1
                    self._connected.set()
                    async for message in client.messages:
                        payload = message.payload
                        data = payload if isinstance(payload, bytes) else str(payload).encode()
                        self.messages.append(
                            Message(message.topic.value, data, message.retain, time.monotonic())
                        )
            except aiomqtt.MqttError:
                self._connected.clear()
                await asyncio.sleep(0.3)

    def on(self, suffix: str) -> list[Message]:
        return [m for m in self.messages if m.topic.endswith(suffix)]

    def events(self) -> list[dict[str, Any]]:
        return [m.json() for m in self.on("/events")]

    def last(self, suffix: str) -> Message | None:
        found = self.on(suffix)
        return found[-1] if found else None

    async def wait_for(self, predicate: Any, within: float = 30.0, what: str = "") -> None:
        deadline = time.monotonic() + within
        while not predicate():
            if time.monotonic() > deadline:
                tail = [m.payload[:160] for m in self.messages[-4:]]
                raise AssertionError(f"timed out waiting for {what or predicate}; last: {tail}")
            await asyncio.sleep(0.05)


def dedupe(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop QoS-1 duplicates by (boot_id, seq), as the contract tells consumers to."""
    seen: set[tuple[str, int]] = set()
    unique = []
    for event in events:
        key = (event["boot_id"], event["seq"])
        if key not in seen:
            seen.add(key)
            unique.append(event)
    return unique


def moves_by_board(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The SANs of the move events per board, after applying takebacks."""
    boards: dict[str, list[str]] = {"A": [], "B": []}
    for event in events:
        if event["type"] == "move":
            boards[event["board"]].append(event["san"])
        elif event["type"] == "takeback":
            del boards[event["board"]][event["ply"] :]
    return boards


def expected_by_board(game: BpgnGame) -> dict[str, list[str]]:
    boards: dict[str, list[str]] = {"A": [], "B": []}
    for move in game.moves:
        boards[move.board.name].append(move.san)
    return boards


def settings_overrides(  # noqa: PLR0913 - plain keywords
    *, workdir: Path, port: int, root: str, bridge: str, match: str, links: dict[str, str]
) -> dict[str, Any]:
    return {
        "bridge_id": bridge,
        "match_id": match,
        "rules.preset": "fics",
        "links": [{"name": name, "port": path} for name, path in links.items()],
        "mqtt.host": "127.0.0.1",
        "mqtt.port": port,
        "mqtt.root": root,
        "state_dir": str(workdir / "state"),
        "teams.check_seating": False,
        "teams.first.id": "team-one",
        "teams.first.name": "Team One",
        "teams.second.id": "team-two",
        "teams.second.name": "Team Two",
    }


def config_toml(overrides: dict[str, Any]) -> str:
    """The same settings as a TOML file for ``bughouse-bridge run --config``."""
    lines = [
        f'bridge_id = "{overrides["bridge_id"]}"',
        f'match_id = "{overrides["match_id"]}"',
        f'state_dir = "{overrides["state_dir"]}"',
        'log_level = "warning"',
        "[rules]",
        'preset = "fics"',
        "[teams]",
        "check_seating = false",
        "[teams.first]",
        'id = "team-one"',
        'name = "Team One"',
        "[teams.second]",
        'id = "team-two"',
        'name = "Team Two"',
        "[mqtt]",
        'host = "127.0.0.1"',
        f"port = {overrides['mqtt.port']}",
        f'root = "{overrides["mqtt.root"]}"',
    ]
    for link in overrides["links"]:
        lines += ["[[links]]", f'name = "{link["name"]}"', f'port = "{link["port"]}"']
    return "\n".join(lines) + "\n"


class Table:
    """Two emulated boards (A, B) with clocks on ptys, reachable through stable symlinks."""

    def __init__(self, workdir: Path, *, seed: int = 1) -> None:
        self.workdir = workdir
        self.seed = seed
        self.configs = board_configs("3000")
        self.runners = {
            link: PtyEmulator(
                EmulatedBoard(config, random.Random(f"{seed}:{link}")),
                link=link,
                symlink=workdir / f"board-{link.lower()}",
            )
            for link, config in self.configs.items()
        }
        self.offset = 0.0
        self.delay = 0.0  # how much later than planned the held actions play (``resume_held``)
        self._held: list[Any] = []

    @property
    def links(self) -> dict[str, str]:
        return {link: str(runner.symlink) for link, runner in self.runners.items()}

    def close(self) -> None:
        for runner in self.runners.values():
            runner.close()

    async def wait_for_host(self, patience: float = HOST_PATIENCE) -> None:
        async with asyncio.timeout(patience):
            await asyncio.gather(*(r.host_seen.wait() for r in self.runners.values()))
        await asyncio.sleep(1.5)  # let the handshake finish

    def plan(
        self, game: BpgnGame, *, speed: float = FAST_SPEED, noise: Noise | None = None
    ) -> GamePlan:
        return game_scenario(
            game,
            rules=get_preset("fics"),
            configs=self.configs,
            seed=self.seed,
            pace=Pace.fast(speed),
            noise=noise,
            with_host=False,
        )

    def start(self, plan: GamePlan, *, hold_after: float | None = None) -> None:
        """Schedule the plan on both boards from now on (emulator time ``offset + t``).

        With ``hold_after``, the actions after that plan time wait for ``resume_held`` (the
        players think: the clocks run, nothing moves). A move in the hand at that time is
        finished first, up to its clock press: a player thinks with his hands off the board."""
        self.offset = self.runners["A"].now()
        actions = plan.scenario.sorted_actions()
        cuts = {
            link: float("inf") if hold_after is None else _between_moves(actions, link, hold_after)
            for link in self.runners
        }
        self._held = [action for action in actions if action.t > cuts[action.link]]
        for runner in self.runners.values():
            runner.play([a for a in actions if a.t <= cuts[a.link]], offset=self.offset)

    def resume_held(self, *, after: float = 0.0) -> float:
        """Play the held actions from ``after`` seconds from now on, shifted as one block (the
        game goes on as planned, later). Returns the shift in seconds."""
        if not self._held:
            return 0.0
        plan_now = self.runners["A"].now() - self.offset
        self.delay = max(0.0, plan_now + after - self._held[0].t)
        for runner in self.runners.values():
            runner.play(self._held, offset=self.offset + self.delay)
        self._held = []
        return self.delay

    def at(self, t: float, callback: Any) -> asyncio.TimerHandle:
        """Call ``callback`` at plan time ``t``."""
        runner = self.runners["A"]
        loop = asyncio.get_running_loop()
        return loop.call_at(loop.time() + (self.offset + t - runner.now()), callback)

    def unplug_during(self, link: str, start: float, end: float) -> None:
        """Pull ``link``'s cable at plan time ``start``, plug it back at ``end``."""
        runner = self.runners[link]
        self.at(start, runner.unplug)
        self.at(end, runner.replug)

    async def finished(self, plan: GamePlan) -> None:
        for runner in self.runners.values():
            await runner.finished()
        end = self.offset + self.delay + plan.end
        await asyncio.sleep(max(0.0, end - self.runners["A"].now()))


def _between_moves(actions: list[TimedAction], link: str, t: float) -> float:
    """The first moment at or after ``t`` when no move is in ``link``'s hands: ``t`` itself
    when nothing was touched since the last clock press, else the press ending that move."""
    on_link = [a for a in actions if a.link == link]
    touched = False
    for action in on_link:
        if action.t > t:
            if not touched:
                return t
            if isinstance(action.action, PressClock):
                return action.t
        elif isinstance(action.action, SetField):
            touched = True
        elif isinstance(action.action, PressClock):
            touched = False
    return t


def daemon_settings(overrides: dict[str, Any]) -> Any:
    return load_settings(None, overrides=overrides)


@contextlib.asynccontextmanager
async def running_daemon(overrides: dict[str, Any]) -> Any:
    """An in-process ``Daemon`` running as a task; stopped cleanly on exit."""
    daemon = Daemon(daemon_settings(overrides))
    task = asyncio.create_task(daemon.run(), name="e2e-daemon")
    try:
        yield daemon
    finally:
        daemon.stop()
        try:
            await asyncio.wait_for(task, 20)
        except TimeoutError:
            task.cancel()
