"""The gap solver: per-board memoised searches from the placement difference, combined through
the pockets, bounded by the clocks' evidence (``reconstruct.gap`` is its stable façade)."""
