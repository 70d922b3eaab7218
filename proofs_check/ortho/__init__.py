"""Claims of the ortho paper (Hermite, Fourier and tropical activations), as executable checks.

Paper: ``ortho`` in :mod:`approxlab.claims.papers` ("Polynomial, Trigonometric, and Tropical Activations"). Every
numbered statement that states something checkable is registered here as ``ortho/<label as printed>``,
including the intermediate equations of the appendix proofs, Algorithms 1-6 (re-typed from the
pseudo-code and run) and the arithmetic of Tables 1-11.

Exact work uses two small helpers instead of symbolic integration:

* :func:`gauss_mean` -- the exact expectation of a polynomial in ``x`` under N(0, 1), from the moments
  E[x^(2j)] = (2j-1)!!, E[x^odd] = 0;
* :func:`uniform_trig_mean` -- the exact expectation under U(-l, l) of a trigonometric polynomial
  with arbitrary real frequencies: after rewriting cos/sin as complex exponentials each term
  c*exp(i*w*x) has mean c*sin(w*l)/(w*l) (c when w = 0).

Both are checked against direct sympy integration in ``ortho/Property 3.6`` and ``ortho/Property D.2``.
Where the zoo modules exist (``approxlab.activations.hermite/fourier/tropical``) the theorems are cross-checked
with ``approxlab.gains.compute_gains`` on them; a disagreement raises (a bug, reported as ``crashed``).

Coverage. Registered: every Property (3.6, C.2, C.4, C.5, D.2), Proposition (C.3, C.6, C.8, C.9, D.3, D.4, D.6,
D.7, F.3 and its base case), Theorem (3.8, 3.13, 3.19, J.1), Corollary (3.9, 3.14, F.4) and Remark (3.10, 3.15,
C.7, D.5, D.8, F.5, F.6); the definitions that state a fact (3.2, 3.3, 3.5, 3.16, 3.17, 3.18, H.1, H.2); Algorithms
1-6; Tables 1-11 and the FLOP columns of Tables 1-2; the proof steps Eqs. 2-3, 22-24, 26, 28, 32-33, 35-39, 44-48,
50, 53, 59, 61-62, 68, 70-72; Fig. 6's caption; the text claims of Secs. 3.1 (the input vector), 3.5 (the fitting
methods), 4.1, 5, 6 and 7 and of Appendix B (after Eq. 28). The walk of the whole text, with what each sentence is
checked by or why it is not, is :mod:`proofs_check.coverage.ortho`. Not registered, because they state no fact: Assumptions
3.1, 3.4, 3.11 (hypotheses, used by the checks) and the pure Definitions 3.7, 3.12, C.1, D.1, F.1, F.2 (the
formulas every check uses; Def. F.2's layer count is made explicit in :mod:`approxlab.polymap`).

Sections (one module each, in the paper's order; importing this package registers every claim):

- :mod:`proofs_check.ortho._common` -- shared constants and exact expectation helpers
- :mod:`proofs_check.ortho.variance` -- Section 3.1: variance-preserving principle
- :mod:`proofs_check.ortho.hermite` -- Section 3.2 and Appendix C: Hermite
- :mod:`proofs_check.ortho.fourier` -- Section 3.3 and Appendix D: Fourier
- :mod:`proofs_check.ortho.tropical` -- Section 3.4, Appendix E and H: tropical
- :mod:`proofs_check.ortho.section35` -- Section 3.5: Eqs. 22-23 and the fitting methods
- :mod:`proofs_check.ortho.relu` -- Appendix B: ReLU
- :mod:`proofs_check.ortho.polymap` -- Appendix F: polynomial maps
- :mod:`proofs_check.ortho.algorithms` -- Appendix G: Algorithms 1-6, re-typed from the pseudo-code and run
- :mod:`proofs_check.ortho.tables` -- Tables
- :mod:`proofs_check.ortho.prose` -- prose claims of the results sections, Discussion and Conclusion about the
  paper's own tables
"""

from proofs_check.ortho import (
    _common, variance, hermite, fourier, tropical, section35, relu, polymap, algorithms, tables, prose,
)
