"""The units the pure ``Bridge`` is composed of, one job each (see docs/architecture.md).

- :mod:`.devices` — the device front: the serial links' decoders, what each board and clock
  said about itself, board dump requests, inputs the shell could not process;
- :mod:`.publisher` — numbering (``seq``), envelopes, topics, muting after a resume, and what
  each step publishes (events, the game's record, one retained state);
- :mod:`.game` — one game: who plays it, the board views beyond the match, its record (the
  match log's view), the BPGN and the retained record topics;
- :mod:`.lifecycle` — games and the hall: one ``start_game`` for ``new_game``, the hall's next
  game and a new round's pairing; archive files; the box's games index;
- :mod:`.commands` — the arbiter's verbs, their arguments and the reconstructor's doors.

Everything here is pure: time comes in as ``now``, the shell does all I/O.
"""
