"""``bughouse-bridge replay TRACE``: run a recorded trace through the pure pipeline (contract §1).

Writes the events, one JSON object per line, to standard output; ``--bpgn FILE`` also writes the
replayed game's BPGN (the last game if the trace holds several: the bridge's record when the
trace ends). Exit status 0, 1 on an unreadable trace file or an unwritable BPGN file, 2 on bad
arguments or configuration.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bridge import Bridge, replay_chunks
from bughouse_bridge.daemon.wiring import ConfigurationError, replay_bridge_config
from bughouse_bridge.trace import TraceRecord, parse_trace_lines

if TYPE_CHECKING:
    import argparse

    from bughouse_bridge.trace import TraceParse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trace", type=Path, help="the trace file (JSON Lines, contract §1)")
    parser.add_argument("--rules", help="rule preset: dsj (default), dsb, olite, fics")
    parser.add_argument("--config", type=Path, help="a configuration file (links, teams, timings)")
    parser.add_argument(
        "--bpgn", type=Path, metavar="FILE", help="also write the replayed game's BPGN to FILE"
    )


def run(args: argparse.Namespace) -> int:
    try:
        text = args.trace.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"replay: cannot read {args.trace}: {error}", file=sys.stderr)
        return 1
    parsed = parse_trace_lines(text.splitlines())
    _report_problems(args.trace, parsed)
    try:
        config = replay_bridge_config(
            config_file=args.config, rules=args.rules, trace_links=_links_in_order(parsed)
        )
    except ConfigurationError as error:
        print(f"replay: {error}", file=sys.stderr)
        return 2
    bridge = Bridge(config)
    chunks = (
        (item.t, item.link, item.data if isinstance(item, TraceRecord) else item.connected)
        for item in parsed.timeline
        if not isinstance(item, TraceRecord) or item.direction == "rx"
    )
    output = replay_chunks(bridge, chunks)
    out = sys.stdout
    for payload in output.events:
        out.write(json.dumps(payload, separators=(",", ":"), ensure_ascii=False) + "\n")
    out.flush()
    return 0 if args.bpgn is None else _write_bpgn(args.bpgn, bridge.bpgn_text())


def _write_bpgn(path: Path, text: str) -> int:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"replay: cannot write the BPGN to {path}: {error}", file=sys.stderr)
        return 1
    return 0


def _links_in_order(parsed: TraceParse) -> list[str]:
    links: list[str] = []
    for record in parsed.records:
        if record.link not in links:
            links.append(record.link)
    return links


def _report_problems(path: Path, parsed: TraceParse) -> None:
    for problem in parsed.problems:
        print(f"replay: {path}:{problem.line_number}: {problem.message} (skipped)", file=sys.stderr)
