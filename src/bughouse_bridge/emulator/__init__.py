"""A faithful DGT board + clock emulator. This package is pure; the pty runner is in drivers.

* ``scanner`` — physical square contents over time and the 0 → 63 sensor scan (all artefacts).
* ``clock`` — DGT 3000 / XL clock: times, lever, flags, increment, BWTIME status bytes.
* ``board`` — ``EmulatedBoard``: modes, identity answers, the host commands, wire timing.
* ``clock_port`` — the board's end of the clock cable: readings, the ``2B`` envelope and its acks.
* ``board_config`` — ``BoardConfig``: identity, profile, scan and reply timing, the clock's config.
* ``serial_line`` — the board's 9600-baud serial line.
* ``eeprom`` — the board's move memory (``SEND_EE_MOVES``).
* ``actions`` — the timed actions on a board (``SetField``, ``PressClock``…, ``apply_action``).
* ``handling`` — the knobs: ``Handling`` (human timings, styles), ``Noise``, ``MoveStyle``.
* ``hands`` — ``Hands``: the gestures over one board (lift, place, capture, slide, drop…).
* ``moves`` — ``play_move``: a chess move made by human hands, its style drawn from the seed.
* ``scenario`` — ``Scenario``: the time cursor, one ``Hands`` per board, the recorded actions.
* ``playback`` — ``run_scenario``: a scenario played in-process → trace records.
* ``game`` — ``game_scenario``: a BPGN game → a timed two-board scenario with explicit noise knobs.
"""
