"""``hall init``: write everything a hall's broker and boxes need into one directory.

The text comes from the pure :mod:`bughouse_bridge.hall.broker`; this module adds randomness
(passwords, salts), the ``openssl`` calls for the TLS material and the file modes.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.hall.broker import (
    SALT_BYTES,
    HallPaths,
    HallPlan,
    acl,
    box_config,
    credentials_toml,
    mosquitto_conf,
    password_file,
)
from bughouse_bridge.hall.scoring import HALL_TOML

if TYPE_CHECKING:
    from collections.abc import Sequence

CERT_DAYS = 825  # the longest validity clients such as browsers accept for a server certificate
PRIVATE = 0o600


class HallInitError(Exception):
    """``hall init`` cannot finish; the message says why."""


def write_hall(directory: Path, plan: HallPlan, *, force: bool = False) -> HallPaths:
    """Write the hall's files; refuse to overwrite an existing hall unless ``force``."""
    directory = directory.resolve()
    if (directory / "mosquitto.conf").exists() and not force:
        raise HallInitError(f"{directory} already holds a hall (use --force to overwrite it)")
    paths = HallPaths.under(str(directory))
    for sub in ("tls", "boxes", "data"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
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
    make_tls(directory / "tls", plan.host)
    return paths


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
    return f"""Hall written to {directory} ({plan.tables} tables, rounds 1..{plan.rounds}).

Next steps:
  1. Start the broker:   mosquitto -c {directory}/mosquitto.conf
     (as a service: copy the directory to /etc/mosquitto/hall, chown the files to mosquitto)
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
