"""Claims of the polyrational paper (being written)."""
