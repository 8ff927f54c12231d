"""The pure core, composed: bytes of each serial link in, MQTT publications and DGT writes out.

``Bridge`` is the only door into the pure world. The shell calls ``receive`` with each chunk a
serial link produced, ``link_state`` when a link comes or goes, ``on_timer`` when ``deadline()``
has passed, and ``command`` for each arbiter request. Given the same calls with the same ``now``
values, a ``Bridge`` produces the same outputs: that is what makes replay and resume exact.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bughouse_bridge.bughouse.bpgn import (
    game_from_match_log,
    is_record_event,
    record_date_tags,
    ruleset_tags,
    write_bpgn,
)
from bughouse_bridge.bughouse.events import (
    Alert,
    Mate,
    MateStatus,
    MovePlayed,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    Severity,
    Stalemate,
    StalemateStatus,
    Takeback,
)
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.referee import CLAIM_KINDS
from bughouse_bridge.bughouse.types import AlertCode, BoardId, color_name
from bughouse_bridge.dgt.commands import encode_command
from bughouse_bridge.dgt.constants import Command
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import (
    ClockAck,
    ClockTimes,
    LongSerialNumber,
    SerialNumber,
    Version,
)
from bughouse_bridge.hall.progress import HallTable
from bughouse_bridge.hall.rounds import RoundFileError, round_from_dict, seating_problems
from bughouse_bridge.reconstruct import ClockReading, MatchReconstructor, RequestDump
from bughouse_bridge.reconstruct.alerts import alert
from bughouse_bridge.request_parsing import (
    DEFAULT_LIMITS,
    Limits,
    RequestError,
    parse_request,
    printable_verb,
    transaction_of,
)
from bughouse_bridge.topics import (
    Envelope,
    Publication,
    Teams,
    Topics,
    encode_json,
    event_payload,
    event_publications,
    format_ts,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    import chess

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.rules import RuleSet
    from bughouse_bridge.dgt.messages import Message
    from bughouse_bridge.reconstruct import Outcome, ReconstructorConfig


@dataclass(frozen=True, slots=True)
class BridgeConfig:
    bridge_id: str
    match_id: str
    rules: RuleSet
    reconstructor: ReconstructorConfig
    links: Mapping[str, BoardId]  # link name -> the board it carries
    root: str = "bughouse/v1"
    teams: Teams = field(default_factory=Teams)
    # BPGN tags from the configuration ([event], [game]): Event, Site, Round, Table, TimeControl.
    record_tags: Mapping[str, str] = field(default_factory=dict)
    boot_id: str = "replay"
    clock_origin_epoch: float = 0.0  # wall-clock epoch of t = 0, only used for ``ts``
    first_seq: int = 1
    start_fens: Mapping[BoardId, str] | None = None
    table: int | None = None  # a box in a hall: pairings from the round topic, automatic new game


@dataclass(frozen=True, slots=True)
class Output:
    publications: tuple[Publication, ...] = ()
    writes: tuple[tuple[str, bytes], ...] = ()  # (link, bytes for the board)
    events: tuple[dict[str, Any], ...] = ()  # the event payloads, in order (for replay output)

    def __add__(self, other: Output) -> Output:
        return Output(
            self.publications + other.publications,
            self.writes + other.writes,
            self.events + other.events,
        )


@dataclass(slots=True)
class DeviceInfo:
    """What the bridge knows of one link's board and clock (the retained device topic)."""

    link: str
    board: BoardId
    connected: bool = False
    port: str | None = None
    serial: str | None = None
    long_serial: str | None = None
    firmware: str | None = None
    clock: str | None = None
    clock_battery_low: bool | None = None  # the clock's status bit; None before its first reading
    last_seen: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "link": self.link,
            "board": str(self.board),
            "connected": self.connected,
            "port": self.port,
            "serial": self.long_serial or self.serial,
            "firmware": self.firmware,
            "clock": self.clock,
            "clock_battery_low": self.clock_battery_low,
            "last_seen": self.last_seen,
        }


@dataclass(slots=True)
class BoardView:
    """The snapshot's per-board part that events do not carry by themselves."""

    status: str = "playing"
    last_move: str | None = None
    white_ms: int | None = None
    black_ms: int | None = None
    running: chess.Color | None = None


class CommandError(ValueError):
    """An arbiter request that cannot be carried out; the sentence goes back to the arbiter."""


# A round's pairings (``hall_round``, the payload of ``<root>/hall/round``) nest deeper and hold
# more keys than any arbiter request: tables → team → players → seat, a key per table.
VERB_LIMITS = {
    "hall_round": Limits(payload_bytes=1024 * 1024, depth=6, keys=1024),
}


class Bridge:
    """Decoders per link → reconstructor → match → contract publications."""

    def __init__(
        self,
        config: BridgeConfig,
        reconstructor_factory: Callable[[Match], MatchReconstructor] | None = None,
    ) -> None:
        self._config = config
        self._factory = reconstructor_factory or (
            lambda match: MatchReconstructor(match, config.reconstructor)
        )
        self.topics = Topics(config.root, config.bridge_id, config.match_id)
        self._envelope = Envelope(config.bridge_id, config.match_id, config.boot_id)
        self._decoders = {link: DgtDecoder() for link in config.links}
        self._devices = {link: DeviceInfo(link, board) for link, board in config.links.items()}
        self.game_number = 0  # 1 for the match's first game; each new_game adds one
        self._next_seq = config.first_seq
        self._publish_from_seq = 0
        self.last_command_failure: Exception | None = None
        self._hall = HallTable.of(config.match_id)
        self._failed_inputs: set[tuple[str, str | None, str]] = set()
        self._start_new_game()

    # -- the shell's entry points -------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._next_seq - 1

    def restart_as(self, boot_id: str, next_seq: int) -> None:
        """After a resume: new events belong to this process, their seq continues the old one."""
        self._envelope = Envelope(self._config.bridge_id, self._config.match_id, boot_id)
        self._next_seq = max(self._next_seq, next_seq)

    def mute_until(self, seq: int) -> None:
        """Publish nothing for events numbered below ``seq`` (they were published before a resume).

        The pipeline still runs in full, so state, numbering and everything after come out exactly
        as they did the first time; ``mute_until(0)`` switches publishing back on.
        """
        self._publish_from_seq = seq

    @staticmethod
    def encode_response(response: Mapping[str, Any]) -> bytes:
        return encode_json(response)

    def receive(self, link: str, data: bytes, now: float) -> Output:
        if link not in self._decoders:
            return Output()
        output = Output()
        for message in self._decoders[link].feed(data):
            output += self._on_message(link, message, now)
        return output + self._hall_next_game(now)

    def process_restarted(self) -> None:
        """A new process resumes from the journal (its ``boot`` record): every link is down
        until it connects again."""
        for device in self._devices.values():
            device.connected = False
        self._reconstructor.process_restarted()

    def link_state(
        self, link: str, now: float, *, connected: bool, port: str | None = None
    ) -> Output:
        device = self._devices.get(link)
        if device is None:
            return Output()
        device.connected = connected
        device.port = port or device.port
        if not connected:
            self._decoders[link].flush()
        outcomes = self._reconstructor.on_link_state(device.board, connected=connected, now=now)
        return self._device_publication(device) + self._handle(outcomes, now)

    def deadline(self) -> float | None:
        return self._reconstructor.deadline()

    def on_timer(self, now: float) -> Output:
        return self._handle(self._reconstructor.on_timer(now), now) + self._hall_next_game(now)

    def command(self, verb: str, payload: bytes, now: float) -> tuple[dict[str, Any], Output]:
        """Carry out an arbiter request (contract §5). Returns the response and what followed.

        Never raises, whatever the payload: limits are checked first (``request_parsing``), and a
        handler that fails anyway is answered ``ok: false`` with the bridge rolled back to where
        it was, so a refused or failed request has changed nothing — the shell journals only
        requests answered ``ok: true`` and a failed one is never replayed.
        ``last_command_failure`` keeps the exception of an unexpected failure for the shell's log.
        """
        self.last_command_failure = None
        transaction: str | int | None = None
        checkpoint = None
        read_only = True
        try:
            request = parse_request(payload, VERB_LIMITS.get(verb, DEFAULT_LIMITS))
            transaction = transaction_of(request)
            handler = self._handler(verb)
            read_only = verb in READ_ONLY_VERBS
            checkpoint = None if read_only else self._checkpoint()
            result, output = handler(request, now)
        except (CommandError, RequestError) as error:
            return {"transaction": transaction, "ok": False, "error": str(error)}, Output()
        except Exception as error:  # noqa: BLE001 - no request may kill the daemon
            if checkpoint is not None:
                self._restore(checkpoint)
            self.last_command_failure = error
            undone = checkpoint is not None or read_only
            sentence = (
                f"the bridge failed to carry out {printable_verb(verb)} "
                f"({type(error).__name__}); "
                + ("nothing was changed" if undone else "ask for status: it may be partly done")
            )
            return {"transaction": transaction, "ok": False, "error": sentence}, Output()
        return {"transaction": transaction, "ok": True, **result}, output

    def input_failed(
        self, what: str, error: Exception, now: float, *, link: str | None = None
    ) -> Output:
        """An alert for an input the shell could not process (a bug); the input is skipped.

        The shell calls this both live and when it replays the journal, at the same place, so the
        event numbering of a resume stays exact. Only the first failure of each kind (input, link,
        exception type) is alerted: a part that keeps failing must not flood the arbiters; the
        shell logs every one.
        """
        kind = (what, link, type(error).__name__)
        if kind in self._failed_inputs:
            return Output()
        self._failed_inputs.add(kind)
        board = self._devices[link].board if link in self._devices else None
        alert = Alert(
            t=now,
            board=board,
            color=None,
            code=AlertCode.INPUT_FAILED,
            severity=Severity.WARNING,
            rule=None,
            message=(
                f"The bridge could not process one input ({what}) and skipped it; "
                "if a board looks wrong, ask for a resync. Further failures of this kind are "
                "only logged."
            ),
            details={"input": what, "link": link, "error": type(error).__name__},
        )
        return self._event(alert)

    def state_publication(self, now: float) -> Publication:
        payload = self._envelope.wrap(seq=None, ts=self._ts(now), t=now, kind="state")
        payload.update(self.snapshot())
        return Publication(self.topics.state, encode_json(payload), qos=1, retain=True)

    def retained_publications(self, now: float) -> list[Publication]:
        """Everything a late subscriber needs: state, BPGN and device health."""
        publications = [self.state_publication(now), self._bpgn_publication()]
        for device in self._devices.values():
            publications.extend(self._device_publication(device).publications)
        return publications

    def snapshot(self) -> dict[str, Any]:
        match = self._reconstructor.match
        result = match.result
        return {
            "rules": self._config.rules.describe(),
            **self._config.teams.as_dict(),
            "boards": {str(board): self._board_snapshot(match, board) for board in BoardId},
            "pockets": match.pockets().as_dict(),
            "result": None if result is None else self._result_dict(result),
            "claims": match.open_claims(),
            "last_seq": self.last_seq,
        }

    def bpgn_text(self) -> str:
        game = game_from_match_log(
            self._game_events, tags=self._bpgn_tags(), fens=self._config.start_fens
        )
        return write_bpgn(game)

    @property
    def game_decided(self) -> bool:
        """Whether the current game has a result (the shell archives its record then)."""
        return self._reconstructor.match.result is not None

    # -- internals ----------------------------------------------------------------------------

    def _start_new_game(self) -> None:
        self.game_number += 1
        self._reconstructor = self._factory(Match(self._config.rules, fens=self._config.start_fens))
        self._views = {board: BoardView() for board in BoardId}
        self._game_events: list[MatchEvent] = []
        self._after_result = False  # a result was published and not revoked since

    def _on_message(self, link: str, message: Message, now: float) -> Output:
        device = self._devices[link]
        device.last_seen = now
        output = self._note_identity(device, message)
        return output + self._handle(
            self._reconstructor.on_message(device.board, message, now), now
        )

    def _note_identity(self, device: DeviceInfo, message: Message) -> Output:
        before = device.as_dict()
        match message:
            case Version():
                device.firmware = str(message)
            case SerialNumber():
                device.serial = message.text
            case LongSerialNumber():
                device.long_serial = message.text
            case ClockTimes():
                device.clock_battery_low = message.battery_low
            case ClockAck() if message.clock_type is not None:
                version = message.version
                device.clock = (
                    f"{message.clock_type.value} {version[0]}.{version[1]}" if version else None
                )
            case _:
                return Output()
        changed = {k: v for k, v in device.as_dict().items() if k != "last_seen"} != {
            k: v for k, v in before.items() if k != "last_seen"
        }
        return self._device_publication(device) if changed else Output()

    def _device_publication(self, device: DeviceInfo) -> Output:
        body = encode_json(device.as_dict())
        return Output((Publication(self.topics.device(device.link), body, qos=1, retain=True),))

    def _handle(self, outcomes: Iterable[Outcome], now: float) -> Output:
        output = Output()
        for outcome in outcomes:
            match outcome:
                case ClockReading():
                    output += self._clock_reading(outcome, now)
                case RequestDump():
                    output += self._request_dump(outcome.board)
                case _:
                    output += self._event(outcome)
        return output

    def _event(self, event: MatchEvent) -> Output:
        self._note_event(event)
        payload = event_payload(
            event,
            envelope=self._envelope,
            seq=self._next_seq,
            ts=self._ts(event.t),
            teams=self._config.teams,
        )
        if self._after_result:
            payload["after_result"] = True
        self._after_result = _decided_after(event, decided_before=self._after_result)
        self._next_seq += 1
        if payload["seq"] < self._publish_from_seq:
            return Output(events=(payload,))
        publications = [*event_publications(self.topics, payload), self.state_publication(event.t)]
        if is_record_event(event):
            publications.append(self._bpgn_publication())
        return Output(tuple(publications), events=(payload,))

    def _note_event(self, event: MatchEvent) -> None:
        match event:
            case MovePlayed():
                view = self._views[event.board]
                view.last_move = event.move.uci
                view.status = "playing"
                self._game_events.append(event)
            case Takeback() | PositionAccepted() | PocketSet():
                self._game_events.append(event)
            case Mate():
                self._views[event.board].status = _MATE_STATUS[event.status]
            case Stalemate():
                waiting = event.status is StalemateStatus.WAITING
                self._views[event.board].status = "stalemate" if waiting else "playing"
            case ResultDecided():
                self._game_events.append(event)
                for view in self._views.values():
                    view.status = "finished"
            case ResultRevoked():
                self._game_events.append(event)
                for view in self._views.values():
                    view.status = "playing" if view.status == "finished" else view.status
            case Alert() if is_record_event(event):  # a removal (row 9) is part of the record
                self._game_events.append(event)
            case _:  # alerts, link changes, checks… change no board view
                pass

    def _clock_reading(self, reading: ClockReading, now: float) -> Output:
        view = self._views[reading.board]
        view.white_ms, view.black_ms, view.running = (
            reading.white_ms,
            reading.black_ms,
            reading.running,
        )
        payload = self._envelope.wrap(seq=None, ts=self._ts(now), t=reading.t, kind="clock")
        payload.update(
            {
                "board": str(reading.board),
                "white_ms": reading.white_ms,
                "black_ms": reading.black_ms,
                "running": None if reading.running is None else color_name(reading.running),
            }
        )
        return Output((Publication(self.topics.clock, encode_json(payload), qos=0, retain=False),))

    def _request_dump(self, board: BoardId) -> Output:
        links = [link for link, device in self._devices.items() if device.board is board]
        return Output(writes=tuple((link, encode_command(Command.SEND_BRD)) for link in links))

    def _bpgn_publication(self) -> Publication:
        return Publication(self.topics.bpgn, self.bpgn_text().encode(), qos=1, retain=True)

    def _bpgn_tags(self) -> dict[str, str]:
        """The seven-tag roster first, as PGN readers expect; see docs/bpgn.md, "Tags"."""
        config = self._config
        players = config.teams.players
        configured = dict(config.record_tags)
        first_move = next((e.t for e in self._game_events if isinstance(e, MovePlayed)), 0.0)
        return {
            "Event": configured.pop("Event", f"bughouse-bridge match {config.match_id}"),
            "Site": configured.pop("Site", config.bridge_id),
            **record_date_tags(config.clock_origin_epoch, first_move),
            "Round": configured.pop("Round", "?"),
            "WhiteA": players.get("white_a", "?"),
            "BlackA": players.get("black_a", "?"),
            "WhiteB": players.get("white_b", "?"),
            "BlackB": players.get("black_b", "?"),
            **configured,
            "Variant": "Bughouse",
            **ruleset_tags(config.rules),
        }

    def _board_snapshot(self, match: Match, board: BoardId) -> dict[str, Any]:
        view = self._views[board]
        links = [device for device in self._devices.values() if device.board is board]
        return {
            "fen": match.fen(board),
            "turn": color_name(match.turn(board)),
            "ply": match.ply(board),
            "last_move": view.last_move,
            "status": view.status,
            "clock": {
                "white_ms": view.white_ms,
                "black_ms": view.black_ms,
                "running": None if view.running is None else color_name(view.running),
            },
            "link": "connected" if any(device.connected for device in links) else "disconnected",
        }

    def _result_dict(self, result: ResultDecided) -> dict[str, Any]:
        return {
            "winner": self._config.teams.id_of(result.winner_team),
            "board": str(result.board),
            "reason": result.reason,
            "bpgn_result": result.bpgn_result,
        }

    def _ts(self, t: float) -> str:
        return format_ts(self._config.clock_origin_epoch + t)

    # -- arbiter commands (contract §5) -------------------------------------------------------

    def _commands(
        self,
    ) -> dict[str, Callable[[Mapping[str, Any], float], tuple[dict[str, Any], Output]]]:
        return {
            "status": self._cmd_status,
            "new_game": self._cmd_new_game,
            "set_result": self._cmd_set_result,
            "takeback": self._cmd_takeback,
            "resync": self._cmd_resync,
            "accept": self._cmd_accept,
            "confirm_claim": self._cmd_confirm_claim,
            "revoke_result": self._cmd_revoke_result,
            "set_pocket": self._cmd_set_pocket,
            "hall_round": self._cmd_hall_round,
            "choose_recovery": self._cmd_choose_recovery,
        }

    def _handler(
        self, verb: str
    ) -> Callable[[Mapping[str, Any], float], tuple[dict[str, Any], Output]]:
        commands = self._commands()
        if verb not in commands:
            known = ", ".join(sorted(commands))
            raise CommandError(f"unknown verb {printable_verb(verb)}; known verbs: {known}")
        return commands[verb]

    def _cmd_status(self, request: Mapping[str, Any], now: float) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ())
        devices = {link: device.as_dict() for link, device in self._devices.items()}
        return {"state": self.snapshot(), "devices": devices, "t": now}, Output()

    def _cmd_new_game(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ())
        self._start_new_game()
        output = self._handle(self._reconstructor.new_game(now, self._config.start_fens), now)
        output += Output((self.state_publication(now), self._bpgn_publication()))
        return {}, output + self._request_dump_all()

    def _cmd_set_result(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ("winner", "board", "reason"))
        winner = self._team_index(request.get("winner"))
        board = _board_argument(request)
        reason = request.get("reason", "arbiter")
        if not isinstance(reason, str) or not reason:
            raise CommandError('\'reason\' must be a non-empty string, e.g. "resign" or "arbiter"')
        if self._reconstructor.match.result is not None:
            raise CommandError(
                "the match already has a result; revoke it (revoke_result) or start a new game"
            )
        try:
            events = self._reconstructor.set_result(winner, board, reason, now)
        except ValueError as error:
            raise CommandError(str(error)) from error
        return {}, self._handle(events, now)

    def _cmd_takeback(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ("board",))
        board = _board_argument(request)
        if self._reconstructor.match.ply(board) == 0:
            raise CommandError(f"board {board} has no move to take back")
        try:
            events = self._reconstructor.takeback(board, now)
        except ValueError as error:
            raise CommandError(f"cannot take back on board {board}: {error}") from error
        return {"ply": self._reconstructor.match.ply(board)}, self._handle(events, now)

    def _cmd_resync(self, request: Mapping[str, Any], now: float) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ("board",))
        if "board" in request:
            board = _board_argument(request)
            return {}, self._handle([RequestDump(board)], now)
        return {}, self._request_dump_all()

    def _cmd_accept(self, request: Mapping[str, Any], now: float) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ("board",))
        board = _board_argument(request)
        try:
            outcomes = self._reconstructor.accept(board, now)
        except ValueError as error:
            raise CommandError(f"cannot accept the position of board {board}: {error}") from error
        match = self._reconstructor.match
        result = {"ply": match.ply(board), "fen": match.fen(board)}
        return result, self._handle(outcomes, now)

    def _cmd_set_pocket(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        _expect_keys(request, ("board", "color", "pieces"))
        board = _board_argument(request)
        color = _color_argument(request)
        pieces = request.get("pieces")
        if not isinstance(pieces, str):
            raise CommandError('\'pieces\' must be a string of pocket letters, e.g. "PPN" or ""')
        try:
            events = self._reconstructor.set_pocket(board, color, pieces, now)
        except ValueError as error:
            raise CommandError(f"cannot set that pocket: {error}") from error
        pockets = self._reconstructor.match.pockets().as_dict()
        return {"pockets": pockets}, self._handle(events, now)

    def _checkpoint(self) -> tuple[object, ...] | None:
        """Everything a command may change, copied, so a failing command can be undone
        (None if some part cannot be copied: the command then runs without a safety net)."""
        config = self._config
        # The frozen configuration is shared, not copied (it holds mapping proxies).
        shared: dict[int, Any] = {
            id(shared_object): shared_object
            for shared_object in (config, config.rules, config.reconstructor, self._factory)
        }
        state = (self._reconstructor, self._views, self._game_events, self._next_seq, self._devices)
        try:
            return copy.deepcopy(state, shared)
        except Exception:  # noqa: BLE001 - state that cannot be copied must not block commands
            return None

    def _restore(self, checkpoint: tuple[object, ...]) -> None:
        reconstructor, views, game_events, next_seq, devices = checkpoint
        self._reconstructor = reconstructor  # type: ignore[assignment]
        self._views = views  # type: ignore[assignment]
        self._game_events = game_events  # type: ignore[assignment]
        self._next_seq = next_seq  # type: ignore[assignment]
        self._devices = devices  # type: ignore[assignment]

    def _cmd_confirm_claim(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        """Rows 10-13: the arbiter confirms a claim; the bridge checks it against what it saw."""
        _expect_keys(request, ("board", "color", "claim", "at"))
        board = _board_argument(request)
        color = _color_argument(request)
        claim = request.get("claim")
        if claim not in CLAIM_KINDS:
            raise CommandError(f"'claim' must be one of {', '.join(CLAIM_KINDS)}, not {claim!r}")
        at = request.get("at", now)
        if isinstance(at, bool) or not isinstance(at, int | float) or not 0 <= at <= now:
            raise CommandError(f"'at' must be a time in seconds between 0 and now ({now:.1f})")
        try:
            events = self._reconstructor.confirm_claim(board, color, claim, now, at)
        except ValueError as error:
            raise CommandError(f"the claim does not hold: {error}") from error
        return {"claim": claim}, self._handle(events, now)

    def _cmd_revoke_result(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        """The result is withdrawn; play goes on and later decisions (a mate) count."""
        _expect_keys(request, ("reason",))
        reason = request.get("reason", "")
        if not isinstance(reason, str):
            raise CommandError("'reason' must be a string")
        try:
            events = self._reconstructor.revoke_result(now, reason)
        except ValueError as error:
            raise CommandError(str(error)) from error
        return {}, self._handle(events, now)

    # -- the hall: pairings from the round topic, the next game by itself (issue 10) ----------

    def _cmd_hall_round(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        """Take this table's pairing from a published round (``<root>/hall/round``).

        An untouched game (no move, no result) switches to the pairing at once; otherwise it is
        kept for the next game, which starts when both boards stand in the start position after
        the result. Rounds older than the current one, or the same pairing again, change nothing.
        """
        if self._config.table is None:
            raise CommandError("this bridge is not a hall box ([hall] table is not set)")
        try:
            pairing = round_from_dict(request).pairing(self._config.table)
        except RoundFileError as error:
            raise CommandError(str(error)) from error
        if pairing is None or not self._hall.wants(pairing, untouched=self._untouched()):
            return {"taken": False}, Output()
        self._hall.pending = pairing
        output = self._hall_switch(now, next_game=False) if self._untouched() else Output()
        return {"taken": True, "match": self._config.match_id}, output

    def _untouched(self) -> bool:
        match = self._reconstructor.match
        return match.result is None and all(match.ply(board) == 0 for board in BoardId)

    def _hall_next_game(self, now: float) -> Output:
        if (
            self._config.table is None
            or self._reconstructor.match.result is None
            or not self._reconstructor.shows_start_position()
        ):
            return Output()
        return self._hall_switch(now, next_game=True)

    def _hall_switch(self, now: float, *, next_game: bool) -> Output:
        assert self._config.table is not None
        match_id, pairing = self._hall.advance(self._config.table, next_game=next_game)
        teams = pairing.teams() if pairing is not None else self._config.teams
        self._config = replace(self._config, match_id=match_id, teams=teams)
        self.topics = Topics(self._config.root, self._config.bridge_id, match_id)
        self._envelope = Envelope(self._config.bridge_id, match_id, self._envelope.boot_id)
        self._views = {board: BoardView() for board in BoardId}
        self._game_events = []
        output = self._handle(self._reconstructor.new_game(now, self._config.start_fens), now)
        for problem in seating_problems(pairing) if pairing is not None else ():
            output += self._event(alert(now, None, None, AlertCode.SEATING_WRONG, problem))
        output += Output((self.state_publication(now), self._bpgn_publication()))
        return output + self._request_dump_all()

    def _cmd_choose_recovery(
        self, request: Mapping[str, Any], now: float
    ) -> tuple[dict[str, Any], Output]:
        """A gap the bridge could not settle (alert ``gap_ambiguous``): the arbiter names the
        candidate whose moves replace it in the log."""
        _expect_keys(request, ("gap", "candidate"))
        gap, candidate = request.get("gap"), request.get("candidate")
        if type(gap) is not int or type(candidate) is not int:
            raise CommandError(
                "'gap' and 'candidate' must be integers from the gap_ambiguous alert"
            )
        try:
            events = self._reconstructor.choose_recovery(gap, candidate, now)
        except ValueError as error:
            raise CommandError(str(error)) from error
        return {"gap": gap, "candidate": candidate}, self._handle(events, now)

    def _request_dump_all(self) -> Output:
        output = Output()
        for board in BoardId:
            output += self._request_dump(board)
        return output

    def _team_index(self, winner: object) -> int | None:
        if winner is None:
            return None
        if isinstance(winner, str) and winner in self._config.teams.ids:
            return self._config.teams.ids.index(winner)
        known = ", ".join(self._config.teams.ids)
        raise CommandError(f"'winner' must be one of {known} or null for a draw, not {winner!r}")


_MATE_STATUS = {
    MateStatus.PENDING: "mate_pending",
    MateStatus.AVERTED: "playing",
    MateStatus.FINAL: "mated",
}


# Verbs that change nothing: no checkpoint to roll back to, nothing for the journal.
READ_ONLY_VERBS = frozenset({"status"})


def _expect_keys(request: Mapping[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(request) - {"transaction", *allowed})
    if unknown:
        expected = ", ".join(allowed) or "no arguments"
        raise CommandError(f"unknown argument(s) {', '.join(unknown)}; expected {expected}")


def _decided_after(event: MatchEvent, *, decided_before: bool) -> bool:
    """Whether events after this one come after a (standing) match result."""
    if isinstance(event, ResultDecided):
        return True
    if isinstance(event, ResultRevoked):
        return False
    return decided_before


def _board_argument(request: Mapping[str, Any]) -> BoardId:
    board = request.get("board")
    if board not in ("A", "B"):
        raise CommandError(f'\'board\' must be "A" or "B", not {board!r}')
    return BoardId(board)


def _color_argument(request: Mapping[str, Any]) -> chess.Color:
    color = request.get("color")
    if color not in ("white", "black"):
        raise CommandError(f'\'color\' must be "white" or "black", not {color!r}')
    return bool(color == "white")  # chess.WHITE is True


def run_to(bridge: Bridge, until: float) -> Output:
    """Fire every timer due up to ``until`` on the pipeline clock, in deadline order."""
    output = Output()
    for _ in range(_MAX_TIMERS_PER_STEP):
        deadline = bridge.deadline()
        if deadline is None or deadline > until:
            return output
        output += bridge.on_timer(deadline)
    return output


def replay_chunks(
    bridge: Bridge, chunks: Iterable[tuple[float, str, bytes | bool]], *, tail: float = 30.0
) -> Output:
    """Feed received chunks ``(t, link, data)`` at their virtual times, timers in between;
    ``data`` ``True``/``False`` is a link coming back / going away (a trace's link events).

    This is the replay semantics of contract §1: the timers of the pipeline run on the trace
    clock, so an hour-long game replays in well under a second. ``tail`` lets settle timers that
    are pending after the last chunk run out.
    """
    output = Output()
    last_t = 0.0
    for t, link, data in chunks:
        output += run_to(bridge, t)
        if isinstance(data, bool):
            output += bridge.link_state(link, t, connected=data)
        else:
            output += bridge.receive(link, data, t)
        last_t = t
    return output + run_to(bridge, last_t + tail)


# A timer that keeps firing at the same instant would be a reconstructor bug; never spin on it.
_MAX_TIMERS_PER_STEP = 10_000
