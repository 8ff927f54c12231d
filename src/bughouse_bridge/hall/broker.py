"""The hall broker's files as text: mosquitto.conf, the ACL, password lines, box configurations.

Roles (enforced by mosquitto, not by the boxes):

- **box** ``table-<n>``: publishes its own bridge's topics (status, devices, responses), its
  matches' topics (``r<round>-t<n>``, see :mod:`naming`) and the alerts feed; reads its own
  requests and the hall topics. It can send no command: no ``request`` topic is writable for it.
- **arbiter**: sends commands (``bridge/+/request/+``), the round pairing (also kept per round,
  ``hall/rounds/+``, with the standings settings ``hall/scoring``) and the shared
  acknowledgement of alerts (``ack/#``); reads everything.
- **viewer** and anonymous clients: read the broadcast topics only (match events, state, BPGN,
  clocks and game record, bridge status, devices and games index, the round pairings and the
  scoring); they can publish nothing.

Everything here is pure: the shell passes in salts and passwords and writes the text to files.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.hall.naming import (
    bridge_id,
    match_id,
    round_archive_topic,
    round_topic,
    scoring_topic,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

PBKDF2_ITERATIONS = 101  # what mosquitto_passwd 2.0 writes (``$7$101$…``)
SALT_BYTES = 12

ARBITER = "arbiter"
VIEWER = "viewer"

# The broadcast topics, relative to the root: what viewers read and the uplink forwards.
BROADCAST = (
    "match/+/events",
    "match/+/state",
    "match/+/bpgn",
    "match/+/clock",
    "match/+/record",
    "match/+/record/+",
    "bridge/+/status",
    "bridge/+/device/+",
    "bridge/+/games",
)


@dataclass(frozen=True, slots=True)
class Uplink:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> Uplink:
        host, sep, port = text.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"--uplink {text!r}: expected HOST:PORT, e.g. relay.example.org:1883")
        return cls(host, int(port))


@dataclass(frozen=True, slots=True)
class HallPlan:
    """What ``hall init`` was asked for."""

    tables: int
    host: str = "localhost"
    mqtt_port: int = 8883
    ws_port: int = 9001
    ws_tls: bool = False
    root: str = "bughouse/v1"
    rounds: int = 15
    games_per_round: int = 2
    uplink: Uplink | None = None
    listen: str = "0.0.0.0"  # noqa: S104 - the hall's broker serves the hall's network
    broker_user: str | None = None  # mosquitto started as root switches to this user (init: set)

    def __post_init__(self) -> None:
        if self.tables < 1:
            raise ValueError("--tables must be at least 1")
        if self.rounds < 1 or self.games_per_round < 1:
            raise ValueError("--rounds and --games-per-round must be at least 1")
        if self.mqtt_port == self.ws_port:
            raise ValueError("--mqtt-port and --ws-port must differ")

    @property
    def boxes(self) -> list[str]:
        return [bridge_id(n) for n in range(1, self.tables + 1)]

    @property
    def users(self) -> list[str]:
        return [*self.boxes, ARBITER, VIEWER]


@dataclass(frozen=True, slots=True)
class HallPaths:
    """Where the files live (absolute paths go into mosquitto.conf and the box configurations)."""

    directory: str
    password_file: str
    acl_file: str
    persistence: str
    ca_file: str
    cert_file: str
    key_file: str
    log_file: str

    @classmethod
    def under(cls, directory: str) -> HallPaths:
        return cls(
            directory=directory,
            password_file=f"{directory}/passwd",
            acl_file=f"{directory}/acl",
            persistence=f"{directory}/data/",
            ca_file=f"{directory}/tls/ca.crt",
            cert_file=f"{directory}/tls/server.crt",
            key_file=f"{directory}/tls/server.key",
            log_file=f"{directory}/mosquitto.log",
        )


def password_line(user: str, password: str, salt: bytes) -> str:
    """One line of a mosquitto 2.0 password file: PBKDF2-SHA512, 101 iterations."""
    if ":" in user or not user:
        raise ValueError(f"invalid user name {user!r}")
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS, 64)
    encoded_salt = base64.b64encode(salt).decode()
    encoded_hash = base64.b64encode(digest).decode()
    return f"{user}:$7${PBKDF2_ITERATIONS}${encoded_salt}${encoded_hash}"


def password_file(passwords: Mapping[str, str], salts: Mapping[str, bytes]) -> str:
    return "".join(f"{password_line(user, pw, salts[user])}\n" for user, pw in passwords.items())


def box_match_ids(plan: HallPlan, table: int) -> list[str]:
    """Every match id table ``table`` may publish: round 0 (before pairings) to ``rounds``."""
    return [
        match_id(round_number, table, game)
        for round_number in range(plan.rounds + 1)
        for game in range(1, plan.games_per_round + 1)
    ]


def acl(plan: HallPlan) -> str:
    root = plan.root
    lines = [
        "# bughouse-bridge hall ACL (generated by `bughouse-bridge hall init`).",
        "# Anonymous clients: read the broadcast only.",
        *_broadcast_reads(root),
        "",
        f"user {VIEWER}",
        *_broadcast_reads(root),
        "",
        f"user {ARBITER}",
        f"topic read {root}/#",
        f"topic write {root}/bridge/+/request/+",
        f"topic write {round_topic(root)}",
        f"topic write {round_archive_topic(root, '+')}",
        f"topic write {scoring_topic(root)}",
        f"topic write {root}/ack/#",
        "",
    ]
    for table, box in enumerate(plan.boxes, start=1):
        lines += [
            f"user {box}",
            f"topic write {root}/bridge/{box}/status",
            f"topic write {root}/bridge/{box}/device/+",
            f"topic write {root}/bridge/{box}/games",
            f"topic write {root}/bridge/{box}/response/+",
            f"topic read {root}/bridge/{box}/request/+",
            f"topic write {root}/alerts",
            f"topic read {root}/hall/#",
        ]
        # Everything under its own matches (events, state, bpgn, clock and whatever a later
        # version adds there): no command lives under match/, so this grants nothing more.
        lines += [f"topic write {root}/match/{match}/#" for match in box_match_ids(plan, table)]
        lines.append("")
    return "\n".join(lines)


def _hall_topics(root: str) -> list[str]:
    """The arbiter's retained hall topics every viewer reads."""
    return [round_topic(root), round_archive_topic(root, "+"), scoring_topic(root)]


def _broadcast_reads(root: str) -> list[str]:
    return [f"topic read {root}/{topic}" for topic in BROADCAST] + [
        f"topic read {topic}" for topic in _hall_topics(root)
    ]


def mosquitto_conf(plan: HallPlan, paths: HallPaths) -> str:
    ws_tls = [f"certfile {paths.cert_file}", f"keyfile {paths.key_file}"] if plan.ws_tls else []
    lines = [
        "# bughouse-bridge hall broker (generated by `bughouse-bridge hall init`).",
        "# Needs mosquitto >= 2.0 built with WebSockets support.",
        "per_listener_settings false",
        "# Started as root (sudo, a service) mosquitto switches to this user, who owns the files",
        "# it reads and writes; started as any other user it runs as that user.",
        *([f"user {plan.broker_user}"] if plan.broker_user else []),
        "# Anonymous clients may connect, but the ACL lets them only read the broadcast.",
        "allow_anonymous true",
        f"password_file {paths.password_file}",
        f"acl_file {paths.acl_file}",
        "persistence true",
        f"persistence_location {paths.persistence}",
        "autosave_interval 60",
        f"log_dest file {paths.log_file}",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "connection_messages true",
        "# Room for slow viewers and for the uplink's queue during an outage.",
        "max_queued_messages 100000",
        "max_inflight_messages 100",
        "",
        "# Boxes and arbiters: MQTT over TLS.",
        f"listener {plan.mqtt_port} {plan.listen}",
        "protocol mqtt",
        f"cafile {paths.ca_file}",
        f"certfile {paths.cert_file}",
        f"keyfile {paths.key_file}",
        "",
        "# Browsers: MQTT over WebSockets" + (" with TLS." if plan.ws_tls else "."),
        f"listener {plan.ws_port} {plan.listen}",
        "protocol websockets",
        *ws_tls,
        "",
    ]
    if plan.uplink is not None:
        lines += uplink_section(plan.uplink, plan.root)
    return "\n".join(lines)


MOSQUITTO = "/usr/sbin/mosquitto"  # where Debian's package (and its service) has it
DEBIAN_DROP_IN = "systemd/mosquitto.service.d/bughouse-hall.conf"


def debian_service_drop_in(paths: HallPaths) -> str:
    """A drop-in for Debian's ``mosquitto.service`` that runs the hall's broker instead of the
    default one: the service starts mosquitto as root, which switches to the configured user."""
    return "\n".join(
        [
            "# The hall's broker as Debian's mosquitto service (generated by `bughouse-bridge",
            "# hall init`). Install: /etc/systemd/system/mosquitto.service.d/bughouse-hall.conf",
            "[Service]",
            "ExecStart=",
            f"ExecStart={MOSQUITTO} -c {paths.directory}/mosquitto.conf",
            "",
        ]
    )


def uplink_section(uplink: Uplink, root: str) -> list[str]:
    """A one-way mosquitto bridge: broadcast topics go out at QoS 1, nothing comes in.

    ``cleansession false`` keeps the bridge's session on the uplink broker, and mosquitto queues
    the outgoing QoS 1 messages while the uplink is away (up to ``max_queued_messages``).
    """
    return [
        "# Remote viewers: forward the broadcast one way to the uplink broker.",
        "connection uplink",
        f"address {uplink.host}:{uplink.port}",
        "bridge_protocol_version mqttv311",
        "cleansession false",
        "notifications false",
        "try_private false",
        "start_type automatic",
        "restart_timeout 1 10",
        "keepalive_interval 10",
        *[f"topic {root}/{topic} out 1" for topic in BROADCAST],
        *[f"topic {topic} out 1" for topic in _hall_topics(root)],
        "",
    ]


def box_config(plan: HallPlan, paths: HallPaths, table: int) -> str:
    box = bridge_id(table)
    return "\n".join(
        [
            f"# The box of table {table} (generated by `bughouse-bridge hall init`).",
            "# Copy it to the box with tls/ca.crt and boxes/" + box + ".password, adjust",
            "# the paths, add the two boards under [[links]] and run",
            f"#   bughouse-bridge run --config {box}.toml",
            f'bridge_id = "{box}"',
            f'match_id = "{match_id(0, table)}"',
            "",
            "[hall]",
            f"table = {table}",
            "",
            "[mqtt]",
            f'host = "{plan.host}"',
            f"port = {plan.mqtt_port}",
            f'root = "{plan.root}"',
            "tls = true",
            f'tls_ca_file = "{paths.ca_file}"',
            f'username = "{box}"',
            f'password_file = "{paths.directory}/boxes/{box}.password"',
            "",
            "# [[links]]",
            '# name = "A"',
            '# port = "/dev/serial/by-id/usb-DGT_…"',
            "# [[links]]",
            '# name = "B"',
            '# port = "/dev/serial/by-id/usb-DGT_…"',
            "",
        ]
    )


def credentials_toml(plan: HallPlan, paths: HallPaths, passwords: Mapping[str, str]) -> str:
    lines = [
        "# Hall credentials (generated by `bughouse-bridge hall init`). Keep this file secret.",
        "[broker]",
        f'host = "{plan.host}"',
        f"mqtt_port = {plan.mqtt_port}",
        f"ws_port = {plan.ws_port}",
        f"ws_tls = {'true' if plan.ws_tls else 'false'}",
        f'root = "{plan.root}"',
        f'ca_file = "{paths.ca_file}"',
        "",
    ]
    for role in (ARBITER, VIEWER):
        lines += [f"[{role}]", f'username = "{role}"', f'password = "{passwords[role]}"', ""]
    for box in plan.boxes:
        lines += [f'[boxes."{box}"]', f'username = "{box}"', f'password = "{passwords[box]}"', ""]
    return "\n".join(lines)
