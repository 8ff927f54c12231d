"""topics (pure)."""
