"""Move reconstruction from two boards' sensor streams. Pure: time is passed in.

``MatchReconstructor`` turns DGT messages (per board), link changes and timer ticks into the
match's ordered event stream; see ``machine.py`` for the theory of operation.
"""

from bughouse_bridge.reconstruct.config import ReconstructorConfig
from bughouse_bridge.reconstruct.machine import MatchReconstructor
from bughouse_bridge.reconstruct.outcomes import ClockReading, Outcome, RequestDump

__all__ = ["ClockReading", "MatchReconstructor", "Outcome", "ReconstructorConfig", "RequestDump"]
