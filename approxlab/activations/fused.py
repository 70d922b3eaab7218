"""Optional fused CPU kernels for the ortho activations (Hermite, sine-cosine Fourier, tropical).

One C++/OpenMP source, compiled on first use with :func:`torch.utils.cpp_extension.load_inline`
(cached by torch under ``~/.cache/torch_extensions``). Each kernel reads the input once and writes
the output once, keeping the per-degree recurrence in registers, so its cost is one memory pass
plus O(degree) arithmetic per element. They are an *option* (``backend="fused"`` on the modules);
the default eager backend needs no compiler, and :func:`available` returns False (never raises)
where the build fails, in which case the modules fall back to eager.

Kernels (float32 and float64, contiguous CPU tensors; half types are widened by the callers):

* ``hermite_fwd(x, a)`` / ``hermite_bwd(x, a, g)``: ortho Eq. 8 via the normalised recurrence
  :math:`q_{k+1} = (x q_k - q_{k-1})/(k+1)` (ortho Eq. 23) and :math:`q_k' = q_{k-1}` (Property C.5);
  the backward recomputes the recurrence and accumulates :math:`\\sum g q_k` per thread in float64.
* ``fourier_fwd(cos θ, sin θ, a, b)`` / ``fourier_bwd(...)``: ortho Eq. 12 with :math:`\\cos k\\theta,
  \\sin k\\theta` by rotation from :math:`\\cos\\theta, \\sin\\theta` (computed by torch's vectorised
  ``cos``/``sin``; the rotation's rounding error grows like k ulp).
* ``lines_fwd(x, c, p)`` / ``lines_bwd(...)``: :math:`\\max_k (c_k + p_k x)` over the given lines
  (the upper envelope, ties to the first = smallest slope).
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

_SOURCE = r"""
#include <torch/extension.h>
#include <omp.h>
#include <vector>
#include <cmath>

static const int64_t B = 256;

template <typename T>
static void hermite_fwd_impl(const T* x, const T* a, T* out, int64_t N, int n) {
  #pragma omp parallel for schedule(static)
  for (int64_t i0 = 0; i0 < N; i0 += B) {
    const int64_t m = std::min(B, N - i0);
    T qp[B], q[B], acc[B];
    const T* xs = x + i0;
    #pragma omp simd
    for (int64_t j = 0; j < m; ++j) { qp[j] = T(1); q[j] = xs[j]; acc[j] = a[0] + (n >= 1 ? a[1] * xs[j] : T(0)); }
    for (int k = 1; k < n; ++k) {
      const T inv = T(1) / T(k + 1), ak = a[k + 1];
      #pragma omp simd
      for (int64_t j = 0; j < m; ++j) {
        const T t = (xs[j] * q[j] - qp[j]) * inv;
        qp[j] = q[j]; q[j] = t; acc[j] += ak * t;
      }
    }
    for (int64_t j = 0; j < m; ++j) out[i0 + j] = acc[j];
  }
}

template <typename T>
static void hermite_bwd_impl(const T* x, const T* a, const T* g, T* gx, double* ga, int64_t N, int n,
                             bool need_x) {
  std::vector<double> total(n + 1, 0.0);
  #pragma omp parallel
  {
    std::vector<double> local(n + 1, 0.0);
    #pragma omp for schedule(static)
    for (int64_t i0 = 0; i0 < N; i0 += B) {
      const int64_t m = std::min(B, N - i0);
      T qp[B], q[B], d[B];
      const T* xs = x + i0; const T* gs = g + i0;
      T s0 = 0, s1 = 0;
      #pragma omp simd reduction(+:s0,s1)
      for (int64_t j = 0; j < m; ++j) {
        qp[j] = T(1); q[j] = xs[j];
        d[j] = (n >= 1 ? a[1] : T(0)) + (n >= 2 ? a[2] * xs[j] : T(0));
        s0 += gs[j]; s1 += gs[j] * xs[j];
      }
      local[0] += s0; if (n >= 1) local[1] += s1;
      for (int k = 1; k < n; ++k) {
        const T inv = T(1) / T(k + 1);
        const T ak = (k + 2 <= n) ? a[k + 2] : T(0);
        T s = 0;
        #pragma omp simd reduction(+:s)
        for (int64_t j = 0; j < m; ++j) {
          const T t = (xs[j] * q[j] - qp[j]) * inv;
          qp[j] = q[j]; q[j] = t; s += gs[j] * t; d[j] += ak * t;
        }
        local[k + 1] += s;
      }
      if (need_x) for (int64_t j = 0; j < m; ++j) gx[i0 + j] = gs[j] * d[j];
    }
    #pragma omp critical
    for (int k = 0; k <= n; ++k) total[k] += local[k];
  }
  for (int k = 0; k <= n; ++k) ga[k] = total[k];
}

template <typename T>
static void fourier_fwd_impl(const T* c1p, const T* s1p, const T* a, const T* b, T* out, int64_t N, int n) {
  // cos(k theta), sin(k theta) by rotation from c1 = cos(theta), s1 = sin(theta) (computed by torch);
  // a: a_0..a_n and b: b_1..b_n already divided by k!
  #pragma omp parallel for schedule(static)
  for (int64_t i0 = 0; i0 < N; i0 += B) {
    const int64_t m = std::min(B, N - i0);
    T c[B], s[B], acc[B];
    const T* c1 = c1p + i0; const T* s1 = s1p + i0;
    #pragma omp simd
    for (int64_t j = 0; j < m; ++j) { c[j] = c1[j]; s[j] = s1[j]; acc[j] = a[0]; }
    for (int k = 1; k <= n; ++k) {
      const T ak = a[k], bk = b[k - 1];
      #pragma omp simd
      for (int64_t j = 0; j < m; ++j) {
        acc[j] += ak * c[j] + bk * s[j];
        const T cn = c[j] * c1[j] - s[j] * s1[j]; s[j] = s[j] * c1[j] + c[j] * s1[j]; c[j] = cn;
      }
    }
    for (int64_t j = 0; j < m; ++j) out[i0 + j] = acc[j];
  }
}

template <typename T>
static void fourier_bwd_impl(const T* c1p, const T* s1p, const T* a, const T* b, T omega, const T* g, T* gx,
                             double* ga, double* gb, int64_t N, int n) {
  std::vector<double> ta(n + 1, 0.0), tb(n, 0.0);
  #pragma omp parallel
  {
    std::vector<double> la(n + 1, 0.0), lb(n, 0.0);
    #pragma omp for schedule(static)
    for (int64_t i0 = 0; i0 < N; i0 += B) {
      const int64_t m = std::min(B, N - i0);
      T c[B], s[B], d[B];
      const T* c1 = c1p + i0; const T* s1 = s1p + i0; const T* gs = g + i0;
      T s0 = 0;
      #pragma omp simd reduction(+:s0)
      for (int64_t j = 0; j < m; ++j) { c[j] = c1[j]; s[j] = s1[j]; d[j] = 0; s0 += gs[j]; }
      la[0] += s0;
      for (int k = 1; k <= n; ++k) {
        const T ak = T(k) * a[k], bk = T(k) * b[k - 1];
        T sa = 0, sb = 0;
        #pragma omp simd reduction(+:sa,sb)
        for (int64_t j = 0; j < m; ++j) {
          d[j] += bk * c[j] - ak * s[j];
          sa += gs[j] * c[j]; sb += gs[j] * s[j];
          const T cn = c[j] * c1[j] - s[j] * s1[j]; s[j] = s[j] * c1[j] + c[j] * s1[j]; c[j] = cn;
        }
        la[k] += sa; lb[k - 1] += sb;
      }
      for (int64_t j = 0; j < m; ++j) gx[i0 + j] = gs[j] * omega * d[j];
    }
    #pragma omp critical
    { for (int k = 0; k <= n; ++k) ta[k] += la[k]; for (int k = 0; k < n; ++k) tb[k] += lb[k]; }
  }
  for (int k = 0; k <= n; ++k) ga[k] = ta[k];
  for (int k = 0; k < n; ++k) gb[k] = tb[k];
}

template <typename T>
static void lines_fwd_impl(const T* xp, const T* c, const T* p, T* out, int64_t N, int h) {
  #pragma omp parallel for schedule(static)
  for (int64_t i0 = 0; i0 < N; i0 += B) {
    const int64_t m = std::min(B, N - i0);
    T best[B];
    const T* x = xp + i0;
    #pragma omp simd
    for (int64_t j = 0; j < m; ++j) best[j] = c[0] + p[0] * x[j];
    for (int k = 1; k < h; ++k) {
      const T ck = c[k], pk = p[k];
      #pragma omp simd
      for (int64_t j = 0; j < m; ++j) { const T v = ck + pk * x[j]; best[j] = v > best[j] ? v : best[j]; }
    }
    for (int64_t j = 0; j < m; ++j) out[i0 + j] = best[j];
  }
}

template <typename T>
static void lines_bwd_impl(const T* xp, const T* c, const T* p, const T* g, T* gx, double* gc, double* gp,
                           int64_t N, int h) {
  std::vector<double> tc(h, 0.0), tp(h, 0.0);
  #pragma omp parallel
  {
    std::vector<double> lc(h, 0.0), lp(h, 0.0);
    #pragma omp for schedule(static)
    for (int64_t i0 = 0; i0 < N; i0 += B) {
      const int64_t m = std::min(B, N - i0);
      T best[B], slope[B]; int arg[B];
      const T* x = xp + i0; const T* gs = g + i0;
      #pragma omp simd
      for (int64_t j = 0; j < m; ++j) { best[j] = c[0] + p[0] * x[j]; arg[j] = 0; slope[j] = p[0]; }
      for (int k = 1; k < h; ++k) {
        const T ck = c[k], pk = p[k];
        #pragma omp simd
        for (int64_t j = 0; j < m; ++j) {
          const T v = ck + pk * x[j]; const bool up = v > best[j];
          best[j] = up ? v : best[j]; arg[j] = up ? k : arg[j]; slope[j] = up ? pk : slope[j];
        }
      }
      #pragma omp simd
      for (int64_t j = 0; j < m; ++j) gx[i0 + j] = gs[j] * slope[j];
      for (int k = 0; k < h; ++k) {
        T sc = 0, sp = 0;
        #pragma omp simd reduction(+:sc,sp)
        for (int64_t j = 0; j < m; ++j) { const T w = arg[j] == k ? gs[j] : T(0); sc += w; sp += w * x[j]; }
        lc[k] += sc; lp[k] += sp;
      }
    }
    #pragma omp critical
    for (int k = 0; k < h; ++k) { tc[k] += lc[k]; tp[k] += lp[k]; }
  }
  for (int k = 0; k < h; ++k) { gc[k] = tc[k]; gp[k] = tp[k]; }
}

torch::Tensor hermite_fwd(torch::Tensor x, torch::Tensor a) {
  auto out = torch::empty_like(x);
  const int n = a.numel() - 1;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "hermite_fwd", [&] {
    hermite_fwd_impl<scalar_t>(x.data_ptr<scalar_t>(), a.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), x.numel(), n);
  });
  return out;
}

std::vector<torch::Tensor> hermite_bwd(torch::Tensor x, torch::Tensor a, torch::Tensor g, bool need_x) {
  auto gx = need_x ? torch::empty_like(x) : torch::empty({0}, x.options());
  auto ga = torch::zeros({a.numel()}, x.options().dtype(torch::kFloat64));
  const int n = a.numel() - 1;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "hermite_bwd", [&] {
    hermite_bwd_impl<scalar_t>(x.data_ptr<scalar_t>(), a.data_ptr<scalar_t>(), g.data_ptr<scalar_t>(),
                               need_x ? gx.data_ptr<scalar_t>() : nullptr, ga.data_ptr<double>(), x.numel(), n, need_x);
  });
  return {gx, ga};
}

torch::Tensor fourier_fwd(torch::Tensor c1, torch::Tensor s1, torch::Tensor a, torch::Tensor b) {
  auto out = torch::empty_like(c1);
  AT_DISPATCH_FLOATING_TYPES(c1.scalar_type(), "fourier_fwd", [&] {
    fourier_fwd_impl<scalar_t>(c1.data_ptr<scalar_t>(), s1.data_ptr<scalar_t>(), a.data_ptr<scalar_t>(),
                               b.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), c1.numel(), b.numel());
  });
  return out;
}

std::vector<torch::Tensor> fourier_bwd(torch::Tensor c1, torch::Tensor s1, torch::Tensor a, torch::Tensor b,
                                       double omega, torch::Tensor g) {
  auto gx = torch::empty_like(c1);
  auto ga = torch::zeros({a.numel()}, c1.options().dtype(torch::kFloat64));
  auto gb = torch::zeros({b.numel()}, c1.options().dtype(torch::kFloat64));
  AT_DISPATCH_FLOATING_TYPES(c1.scalar_type(), "fourier_bwd", [&] {
    fourier_bwd_impl<scalar_t>(c1.data_ptr<scalar_t>(), s1.data_ptr<scalar_t>(), a.data_ptr<scalar_t>(),
                               b.data_ptr<scalar_t>(), (scalar_t)omega, g.data_ptr<scalar_t>(),
                               gx.data_ptr<scalar_t>(), ga.data_ptr<double>(), gb.data_ptr<double>(),
                               c1.numel(), b.numel());
  });
  return {gx, ga, gb};
}

torch::Tensor lines_fwd(torch::Tensor x, torch::Tensor c, torch::Tensor p) {
  auto out = torch::empty_like(x);
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "lines_fwd", [&] {
    lines_fwd_impl<scalar_t>(x.data_ptr<scalar_t>(), c.data_ptr<scalar_t>(), p.data_ptr<scalar_t>(),
                             out.data_ptr<scalar_t>(), x.numel(), c.numel());
  });
  return out;
}

std::vector<torch::Tensor> lines_bwd(torch::Tensor x, torch::Tensor c, torch::Tensor p, torch::Tensor g) {
  auto gx = torch::empty_like(x);
  auto gc = torch::zeros({c.numel()}, x.options().dtype(torch::kFloat64));
  auto gp = torch::zeros({c.numel()}, x.options().dtype(torch::kFloat64));
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "lines_bwd", [&] {
    lines_bwd_impl<scalar_t>(x.data_ptr<scalar_t>(), c.data_ptr<scalar_t>(), p.data_ptr<scalar_t>(),
                             g.data_ptr<scalar_t>(), gx.data_ptr<scalar_t>(), gc.data_ptr<double>(),
                             gp.data_ptr<double>(), x.numel(), c.numel());
  });
  return {gx, gc, gp};
}
"""

_FUNCTIONS = ["hermite_fwd", "hermite_bwd", "fourier_fwd", "fourier_bwd", "lines_fwd", "lines_bwd"]
_LOCK = threading.Lock()
_MODULE: Any = None
_FAILED: str | None = None


def kernels() -> Any:
    """The compiled extension, building it on first call; None if it cannot be built here."""
    global _MODULE, _FAILED
    if _MODULE is not None or _FAILED is not None:
        return _MODULE
    with _LOCK:
        if _MODULE is None and _FAILED is None:
            try:
                from torch.utils.cpp_extension import load_inline

                _MODULE = load_inline(
                    name="approxlab_ortho_fused_v2",
                    cpp_sources=_SOURCE,
                    functions=_FUNCTIONS,
                    extra_cflags=["-O3", "-march=native", "-fopenmp", "-fno-math-errno"],
                    extra_ldflags=["-fopenmp"],
                    verbose=bool(os.environ.get("APPROXLAB_FUSED_VERBOSE")),
                )
            except Exception as exc:  # noqa: BLE001  (no compiler, no headers, ...: eager fallback)
                _FAILED = f"{type(exc).__name__}: {exc}"
                warnings.warn(f"fused CPU kernels unavailable, using eager: {_FAILED}", RuntimeWarning, stacklevel=2)
    return _MODULE


def available() -> bool:
    """True if the fused kernels are built (or build now) on this machine."""
    return kernels() is not None


__all__ = ["kernels", "available"]
