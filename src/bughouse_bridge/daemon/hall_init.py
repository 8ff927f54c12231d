"""``hall init``: write everything a hall's broker and boxes need into one directory.

The text comes from the pure :mod:`bughouse_bridge.hall.broker`; this module adds randomness
(passwords, salts), the ``openssl`` calls for the TLS material, and the owners and modes that
let the broker start however the organiser starts it:

- as the user who ran ``hall init``: the files are that user's (``user`` in the configuration
  names that user too, so ``sudo mosquitto -c …`` switches to the same owner);
- as root (``sudo``, Debian's ``mosquitto`` service with the drop-in written here): mosquitto
  switches to the configured ``user`` — the one who ran ``hall init``, or, when root ran it, the
  ``mosquitto`` user (``--broker-user`` names another) — and the files the broker reads and
  writes (password file, ACL, server key, persistence folder, log) belong to that user. Secrets
  the broker never reads (credentials, box passwords, the CA key) stay private to whoever ran
  ``hall init``. A folder on the way that the broker's user cannot enter is refused with a
  sentence that says which, rather than a broker that fails at start.
"""

from __future__ import annotations

import grp
import ipaddress
import os
import pwd
import secrets
import shutil
import stat
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.hall.broker import (
    DEBIAN_DROP_IN,
    SALT_BYTES,
    HallPaths,
    HallPlan,
    acl,
    box_config,
    credentials_toml,
    debian_service_drop_in,
    mosquitto_conf,
    password_file,
)
from bughouse_bridge.hall.scoring import HALL_TOML

if TYPE_CHECKING:
    from collections.abc import Sequence

CERT_DAYS = 825  # the longest validity clients such as browsers accept for a server certificate
PRIVATE = 0o600
ROOT_BROKER_USER = "mosquitto"  # Debian's package creates it; root's hall runs the broker so


class HallInitError(Exception):
    """``hall init`` cannot finish; the message says why."""


def write_hall(
    directory: Path, plan: HallPlan, *, force: bool = False
) -> tuple[HallPaths, HallPlan]:
    """Write the hall's files; refuse to overwrite an existing hall unless ``force``. Returns
    the paths and the plan as written (``broker_user`` decided, see :func:`broker_user`)."""
    directory = directory.resolve()
    if (directory / "mosquitto.conf").exists() and not force:
        raise HallInitError(f"{directory} already holds a hall (use --force to overwrite it)")
    broker = broker_user(plan.broker_user)
    plan = replace(plan, broker_user=broker.pw_name)
    _check_reachable(directory, broker)
    paths = HallPaths.under(str(directory))
    directory.mkdir(parents=True, exist_ok=True)
    for sub, mode in (("", 0o755), ("tls", 0o755), ("boxes", 0o700), ("data", 0o700)):
        (directory / sub).mkdir(exist_ok=True)
        (directory / sub).chmod(mode)
    passwords = {user: secrets.token_urlsafe(18) for user in plan.users}
    salts = {user: secrets.token_bytes(SALT_BYTES) for user in plan.users}
    _write(Path(paths.password_file), password_file(passwords, salts), private=True)
    _write(Path(paths.acl_file), acl(plan))
    _write(directory / "mosquitto.conf", mosquitto_conf(plan, paths))
    _write(directory / "credentials.toml", credentials_toml(plan, paths, passwords), private=True)
    for table, box in enumerate(plan.boxes, start=1):
        _write(directory / f"table-{table}.toml", box_config(plan, paths, table))
        _write(directory / "boxes" / f"{box}.password", passwords[box] + "\n", private=True)
    if not (directory / "hall.toml").exists():  # the organiser's settings survive --force
        _write(directory / "hall.toml", HALL_TOML)
    drop_in = directory / DEBIAN_DROP_IN
    drop_in.parent.mkdir(parents=True, exist_ok=True)
    _write(drop_in, debian_service_drop_in(paths))
    make_tls(directory / "tls", plan.host)
    _write(Path(paths.log_file), "", private=True)
    _hand_over(paths, broker)
    return paths, plan


def broker_user(requested: str | None) -> pwd.struct_passwd:
    """Who the broker runs as when started as root: ``requested``, else whoever runs ``hall
    init`` — or, for root, the ``mosquitto`` user (a broker on the network should not be root)."""
    name = requested
    if name is None and os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    name = name or ROOT_BROKER_USER
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        raise HallInitError(
            f"there is no user {name!r} for the broker to run as"
            + (" (install mosquitto first, or" if requested is None else " (")
            + " name another with --broker-user)"
        ) from None
    if user.pw_uid != os.geteuid() and os.geteuid() != 0:
        raise HallInitError(
            f"only root can hand the broker's files to user {name!r}; run hall init as {name!r}"
        )
    return user


def _check_reachable(directory: Path, user: pwd.struct_passwd) -> None:
    """Every existing folder on the way to ``directory`` must let the broker's user in."""
    if user.pw_uid == 0:
        return
    groups = {user.pw_gid} | {g.gr_gid for g in grp.getgrall() if user.pw_name in g.gr_mem}
    for folder in [*reversed(directory.parents), directory]:
        if not folder.exists():
            return
        info = folder.stat()
        if info.st_uid == user.pw_uid:
            allowed = info.st_mode & stat.S_IXUSR
        elif info.st_gid in groups:
            allowed = info.st_mode & stat.S_IXGRP
        else:
            allowed = info.st_mode & stat.S_IXOTH
        if not allowed:
            raise HallInitError(
                f"the broker runs as user {user.pw_name!r}, who cannot enter {folder} "
                f"(mode {stat.S_IMODE(info.st_mode):o}): put the hall in a folder it can reach, "
                "e.g. /srv/bughouse-hall, or choose the broker's user with --broker-user"
            )


def _hand_over(paths: HallPaths, user: pwd.struct_passwd) -> None:
    """The files the broker reads and writes become its user's (nothing to do when that is
    whoever runs ``hall init``)."""
    if user.pw_uid == os.geteuid():
        return
    owned = (paths.password_file, paths.acl_file, paths.key_file, paths.persistence, paths.log_file)
    for path in owned:
        os.chown(path, user.pw_uid, user.pw_gid)


def _write(path: Path, text: str, *, private: bool = False) -> None:
    if private:
        # Created with the final mode, so the secret is never readable by others, not even briefly.
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        return
    path.write_text(text, encoding="utf-8")


def make_tls(directory: Path, host: str) -> None:
    """A hall CA and a server certificate for ``host``, localhost and 127.0.0.1 (openssl CLI)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise HallInitError("openssl is not installed (apt install openssl), or bring your own CA")
    ca_key, ca_crt = directory / "ca.key", directory / "ca.crt"
    key, csr, crt = directory / "server.key", directory / "server.csr", directory / "server.crt"
    for old in (ca_key, key):
        old.unlink(missing_ok=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl(
        openssl,
        "req", "-x509", *ec, "-keyout", ca_key, "-out", ca_crt, "-days", str(CERT_DAYS),
        "-subj", "/CN=bughouse-bridge hall CA",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    _openssl(openssl, "req", *ec, "-keyout", key, "-out", csr, "-subj", f"/CN={host}")
    extensions = directory / "server.ext"
    extensions.write_text(
        "basicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n"
        f"subjectAltName={subject_alt_names(host)}\n",
        encoding="utf-8",
    )
    _openssl(
        openssl,
        "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial",
        "-out", crt, "-days", str(CERT_DAYS), "-extfile", extensions,
    )  # fmt: skip
    for private in (ca_key, key):
        private.chmod(PRIVATE)
    csr.unlink()


def subject_alt_names(host: str) -> str:
    names = ["DNS:localhost", "IP:127.0.0.1"]
    try:
        ipaddress.ip_address(host)
    except ValueError:
        names.insert(0, f"DNS:{host}")
    else:
        names.insert(0, f"IP:{host}")
    return ",".join(dict.fromkeys(names))


def _openssl(openssl: str, *args: str | Path) -> None:
    command: Sequence[str] = [openssl, *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode != 0:
        raise HallInitError(f"openssl {args[0]} failed: {done.stderr.strip()}")


def next_steps(directory: Path, plan: HallPlan) -> str:
    directory = directory.resolve()
    first, last = plan.boxes[0], plan.boxes[-1]
    uplink = (
        f"\n  The broadcast is forwarded to {plan.uplink.host}:{plan.uplink.port} (one way)."
        if plan.uplink
        else ""
    )
    drop_in = f"{directory}/{DEBIAN_DROP_IN}"
    return f"""Hall written to {directory} ({plan.tables} tables, rounds 1..{plan.rounds}).

Next steps:
  1. Start the broker:   mosquitto -c {directory}/mosquitto.conf
     (started with sudo or as root it runs as user {plan.broker_user}, who owns its files)
     Or as Debian's mosquitto service, started at boot (it replaces the default broker):
       sudo install -D -m 644 {drop_in} \\
            /etc/systemd/system/mosquitto.service.d/bughouse-hall.conf
       sudo systemctl daemon-reload && sudo systemctl restart mosquitto
  2. On each box copy table-<n>.toml, tls/ca.crt and boxes/table-<n>.password ({first}..{last}),
     fix the paths, add the two boards under [[links]] and run
       bughouse-bridge run --config table-<n>.toml
  3. Publish a round:    bughouse-bridge hall round round-1.toml --hall {directory}
  4. Collect results:    bughouse-bridge hall results --hall {directory} --out results/
     Watch the boxes:    bughouse-bridge hall status --hall {directory}
     Standings: match points and tie-breaks are set in {directory}/hall.toml
  Boxes and arbiters connect with TLS to {plan.host}:{plan.mqtt_port}; browsers with
  {"wss" if plan.ws_tls else "ws"}://{plan.host}:{plan.ws_port} (anonymous = read the broadcast).
  Passwords are in {directory}/credentials.toml (mode 0600).{uplink}
"""
