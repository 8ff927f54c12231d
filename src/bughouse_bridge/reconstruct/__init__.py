"""Move reconstruction from two boards' sensor streams. Pure: time is passed in."""
