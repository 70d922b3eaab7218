"""The parameter Jacobian of a :class:`~approxlab.expressivity.classes.NetworkBatch` by one backward pass.

``f_bn`` (network b at point n) depends on the parameters only through point-wise quantities
(:meth:`NetworkBatch._pre`: output weights, pre-activations ``w . xb`` and ``u . xb``, mixing
coefficients, gate logits ``v . xb``). One backward pass of ``sum f`` gives ``d f_bn / d q_bn`` for
every such quantity at once, and the chain rule to the parameters is an outer product with ``xb``:
the per-sample-gradient trick of linear layers, here for all B networks and N points together. The
Levenberg-Marquardt retraining of the probe's perturbed protocol
(:func:`~approxlab.expressivity.train.batched_lm`) calls it once per iteration.

Examples
--------
>>> import torch
>>> from approxlab.expressivity.classes import NetworkBatch
>>> nb = NetworkBatch.from_specs("II", [("relu*tanh", 2, 0), ("la", 1, 1)])
>>> x = torch.rand(5, 2, dtype=torch.float64)
>>> f, J = nb.jacobian(x)
>>> ref = torch.autograd.functional.jacobian(lambda t: nb.forward(x, torch.stack([t, nb.theta[1]]))[0],
...                                          nb.theta[0])
>>> bool(torch.allclose(J[0], ref, atol=1e-14))
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch


class JacobianMixin:
    """:meth:`jacobian` for :class:`~approxlab.expressivity.classes.NetworkBatch` (which provides
    ``_pre``, ``_post``, ``_stack``, ``layout`` and the per-network masks)."""

    theta: torch.Tensor
    layout: Any
    check_input: Callable[..., None]
    B: int
    K: int
    type: str

    def _coef_grad(self, pre: dict[str, torch.Tensor]) -> torch.Tensor:
        """Type II: ``d f_bn / d coef_bpq`` (B, N, K, K), zero where a network does not use ``coef``."""
        with torch.no_grad():
            a = pre["a"].expand(-1, pre["h"].shape[1], -1) * self.neuron_mask.unsqueeze(1).to(pre["a"].dtype)
            sy, sz = self._stack(pre["h"]), self._stack(pre["z"])
            used = ((self.sided < 1) & ~self.is_moa).to(a.dtype).view(-1, 1, 1)
            pm = self.pair_mask.to(a.dtype) * used
            return torch.einsum("bnjp,bnjq,bnj->bnpq", sy, sz, a) * pm.unsqueeze(1)

    #: :meth:`_pre` quantity of each parameter, and whether the parameter enters through ``. xb``.
    _JAC_SOURCE = {"a": ("a", False), "w": ("h", True), "u": ("z", True), "coef": ("coef", False),
                   "gate": ("glog", True), "side": ("side", False), "sgate": ("sglog", True)}

    def jacobian(self, x: torch.Tensor, theta: torch.Tensor | None = None, max_elems: int = 2**24,
                 cols: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``f(x)`` (B, N) and its Jacobian in the parameters, (B, N, P), by one backward pass.

        ``f_bn`` depends on the parameters only through the point-wise quantities of :meth:`_pre`
        (output weights, pre-activations ``w . xb``, coefficients, gate logits ``v . xb``), so one
        backward pass of ``sum f`` gives ``d f_bn / d q_bn`` for every such quantity ``q`` at once
        (shared parameters are expanded to one copy per point first), and the chain rule is an outer
        product: ``d f_bn / d w_bj = (d f_bn / d h_bnj) xb_n``, ``d f_bn / d a_bj = d f_bn / d a_bnj``.
        This costs one forward and one backward of the batch, where per-point parameter copies cost
        a forward with N copies of every parameter. Networks are processed in chunks of at most
        ``max_elems`` Jacobian entries. ``cols`` (bool, P) keeps only those columns of J (the trainable
        ones), in order; blocks with no kept column are not formed.

        ``x`` is checked as in :meth:`forward` (a finite floating-point (N, d) or (B, N, d) tensor); the
        computation runs in its dtype.

        Raises
        ------
        ValueError
            ``cols`` not a boolean tensor of shape (P,) with at least one True entry (an empty Jacobian has
            no use, and its blocks cannot be joined); ``max_elems`` < 1; ``x``, ``theta`` as in
            :meth:`check_input`.

        Examples
        --------
        >>> from approxlab.expressivity.classes import NetworkBatch
        >>> nb = NetworkBatch.from_specs("I", [("relu", 1, 0), ("moa", 2, 1)])
        >>> f, J = nb.jacobian(torch.rand(7, 2, dtype=torch.float64))
        >>> tuple(J.shape) == (2, 7, nb.layout.P)
        True
        """
        self.check_input(x, theta)
        if isinstance(max_elems, bool) or not isinstance(max_elems, int) or max_elems < 1:
            raise ValueError(f"max_elems must be an integer >= 1, got {max_elems!r}")
        P = self.layout.P
        if cols is not None:
            if not isinstance(cols, torch.Tensor) or cols.dtype != torch.bool or tuple(cols.shape) != (P,):
                got = tuple(cols.shape) if isinstance(cols, torch.Tensor) else type(cols).__name__
                raise ValueError(f"cols must be a boolean tensor of shape (P,) = ({P},) (the columns of J to keep), "
                                 f"got {got}" + (f" of {cols.dtype}" if isinstance(cols, torch.Tensor) else ""))
            if not bool(cols.any()):
                raise ValueError("cols must keep at least one column of J (all False gives an empty Jacobian)")
        th = (self.theta if theta is None else theta).detach()
        if th.dtype != x.dtype:
            th = th.to(x.dtype)
        N = x.shape[-2]
        L = self.layout
        keep = torch.ones(L.P, dtype=torch.bool, device=th.device) if cols is None else cols.to(th.device)
        step = max(1, max_elems // max(1, N * int(keep.sum())))
        fs, Js = [], []
        for i in range(0, self.B, step):
            idx = list(range(i, min(self.B, i + step)))
            sub = self if len(idx) == self.B else self.subset(idx)
            xi = x if x.dim() == 2 else x[idx]
            with torch.enable_grad():
                xb, pre = sub._pre(xi, th[idx])
                leaves = {}
                for name, q in pre.items():
                    q = q.detach()
                    if q.shape[1] == 1 and name in ("a", "side") or (name == "coef" and self.type == "I"):
                        q = q.expand(-1, N, *q.shape[2:])  # one copy per point
                    leaves[name] = q.clone().requires_grad_(True)
                f = sub._post(xb, leaves)
                grads = torch.autograd.grad(f.sum(), list(leaves.values()), allow_unused=True)
            g = dict(zip(leaves, grads))
            xe = xb if xb.dim() == 3 else xb.unsqueeze(0).expand(len(idx), -1, -1)
            blocks = []
            for name, sl in L.slices.items():
                kb = keep[sl]
                if not bool(kb.any()):
                    continue
                qname, through_x = self._JAC_SOURCE[name]
                n = sl.stop - sl.start
                gq = g.get(qname)
                if name == "coef" and self.type == "II":  # shared: d f_bn / d C_pq = sum_j a_j sy_njp sz_njq
                    gq = sub._coef_grad(leaves)
                if gq is None:
                    blk = torch.zeros(len(idx), N, n, dtype=xb.dtype, device=xb.device)
                else:
                    if name == "gate":  # logits exist for the (qd-)MoA networks only
                        full = torch.zeros(len(idx), *gq.shape[1:], dtype=xb.dtype, device=xb.device)
                        full[sub._gate_rows] = gq
                        gq = full
                    if through_x:
                        xs = xe.reshape(len(idx), N, *([1] * (gq.dim() - 2)), xe.shape[-1])
                        gq = gq.unsqueeze(-1) * xs
                    blk = gq.reshape(len(idx), N, n)
                blocks.append(blk[..., kb])
            fs.append(f.detach())
            Js.append(torch.cat(blocks, -1))
        return torch.cat(fs), torch.cat(Js)
