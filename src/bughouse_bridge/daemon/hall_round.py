"""``hall round FILE``: read a round file and publish it retained on ``<root>/hall/round``.

The same payload also goes, retained, to ``<root>/hall/rounds/<n>`` (the standings need every
round's pairings, not only the current one), and the ``[standings]`` settings of the hall's
``hall.toml`` to ``<root>/hall/scoring`` (the hall view computes the standings with them).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import aiomqtt

from bughouse_bridge.daemon.hall_mqtt import HallConnection, HallConnectionError
from bughouse_bridge.drivers.mqtt import utc_timestamp
from bughouse_bridge.drivers.mqtt_session import session
from bughouse_bridge.hall.naming import round_archive_topic, round_topic, scoring_topic
from bughouse_bridge.hall.rounds import (
    RoundFileError,
    parse_round_file,
    round_payload,
    seating_problems,
)
from bughouse_bridge.hall.scoring import Scoring, ScoringError, scoring_from_toml, scoring_payload

if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def read_scoring(hall: Path) -> Scoring:
    """The hall's ``hall.toml`` settings; the defaults for a hall written before it existed."""
    path = hall / "hall.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Scoring()
    except (OSError, UnicodeDecodeError) as error:
        raise ScoringError(f"cannot read {path}: {error}") from error
    return scoring_from_toml(text, str(path))


async def publish_round(args: argparse.Namespace) -> int:
    try:
        text = args.file.read_text(encoding="utf-8")
        parsed = parse_round_file(args.file.name, text)
    except (OSError, UnicodeDecodeError) as error:
        print(f"hall round: cannot read {args.file}: {error}", file=sys.stderr)
        return 1
    except RoundFileError as error:
        print(f"hall round: {args.file}: {error}", file=sys.stderr)
        return 2
    try:
        scoring = read_scoring(args.hall)
    except ScoringError as error:
        print(f"hall round: {error}", file=sys.stderr)
        return 2
    for pairing in parsed.pairings:
        for problem in seating_problems(pairing):
            # Published anyway (the arbiter decides); every box raises seating_wrong too.
            print(f"hall round: warning: {problem}", file=sys.stderr)
    try:
        connection = HallConnection.from_args(args)
        root = connection.root
        payload = round_payload(parsed, ts=utc_timestamp())
        async with session(connection.client("round")) as client:
            await client.publish(scoring_topic(root), scoring_payload(scoring), 1, retain=True)
            await client.publish(round_archive_topic(root, parsed.number), payload, 1, retain=True)
            # Last: the boxes take the pairing from this one.
            await client.publish(round_topic(root), payload, 1, retain=True)
    except HallConnectionError as error:
        print(f"hall round: {error}", file=sys.stderr)
        return 2
    except aiomqtt.MqttError as error:
        print(f"hall round: cannot publish: {error}", file=sys.stderr)
        return 1
    tables = ", ".join(str(p.table) for p in parsed.pairings)
    print(f"round {parsed.number} published for table(s) {tables} on {round_topic(root)}")
    return 0
