"""Claims of the polynorm_adaptive paper (being written)."""
