"""Liger-Kernel's ``LigerPolyNorm`` against polycom's PolyNorm (Eq. 3, Algorithm 2, Sec. 4 hyperparameters).

polycom's reference (Algorithm 2): ``sum(weight[i] * _norm(x ** (i+1)) for i in range(3)) + bias`` with
``weight = ones(3)/3`` and ``bias = zeros(1)``; the text (Sec. 4): "a_i = 1/3 for i = 1, 2, 3 and a_0 = 0".
Liger's fused Triton kernel runs on CUDA only; its formula is read from the kernel's source by parsing (the
``Y_row = ...`` statement and the assignments it uses, as an abstract syntax tree: nothing is executed), and
its forward is compared with the reference on a GPU when there is one, else under Triton's interpreter.
"""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
import textwrap

import sympy
import torch

from approxlab._core.symbols import X
from approxlab.claims import Claim, Verdict, claim

__all__ = ["kernel_formula", "polynorm_claims"]


def _to_sympy(node: ast.AST, env: dict[str, sympy.Expr]) -> sympy.Expr:
    """Names, + - * / and constants of an expression as sympy (a name not assigned in ``env`` is a symbol)."""
    if isinstance(node, ast.Name):
        return env.get(node.id, sympy.Symbol(node.id))
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return sympy.nsimplify(node.value)
    if isinstance(node, ast.BinOp):
        a, b = _to_sympy(node.left, env), _to_sympy(node.right, env)
        ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b, ast.Div: lambda: a / b}
        if type(node.op) in ops:
            return ops[type(node.op)]()
    raise ValueError(f"unsupported expression {ast.unparse(node)!r}")


def kernel_formula() -> tuple[sympy.Expr, str]:
    """The forward kernel's output ``Y_row`` as a sympy expression in ``x`` (``X_row``), the weights ``w0..w2``,
    the bias ``b`` and the normalisers ``rstd_k`` (their definitions are reductions, kept as symbols)."""
    from liger_kernel.ops import poly_norm

    src = textwrap.dedent(inspect.getsource(poly_norm._poly_norm_forward_kernel.fn))
    fn = ast.parse(src).body[0]
    env: dict[str, sympy.Expr] = {"X_row": X}
    line = ""
    assigns = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset))
    for stmt in assigns:  # in source order
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name == "X_row":
                continue  # the loaded input row: x itself
            try:
                env[name] = _to_sympy(stmt.value, env)
            except ValueError:
                env.pop(name, None)  # a reduction or a load: a symbol of its own
            if name == "Y_row":
                line = ast.unparse(stmt)
    if "Y_row" not in env:
        raise ValueError("the kernel has no Y_row assignment")
    return sympy.expand(env["Y_row"]), line


def polynorm_claims() -> list[Claim]:
    """The conformance claims of Liger-Kernel's ``LigerPolyNorm``."""
    pre = "liger.polynorm"

    @claim(f"{pre}/formula (polycom Eq. 3, Algorithm 2)", "The kernel computes sum_i weight[i] norm(x^(i+1)) + bias "
           "with polycom's parameter order (weight[0] on x, weight[2] on x^3).", source="polycom Eq. 3, Algorithm 2",
           kind="conformance", register=False)
    def formula() -> Verdict:
        y, line = kernel_formula()
        w = sympy.symbols("w0:3")
        coef = {k: sympy.simplify(y.coeff(X, k)) for k in (1, 2, 3)}
        on = {k: next((str(s) for s in w if coef[k].has(s)), None) for k in (1, 2, 3)}
        ev = (f"kernel statement `{line}`; expanded in x = X_row: {y}. weight on x: {on[1]}, on x^2: {on[2]}, "
              f"on x^3: {on[3]}; polycom's Algorithm 2 puts weight[0] on x, weight[2] on x^3")
        if on == {1: "w0", 2: "w1", 3: "w2"}:
            return Verdict.proved(ev)
        return Verdict.failed(ev + ". The same function at the default (all 1/3), but a PolyCom checkpoint loaded into "
                              "LigerPolyNorm swaps its linear and cubic coefficients",
                              correction="w0 on norm(x), w2 on norm(x^3) (polycom's order), or reverse the weight "
                              "when converting checkpoints", severity="substantive")

    @claim(f"{pre}/init (polycom Sec. 4)", "Default weight (1/3, 1/3, 1/3) and bias 0 (polycom: a_i = 1/3, a_0 = 0; "
           "Algorithm 2: bias = zeros(1)).", source="polycom Sec. 4 (Hyperparameters), Algorithm 2",
           kind="conformance", register=False)
    def init() -> Verdict:
        from liger_kernel.transformers.poly_norm import LigerPolyNorm

        m = LigerPolyNorm()
        w, b = m.weight.detach().double().tolist(), m.bias.detach().double()
        ev = (f"LigerPolyNorm() has weight {w}, bias {b.tolist()} of shape {tuple(b.shape)} (its comment: 'Align "
              "with PolyCom reference: ... bias to 1.0'); polycom has weight ones(3)/3 and bias zeros(1), shape (1,)")
        if all(abs(v - 1 / 3) < 1e-7 for v in w) and float(b.reshape(-1)[0]) == 0.0:
            return Verdict.numerical(ev)
        return Verdict.failed(ev + ". polycom's is bias 0: Liger's output is shifted by 1 at init, and its scalar bias "
                              "does not load from a polycom state dict (shape (1,))",
                              correction="bias = zeros(1)", severity="minor")

    @claim(f"{pre}/gains at the default init", "Gains of the default LigerPolyNorm (bias 1) against polycom's "
           "default (bias 0), by Monte Carlo over rows of N(0, 1) inputs.", source="polycom Eq. 3; ortho Defs. 3.2, 3.3",
           kind="conformance", register=False)
    def gains() -> Verdict:
        from approxlab.activations import create
        from approxlab.gains import compute_gains

        out = {}
        for bias in (1.0, 0.0):
            m = create("polynorm", backend="eager").double()
            with torch.no_grad():
                m.bias.fill_(bias)
            r = compute_gains(m, method="mc", mc_samples=2**18, mc_dim=1024, seed=0)
            out[bias] = r
        ev = "; ".join(f"bias {b:g}: E[F^2] = {r.value('second_moment'):.5f} ± {r.errors['second_moment']:.1g}, "
                       f"forward gain {r.value('forward_gain'):.5f}, backward gain {r.value('backward_gain'):.5f} "
                       f"± {r.error:.1g}" for b, r in out.items())
        ev += " (row length 1024, 2^18 samples; the reference formula, which Liger's kernel computes)"
        return Verdict.failed(ev + ". The bias of 1 raises E[F^2] by 2 E[F] + 1 (E[F] = E[norm(x^2)]/3 > 0), which "
                              "lowers the forward gain; the backward gain does not see the bias", severity="minor")

    @claim(f"{pre}/forward (sampled)", "The fused forward equals polycom's Algorithm 2 (float32, rows of 1024) to "
           "float32 rounding.", source="polycom Algorithm 2", kind="conformance", register=False)
    def forward() -> Verdict:
        return _run_forward()

    return [formula, init, gains, forward]


_PROBE = r"""
import torch
from liger_kernel.transformers.poly_norm import LigerPolyNorm
dev = "cuda" if torch.cuda.is_available() else "cpu"
g = torch.Generator().manual_seed(0)
x = torch.randn(64, 1024, generator=g).to(dev)
m = LigerPolyNorm().to(dev)
with torch.no_grad():
    m.weight.copy_(torch.tensor([0.2, -0.5, 0.7]))
    y = m(x)
def norm(u):
    return u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + 1e-6)
w = [0.2, -0.5, 0.7]
ref_liger = w[0] * norm(x**3) + w[1] * norm(x**2) + w[2] * norm(x) + 1.0
ref_polycom = w[0] * norm(x) + w[1] * norm(x**2) + w[2] * norm(x**3) + 1.0
print("RESULT", dev, float((y - ref_liger).abs().max()), float((y - ref_polycom).abs().max()))
"""


def _run_forward() -> Verdict:
    env = dict(os.environ)
    where = "CUDA" if torch.cuda.is_available() else "Triton's interpreter (TRITON_INTERPRET=1, CPU)"
    if not torch.cuda.is_available():
        env["TRITON_INTERPRET"] = "1"  # for the child process only
    try:
        out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=300,
                             check=False)
    except subprocess.TimeoutExpired:
        return Verdict.unchecked(f"the kernel did not finish within 300 s under {where}")
    line = next((ln for ln in out.stdout.splitlines() if ln.startswith("RESULT")), None)
    if line is None:
        err = (out.stderr.strip().splitlines() or ["no output"])[-1][:300]
        return Verdict.unchecked(f"LigerPolyNorm's kernel does not run under {where}: {err}. Checked instead: the "
                                 "kernel's formula, parsed from its source (claim 'formula')")
    _, _dev, d_liger, d_polycom = line.split()
    ev = (f"on {where}: weights (0.2, -0.5, 0.7), bias 1, x of shape (64, 1024): max |kernel - w0 norm(x^3) - w1 "
          f"norm(x^2) - w2 norm(x) - b| = {float(d_liger):.3g}, max |kernel - polycom's order| = {float(d_polycom):.3g}")
    if float(d_liger) < 1e-4:
        return Verdict.numerical(ev + " (the formula in Liger's order holds)")
    return Verdict.failed(ev, severity="substantive")
