"""`approxlab gains` (being written)."""
