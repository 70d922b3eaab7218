"""Fast kernels for the zoo activations, registered as torch custom ops.

Backends (the ``backend=`` option of the activation modules):

* ``"auto"`` (default): the fastest available for the tensor's device: the numba kernels on CPU
  (when numba is installed), the Triton kernels on CUDA (when Triton is installed), else eager; under
  ``torch.compile`` on CPU, PolyNorm's formula, which inductor fuses faster than its kernel runs;
* ``"eager"``: the pure-torch autograd Functions of :mod:`approxlab.activations` (the reference;
  any order of derivatives);
* ``"numba"`` / ``"triton"``: force one kernel backend (an error where it cannot run).

The kernels compute the same formulas as the eager path (tested against it in values and
gradients), with first and second derivatives. numba is imported on the first kernel call, not
here; its cache goes to the user cache dir (:mod:`approxlab.kernels._cache`).

Examples
--------
>>> import torch
>>> resolve("eager", torch.zeros(1))
'eager'
>>> resolve("auto", torch.zeros(1)) in ("numba", "eager")
True
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator

import torch

#: The values of every activation's ``backend=`` option.
BACKENDS: tuple[str, ...] = ("auto", "eager", "numba", "triton")

#: numba is installed (checked without importing it).
HAS_NUMBA: bool = importlib.util.find_spec("numba") is not None
#: Triton is installed (checked without importing it); the CUDA kernels of the custom ops are
#: registered in :mod:`approxlab.kernels.ops` (see :mod:`approxlab.kernels.triton_ops`).
HAS_TRITON: bool = importlib.util.find_spec("triton") is not None


def check_backend(backend: object) -> str:
    """Validate a ``backend=`` option (a ValueError naming the allowed values otherwise)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}")
    return str(backend)


def resolve(backend: str, x: torch.Tensor) -> str:
    """The backend that evaluates ``x``: ``"eager"``, ``"numba"`` or ``"triton"``.

    Raises
    ------
    ValueError
        ``backend="numba"`` for a non-CPU tensor, or ``"triton"`` for a non-CUDA tensor.
    ImportError
        The forced backend's library is not installed.
    """
    dev = x.device.type
    if backend == "eager":
        return "eager"
    if backend == "numba":
        if dev != "cpu":
            raise ValueError(f"backend='numba' runs on CPU tensors, got a {dev} tensor; use backend='auto'")
        if not HAS_NUMBA:
            raise ImportError("backend='numba' needs numba (pip install numba); backend='auto' falls back to eager")
        return "numba"
    if backend == "triton":
        if dev != "cuda":
            raise ValueError(f"backend='triton' runs on CUDA tensors, got a {dev} tensor; use backend='auto'")
        if not HAS_TRITON:
            raise ImportError("backend='triton' needs triton (pip install triton); backend='auto' falls back to eager")
        return "triton"
    if backend != "auto":
        check_backend(backend)
    if dev == "cpu" and HAS_NUMBA:
        return "numba"
    if dev == "cuda" and HAS_TRITON:
        return "triton"
    return "eager"


def call(name: str, x: torch.Tensor, params: tuple[torch.Tensor, ...], consts: tuple[object, ...] = ()) -> torch.Tensor:
    """Run the custom op ``approxlab::<name>`` (see :func:`approxlab.kernels.ops.call`)."""
    from approxlab.kernels import ops

    return ops.call(name, x, params, consts)


def apply(name: str, x: torch.Tensor, params: tuple[torch.Tensor, ...], consts: tuple[object, ...] = (),
          backend: str = "auto") -> torch.Tensor:
    """Evaluate kernel family ``name`` on ``x`` with the backend :func:`resolve` picks: the family's eager
    formula (:data:`approxlab.kernels.families.SPECS`) or its custom op. Every activation's ``forward``
    dispatches through here.

    Examples
    --------
    >>> x = torch.tensor([-1.0, 2.0], dtype=torch.float64)
    >>> w, b = torch.tensor([1.0, 1.0], dtype=torch.float64), torch.tensor([0.5], dtype=torch.float64)
    >>> apply("polyrelu", x, (w, b), backend="eager")  # 0.5 + relu(x) + relu(x)^2
    tensor([0.5000, 6.5000], dtype=torch.float64)
    """
    if resolve(backend, x) == "eager" or (backend == "auto" and _fused_by_compile(name, x)):
        from approxlab.kernels.families import SPECS

        return SPECS[name].eager(x, *params, *consts)
    return call(name, x, params, consts)


def _fused_by_compile(name: str, x: torch.Tensor) -> bool:
    """Whether ``torch.compile`` (not ``torch.export``, which keeps the op whole) is tracing a CPU call of a
    family whose formula inductor fuses faster than its kernel runs (``KernelSpec.fuse_on_cpu_compile``)."""
    if x.device.type != "cpu" or not torch.compiler.is_compiling():
        return False
    is_exporting = getattr(torch.compiler, "is_exporting", None)
    if is_exporting is not None and is_exporting():
        return False
    from approxlab.kernels.families import SPECS

    return SPECS[name].fuse_on_cpu_compile


def set_num_threads(n: int) -> None:
    """Set the thread count of torch and, if numba is installed, of the numba kernels."""
    torch.set_num_threads(n)
    if HAS_NUMBA:
        from approxlab.kernels import cpu

        cpu.set_num_threads(n)


@contextlib.contextmanager
def num_threads(n: int | None) -> Iterator[None]:
    """Within the block, torch and the numba kernels use ``n`` threads (None: as they are); after it, both
    have their earlier settings again, so a caller's process keeps its own.

    Examples
    --------
    >>> before = torch.get_num_threads()
    >>> with num_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    if n is None:
        yield
        return
    old_torch = torch.get_num_threads()
    torch.set_num_threads(n)
    old_kernels = None
    if HAS_NUMBA:
        from approxlab.kernels import cpu

        old_kernels = cpu.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old_torch)
        if old_kernels is not None:
            cpu.set_num_threads(old_kernels)


__all__ = ["BACKENDS", "HAS_NUMBA", "HAS_TRITON", "check_backend", "resolve", "call", "num_threads", "set_num_threads"]
