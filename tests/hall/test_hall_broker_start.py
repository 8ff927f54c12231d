"""The hall's broker starts however an organiser starts it, from ``hall init``'s files unedited.

- as root (``sudo mosquitto -c …``, a hall server, a Raspberry Pi): mosquitto switches to the
  user ``hall init`` handed the broker's files to (``mosquitto`` when root ran it);
- as the user who ran ``hall init``, and with sudo from that user's hall;
- as Debian's ``mosquitto`` service with the drop-in ``hall init`` writes (its ``ExecStart``,
  run as systemd runs Debian's unit: as root).

Each start is the printed command, word for word; the broker then takes a box's login over TLS,
writes its log and, when stopped, its persistence file — everything it must read and write.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
from typing import TYPE_CHECKING

import pytest
from hall_harness import Hall, wait_for_port

from bughouse_bridge.daemon.hall_init import HallInitError, write_hall
from bughouse_bridge.hall.broker import DEBIAN_DROP_IN, HallPlan
from private_mosquitto import MOSQUITTO, free_port

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [
    pytest.mark.skipif(not MOSQUITTO.exists(), reason="mosquitto is not installed"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed"),
    pytest.mark.skipif(os.geteuid() != 0, reason="starting the broker as root needs root"),
]


def plan(**changes: object) -> HallPlan:
    return HallPlan(
        tables=1,
        host="127.0.0.1",
        mqtt_port=free_port(),
        ws_port=free_port(),
        rounds=1,
        listen="127.0.0.1",
        **changes,  # type: ignore[arg-type]
    )


def runs_as(process: subprocess.Popen[bytes]) -> str:
    """The user a process runs as now (after mosquitto dropped its privileges)."""
    for line in open(f"/proc/{process.pid}/status", encoding="ascii"):  # noqa: PTH123, SIM115
        if line.startswith("Uid:"):
            return pwd.getpwuid(int(line.split()[1])).pw_name
    raise AssertionError("no Uid line")


async def serves_a_box(hall: Hall, command: list[str]) -> str:
    """Start the broker with ``command``; a box logs in and publishes; stop it. Returns the user
    the broker ran as."""
    process = subprocess.Popen(command)  # noqa: ASYNC220 - the printed command
    try:
        wait_for_port(hall.plan.mqtt_port, process)
        user = runs_as(process)
        async with hall.client("table-1") as box:
            await box.publish(hall.topic("bridge/table-1/status"), b"online", qos=1, retain=True)
    finally:
        process.terminate()
        process.wait(10)
    assert (hall.directory / "data" / "mosquitto.db").stat().st_size > 0  # persistence written
    assert "u'table-1'" in (hall.directory / "mosquitto.log").read_text()  # its log written
    return user


async def test_root_starts_the_printed_command_and_mosquitto_runs_as_its_own_user(hall_home):
    hall = Hall(hall_home / "hall", plan())
    _, hall.plan = write_hall(hall.directory, hall.plan)
    conf = (hall.directory / "mosquitto.conf").read_text()
    assert "\nuser mosquitto\n" in conf
    assert hall.start_command() == ["mosquitto", "-c", f"{hall.directory}/mosquitto.conf"]
    assert await serves_a_box(hall, [str(MOSQUITTO), *hall.start_command()[1:]]) == "mosquitto"
    owner = pwd.getpwuid((hall.directory / "passwd").stat().st_uid).pw_name
    assert owner == "mosquitto"
    assert pwd.getpwuid((hall.directory / "credentials.toml").stat().st_uid).pw_name == "root"
    assert pwd.getpwuid((hall.directory / "tls" / "ca.key").stat().st_uid).pw_name == "root"


@pytest.mark.parametrize("with_sudo", [False, True])
async def test_a_users_hall_starts_as_that_user_and_with_sudo(hall_home, with_sudo):
    """The files as a user's own ``hall init`` leaves them (that user owns what the broker
    reads, ``user`` names them): started by that user, or by root, it runs as that user."""
    hall = Hall(hall_home / "hall", plan(broker_user="nobody"))
    _, hall.plan = write_hall(hall.directory, hall.plan)
    assert "\nuser nobody\n" in (hall.directory / "mosquitto.conf").read_text()
    command = [str(MOSQUITTO), *hall.start_command()[1:]]
    if not with_sudo:
        # That user's own shell: setpriv becomes the user and runs the command in its place.
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
    assert await serves_a_box(hall, command) == "nobody"


async def test_debian_service_runs_the_hall_with_the_drop_in(hall_home):
    hall = Hall(hall_home / "hall", plan())
    _, hall.plan = write_hall(hall.directory, hall.plan)
    lines = (hall.directory / DEBIAN_DROP_IN).read_text().splitlines()
    assert "[Service]" in lines
    starts = [line.removeprefix("ExecStart=") for line in lines if line.startswith("ExecStart=")]
    reset, exec_start = starts
    assert reset == ""  # clears the ExecStart of Debian's unit
    assert exec_start.split() == [str(MOSQUITTO), *hall.start_command()[1:]]
    # Debian's unit has no User=: systemd starts mosquitto as root.
    assert await serves_a_box(hall, exec_start.split()) == "mosquitto"


def test_init_refuses_a_folder_the_brokers_user_cannot_enter(tmp_path):
    """pytest's tmp folders are private to root, as /root is: refused with the reason."""
    with pytest.raises(HallInitError, match="cannot enter") as refused:
        write_hall(tmp_path / "hall", plan())
    assert "--broker-user" in str(refused.value)
    assert not (tmp_path / "hall").exists()


def test_init_names_a_broker_user_that_does_not_exist(hall_home: Path):
    with pytest.raises(HallInitError, match="no user 'nobody-here'"):
        write_hall(hall_home / "hall", plan(broker_user="nobody-here"))


async def test_the_next_steps_say_how_to_start_as_root_and_as_a_service(hall_home):
    hall = Hall(hall_home / "hall", plan())
    _, hall.plan = write_hall(hall.directory, hall.plan)
    from bughouse_bridge.daemon.hall_init import next_steps  # noqa: PLC0415

    text = next_steps(hall.directory, hall.plan)
    assert "runs as user mosquitto" in text
    assert f"{hall.directory}/{DEBIAN_DROP_IN}" in text
    assert "systemctl restart mosquitto" in text
    await asyncio.sleep(0)
