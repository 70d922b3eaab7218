"""`approxlab probe` (being written)."""
