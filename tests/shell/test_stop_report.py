"""The slow-stop report: what a stop that takes too long still waits on, logged while it waits."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from bughouse_bridge.daemon.stop_report import SlowStopReport

pytestmark = pytest.mark.asyncio

REPORTER = "bughouse_bridge.daemon.stop_report"


async def _reported(caplog: pytest.LogCaptureFixture) -> str:
    for _ in range(200):
        if caplog.records:
            return caplog.records[0].getMessage()
        await asyncio.sleep(0.05)
    pytest.fail("no report")


async def test_a_slow_stop_names_its_phase_its_waiting_tasks_and_threads(caplog):
    caplog.set_level(logging.WARNING, logger=REPORTER)
    never = asyncio.Event()
    busy = threading.Event()
    worker = threading.Thread(target=busy.wait, name="core-step", daemon=True)
    worker.start()
    waiting = asyncio.create_task(never.wait(), name="mqtt-drain")
    with SlowStopReport(asyncio.get_running_loop(), after=0.1) as report:
        report.start()
        report.phase = "draining MQTT"
        message = await _reported(caplog)
    busy.set()
    waiting.cancel()
    assert "still draining MQTT" in message
    assert "task mqtt-drain: " in message
    assert "in wait" in message.split("task mqtt-drain: ")[1].splitlines()[0]
    assert "thread core-step: " in message


async def test_a_stop_that_ends_in_time_reports_nothing(caplog):
    caplog.set_level(logging.WARNING, logger=REPORTER)
    with SlowStopReport(asyncio.get_running_loop(), after=0.2) as report:
        report.start()
    await asyncio.sleep(0.5)
    assert caplog.records == []


async def test_no_report_before_the_stop_begins(caplog):
    caplog.set_level(logging.WARNING, logger=REPORTER)
    with SlowStopReport(asyncio.get_running_loop(), after=0.05):
        await asyncio.sleep(0.3)
    assert caplog.records == []
