"""Batched training: many networks (classes x widths x seeds) as one tensor, one forward for all.

The loss of network b controls the function and its gradient on a fixed point set X (uniform points
of ``[-1,1]^d`` plus points on both sides of the target's kink hyperplanes):

* Adam phase, Sobolev W^{1,2}:  ``L_b = mean_X (f_b - T)^2 + mean_X |grad f_b - grad T|^2``;
* L-BFGS phase, smoothed W^{1,inf}:  ``L_b = (mean_X |e|^p)^{1/p} + (mean_X |grad e|^p)^{1/p}`` with
  ``e = f_b - T`` (p = 8 by default), which tends to the W^{1,inf} error on X as p -> inf.

The networks are independent, so the gradient of ``sum_b L_b`` with respect to network b's
parameters is the gradient of ``L_b``; Adam is elementwise, hence exactly B independent Adam runs.
L-BFGS is not elementwise, so :func:`batched_lbfgs` keeps one curvature history, one step length
and one Armijo line search per network (the two-loop recursion with per-network dot products), so
the result equals B separate L-BFGS runs while every loss evaluation is one batched forward.

* Levenberg-Marquardt polish (``polish="lm"``, what the probe's perturbed-construction protocol uses):
  :func:`batched_lm` on the value residuals ``f_b(x) - T(x)``, with the Jacobian of all networks from
  one backward pass (:meth:`~approxlab.expressivity.classes.NetworkBatch.jacobian`).

Examples
--------
>>> from approxlab.expressivity.classes import NetworkBatch
>>> from approxlab.expressivity.targets import make_target
>>> nb = NetworkBatch.init("I", ["la"], [1], seed=0)
>>> out = train(nb, make_target("I", "la"), TrainConfig(adam_steps=50, lbfgs_steps=5, n_points=128),
...             progress=False)
>>> out["loss"].shape
(1,)
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from approxlab._core.validate import check_choice, check_finite_float, check_positive_int, check_seed
from approxlab.expressivity.classes import NetworkBatch
from approxlab.expressivity.targets import Target

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str) -> torch.device:
    """``"auto"`` -> cuda if available else cpu; ``"cuda"`` without CUDA raises ValueError."""
    check_choice("device", device, DEVICES)
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' but CUDA is not available; use --device auto or cpu")
    return torch.device(device)


def check_device_option(device: str, option: str = "--device") -> torch.device:
    """:func:`resolve_device` for a command-line option: the error names ``option`` and what is allowed.

    Examples
    --------
    >>> check_device_option("cpu")
    device(type='cpu')
    >>> check_device_option("tpu")
    Traceback (most recent call last):
    ...
    ValueError: --device must be one of auto, cpu, cuda (cuda only where CUDA is available); got 'tpu'
    """
    try:
        return resolve_device(device)
    except ValueError:
        raise ValueError(f"{option} must be one of {', '.join(DEVICES)} (cuda only where CUDA is available); "
                         f"got {device!r}") from None


@contextlib.contextmanager
def small_batch_threads(device: torch.device, threads: int = 1) -> Iterator[None]:
    """On a CPU, run the block with ``threads`` torch intra-op threads (restored afterwards).

    The probe's tensors are small (a few hundred points, tens of parameters per network): torch's
    intra-op threads then cost more in synchronisation than they gain, and on a shared, loaded
    machine much more (measured on the 2-core CI box at load 12: one Adam step of 24 width-8
    networks 16 ms CPU with 1 thread, 97 ms with 2). On CUDA this does nothing.
    """
    if device.type != "cpu":
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _int_field(minimum: int) -> Callable[[str, object], int]:
    def check(name: str, v: object) -> int:
        return check_positive_int(name, int(v) if isinstance(v, np.integer) else v, minimum=minimum)
    return check


def _real_field(low: float, strict: bool, high: float | None = None) -> Callable[[str, object], float]:
    """A finite real in (low, high] (``strict``) or [low, high]; numpy scalars accepted."""
    def check(name: str, v: object) -> float:
        x = check_finite_float(name, v)
        if (x <= low if strict else x < low) or (high is not None and x > high):
            lo = f"> {low:g}" if strict else f">= {low:g}"
            raise ValueError(f"{name} must be a finite real number {lo}" + (f" and <= {high:g}" if high else "")
                             + f", got {v!r}")
        return x
    return check


def _choice_field(allowed: tuple[str, ...]) -> Callable[[str, object], str]:
    return lambda name, v: check_choice(name, v, allowed)


def _dtype_field(name: str, v: object) -> torch.dtype:
    if v not in (torch.float32, torch.float64):
        raise ValueError(f"{name} must be torch.float32 or torch.float64, got {v!r}")
    return v


#: The kink points lie at log-uniform distances in [kink_dmin, KINK_DMAX] from the target's kinks.
KINK_DMAX = 1e-1

#: The validator of each TrainConfig field (type and range), run on every assignment.
_TRAIN_FIELDS: dict[str, Callable[[str, object], object]] = {
    "n_points": _int_field(1), "kink_points": _int_field(0), "adam_steps": _int_field(0),
    "lr": _real_field(0.0, strict=True), "lbfgs_steps": _int_field(0), "history": _int_field(1),
    "p": _int_field(1), "lbfgs_loss": _choice_field(("smooth-sup", "sobolev", "l2")),
    "polish": _choice_field(("lbfgs", "lm")), "seed": check_seed, "dtype": _dtype_field,
    "kink_dmin": _real_field(0.0, strict=True, high=KINK_DMAX), "restart_tol": _real_field(0.0, strict=False),
}


@dataclass
class TrainConfig:
    """Training settings (all seeds explicit).

    Every field is checked when it is set (at construction and on any later assignment); an invalid
    value raises naming the field.

    Attributes
    ----------
    n_points : int >= 1
        Uniform training points in ``[-1, 1]^d`` (plus the box's corners).
    kink_points : int >= 0
        Points on both sides of each target kink hyperplane.
    adam_steps, lbfgs_steps : int >= 0
        Steps of the Adam phase and of the polish (L-BFGS or Levenberg-Marquardt).
    lr : float > 0
        Adam's learning rate.
    history : int >= 1
        L-BFGS curvature pairs kept.
    p : int >= 1
        Exponent of the smoothed W^{1,inf} loss (p-means).
    lbfgs_loss : {"smooth-sup", "sobolev", "l2"}
    polish : {"lbfgs", "lm"}
    seed : int in [0, 2^63 - 1]
    dtype : torch.float32 or torch.float64
    kink_dmin : float in (0, 0.1]
        Smallest distance of a kink point from its hyperplane (distances are log-uniform in
        ``[kink_dmin, 0.1]``).
    restart_tol : float >= 0
        Loss at or below which a Levenberg-Marquardt network stops restarting.

    Raises
    ------
    TypeError, ValueError
        A field of the wrong type or out of its range, naming the field.

    Examples
    --------
    >>> TrainConfig(kink_dmin=0.0)
    Traceback (most recent call last):
    ...
    ValueError: kink_dmin must be a finite real number > 0 and <= 0.1, got 0.0
    """

    n_points: int = 2048
    kink_points: int = 256
    adam_steps: int = 2000
    lr: float = 1e-2
    lbfgs_steps: int = 300
    history: int = 10
    p: int = 8
    lbfgs_loss: str = "smooth-sup"
    polish: str = "lbfgs"
    seed: int = 0
    dtype: torch.dtype = torch.float32
    kink_dmin: float = 1e-4
    restart_tol: float = 1e-12

    def __setattr__(self, name: str, value: object) -> None:
        check = _TRAIN_FIELDS.get(name)
        super().__setattr__(name, value if check is None else check(name, value))


def training_points(target: Target, n: int, kink_n: int, seed: int, dmin: float = 1e-4) -> torch.Tensor:
    """Uniform points in the box, the box's corners, and points at log-uniform distances
    ``dmin..1e-1`` on both sides of each target kink hyperplane (float64, shape (N, d)).

    Raises
    ------
    TypeError, ValueError
        ``target`` not a :class:`Target`, or one with a kink of normal 0 or non-finite; ``n`` < 1,
        ``kink_n`` < 0, ``seed`` not in [0, 2^63 - 1], ``dmin`` not in (0, 0.1] (named as the
        arguments here, as the fields ``n_points``, ``kink_points``, ``seed``, ``kink_dmin`` of
        :class:`TrainConfig`).
    """
    if not isinstance(target, Target):
        raise TypeError(f"target must be a Target (make_target), got {type(target).__name__}")
    n, kink_n = _int_field(1)("n", n), _int_field(0)("kink_n", kink_n)
    seed = check_seed("seed", int(seed) if isinstance(seed, np.integer) else seed)
    dmin = _real_field(0.0, strict=True, high=KINK_DMAX)("dmin", dmin)
    g = np.random.default_rng(seed)
    d = target.d
    parts = [g.uniform(-1, 1, size=(n, d))]
    corners = np.array(np.meshgrid(*([[-1.0, 1.0]] * d), indexing="ij")).reshape(d, -1).T
    parts.append(corners)
    for w, b in target.kinks:
        w = np.asarray(w, float)
        nw = np.linalg.norm(w)
        if w.shape != (d,) or not (np.isfinite(nw) and nw > 0 and np.isfinite(b)):
            raise ValueError(f"target.kinks must be finite hyperplanes (w, b) with w nonzero of shape ({d},), got "
                             f"({w!r}, {b!r})")
        x = g.uniform(-1, 1, size=(4 * kink_n, d))
        x = x - ((x @ w + b) / nw**2)[:, None] * w[None]
        x = x[np.all(np.abs(x) <= 1, axis=1)][:kink_n]
        dist = 10 ** g.uniform(math.log10(dmin), math.log10(KINK_DMAX), size=(len(x), 1))
        sign = np.where(g.uniform(size=(len(x), 1)) < 0.5, -1.0, 1.0)
        parts.append(np.clip(x + sign * dist * w / nw, -1, 1))
    return torch.from_numpy(np.concatenate(parts))


def _target_value_grad(target: Target, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    xx = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        t = target(xx)
        (g,) = torch.autograd.grad(t.sum(), xx)
    return t.detach(), g.detach()


def losses(nb: NetworkBatch, theta: torch.Tensor, x: torch.Tensor, t: torch.Tensor, gt: torch.Tensor,
           kind: str, p: int = 8) -> torch.Tensor:
    """Per-network loss (B,): ``"sobolev"`` (W^{1,2}), ``"smooth-sup"`` (p-mean W^{1,inf}) or ``"l2"``
    (``mean (f - T)^2``, values only: a loss continuous in the hyperplanes, for L-BFGS near a solution).

    ``x`` is not checked here (this runs every training step): pass finite points of shape (N, d), as
    :func:`training_points` gives."""
    # the unchecked evaluations: called every step, on points checked once (a check would sync a GPU each step)
    if kind == "l2":
        return ((nb._forward(x, theta) - t) ** 2).mean(1)
    f, g = nb._value_and_grad(x, theta, create_graph=True)
    e = f - t
    ge = g - gt
    if kind == "sobolev":
        return (e**2).mean(1) + (ge**2).sum(-1).mean(1)
    gn2 = (ge**2).sum(-1)
    # p-means, scaled by their max for stability (the max is treated as a constant factor)
    ea = e.abs()
    s1 = ea.detach().amax(1, keepdim=True).clamp_min(1e-30)
    s2 = gn2.detach().amax(1, keepdim=True).clamp_min(1e-60)
    v = s1.squeeze(1) * ((ea / s1) ** p).mean(1) ** (1.0 / p)
    gr = s2.squeeze(1).sqrt() * ((gn2 / s2) ** (p / 2)).mean(1) ** (1.0 / p)
    return v + gr


def batched_lbfgs(closure, theta: torch.Tensor, mask: torch.Tensor, steps: int, history: int = 10,
                  max_ls: int = 20) -> tuple[torch.Tensor, torch.Tensor]:
    """B independent L-BFGS runs (two-loop recursion, per-network Armijo backtracking).

    ``closure(theta) -> (loss (B,), grad (B, P))``; ``mask`` (B, P) zeroes frozen entries.
    Returns the final ``theta`` and losses.
    """
    loss, g = closure(theta)
    g = g * mask
    B = theta.shape[0]
    S: list[torch.Tensor] = []
    Y: list[torch.Tensor] = []
    R: list[torch.Tensor] = []
    gamma = (1.0 / g.abs().sum(1).clamp_min(1.0)).clamp(max=1.0)
    stuck = torch.zeros(B, dtype=torch.long, device=theta.device)
    for _ in range(steps):
        q = g.clone()
        al = []
        for s, y, r in zip(reversed(S), reversed(Y), reversed(R)):
            a = r * (s * q).sum(1)
            q = q - a[:, None] * y
            al.append(a)
        q = q * gamma[:, None]
        for (s, y, r), a in zip(zip(S, Y, R), reversed(al)):
            b = r * (y * q).sum(1)
            q = q + s * (a - b)[:, None]
        d = -q * mask
        gd = (g * d).sum(1)
        bad = ~(gd < 0) | ~torch.isfinite(gd)
        d = torch.where(bad[:, None], -g * gamma[:, None], d)
        gd = (g * d).sum(1)
        t = torch.ones(B, dtype=theta.dtype, device=theta.device)
        done = torch.zeros(B, dtype=torch.bool, device=theta.device)
        new_theta, new_loss, new_g = theta.clone(), loss.clone(), g.clone()
        for _ls in range(max_ls):
            cand = theta + t[:, None] * d
            cl, cg = closure(cand)
            ok = (~done) & torch.isfinite(cl) & (cl <= loss + 1e-4 * t * gd)
            new_theta = torch.where(ok[:, None], cand, new_theta)
            new_loss = torch.where(ok, cl, new_loss)
            new_g = torch.where(ok[:, None], cg * mask, new_g)
            done |= ok
            if bool(done.all()):
                break
            t = torch.where(done, t, t / 2)
        s = new_theta - theta
        y = new_g - g
        sy = (s * y).sum(1)
        valid = done & (sy > 1e-10 * (s * s).sum(1).sqrt() * (y * y).sum(1).sqrt())
        S.append(torch.where(valid[:, None], s, torch.zeros_like(s)))
        Y.append(torch.where(valid[:, None], y, torch.zeros_like(y)))
        R.append(torch.where(valid, 1.0 / sy.where(valid, torch.ones_like(sy)), torch.zeros_like(sy)))
        if len(S) > history:
            S.pop(0), Y.pop(0), R.pop(0)
        yy = (y * y).sum(1)
        gamma = torch.where(valid, sy / yy.where(valid, torch.ones_like(yy)), gamma)
        # a network whose line search failed restarts from steepest descent: drop its history
        fail = ~done
        if bool(fail.any()):
            keep = (~fail).to(theta.dtype)
            S = [s_ * keep[:, None] for s_ in S]
            Y = [y_ * keep[:, None] for y_ in Y]
            R = [r_ * keep for r_ in R]
            gamma = torch.where(fail, (1.0 / new_g.abs().sum(1).clamp_min(1e-12)).clamp(max=1.0), gamma)
            stuck = stuck + fail.long()
        stuck = torch.where(done, torch.zeros_like(stuck), stuck)
        theta, loss, g = new_theta, new_loss, new_g
        if bool((stuck >= 2).all()):
            break
    return theta, loss


def batched_lm(fun, theta: torch.Tensor, mask: torch.Tensor, steps: int, tol: float = 1e-30,
               mu0: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """B independent Levenberg-Marquardt runs on ``mean_n r_bn(theta_b)^2`` (Marquardt's scaling).

    ``fun(theta, idx) -> (r (b, N), J (b, N, P or C))`` gives the residuals and their Jacobian of the
    networks ``idx`` (``theta`` holds their rows only; J may hold only the C columns trainable in some
    network, ``mask.bool().any(0)``, in order; see
    :meth:`~approxlab.expressivity.classes.NetworkBatch.jacobian`); ``mask`` (B, P) zeroes frozen
    entries. Each network takes the damped Gauss-Newton step ``(J^T J + mu diag(J^T J)) delta = -J^T r``
    (solved as the least-squares problem ``[J; sqrt(mu D)] delta = [-r; 0]`` by QR) with its own
    damping ``mu``, starting at ``mu0``: a step that lowers its loss is taken and ``mu`` shrinks (/3),
    otherwise ``mu`` grows (x4). A large ``mu0`` (1) keeps the first steps short: Gauss-Newton steps
    along the nearly flat directions of a perturbed start otherwise jump to a spurious minimum.
    Columns frozen in every network are dropped. A network stops when its loss is below ``tol`` or its
    ``mu`` exceeds 1e16 (no descent left). Returns the final ``theta`` and losses (B,).

    Why not L-BFGS here: the perturbed-construction problem is a zero-residual least-squares problem
    whose Jacobian has singular values down to ~1e-8 of the largest at the solution (the dictionary's
    gate x activation products are nearly dependent); a quasi-Newton method stalls there at losses of
    1e-8..1e-9 (so does torch's L-BFGS with a strong-Wolfe line search), Gauss-Newton steps do not.

    Examples
    --------
    Two independent fits of ``y = c t^2`` (truths 3 and -1), from 0:

    >>> t = torch.linspace(0, 1, 5, dtype=torch.float64)
    >>> y = torch.tensor([[3.0], [-1.0]], dtype=torch.float64) * t**2
    >>> fun = lambda th, idx: (th * t**2 - y[idx], (t**2).expand(len(idx), 5).unsqueeze(-1))
    >>> th, loss = batched_lm(fun, torch.zeros(2, 1, dtype=torch.float64), torch.ones(2, 1), 50)
    >>> [round(v, 9) for v in th.flatten().tolist()]
    [3.0, -1.0]
    """
    cols = mask.bool().any(0)
    m = mask[:, cols]
    eye = torch.diag_embed((m == 0).to(theta.dtype))  # frozen entries: solve delta = 0
    B = theta.shape[0]
    r, J = fun(theta, list(range(B)))
    full = J.shape[-1] == theta.shape[1]
    r, J = r.contiguous(), (J[..., cols] if full else J).contiguous()  # updated in place below
    loss = (r**2).mean(1)
    mu = torch.full((B,), mu0, dtype=theta.dtype, device=theta.device)
    active = torch.isfinite(loss) & (loss > tol)
    theta = theta.clone()
    for _ in range(steps):
        act = active.nonzero().flatten()
        if act.numel() == 0:
            break
        ia = act.tolist()  # only the networks still running are evaluated
        Jc = J[act] * m[act].unsqueeze(1)
        dg = (Jc**2).sum(1)
        scale = dg.clamp_min(1e-12 * dg.amax(1, keepdim=True).clamp_min(1e-300))
        # the damped step as a least-squares problem [J; sqrt(mu D)] delta = [-r; 0], solved by QR:
        # the normal equations would square J's condition number (~1e8 here) past float64's range
        damp = torch.diag_embed((mu[act].unsqueeze(1) * scale).sqrt()) + eye[act]
        Jaug = torch.cat([Jc, damp], 1)
        raug = torch.cat([-r[act], torch.zeros_like(scale)], 1).unsqueeze(-1)
        delta = torch.linalg.lstsq(Jaug, raug, driver="gels").solution  # full rank: damping, frozen = 1
        delta = torch.nan_to_num(delta.squeeze(-1)) * m[act]
        cand = theta[act].clone()
        cand[:, cols] += delta
        rc, Jn = fun(cand, ia)
        Jn = Jn[..., cols] if full else Jn
        lc = (rc**2).mean(1)
        ok = torch.isfinite(lc) & (lc < loss[act])
        oka = act[ok]
        theta[oka] = cand[ok]
        r[oka] = rc[ok]
        J[oka] = Jn[ok]
        loss[oka] = lc[ok]
        mu[act] = torch.where(ok, (mu[act] / 3).clamp_min(1e-15), mu[act] * 4)
        active = active & (loss > tol) & (mu < 1e16)
    return theta, loss


def lm_restarts(fun, theta: torch.Tensor, mask: torch.Tensor, steps: int, perturb, restarts: Sequence[int],
                tol: float = 1e-12) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """:func:`batched_lm`, then up to ``restarts[b]`` restarts of each network b whose loss is still
    above ``tol``: the network it reached, perturbed again (``perturb(theta_rows, idx, k) -> theta_rows``
    for restart k of the networks ``idx``), retrained by :func:`batched_lm` with the same budget; its
    result replaces the kept one only where its loss is lower (so a restart never makes a network
    worse, and the choice uses the training loss alone). A network stops restarting once its loss is
    at most ``tol``. Only the restarted networks are evaluated, each with its own noise and state, so
    a network's result does not depend on the batch (up to rounding, see
    :func:`~approxlab.expressivity.probe.run_networks`). Returns ``theta``, losses and the number of
    restarts each network made.

    Why: a perturbed width-m start whose copies' kinks separate can end in a region where the loss
    crawls (accepted steps, each tiny: the residual is piecewise linear in a kink position, with a
    break at every training point the kink crosses); the same protocol applied again from where it
    stopped (perturb, retrain) lands elsewhere, often in the basin of an exact solution (the recorded
    probe, docs/guide/probes.md: 9 of its 28 runs that had not come back did).

    Examples
    --------
    One fit of ``y = 3 t^2`` from 0 with one restart allowed (it converges first time: no restart):

    >>> t = torch.linspace(0, 1, 5, dtype=torch.float64)
    >>> fun = lambda th, idx: (th * t**2 - 3 * t**2, (t**2).expand(len(idx), 5).unsqueeze(-1))
    >>> th, loss, n = lm_restarts(fun, torch.zeros(1, 1, dtype=torch.float64), torch.ones(1, 1), 50,
    ...                           lambda th, idx, k: th + 1.0, [1])
    >>> round(float(th[0, 0]), 9), n.tolist()
    (3.0, [0])
    """
    left = torch.as_tensor(list(restarts), dtype=torch.long, device=theta.device)
    if left.shape != (theta.shape[0],) or bool((left < 0).any()):
        raise ValueError(f"restarts must give one count >= 0 per network ({theta.shape[0]}), got {list(restarts)}")
    theta, loss = batched_lm(fun, theta, mask, steps)
    made = torch.zeros_like(left)
    for k in range(1, int(left.max()) + 1 if left.numel() else 1):
        todo = ((left >= k) & ~(loss <= tol)).nonzero().flatten()
        if todo.numel() == 0:
            break
        ids = todo.tolist()
        start = perturb(theta[todo].clone(), ids, k)
        th2, l2 = batched_lm(lambda th, j: fun(th, [ids[i] for i in j]), start, mask[todo], steps)
        better = torch.isfinite(l2) & ~(l2 >= loss[todo])
        theta[todo[better]] = th2[better]
        loss[todo[better]] = l2[better]
        made[todo] += 1
    return theta, loss, made


def _adam(work: NetworkBatch, theta: torch.Tensor, mask: torch.Tensor, lr: torch.Tensor, x: torch.Tensor,
          t: torch.Tensor, gt: torch.Tensor, steps: int, progress: bool, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8) -> torch.Tensor:
    """B independent Adam runs (Kingma & Ba, bias-corrected) with per-network learning rates ``lr``
    (B, 1) on a cosine schedule down to 1% (the update is elementwise, so one batched update is B
    separate runs)."""
    m = torch.zeros_like(theta)
    v = torch.zeros_like(theta)
    bar = None
    if progress and steps:
        from rich.progress import Progress

        bar = Progress(transient=True)
        bar.start()
        task = bar.add_task(f"Adam ({work.B} networks)", total=steps)
    for k in range(steps):
        th = theta.detach().requires_grad_(True)
        with torch.enable_grad():
            (g,) = torch.autograd.grad(losses(work, th, x, t, gt, "sobolev").sum(), th)
        g = torch.nan_to_num(g * mask)
        m.mul_(b1).add_(g, alpha=1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        sched = 0.5 * (1 + math.cos(math.pi * k / max(steps, 1))) * 0.99 + 0.01
        mh = m / (1 - b1 ** (k + 1))
        vh = v / (1 - b2 ** (k + 1))
        theta = theta.detach() - (lr * sched) * mh / (vh.sqrt() + eps)
        if bar is not None:
            bar.advance(task)
    if bar is not None:
        bar.stop()
    return theta.detach()


def train(nb: NetworkBatch, target: Target, cfg: TrainConfig | None = None, *, device: str = "auto",
          progress: bool = True, lrs: torch.Tensor | None = None, restarts: Sequence[int] | None = None,
          perturb=None) -> dict:
    """Train every network of ``nb`` on ``target`` in place (Adam on W^{1,2}, then ``cfg.lbfgs_steps``
    of L-BFGS on ``cfg.lbfgs_loss``, or of Levenberg-Marquardt on the value residuals when
    ``cfg.polish == "lm"``); returns ``{"loss": (B,) final smoothed losses, "seconds": float}``.

    ``lrs`` (B,) gives each network its own Adam learning rate (default ``cfg.lr`` for all).
    ``restarts`` (B,) and ``perturb`` (Levenberg-Marquardt only): see :func:`lm_restarts`; the returned
    dict then also has ``"restarts"``, the number each network made."""
    import time

    cfg = cfg or TrainConfig()
    check_positive_int("n_points", cfg.n_points)
    check_choice("lbfgs_loss", cfg.lbfgs_loss, ("smooth-sup", "sobolev", "l2"))
    check_choice("polish", cfg.polish, ("lbfgs", "lm"))
    dev = resolve_device(device)
    t0 = time.perf_counter()
    x = training_points(target, cfg.n_points, cfg.kink_points, cfg.seed, cfg.kink_dmin)
    t, gt = _target_value_grad(target, x)
    x, t, gt = (v.to(dev, cfg.dtype) for v in (x, t, gt))
    work = nb.to(dev, cfg.dtype)
    mask = work.trainable
    lr = torch.as_tensor(cfg.lr if lrs is None else lrs, dtype=cfg.dtype, device=dev).reshape(-1, 1)
    if lr.shape[0] not in (1, work.B) or not bool(torch.all(torch.isfinite(lr) & (lr > 0))):
        raise ValueError(f"learning rates must be one positive number or one per network ({work.B})")
    theta = _adam(work, work.theta.clone(), mask, lr, x, t, gt, cfg.adam_steps, progress)

    def closure(th: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        th = th.detach().requires_grad_(True)
        with torch.enable_grad():
            L = losses(work, th, x, t, gt, cfg.lbfgs_loss, cfg.p)
            (g,) = torch.autograd.grad(L.sum(), th)
        return L.detach(), torch.nan_to_num(g.detach())

    cols = mask.bool().any(0)

    def residuals(th: torch.Tensor, idx: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        sub = work if len(idx) == work.B else work.subset(idx)
        f, J = sub.jacobian(x, th, cols=cols)
        return f - t, torch.nan_to_num(J)

    th = theta.detach()
    made = None
    if cfg.lbfgs_steps and cfg.polish == "lm" and restarts is not None and perturb is not None:
        th, final, made = lm_restarts(residuals, th, mask, cfg.lbfgs_steps, perturb, restarts, cfg.restart_tol)
    elif cfg.lbfgs_steps and cfg.polish == "lm":
        th, final = batched_lm(residuals, th, mask, cfg.lbfgs_steps)
    elif cfg.lbfgs_steps:
        th, final = batched_lbfgs(closure, th, mask, cfg.lbfgs_steps, cfg.history)
    else:
        final = closure(th)[0]
    nb.theta = th.detach().to(nb.theta.device, nb.theta.dtype).clone()
    nb.enforce()
    out = {"loss": final.cpu().double().numpy(), "seconds": time.perf_counter() - t0}
    if made is not None:
        out["restarts"] = made.cpu().numpy()
    return out
