"""A lower estimate of the W^{1,inf}([-1,1]^d) distance between networks and a target.

moa Section 4 measures approximation in

.. math:: \\|e\\|_{W^{1,\\infty}(\\Omega)} = \\|e\\|_{L^\\infty(\\Omega)} + \\|\\nabla e\\|_{L^\\infty(\\Omega)},
          \\qquad e = f - T,\\quad \\Omega = [-1, 1]^d,

with the weak gradient and (as we read it) its Euclidean length. For the piecewise-smooth functions
here the ess sup of ``|grad e|`` is the sup of its one-sided limits, so the estimator evaluates:

1. a dense grid of cell midpoints (``grid`` per axis);
2. points on every known kink hyperplane (the target's and each network's kinked neurons), shifted by
   ``+-offset`` along the normal, i.e. on both sides;
3. a compass search (pattern search with halving steps, clipped to the box) from the ``refine``
   worst points of each of the two terms.

Points lying exactly on a known kink (within 1e-12) are dropped: there autograd returns a
sub-gradient choice, not a value of the weak gradient. Every value kept is ``|e(x)|`` or
``|grad e(x)|`` at a genuine point of Omega, so each term, and their sum, is a LOWER estimate of the
true norm. How close it is: the compass search stops at step ``h / 2^refine_iters`` with ``h`` the
grid spacing, so at a smooth maximum the gap is O((h 2^-iters)^2) and near a kink it is
``offset * Lipschitz(grad e)``; tests on functions with known norms (including kinked ones) find the
gap below 1e-6 with the defaults (:data:`TOLERANCE` documents the tolerance the probe allows).

Examples
--------
>>> import torch
>>> f = lambda x: torch.relu(x[..., 0] - 0.25)  # one function (B = 1), error against T = 0
>>> r = w1inf_error(f, lambda x: 0 * x[..., 0], d=2, kinks=[(np.array([1.0, 0.0]), -0.25)])
>>> round(float(r.total[0]), 6)  # sup|e| = 0.75, sup|grad e| = 1
1.75
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from approxlab._core.validate import check_positive_float, check_positive_int

#: Tolerance the probe allows between the estimate and the true norm (absolute), see module doc.
TOLERANCE = 1e-6

BatchFn = Callable[[torch.Tensor], torch.Tensor]


@dataclass
class W1InfResult:
    """Per-network estimates: ``value`` = sup|e|, ``grad`` = sup|grad e|, ``total`` = their sum,
    and the points where they were found (``argmax_value``, ``argmax_grad``, shape (B, d))."""

    value: np.ndarray
    grad: np.ndarray
    total: np.ndarray
    argmax_value: np.ndarray
    argmax_grad: np.ndarray
    n_points: int


def _grid(d: int, n: int) -> torch.Tensor:
    t = -1 + (torch.arange(n, dtype=torch.float64) + 0.5) * (2.0 / n)
    mesh = torch.meshgrid(*([t] * d), indexing="ij")
    return torch.stack([m.flatten() for m in mesh], dim=-1)


def _plane_points(w: np.ndarray, b: float, d: int, n: int, offset: float, rng: np.random.Generator) -> np.ndarray:
    """Points of ``{w.x + b = 0} cap [-1,1]^d`` shifted by +-offset along the unit normal."""
    nw = np.linalg.norm(w)
    if nw == 0:
        return np.zeros((0, d))
    nrm = w / nw
    if d == 2:
        # parametrise the line by its direction; keep points in the box
        t = np.linspace(-2 * np.sqrt(2), 2 * np.sqrt(2), 8 * n)
        p0 = -b * nrm / nw
        pts = p0[None] + t[:, None] * np.array([-nrm[1], nrm[0]])[None]
    else:
        x = rng.uniform(-1, 1, size=(8 * n, d))
        pts = x - ((x @ w + b) / nw**2)[:, None] * w[None]
    pts = pts[np.all(np.abs(pts) <= 1.0, axis=1)]
    if len(pts) > n:
        pts = pts[np.linspace(0, len(pts) - 1, n).astype(int)]
    both = np.concatenate([pts + offset * nrm, pts - offset * nrm])
    return np.clip(both, -1.0, 1.0)


def _value_grad(fn: BatchFn, x: torch.Tensor, B: int, chunk: int) -> tuple[torch.Tensor, torch.Tensor]:
    vals, grads = [], []
    for i in range(0, x.shape[1], chunk):
        xi = x[:, i : i + chunk].detach().requires_grad_(True)
        with torch.enable_grad():
            e = fn(xi)
            (g,) = torch.autograd.grad(e.sum(), xi)
        vals.append(e.detach())
        grads.append(g.detach())
    v, g = torch.cat(vals, 1), torch.cat(grads, 1)
    bad = ~(torch.isfinite(v) & torch.isfinite(g).all(-1))
    if bool(bad.any()):  # a NaN/inf error would make the sup (or the mean) NaN/inf, never a norm
        b, n = (int(k) for k in bad.nonzero()[0])
        raise ValueError(f"fn - target is not finite (value or gradient) at x = {x[b, n].tolist()} (function {b}); "
                         "the norm needs finite functions and parameters")
    return v, g


def _check_kinks(name: str, planes: Sequence[tuple[np.ndarray, float]], d: int) -> list[tuple[np.ndarray, float]]:
    """Hyperplanes ``(w, b)`` with w a finite nonzero vector of shape (d,) and b finite, or a ValueError."""
    out = []
    for w, b in planes:
        w = np.asarray(w, dtype=float)
        if w.shape != (d,) or not np.all(np.isfinite(w)) or not np.any(w) or not np.isfinite(float(b)):
            raise ValueError(f"{name} must be hyperplanes (w, b) with w a finite nonzero vector of shape ({d},) "
                             f"and b finite; got w = {w.tolist()}, b = {b!r}")
        out.append((w, float(b)))
    return out


def _on_kink(x: torch.Tensor, planes: list[torch.Tensor]) -> torch.Tensor:
    """(B, N) mask of points within 1e-12 of a kink plane (shared or per network)."""
    bad = torch.zeros(x.shape[:2], dtype=torch.bool, device=x.device)
    for P in planes:  # P: (B, H, d+1)
        if P.shape[1] == 0:
            continue
        r = torch.einsum("bnd,bhd->bnh", x, P[..., :-1]) + P[..., -1].unsqueeze(1)
        nrm = P[..., :-1].norm(dim=-1).unsqueeze(1)  # rows with w = 0 (padding) are no plane
        bad |= ((r.abs() < 1e-12 * nrm) & (nrm > 0)).any(-1)
    return bad


def w1inf_error(
    fn: BatchFn,
    target: Callable[[torch.Tensor], torch.Tensor],
    d: int,
    *,
    kinks: Sequence[tuple[np.ndarray, float]] = (),
    net_kinks: Sequence[np.ndarray] | None = None,
    grid: int = 201,
    kink_points: int = 400,
    offset: float = 1e-9,
    refine: int = 8,
    refine_iters: int = 40,
    chunk: int = 4096,
    seed: int = 0,
    B: int | None = None,
    device: str | torch.device = "cpu",
    exclude: float = 0.0,
) -> W1InfResult:
    """Estimate ``||f_b - T||_{W^{1,inf}([-1,1]^d)}`` for a batch of functions ``f_b`` (from below).

    Parameters
    ----------
    fn : callable
        ``x (B, N, d) float64 -> (B, N)``, the B functions (e.g. :meth:`NetworkBatch.forward`).
    target : callable
        ``x (..., d) -> (...)``.
    d : int
        Dimension of the box.
    kinks : list of (w, b)
        Hyperplanes where the target's gradient jumps.
    net_kinks : list of arrays (H_b, d+1), optional
        Per function, hyperplanes ``w.x + b = 0`` where it may kink (rows ``(w, b)``).
    grid, kink_points, offset, refine, refine_iters
        Grid points per axis; points per hyperplane; normal shift; number of worst points refined
        per term; compass-search iterations.
    seed : int
        For the random points on hyperplanes when d > 2.
    B : int, optional
        Number of functions (default ``len(net_kinks)``, or 1).
    exclude : float
        delta >= 0: measure only on ``Omega`` minus the open delta-neighbourhood of the target's kink
        set (points with distance < delta to a ``kinks`` hyperplane are dropped, in the grid and
        in the search). As delta -> 0 this tends to the error for exact kink placement.

    Returns
    -------
    W1InfResult
    """
    check_positive_int("grid", grid)
    check_positive_int("d", d)
    check_positive_int("kink_points", kink_points)
    check_positive_int("refine", refine)
    check_positive_int("refine_iters", refine_iters, minimum=0)
    check_positive_int("chunk", chunk)
    offset = check_positive_float("offset", offset)
    if isinstance(exclude, bool) or not isinstance(exclude, (int, float)) or not (exclude >= 0 and np.isfinite(exclude)):
        raise ValueError(f"exclude must be a finite delta >= 0, got {exclude!r}")
    kinks = _check_kinks("kinks", kinks, d)
    if net_kinks is not None:
        for planes in net_kinks:
            p = np.asarray(planes, dtype=float)
            if p.size and (p.ndim != 2 or p.shape[1] != d + 1 or not np.all(np.isfinite(p))):
                raise ValueError(f"net_kinks must hold finite arrays of shape (H, {d + 1}), got shape {p.shape}")
    rng = np.random.default_rng(seed)
    dev = torch.device(device)
    pts = [_grid(d, grid)]
    for w, b in kinks:
        pts.append(torch.from_numpy(_plane_points(np.asarray(w, float), float(b), d, kink_points, offset, rng)))
    shared = torch.cat(pts).to(dev)
    if B is None:
        B = 1 if net_kinks is None else len(net_kinks)
    x = shared.unsqueeze(0).expand(B, -1, -1)
    if net_kinks is not None:
        per = []
        for planes in net_kinks:
            q = [_plane_points(p[:-1], p[-1], d, kink_points // 4 + 1, offset, rng) for p in np.asarray(planes)]
            per.append(np.concatenate(q) if q else np.zeros((0, d)))
        n = max(len(p) for p in per)
        extra = torch.zeros(B, n, d, dtype=torch.float64)
        for i, p in enumerate(per):
            if len(p):
                extra[i, : len(p)] = torch.from_numpy(p)
                extra[i, len(p) :] = torch.from_numpy(p[:1])
        x = torch.cat([x, extra.to(dev)], dim=1)
    tk = [torch.tensor(np.append(w, b), dtype=torch.float64, device=dev).expand(B, 1, d + 1) for w, b in kinks]
    if net_kinks is not None:
        H = max(len(p) for p in net_kinks)
        P = torch.zeros(B, H, d + 1, dtype=torch.float64)
        for i, p in enumerate(net_kinks):
            if len(p):
                P[i, : len(p)] = torch.from_numpy(np.asarray(p, float))
        tk.append(P.to(dev))

    near = [torch.tensor(np.append(np.asarray(w, float), b) / np.linalg.norm(w), dtype=torch.float64, device=dev)
            for w, b in kinks]

    def err(xx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        v, g = _value_grad(lambda z: fn(z) - target(z), xx, B, chunk)
        bad = _on_kink(xx, tk)
        if exclude > 0:
            for pl in near:
                bad |= (xx @ pl[:-1] + pl[-1]).abs() < exclude
        v = v.abs().masked_fill(bad, -1.0)
        gn = g.norm(dim=-1).masked_fill(bad, -1.0)
        return v, gn

    v, gn = err(x)
    if bool((v < 0).all(1).any()):  # masked: a sup over no point is no estimate
        raise ValueError(f"no point of the box is left to measure: exclude={exclude} (with the grid and the kink "
                         "points) removes all of them; use a smaller exclude")
    best_v, iv = v.max(1)
    best_g, ig = gn.max(1)
    arg_v = x[torch.arange(B), iv]
    arg_g = x[torch.arange(B), ig]
    h = 2.0 / grid
    dirs = torch.cat([torch.eye(d), -torch.eye(d)]).to(dev, torch.float64)
    for which, score in ((0, v), (1, gn)):
        k = min(refine, score.shape[1])
        start = x.gather(1, score.topk(k, dim=1).indices.unsqueeze(-1).expand(-1, -1, d))  # (B, k, d)
        cur = start.clone()
        cur_s = err(cur)[which]
        step = torch.full((B, k, 1), h * 0.7071067811865476, dtype=torch.float64, device=dev)
        for _ in range(refine_iters):
            cand = (cur.unsqueeze(2) + step.unsqueeze(2) * dirs.view(1, 1, 2 * d, d)).clamp(-1, 1)
            cs = err(cand.reshape(B, -1, d))[which].reshape(B, k, 2 * d)
            bs, bi = cs.max(-1)
            better = bs > cur_s
            cur = torch.where(better.unsqueeze(-1), cand.gather(2, bi.view(B, k, 1, 1).expand(-1, -1, 1, d)).squeeze(2),
                              cur)
            cur_s = torch.where(better, bs, cur_s)
            step = torch.where(better.unsqueeze(-1), step, step / 2)
        s, j = cur_s.max(1)
        at = cur[torch.arange(B), j]
        if which == 0:
            upd = s > best_v
            best_v = torch.where(upd, s, best_v)
            arg_v = torch.where(upd.unsqueeze(-1), at, arg_v)
        else:
            upd = s > best_g
            best_g = torch.where(upd, s, best_g)
            arg_g = torch.where(upd.unsqueeze(-1), at, arg_g)
    bv, bg = best_v.cpu().numpy(), best_g.cpu().numpy()
    return W1InfResult(bv, bg, bv + bg, arg_v.cpu().numpy(), arg_g.cpu().numpy(), int(x.shape[1]))


def w12_error(fn: BatchFn, target: Callable[[torch.Tensor], torch.Tensor], d: int, *, B: int = 1,
              points: int = 1024, replicas: int = 8, seed: int = 0, chunk: int = 4096,
              device: str | torch.device = "cpu") -> tuple[np.ndarray, np.ndarray]:
    """``||f_b - T||_{W^{1,2}([-1,1]^d)} = (int e^2 + |grad e|^2 dx)^{1/2}`` by randomised quasi-Monte Carlo.

    ``replicas`` independently scrambled Sobol' sets of ``points`` points each
    (:class:`scipy.stats.qmc.Sobol`) give independent unbiased estimates of the integral; returns
    ``(value, error)`` per function with ``error`` three standard errors ``se`` of the mean ``q`` over
    the replicas, carried through the square root on both sides: ``max(sqrt(q + se) - sqrt(q),
    sqrt(q) - sqrt(max(q - se, 0)))`` (the square root is concave, so the lower side is the wider).
    (A fixed grid is not used: a kink displaced by eps from a grid line is either missed or weighted
    by the grid spacing instead of eps.) The error is a statistical one from ``replicas`` samples:
    a part of the integrand whose support holds about one point or fewer per replica (a region of
    volume ~ ``2^d / points``) can be seen equally by every replica, or by none, and then escapes
    it.

    Examples
    --------
    >>> v, e = w12_error(lambda x: x[..., 0], lambda x: 0 * x[..., 0], 2)
    >>> abs(float(v[0]) ** 2 - 16 / 3) < 0.01  # int x1^2 + 1 over [-1,1]^2 = 4/3 + 4
    True
    """
    from scipy.stats import qmc

    check_positive_int("d", d)
    check_positive_int("B", B)
    check_positive_int("points", points, minimum=2)
    check_positive_int("replicas", replicas, minimum=2)
    check_positive_int("chunk", chunk)
    dev = torch.device(device)
    vals = []
    for r in range(replicas):
        u = qmc.Sobol(d, scramble=True, seed=seed * 1000 + r).random(points)
        x = torch.from_numpy(2 * u - 1).to(dev).unsqueeze(0).expand(B, -1, -1)
        v, g = _value_grad(lambda z: fn(z) - target(z), x, B, chunk)
        vals.append(((v**2).mean(1) + (g**2).sum(-1).mean(1)) * 2.0**d)
    q = torch.stack(vals)  # (replicas, B)
    mean = q.mean(0).clamp_min(0)
    se = 3 * q.std(0) / np.sqrt(replicas)
    val = mean.sqrt()
    err = torch.maximum((mean + se).sqrt() - val, val - (mean - se).clamp_min(0).sqrt())
    return val.cpu().numpy(), err.cpu().numpy()
