"""The activation zoo: every activation of the five papers as a ``torch.nn.Module``.

One family per module; each registers its activations in :mod:`approxlab.activations.registry` on
import. Elementwise activations derive from :class:`~approxlab.activations.base.Elementwise` and
expose their exact sympy form.
"""

from approxlab.activations import (  # noqa: F401  (imported to register their activations)
    adaptive,
    ffn,
    fourier,
    hermite,
    moa,
    polycom,
    rational,
    standard,
    tropical,
)
from approxlab._core.symbols import X, exact_value
from approxlab.activations.base import Elementwise
from approxlab.activations.registry import Entry, create, entries, get, names

__all__ = ["X", "Elementwise", "exact_value", "Entry", "create", "entries", "get", "names"]
