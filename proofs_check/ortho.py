"""Claims of the ortho paper (being written)."""
