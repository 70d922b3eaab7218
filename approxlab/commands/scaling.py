"""`approxlab scaling` (being written)."""
