"""Claims of the polycom paper (Zhuo et al., "Polynomial composition activations"), as executable checks.

Every check computes its verdict: sympy identities (``holds``), constructions run to a stated tolerance
(``holds-numerically``), counterexamples (``fails``, with the corrected statement), and for results the
paper only cites, what was checked instead (``not-checkable``).

The constructions of the appendix proofs are run, not paraphrased:

* Lemma 2 / Theorem 2: a ReLU network for PolyReLU built from Yarotsky's sawtooth squaring
  (``_relu_square``), products by polarisation, error measured on a grid;
* Lemma A.4: the base-r power network, verified symbolically for every n up to 64;
* Theorem 3: the partition of unity, the local Taylor approximation ``f_N`` of Eq. 27 with ``N`` of
  Eq. 30, and its exact PolyReLU representation (Eqs. 33-34).

Sections (one module each, in the paper's order; importing this package registers every claim):

- :mod:`proofs_check.polycom._common` -- shared constants and helpers: ReLU-network constructions (Yarotsky 2017), PolyReLU reference formulas (paper Eq. 2)
- :mod:`proofs_check.polycom.theorem1` -- Section 3 / Appendix A.1-A.2: Lemma 1, Eqs. 13-14, Theorem 1
- :mod:`proofs_check.polycom.lemma2` -- Lemma 2, Lemma A.1, Eq. 16: ReLU networks approximating PolyReLU
- :mod:`proofs_check.polycom.theorem2` -- Theorem 2 and its proof (Eqs. 9, 17-22), Lemma A.2
- :mod:`proofs_check.polycom.appendix_a5` -- Appendix A.5: Lemma A.3 (both bullets), Corollary A.1, Lemma A.4 (Eqs. 23-24)
- :mod:`proofs_check.polycom.theorem3` -- the proof of Theorem 3: partition of unity, Eqs. 25-35
- :mod:`proofs_check.polycom.theorem3_size` -- Theorem 3: the network of Eq. 33 built, run and its size counted
- :mod:`proofs_check.polycom.optimality` -- Appendix B: Theorem 4 (DeVore et al.) and the optimality argument;
  Section 3.3's comparison with ReLU and rational networks; notation slips (Theorem 3, Lemma A.2, Appendix B)
- :mod:`proofs_check.polycom.algorithms` -- Algorithms 1-2 (Appendix D) against Eqs. 2-3 and the zoo
- :mod:`proofs_check.polycom.tables` -- Appendix C (Table 4), Appendix E.3 (Eq. 39), Appendix F (Tables 8-9), Tables 1-3, 5-7, 10
- :mod:`proofs_check.polycom.prose` -- prose claims of the results sections about the paper's own tables and figures
- :mod:`proofs_check.polycom.significance` -- the significance of the downstream gains (Tables 1 and 3, Figure 4,
  Appendix H) on the benchmarks' standard evaluation-set sizes
- :mod:`proofs_check.polycom.walk` -- claims the coverage walk found: Sec. 4.4 (orders in low precision, ReLU
  variants, the FP16 reference) and Appendix H (ImageNet)
"""

from proofs_check.polycom import (
    _common, theorem1, lemma2, theorem2, appendix_a5, theorem3, theorem3_size, optimality, algorithms, tables, prose,
    significance, walk,
)
