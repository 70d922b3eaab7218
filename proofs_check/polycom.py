"""Claims of the polycom paper (being written)."""
