"""The activation formulas in pure torch, one owner each (in the spirit of ``torch.nn.functional``).

The activations (:mod:`approxlab.activations`) and the kernels (:mod:`approxlab.kernels`) both use these
functions; the kernels' eager references are these functions themselves. Nothing here imports an
activation or a kernel.

* :mod:`~approxlab.functional.dtypes` -- the compute-dtype rule (half in float32; integers refused);
* :mod:`~approxlab.functional.polynomial` -- Horner's rule, the RMS-normalised powers of PolyNorm;
* :mod:`~approxlab.functional.rational` -- P/D with its overflow limit;
* :mod:`~approxlab.functional.trig` -- the trigonometric recurrence, its weights 1/k!, the Fourier series;
* :mod:`~approxlab.functional.hermite` -- the Hermite recurrence with its recomputing backward;
* :mod:`~approxlab.functional.lines` -- max-of-lines through the upper envelope.
"""
