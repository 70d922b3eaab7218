"""What every layer may use: the symbol ``x``, option validators, the cache path, optional extras.

Nothing here imports another part of approxlab, and importing it changes no global state.
"""
