"""`approxlab sweep` (being written)."""
