"""`approxlab verify` (being written)."""
