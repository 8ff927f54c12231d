"""``hall results`` and ``hall status``: read what the boxes keep retained on the hall broker.

``results`` writes, per round, ``round-<r>.csv`` and ``round-<r>.json`` (one row per finished
game) and ``round-<r>/<match>.bpgn`` for each finished game, and the team table with the
tie-breaks of the hall's ``hall.toml`` as ``standings.csv`` and ``standings.json`` (per round the
pairings and results, then the table; :mod:`bughouse_bridge.hall.standings`). As a one-shot it
collects the retained states and rounds for ``--listen`` seconds and writes; with ``--listen 0``
it keeps running and rewrites a round's files whenever one of its games finishes, and the
standings whenever a result or a pairing changes (files are replaced atomically).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt

from bughouse_bridge.daemon.hall_mqtt import HallConnection, HallConnectionError
from bughouse_bridge.daemon.hall_round import read_scoring
from bughouse_bridge.drivers.cancellation import raise_if_cancelled
from bughouse_bridge.drivers.mqtt_session import session
from bughouse_bridge.hall.naming import parse_match_id, round_archive_topic, round_topic
from bughouse_bridge.hall.results import (
    BoxView,
    ResultRow,
    bpgn_file_name,
    results_csv,
    results_json,
    round_file_stem,
    status_line,
)
from bughouse_bridge.hall.rounds import RoundFileError, round_from_payload
from bughouse_bridge.hall.scoring import Scoring, ScoringError
from bughouse_bridge.hall.standings import (
    GameResult,
    Pairing,
    game_of_state,
    pairings_of_round,
    standings,
    standings_csv,
    standings_json,
)

if TYPE_CHECKING:
    import argparse

logger = logging.getLogger(__name__)


class ResultsCollector:
    """Keeps the finished games and the rounds it has seen, and writes a round's files and the
    standings when they change."""

    def __init__(self, out: Path, scoring: Scoring | None = None) -> None:
        self.out = out
        self.scoring = scoring or Scoring()
        self.rows: dict[str, ResultRow] = {}
        self.bpgn: dict[str, str] = {}
        self.written: dict[str, tuple[ResultRow, str | None]] = {}
        self.games: dict[str, GameResult] = {}
        self.pairings: dict[int, list[Pairing]] = {}
        self.names: dict[str, str] = {}
        self._standings_written: str | None = None

    def on_message(self, topic: str, payload: bytes) -> set[int]:
        """Take one message; return the rounds whose files need writing."""
        *_, hall, match, leaf = ["", *topic.split("/")]
        if (match, leaf) == ("hall", "round") or (hall, match) == ("hall", "rounds"):
            self._take_round(topic, payload)
            return set()
        if parse_match_id(match) is None:
            return set()
        if leaf == "bpgn":
            self.bpgn[match] = payload.decode("utf-8", errors="replace")
        elif leaf == "state":
            try:
                state = json.loads(payload)
            except (UnicodeDecodeError, json.JSONDecodeError):
                logger.warning("ignoring a state on %s that is not JSON", topic)
                return set()
            self._take_state(match, state if isinstance(state, dict) else {})
        return self._changed_rounds()

    def _take_state(self, match: str, state: dict[str, Any]) -> None:
        row = ResultRow.from_state(state)
        if row is None:
            self.rows.pop(match, None)  # e.g. a result revoked
        else:
            self.rows[match] = row
        game = game_of_state(state)
        if game is None:
            self.games.pop(match, None)
        else:
            self.games[match] = game[0]
            self.names.update(game[1])

    def _take_round(self, topic: str, payload: bytes) -> None:
        try:
            parsed = round_from_payload(payload)
        except RoundFileError as error:
            logger.warning("ignoring a round on %s: %s", topic, error)
            return
        pairings, names = pairings_of_round(parsed)
        self.pairings[parsed.number] = pairings
        self.names.update(names)

    def _changed_rounds(self) -> set[int]:
        rounds = set()
        for match, row in self.rows.items():
            if self.written.get(match) != (row, self.bpgn.get(match)):
                rounds.add(row.round)
        return rounds

    def standings_report(self) -> dict[str, Any]:
        pairings = [p for number in sorted(self.pairings) for p in self.pairings[number]]
        return standings(self.scoring, pairings, self.games.values(), self.names)

    def write(self, rounds: set[int]) -> list[Path]:
        """The files of ``rounds``, and the standings when they changed."""
        written = []
        for number in sorted(rounds):
            rows = [row for row in self.rows.values() if row.round == number]
            stem = round_file_stem(number)
            written.append(_replace(self.out / f"{stem}.csv", results_csv(rows)))
            written.append(_replace(self.out / f"{stem}.json", results_json(number, rows)))
            for row in rows:
                text = self.bpgn.get(row.match)
                if text is not None:
                    written.append(_replace(self.out / stem / bpgn_file_name(row.match), text))
                self.written[row.match] = (row, text)
        report = self.standings_report()
        text = standings_json(report)
        if report["table"] and text != self._standings_written:
            written.append(_replace(self.out / "standings.json", text))
            written.append(_replace(self.out / "standings.csv", standings_csv(report)))
            self._standings_written = text
        return written


def _replace(path: Path, text: str) -> Path:
    """Write ``path`` atomically: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(text)
    Path(temporary).replace(path)
    return path


async def collect_results(args: argparse.Namespace) -> int:
    try:
        connection = HallConnection.from_args(args)
    except HallConnectionError as error:
        print(f"hall results: {error}", file=sys.stderr)
        return 2
    try:
        scoring = read_scoring(args.hall)
    except ScoringError as error:
        print(f"hall results: {error}", file=sys.stderr)
        return 2
    collector = ResultsCollector(args.out, scoring)
    service = args.listen <= 0
    try:
        await run_collector(connection, collector, until=None if service else args.listen)
    except aiomqtt.MqttError as error:
        print(f"hall results: {error}", file=sys.stderr)
        return 1
    files = collector.write({row.round for row in collector.rows.values()})
    print(f"{len(collector.rows)} finished game(s), {len(files)} file(s) in {args.out}")
    return 0


async def run_collector(
    connection: HallConnection, collector: ResultsCollector, *, until: float | None
) -> None:
    """Collect (and write as results come) for ``until`` seconds, or forever, reconnecting."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(until):
            while True:
                raise_if_cancelled()
                try:
                    await _collect_once(connection, collector)
                except aiomqtt.MqttError as error:
                    if until is not None:
                        raise
                    logger.warning("hall results: %s; reconnecting", error)
                    await asyncio.sleep(2)


async def _collect_once(connection: HallConnection, collector: ResultsCollector) -> None:
    async with session(connection.client("results")) as client:
        for leaf in ("state", "bpgn"):
            await client.subscribe(f"{connection.root}/match/+/{leaf}", qos=1)
        await client.subscribe(round_topic(connection.root), qos=1)
        await client.subscribe(round_archive_topic(connection.root, "+"), qos=1)
        async for message in client.messages:
            raise_if_cancelled()
            changed = collector.on_message(message.topic.value, bytes(message.payload))
            for path in collector.write(changed):
                logger.info("wrote %s", path)


async def print_status(args: argparse.Namespace) -> int:
    try:
        connection = HallConnection.from_args(args)
        views = await gather_boxes(connection, args.wait)
    except HallConnectionError as error:
        print(f"hall status: {error}", file=sys.stderr)
        return 2
    except aiomqtt.MqttError as error:
        print(f"hall status: {error}", file=sys.stderr)
        return 1
    now = datetime.now(UTC)
    for view in views:
        print(status_line(view, now))
    if not views:
        print("no box has been seen on this broker")
    return 0


async def gather_boxes(connection: HallConnection, wait: float) -> list[BoxView]:
    """The retained status, devices and newest match state of every box, after ``wait`` s."""
    status: dict[str, dict[str, Any]] = {}
    devices: dict[str, dict[str, dict[str, Any]]] = {}
    states: dict[str, dict[str, Any]] = {}
    root = connection.root
    async with session(connection.client("status")) as client:
        for topic in ("bridge/+/status", "bridge/+/device/+", "match/+/state"):
            await client.subscribe(f"{root}/{topic}", qos=1)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                async for message in client.messages:
                    parts = message.topic.value.removeprefix(f"{root}/").split("/")
                    try:
                        body = json.loads(bytes(message.payload))
                    except (UnicodeDecodeError, json.JSONDecodeError):
                        continue
                    if not isinstance(body, dict):
                        continue
                    _note(parts, body, status, devices, states)
    boxes = sorted(set(status) | set(devices), key=_box_order)
    return [BoxView(box, status.get(box), devices.get(box, {}), states.get(box)) for box in boxes]


def _note(
    parts: list[str],
    body: dict[str, Any],
    status: dict[str, dict[str, Any]],
    devices: dict[str, dict[str, dict[str, Any]]],
    states: dict[str, dict[str, Any]],
) -> None:
    match parts:
        case ["bridge", box, "status"]:
            status[box] = body
        case ["bridge", box, "device", link]:
            devices.setdefault(box, {})[link] = body
        case ["match", _, "state"]:
            box = str(body.get("bridge", ""))
            newest = states.get(box)
            if newest is None or str(body.get("ts", "")) >= str(newest.get("ts", "")):
                states[box] = body


def _box_order(box: str) -> tuple[int, str]:
    number = box.removeprefix("table-")
    return (int(number), box) if number.isdigit() else (10**6, box)
