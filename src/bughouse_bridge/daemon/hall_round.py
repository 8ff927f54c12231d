"""``hall round FILE``: read a round file and publish it retained on ``<root>/hall/round``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import aiomqtt

from bughouse_bridge.daemon.hall_mqtt import HallConnection, HallConnectionError
from bughouse_bridge.drivers.mqtt import utc_timestamp
from bughouse_bridge.hall.naming import round_topic
from bughouse_bridge.hall.rounds import (
    RoundFileError,
    parse_round_file,
    round_payload,
    seating_problems,
)

if TYPE_CHECKING:
    import argparse


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
    for pairing in parsed.pairings:
        for problem in seating_problems(pairing):
            # Published anyway (the arbiter decides); every box raises seating_wrong too.
            print(f"hall round: warning: {problem}", file=sys.stderr)
    try:
        connection = HallConnection.from_args(args)
        async with connection.client("round") as client:
            topic = round_topic(connection.root)
            await client.publish(topic, round_payload(parsed, ts=utc_timestamp()), 1, retain=True)
    except HallConnectionError as error:
        print(f"hall round: {error}", file=sys.stderr)
        return 2
    except aiomqtt.MqttError as error:
        print(f"hall round: cannot publish: {error}", file=sys.stderr)
        return 1
    tables = ", ".join(str(p.table) for p in parsed.pairings)
    print(f"round {parsed.number} published for table(s) {tables} on {topic}")
    return 0
