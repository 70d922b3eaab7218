"""Optional dependencies: import a module of an extra, or fail with one line naming the extra.

The core install (``pip install approxlab``) runs ``verify``, ``gains``, ``figures``, ``scaling`` and
``probe``. Other features need an extra (see ``[project.optional-dependencies]`` in pyproject.toml):

=============  ======================================================  ==============================
extra          packages                                                needed by
=============  ======================================================  ==============================
``ray``        ray[default]                                            ``--backend ray`` sweeps
``export``     pandas, pyarrow                                         ``sweep export --format csv|parquet``
``notebooks``  jupyter, nbconvert, nbclient, nbformat, ipykernel,      running ``notebooks/*.ipynb``
               pandas
``peers``      dks (with jax), anyinit, torchortho, liger-kernel       comparison benchmarks, ``audit``
``hf``         transformers                                            ``swap`` on transformers models
``kan``        pykan (with scikit-learn, pandas, pyyaml, tqdm)         pykan's KAN in ``init_model_``
``gpu``        triton                                                  CUDA kernels
``docs``       mkdocs-material, mkdocstrings[python]                   building the documentation
``dev``        pytest, pytest-xdist, hypothesis and all of the above   the test suite
=============  ======================================================  ==============================

Examples
--------
>>> require("json", "export").__name__
'json'
>>> require("no_such_module_xyz", "export")
Traceback (most recent call last):
...
approxlab._core.extras.MissingExtraError: no_such_module_xyz is not installed; it comes with the 'export' extra: pip install "approxlab[export]"
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The extras and the top-level modules each provides (checked by tests/test_packaging.py).
EXTRAS: dict[str, tuple[str, ...]] = {
    "ray": ("ray",),
    "export": ("pandas", "pyarrow"),
    "notebooks": ("nbclient", "nbformat", "nbconvert", "ipykernel", "pandas"),
    "peers": ("dks", "anyinit", "torchortho", "liger_kernel", "rational"),
    "hf": ("transformers",),
    "kan": ("kan", "sklearn"),
    "gpu": ("triton",),
    "docs": ("mkdocs", "mkdocstrings"),
}


def extra_for(module: str) -> str | None:
    """The extra that provides ``module`` (by its top-level package), or None if no extra does.

    Examples
    --------
    >>> extra_for("pyarrow.parquet"), extra_for("ray"), extra_for("torch")
    ('export', 'ray', None)
    """
    top = module.split(".")[0]
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def missing_extra_message(module: str, extra: str) -> str:
    """The one-line message for a module of ``extra`` that is not installed."""
    return f'{module} is not installed; it comes with the {extra!r} extra: pip install "approxlab[{extra}]"'


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency is missing; the message names the extra to install.

    The command line prints it as one line, ``approxlab: error: ...``, and exits with code 2.
    """


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``; if it is missing, raise one line naming the extra that provides it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"pandas"`` or ``"pyarrow.parquet"``.
    extra : str
        The extra of approxlab that installs it: one of :data:`EXTRAS`.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ValueError
        If ``extra`` is not one of :data:`EXTRAS`.
    MissingExtraError
        A :class:`ModuleNotFoundError`, if ``module`` (or the top-level package it lives in) is not installed. The message is one line:
        ``<module> is not installed; it comes with the '<extra>' extra: pip install "approxlab[<extra>]"``.
        A ``ModuleNotFoundError`` raised *inside* an installed module (a broken install) is re-raised
        unchanged.
    """
    if extra not in EXTRAS:
        raise ValueError(f"extra must be one of {', '.join(EXTRAS)}; got {extra!r}")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # something the module itself imports is missing: a broken install, say so as is
        raise MissingExtraError(missing_extra_message(module, extra), name=module) from None
