"""Claims of the moa paper (being written)."""
