"""Claims of the moa paper ("More expressive feedforward layers: token-adaptive mixing of activations").

Theorems 4.1-4.2 and every step of Appendix B are checked: the exact representations (Propositions B.3,
B.6, B.10) symbolically with the zoo's activation formulas and by running the zoo's LA/MoA modules; the
jump-profile lemmas (B.7, B.11) on random networks with one-sided derivatives, Lemma B.4 term by term with
sympy; the quantitative bounds of Lemma B.1 and Propositions B.2 and B.5 by their arguments, each step exact,
with explicit networks that bracket the infimum from above (exact distances for B.2, a certified one for
B.5) and refute a mutated bound above the bracket; slow claims search for approximants (linear programs
over fixed breakpoints, Adam); the B.1.4 bound by a scaling counterexample; the
Taylor argument of Lemma B.12 with sympy; Tables 1-6 arithmetic, with parameter counts recomputed
from the architecture tables; and the learning rates quoted in the text against the tables and grids.

The dictionaries are the zoo's (``approxlab.activations.moa``): Type I {ReLU, ReLU^2, LeakyReLU, GELU,
SiLU, tanh}, Type II adds Id; LeakyReLU uses the zoo's slope eta = 0.01.

Sections (one module each, in the paper's order; importing this package registers every claim):

- :mod:`proofs_check.moa._common` -- shared helpers
- :mod:`proofs_check.moa.type1` -- B.1.1 inclusions, Lemma B.1, Proposition B.2
- :mod:`proofs_check.moa.type1_bounds` -- B.1.3: Proposition B.3, Lemma B.4, Proposition B.5; B.1.4
- :mod:`proofs_check.moa.type2` -- B.2 (Type II): inclusions, Propositions B.6, B.9, B.10, B.13, Lemmas B.7, B.8, B.11, B.12
- :mod:`proofs_check.moa.type2_eq6` -- Eq. 6 as printed (strict pairs) against Section 4.2's G_LA: T_LA and
  ReLU(x1) ReLU(x2) are not width-1 Eq. 6 networks (both listings of K_G); T_LA is a width-2 one
- :mod:`proofs_check.moa.tables` -- Section 3 parameter counts (run on the zoo modules), Section 3.1's D = 8d/3,
  Appendix A.1's Muon scaling, Section 5.3, Tables 1-6, the peak lrs of Sections 5.2 and 5.4
- :mod:`proofs_check.moa.equations` -- Eqs. 4-10: the zoo's LA / MoA modules run against the equations (activations
  re-typed with torch), Eq. 10's where-clause; Sections 4.1-4.2 on other gates and other MoA variants
- :mod:`proofs_check.moa.walk` -- what the coverage walk (:mod:`proofs_check.coverage.moa`) found unchecked: Section 3's
  activation definitions, the gates at 0, Appendix B.2.2's N_1, Table 1's dictionaries, Section 5.1's final
  comparison, the significance of Table 3
"""

from proofs_check.moa import (
    _common, type1, type1_bounds, type2, type2_eq6, tables, equations, walk,
)
