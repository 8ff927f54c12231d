"""Shared by every test folder: this file puts ``tests/`` on the import path (pytest's default
import mode), so helpers such as ``private_mosquitto`` are importable from any folder.

It also orders the tests for the workers (pytest-xdist, ``--dist load --maxschedchunk 1`` in
scripts/test): see ``suite_order``.
"""

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from suite_order import dealt_to_workers, run_order

# What the properties test is behaviour, not speed (that is bench/'s business): on a busy
# machine -- the suite runs 10 workers on 2 cores -- an example may take longer than hypothesis'
# default 200 ms deadline, or its data generation trip the too-slow health check, and neither
# may fail a run.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = run_order(items)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        items[:] = dealt_to_workers(items, workers)


@pytest.fixture
def hall_home() -> Iterator[Path]:
    """A folder for a hall that the broker's user can enter, as an organiser's /srv would be:
    ``hall init`` run as root (the tests are) hands the broker's files to the ``mosquitto``
    user, who cannot enter pytest's private tmp folders."""
    home = Path(tempfile.mkdtemp(prefix="bughouse-hall-"))
    home.chmod(0o755)
    yield home
    shutil.rmtree(home, ignore_errors=True)
