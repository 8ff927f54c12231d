"""A faithful DGT board + clock emulator. This package is pure; the pty runner is in drivers.

* ``scanner`` — physical square contents over time and the 0 → 63 sensor scan (all artefacts).
* ``clock`` — DGT 3000 / XL clock: times, lever, flags, increment, BWTIME status bytes.
* ``board`` — ``EmulatedBoard``: modes, identity, answers, clock envelope and acks, wire timing.
* ``scenario`` — ``Scenario`` / ``Hands``: timed physical actions, ``run_scenario`` → trace records.
* ``game`` — ``game_scenario``: a BPGN game → a timed two-board scenario with explicit noise knobs.
"""
