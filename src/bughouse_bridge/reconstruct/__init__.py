"""Move reconstruction from two boards' sensor streams. Pure: time is passed in.

``MatchReconstructor`` turns DGT messages (per board), link changes and timer ticks into the
match's ordered event stream; see ``reconstructor.py`` for the theory of operation and
docs/architecture.md for its machines.
"""

from bughouse_bridge.reconstruct.config import ReconstructorConfig
from bughouse_bridge.reconstruct.outcomes import ClockReading, Outcome, RequestDump
from bughouse_bridge.reconstruct.reconstructor import MatchReconstructor

__all__ = ["ClockReading", "MatchReconstructor", "Outcome", "ReconstructorConfig", "RequestDump"]
